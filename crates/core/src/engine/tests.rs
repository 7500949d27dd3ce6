//! Random driving of the engine, checking its internal bookkeeping and the shape of what it asks
//! of the driver after every step.

use super::*;
use crate::repeat::{RepeatPolicy, JITTER_WHOLE};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug)]
enum Step {
    Issue {
        peer: Option<PeerId>,
        within_ms: u64,
        timeout_ms: u64,
        background: bool,
        jitter: u32,
        jitter_seed: u32,
    },
    End {
        pick: usize,
        attempt_offset: i8,
        end: usize,
        retry_after_ms: Option<u64>,
    },
    Headers {
        pick: usize,
    },
    Cancel {
        pick: usize,
    },
    Advance {
        ms: u64,
    },
    Peer {
        peer: PeerId,
        available: bool,
    },
    PeerClosed {
        peer: PeerId,
    },
    RetryNow,
    /// "Try again now" on one call (`retry_call_now`).
    RetryCallNow {
        pick: usize,
    },
    Online {
        online: bool,
    },
}

fn ends() -> Vec<AttemptEnd> {
    vec![
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
        AttemptEnd::HttpAnswer {
            status: 503,
            json_detail: false,
        },
        AttemptEnd::HttpAnswer {
            status: 503,
            json_detail: true,
        },
        AttemptEnd::NetworkError,
        AttemptEnd::AttemptTimeout,
        AttemptEnd::Cancelled,
        AttemptEnd::MuxwsReply { status: 500 },
        AttemptEnd::StreamTimeout,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
        AttemptEnd::StreamRefused {
            closed_for_good: true,
        },
        AttemptEnd::OpenConnectionClosed {
            closed_for_good: false,
        },
        AttemptEnd::OpenGoingAway {
            closed_for_good: false,
        },
        AttemptEnd::OtherError,
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (prop::option::of(0u64..3), prop::sample::select(vec![0u64, 2_000, 20_000, 600_000]),
              prop::sample::select(vec![0u64, 1_500, 30_000]), any::<bool>(),
              prop::sample::select(vec![0u32, JITTER_WHOLE / 2, JITTER_WHOLE]), any::<u32>())
            .prop_map(|(peer, within_ms, timeout_ms, background, jitter, jitter_seed)| {
                Step::Issue { peer, within_ms, timeout_ms, background, jitter, jitter_seed }
            }),
        6 => (any::<usize>(), -1i8..2, 0..ends().len(),
              prop::sample::select(vec![None, None, Some(0u64), Some(2_000), Some(u64::MAX)]))
            .prop_map(|(pick, attempt_offset, end, retry_after_ms)| Step::End { pick, attempt_offset, end, retry_after_ms }),
        1 => any::<usize>().prop_map(|pick| Step::Headers { pick }),
        1 => any::<usize>().prop_map(|pick| Step::Cancel { pick }),
        4 => prop::sample::select(vec![1u64, 500, 1_000, 4_000, 30_000, 120_000]).prop_map(|ms| Step::Advance { ms }),
        2 => (0u64..3, any::<bool>()).prop_map(|(peer, available)| Step::Peer { peer, available }),
        1 => (0u64..3).prop_map(|peer| Step::PeerClosed { peer }),
        1 => Just(Step::RetryNow),
        1 => any::<usize>().prop_map(|pick| Step::RetryCallNow { pick }),
        2 => any::<bool>().prop_map(|online| Step::Online { online }),
    ]
}

/// What the driver has seen of one call.
#[derive(Default, Debug)]
struct Seen {
    started: bool,
    retries: u32,
    sent: u32,
    abandoned: Vec<u32>,
    settled: bool,
    settle_event: bool,
    /// Between a `Wait { Offline }` and the `Wait` that ends it.
    offline_wait: bool,
}

