//! The seed's Repeats table, row by row, and the repeat options (`attemptTimeoutMs`, `repeat.withinMs`,
//! `repeat.delayMs`, the per-call override), through the engine with a virtual clock.

mod common;

use common::{retry_delay, Harness};
use viewsets_core::{
    Ended,
    classify, Abandon, ActivityKind, AttemptEnd, RepeatOverride, RepeatPolicy, Transport, Verdict,
};

const DELAY: u64 = 1_000;

/// Asserts that attempt 1 of a fresh call that ended with `end` is repeated after the default delay
/// (attempt 2 is sent exactly `DELAY` ms later, after abandoning attempt 1).
fn assert_repeated_after_delay(h: &mut Harness, call: u64, end: AttemptEnd) {
    let t0 = h.now;
    let ended = end.ended();
    h.end(call, 1, end);
    assert_eq!(
        h.retries(call),
        vec![ActivityKind::Retry {
            attempt: 1,
            ended,
            delay_ms: DELAY,
            waits_for_reconnect: false
        }]
    );
    assert_eq!(h.sends(call), vec![(1, t0)]);
    h.advance(DELAY - 1);
    assert_eq!(h.sends(call).len(), 1, "sent before the delay elapsed");
    h.advance(1);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + DELAY)]);
    assert_eq!(h.abandons(call), vec![(1, Abandon::Superseded)]);
    assert_eq!(h.settled(call), None);
}

fn assert_settles_with(h: &mut Harness, call: u64, end: AttemptEnd) {
    let t0 = h.now;
    h.end(call, 1, end.clone());
    assert_eq!(h.settled(call), Some((1, end.clone(), t0)));
    assert!(h.retries(call).is_empty());
    assert_eq!(h.sends(call).len(), 1);
    let settle = h.events(call).last().unwrap().kind.clone();
    assert_eq!(
        settle,
        ActivityKind::Settle {
            ok: end.is_success(),
            attempts: 1,
            ended: end.ended()
        }
    );
}

// ----- the table itself -----

#[test]
fn classify_is_exactly_the_seed_table() {
    use AttemptEnd::*;
    for status in [502u16, 503, 504] {
        assert_eq!(
            classify(&HttpAnswer {
                status,
                json_detail: false
            }),
            Verdict::RepeatAfterDelay
        );
        assert_eq!(
            classify(&HttpAnswer {
                status,
                json_detail: true
            }),
            Verdict::Settle
        );
        assert_eq!(classify(&MuxwsReply { status }), Verdict::Settle);
    }
    for status in [
        100u16, 200, 201, 204, 301, 400, 401, 404, 409, 422, 429, 500, 501, 505, 599,
    ] {
        for json_detail in [false, true] {
            assert_eq!(
                classify(&HttpAnswer {
                    status,
                    json_detail
                }),
                Verdict::Settle,
                "{status}"
            );
        }
        assert_eq!(classify(&MuxwsReply { status }), Verdict::Settle);
    }
    assert_eq!(classify(&NetworkError), Verdict::RepeatAfterDelay);
    assert_eq!(classify(&AttemptTimeout), Verdict::RepeatAtOnce);
    assert_eq!(classify(&Cancelled), Verdict::Settle);
    assert_eq!(classify(&StreamTimeout), Verdict::RepeatAtOnce);
    for closed_for_good in [false, true] {
        let expected = if closed_for_good {
            Verdict::Settle
        } else {
            Verdict::RepeatAfterDelayAndReconnect
        };
        for end in [
            ConnectionLost { closed_for_good },
            StreamRefused { closed_for_good },
            OpenConnectionClosed { closed_for_good },
            OpenGoingAway { closed_for_good },
        ] {
            assert_eq!(classify(&end), expected, "{end:?}");
        }
    }
    assert_eq!(classify(&OtherError), Verdict::Settle);
}

// REST row 1: "an axios error without response, other than a cancellation — at once after the
// attempt's timeout, after the delay otherwise".

#[test]
fn rest_network_error_is_repeated_after_the_delay() {
    let mut h = Harness::new();
    let call = h.rest();
    assert_repeated_after_delay(&mut h, call, AttemptEnd::NetworkError);
}

