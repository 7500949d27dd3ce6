//! Calls and their attempts: only the last attempt settles, abandon-before-repeat, header carry-over,
//! the key across attempts, cancellation, muxws reconnect waits, `retry_now`, `pending_calls`, and
//! that settled calls leave nothing behind.

mod common;

use common::{Harness, Seen};
use viewsets_core::{
    Ended,
    Abandon, ActivityKind, AttemptEnd, CallId, RepeatPolicy, Transport,
};

// ----- only the last attempt settles -----

#[test]
fn a_late_answer_for_an_abandoned_attempt_is_ignored() {
    let mut h = Harness::new();
    let call = h.rest();
    h.advance(30_000); // attempt 1 times out, attempt 2 goes out
    assert_eq!(h.last_attempt(call), 2);
    h.end(
        call,
        1,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    assert_eq!(
        h.settled(call),
        None,
        "the abandoned attempt settled the call"
    );
    assert_eq!(h.last_attempt(call), 2);
    h.end(
        call,
        2,
        AttemptEnd::HttpAnswer {
            status: 201,
            json_detail: false,
        },
    );
    assert_eq!(
        h.settled(call),
        Some((
            2,
            AttemptEnd::HttpAnswer {
                status: 201,
                json_detail: false
            },
            h.now
        ))
    );
    let settle = h.events(call).last().unwrap().kind.clone();
    assert_eq!(
        settle,
        ActivityKind::Settle {
            ok: true,
            attempts: 2,
            ended: Ended::Answered
        }
    );
}

#[test]
fn reports_after_settling_or_twice_are_ignored() {
    let mut h = Harness::new();
    let call = h.rest();
    h.end(call, 1, AttemptEnd::NetworkError);
    h.end(
        call,
        1,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    ); // already ended
    assert_eq!(h.settled(call), None);
    assert_eq!(h.retries(call).len(), 1);
    h.advance(1_000);
    h.end(
        call,
        3,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    ); // not sent yet
    assert_eq!(h.settled(call), None);
    h.end(
        call,
        2,
        AttemptEnd::HttpAnswer {
            status: 404,
            json_detail: true,
        },
    );
    h.end(
        call,
        2,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    assert_eq!(
        h.settled(call).unwrap().1,
        AttemptEnd::HttpAnswer {
            status: 404,
            json_detail: true
        }
    );
    h.engine.headers_captured(call, 2);
    h.cancel(call);
    h.advance(100_000);
    assert_eq!(h.engine.queued_actions(), 0);
    assert_eq!(h.engine.live_calls(), 0);
    // Unknown calls too.
    h.end(999, 1, AttemptEnd::NetworkError);
    h.cancel(999);
    assert!(h.seen.iter().all(|s| !matches!(
        s,
        Seen::Send { call: 999, .. } | Seen::Settle { call: 999, .. }
    )));
}

#[test]
fn abandon_precedes_every_next_send() {
    let mut h = Harness::new();
    let call = h.muxws(4);
    h.advance(30_000); // stream timeout -> 2 at once
    h.end(
        call,
        2,
        AttemptEnd::StreamRefused {
            closed_for_good: false,
        },
    ); // -> 3 after 1000
    h.advance(1_000);
    h.end(
        call,
        3,
        AttemptEnd::OpenGoingAway {
            closed_for_good: false,
        },
    ); // -> 4 after 2000
    h.advance(2_000);
    h.end(call, 4, AttemptEnd::MuxwsReply { status: 200 });
    let ours: Vec<&Seen> = h
        .seen
        .iter()
        .filter(|s| matches!(s, Seen::Send { call: c, .. } | Seen::Abandon { call: c, .. } if *c == call))
        .collect();
    let shape: Vec<String> = ours
        .iter()
        .map(|s| match s {
            Seen::Send { attempt, .. } => format!("send {attempt}"),
            Seen::Abandon { attempt, why, .. } => format!("abandon {attempt} {why:?}"),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "send 1",
            "abandon 1 Timeout",
            "send 2",
            "abandon 2 Superseded",
            "send 3",
            "abandon 3 Superseded",
            "send 4"
        ]
    );
    // And the abandon comes immediately before the send it makes room for.
    for (index, seen) in h.seen.iter().enumerate() {
        if let Seen::Send {
            call: c, attempt, ..
        } = seen
        {
            if *c == call && *attempt > 1 {
                let previous = h.seen[..index]
                    .iter()
                    .rev()
                    .find(|s| !matches!(s, Seen::Event(_)))
                    .unwrap();
                assert!(
                    matches!(previous, Seen::Abandon { call: p, attempt: a, .. } if *p == call && *a == attempt - 1),
                    "{previous:?} before send {attempt}"
                );
            }
        }
    }
}

// ----- headers and key -----

#[test]
fn repeats_carry_the_first_headers_once_they_are_known() {
    let mut h = Harness::new();
    let call = h.rest();
    h.headers(call, 1);
    h.end(call, 1, AttemptEnd::NetworkError);
    h.advance(1_000);
    // A later report (from the repeat) changes nothing.
    h.headers(call, 2);
    h.end(call, 2, AttemptEnd::NetworkError);
    h.advance(2_000);
    assert_eq!(h.carried(call), vec![false, true, true]);
}

#[test]
fn an_attempt_that_failed_before_it_had_headers_carries_none() {
    let mut h = Harness::new();
    let call = h.muxws(1);
    h.end(
        call,
        1,
        AttemptEnd::OpenConnectionClosed {
            closed_for_good: false,
        },
    );
    h.advance(1_000);
    assert_eq!(h.carried(call), vec![false, false]);
    h.headers(call, 2);
    h.advance(30_000); // stream timeout -> attempt 3 at once
    assert_eq!(h.carried(call), vec![false, false, true]);
}

#[test]
fn headers_reported_for_an_attempt_not_sent_or_a_settled_call_are_ignored() {
    let mut h = Harness::new();
    let call = h.rest();
    h.headers(call, 0);
    h.headers(call, 2);
    h.end(call, 1, AttemptEnd::NetworkError);
    h.advance(1_000);
    assert_eq!(h.carried(call), vec![false, false]);
    h.end(
        call,
        2,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    h.headers(call, 2);
    h.headers(4242, 1);
    assert_eq!(h.engine.live_calls(), 0);
}

// ----- cancel -----

#[test]
fn cancel_abandons_the_attempt_in_flight_and_settles() {
    let mut h = Harness::new();
    let call = h.rest();
    h.advance(5);
    h.cancel(call);
    assert_eq!(h.abandons(call), vec![(1, Abandon::Cancelled)]);
    assert_eq!(h.settled(call), Some((1, AttemptEnd::Cancelled, h.now)));
    let settle = h.events(call).last().unwrap().kind.clone();
    assert_eq!(
        settle,
        ActivityKind::Settle {
            ok: false,
            attempts: 1,
            ended: Ended::Cancelled
        }
    );
    h.end(
        call,
        1,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    assert_eq!(h.engine.live_calls(), 0);
    assert_eq!(h.engine.scheduled_timers(), 0);
}

#[test]
fn cancel_while_a_repeat_waits_settles_without_abandon() {
    let mut h = Harness::new();
    let call = h.muxws(2);
    h.peer_available(2, false);
    h.end(
        call,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.cancel(call);
    assert!(h.abandons(call).is_empty());
    assert_eq!(h.settled(call), Some((1, AttemptEnd::Cancelled, h.now)));
    h.peer_available(2, true);
    h.advance(700_000);
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.engine.scheduled_timers(), 0);
}

// ----- muxws reconnect waits -----

#[test]
fn retry_now_cuts_a_30_second_backoff_short() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 600_000,
        delay_ms: 30_000,
        jitter: 0,
    });
    h.end(call, 1, AttemptEnd::NetworkError);
    assert_eq!(h.engine.poll_timeout(), Some(t0 + 30_000));
    h.advance(5_000);
    assert_eq!(
        h.pending()[0].next_attempt_at,
        Some(t0 + 30_000)
    );
    h.retry_now();
    assert_eq!(h.sends(call), vec![(1, t0), (2, t0 + 5_000)]);
    assert_eq!(h.abandons(call), vec![(1, Abandon::Superseded)]);
    assert_eq!(
        h.retries(call).len(),
        1,
        "retry_now emits no second retry event"
    );
    assert_eq!(
        h.engine.poll_timeout(),
        Some(t0 + 5_000 + 30_000),
        "the new attempt's deadline"
    );
    let pending = &h.pending()[0];
    assert_eq!(
        (pending.next_attempt_at, pending.unanswered_attempts),
        (None, 1)
    );
    // Nothing else goes out when the old backoff would have ended.
    h.advance(25_000);
    assert_eq!(h.sends(call).len(), 2);
    // retry_now leaves attempts in flight alone.
    h.retry_now();
    assert_eq!(h.sends(call).len(), 2);
    assert!(h.reconnects().is_empty());
}

#[test]
fn retry_now_asks_each_waited_for_peer_to_reconnect_once() {
    let mut h = Harness::new();
    let a = h.muxws(7);
    let b = h.muxws(7);
    let c = h.muxws(8);
    let rest = h.rest();
    h.peer_available(7, false);
    h.peer_available(8, false);
    for call in [a, b, c] {
        h.end(
            call,
            1,
            AttemptEnd::ConnectionLost {
                closed_for_good: false,
            },
        );
    }
    h.end(rest, 1, AttemptEnd::NetworkError);
    h.advance(100);
    h.retry_now();
    assert_eq!(h.reconnects(), vec![7, 8]);
    assert_eq!(h.sends(rest).len(), 2, "the REST repeat goes out at once");
    for call in [a, b, c] {
        assert_eq!(h.sends(call).len(), 1, "sent before the peer reconnected");
    }
    let pending = h.pending();
    for p in pending.iter().filter(|p| p.call != rest) {
        assert!(p.waiting_for_reconnect);
        assert_eq!(p.next_attempt_at, None, "the delay counts as elapsed");
    }
    // The delay counts as elapsed: the peer's reconnect sends them at once.
    h.peer_available(7, true);
    assert_eq!(h.sends(a), vec![(1, h.now - 100), (2, h.now)]);
    assert_eq!(h.sends(b).len(), 2);
    assert_eq!(h.sends(c).len(), 1);
    h.peer_available(8, true);
    assert_eq!(h.sends(c).len(), 2);
}

#[test]
fn retry_now_sends_a_reconnect_wait_at_once_when_the_peer_is_already_back() {
    let mut h = Harness::new();
    let call = h.muxws(7);
    h.peer_available(7, false);
    h.end(
        call,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.peer_available(7, true);
    h.retry_now();
    assert_eq!(h.sends(call).len(), 2);
    assert!(h.reconnects().is_empty());
}

#[test]
fn a_peer_closed_for_good_ends_the_wait_and_the_call_rejects_with_connection_closed() {
    let mut h = Harness::new();
    let t0 = h.now;
    let waiting_for_delay = h.muxws(5);
    let waiting_for_peer = h.muxws(5);
    let other_peer = h.muxws(6);
    h.peer_available(5, false);
    h.peer_available(6, false);
    h.end(
        waiting_for_peer,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.advance(1_500); // its delay elapsed, it waits for the peer only
    h.end(
        waiting_for_delay,
        1,
        AttemptEnd::StreamRefused {
            closed_for_good: false,
        },
    );
    h.end(
        other_peer,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.peer_closed_for_good(5);
    assert_eq!(h.sends(waiting_for_peer), vec![(1, t0), (2, t0 + 1_500)]);
    assert_eq!(h.sends(waiting_for_delay), vec![(1, t0), (2, t0 + 1_500)]);
    assert_eq!(h.sends(other_peer).len(), 1);
    // Their open() throws ConnectionClosed for a peer closed for good: they settle with it.
    for call in [waiting_for_peer, waiting_for_delay] {
        let end = AttemptEnd::OpenConnectionClosed {
            closed_for_good: true,
        };
        h.end(call, 2, end.clone());
        assert_eq!(h.settled(call), Some((2, end, t0 + 1_500)));
        let settle = h.events(call).last().unwrap().kind.clone();
        assert_eq!(
            settle,
            ActivityKind::Settle {
                ok: false,
                attempts: 2,
                ended: Ended::ConnectionClosed
            }
        );
    }
    // A late connection failure on the closed peer does not wait either.
    let late = h.muxws(5);
    h.end(
        late,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    assert_eq!(h.sends(late).len(), 2);
    assert_eq!(
        h.retries(late),
        vec![ActivityKind::Retry {
            attempt: 1,
            ended: Ended::ConnectionLost,
            delay_ms: 0,
            waits_for_reconnect: false
        }]
    );
}

#[test]
fn the_within_deadline_ends_a_reconnect_wait() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.muxws_spec(9);
    spec.policy.within_ms = 10_000;
    let call = h.issue(spec);
    h.advance(2_000);
    h.peer_available(9, false);
    h.end(
        call,
        1,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.advance(1_000);
    let pending = &h.pending()[0];
    assert!(pending.waiting_for_reconnect);
    assert_eq!(pending.next_attempt_at, None);
    assert_eq!(h.engine.poll_timeout(), Some(t0 + 10_000));
    h.advance(6_999);
    assert_eq!(h.settled(call), None);
    h.advance(1);
    assert_eq!(
        h.settled(call),
        Some((
            1,
            AttemptEnd::ConnectionLost {
                closed_for_good: false
            },
            t0 + 10_000
        ))
    );
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(h.engine.live_calls(), 0);
    assert_eq!(h.engine.scheduled_timers(), 0);
    h.peer_available(9, true);
    assert_eq!(h.sends(call).len(), 1);
}

#[test]
fn a_late_wakeup_past_the_within_deadline_settles_instead_of_sending() {
    let mut h = Harness::new();
    let t0 = h.now;
    let call = h.rest_with(RepeatPolicy {
        within_ms: 1_500,
        delay_ms: 1_000,
        jitter: 0,
    });
    h.end(call, 1, AttemptEnd::NetworkError);
    // A throttled driver wakes the engine only at t0+2000.
    h.now = t0 + 2_000;
    h.engine.handle_timeout(h.now);
    h.drain();
    assert_eq!(h.sends(call).len(), 1);
    assert_eq!(
        h.settled(call),
        Some((1, AttemptEnd::NetworkError, t0 + 2_000))
    );
}

// ----- pending calls -----

#[test]
fn pending_calls_are_listed_oldest_first_and_counted_without_background() {
    let mut h = Harness::new();
    let t0 = h.now;
    let a = h.rest();
    h.advance(10);
    let mut spec = h.rest_spec();
    spec.background = true;
    let schema = h.issue(spec);
    h.advance(10);
    let c = h.muxws(3);
    assert_eq!(h.engine.pending_call_count(), 2);
    let pending = h.pending();
    assert_eq!(
        pending.iter().map(|p| p.call).collect::<Vec<CallId>>(),
        vec![a, schema, c]
    );
    assert_eq!(
        pending.iter().map(|p| p.issued_at).collect::<Vec<_>>(),
        vec![t0, t0 + 10, t0 + 20]
    );
    assert_eq!(
        pending.iter().map(|p| p.background).collect::<Vec<_>>(),
        vec![false, true, false]
    );
    assert_eq!(pending[2].transport, Transport::Muxws { peer: 3 });
    assert!(pending
        .iter()
        .all(|p| p.unanswered_attempts == 0 && p.next_attempt_at.is_none()));

    h.end(a, 1, AttemptEnd::NetworkError);
    let pending = h.pending();
    assert_eq!(pending[0].unanswered_attempts, 1);
    assert_eq!(pending[0].next_attempt_at, Some(h.now + 1_000));
    assert!(!pending[0].waiting_for_reconnect);
    h.advance(1_000);
    let pending = h.pending();
    assert_eq!(
        (pending[0].unanswered_attempts, pending[0].next_attempt_at),
        (1, None)
    );

    h.end(
        schema,
        1,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    assert_eq!(h.engine.pending_call_count(), 2);
    h.end(
        a,
        2,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    assert_eq!(h.engine.pending_call_count(), 1);
    assert_eq!(
        h.engine
            .pending_calls()
            .map(|p| p.call)
            .collect::<Vec<_>>(),
        vec![c]
    );
    h.cancel(c);
    assert_eq!(h.engine.pending_call_count(), 0);
    assert!(h.pending().is_empty());
}

// ----- no leaks -----

#[test]
fn settled_calls_leave_nothing_behind() {
    let mut h = Harness::new();
    let mut calls = Vec::new();
    for i in 0..1_000u64 {
        let call = match i % 5 {
            0 => h.rest(),
            1 => h.muxws(i % 3),
            2 => {
                let mut spec = h.rest_spec();
                spec.background = true;
                h.issue(spec)
            }
            3 => h.muxws(7),
            _ => h.rest_with(RepeatPolicy {
                within_ms: 5_000,
                delay_ms: 700,
                jitter: 0,
            }),
        };
        calls.push(call);
    }
    h.peer_available(7, false);
    for (i, call) in calls.iter().enumerate() {
        match i % 5 {
            0 => h.end(*call, 1, AttemptEnd::NetworkError),
            1 => h.cancel(*call),
            2 => h.end(
                *call,
                1,
                AttemptEnd::HttpAnswer {
                    status: 200,
                    json_detail: false,
                },
            ),
            3 => h.end(
                *call,
                1,
                AttemptEnd::ConnectionLost {
                    closed_for_good: false,
                },
            ),
            _ => {}
        }
    }
    h.advance(500);
    h.retry_now();
    assert!(h.engine.scheduled_timers() > 0);
    // Everything in flight fails for good or is answered; the reconnect waits run into withinMs.
    for call in &calls {
        let attempt = h.last_attempt(*call);
        h.end(*call, attempt, AttemptEnd::OtherError);
    }
    h.advance(700_000);
    for call in &calls {
        assert!(h.settled(*call).is_some(), "call {call} did not settle");
    }
    assert_eq!(h.engine.live_calls(), 0);
    assert_eq!(h.engine.scheduled_timers(), 0);
    assert_eq!(h.engine.pending_call_count(), 0);
    assert_eq!(h.engine.poll_timeout(), None);
    assert_eq!(h.engine.queued_actions(), 0);
    assert!(h.pending().is_empty());
}