fn check_bookkeeping(engine: &CallEngine) {
    let with_timer: BTreeSet<(u64, CallId)> = engine
        .calls
        .iter()
        .filter_map(|(id, c)| c.timer.map(|due| (due, id)))
        .collect();
    assert_eq!(engine.timers.len(), with_timer.len());
    assert_eq!(engine.scheduled_timers(), with_timer.len());
    // A known earliest timer is the earliest timer.
    if let Some(known) = engine.timers.remembered() {
        assert_eq!(known, with_timer.first().copied(), "the cached earliest timer");
    }
    assert_eq!(
        engine.poll_timeout(),
        with_timer.first().map(|&(due, _)| due)
    );
    assert!(engine.calls.slots() <= 2 * engine.calls.len());
    let foreground = engine.calls.values().filter(|c| !c.spec.background).count();
    assert_eq!(engine.foreground_calls, foreground);
    for c in engine.calls.values() {
        assert!(c.delayed_repeats <= c.attempt, "more delays than attempts");
        match c.phase {
            Phase::Waiting { delay_until, reconnect } => {
                assert!(
                    c.timer.is_some() || c.within_deadline().is_none(),
                    "a waiting call has a timer unless its within deadline is never"
                );
                if let Some(peer) = reconnect {
                    assert_eq!(
                        c.spec.transport.peer(),
                        Some(peer),
                        "waits for its own peer"
                    );
                    assert!(!engine.peer_is_closed_for_good(peer), "waits for a closed peer");
                }
                assert!(
                    delay_until.is_some()
                        || !engine.online
                        || reconnect.is_some_and(|peer| !engine.peer_is_available(peer)),
                    "a repeat that waits for nothing"
                );
            }
            Phase::InFlight => {
                assert_eq!(c.timer.is_some(), c.spec.attempt_timeout_ms > 0);
            }
        }
    }
    let mut peers: Vec<PeerId> = engine.peers.iter().map(|&(peer, _)| peer).collect();
    peers.sort_unstable();
    peers.dedup();
    assert_eq!(peers.len(), engine.peers.len(), "a peer listed twice");
}

/// Takes the engine's actions, checking their order; returns how many repeats were sent.
fn drain(engine: &mut CallEngine, seen: &mut HashMap<CallId, Seen>) -> usize {
    let mut repeats = 0;
    while let Some(action) = engine.poll_action() {
        match action {
            Action::Activity(event) => {
                let s = seen.entry(event.call).or_default();
                assert!(!s.settle_event, "event after settle");
                match event.kind {
                    ActivityKind::Start => {
                        assert!(!s.started);
                        s.started = true;
                    }
                    ActivityKind::Retry { attempt, .. } => {
                        assert!(s.started);
                        assert_eq!(attempt, s.sent);
                        s.retries += 1;
                    }
                    ActivityKind::Settle { attempts, .. } => {
                        assert!(s.settled, "settle event before the settle action");
                        assert_eq!(attempts, s.sent);
                        s.settle_event = true;
                    }
                    ActivityKind::Wait { reason } => {
                        assert!(s.started && !s.settled);
                        let starts = reason == WaitReason::Offline;
                        assert_ne!(s.offline_wait, starts, "{:?} out of turn", reason);
                        assert_ne!(reason, WaitReason::Delay);
                        s.offline_wait = starts;
                    }
                }
            }
            Action::SendAttempt { call, attempt, .. } => {
                let s = seen.entry(call).or_default();
                assert!(s.started && !s.settled);
                assert_eq!(attempt, s.sent + 1);
                if attempt > 1 {
                    assert_eq!(
                        s.abandoned.last(),
                        Some(&(attempt - 1)),
                        "abandon before send"
                    );
                    assert_eq!(s.retries, attempt - 1);
                    assert!(!s.offline_wait, "sent while it waits for online");
                    repeats += 1;
                }
                s.sent = attempt;
            }
            Action::AbandonAttempt { call, attempt, .. } => {
                let s = seen.entry(call).or_default();
                assert!(!s.settled);
                assert_eq!(attempt, s.sent);
                assert!(!s.abandoned.contains(&attempt), "abandoned twice");
                s.abandoned.push(attempt);
            }
            Action::Settle { call, attempt, .. } => {
                let s = seen.entry(call).or_default();
                assert!(!s.settled, "settled twice");
                assert_eq!(attempt, s.sent);
                s.settled = true;
                s.offline_wait = false;
            }
            Action::ReconnectNow { .. } => {}
        }
    }
    repeats
}

