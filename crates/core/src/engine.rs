//! The call engine: the calls of a module instance and their attempts, sans-IO.
//!
//! Seed, "Frontend / Repeats": the proxies "repeat a call with the same key when an attempt ends
//! without an answer from the application"; "A repeated attempt is abandoned first […]. Only the last
//! attempt settles the promise, and key stays the same across attempts"; "Every attempt is sent with
//! the headers of the first". Seed, "Call activity": start/retry/settle events, `pendingCalls()`,
//! `pendingCallCount()`, `retryNow()`. Issue 14: offline awareness ([`CallEngine::set_online`]), why a
//! call waits ([`WaitReason`]), a `retry_now` that never lengthens the schedule, `Retry-After`, and
//! jitter.
//!
//! The engine never reads a clock and performs no I/O: every entry point takes `now` (milliseconds on
//! a monotonic clock of the driver's choosing); the work it wants done comes out of
//! [`CallEngine::poll_action`], and the moment it wants to be woken out of
//! [`CallEngine::poll_timeout`], at which the driver calls [`CallEngine::handle_timeout`].

use alloc::vec::Vec;

use crate::action::Action;
use crate::activity::{ActivityEvent, ActivityKind};
use crate::call::{Abandon, CallId, CallSpec, PeerId, PendingCall, Transport, WaitReason};
use crate::repeat::{classify, AttemptEnd, Ended, Verdict};
use crate::slab::{insert_at, IdSlab};
use crate::timers::TimerSet;

/// Where a call stands between its issue and its settling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The call's latest attempt is in flight; its timer, if any, is the attempt's deadline.
    InFlight,
    /// The latest attempt ended and a repeat waits. `delay_until`: the repeat's delay has not elapsed
    /// yet (the timer is set to it); `reconnect`: the repeat also waits for that peer to be connected.
    /// Every waiting repeat also waits for the platform to be online. Once the delay has elapsed (or
    /// when there was none), the timer is the within deadline.
    Waiting {
        delay_until: Option<u64>,
        reconnect: Option<PeerId>,
    },
}

/// What the engine knows of a peer that is not simply available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PeerState {
    /// Between sockets, or draining after a goaway.
    Unavailable,
    /// Closed for good (`onClose` with `willRetry` false).
    ClosedForGood,
}

/// `peer` is available: not listed in `peers`, the engine's list of peers that are not.
fn peer_is_available(peers: &[(PeerId, PeerState)], peer: PeerId) -> bool {
    !peers.iter().any(|&(listed, _)| listed == peer)
}

/// The engine's state of one unsettled call.
#[derive(Debug)]
struct Call {
    spec: CallSpec,
    issued_at: u64,
    /// The number of the latest attempt sent (in flight, or ended while a repeat waits).
    attempt: u32,
    /// Delayed repeats scheduled so far, for the doubling of the delay.
    delayed_repeats: u32,
    /// Set while the call's latest attempt (or the repeat about to go out) was sent early by
    /// `retry_now` or by coming online: when the delay it cut short would have ended. Should that
    /// attempt fail, its repeat is due then (at once when that has passed) and does not count
    /// towards the doubling. Cleared when the repeat it applied to is scheduled, or when an attempt
    /// goes out no earlier than it.
    resume_at: Option<u64>,
    /// The driver reported the headers of an attempt: repeats carry them.
    headers_captured: bool,
    /// When the call's one timer is due (its attempt's deadline, its repeat's delay, its within
    /// deadline), if it has one; the engine's [`TimerSet`] knows which is earliest.
    timer: Option<u64>,
    /// How the latest attempt ended, once it has.
    last_end: Option<AttemptEnd>,
    /// The latest attempt was abandoned already (its timeout passed).
    last_abandoned: bool,
    phase: Phase,
}

impl Call {
    /// Seed rule: "A repeat is sent only this long after the first attempt […]. 0 turns repeating
    /// off." The first attempt starts when the call is issued.
    fn within_allows(&self, send_at: u64) -> bool {
        let within_ms = self.spec.policy.within_ms;
        within_ms > 0 && send_at.saturating_sub(self.issued_at) <= within_ms
    }

    /// The last moment a repeat may be sent; `None` when it lies beyond the clock's range (never).
    fn within_deadline(&self) -> Option<u64> {
        self.issued_at.checked_add(self.spec.policy.within_ms)
    }

