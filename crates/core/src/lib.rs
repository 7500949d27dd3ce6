//! `viewsets-core`: the sans-IO core of the idempotent, repeatable ViewSet calls of the npm package
//! `@dynamicforms/fastapi-viewsets` (seed: "Idempotent Calls", section "Frontend"). The calls
//! module (the root crate) codes against this crate's API, which these docs describe (`cargo doc
//! -p viewsets-core --open`); everything public is re-exported from the crate root.
//!
//! # Modules
//!
//! - [`key`]: the Idempotency-Key — v4 UUIDs ([`new_key_text`]), caller keys ([`check_key`],
//!   [`IdempotencyKey`]), the Structured Field string form ([`write_structured_field`]);
//! - [`headers`]: the header rules of repeats (which names axios sets again, the key header);
//! - [`repeat`]: the repeat policy ([`RepeatPolicy`], [`RepeatOverride`]), how an attempt ended
//!   ([`AttemptEnd`], [`Ended`]), the Repeats table ([`classify`], [`Verdict`]);
//! - [`call`]: the call vocabulary — ids ([`CallId`], [`PeerId`]), [`CallSpec`], [`Transport`],
//!   [`Abandon`], [`WaitReason`], [`PendingCall`];
//! - [`activity`]: call-activity events ([`ActivityEvent`], [`ActivityKind`]);
//! - [`action`]: [`Action`], the work the engine hands its driver;
//! - [`engine`]: the [`CallEngine`] — attempts, timeouts, repeats, settling, pending calls, offline
//!   waits;
//! - [`slab`]: [`IdSlab`], the small id-keyed map the engine keeps its calls in (no hashing, no
//!   B-tree: smaller in wasm).
//!
//! No clock, no I/O, `no_std` with `alloc` (so that the wasm module it is linked into needs none of
//! std's panic and formatting machinery): time comes in as `now` (milliseconds), work goes out through
//! [`CallEngine::poll_action`], and the next wakeup through [`CallEngine::poll_timeout`].
//!
//! # How a driver uses the engine
//!
//! ```
//! use viewsets_core::{Abandon, Action, ActivityKind, AttemptEnd, CallEngine, CallSpec, Transport};
//!
//! let mut engine = CallEngine::new();
//! let call = engine.issue(CallSpec::new(Transport::Rest), 0);
//! // Issuing: the start event, then the first attempt; its deadline is the attempt timeout.
//! let Some(Action::Activity(start)) = engine.poll_action() else { unreachable!() };
//! assert_eq!(start.kind, ActivityKind::Start);
//! assert_eq!(engine.poll_action(), Some(Action::SendAttempt { call, attempt: 1, carry: false }));
//! assert_eq!(engine.poll_action(), None);
//! assert_eq!(engine.poll_timeout(), Some(30_000));
//!
//! // No response: the retry event when the repeat is scheduled, the repeat when its delay ends.
//! engine.attempt_ended(call, 1, AttemptEnd::NetworkError, 100);
//! let Some(Action::Activity(retry)) = engine.poll_action() else { unreachable!() };
//! assert!(matches!(retry.kind, ActivityKind::Retry { attempt: 1, delay_ms: 1_000, .. }));
//! assert_eq!(engine.poll_timeout(), Some(1_100));
//! engine.handle_timeout(1_100);
//! let superseded = Action::AbandonAttempt { call, attempt: 1, why: Abandon::Superseded };
//! assert_eq!(engine.poll_action(), Some(superseded));
//! assert_eq!(engine.poll_action(), Some(Action::SendAttempt { call, attempt: 2, carry: false }));
//!
//! // An answer: the settle, then its event; nothing of the call is left.
//! let answer = AttemptEnd::HttpAnswer { status: 200, json_detail: false };
//! engine.attempt_ended(call, 2, answer.clone(), 1_200);
//! assert_eq!(engine.poll_action(), Some(Action::Settle { call, attempt: 2, end: answer }));
//! let Some(Action::Activity(settle)) = engine.poll_action() else { unreachable!() };
//! assert!(matches!(settle.kind, ActivityKind::Settle { ok: true, attempts: 2, .. }));
//! assert_eq!((engine.live_calls(), engine.poll_timeout()), (0, None));
//! ```
//!
//! # What a driver can rely on
//!
//! - Order of actions: [`CallEngine::issue`] queues `Activity(Start)` then `SendAttempt { attempt:
//!   1 }`. A repeat queues `Activity(Retry)` when it is scheduled, then (at once, or when it is due)
//!   `AbandonAttempt { why: Superseded }` for the attempt it replaces — left out when that attempt
//!   was abandoned for its timeout — immediately followed by the next `SendAttempt`. An attempt
//!   timeout queues `AbandonAttempt { why: Timeout }` before anything else of it. Settling queues
//!   `Settle` then `Activity(Settle)`; the engine keeps nothing of the call afterwards, and later
//!   reports about it are ignored.
//! - Only the latest attempt counts: a report of how any other attempt ended, or of an attempt that
//!   already ended, is ignored.
//! - A repeat is sent only when `send time − issue time ≤ within_ms` (and `within_ms > 0`); a driver
//!   that wakes the engine past that bound gets a `Settle` with the last attempt's end instead.
//! - [`CallEngine::retry_now`] emits no second `Retry` event: each repeat's was emitted when it was
//!   scheduled.
//! - `Retry { waits_for_reconnect }` and [`PendingCall::waiting_for_reconnect`] are true when the
//!   repeat is conditioned on its peer ([`Verdict::RepeatAfterDelayAndReconnect`]), whatever the
//!   peer's state at that moment; what the call waits for now is [`PendingCall::reason`].
//! - A connection failure of a call whose peer the engine knows to be closed for good
//!   ([`CallEngine::peer_closed_for_good`], and no `peer_available(peer, true)` since) is repeated
//!   at once, so that its `open()` throws ConnectionClosed and the call settles.
//! - `Wait` events ([`ActivityKind::Wait`]) are emitted only after [`CallEngine::set_online`] said
//!   offline.
//! - [`Ended::as_str`], [`ActivityKind::type_name`] and [`WaitReason::as_str`] are the names the JS
//!   API gives ends, event types and wait reasons (the wasm module hands over the discriminants,
//!   and the TS runtime holds the same names).

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

pub mod action;
pub mod activity;
pub mod call;
pub mod engine;
pub mod fallback;
pub mod headers;
pub mod key;
pub mod repeat;
pub mod slab;
mod timers;

pub use activity::{ActivityEvent, ActivityKind};
pub use call::{Abandon, CallId, CallSpec, PeerId, PendingCall, Transport, WaitReason};
pub use action::Action;
pub use engine::CallEngine;
pub use fallback::Fallback;
pub use headers::{is_key_header, is_set_again_by_axios, IDEMPOTENCY_KEY_HEADER, SET_AGAIN_BY_AXIOS};
pub use key::{check_key, new_key_text, write_structured_field, IdempotencyKey, KeyError};
pub use repeat::{
    classify, AttemptEnd, Ended, RepeatOverride, RepeatPolicy, Verdict, DEFAULT_ATTEMPT_TIMEOUT_MS,
    DEFAULT_DELAY_MS, DEFAULT_WITHIN_MS, JITTER_WHOLE, MAX_DELAY_MS,
};
pub use slab::IdSlab;
