//! Issue 14, offline awareness and why a call waits: while the platform is offline repeats wait for
//! it without spending the schedule, coming online sends every waiting repeat at once, and
//! `pending_calls()` and `Wait` activity events say why each call waits.

mod common;

use common::{retry_delay, Harness, Seen};
use viewsets_core::{
    Abandon, ActivityKind, AttemptEnd, CallEngine, CallSpec, Ended, RepeatPolicy, Transport,
    WaitReason,
};

const OK: AttemptEnd = AttemptEnd::HttpAnswer {
    status: 200,
    json_detail: false,
};

fn connection_lost() -> AttemptEnd {
    AttemptEnd::ConnectionLost {
        closed_for_good: false,
    }
}

// ----- 1. offline awareness -----

/// Acceptance: offline for 5 s in the middle of a call: no attempt while offline, the repeat at
/// once when the platform is back, run once.
#[test]
fn offline_for_5_s_mid_call_sends_nothing_then_the_repeat_at_once() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest();
    h.advance(1_000);
    h.set_online(false);
    // The attempt in flight was left alone; it now fails (the platform cut it off).
    assert!(h.abandons(call).is_empty());
    h.advance(50);
    h.end(call, 1, AttemptEnd::NetworkError);
    assert_eq!(
        h.retries(call),
        vec![ActivityKind::Retry {
            attempt: 1,
            ended: Ended::NetworkError,
            delay_ms: 0,
            waits_for_reconnect: false
        }]
    );
    assert_eq!(h.reason(call), Some(WaitReason::Offline));
    assert_eq!(h.pending()[0].next_attempt_at, None);
    h.advance(4_950);
    assert_eq!(h.sends(call), vec![(1, t0)], "an attempt while offline");
    h.set_online(true);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 6_000)]);
    assert_eq!(h.abandons(call), vec![(1, Abandon::Superseded)]);
    assert_eq!(
        h.waits(call),
        vec![
            (WaitReason::Offline, t0 + 1_050),
            (WaitReason::InFlight, t0 + 6_000)
        ]
    );
    h.end(call, 2, OK);
    assert_eq!(h.settled(call), Some((2, OK, t0 + 6_000)));
    let types: Vec<&str> = h.events(call).iter().map(|e| e.kind.type_name()).collect();
    assert_eq!(types, ["start", "retry", "wait", "wait", "settle"]);
}

/// The same over muxws: the peer's socket comes back while the platform still says offline (no
/// send), then the platform comes online and the repeat goes at once.
#[test]
fn offline_mid_call_over_muxws_repeats_at_once_when_back() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.muxws(3);
    h.set_online(false);
    h.peer_available(3, false);
    h.end(call, 1, connection_lost());
    assert_eq!(h.reason(call), Some(WaitReason::Offline));
    assert!(h.pending()[0].waiting_for_reconnect);
    h.advance(2_000);
    h.peer_available(3, true);
    h.advance(3_000);
    assert_eq!(h.sends(call).len(), 1, "sent while offline");
    h.set_online(true);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 5_000)]);
    assert!(h.reconnects().is_empty(), "the peer is connected already");
    h.end(call, 2, AttemptEnd::MuxwsReply { status: 201 });
    assert!(h.settled(call).is_some());
}

/// Coming online while the muxws peer is still away: the repeat now waits for the reconnect (the
/// event says so), the peer is asked to reconnect at once, and its reconnect sends the repeat.
#[test]
fn coming_online_asks_the_peer_to_reconnect_and_the_repeat_waits_for_it() {
    let mut h = Harness::new();
    let call = h.muxws(3);
    h.peer_available(3, false);
    h.set_online(false);
    h.end(call, 1, connection_lost());
    h.advance(5_000);
    h.set_online(true);
    assert_eq!(h.reconnects(), vec![3]);
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.reason(call), Some(WaitReason::Reconnect));
    assert_eq!(
        h.waits(call).last().map(|w| w.0),
        Some(WaitReason::Reconnect)
    );
    h.advance(300);
    h.peer_available(3, true);
    assert_eq!(h.sends(call).last(), Some(&(2, h.now)));
}