    /// What the call waits for, the platform being `online` or not and `peers` the peers that are
    /// not available: the one place the order of [`WaitReason`] is decided. An attempt in flight
    /// waits for its answer; a waiting repeat waits for the first that holds of `Offline` (while
    /// offline neither its delay nor its peer sends it), `Reconnect` (its muxws peer is away, which
    /// holds it past its delay) and `Delay` (its delay alone, or nothing at all once that has
    /// elapsed: then it is due to be sent).
    fn waits_for(&self, online: bool, peers: &[(PeerId, PeerState)]) -> WaitReason {
        match self.phase {
            Phase::InFlight => WaitReason::InFlight,
            Phase::Waiting { .. } if !online => WaitReason::Offline,
            Phase::Waiting {
                reconnect: Some(peer), ..
            } if !peer_is_available(peers, peer) => WaitReason::Reconnect,
            Phase::Waiting { .. } => WaitReason::Delay,
        }
    }

    /// Ends the delay of this waiting repeat: from now on it waits for `reconnect`'s peer alone (its
    /// own wait), until the within deadline, which it returns for the call's timer.
    fn end_delay(&mut self, reconnect: Option<PeerId>) -> Option<u64> {
        self.phase = Phase::Waiting {
            delay_until: None,
            reconnect,
        };
        self.within_deadline()
    }
}

/// Queues the activity event `kind` of call `id` (issued with `spec`) at `now`. Out of line, so
/// that the wasm module holds one copy of the code that builds and queues an event.
#[inline(never)]
fn queue_event(actions: &mut Vec<Option<Action>>, id: CallId, spec: &CallSpec, kind: ActivityKind, now: u64) {
    actions.push(Some(Action::Activity(ActivityEvent {
        kind,
        call: id,
        transport: spec.transport,
        background: spec.background,
        at: now,
    })));
}

/// The calls of one module instance: issues attempts, repeats them by the seed's rules, settles calls,
/// and reports call activity. Sans-IO: see the [module documentation](self).
///
/// Seed rules implemented here: the Repeats table (through [`classify`]), `repeat.withinMs`,
/// `repeat.delayMs` and its doubling, `attemptTimeoutMs`/`timeoutMs`, "A repeated attempt is abandoned
/// first", "Only the last attempt settles the promise", "Every attempt is sent with the headers of the
/// first", "A repeat over muxws waits for peer.onReconnect, at most until withinMs has elapsed. A peer
/// that closes for good […] ends the wait", and the whole "Call activity" section.
///
/// The calls that wait for a peer are found by a scan of the unsettled calls (peer news is rare); no
/// hashing or B-tree is used, for the sake of the wasm module's size.
#[derive(Debug)]
pub struct CallEngine {
    /// Unsettled calls by id; ids increase in issue order, so this is also oldest first.
    calls: IdSlab<Call>,
    next_call: CallId,
    /// Unsettled calls that are not background, for an O(1) `pending_call_count`.
    foreground_calls: usize,
    /// The one timer of each call that has one: its attempt deadline, repeat delay or within
    /// deadline, by the call's phase.
    timers: TimerSet,
    /// The platform says it is online ([`CallEngine::set_online`]); true until told otherwise.
    online: bool,
    /// Peers that are not available, each listed once (in no particular order); a peer not listed is
    /// available. Few: one per muxws peer.
    peers: Vec<(PeerId, PeerState)>,
    /// The actions queued, oldest first: those before `actions_taken` were handed out already
    /// (`None`). Emptied when the last is handed out (a `Vec` rather than a `VecDeque`: smaller in
    /// wasm). Not `vec_fifo::Fifo`, the queue of the muxws crates: every pump drains this one
    /// completely, so it needs none of `Fifo`'s compaction (smaller in wasm without it).
    actions: Vec<Option<Action>>,
    /// How many of `actions` [`CallEngine::poll_action`] has handed out.
    actions_taken: usize,
}

impl Default for CallEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl CallEngine {
    /// An engine with no calls, online. Every peer counts as available until
    /// [`CallEngine::peer_available`] says otherwise. A `const fn`, so that a `static` can hold one.
    pub const fn new() -> Self {
        CallEngine {
            calls: IdSlab::new(),
            next_call: 1,
            foreground_calls: 0,
            timers: TimerSet::new(),
            online: true,
            peers: Vec::new(),
            actions: Vec::new(),
            actions_taken: 0,
        }
    }

