//! A scripted driver for the engine: a virtual clock, and a fake transport that records what the
//! engine asks for. Tests script how each attempt ends; nothing sleeps.
#![allow(dead_code)]

use viewsets_core::{
    Abandon, Action, ActivityEvent, ActivityKind, AttemptEnd, CallEngine, CallId, CallSpec,
    PeerId, PendingCall, RepeatPolicy, Transport, WaitReason,
};

/// What the fake transport saw, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    Send {
        call: CallId,
        attempt: u32,
        carry: bool,
        at: u64,
    },
    Abandon {
        call: CallId,
        attempt: u32,
        why: Abandon,
        at: u64,
    },
    Settle {
        call: CallId,
        attempt: u32,
        end: AttemptEnd,
        at: u64,
    },
    Reconnect {
        peer: PeerId,
        at: u64,
    },
    Event(ActivityEvent),
}

pub struct Harness {
    pub engine: CallEngine,
    /// The virtual clock, in milliseconds.
    pub now: u64,
    /// Everything drained from the engine so far.
    pub seen: Vec<Seen>,
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    pub fn new() -> Self {
        Harness {
            engine: CallEngine::new(),
            now: 1_000_000,
            seen: Vec::new(),
        }
    }

    pub fn rest_spec(&mut self) -> CallSpec {
        CallSpec::new(Transport::Rest)
    }

    pub fn muxws_spec(&mut self, peer: PeerId) -> CallSpec {
        CallSpec::new(Transport::Muxws { peer })
    }

    /// The unsettled calls, oldest first.
    pub fn pending(&self) -> Vec<PendingCall> {
        self.engine.pending_calls().collect()
    }

    /// Issues a REST call with the default options.
    pub fn rest(&mut self) -> CallId {
        let spec = self.rest_spec();
        self.issue(spec)
    }

    /// Issues a REST call with `policy`.
    pub fn rest_with(&mut self, policy: RepeatPolicy) -> CallId {
        let mut spec = self.rest_spec();
        spec.policy = policy;
        self.issue(spec)
    }

    /// Issues a muxws call through `peer` with the default options.
    pub fn muxws(&mut self, peer: PeerId) -> CallId {
        let spec = self.muxws_spec(peer);
        self.issue(spec)
    }

    pub fn issue(&mut self, spec: CallSpec) -> CallId {
        let id = self.engine.issue(spec, self.now);
        self.drain();
        id
    }

    /// Reports how an attempt ended, at the current time.
    pub fn end(&mut self, call: CallId, attempt: u32, end: AttemptEnd) {
        self.engine.attempt_ended(call, attempt, end, self.now);
        self.drain();
    }

    /// Reports how an attempt ended with an answer's `Retry-After`, at the current time.
    pub fn end_retry_after(&mut self, call: CallId, attempt: u32, end: AttemptEnd, retry_after_ms: u64) {
        self.engine
            .attempt_ended_with_retry_after(call, attempt, end, Some(retry_after_ms), self.now);
        self.drain();
    }

    /// Reports that `attempt` of `call` went out with headers the driver keeps.
    pub fn headers(&mut self, call: CallId, attempt: u32) {
        self.engine.headers_captured(call, attempt);
        self.drain();
    }

    pub fn cancel(&mut self, call: CallId) {
        self.engine.cancel(call, self.now);
        self.drain();
    }

    /// "Try again now" on every waiting call; returns how many it acted on.
    pub fn retry_now(&mut self) -> usize {
        let acted = self.engine.retry_now(self.now);
        self.drain();
        acted
    }

    /// "Try again now" on `call` alone; returns whether it had a waiting repeat.
    pub fn retry_call_now(&mut self, call: CallId) -> bool {
        let acted = self.engine.retry_call_now(call, self.now);
        self.drain();
        acted
    }

    /// The platform's online/offline news.
    pub fn set_online(&mut self, online: bool) {
        self.engine.set_online(online, self.now);
        self.drain();
    }

    pub fn peer_available(&mut self, peer: PeerId, available: bool) {
        self.engine.peer_available(peer, available, self.now);
        self.drain();
    }

    pub fn peer_closed_for_good(&mut self, peer: PeerId) {
        self.engine.peer_closed_for_good(peer, self.now);
        self.drain();
    }

