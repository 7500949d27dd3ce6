//! Call activity: the events `onCallActivity` listeners receive. The listeners themselves are
//! JavaScript functions, kept and called by the driver.
//!
//! Seed, "Frontend / Call activity": "onCallActivity(listener) reports every call issued through a
//! proxy, over REST and muxws: start when it is issued, retry for each repeat, with how the attempt
//! ended and the delay before the repeat, and settle when its promise settles. Each event carries the
//! call's key."

use crate::call::{CallId, Transport, WaitReason};
use crate::repeat::Ended;

/// What happened to a call. The events of one call come strictly in the order
/// `Start`, any number of `Retry`, `Settle`; `Wait` events (issue 14) come between `Start` and
/// `Settle`, and a listener that looks only at the other three sees exactly what it saw before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActivityKind {
    /// Seed: "start when it is issued".
    Start,
    /// Seed: "retry for each repeat, with how the attempt ended and the delay before the repeat".
    /// Emitted when the repeat is scheduled.
    Retry {
        /// The number of the attempt that went unanswered (1 for the first).
        attempt: u32,
        /// How that attempt ended.
        ended: Ended,
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
        /// How the last attempt ended.
        ended: Ended,
    },
    /// Why the call waits changed to or from [`WaitReason::Offline`] (issue 14: "activity events
    /// report the change"): emitted when the call starts waiting for the platform to be online
    /// (`Offline`: when the platform goes offline while its repeat waits, or after the `Retry` of an
    /// attempt that ended while offline), and when that wait ends with the call going on (its new
    /// reason: `InFlight` just before its repeat is sent, or `Reconnect` when the platform is online
    /// again but its muxws peer is still away). A call that settles meanwhile has only its `Settle`.
    /// The other changes of reason follow from `Start`, `Retry` and peer news, and are read from
    /// `pending_calls()`; without an offline signal no `Wait` is ever emitted.
    Wait {
        /// What the call waits for now.
        reason: WaitReason,
    },
}

impl ActivityKind {
    /// The `type` of the JS event: `"start"`, `"retry"`, `"settle"` or `"wait"` (seed: "if
    /// (event.type === 'retry') …").
    pub fn type_name(&self) -> &'static str {
        match self {
            ActivityKind::Start => "start",
            ActivityKind::Retry { .. } => "retry",
            ActivityKind::Settle { .. } => "settle",
            ActivityKind::Wait { .. } => "wait",
        }
    }
}

/// One call-activity event, with the call it is about.
///
/// Seed rule: "Each event carries the call's key" — the driver, which knows each call's key, method
/// and path by its id, adds them; `background` lets "a busy indicator" leave out the calls marked
/// `RequestOptions.background`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActivityEvent {
    /// What happened.
    pub kind: ActivityKind,
    /// The engine's id of the call.
    pub call: CallId,
    /// REST, or muxws through which peer.
    pub transport: Transport,
    /// The call was issued with `RequestOptions.background: true`.
    pub background: bool,
    /// When it happened (the `now` of the engine entry point that produced it).
    pub at: u64,
}