    /// Issues a call: queues `Activity(Start)` and `SendAttempt { attempt: 1, headers: None }`, and
    /// starts the first attempt's timeout. Seed: "start when it is issued".
    pub fn issue(&mut self, spec: CallSpec, now: u64) -> CallId {
        let id = self.next_call;
        self.next_call += 1;
        let call = Call {
            spec,
            issued_at: now,
            attempt: 0,
            delayed_repeats: 0,
            resume_at: None,
            headers_captured: false,
            timer: None,
            last_end: None,
            last_abandoned: false,
            phase: Phase::InFlight,
        };
        // Ids only grow, so `id` is above every id held and `push` takes the call (its other
        // outcome would leave no trace of the call: later reports about `id` are ignored).
        if self.calls.push(id, call).is_ok() {
            if !spec.background {
                self.foreground_calls += 1;
            }
            queue_event(&mut self.actions, id, &spec, ActivityKind::Start, now);
            self.send_attempt(id, now);
        }
        id
    }

    /// Reports that attempt `attempt` of `call` went out with headers the driver keeps (REST: the
    /// request's effective headers after the request interceptors; muxws: the stream's headers after
    /// the peer's open interceptors). From then on every `SendAttempt` of the call has `carry` set.
    /// Reports for unknown calls or attempts not sent yet are ignored.
    ///
    /// Seed rule: "Every attempt is sent with the headers of the first".
    pub fn headers_captured(&mut self, call: CallId, attempt: u32) {
        let Some(state) = self.calls.get_mut(call) else {
            return;
        };
        if attempt == 0 || attempt > state.attempt {
            return;
        }
        state.headers_captured = true;
    }

    /// Reports how attempt `attempt` of `call` ended. Reports for a settled or unknown call, for an
    /// attempt other than the latest, or for an attempt that already ended (its timeout passed) are
    /// ignored: seed, "Only the last attempt settles the promise".
    ///
    /// What follows is [`classify`]'s verdict, bounded by `repeat.withinMs`: a repeat whose send time
    /// would fall more than `within_ms` after the first attempt's start is not scheduled, and the call
    /// settles at once with this end. The delay of a repeated attempt (issue 14), in this order:
    /// - offline ([`CallEngine::set_online`]): none; the repeat waits for the platform to be online
    ///   and the attempt does not count towards the doubling;
    /// - an attempt sent early by [`CallEngine::retry_now`] (or by coming online): the rest of the
    ///   delay it cut short (none when that has passed), or the answer's `Retry-After`; it does not
    ///   count towards the doubling;
    /// - otherwise a repeat "at once" has none; a delayed one has the answer's `Retry-After` when it
    ///   carries one ([`CallEngine::attempt_ended_with_retry_after`]), else the policy's (jittered)
    ///   backoff, and counts towards the doubling.
    pub fn attempt_ended(&mut self, call: CallId, attempt: u32, end: AttemptEnd, now: u64) {
        self.attempt_ended_with_retry_after(call, attempt, end, None, now)
    }

    /// [`CallEngine::attempt_ended`] for an answer that may carry `Retry-After`: `retry_after_ms` is
    /// its value in milliseconds from `now` (the driver parses seconds or an HTTP date). It is read
    /// only for an [`AttemptEnd::HttpAnswer`] that is repeated (a 502, 503 or 504 without `detail`),
    /// whose repeat it sets (issue 14: "Retry-After on a repeatable 502/503/504 sets that repeat's
    /// delay, within withinMs; the backoff goes on from there"): not jittered, counted towards the
    /// doubling, and, should it fall past the within deadline (or the clock's range), the call
    /// settles now with this end.
    ///
    /// A separate argument rather than a member of `AttemptEnd`: an `Option<u64>` there would grow
    /// every copy of it (smaller in wasm as an argument).
    pub fn attempt_ended_with_retry_after(
        &mut self,
        call: CallId,
        attempt: u32,
        end: AttemptEnd,
        retry_after_ms: Option<u64>,
        now: u64,
    ) {
        let Some(state) = self.calls.get(call) else {
            return;
        };
        if state.attempt != attempt || state.phase != Phase::InFlight {
            return;
        }
        let retry_after = retry_after_ms.filter(|_| matches!(end, AttemptEnd::HttpAnswer { .. }));
        self.end_attempt(call, end, retry_after, now);
    }