    /// Moves the clock forward by `ms`, waking the engine at every `poll_timeout` on the way, as a
    /// punctual driver does.
    pub fn advance(&mut self, ms: u64) {
        let target = self.now + ms;
        while let Some(due) = self.engine.poll_timeout() {
            if due > target {
                break;
            }
            self.now = self.now.max(due);
            self.engine.handle_timeout(self.now);
            self.drain();
        }
        self.now = target;
    }

    /// Takes every queued action into `seen`.
    pub fn drain(&mut self) {
        while let Some(action) = self.engine.poll_action() {
            let at = self.now;
            self.seen.push(match action {
                Action::SendAttempt {
                    call,
                    attempt,
                    carry,
                } => Seen::Send {
                    call,
                    attempt,
                    carry,
                    at,
                },
                Action::AbandonAttempt { call, attempt, why } => Seen::Abandon {
                    call,
                    attempt,
                    why,
                    at,
                },
                Action::Settle { call, attempt, end } => Seen::Settle {
                    call,
                    attempt,
                    end,
                    at,
                },
                Action::ReconnectNow { peer } => Seen::Reconnect { peer, at },
                Action::Activity(event) => Seen::Event(event),
            });
        }
    }

    /// The sends of `call`: `(attempt, at)`.
    pub fn sends(&self, call: CallId) -> Vec<(u32, u64)> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Send {
                    call: c,
                    attempt,
                    at,
                    ..
                } if *c == call => Some((*attempt, *at)),
                _ => None,
            })
            .collect()
    }

    /// Whether each send of `call` carried the first attempt's headers.
    pub fn carried(&self, call: CallId) -> Vec<bool> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Send { call: c, carry, .. } if *c == call => Some(*carry),
                _ => None,
            })
            .collect()
    }

    pub fn abandons(&self, call: CallId) -> Vec<(u32, Abandon)> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Abandon {
                    call: c,
                    attempt,
                    why,
                    ..
                } if *c == call => Some((*attempt, *why)),
                _ => None,
            })
            .collect()
    }

    /// How `call` settled: `(attempt, end, at)`; panics when it settled more than once.
    pub fn settled(&self, call: CallId) -> Option<(u32, AttemptEnd, u64)> {
        let all: Vec<_> = self
            .seen
            .iter()
            .filter_map(|s| match s {
                Seen::Settle {
                    call: c,
                    attempt,
                    end,
                    at,
                } if *c == call => Some((*attempt, end.clone(), *at)),
                _ => None,
            })
            .collect();
        assert!(
            all.len() <= 1,
            "call {call} settled more than once: {all:?}"
        );
        all.into_iter().next()
    }

    pub fn events(&self, call: CallId) -> Vec<ActivityEvent> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Event(e) if e.call == call => Some(e.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn retries(&self, call: CallId) -> Vec<ActivityKind> {
        self.events(call)
            .into_iter()
            .map(|e| e.kind)
            .filter(|k| matches!(k, ActivityKind::Retry { .. }))
            .collect()
    }

    /// The reasons of the `Wait` events of `call`, with when each was emitted.
    pub fn waits(&self, call: CallId) -> Vec<(WaitReason, u64)> {
        self.events(call)
            .into_iter()
            .filter_map(|e| match e.kind {
                ActivityKind::Wait { reason } => Some((reason, e.at)),
                _ => None,
            })
            .collect()
    }

    /// Why `call` waits, as `pending_calls()` says.
    pub fn reason(&self, call: CallId) -> Option<WaitReason> {
        self.engine.pending_calls().find(|p| p.call == call).map(|p| p.reason)
    }

    pub fn reconnects(&self) -> Vec<PeerId> {
        self.seen
            .iter()
            .filter_map(|s| match s {
                Seen::Reconnect { peer, .. } => Some(*peer),
                _ => None,
            })
            .collect()
    }

    /// The number of the attempt of `call` sent last.
    pub fn last_attempt(&self, call: CallId) -> u32 {
        self.sends(call).last().map_or(0, |(attempt, _)| *attempt)
    }

    pub fn clear(&mut self) {
        self.seen.clear();
    }
}

/// The delay of a `Retry` activity kind.
pub fn retry_delay(kind: &ActivityKind) -> u64 {
    match kind {
        ActivityKind::Retry { delay_ms, .. } => *delay_ms,
        other => panic!("not a retry: {other:?}"),
    }
}
