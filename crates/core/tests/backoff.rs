//! Issue 14, the delay before a repeat: `retry_now` never lengthens the schedule, a gateway's
//! `Retry-After` sets the delay, and `repeat.jitter` spreads the computed delays.

mod common;

use common::{retry_delay, Harness};
use viewsets_core::{
    ActivityKind, AttemptEnd, Ended, RepeatOverride, RepeatPolicy, WaitReason, JITTER_WHOLE,
};

/// A gateway's 503 (repeated).
const GATEWAY: AttemptEnd = AttemptEnd::HttpAnswer {
    status: 503,
    json_detail: false,
};

fn delays(h: &Harness, call: u64) -> Vec<u64> {
    h.retries(call).iter().map(retry_delay).collect()
}

/// Fails attempts 1..=3 of a fresh default call, each when it is sent: the fourth attempt is then
/// due 4 s after the third failed. Returns that moment.
fn three_failures(h: &mut Harness, call: u64) -> u64 {
    for attempt in 1..=3 {
        if attempt > 1 {
            let due = h.engine.poll_timeout().unwrap();
            h.advance(due - h.now);
        }
        h.end(call, attempt, AttemptEnd::NetworkError);
    }
    h.now + 4_000
}

// ----- 3. retry_now never lengthens the schedule -----

/// Acceptance: `retry_now` pressed 10 times while the network is down leaves the next automatic
/// delay unchanged: the automatic repeat is due when it was, and the delay after it is the one it
/// would have been.
#[test]
fn ten_retry_now_presses_while_down_leave_the_next_automatic_delay_unchanged() {
    let mut control = Harness::new();
    let quiet = control.rest();
    let due = three_failures(&mut control, quiet);

    let mut h = Harness::new();
    let call = h.rest();
    assert_eq!(three_failures(&mut h, call), due);
    for press in 1..=10u32 {
        h.advance(300);
        h.retry_now();
        assert_eq!(h.last_attempt(call), 3 + press, "press {press} sent nothing");
        h.end(call, 3 + press, AttemptEnd::NetworkError);
        assert_eq!(h.pending()[0].next_attempt_at, Some(due), "press {press}");
        assert_eq!(h.reason(call), Some(WaitReason::Delay));
    }
    // Each manual attempt's repeat waits for the rest of the interrupted delay.
    let manual: Vec<u64> = delays(&h, call)[3..].to_vec();
    assert_eq!(manual, (1..=10).map(|n| 4_000 - 300 * n).collect::<Vec<u64>>());
    // The automatic repeat goes out when it would have, and its failure doubles as it would have.
    for (harness, id) in [(&mut control, quiet), (&mut h, call)] {
        harness.advance(due - harness.now);
        assert_eq!(harness.sends(id).last().map(|s| s.1), Some(due));
        let attempt = harness.last_attempt(id);
        harness.end(id, attempt, AttemptEnd::NetworkError);
        assert_eq!(delays(harness, id).last(), Some(&8_000));
    }
}

/// A manual attempt that fails after the interrupted delay would have ended is repeated at once,
/// and does not count towards the doubling.
#[test]
fn a_manual_attempt_that_fails_late_is_repeated_at_once() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 600_000,
        delay_ms: 10_000,
        jitter: 0,
    });
    h.end(call, 1, AttemptEnd::NetworkError); // due at t0+10000
    h.advance(5_000);
    h.retry_now();
    h.advance(7_000); // the slow manual attempt fails past t0+10000
    h.end(call, 2, AttemptEnd::NetworkError);
    assert_eq!(h.sends(call).last(), Some(&(3, t0 + 12_000)));
    h.end(call, 3, AttemptEnd::NetworkError);
    assert_eq!(delays(&h, call), [10_000, 0, 20_000]);
    // An answered manual attempt settles as any other.
    let mut h = Harness::new();
    let call = h.rest();
    h.end(call, 1, AttemptEnd::NetworkError);
    h.retry_now();
    h.end(call, 2, GATEWAY);
    h.advance(1_000);
    h.end(
        call,
        3,
        AttemptEnd::HttpAnswer {
            status: 201,
            json_detail: false,
        },
    );
    assert!(h.settled(call).is_some());
    assert_eq!(delays(&h, call), [1_000, 1_000]);
}

