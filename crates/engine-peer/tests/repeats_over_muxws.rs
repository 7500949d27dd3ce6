//! Repeats of ViewSet calls over muxws, with the engine and the peer driven together: what the
//! Repeats table and the "A repeat over muxws waits for peer.onReconnect" rule do to real streams
//! on real (scripted) sockets.

mod common;

use common::{Pair, Sent, PEER};
use muxws_proto::{Event, OpenError, StreamRef};
use serde_json::json;
use viewsets_core::{Abandon, ActivityKind, AttemptEnd, Ended, Transport, WaitReason};

/// The seed's first repeat delay, with no jitter.
const DELAY_MS: u64 = 1_000;

/// The activity of a call that was repeated once and then answered with 200.
fn repeated_once_then_answered(
    ended: Ended,
    delay_ms: u64,
    waits_for_reconnect: bool,
) -> Vec<ActivityKind> {
    vec![
        ActivityKind::Start,
        ActivityKind::Retry {
            attempt: 1,
            ended,
            delay_ms,
            waits_for_reconnect,
        },
        ActivityKind::Settle {
            ok: true,
            attempts: 2,
            ended: Ended::Answered,
        },
    ]
}

#[test]
fn a_socket_lost_while_a_repeat_waits_holds_the_repeat_until_the_peer_reconnects() {
    let mut pair = Pair::connected();
    let old = pair.socket;
    let call = pair.issue(0);
    let first = pair.stream_of(call, 1);
    assert_eq!(first, StreamRef { socket: old, id: 1 });

    // The server refuses the stream: a repeat after the delay, once the peer is connected (it is).
    pair.server_sends(json!({"type": "reset", "stream": first.id, "code": 4}));
    assert_eq!(pair.reason_of(call), Some(WaitReason::Delay));
    let pending = pair.engine.pending_calls().next().unwrap();
    assert_eq!(pending.next_attempt_at, Some(DELAY_MS));
    assert!(pending.waiting_for_reconnect);

    // The socket is lost while the repeat waits: now it waits for the reconnect.
    pair.advance(100);
    pair.lose_socket();
    assert_eq!(pair.reason_of(call), Some(WaitReason::Reconnect));
    // The peer redials after its backoff; the server does not answer the dial yet.
    pair.advance(250);
    assert_eq!(pair.dialled.len(), 2);
    // The delay elapses: still nothing is sent, the repeat waits for the peer alone.
    pair.advance(DELAY_MS);
    assert_eq!(pair.now, 1_350);
    assert_eq!(pair.sent.len(), 1);
    assert_eq!(pair.reason_of(call), Some(WaitReason::Reconnect));
    assert_eq!(
        pair.engine.pending_calls().next().unwrap().next_attempt_at,
        None
    );

    // The new socket opens: the peer is re-established and the repeat goes out on it at once.
    pair.open_socket();
    let new = pair.socket;
    assert_ne!(new, old);
    assert!(pair
        .peer_events
        .contains(&Event::Reconnected { attempt: 1 }));
    assert_eq!(
        pair.sent[1],
        Sent {
            call,
            attempt: 2,
            carry: true,
            opened: Ok(StreamRef { socket: new, id: 1 }),
        }
    );
    assert_eq!(pair.abandoned, vec![(call, 1, Abandon::Superseded)]);
    // The same call on the wire: the repeat's open carries the first attempt's headers.
    let second = pair.stream_of(call, 2);
    let (open_1, open_2) = (pair.frames_of(first)[0], pair.frames_of(second)[0]);
    assert_eq!(open_2["type"], "open");
    assert_eq!(open_2["headers"], open_1["headers"]);
    assert_eq!(
        open_2["headers"]["idempotency-key"],
        format!("\"key-{call}\"")
    );

    pair.answer(second, 200, json!({"id": 7}));
    assert_eq!(
        pair.settled,
        vec![(call, 2, AttemptEnd::MuxwsReply { status: 200 })]
    );
    assert_eq!(
        pair.activity_of(call),
        repeated_once_then_answered(Ended::StreamRefused, DELAY_MS, true)
    );
    assert!(pair
        .activity
        .iter()
        .all(|e| e.transport == Transport::Muxws { peer: PEER }));
    assert_eq!(pair.engine.live_calls(), 0);
    assert_eq!(pair.engine.poll_timeout(), None);
}