/// A repeat whose delay elapses while offline is not sent but waits for online.
#[test]
fn a_delay_that_elapses_while_offline_sends_nothing() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest();
    h.end(call, 1, AttemptEnd::NetworkError); // due at t0+1000
    h.advance(500);
    h.set_online(false);
    assert_eq!(h.waits(call), vec![(WaitReason::Offline, t0 + 500)]);
    assert_eq!(h.pending()[0].next_attempt_at, None, "not due at a known time");
    h.advance(10_000);
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.reason(call), Some(WaitReason::Offline));
    h.set_online(true);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 10_500)]);
}

/// Coming online sends a repeat whose delay had not ended yet at once; should that attempt fail,
/// the rest of the delay it cut short applies, and the doubling is where it was.
#[test]
fn coming_online_before_the_delay_ended_sends_at_once_and_never_lengthens_the_schedule() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 600_000,
        delay_ms: 4_000,
        jitter: 0,
    });
    h.end(call, 1, AttemptEnd::NetworkError); // due at t0+4000
    h.advance(1_000);
    h.set_online(false);
    h.advance(1_000);
    h.set_online(true);
    assert_eq!(h.sends(call).last(), Some(&(2, t0 + 2_000)));
    h.advance(100);
    h.end(call, 2, AttemptEnd::NetworkError);
    assert_eq!(h.pending()[0].next_attempt_at, Some(t0 + 4_000));
    h.advance(1_900);
    assert_eq!(h.sends(call).last(), Some(&(3, t0 + 4_000)));
    h.end(call, 3, AttemptEnd::NetworkError);
    let delays: Vec<u64> = h.retries(call).iter().map(retry_delay).collect();
    assert_eq!(delays, [4_000, 1_900, 8_000]);
}

/// An attempt that ends while offline does not count towards the doubling.
#[test]
fn an_attempt_that_ends_offline_does_not_grow_the_delay() {
    let mut h = Harness::new();
    let call = h.rest();
    h.end(call, 1, AttemptEnd::NetworkError); // 1000, first delayed repeat
    h.advance(1_000);
    h.set_online(false);
    h.end(call, 2, AttemptEnd::NetworkError); // offline: waits, not counted
    h.advance(700);
    h.set_online(true);
    h.end(call, 3, AttemptEnd::NetworkError); // online: the second delayed repeat
    let delays: Vec<u64> = h.retries(call).iter().map(retry_delay).collect();
    assert_eq!(delays, [1_000, 0, 2_000]);
    // The engine's own attempt timeout while offline: a repeat "at once" waits for online too.
    let mut h = Harness::new();
    let call = h.rest();
    h.set_online(false);
    h.advance(30_000);
    assert_eq!(h.abandons(call), vec![(1, Abandon::Timeout)]);
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.reason(call), Some(WaitReason::Offline));
}

/// The wait for online is bounded by the within deadline: past it the call settles with its last
/// attempt's end, sending nothing more.
#[test]
fn the_within_deadline_ends_an_offline_wait() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 10_000,
        delay_ms: 1_000,
        jitter: 0,
    });
    h.set_online(false);
    h.advance(2_000);
    h.end(call, 1, AttemptEnd::NetworkError);
    assert_eq!(h.engine.poll_timeout(), Some(t0 + 10_000));
    h.advance(7_999);
    assert_eq!(h.settled(call), None);
    h.advance(1);
    assert_eq!(
        h.settled(call),
        Some((1, AttemptEnd::NetworkError, t0 + 10_000))
    );
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.engine.scheduled_timers(), 0);
    // A late wakeup: coming online past the deadline settles instead of sending.
    let mut h = Harness::new();
    let call = h.rest_with(RepeatPolicy {
        within_ms: 3_000,
        delay_ms: 1_000,
        jitter: 0,
    });
    h.set_online(false);
    h.end(call, 1, AttemptEnd::NetworkError);
    h.now += 4_000; // a throttled driver: no timer ran
    h.set_online(true);
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.settled(call).map(|s| s.1), Some(AttemptEnd::NetworkError));
    assert_eq!(h.waits(call), vec![(WaitReason::Offline, h.now - 4_000)]);
}

