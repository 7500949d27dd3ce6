//! Call activity: the order and content of events.

mod common;

use common::Harness;
use viewsets_core::{
    Ended,ActivityKind, AttemptEnd, Transport};

#[test]
fn events_of_a_call_go_start_retries_settle() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.muxws_spec(2);
    spec.background = true;
    let call = h.issue(spec);
    let other = h.rest();
    h.advance(30_000); // both time out: stream timeout (at once) and REST timeout (at once)
    h.peer_available(2, false);
    h.end(
        call,
        2,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.end(
        other,
        2,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    h.advance(1_000);
    h.peer_available(2, true);
    h.end(call, 3, AttemptEnd::MuxwsReply { status: 409 });

    let events = h.events(call);
    let kinds: Vec<ActivityKind> = events.iter().map(|e| e.kind.clone()).collect();
    assert_eq!(
        kinds,
        vec![
            ActivityKind::Start,
            ActivityKind::Retry {
                attempt: 1,
                ended: Ended::StreamTimeout,
                delay_ms: 0,
                waits_for_reconnect: false
            },
            ActivityKind::Retry {
                attempt: 2,
                ended: Ended::ConnectionLost,
                delay_ms: 1_000,
                waits_for_reconnect: true
            },
            ActivityKind::Settle {
                ok: false,
                attempts: 3,
                ended: Ended::Answered
            },
        ]
    );
    assert_eq!(
        events
            .iter()
            .map(|e| e.kind.type_name())
            .collect::<Vec<_>>(),
        ["start", "retry", "retry", "settle"]
    );
    assert_eq!(
        events.iter().map(|e| e.at).collect::<Vec<_>>(),
        [t0, t0 + 30_000, t0 + 30_000, t0 + 31_000]
    );
    for event in &events {
        assert_eq!(event.call, call);
        assert_eq!(event.transport, Transport::Muxws { peer: 2 });
        assert!(event.background);
    }
    let other_kinds: Vec<&'static str> =
        h.events(other).iter().map(|e| e.kind.type_name()).collect();
    assert_eq!(other_kinds, ["start", "retry", "settle"]);
    assert!(h
        .events(other)
        .iter()
        .all(|e| !e.background && e.call == other));
}

#[test]
fn start_precedes_the_first_send_and_settle_follows_the_settle_action() {
    let mut h = Harness::new();
    let call = h.rest();
    h.end(
        call,
        1,
        AttemptEnd::HttpAnswer {
            status: 204,
            json_detail: false,
        },
    );
    let shape: Vec<String> = h
        .seen
        .iter()
        .map(|s| match s {
            common::Seen::Event(e) => e.kind.type_name().to_owned(),
            common::Seen::Send { .. } => "send".to_owned(),
            common::Seen::Settle { .. } => "settle-action".to_owned(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(shape, ["start", "send", "settle-action", "settle"]);
    let last = h.events(call).pop().unwrap();
    assert_eq!(
        last.kind,
        ActivityKind::Settle {
            ok: true,
            attempts: 1,
            ended: Ended::Answered
        }
    );
}