/// A manual attempt that times out (a repeat "at once") still waits for the rest of the delay.
#[test]
fn a_manual_attempt_that_times_out_resumes_the_delay() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.rest_spec();
    spec.policy.delay_ms = 20_000;
    spec.attempt_timeout_ms = 5_000;
    let call = h.issue(spec);
    h.end(call, 1, AttemptEnd::NetworkError); // due at t0+20000
    h.advance(1_000);
    h.retry_now(); // attempt 2 times out at t0+6000
    h.advance(5_000);
    assert_eq!(h.sends(call).len(), 2);
    assert_eq!(h.pending()[0].next_attempt_at, Some(t0 + 20_000));
    h.advance(14_000);
    assert_eq!(h.sends(call).last(), Some(&(3, t0 + 20_000)));
}

/// A manual attempt that fails while offline waits for online; coming online sends it at once, and
/// should that fail too, the interrupted delay still applies.
#[test]
fn a_manual_attempt_that_fails_offline_waits_for_online() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 600_000,
        delay_ms: 10_000,
        jitter: 0,
    });
    h.end(call, 1, AttemptEnd::NetworkError); // due at t0+10000
    h.set_online(false);
    h.advance(1_000);
    for _ in 0..3 {
        h.retry_now();
        let attempt = h.last_attempt(call);
        h.end(call, attempt, AttemptEnd::NetworkError);
        assert_eq!(h.reason(call), Some(WaitReason::Offline));
    }
    assert_eq!(h.sends(call).len(), 4, "each press sends, also offline");
    h.advance(2_000);
    h.set_online(true);
    assert_eq!(h.sends(call).last(), Some(&(5, t0 + 3_000)));
    h.end(call, 5, AttemptEnd::NetworkError);
    assert_eq!(h.pending()[0].next_attempt_at, Some(t0 + 10_000));
    h.advance(7_000);
    h.end(call, 6, AttemptEnd::NetworkError);
    assert_eq!(delays(&h, call), [10_000, 0, 0, 0, 7_000, 20_000]);
}

/// Over muxws with the peer away, `retry_now` ends the delay and asks the peer to reconnect; the
/// attempt its reconnect sends is a manual one: should it fail, the rest of the delay applies.
#[test]
fn a_manual_muxws_repeat_resumes_the_delay_it_cut_short() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.muxws_spec(6);
    spec.policy.delay_ms = 8_000;
    let call = h.issue(spec);
    h.peer_available(6, false);
    h.end(
        call,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    ); // due at t0+8000, and the peer
    h.advance(1_000);
    h.retry_now();
    assert_eq!(h.reconnects(), vec![6]);
    h.advance(500);
    h.peer_available(6, true);
    assert_eq!(h.sends(call).last(), Some(&(2, t0 + 1_500)));
    h.peer_available(6, false);
    h.end(
        call,
        2,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    assert_eq!(
        h.retries(call).last(),
        Some(&ActivityKind::Retry {
            attempt: 2,
            ended: Ended::ConnectionLost,
            delay_ms: 6_500,
            waits_for_reconnect: true
        })
    );
    h.advance(6_500);
    h.peer_available(6, true);
    h.end(
        call,
        3,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    assert_eq!(delays(&h, call), [8_000, 6_500, 16_000]);
}

// ----- 4. Retry-After -----

/// Acceptance: `Retry-After: 2` on a 503: the repeat 2 s later; the backoff goes on from there.
#[test]
fn retry_after_on_a_503_sets_the_delay_of_that_repeat() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest();
    h.end_retry_after(call, 1, GATEWAY, 2_000);
    assert_eq!(
        h.retries(call),
        vec![ActivityKind::Retry {
            attempt: 1,
            ended: Ended::GatewayStatus,
            delay_ms: 2_000,
            waits_for_reconnect: false
        }]
    );
    h.advance(1_999);
    assert_eq!(h.sends(call).len(), 1);
    h.advance(1);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 2_000)]);
    // It counted as a delayed repeat: the next computed delay is the second one.
    h.end(call, 2, AttemptEnd::NetworkError);
    assert_eq!(delays(&h, call), [2_000, 2_000]);
    // Longer than the backoff's cap, within withinMs: honoured.
    h.advance(2_000);
    h.end_retry_after(call, 3, GATEWAY, 45_000);
    h.advance(45_000);
    assert_eq!(h.sends(call).last(), Some(&(4, t0 + 49_000)));
    // Shorter than the backoff (0, which a gateway may send on every answer): a floor, not an
    // order: the backoff's delay, counted, so that such answers cannot make a tight loop.
    h.end_retry_after(call, 4, GATEWAY, 0);
    assert_eq!(h.sends(call).last(), Some(&(4, t0 + 49_000)));
    h.advance(8_000);
    assert_eq!(h.sends(call).last(), Some(&(5, t0 + 57_000)));
    h.end(call, 5, GATEWAY);
    assert_eq!(delays(&h, call), [2_000, 2_000, 45_000, 8_000, 16_000]);
}