    /// The caller cancelled the call: queues `AbandonAttempt { why: Cancelled }` for the attempt in
    /// flight (none while a repeat waits) and settles the call with [`AttemptEnd::Cancelled`].
    /// Unknown or settled calls are ignored.
    pub fn cancel(&mut self, call: CallId, now: u64) {
        let Some(state) = self.calls.get_mut(call) else {
            return;
        };
        if state.phase == Phase::InFlight {
            self.actions.push(Some(Action::AbandonAttempt {
                call,
                attempt: state.attempt,
                why: Abandon::Cancelled,
            }));
        }
        state.last_end = Some(AttemptEnd::Cancelled);
        self.settle(call, now);
    }

    /// The driver's news about a muxws peer: `true` when its socket is established (`onReconnect`),
    /// `false` when the socket is lost or a goaway was received. Marking a peer available sends the
    /// repeats that waited only for it.
    ///
    /// Seed rule: "A repeat over muxws waits for peer.onReconnect, at most until withinMs has
    /// elapsed."
    pub fn peer_available(&mut self, peer: PeerId, available: bool, now: u64) {
        if !available {
            if self.peer_is_available(peer) {
                self.peers.push((peer, PeerState::Unavailable));
            }
            return;
        }
        // Listed at most once; the last entry takes its place (the order means nothing).
        if let Some(index) = self.peers.iter().position(|&(listed, _)| listed == peer) {
            self.peers.swap_remove(index);
        }
        // While offline they wait on: coming online sends them.
        if !self.online {
            return;
        }
        // Those whose delay has elapsed: they wait for nothing else.
        self.repeat_waiting_for(peer, true, now);
    }

    /// The peer closed for good (`onClose` with `willRetry` false): every repeat waiting for it is sent
    /// at once (its `open()` throws ConnectionClosed, reported as
    /// `OpenConnectionClosed { closed_for_good: true }`, which settles the call), and later repeats of
    /// its calls do not wait. [`CallEngine::peer_available`] with `true` revives the peer.
    ///
    /// Seed rule: "A peer that closes for good (onClose with willRetry false) ends the wait, and the
    /// call rejects with the ConnectionClosed its next open() throws." Also while offline: such an
    /// `open()` throws without touching the network.
    pub fn peer_closed_for_good(&mut self, peer: PeerId, now: u64) {
        match self.peers.iter_mut().find(|(listed, _)| *listed == peer) {
            Some((_, state)) => *state = PeerState::ClosedForGood,
            None => self.peers.push((peer, PeerState::ClosedForGood)),
        }
        self.repeat_waiting_for(peer, false, now);
    }

    /// "Try again now": every waiting repeat is sent at once, also while offline; a repeat that also
    /// waits for its peer has its delay treated as elapsed (it goes out at once when the peer is
    /// available, and online), and one `ReconnectNow { peer }` is queued for each peer such repeats
    /// still wait for. Attempts in flight are left alone. No further `Retry` event is emitted: the
    /// `retry` event of each repeat was emitted when it was scheduled.
    ///
    /// It never lengthens the schedule (issue 14): an attempt it sends before its delay ended is a
    /// manual one. Should it fail, its repeat is due when the interrupted delay would have ended (at
    /// once when that has passed), and the doubling goes on as if it had not been sent; should it
    /// fail while offline, its repeat waits for online like any other.
    ///
    /// Returns how many waiting repeats it acted on (sent, or left waiting for their peer alone, or,
    /// past their within deadline, settled): 0 when none waited.
    ///
    /// Seed rule: "retryNow() sends every waiting repeat at once, for a \"try again now\" button."
    pub fn retry_now(&mut self, now: u64) -> usize {
        self.retry_waiting(None, now)
    }

    /// "Try again now" on one call: the waiting repeat of `call` alone goes as
    /// [`CallEngine::retry_now`] sends every one (at once, or, over a muxws peer that is away, with its
    /// delay ended and one `ReconnectNow { peer }`), never lengthening its schedule; every other call
    /// is left as it was. Returns whether `call` had a waiting repeat: `false` (and nothing done) for
    /// a call whose attempt is in flight, a settled call or an unknown id.
    ///
    /// Issue 37: the devtools' "try again now" on one waiting call, under its key.
    pub fn retry_call_now(&mut self, call: CallId, now: u64) -> bool {
        self.retry_waiting(Some(call), now) != 0
    }

    /// [`CallEngine::retry_call_now`] with `Some(call)`, [`CallEngine::retry_now`] with `None`, in
    /// one entry point (the wasm module's `retry_now` export, which holds one copy of the code):
    /// returns how many waiting repeats it acted on.
    pub fn retry_waiting(&mut self, only: Option<CallId>, now: u64) -> usize {
        // Below, 0 stands for every call: no call has the id 0 (they start at 1), nor CallId::MAX.
        let only = match only {
            None => 0,
            Some(0) => CallId::MAX,
            Some(id) => id,
        };
        self.send_waiting(now, false, only)
    }