#[test]
fn a_goaway_that_refuses_the_stream_repeats_the_call_on_the_next_socket() {
    let mut pair = Pair::connected();
    let old = pair.socket;
    let call = pair.issue(0);
    let first = pair.stream_of(call, 1);

    // The server goes away without taking our stream: the protocol fails it StreamRefused.
    pair.server_sends(json!({"type": "goaway", "code": 0, "last_stream": 0}));
    assert!(pair
        .peer_events
        .iter()
        .any(|e| matches!(e, Event::GoAway { last_stream: 0, .. })));
    assert_eq!(pair.reason_of(call), Some(WaitReason::Reconnect));
    // A call issued while the connection drains: its open() throws ConnectionGoingAway.
    let late = pair.issue(0);
    assert_eq!(pair.sent[1].opened, Err(OpenError::GoingAway));
    assert_eq!(pair.reason_of(late), Some(WaitReason::Reconnect));

    // The server closes; the peer redials after its backoff and is re-established before the
    // repeats' delay ends: they wait for the delay, then go out on the new socket.
    pair.server_closes(1000);
    pair.advance(250);
    pair.open_socket();
    let new = pair.socket;
    assert!(pair
        .peer_events
        .contains(&Event::Reconnected { attempt: 1 }));
    assert_eq!(pair.reason_of(call), Some(WaitReason::Delay));
    assert_eq!(pair.sent.len(), 2, "nothing is sent before the delay ends");
    pair.advance(DELAY_MS);
    let repeat = pair.stream_of(call, 2);
    let late_repeat = pair.stream_of(late, 2);
    assert_eq!(repeat, StreamRef { socket: new, id: 1 });
    assert_eq!(late_repeat, StreamRef { socket: new, id: 3 });
    assert_eq!(
        pair.frames_of(repeat)[0]["headers"],
        pair.frames_of(first)[0]["headers"]
    );
    // The late call's first open threw before its headers were kept: its repeat builds them anew.
    assert!(!pair.sent[3].carry);

    pair.answer(repeat, 200, json!({"ok": 1}));
    pair.answer(late_repeat, 200, json!({"ok": 2}));
    pair.advance(60_000);
    assert_eq!(
        pair.settled,
        vec![
            (call, 2, AttemptEnd::MuxwsReply { status: 200 }),
            (late, 2, AttemptEnd::MuxwsReply { status: 200 }),
        ]
    );
    assert_eq!(
        pair.activity_of(call),
        repeated_once_then_answered(Ended::StreamRefused, DELAY_MS, true)
    );
    assert_eq!(
        pair.activity_of(late),
        repeated_once_then_answered(Ended::GoingAway, DELAY_MS, true)
    );
    assert_eq!(pair.sent.len(), 4);
    assert!(pair
        .wire
        .iter()
        .all(|(socket, _)| *socket == old || *socket == new));
}

#[test]
fn a_goaway_that_keeps_the_stream_lets_it_finish_and_settle_without_a_repeat() {
    let mut pair = Pair::connected();
    let call = pair.issue(0);
    let first = pair.stream_of(call, 1);

    pair.server_sends(json!({"type": "goaway", "code": 0, "last_stream": first.id}));
    // In flight still: the goaway does not touch a stream it keeps.
    assert_eq!(pair.reason_of(call), Some(WaitReason::InFlight));
    pair.answer(first, 201, json!({"id": 1}));
    assert_eq!(
        pair.settled,
        vec![(call, 1, AttemptEnd::MuxwsReply { status: 201 })]
    );

    // The peer goes on to its next socket; the settled call sends nothing there.
    pair.server_closes(1000);
    pair.advance(250);
    pair.open_socket();
    pair.advance(60_000);
    assert_eq!(pair.sent.len(), 1);
    assert_eq!(
        pair.activity_of(call),
        vec![
            ActivityKind::Start,
            ActivityKind::Settle {
                ok: true,
                attempts: 1,
                ended: Ended::Answered,
            },
        ]
    );
}

#[test]
fn a_stream_timeout_is_repeated_at_once_on_the_same_peer() {
    let mut pair = Pair::connected();
    let socket = pair.socket;
    let call = pair.issue(5_000);
    let first = pair.stream_of(call, 1);

    pair.advance(4_999);
    assert_eq!(pair.sent.len(), 1);
    pair.advance(1);
    // The engine's deadline: the stream is reset with TIMEOUT, and the repeat goes out at once on
    // the same socket.
    assert_eq!(pair.abandoned, vec![(call, 1, Abandon::Timeout)]);
    let frames = pair.frames_of(first);
    assert_eq!(frames.len(), 2);
    assert_eq!(
        (&frames[1]["type"], &frames[1]["code"]),
        (&json!("reset"), &json!(6))
    );
    assert_eq!(
        pair.sent[1],
        Sent {
            call,
            attempt: 2,
            carry: true,
            opened: Ok(StreamRef { socket, id: 3 }),
        }
    );
    assert_eq!(pair.dialled.len(), 1, "the same peer, the same socket");

    let second = pair.stream_of(call, 2);
    pair.answer(second, 200, json!([]));
    assert_eq!(
        pair.settled,
        vec![(call, 2, AttemptEnd::MuxwsReply { status: 200 })]
    );
    assert_eq!(
        pair.activity_of(call),
        repeated_once_then_answered(Ended::StreamTimeout, 0, false)
    );
    assert_eq!(pair.engine.poll_timeout(), None);
}