#[test]
fn rest_attempt_timeout_is_repeated_at_once() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest();
    assert_eq!(h.engine.poll_timeout(), Some(t0 + 30_000));
    h.advance(29_999);
    assert_eq!(h.sends(call).len(), 1);
    h.advance(1);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 30_000)]);
    // The timed-out attempt is abandoned once, for its timeout, and not again as superseded.
    assert_eq!(h.abandons(call), vec![(1, Abandon::Timeout)]);
    assert_eq!(
        h.retries(call),
        vec![ActivityKind::Retry {
            attempt: 1,
            ended: Ended::Timeout,
            delay_ms: 0,
            waits_for_reconnect: false
        }]
    );
}

#[test]
fn rest_timeout_reported_by_the_driver_is_repeated_at_once() {
    let mut h = Harness::new();
    let call = h.rest();
    h.advance(10);
    h.end(call, 1, AttemptEnd::AttemptTimeout);
    assert_eq!(h.sends(call).last(), Some(&(2, h.now)));
    assert_eq!(h.abandons(call), vec![(1, Abandon::Superseded)]);
}

#[test]
fn rest_cancellation_settles() {
    let mut h = Harness::new();
    let call = h.rest();
    assert_settles_with(&mut h, call, AttemptEnd::Cancelled);
}

// REST row 2: "502, 503 or 504 whose body is not a JSON object with detail — after the delay".

#[test]
fn rest_gateway_status_without_json_detail_is_repeated_after_the_delay() {
    for status in [502, 503, 504] {
        let mut h = Harness::new();
        let call = h.rest();
        assert_repeated_after_delay(
            &mut h,
            call,
            AttemptEnd::HttpAnswer {
                status,
                json_detail: false,
            },
        );
        assert_eq!(
            h.retries(call),
            vec![ActivityKind::Retry {
                attempt: 1,
                ended: Ended::GatewayStatus,
                delay_ms: DELAY,
                waits_for_reconnect: false
            }]
        );
    }
}

#[test]
fn rest_gateway_status_with_json_detail_is_the_applications_answer() {
    for status in [502, 503, 504] {
        let mut h = Harness::new();
        let call = h.rest();
        assert_settles_with(
            &mut h,
            call,
            AttemptEnd::HttpAnswer {
                status,
                json_detail: true,
            },
        );
    }
}

#[test]
fn rest_any_other_answer_settles() {
    for (status, json_detail) in [
        (200, true),
        (201, false),
        (204, false),
        (400, true),
        (404, false),
        (500, false),
        (501, false),
        (505, false),
    ] {
        let mut h = Harness::new();
        let call = h.rest();
        assert_settles_with(
            &mut h,
            call,
            AttemptEnd::HttpAnswer {
                status,
                json_detail,
            },
        );
    }
}

// muxws row 1: "the stream failed with StreamTimeout — at once".

#[test]
fn muxws_stream_timeout_is_repeated_at_once() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.muxws_spec(1);
    spec.attempt_timeout_ms = 5_000;
    let call = h.issue(spec);
    h.advance(5_000);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 5_000)]);
    assert_eq!(h.abandons(call), vec![(1, Abandon::Timeout)]);
    assert_eq!(
        h.retries(call),
        vec![ActivityKind::Retry {
            attempt: 1,
            ended: Ended::StreamTimeout,
            delay_ms: 0,
            waits_for_reconnect: false
        }]
    );
}

// muxws row 2: "ConnectionLost or StreamRefused, or open() threw ConnectionClosed or
// ConnectionGoingAway while the peer has not closed for good — after the delay, and once the peer has
// reconnected".