    /// The platform's news of its connection (`navigator.onLine`, the `online`/`offline` events); the
    /// engine starts online, and a driver without such a signal never calls this. Repeated news is
    /// ignored.
    ///
    /// Going offline: the repeats waiting then, and those of attempts that end while offline, wait
    /// for online (bounded by the within deadline, past which the call settles with its last
    /// attempt's end): a delay that elapses meanwhile sends nothing, an attempt that ends meanwhile
    /// does not count towards the doubling. Each such call reports `Wait { reason: Offline }`.
    /// Attempts in flight are left alone, and a call issued while offline still sends its first
    /// attempt (the platform's word is not always right, and the repeat of an attempt that fails then
    /// waits).
    ///
    /// Coming online: every waiting repeat goes at once, as [`CallEngine::retry_now`] sends it (with
    /// its `ReconnectNow` for the peers repeats wait for); each call that waited reports
    /// `Wait { reason }` with what it waits for now (`InFlight`, or `Reconnect` for a muxws repeat whose
    /// peer is away), before its attempt's actions.
    pub fn set_online(&mut self, online: bool, now: u64) {
        if online == self.online {
            return;
        }
        if online {
            // Still offline while they go, so that each announces the end of its wait.
            self.send_waiting(now, true, 0);
            self.online = true;
            return;
        }
        self.online = false;
        self.calls.iter().for_each(|(id, call)| {
            if matches!(call.phase, Phase::Waiting { .. }) {
                queue_event(&mut self.actions, id, &call.spec, ActivityKind::Wait { reason: WaitReason::Offline }, now);
            }
        });
    }

    /// The next action for the driver, in the order the engine queued them.
    pub fn poll_action(&mut self) -> Option<Action> {
        let action = self.actions.get_mut(self.actions_taken).and_then(Option::take);
        self.actions_taken += 1;
        if self.actions_taken >= self.actions.len() {
            // All handed out: the queue starts again at the front of its storage.
            self.actions.clear();
            self.actions_taken = 0;
        }
        action
    }

    /// Hands every queued action to `each`, in the order the engine queued them, and empties the
    /// queue: what calling [`CallEngine::poll_action`] until it returns `None` does, without moving
    /// each action out of the queue.
    pub fn drain_actions(&mut self, each: impl FnMut(&Action)) {
        // The actions handed out already are `None`; those after them are all `Some`.
        self.actions.iter().flatten().for_each(each);
        self.actions.clear();
        self.actions_taken = 0;
    }