/// A server answering `Retry-After: 0` on every attempt gets the backoff's schedule, not a loop.
#[test]
fn retry_after_zero_on_every_answer_backs_off() {
    let mut h = Harness::new();
    let call = h.rest();
    for attempt in 1..=4 {
        h.end_retry_after(call, attempt, GATEWAY, 0);
        let delay = *delays(&h, call).last().unwrap();
        h.advance(delay);
    }
    assert_eq!(delays(&h, call), [1_000, 2_000, 4_000, 8_000]);
    assert_eq!(h.sends(call).len(), 5);
}

/// A Retry-After whose repeat would fall past the within deadline settles the call now with the
/// 503, as a computed delay would; one beyond the clock is never (issue 12's rule).
#[test]
fn retry_after_past_the_within_deadline_settles() {
    for retry_after in [600_001, u64::MAX] {
        let mut h = Harness::new();
        let call = h.rest();
        h.end_retry_after(call, 1, GATEWAY, retry_after);
        assert_eq!(h.settled(call), Some((1, GATEWAY, h.now)));
        assert!(h.retries(call).is_empty());
        assert_eq!(h.engine.poll_timeout(), None);
    }
}

/// Retry-After is read only where an HTTP answer is repeated: a gateway status whose body holds
/// `detail` is the application's answer and settles; other ends keep their own delay.
#[test]
fn retry_after_is_read_only_for_a_repeated_answer() {
    let mut h = Harness::new();
    let call = h.rest();
    let answer = AttemptEnd::HttpAnswer {
        status: 503,
        json_detail: true,
    };
    h.end_retry_after(call, 1, answer.clone(), 2_000);
    assert_eq!(h.settled(call), Some((1, answer, h.now)));
    let call = h.rest();
    h.end_retry_after(call, 1, AttemptEnd::NetworkError, 5_000);
    let mux = h.muxws(1);
    h.end_retry_after(mux, 1, AttemptEnd::StreamTimeout, 5_000);
    assert_eq!(delays(&h, call), [1_000]);
    assert_eq!(delays(&h, mux), [0]);
}

/// Retry-After is not jittered: jitter only shortens a delay, and the server asked for that moment.
#[test]
fn retry_after_is_exact_under_full_jitter() {
    let mut h = Harness::new();
    let mut spec = h.rest_spec();
    spec.policy.jitter = JITTER_WHOLE;
    spec.jitter_seed = 12_345;
    let call = h.issue(spec);
    h.end_retry_after(call, 1, GATEWAY, 2_000);
    assert_eq!(delays(&h, call), [2_000]);
}