#[test]
fn muxws_connection_failures_wait_for_the_delay_and_the_reconnect() {
    let ends = [
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
        AttemptEnd::StreamRefused {
            closed_for_good: false,
        },
        AttemptEnd::OpenConnectionClosed {
            closed_for_good: false,
        },
        AttemptEnd::OpenGoingAway {
            closed_for_good: false,
        },
    ];
    for end in ends {
        let mut h = Harness::new();
        let t0 = h.now;
        let call = h.muxws(3);
        let label = end.label();
        let ended = end.ended();
        h.peer_available(3, false);
        h.end(call, 1, end);
        assert_eq!(
            h.retries(call),
            vec![ActivityKind::Retry {
                attempt: 1,
                ended,
                delay_ms: DELAY,
                waits_for_reconnect: true
            }]
        );
        h.advance(5 * DELAY);
        assert_eq!(
            h.sends(call).len(),
            1,
            "{label}: sent while the peer is away"
        );
        h.peer_available(3, true);
        assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 5 * DELAY)], "{label}");
        assert_eq!(h.abandons(call), vec![(1, Abandon::Superseded)]);
    }
}

#[test]
fn muxws_repeat_waits_for_the_delay_when_the_peer_is_back_early() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.muxws(3);
    h.peer_available(3, false);
    h.end(
        call,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.advance(200);
    h.peer_available(3, true);
    assert_eq!(h.sends(call).len(), 1, "sent before the delay elapsed");
    h.advance(DELAY - 200);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + DELAY)]);
}

#[test]
fn muxws_connection_failures_after_the_peer_closed_for_good_settle() {
    let ends = [
        AttemptEnd::ConnectionLost {
            closed_for_good: true,
        },
        AttemptEnd::StreamRefused {
            closed_for_good: true,
        },
        AttemptEnd::OpenConnectionClosed {
            closed_for_good: true,
        },
        AttemptEnd::OpenGoingAway {
            closed_for_good: true,
        },
    ];
    for end in ends {
        let mut h = Harness::new();
        let call = h.muxws(3);
        assert_settles_with(&mut h, call, end);
    }
}

#[test]
fn muxws_any_status_settles() {
    for status in [200, 201, 404, 500, 502, 503, 504] {
        let mut h = Harness::new();
        let call = h.muxws(1);
        assert_settles_with(&mut h, call, AttemptEnd::MuxwsReply { status });
    }
}

#[test]
fn other_errors_settle() {
    let mut h = Harness::new();
    let rest = h.rest();
    assert_settles_with(&mut h, rest, AttemptEnd::OtherError);
    let mux = h.muxws(1);
    assert_settles_with(&mut h, mux, AttemptEnd::OtherError);
    let mux = h.muxws(1);
    assert_settles_with(&mut h, mux, AttemptEnd::Cancelled);
}

// ----- options -----

#[test]
fn attempt_timeout_option_sets_the_deadline_of_every_attempt() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.rest_spec();
    spec.attempt_timeout_ms = 2_500;
    let call = h.issue(spec);
    h.advance(2_500);
    h.advance(2_500);
    assert_eq!(
        h.sends(call),
        vec![(1, t0), (2, t0 + 2_500), (3, t0 + 5_000)]
    );
    assert_eq!(
        h.abandons(call),
        vec![(1, Abandon::Timeout), (2, Abandon::Timeout)]
    );
}

#[test]
fn attempt_timeout_zero_sets_none() {
    let mut h = Harness::new();
    let mut spec = h.rest_spec();
    spec.attempt_timeout_ms = 0;
    let call = h.issue(spec);
    assert_eq!(h.engine.poll_timeout(), None);
    h.advance(24 * 3600 * 1000);
    assert_eq!(h.sends(call).len(), 1);
    assert!(h.abandons(call).is_empty());
    h.end(
        call,
        1,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    assert!(h.settled(call).is_some());
}

#[test]
fn within_ms_stops_repeats_and_settles_with_the_last_error() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 2_500,
        delay_ms: 1_000,
        jitter: 0,
    });
    h.end(call, 1, AttemptEnd::NetworkError);
    h.advance(1_000); // attempt 2 at t0+1000, within 2500
    h.end(
        call,
        2,
        AttemptEnd::HttpAnswer {
            status: 503,
            json_detail: false,
        },
    );
    // The next repeat would go out at t0+3000, past t0+2500: not scheduled, the call settles now.
    assert_eq!(
        h.settled(call),
        Some((
            2,
            AttemptEnd::HttpAnswer {
                status: 503,
                json_detail: false
            },
            t0 + 1_000
        ))
    );
    assert_eq!(h.retries(call).len(), 1);
    assert_eq!(h.engine.poll_timeout(), None);
}