/// What the events said of the online waits matches the engine: offline, every waiting repeat
/// is in one; online, none is.
fn check_offline_waits(engine: &CallEngine, seen: &HashMap<CallId, Seen>) {
    for (id, c) in engine.calls.iter() {
        let waiting = matches!(c.phase, Phase::Waiting { .. });
        let told = seen.get(&id).is_some_and(|s| s.offline_wait);
        assert_eq!(told, waiting && !engine.online, "call {} online {}", id, engine.online);
    }
    for p in engine.pending_calls() {
        let c = engine.calls.get(p.call).unwrap();
        let expected = match c.phase {
            Phase::InFlight => WaitReason::InFlight,
            Phase::Waiting { .. } if !engine.online => WaitReason::Offline,
            Phase::Waiting { reconnect: Some(peer), .. } if !engine.peer_is_available(peer) => WaitReason::Reconnect,
            Phase::Waiting { .. } => WaitReason::Delay,
        };
        assert_eq!(p.reason, expected);
        assert!(p.next_attempt_at.is_none() || p.reason == WaitReason::Delay || p.reason == WaitReason::Reconnect);
    }
}

/// The doubling counts of the unsettled calls.
fn doublings(engine: &CallEngine) -> HashMap<CallId, u32> {
    engine.calls.iter().map(|(id, c)| (id, c.delayed_repeats)).collect()
}

fn spec(timeout_ms: u64) -> CallSpec {
    let mut spec = CallSpec::new(Transport::Rest);
    spec.attempt_timeout_ms = timeout_ms;
    spec
}

#[test]
fn the_earliest_timer_follows_every_change() {
    let mut engine = CallEngine::new();
    let first = engine.issue(spec(1_000), 0);
    let second = engine.issue(spec(2_000), 0);
    assert_eq!(engine.poll_timeout(), Some(1_000));
    engine.cancel(first, 10);
    assert_eq!(engine.poll_timeout(), Some(2_000), "the cancelled call's deadline is gone");
    // The earliest timer moved later: found again among the others.
    engine.attempt_ended(second, 1, AttemptEnd::NetworkError, 20);
    let delay_due = 20 + RepeatPolicy::default().delay_before(0);
    assert_eq!(engine.poll_timeout(), Some(delay_due));
    assert_eq!(engine.scheduled_timers(), 1);
    let third = engine.issue(spec(100), 30);
    assert_eq!(engine.poll_timeout(), Some(130), "an earlier timer is the earliest at once");
    engine.cancel(third, 40);
    engine.cancel(second, 40);
    assert_eq!(engine.poll_timeout(), None);
    assert_eq!(engine.scheduled_timers(), 0);
}

#[test]
fn timers_of_many_calls_settling_in_any_order_leave_nothing() {
    let mut engine = CallEngine::new();
    let calls: Vec<CallId> = (0..200u8)
        .map(|n| engine.issue(spec(30_000), u64::from(n)))
        .collect();
    while engine.poll_action().is_some() {}
    assert_eq!(engine.scheduled_timers(), 200);
    // Every attempt fails: each call's deadline is replaced by its repeat delay.
    for (n, call) in calls.iter().enumerate() {
        engine.attempt_ended(*call, 1, AttemptEnd::NetworkError, 1_000 + n as u64);
    }
    assert_eq!(engine.scheduled_timers(), 200);
    assert_eq!(engine.poll_timeout(), Some(1_000 + RepeatPolicy::default().delay_before(0)));
    // All but the newest settle, oldest first: each takes the earliest timer with it.
    for call in &calls[..199] {
        engine.cancel(*call, 2_000);
    }
    assert_eq!(engine.scheduled_timers(), 1);
    assert!(engine.calls.slots() <= 2);
    let last = calls[199];
    assert_eq!(
        engine.poll_timeout(),
        Some(1_199 + RepeatPolicy::default().delay_before(0))
    );
    engine.cancel(last, 3_000);
    assert_eq!(engine.scheduled_timers(), 0);
    assert_eq!(engine.calls.slots(), 0);
    assert_eq!(engine.poll_timeout(), None);
}