    /// When the engine next wants [`CallEngine::handle_timeout`] called: the earliest attempt
    /// deadline, repeat delay or within deadline; `None` when nothing is timed. O(1) unless the
    /// earliest timer was cleared or moved later since the last answer: then one scan of the timers.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.next_timer().map(|(due, _)| due)
    }

    /// Runs every timer due at `now`, earliest first: an attempt whose deadline passed is abandoned
    /// (`AbandonAttempt { why: Timeout }`) and ends with [`AttemptEnd::AttemptTimeout`] (REST) or
    /// [`AttemptEnd::StreamTimeout`] (muxws); a repeat whose delay elapsed is sent (or, over muxws with
    /// the peer unavailable or while offline, waits until the within deadline); a reconnect or online
    /// wait that reached the within deadline settles the call with its last attempt's end.
    pub fn handle_timeout(&mut self, now: u64) {
        while let Some((due, id)) = self.next_timer() {
            if due > now {
                break;
            }
            self.set_timer(id, None);
            let Some(call) = self.calls.get_mut(id) else {
                continue;
            };
            let phase = call.phase;
            match phase {
                Phase::InFlight => {
                    let end = match call.spec.transport {
                        Transport::Rest => AttemptEnd::AttemptTimeout,
                        Transport::Muxws { .. } => AttemptEnd::StreamTimeout,
                    };
                    call.last_abandoned = true;
                    self.actions.push(Some(Action::AbandonAttempt {
                        call: id,
                        attempt: call.attempt,
                        why: Abandon::Timeout,
                    }));
                    self.end_attempt(id, end, None, now);
                }
                Phase::Waiting {
                    delay_until: Some(_), ..
                } => {
                    // The delay has elapsed: due unless the platform or the peer holds it.
                    if call.waits_for(self.online, &self.peers) == WaitReason::Delay {
                        self.repeat_now(id, now)
                    } else {
                        self.end_delay(id)
                    }
                }
                Phase::Waiting {
                    delay_until: None, ..
                } => self.settle(id, now),
            }
        }
    }

    /// The unsettled calls, oldest first (issue order), background calls included. Linear in the
    /// number of unsettled calls.
    ///
    /// Seed rule: "pendingCalls() lists the calls that have not settled, oldest first, with when each
    /// was issued and how many of its attempts went unanswered".
    pub fn pending_calls(&self) -> impl Iterator<Item = PendingCall> + '_ {
        self.calls.iter().map(|(call, c)| {
            let (unanswered_attempts, next_attempt_at, waiting_for_reconnect) = match c.phase {
                Phase::InFlight => (c.attempt - 1, None, false),
                Phase::Waiting { delay_until, reconnect } => {
                    (c.attempt, delay_until.filter(|_| self.online), reconnect.is_some())
                }
            };
            let reason = c.waits_for(self.online, &self.peers);
            PendingCall {
                call,
                transport: c.spec.transport,
                issued_at: c.issued_at,
                unanswered_attempts,
                background: c.spec.background,
                next_attempt_at,
                waiting_for_reconnect,
                reason,
            }
        })
    }

    /// The number of unsettled calls that are not background. O(1).
    ///
    /// Seed rule: "pendingCallCount() counts them, background calls left out."
    pub fn pending_call_count(&self) -> usize {
        self.foreground_calls
    }

    /// The number of calls the engine holds state for (unsettled calls, background included). A
    /// settled call leaves nothing behind, so this returns to 0 once every call has settled.
    pub fn live_calls(&self) -> usize {
        self.calls.len()
    }

    /// Sets (or, `None`, clears) the one timer of call `id`, kept in the call.
    fn set_timer(&mut self, id: CallId, due: Option<u64>) {
        if let Some(call) = self.calls.get_mut(id) {
            let before = core::mem::replace(&mut call.timer, due);
            self.timers.changed(id, before, due);
        }
    }

    /// The earliest timer of the calls, `(due, call)`.
    fn next_timer(&self) -> Option<(u64, CallId)> {
        self.timers.next(|| self.calls.iter().filter_map(|(id, call)| call.timer.map(|due| (due, id))))
    }

    /// The number of timers the engine holds (at most one per unsettled call). The storage behind
    /// them holds at most twice as many entries, and none when this is 0.
    pub fn scheduled_timers(&self) -> usize {
        self.timers.len()
    }

    /// The number of actions queued and not yet taken with [`CallEngine::poll_action`].
    pub fn queued_actions(&self) -> usize {
        self.actions.len() - self.actions_taken
    }

    // ----- internals -----

    fn peer_is_available(&self, peer: PeerId) -> bool {
        peer_is_available(&self.peers, peer)
    }

    fn peer_is_closed_for_good(&self, peer: PeerId) -> bool {
        self.peers.contains(&(peer, PeerState::ClosedForGood))
    }

    /// The ids of the calls whose repeat waits, oldest first: a snapshot, for loops that send or settle
    /// them. One list for every such loop, so that the wasm module holds one copy of the code that
    /// builds it. Only ids: each loop reads a call's wait with [`CallEngine::wait_of`] when it comes to
    /// it, which is what it was when the list was made (sending or settling one call changes no other).
    fn waiting_calls(&self) -> Vec<CallId> {
        let mut waiting = Vec::new();
        self.calls.iter().for_each(|(id, c)| {
            if matches!(c.phase, Phase::Waiting { .. }) {
                waiting.push(id);
            }
        });
        waiting
    }

    /// What the repeat of `id` waits for: the end of its delay (`None`: elapsed, or none) and the peer
    /// it also waits for; `None` when the call is unknown or not waiting.
    fn wait_of(&self, id: CallId) -> Option<(Option<u64>, Option<PeerId>)> {
        match self.calls.get(id)?.phase {
            Phase::Waiting { delay_until, reconnect } => Some((delay_until, reconnect)),
            Phase::InFlight => None,
        }
    }

    /// Sends now the waiting repeats that wait for `peer` ([`CallEngine::repeat_now`]), oldest first;
    /// with `elapsed_only`, only those whose delay has elapsed. One loop for
    /// [`CallEngine::peer_available`] and [`CallEngine::peer_closed_for_good`].
    fn repeat_waiting_for(&mut self, peer: PeerId, elapsed_only: bool, now: u64) {
        self.waiting_calls().iter().for_each(|&id| {
            if let Some((delay_until, Some(waits_for))) = self.wait_of(id) {
                if waits_for == peer && (delay_until.is_none() || !elapsed_only) {
                    self.repeat_now(id, now);
                }
            }
        });
    }

    /// Sends the call's next attempt: abandons the latest one first unless it already was, then
    /// queues `SendAttempt` with the captured headers and starts the attempt's timeout.
    fn send_attempt(&mut self, id: CallId, now: u64) {
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        let previous = call.attempt;
        if previous > 0 && !call.last_abandoned {
            self.actions.push(Some(Action::AbandonAttempt {
                call: id,
                attempt: previous,
                why: Abandon::Superseded,
            }));
        }
        call.attempt = previous + 1;
        call.last_abandoned = false;
        // An attempt that goes out no earlier than the delay it would cut short is not a manual one.
        call.resume_at = call.resume_at.filter(|&at| at > now);
        call.phase = Phase::InFlight;
        self.actions.push(Some(Action::SendAttempt {
            call: id,
            attempt: call.attempt,
            carry: call.headers_captured,
        }));
        let timeout = call.spec.attempt_timeout_ms;
        // A deadline beyond the clock's range is no deadline: a saturated one would always be due.
        let deadline = if timeout > 0 { now.checked_add(timeout) } else { None };
        self.set_timer(id, deadline);
    }

    /// The latest attempt of `id` ended with `end` (and the answer's `retry_after`): repeat it by the
    /// Repeats table, or settle (the delay's rules: [`CallEngine::attempt_ended`]).
    fn end_attempt(&mut self, id: CallId, end: AttemptEnd, retry_after: Option<u64>, now: u64) {
        self.set_timer(id, None);
        let Some(call) = self.calls.get(id) else {
            return;
        };
        let verdict = classify(&end);
        let wait_for_peer = match verdict {
            Verdict::RepeatAfterDelayAndReconnect => call.spec.transport.peer(),
            _ => None,
        };
        // The wait would end at once: the repeat goes out now, even offline, and its open() throws.
        let closed = wait_for_peer.is_some_and(|peer| self.peer_is_closed_for_good(peer));
        let online = self.online;
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        let ended = end.ended();
        call.last_end = Some(end);
        let delay = if verdict == Verdict::Settle {
            return self.settle(id, now);
        } else if closed || !online {
            0
        } else if let Some(resume_at) = call.resume_at.take() {
            // A Retry-After is a floor: waiting longer than the server asks is allowed, and a
            // `Retry-After: 0` (or a past date) must not make a tight loop.
            let left = resume_at.saturating_sub(now);
            retry_after.map_or(left, |asked| asked.max(left))
        } else if verdict == Verdict::RepeatAtOnce {
            0
        } else {
            let policy = &call.spec.policy;
            let backoff = policy.jittered_delay_before(call.delayed_repeats, call.spec.jitter_seed);
            let delay = retry_after.map_or(backoff, |asked| asked.max(backoff));
            if delay > 0 {
                call.delayed_repeats += 1;
            }
            delay
        };
        // A peer closed for good is not waited for, nor is the platform's being online.
        self.schedule_repeat(id, ended, delay, wait_for_peer.filter(|_| !closed), closed, now)
    }

    /// Schedules the repeat of `id`, whose latest attempt `ended` so, after `delay` ms (0: at once),
    /// also waiting for `reconnect`'s peer when given and, unless `even_offline`, for the platform to
    /// be online; settles the call instead when the repeat would go out past the within deadline.
    fn schedule_repeat(
        &mut self,
        id: CallId,
        ended: Ended,
        delay: u64,
        reconnect: Option<PeerId>,
        even_offline: bool,
        now: u64,
    ) {
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        // A send time beyond the clock's range is never, which no `within_ms` allows.
        let Some(send_at) = now.checked_add(delay).filter(|&at| call.within_allows(at)) else {
            return self.settle(id, now);
        };
        let retry = ActivityKind::Retry {
            attempt: call.attempt,
            ended,
            delay_ms: delay,
            waits_for_reconnect: reconnect.is_some(),
        };
        queue_event(&mut self.actions, id, &call.spec, retry, now);
        let due = if delay > 0 {
            Some(send_at)
        } else {
            call.within_deadline()
        };
        call.phase = Phase::Waiting {
            delay_until: (delay > 0).then_some(send_at),
            reconnect,
        };
        match call.waits_for(self.online || even_offline, &self.peers) {
            // Nothing holds a repeat without a delay: it goes out now.
            WaitReason::Delay if delay == 0 => return self.send_attempt(id, now),
            WaitReason::Offline => {
                queue_event(&mut self.actions, id, &call.spec, ActivityKind::Wait { reason: WaitReason::Offline }, now)
            }
            _ => {}
        }
        self.set_timer(id, due);
    }

    /// The delay of a repeat that also waits for its peer has elapsed (or is treated as elapsed): it
    /// now waits only for the peer, at most until the within deadline.
    fn end_delay(&mut self, id: CallId) {
        let Some(call) = self.calls.get_mut(id) else {
            return;
        };
        if let Phase::Waiting { reconnect, .. } = call.phase {
            let deadline = call.end_delay(reconnect);
            self.set_timer(id, deadline);
        }
    }

    /// Sends the waiting repeat of `id` now, or settles the call when now is past the within deadline
    /// (a late wakeup). A call sent while offline first reports the end of its wait for online.
    fn repeat_now(&mut self, id: CallId, now: u64) {
        let Some(call) = self.calls.get(id) else {
            return;
        };
        if !call.within_allows(now) {
            return self.settle(id, now);
        }
        if call.waits_for(self.online, &self.peers) == WaitReason::Offline {
            queue_event(&mut self.actions, id, &call.spec, ActivityKind::Wait { reason: WaitReason::InFlight }, now);
        }
        self.send_attempt(id, now);
    }

    /// Sends every waiting repeat now ([`CallEngine::retry_now`], and coming online with
    /// `coming_online`): one whose delay had not ended is marked manual (`resume_at`); one whose peer
    /// is away has its delay ended and waits for the peer, and each such peer gets one
    /// `ReconnectNow`, in increasing peer order. Coming online, a repeat left waiting for its peer
    /// reports `Wait { reason: Reconnect }`. With `only` other than 0, that call alone (when it
    /// waits). Returns how many waiting repeats it acted on.
    fn send_waiting(&mut self, now: u64, coming_online: bool, only: CallId) -> usize {
        // Sorted and without repeats: one `ReconnectNow` per peer, in increasing peer order.
        let mut reconnect_peers: Vec<PeerId> = Vec::new();
        let mut acted = 0;
        self.waiting_calls().iter().for_each(|&id| {
            if only != 0 && only != id {
                return;
            }
            // One look-up for all it does to the call (borrowed from `calls`, not `self`).
            let Some(call) = self.calls.get_mut(id) else {
                return;
            };
            let Phase::Waiting { delay_until, reconnect } = call.phase else {
                return;
            };
            acted += 1;
            if let Some(at) = delay_until {
                call.resume_at = Some(at);
            }
            // Sent also while offline: only a peer that is away holds it.
            match reconnect {
                Some(peer) if call.waits_for(true, &self.peers) == WaitReason::Reconnect => {
                    let deadline = call.end_delay(reconnect);
                    if coming_online {
                        let reason = WaitReason::Reconnect;
                        queue_event(&mut self.actions, id, &call.spec, ActivityKind::Wait { reason }, now);
                    }
                    self.set_timer(id, deadline);
                    if let Err(index) = reconnect_peers.binary_search(&peer) {
                        insert_at(&mut reconnect_peers, index, peer);
                    }
                }
                _ => self.repeat_now(id, now),
            }
        });
        for &peer in &reconnect_peers {
            self.actions.push(Some(Action::ReconnectNow { peer }));
        }
        acted
    }

    /// Settles `id` with its latest attempt's end and drops every trace of it.
    fn settle(&mut self, id: CallId, now: u64) {
        self.set_timer(id, None);
        // Its actions first, read where the call is kept; then the call goes.
        let Some(call) = self.calls.get(id) else {
            return;
        };
        if !call.spec.background {
            self.foreground_calls -= 1;
        }
        let end = call.last_end.clone().unwrap_or(AttemptEnd::OtherError);
        let settled = ActivityKind::Settle {
            ok: end.is_success(),
            attempts: call.attempt,
            ended: end.ended(),
        };
        self.actions.push(Some(Action::Settle {
            call: id,
            attempt: call.attempt,
            end,
        }));
        queue_event(&mut self.actions, id, &call.spec, settled, now);
        self.calls.remove(id);
    }
}

#[cfg(test)]
mod tests;