/// Issue 12's rule holds for the offline wait: a within deadline beyond the clock is never, so the
/// wait has no timer and `handle_timeout` at the end of the clock settles nothing.
#[test]
fn an_offline_wait_with_a_within_beyond_the_clock_has_no_timer() {
    let mut engine = CallEngine::new();
    let mut spec = CallSpec::new(Transport::Rest);
    spec.attempt_timeout_ms = 0;
    spec.policy.within_ms = u64::MAX;
    let call = engine.issue(spec, 1_000);
    engine.set_online(false, 1_000);
    engine.attempt_ended(call, 1, AttemptEnd::NetworkError, 1_000);
    while engine.poll_action().is_some() {}
    assert_eq!(engine.poll_timeout(), None);
    engine.handle_timeout(u64::MAX);
    assert_eq!(engine.queued_actions(), 0);
    assert_eq!(engine.live_calls(), 1);
    engine.set_online(true, 2_000);
    let mut sent = false;
    while let Some(action) = engine.poll_action() {
        sent |= matches!(action, viewsets_core::Action::SendAttempt { attempt: 2, .. });
    }
    assert!(sent);
}

/// Attempts in flight are left alone by going offline and by coming online; a call issued while
/// offline still sends its first attempt.
#[test]
fn attempts_in_flight_are_left_alone() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest();
    h.set_online(false);
    let late = h.rest();
    assert_eq!(h.sends(late), vec![(1, t0)], "the first attempt goes out offline");
    h.advance(1_000);
    h.set_online(true);
    for c in [call, late] {
        assert_eq!(h.sends(c).len(), 1);
        assert!(h.abandons(c).is_empty());
        assert!(h.waits(c).is_empty());
        assert_eq!(h.reason(c), Some(WaitReason::InFlight));
    }
    h.end(call, 1, OK);
    assert!(h.settled(call).is_some());
}

/// A peer closed for good ends its calls' waits even offline: their open() throws without the
/// network, and they settle with it.
#[test]
fn a_peer_closed_for_good_ends_the_wait_also_offline() {
    let mut h = Harness::new();
    let waiting = h.muxws(4);
    let later = h.muxws(4);
    h.peer_available(4, false);
    h.end(waiting, 1, connection_lost());
    h.set_online(false);
    h.peer_closed_for_good(4);
    assert_eq!(h.sends(waiting).len(), 2);
    assert_eq!(
        h.waits(waiting).iter().map(|w| w.0).collect::<Vec<_>>(),
        [WaitReason::Offline, WaitReason::InFlight]
    );
    h.end(later, 1, connection_lost());
    assert_eq!(h.sends(later).len(), 2, "no wait for a closed peer");
    assert!(h.waits(later).is_empty());
}

/// Without the signal nothing changes: news that repeats the state is ignored, so a driver that
/// reports `online` at start sends nothing early and emits no event.
#[test]
fn repeated_news_changes_nothing() {
    let mut h = Harness::new();
    let call = h.rest();
    h.end(call, 1, AttemptEnd::NetworkError);
    h.set_online(true);
    assert_eq!(h.sends(call).len(), 1);
    assert!(h.waits(call).is_empty());
    assert_eq!(h.reason(call), Some(WaitReason::Delay));
    h.set_online(false);
    h.set_online(false);
    assert_eq!(h.waits(call).len(), 1);
    h.set_online(true);
    h.set_online(true);
    assert_eq!(h.sends(call).len(), 2);
    assert_eq!(h.waits(call).len(), 2);
}

// ----- 2. why a call waits -----