#[test]
fn within_ms_is_inclusive() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 1_000,
        delay_ms: 1_000,
        jitter: 0,
    });
    h.end(call, 1, AttemptEnd::NetworkError);
    h.advance(1_000);
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 1_000)]);
}

#[test]
fn within_ms_bounds_a_repeat_at_once_too() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.rest_spec();
    spec.policy.within_ms = 10_000;
    let call = h.issue(spec);
    h.advance(30_000);
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.abandons(call), vec![(1, Abandon::Timeout)]);
    assert_eq!(
        h.settled(call),
        Some((1, AttemptEnd::AttemptTimeout, t0 + 30_000))
    );
    let settle = h.events(call).last().unwrap().kind.clone();
    assert_eq!(
        settle,
        ActivityKind::Settle {
            ok: false,
            attempts: 1,
            ended: Ended::Timeout
        }
    );
}

#[test]
fn delay_doubles_after_each_delayed_repeat_up_to_30000() {
    let mut h = Harness::new();
    let call = h.rest_with(RepeatPolicy {
        within_ms: 10_000_000,
        delay_ms: 1_000,
        jitter: 0,
    });
    let mut gaps = Vec::new();
    for attempt in 1..=8 {
        h.end(call, attempt, AttemptEnd::NetworkError);
        let before = h.now;
        let due = h.engine.poll_timeout().unwrap();
        h.advance(due - before);
        assert_eq!(h.last_attempt(call), attempt + 1);
        gaps.push(h.now - before);
    }
    assert_eq!(
        gaps,
        [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]
    );
    let delays: Vec<u64> = h.retries(call).iter().map(retry_delay).collect();
    assert_eq!(delays, gaps);
}

#[test]
fn repeats_at_once_do_not_advance_the_doubling() {
    let mut h = Harness::new();
    let call = h.rest();
    h.end(call, 1, AttemptEnd::NetworkError); // 1000
    h.advance(1_000);
    h.end(call, 2, AttemptEnd::AttemptTimeout); // at once
    h.end(
        call,
        3,
        AttemptEnd::HttpAnswer {
            status: 502,
            json_detail: false,
        },
    ); // 2000
    let delays: Vec<u64> = h.retries(call).iter().map(retry_delay).collect();
    assert_eq!(delays, [1_000, 0, 2_000]);
}

#[test]
fn within_zero_never_repeats() {
    let ends = [
        AttemptEnd::NetworkError,
        AttemptEnd::AttemptTimeout,
        AttemptEnd::HttpAnswer {
            status: 504,
            json_detail: false,
        },
        AttemptEnd::StreamTimeout,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    ];
    for end in ends {
        let mut h = Harness::new();
        let mut spec = h.muxws_spec(1);
        spec.policy.within_ms = 0;
        let call = h.issue(spec);
        h.end(call, 1, end.clone());
        assert_eq!(h.settled(call), Some((1, end.clone(), h.now)), "{end:?}");
        assert!(h.retries(call).is_empty());
    }
    // Also when the engine's own timeout ends the attempt.
    let mut h = Harness::new();
    let call = h.rest_with(RepeatPolicy {
        within_ms: 0,
        delay_ms: 1_000,
        jitter: 0,
    });
    h.advance(30_000);
    assert_eq!(
        h.settled(call).map(|s| s.1),
        Some(AttemptEnd::AttemptTimeout)
    );
    assert_eq!(h.sends(call).len(), 1);
}