/// After a manual attempt, a Retry-After sets the delay instead of the interrupted one, and the
/// doubling stays where it was.
#[test]
fn retry_after_on_a_manual_attempt_sets_the_delay() {
    let mut h = Harness::new();
    let call = h.rest();
    h.end(call, 1, AttemptEnd::NetworkError); // 1000
    h.retry_now();
    h.end_retry_after(call, 2, GATEWAY, 3_000);
    h.advance(3_000);
    h.end(call, 3, AttemptEnd::NetworkError);
    assert_eq!(delays(&h, call), [1_000, 3_000, 2_000]);
}

// ----- 5. jitter -----

/// The delays of one call with jitter `j`, seed `seed`, after `n` failures.
fn jittered_delays(jitter: u32, seed: u32, n: u32) -> Vec<u64> {
    let mut h = Harness::new();
    let mut spec = h.rest_spec();
    spec.policy.within_ms = 10_000_000;
    spec.policy.jitter = jitter;
    spec.jitter_seed = seed;
    let call = h.issue(spec);
    for attempt in 1..=n {
        if attempt > 1 {
            let due = h.engine.poll_timeout().unwrap();
            h.advance(due - h.now);
            assert_eq!(h.last_attempt(call), attempt, "sent when its delay ended");
        }
        h.end(call, attempt, AttemptEnd::NetworkError);
    }
    delays(&h, call)
}

const EXACT: [u64; 8] = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000];

#[test]
fn jitter_draws_each_delay_within_its_bounds() {
    for (jitter, fraction) in [(JITTER_WHOLE / 4, 0.25), (JITTER_WHOLE / 2, 0.5), (JITTER_WHOLE, 1.0)] {
        for seed in 0..200u32 {
            let drawn = jittered_delays(jitter, seed.wrapping_mul(2_654_435_761), 8);
            for (d, exact) in drawn.iter().zip(EXACT) {
                let low = (exact as f64 * (1.0 - fraction)).floor() as u64;
                assert!(low <= *d && *d <= exact, "{d} outside [{low}, {exact}]");
            }
        }
    }
}

#[test]
fn jitter_is_deterministic_per_seed_and_spreads_across_seeds() {
    let half = JITTER_WHOLE / 2;
    assert_eq!(jittered_delays(half, 7, 6), jittered_delays(half, 7, 6));
    assert_ne!(jittered_delays(half, 7, 6), jittered_delays(half, 8, 6));
    // A crowd cut off by one outage: the first delays of 1000 calls spread over [0, 1000].
    let first: Vec<u64> = (0..1_000u32)
        .map(|seed| jittered_delays(JITTER_WHOLE, seed, 1)[0])
        .collect();
    let mean = first.iter().sum::<u64>() as f64 / first.len() as f64;
    assert!((450.0..550.0).contains(&mean), "mean {mean}");
    for tenth in 0..10u64 {
        let count = first.iter().filter(|d| **d / 100 == tenth).count();
        assert!((50..150).contains(&count), "{count} delays in [{}, {})", tenth * 100, tenth * 100 + 100);
    }
}

#[test]
fn no_jitter_keeps_the_schedule_exact_whatever_the_seed() {
    for seed in [0, 1, u32::MAX] {
        assert_eq!(jittered_delays(0, seed, 8), EXACT);
    }
}

#[test]
fn jitter_is_a_repeat_option_of_one_call_too() {
    let proxy = RepeatPolicy::default();
    let call = proxy.with_override(&RepeatOverride {
        within_ms: None,
        delay_ms: None,
        jitter: Some(JITTER_WHOLE),
    });
    assert_eq!(call.jitter, JITTER_WHOLE);
    assert_eq!(call.within_ms, proxy.within_ms);
    // Above the whole counts as the whole: a delay never goes negative.
    let wild = RepeatPolicy {
        jitter: u32::MAX,
        ..RepeatPolicy::default()
    };
    for seed in 0..100 {
        assert!(wild.jittered_delay_before(0, seed) <= 1_000);
    }
}
