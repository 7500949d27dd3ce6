//! [`Action`]: the work the engine hands its driver.

use crate::activity::ActivityEvent;
use crate::call::{Abandon, CallId, PeerId};
use crate::repeat::AttemptEnd;

/// Work the engine hands the driver, drained with
/// [`CallEngine::poll_action`](crate::CallEngine::poll_action) in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send attempt `attempt` of `call`. `carry`: send it with the headers the first attempt went
    /// out with (reported by
    /// [`CallEngine::headers_captured`](crate::CallEngine::headers_captured)); false for the first
    /// attempt and whenever none were reported yet (seed: "An attempt that failed before axios built
    /// its config, or before a stream was opened, has no headers to carry over"), in which case the
    /// driver builds them as for a first attempt.
    SendAttempt {
        /// The call.
        call: CallId,
        /// The attempt's number, 1 for the first.
        attempt: u32,
        /// Send the first attempt's captured headers.
        carry: bool,
    },
    /// Abandon attempt `attempt` of `call`: abort its request or cancel its stream. Always queued
    /// before the call's next `SendAttempt`, and never twice for one attempt.
    AbandonAttempt {
        /// The call.
        call: CallId,
        /// The attempt's number.
        attempt: u32,
        /// Why.
        why: Abandon,
    },
    /// Settle the call's promise with how attempt `attempt` (its last) ended. Seed: "Only the last
    /// attempt settles the promise"; past `repeat.withinMs` "the call rejects with the error of its
    /// last attempt". The engine keeps nothing of the call afterwards.
    Settle {
        /// The call.
        call: CallId,
        /// The last attempt's number.
        attempt: u32,
        /// How it ended.
        end: AttemptEnd,
    },
    /// Ask `peer` to reconnect now instead of waiting for its backoff (queued by
    /// [`CallEngine::retry_now`](crate::CallEngine::retry_now) and by
    /// [`CallEngine::set_online`](crate::CallEngine::set_online) coming online, once per peer that
    /// calls wait for).
    ReconnectNow {
        /// The peer.
        peer: PeerId,
    },
    /// A call-activity event for the `onCallActivity` listeners.
    Activity(ActivityEvent),
}