#[test]
fn per_call_override_replaces_the_proxy_policy() {
    let proxy = RepeatPolicy {
        within_ms: 0,
        delay_ms: 1_000,
        jitter: 0,
    };
    let mut h = Harness::new();
    // The proxy turns repeating off; this call turns it back on with its own delay.
    let policy = proxy.with_override(&RepeatOverride {
        within_ms: Some(60_000),
        delay_ms: Some(250),
        jitter: None,
    });
    let call = h.rest_with(policy);
    h.end(call, 1, AttemptEnd::NetworkError);
    h.advance(250);
    h.end(call, 2, AttemptEnd::NetworkError);
    h.advance(500);
    assert_eq!(h.last_attempt(call), 3);
    let delays: Vec<u64> = h.retries(call).iter().map(retry_delay).collect();
    assert_eq!(delays, [250, 500]);
    // Another call of the same proxy without override does not repeat.
    let plain = h.rest_with(proxy.with_override(&RepeatOverride::default()));
    h.end(plain, 1, AttemptEnd::NetworkError);
    assert!(h.settled(plain).is_some());
    // An override that only turns repeating off.
    let off = h.rest_with(RepeatPolicy::default().with_override(&RepeatOverride {
        within_ms: Some(0),
        delay_ms: None,
        jitter: None,
    }));
    h.end(off, 1, AttemptEnd::NetworkError);
    assert!(h.settled(off).is_some());
}

// ----- deadlines beyond the clock's range -----

/// A deadline that would overflow the clock is no deadline: a saturated one would always be due, and
/// `handle_timeout` at the end of the clock's range would repeat the call for ever (issue 12).
#[test]
fn a_deadline_beyond_the_clock_is_never_and_handle_timeout_terminates() {
    let mut engine = viewsets_core::CallEngine::new();
    let near_end = u64::MAX - 10;
    let mut spec = viewsets_core::CallSpec::new(Transport::Rest);
    spec.attempt_timeout_ms = 30_000;
    spec.policy = RepeatPolicy {
        within_ms: 600_000,
        delay_ms: 1_000,
        jitter: 0,
    };
    let call = engine.issue(spec, near_end);
    assert_eq!(engine.poll_timeout(), None, "the attempt deadline overflows: none");
    engine.handle_timeout(u64::MAX);
    while engine.poll_action().is_some() {}
    // A repeat at once waits for nothing but sends; its deadline is again never.
    engine.attempt_ended(call, 1, AttemptEnd::AttemptTimeout, u64::MAX - 5);
    let mut sends = 0;
    while let Some(action) = engine.poll_action() {
        sends += usize::from(matches!(action, viewsets_core::Action::SendAttempt { .. }));
    }
    assert_eq!(sends, 1);
    assert_eq!(engine.poll_timeout(), None);
    engine.handle_timeout(u64::MAX);
    // A delayed repeat whose send time overflows is never sent: the call settles.
    engine.attempt_ended(call, 2, AttemptEnd::NetworkError, u64::MAX - 5);
    let mut settled = false;
    while let Some(action) = engine.poll_action() {
        settled |= matches!(action, viewsets_core::Action::Settle { .. });
    }
    assert!(settled);
    assert_eq!(engine.live_calls(), 0);
}

/// A muxws repeat waiting for its peer with a within deadline beyond the clock waits without a
/// timer, and goes out when the peer is back.
#[test]
fn a_reconnect_wait_with_a_within_beyond_the_clock_has_no_timer() {
    let mut engine = viewsets_core::CallEngine::new();
    let mut spec = viewsets_core::CallSpec::new(Transport::Muxws { peer: 7 });
    spec.attempt_timeout_ms = 0;
    spec.policy = RepeatPolicy {
        within_ms: u64::MAX,
        delay_ms: 0,
        jitter: 0,
    };
    let call = engine.issue(spec, 1_000);
    while engine.poll_action().is_some() {}
    engine.peer_available(7, false, 1_000);
    engine.attempt_ended(call, 1, AttemptEnd::ConnectionLost { closed_for_good: false }, 1_000);
    while engine.poll_action().is_some() {}
    assert_eq!(engine.poll_timeout(), None);
    engine.handle_timeout(u64::MAX);
    assert_eq!(engine.live_calls(), 1);
    engine.peer_available(7, true, 2_000);
    let mut sent = false;
    while let Some(action) = engine.poll_action() {
        sent |= matches!(action, viewsets_core::Action::SendAttempt { attempt: 2, .. });
    }
    assert!(sent);
}