#[test]
fn pending_calls_say_why_each_call_waits() {
    let mut h = Harness::new();
    let in_flight = h.rest();
    let delayed = h.rest();
    let reconnecting = h.muxws(5);
    h.end(delayed, 1, AttemptEnd::NetworkError);
    h.peer_available(5, false);
    h.end(reconnecting, 1, connection_lost());
    let reasons = |h: &Harness| {
        [in_flight, delayed, reconnecting].map(|c| h.reason(c).unwrap())
    };
    // The peer is away: that holds the muxws repeat past its delay.
    assert_eq!(
        reasons(&h),
        [WaitReason::InFlight, WaitReason::Delay, WaitReason::Reconnect]
    );
    h.advance(500);
    h.peer_available(5, true);
    assert_eq!(reasons(&h)[2], WaitReason::Delay, "only its delay is left");
    h.peer_available(5, false);
    h.advance(600); // the delays ended: REST repeat sent, muxws waits for the peer only
    assert_eq!(
        reasons(&h),
        [WaitReason::InFlight, WaitReason::InFlight, WaitReason::Reconnect]
    );
    // Offline comes before every other reason of a waiting repeat, not of an attempt in flight.
    h.end(delayed, 2, AttemptEnd::NetworkError);
    h.set_online(false);
    assert_eq!(
        reasons(&h),
        [WaitReason::InFlight, WaitReason::Offline, WaitReason::Offline]
    );
    assert!(h.pending().iter().all(|p| p.next_attempt_at.is_none()));
    assert_eq!(
        [WaitReason::InFlight, WaitReason::Delay, WaitReason::Reconnect, WaitReason::Offline]
            .map(WaitReason::as_str),
        ["in-flight", "delay", "reconnect", "offline"]
    );
}

/// `Wait` events come between `start` and `settle`, never reorder the other kinds, and a listener
/// that looks only at start/retry/settle sees them in their usual order.
#[test]
fn wait_events_leave_the_order_of_the_other_kinds_alone() {
    let mut h = Harness::new();
    let call = h.muxws(2);
    let rest = h.rest();
    h.end(rest, 1, AttemptEnd::NetworkError);
    h.set_online(false); // rest waits for its delay: now for online
    h.peer_available(2, false);
    h.end(call, 1, connection_lost());
    h.advance(3_000);
    h.set_online(true); // rest goes at once; muxws waits for its peer
    h.peer_available(2, true);
    h.end(call, 2, AttemptEnd::MuxwsReply { status: 200 });
    h.end(rest, 2, OK);
    for (c, expected) in [
        (call, vec!["start", "retry", "wait", "wait", "settle"]),
        (rest, vec!["start", "retry", "wait", "wait", "settle"]),
    ] {
        let types: Vec<&str> = h.events(c).iter().map(|e| e.kind.type_name()).collect();
        assert_eq!(types, expected);
        let others: Vec<&str> = types.iter().copied().filter(|t| *t != "wait").collect();
        assert_eq!(others, ["start", "retry", "settle"]);
    }
    assert_eq!(
        h.waits(call).iter().map(|w| w.0).collect::<Vec<_>>(),
        [WaitReason::Offline, WaitReason::Reconnect]
    );
    assert_eq!(
        h.waits(rest).iter().map(|w| w.0).collect::<Vec<_>>(),
        [WaitReason::Offline, WaitReason::InFlight]
    );
    // The wait's end comes before the actions of the repeat it lets go.
    let position = |pred: &dyn Fn(&Seen) -> bool| h.seen.iter().position(pred).unwrap();
    let wait_end = position(&|s| {
        matches!(s, Seen::Event(e) if e.call == rest && e.kind == ActivityKind::Wait { reason: WaitReason::InFlight })
    });
    let abandon = position(&|s| matches!(s, Seen::Abandon { call: c, .. } if *c == rest));
    let send = position(&|s| matches!(s, Seen::Send { call: c, attempt: 2, .. } if *c == rest));
    assert!(wait_end < abandon && abandon < send);
}
