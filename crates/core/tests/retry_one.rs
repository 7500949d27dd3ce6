//! Issue 37, "try again now" on one waiting call (`CallEngine::retry_call_now`, the runtime's
//! `retryNow(key)`): that call's waiting repeat goes now, every other call is left as it was, and a
//! call that has no waiting repeat (in flight, settled, unknown) is left alone with `false`.

mod common;

use common::Harness;
use viewsets_core::{Abandon, AttemptEnd, RepeatPolicy, WaitReason};

/// A policy whose delayed repeats wait 30 s (no jitter).
const SLOW: RepeatPolicy = RepeatPolicy {
    within_ms: 600_000,
    delay_ms: 30_000,
    jitter: 0,
};

fn lost() -> AttemptEnd {
    AttemptEnd::ConnectionLost {
        closed_for_good: false,
    }
}

#[test]
fn one_of_two_waiting_rest_calls_goes_now_and_the_other_keeps_its_schedule() {
    let mut h = Harness::new();
    let t0 = h.now;
    let a = h.rest_with(SLOW);
    let b = h.rest_with(SLOW);
    h.end(a, 1, AttemptEnd::NetworkError);
    h.end(b, 1, AttemptEnd::NetworkError);
    h.advance(5_000);
    assert!(h.retry_call_now(b));
    assert_eq!(h.sends(b), vec![(1, t0), (2, t0 + 5_000)], "b's repeat went at once");
    assert_eq!(h.abandons(b), vec![(1, Abandon::Superseded)]);
    assert_eq!(h.retries(b).len(), 1, "no second retry event");
    assert_eq!(h.sends(a), vec![(1, t0)], "a still waits");
    let pending = h.pending();
    assert_eq!(pending[0].call, a);
    assert_eq!(pending[0].next_attempt_at, Some(t0 + 30_000), "a's schedule unchanged");
    assert_eq!(pending[1].next_attempt_at, None, "b's attempt is in flight");
    assert_eq!(h.reason(b), Some(WaitReason::InFlight));
    // a goes when its own delay ends, b nothing more.
    h.advance(25_000);
    assert_eq!(h.sends(a), vec![(1, t0), (2, t0 + 30_000)]);
    assert_eq!(h.sends(b).len(), 2);
}

#[test]
fn a_call_without_a_waiting_repeat_is_left_alone() {
    let mut h = Harness::new();
    let in_flight = h.rest_with(SLOW);
    let waiting = h.rest_with(SLOW);
    let settled = h.rest_with(SLOW);
    h.end(waiting, 1, AttemptEnd::NetworkError);
    h.end(
        settled,
        1,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    h.clear();
    let timeout = h.engine.poll_timeout();
    assert!(!h.retry_call_now(in_flight), "in flight");
    assert!(!h.retry_call_now(settled), "settled");
    assert!(!h.retry_call_now(999), "never issued");
    assert!(!h.retry_call_now(0), "no call has id 0");
    assert!(h.seen.is_empty(), "nothing queued: {:?}", h.seen);
    assert_eq!(h.engine.poll_timeout(), timeout);
    assert_eq!(h.sends(waiting).len(), 0, "the waiting call was not touched");
}

#[test]
fn retry_now_counts_the_waiting_repeats_it_sent() {
    let mut h = Harness::new();
    let a = h.rest_with(SLOW);
    let b = h.rest_with(SLOW);
    let _in_flight = h.rest_with(SLOW);
    h.end(a, 1, AttemptEnd::NetworkError);
    h.end(b, 1, AttemptEnd::NetworkError);
    assert_eq!(h.retry_now(), 2);
    assert_eq!(h.retry_now(), 0, "all three are in flight now");
}

#[test]
fn a_manual_repeat_of_one_call_that_fails_resumes_the_delay_it_cut_short() {
    let mut h = Harness::new();
    let t0 = h.now;
    let a = h.rest_with(SLOW);
    h.end(a, 1, AttemptEnd::NetworkError); // due at t0 + 30 000
    h.advance(10_000);
    assert!(h.retry_call_now(a));
    h.advance(1_000);
    h.end(a, 2, AttemptEnd::NetworkError);
    assert_eq!(
        h.pending()[0].next_attempt_at,
        Some(t0 + 30_000),
        "the schedule is not lengthened, the doubling not advanced"
    );
    h.advance(19_000);
    assert_eq!(h.sends(a).last(), Some(&(3, t0 + 30_000)));
}

#[test]
fn over_a_peer_that_is_away_one_call_asks_one_reconnect_and_goes_alone_when_it_is_back() {
    let mut h = Harness::new();
    let a = h.muxws(7);
    let b = h.muxws(7);
    h.peer_available(7, false);
    h.end(a, 1, lost());
    h.end(b, 1, lost());
    h.advance(100);
    assert!(h.retry_call_now(a));
    assert_eq!(h.reconnects(), vec![7]);
    let pending = h.pending();
    assert!(pending[0].waiting_for_reconnect && pending[0].next_attempt_at.is_none(), "a waits for the peer alone");
    assert!(pending[1].next_attempt_at.is_some(), "b keeps its delay");
    h.peer_available(7, true);
    assert_eq!(h.sends(a).len(), 2, "a goes once the peer is back");
    assert_eq!(h.sends(b).len(), 1, "b still waits for its delay");
    h.advance(1_000);
    assert_eq!(h.sends(b).len(), 2, "b goes when its delay ends");
}

#[test]
fn offline_one_call_goes_and_the_other_waits_for_online() {
    let mut h = Harness::new();
    let a = h.rest_with(SLOW);
    let b = h.rest_with(SLOW);
    h.end(a, 1, AttemptEnd::NetworkError);
    h.end(b, 1, AttemptEnd::NetworkError);
    h.set_online(false);
    assert!(h.retry_call_now(a));
    assert_eq!(h.sends(a).len(), 2, "sent also while offline, as retry_now sends");
    assert_eq!(h.waits(a).last().map(|w| w.0), Some(WaitReason::InFlight), "its offline wait ended");
    assert_eq!(h.sends(b).len(), 1);
    assert_eq!(h.reason(b), Some(WaitReason::Offline));
}
