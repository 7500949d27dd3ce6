//! `viewsets-core`: the sans-IO core of the idempotent, repeatable ViewSet calls of the npm package
//! `@dynamicforms/fastapi-viewsets` (seed: "Idempotent Calls", section "Frontend").
//!
//! - [`key`]: the Idempotency-Key — v4 UUIDs, caller keys, the Structured Field string form;
//! - [`headers`]: the header rules of repeats (which names axios sets again, the key header);
//! - [`repeat`]: the repeat policy, how an attempt ended, the Repeats table ([`classify`]);
//! - [`call`]: the call vocabulary — ids, [`CallSpec`], [`Transport`], [`WaitReason`], [`PendingCall`];
//! - [`engine`]: the [`CallEngine`] — attempts, timeouts, repeats, settling, pending calls, offline
//!   waits;
//! - [`action`]: [`Action`], the work the engine hands its driver;
//! - [`activity`]: call-activity events;
//! - [`slab`]: [`IdSlab`], the small id-keyed map the engine keeps its calls in (no hashing, no
//!   B-tree: each instantiation of those costs several KB of wasm).
//!
//! No clock, no I/O, `no_std` with `alloc` (so that the wasm module it is linked into needs none of
//! std's panic and formatting machinery): time comes in as `now` (milliseconds), work goes out through
//! [`CallEngine::poll_action`], and the next wakeup through [`CallEngine::poll_timeout`].

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

pub mod action;
pub mod activity;
pub mod call;
pub mod engine;
pub mod headers;
pub mod key;
pub mod repeat;
pub mod slab;
mod timers;

pub use activity::{ActivityEvent, ActivityKind};
pub use call::{Abandon, CallId, CallSpec, PeerId, PendingCall, Transport, WaitReason};
pub use action::Action;
pub use engine::CallEngine;
pub use headers::{is_key_header, is_set_again_by_axios, IDEMPOTENCY_KEY_HEADER, SET_AGAIN_BY_AXIOS};
pub use key::{check_key, new_key_text, write_structured_field, IdempotencyKey, KeyError};
pub use repeat::{
    classify, AttemptEnd, Ended, RepeatOverride, RepeatPolicy, Verdict, DEFAULT_ATTEMPT_TIMEOUT_MS,
    DEFAULT_DELAY_MS, DEFAULT_WITHIN_MS, JITTER_WHOLE, MAX_DELAY_MS,
};
pub use slab::IdSlab;