#[test]
fn peers_are_listed_once_and_forgotten_when_available() {
    let mut engine = CallEngine::new();
    engine.peer_available(4, false, 0);
    engine.peer_available(4, false, 0);
    engine.peer_available(5, false, 0);
    assert_eq!(
        engine.peers,
        vec![(4, PeerState::Unavailable), (5, PeerState::Unavailable)]
    );
    engine.peer_closed_for_good(4, 0);
    engine.peer_available(4, false, 0);
    assert!(
        engine.peer_is_closed_for_good(4),
        "a lost socket does not revive it"
    );
    engine.peer_closed_for_good(6, 0);
    assert!(engine.peer_is_closed_for_good(6));
    engine.peer_available(4, true, 0);
    engine.peer_available(5, true, 0);
    engine.peer_available(6, true, 0);
    assert!(engine.peers.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_driving_keeps_the_engine_consistent(steps in prop::collection::vec(step(), 1..120)) {
        let mut engine = CallEngine::new();
        let mut now = 0u64;
        let mut issued: Vec<CallId> = Vec::new();
        let mut seen: HashMap<CallId, Seen> = HashMap::new();
        let ends = ends();
        for step in steps {
            let offline_before = !engine.online;
            let doublings_before = doublings(&engine);
            // Whose attempt ends offline or after a manual attempt: its doubling must not move.
            let mut frozen: Option<CallId> = None;
            let mut may_send_offline = false;
            match step {
                Step::Issue { peer, within_ms, timeout_ms, background, jitter, jitter_seed } => {
                    let transport = peer.map_or(Transport::Rest, |peer| Transport::Muxws { peer });
                    let mut spec = CallSpec::new(transport);
                    spec.policy.within_ms = within_ms;
                    spec.policy.jitter = jitter;
                    spec.attempt_timeout_ms = timeout_ms;
                    spec.background = background;
                    spec.jitter_seed = jitter_seed;
                    issued.push(engine.issue(spec, now));
                }
                Step::End { pick, attempt_offset, end, retry_after_ms } if !issued.is_empty() => {
                    let call = issued[pick % issued.len()];
                    let sent = seen.get(&call).map_or(0, |s| s.sent);
                    let attempt = (i64::from(sent) + i64::from(attempt_offset)).max(0) as u32;
                    if let Some(c) = engine.calls.get(call) {
                        if !engine.online || c.resume_at.is_some() {
                            frozen = Some(call);
                        }
                        // A peer closed for good: its repeat goes out even offline, and its open() throws.
                        may_send_offline = c.spec.transport.peer().is_some_and(|p| engine.peer_is_closed_for_good(p));
                    }
                    engine.attempt_ended_with_retry_after(call, attempt, ends[end].clone(), retry_after_ms, now);
                }                    Step::Headers { pick } if !issued.is_empty() => {
                    let call = issued[pick % issued.len()];
                    let sent = seen.get(&call).map_or(0, |s| s.sent);
                    engine.headers_captured(call, sent);
                }
                Step::Cancel { pick } if !issued.is_empty() => {
                    engine.cancel(issued[pick % issued.len()], now);
                }
                Step::Advance { ms } => {
                    let target = now + ms;
                    while let Some(due) = engine.poll_timeout() {
                        if due > target {
                            break;
                        }
                        now = now.max(due);
                        engine.handle_timeout(now);
                        let repeats = drain(&mut engine, &mut seen);
                        prop_assert!(engine.online || repeats == 0, "a repeat sent by a timer while offline");
                        check_bookkeeping(&engine);
                        check_offline_waits(&engine, &seen);
                    }
                    now = target;
                }
                Step::Peer { peer, available } => engine.peer_available(peer, available, now),
                Step::PeerClosed { peer } => {
                    may_send_offline = true;
                    engine.peer_closed_for_good(peer, now)
                }
                Step::RetryNow => {
                    may_send_offline = true;
                    engine.retry_now(now);
                }
                Step::RetryCallNow { pick } if !issued.is_empty() => {
                    may_send_offline = true;
                    let call = issued[pick % issued.len()];
                    let waited = engine.pending_calls().any(|p| p.call == call && p.reason != WaitReason::InFlight);
                    prop_assert_eq!(engine.retry_call_now(call, now), waited, "retry_call_now says whether the call waited");
                }
                Step::Online { online } => engine.set_online(online, now),
                _ => {}
            }
            let repeats = drain(&mut engine, &mut seen);
            if offline_before && !engine.online && !may_send_offline {
                prop_assert_eq!(repeats, 0, "a repeat sent while offline");
            }
            check_bookkeeping(&engine);
            check_offline_waits(&engine, &seen);
            // The doubling moves only when an attempt ends online, not after a manual attempt.
            for (id, c) in engine.calls.iter() {
                if let Some(&before) = doublings_before.get(&id) {
                    let may_move = matches!(step, Step::End { .. }) && frozen != Some(id);
                    prop_assert!(c.delayed_repeats == before || may_move, "call {} doubling moved", id);
                }
            }
            if let Some(due) = engine.poll_timeout() {
                prop_assert!(due >= now, "a timer in the past: {} < {}", due, now);
            }
            let unsettled = seen.values().filter(|s| !s.settled).count();
            prop_assert_eq!(engine.live_calls(), unsettled);
        }
        // Let every timer run out: only calls without timers (no attempt timeout) remain.
        engine.handle_timeout(u64::MAX);
        drain(&mut engine, &mut seen);
        check_bookkeeping(&engine);
        prop_assert_eq!(engine.scheduled_timers(), 0);
        for (id, call) in engine.calls.iter() {
            prop_assert_eq!(call.phase, Phase::InFlight, "call {} still waits", id);
        }
        for id in issued {
            engine.cancel(id, u64::MAX);
        }
        drain(&mut engine, &mut seen);
        prop_assert_eq!(engine.live_calls(), 0);
        prop_assert_eq!(engine.pending_call_count(), 0);
        prop_assert_eq!(engine.poll_timeout(), None);
        prop_assert_eq!(engine.calls.slots(), 0, "call slots left behind");
        prop_assert!(seen.values().all(|s| s.settled && s.settle_event));
    }
}

/// Actions come out in the order they were queued, also when more are queued between polls,
/// and the queue's storage is emptied when the last is taken.
#[test]
fn actions_come_out_in_order_across_polls() {
    let mut engine = CallEngine::new();
    assert_eq!(engine.poll_action(), None);
    let first = engine.issue(CallSpec::new(Transport::Rest), 0);
    assert_eq!(engine.queued_actions(), 2);
    assert!(matches!(engine.poll_action(), Some(Action::Activity(ActivityEvent { kind: ActivityKind::Start, call, .. })) if call == first));
    let second = engine.issue(CallSpec::new(Transport::Rest), 1);
    assert_eq!(engine.queued_actions(), 3);
    let send = |call, attempt| Some(Action::SendAttempt { call, attempt, carry: false });
    assert_eq!(engine.poll_action(), send(first, 1));
    assert!(matches!(engine.poll_action(), Some(Action::Activity(ActivityEvent { kind: ActivityKind::Start, call, .. })) if call == second));
    assert_eq!(engine.queued_actions(), 1);
    assert_eq!(engine.poll_action(), send(second, 1));
    assert_eq!(engine.queued_actions(), 0);
    assert!(engine.actions.is_empty(), "storage left behind");
    assert_eq!(engine.poll_action(), None);
    engine.cancel(first, 2);
    assert!(matches!(engine.poll_action(), Some(Action::AbandonAttempt { call, attempt: 1, why: Abandon::Cancelled }) if call == first));
    assert_eq!(engine.queued_actions(), 2);
}

/// `drain_actions` hands out what polling until `None` would, also after some were polled, and
/// leaves the queue empty.
#[test]
fn drain_actions_hands_out_what_polling_would() {
    let drive = |engine: &mut CallEngine| {
        let first = engine.issue(CallSpec::new(Transport::Rest), 0);
        let second = engine.issue(CallSpec::new(Transport::Muxws { peer: 3 }), 1);
        engine.attempt_ended(second, 1, AttemptEnd::ConnectionLost { closed_for_good: false }, 2);
        engine.cancel(first, 3);
    };
    for polled_first in 0..8 {
        let (mut polled, mut drained) = (CallEngine::new(), CallEngine::new());
        drive(&mut polled);
        drive(&mut drained);
        let mut expected = Vec::new();
        while let Some(action) = polled.poll_action() {
            expected.push(action);
        }
        let mut got: Vec<Action> = (0..polled_first).map_while(|_| drained.poll_action()).collect();
        drained.drain_actions(|action| got.push(action.clone()));
        assert_eq!(got, expected, "{polled_first} polled first");
        assert_eq!(drained.queued_actions(), 0);
        assert!(drained.actions.is_empty());
        assert_eq!(drained.poll_action(), None);
    }
}
