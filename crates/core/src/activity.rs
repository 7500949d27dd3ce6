//! Call activity: the events `onCallActivity` listeners receive, and the listener registry.
//!
//! Seed, "Frontend / Call activity": "onCallActivity(listener) reports every call issued through a
//! proxy, over REST and muxws: start when it is issued, retry for each repeat, with how the attempt
//! ended and the delay before the repeat, and settle when its promise settles. Each event carries the
//! call's key."

use crate::engine::{CallId, Transport};
use crate::key::IdempotencyKey;

/// What happened to a call. The events of one call come strictly in the order
/// `Start`, any number of `Retry`, `Settle`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActivityKind {
    /// Seed: "start when it is issued".
    Start,
    /// Seed: "retry for each repeat, with how the attempt ended and the delay before the repeat".
    /// Emitted when the repeat is scheduled.
    Retry {
        /// The number of the attempt that went unanswered (1 for the first).
        attempt: u32,
        /// How that attempt ended ([`AttemptEnd::label`](crate::AttemptEnd::label)).
        ended: &'static str,
        /// The delay before the repeat, 0 when it is sent at once.
        delay_ms: u64,
        /// The repeat also waits for the muxws peer to reconnect.
        waits_for_reconnect: bool,
    },
    /// Seed: "settle when its promise settles".
    Settle {
        /// The promise resolves (the last attempt was answered with a status below 400).
        ok: bool,
        /// How many attempts the call made.
        attempts: u32,
        /// How the last attempt ended ([`AttemptEnd::label`](crate::AttemptEnd::label)).
        ended: &'static str,
    },
}

impl ActivityKind {
    /// The `type` of the JS event: `"start"`, `"retry"` or `"settle"` (seed: "if (event.type ===
    /// 'retry') …").
    pub fn type_name(&self) -> &'static str {
        match self {
            ActivityKind::Start => "start",
            ActivityKind::Retry { .. } => "retry",
            ActivityKind::Settle { .. } => "settle",
        }
    }
}

/// One call-activity event, with the call it is about.
///
/// Seed rule: "Each event carries the call's key"; `background` lets "a busy indicator" leave out the
/// calls marked `RequestOptions.background`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActivityEvent {
    /// What happened.
    pub kind: ActivityKind,
    /// The engine's id of the call.
    pub call: CallId,
    /// The call's idempotency key, the same in every event of the call.
    pub key: IdempotencyKey,
    /// The HTTP method of the call.
    pub method: String,
    /// The path of the call.
    pub path: String,
    /// REST, or muxws through which peer.
    pub transport: Transport,
    /// The call was issued with `RequestOptions.background: true`.
    pub background: bool,
    /// When it happened (the `now` of the engine entry point that produced it).
    pub at: u64,
}

/// The handle [`Listeners::add`] returns, to [`Listeners::remove`] that listener later (the function
/// `onCallActivity` returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ListenerId(u64);

/// The registered `onCallActivity` listeners, in registration order.
///
/// Seed rule: "onCallActivity(listener) reports every call"; the returned stop function removes the
/// listener. [`Listeners::dispatch`] keeps one failing listener from stopping the others.
#[derive(Clone, Debug)]
pub struct Listeners<L> {
    entries: Vec<(ListenerId, L)>,
    next_id: u64,
}

impl<L> Default for Listeners<L> {
    fn default() -> Self {
        Listeners {
            entries: Vec::new(),
            next_id: 1,
        }
    }
}

impl<L> Listeners<L> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `listener` after the ones already registered; the id removes it again.
    pub fn add(&mut self, listener: L) -> ListenerId {
        let id = ListenerId(self.next_id);
        self.next_id += 1;
        self.entries.push((id, listener));
        id
    }

    /// Removes the listener registered under `id`; false when there is none (already removed).
    pub fn remove(&mut self, id: ListenerId) -> bool {
        match self
            .entries
            .iter()
            .position(|(entry_id, _)| *entry_id == id)
        {
            Some(index) => {
                self.entries.remove(index);
                true
            }
            None => false,
        }
    }

    /// How many listeners are registered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No listener is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The listeners, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &L> + '_ {
        self.entries.iter().map(|(_, listener)| listener)
    }

    /// Hands `event` to every listener through `call`, in registration order, and returns the errors
    /// of those that failed; a failing listener does not stop the ones after it.
    ///
    /// Seed rule ("Call activity"): "onCallActivity(listener) reports every call" to every listener —
    /// "a busy indicator or a connectivity notice builds on it", so one broken listener must not keep
    /// the event from the others. The wasm layer passes a `call` that wraps the JS call in try/catch.
    pub fn dispatch<E>(
        &self,
        event: &ActivityEvent,
        mut call: impl FnMut(&L, &ActivityEvent) -> Result<(), E>,
    ) -> Vec<E> {
        self.iter()
            .filter_map(|listener| call(listener, event).err())
            .collect()
    }
}
