//! One socket's dialer behaviour, end to end through the `Peer` (so the writer and dispatch are
//! exercised as wired): the dialer-side mirror of the nine `conformance/invalid/` cases, the
//! reply-side variants a viewset client meets, the applicable `sequences` cases, every state-table
//! cell a dialer can reach, heartbeat, goaway and close.

mod common;

use common::*;
use muxws_proto::*;
use serde_json::{json, Value};

fn assert_survives(h: &Harness) {
    assert!(h.is_alive(), "the connection must survive");
    assert!(h.closes().is_empty(), "no close reported");
}

/// A connection-level error: `goaway(3)` goes out, then the socket is closed (4002), every live
/// stream has failed `ConnectionLost` before the single `Closed` report.
fn assert_connection_died(h: &mut Harness) {
    let wire = h.take_wire();
    let goaway = wire
        .iter()
        .position(|w| matches!(w, Wire::Sent(_, v) if v["type"] == "goaway" && v["code"] == 3))
        .unwrap_or_else(|| panic!("no goaway(3) in {wire:#?}"));
    let close = wire
        .iter()
        .position(|w| matches!(w, Wire::Close(_, CLOSE_PROTOCOL_ERROR, _)))
        .unwrap_or_else(|| panic!("no close in {wire:#?}"));
    assert!(goaway < close, "goaway before the close");
    let closes = h.closes();
    assert_eq!(closes.len(), 1);
    assert_eq!(closes[0].code, CLOSE_PROTOCOL_ERROR);
    assert!(closes[0].will_retry);
    assert!(!h.peer.is_open());
    let closed_at = h
        .events
        .iter()
        .position(|e| matches!(e, Event::Closed(_)))
        .unwrap();
    assert!(h.events[closed_at + 1..].iter().all(|e| !matches!(
        e,
        Event::Stream {
            event: StreamEvent::Failed(_),
            ..
        }
    )));
}

fn sent_only(h: &mut Harness, patterns: &[Value]) {
    let sent = h.take_sent();
    assert_ordered_subset(&sent, patterns);
    assert_eq!(
        sent.len(),
        patterns.len(),
        "exactly {patterns:?}, got {sent:#?}"
    );
}

fn push(h: &mut Harness, stream: u64) -> StreamRef {
    let id = stream;
    h.recv(json!({"type": "open", "stream": id, "payload": {"sub": id}}));
    StreamRef {
        socket: h.socket,
        id,
    }
}

fn with_cap(cap: usize) -> PeerOptions {
    let mut options = quiet_options();
    options.connection.max_frame_bytes = cap;
    options
}

// ======================================================================= invalid/, mirrored

#[test]
fn invalid_open_wrong_parity() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "open", "stream": 1, "payload": {"a": 1}, "end": true}));
    assert_connection_died(&mut h);
}

#[test]
fn invalid_open_id_not_monotonic() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "open", "stream": 6, "payload": {"a": 1}}));
    h.recv(json!({"type": "open", "stream": 4, "payload": {"a": 1}, "end": true}));
    assert_connection_died(&mut h);
    // The push that was live fails ConnectionLost before the close is reported.
    let lost = StreamRef {
        socket: h.socket,
        id: 6,
    };
    assert_eq!(
        h.stream_events(lost),
        vec![StreamEvent::Failed(StreamError::ConnectionLost)]
    );
}

#[test]
fn invalid_data_after_end() {
    let mut h = Harness::default_connected();
    let s = push(&mut h, 2);
    h.recv(json!({"type": "data", "stream": 2, "payload": {"chunk": 1}, "end": true}));
    h.recv(json!({"type": "data", "stream": 2, "payload": {"chunk": 2}}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 2, "code": 3})]);
    assert_survives(&h);
    let events = h.stream_events(s);
    assert!(matches!(
        events.last(),
        Some(StreamEvent::Failed(StreamError::LocalReset { code: 3, .. }))
    ));
}

#[test]
fn invalid_frame_over_max_frame_bytes() {
    let mut h = Harness::connected(with_cap(256));
    // Canonical key order (`type`, `stream` first), as the fixture's encoder writes it.
    h.recv_raw(&format!(
        r#"{{"type":"open","stream":2,"end":true,"payload":{{"blob":"{}"}}}}"#,
        "x".repeat(1000)
    ));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 2, "code": 7})]);
    assert_survives(&h);
    assert!(
        h.events
            .iter()
            .all(|e| !matches!(e, Event::Incoming { .. })),
        "the handler never runs"
    );
}

#[test]
fn invalid_undecodable_message() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"q": 1}), true);
    h.take_wire();
    h.recv_raw("{this is not json");
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::ConnectionLost)]
    );
    assert_connection_died(&mut h);
}

#[test]
fn invalid_fragment_interrupted_by_non_fragment() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "open", "stream": 2, "fragment": "{\"body\":\"aaa", "more": true}));
    h.recv(json!({"type": "data", "stream": 2, "payload": {"surprise": true}}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 2, "code": 3})]);
    assert_survives(&h);
}

#[test]
fn invalid_data_above_high_water_mark() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "open", "stream": 2, "payload": {"a": 1}, "end": true}));
    h.recv(json!({"type": "data", "stream": 10, "payload": {"chunk": 1}}));
    assert_connection_died(&mut h);
}

#[test]
fn invalid_open_fragment_for_a_live_push_that_is_not_being_reassembled() {
    // Stream 2 is live with its open delivered: a fragment of an `open` for it continues nothing
    // and is not above the remote's highest open, so it is connection-level (WSM-SID-005).
    let mut h = Harness::default_connected();
    let pushed = push(&mut h, 2);
    let s = h.open(json!({"q": 1}), false);
    h.take_wire();
    h.recv(json!({"type": "open", "stream": 2, "fragment": "[1]"}));
    for stream in [pushed, s] {
        assert_eq!(
            h.stream_events(stream),
            vec![StreamEvent::Failed(StreamError::ConnectionLost)]
        );
    }
    assert_connection_died(&mut h);
}

#[test]
fn invalid_data_for_closed_id() {
    let mut h = Harness::default_connected();
    let s = push(&mut h, 2);
    h.recv(json!({"type": "reset", "stream": 2, "code": 1}));
    h.recv(json!({"type": "data", "stream": 2, "payload": {"chunk": 1}}));
    sent_only(&mut h, &[]);
    assert_survives(&h);
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::RemoteReset {
            code: 1,
            reason: None,
            payload: Payload::Absent
        })]
    );
    assert_eq!(h.peer.connection().unwrap().ignored_frames(), 1);
}

#[test]
fn invalid_headers_on_a_later_frame() {
    let mut h = Harness::default_connected();
    push(&mut h, 2);
    h.recv(json!({"type": "data", "stream": 2, "payload": {"chunk": 1}}));
    h.recv(json!({"type": "data", "stream": 2, "headers": {"content-type": "text/csv"}, "payload": {"chunk": 2}}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 2, "code": 3})]);
    assert_survives(&h);
}

// ======================================================================= reply-side variants

#[test]
fn reply_data_after_the_reply_end_resets_the_stream() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"upload": true}), false);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "payload": {"ok": 1}, "end": true}));
    assert_eq!(h.peer.stream_state(s), Some(StreamState::HalfClosedRemote));
    h.recv(json!({"type": "data", "stream": 1, "payload": {"ok": 2}}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 3})]);
    assert_survives(&h);
}

#[test]
fn reply_after_a_unary_stream_closed_is_a_late_frame() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "payload": {"ok": 1}, "end": true}));
    assert_eq!(h.stream_events(s).last(), Some(&StreamEvent::Closed));
    h.recv(json!({"type": "data", "stream": 1, "payload": {"ok": 2}, "end": true}));
    h.recv(json!({"type": "reset", "stream": 1, "code": 8}));
    sent_only(&mut h, &[]);
    assert_survives(&h);
}

#[test]
fn headers_on_a_second_reply_frame_reset_the_stream() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "headers": {":status": 200}}));
    h.recv(json!({"type": "data", "stream": 1, "headers": {":status": 500}, "payload": 1}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 3})]);
    let events = h.stream_events(s);
    assert_eq!(
        events[0],
        StreamEvent::ReplyHeaders(headers_of(&json!({":status": 200})))
    );
    assert!(matches!(
        events[1],
        StreamEvent::Failed(StreamError::LocalReset { code: 3, .. })
    ));
    assert_eq!(events.len(), 2);
    assert_survives(&h);
}

#[test]
fn a_whole_frame_in_the_middle_of_a_fragmented_reply_resets_the_stream() {
    let mut h = Harness::default_connected();
    h.open(json!({}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "fragment": "[1,2,", "more": true}));
    h.recv(json!({"type": "data", "stream": 1, "payload": [3]}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 3})]);
    assert_survives(&h);
}

#[test]
fn an_over_cap_reply_is_reset_payload_too_large() {
    let mut h = Harness::connected(with_cap(256));
    let s = h.open(json!({}), true);
    h.take_wire();
    h.recv_raw(&format!(
        r#"{{"type":"data","stream":1,"end":true,"payload":"{}"}}"#,
        "z".repeat(300)
    ));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 7})]);
    assert!(matches!(
        h.stream_events(s).last(),
        Some(StreamEvent::Failed(StreamError::LocalReset { code: 7, .. }))
    ));
    assert_survives(&h);
}

#[test]
fn a_reply_over_max_payload_bytes_is_reset_on_the_crossing_fragment() {
    let mut options = quiet_options();
    options.connection.max_payload_bytes = 20;
    let mut h = Harness::connected(options);
    h.open(json!({}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "fragment": "[\"aaaaa\",", "more": true}));
    h.recv(json!({"type": "data", "stream": 1, "fragment": "\"bbbbb\",", "more": true}));
    sent_only(&mut h, &[]);
    h.recv(json!({"type": "data", "stream": 1, "fragment": "\"ccccc\",", "more": true}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 7})]);
    // The final fragment arrives after the reset: a late frame.
    h.recv(json!({"type": "data", "stream": 1, "fragment": "1]", "end": true}));
    sent_only(&mut h, &[]);
    assert_survives(&h);
}

#[test]
fn an_undecodable_reassembled_reply_is_a_stream_error() {
    let mut h = Harness::default_connected();
    h.open(json!({}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "fragment": "{\"a\":", "more": true}));
    h.recv(json!({"type": "data", "stream": 1, "fragment": "}", "end": true}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 3})]);
    assert_survives(&h);
}

#[test]
fn late_frames_after_a_timeout_are_ignored() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"slow": true}), true);
    assert!(h.peer.timeout(s));
    h.flush();
    sent_only(
        &mut h,
        &[
            json!({"type": "open", "stream": 1}),
            json!({"type": "reset", "stream": 1, "code": 6}),
        ],
    );
    h.recv(json!({"type": "data", "stream": 1, "headers": {":status": 200}, "payload": {}}));
    h.recv(json!({"type": "data", "stream": 1, "end": true}));
    h.recv(json!({"type": "reset", "stream": 1, "code": 4}));
    sent_only(&mut h, &[]);
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::LocalReset {
            code: 6,
            reason: Some("deadline exceeded".into())
        })]
    );
    assert_eq!(h.peer.connection().unwrap().ignored_frames(), 3);
    assert!(!h.peer.timeout(s), "a second timeout is a no-op");
    assert_survives(&h);
}

#[test]
fn data_on_an_odd_id_above_the_highest_local_open_kills_the_connection() {
    let mut h = Harness::default_connected();
    h.open(json!({}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 3, "payload": 1}));
    assert_connection_died(&mut h);
}

#[test]
fn a_reset_on_an_id_above_the_high_water_mark_kills_the_connection() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "reset", "stream": 2, "code": 1}));
    assert_connection_died(&mut h);
}

#[test]
fn reply_headers_arrive_with_the_first_fragment() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.recv(json!({"type": "data", "stream": 1, "headers": {":status": 200}, "fragment": "{\"rows\":[", "more": true}));
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::ReplyHeaders(headers_of(
            &json!({":status": 200})
        ))]
    );
    h.recv(json!({"type": "data", "stream": 1, "fragment": "1,2]}", "end": true, "trailers": {"n": 2}}));
    let events = h.stream_events(s);
    assert_eq!(payload_value(&events[1]), Some(json!({"rows": [1, 2]})));
    assert_eq!(
        events[2],
        StreamEvent::End {
            trailers: Some(headers_of(&json!({"n": 2})))
        }
    );
    assert_eq!(events[3], StreamEvent::Closed);
}

#[test]
fn a_reset_is_not_an_answer_and_carries_no_reply_headers() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.recv(json!({"type": "reset", "stream": 1, "code": 5, "reason": "retired code"}));
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::RemoteReset {
            code: 5,
            reason: Some("retired code".into()),
            payload: Payload::Absent
        })]
    );
    // An unknown code resets only that stream.
    assert_survives(&h);
    assert_eq!(
        StreamError::RemoteReset {
            code: 42,
            reason: None,
            payload: Payload::Absent
        }
        .class_name(),
        "StreamReset"
    );
}

// ======================================================================= sequences/

#[test]
fn answering_side_announces_headers_before_any_payload() {
    let mut h = Harness::default_connected();
    let s = h.open_with(json!({"trace": "abc123"}), json!({"q": "export"}), true);
    sent_only(
        &mut h,
        &[
            json!({"type": "open", "stream": 1, "end": true, "headers": {"trace": "abc123"}, "payload": {"q": "export"}}),
        ],
    );
    h.recv(json!({"type": "data", "stream": 1, "headers": {"content-type": "text/csv", "rows-estimated": 3}}));
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::ReplyHeaders(headers_of(
            &json!({"content-type": "text/csv", "rows-estimated": 3})
        ))],
        "headers surface before any row, and no payload is delivered for the headers frame"
    );
    h.recv(json!({"type": "data", "stream": 1, "payload": {"row": 1}}));
    h.recv(json!({"type": "data", "stream": 1, "payload": {"row": 2}, "end": true}));
    let rows: Vec<Value> = h
        .stream_events(s)
        .iter()
        .filter_map(payload_value)
        .collect();
    assert_eq!(rows, vec![json!({"row": 1}), json!({"row": 2})]);
    assert_eq!(h.stream_events(s).last(), Some(&StreamEvent::Closed));
    sent_only(&mut h, &[]);
}

#[test]
fn timeout_sends_reset_timeout_not_cancelled() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"action": "slow"}), true);
    h.now += 50;
    h.peer.timeout(s);
    h.flush();
    let sent = h.take_sent();
    assert_ordered_subset(
        &sent,
        &[
            json!({"type": "open", "stream": 1}),
            json!({"type": "reset", "stream": 1, "code": 6}),
        ],
    );
    assert!(!sent
        .iter()
        .any(|f| matches(f, &json!({"type": "reset", "code": 1}))));
    let error = match h.stream_events(s).pop() {
        Some(StreamEvent::Failed(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!((error.class_name(), error.code()), ("StreamTimeout", 6));
}

#[test]
fn unknown_envelope_field_is_ignored() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"q": "stream me"}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "payload": {"row": 1}, "colour": "red"}));
    h.recv(json!({"type": "data", "stream": 1, "end": true, "colour": "red"}));
    let events = h.stream_events(s);
    assert_eq!(payload_value(&events[1]), Some(json!({"row": 1})));
    assert_eq!(
        events[2..],
        [StreamEvent::End { trailers: None }, StreamEvent::Closed]
    );
    sent_only(&mut h, &[]);
    assert_survives(&h);
}

#[test]
fn unknown_frame_type_is_ignored() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "widget", "spin": "clockwise"}));
    h.recv(json!({"type": "window_update", "stream": 99, "increment": 5}));
    sent_only(&mut h, &[]);
    assert_eq!(h.peer.connection().unwrap().unknown_frames(), 2);
    let s = h.open(json!({"action": "still here"}), true);
    h.take_wire();
    h.recv(json!({"type": "data", "stream": 1, "payload": {"ok": true}, "end": true}));
    assert_eq!(h.stream_events(s).last(), Some(&StreamEvent::Closed));
    assert_survives(&h);
}

#[test]
fn concurrency_limit_rejection_is_stream_refused() {
    let mut h = Harness::default_connected();
    let first = h.open(json!({"q": "the first"}), false);
    let beyond = h.open(json!({"q": "one too many"}), false); // never refused locally
    h.take_wire();
    h.recv(
        json!({"type": "reset", "stream": 3, "code": 4, "reason": "too many streams in flight"}),
    );
    let error = match h.stream_events(beyond).pop() {
        Some(StreamEvent::Failed(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!((error.class_name(), error.code()), ("StreamRefused", 4));
    h.recv(json!({"type": "data", "stream": 1, "payload": {"still": "working"}, "end": true}));
    assert_eq!(
        payload_value(&h.stream_events(first)[1]),
        Some(json!({"still": "working"}))
    );
    sent_only(&mut h, &[]);
    assert_survives(&h);
}

#[test]
fn goaway_drains_then_closes() {
    let mut h = Harness::default_connected();
    let below = h.open(json!({"q": "before the goaway"}), true);
    let above = h.open(json!({"q": "racing the goaway"}), true);
    sent_only(
        &mut h,
        &[
            json!({"type": "open", "stream": 1, "end": true}),
            json!({"type": "open", "stream": 3, "end": true}),
        ],
    );
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": 1, "reason": "shutting down"}));
    assert!(h.events.contains(&Event::GoAway {
        code: 0,
        reason: Some("shutting down".into()),
        last_stream: 1
    }));
    // Above last_stream: refused locally, nothing sent for it.
    assert_eq!(
        h.stream_events(above),
        vec![StreamEvent::Failed(StreamError::Refused)]
    );
    assert_eq!(StreamError::Refused.class_name(), "StreamRefused");
    // open() now throws ConnectionGoingAway synchronously.
    assert_eq!(
        h.peer.open(None, Payload::null(), true, h.now),
        Err(OpenError::GoingAway)
    );
    assert_eq!(OpenError::GoingAway.class_name(), "ConnectionGoingAway");
    // The server's own reset(REFUSED) for the late open is a late frame now.
    h.recv(json!({"type": "reset", "stream": 3, "code": 4}));
    sent_only(&mut h, &[]);
    // At or below last_stream finishes.
    h.recv(json!({"type": "data", "stream": 1, "payload": {"finished": true}, "end": true}));
    assert_eq!(
        payload_value(&h.stream_events(below)[1]),
        Some(json!({"finished": true}))
    );
    assert_eq!(h.stream_events(below).last(), Some(&StreamEvent::Closed));
    // The dialer waits for the server's close; then it is a normal loss and it will redial.
    assert!(h.take_wire().iter().all(|w| !matches!(w, Wire::Close(..))));
    h.server_closes(1000, "");
    assert_eq!(
        h.closes(),
        vec![CloseReason {
            code: 1000,
            reason: String::new(),
            was_clean: true,
            will_retry: true
        }]
    );
    h.advance(250);
    assert!(matches!(h.take_wire().last(), Some(Wire::Dial(..))));
}

#[test]
fn a_goaway_refuses_exactly_our_streams_above_its_last_stream_in_id_order() {
    let mut h = Harness::default_connected();
    let ours: Vec<StreamRef> = (0..4).map(|_| h.open(json!(null), false)).collect();
    // A push the server opened (stream 4, above every last_stream below) is not ours to refuse.
    h.recv(json!({"type": "open", "stream": 4, "payload": {"push": true}}));
    let refused = |h: &Harness| -> Vec<u64> {
        h.events
            .iter()
            .filter_map(|e| match e {
                Event::Stream {
                    stream,
                    event: StreamEvent::Failed(StreamError::Refused),
                } => Some(stream.id),
                _ => None,
            })
            .collect()
    };
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": u64::MAX}));
    assert_eq!(refused(&h), Vec::<u64>::new());
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": 3}));
    assert_eq!(refused(&h), [5, 7]);
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": 0}));
    assert_eq!(refused(&h), [5, 7, 1, 3]);
    for stream in &ours {
        assert_eq!(h.peer.stream_state(*stream), None);
    }
    let push = StreamRef {
        socket: ours[0].socket,
        id: 4,
    };
    assert!(h.peer.stream_state(push).is_some());
}

#[test]
fn a_server_that_never_closes_after_its_goaway_is_closed_by_the_dialer() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": 0}));
    h.advance(GOAWAY_CLOSE_FALLBACK_MS - 1);
    assert!(h.closes().is_empty());
    h.advance(1);
    assert!(h
        .take_wire()
        .iter()
        .any(|w| matches!(w, Wire::Close(_, 1000, _))));
    assert_eq!(h.closes().len(), 1);
    assert!(h.closes()[0].will_retry);
}

#[test]
fn handler_raises_produces_remote_error() {
    let mut h = Harness::default_connected();
    let s = h.open(
        json!({"handler": "raise", "message": "the handler blew up"}),
        true,
    );
    h.take_wire();
    h.recv(json!({
        "type": "reset", "stream": 1, "code": 2, "reason": "the handler blew up",
        "payload": {"type": "Error", "message": "the handler blew up"}
    }));
    let error = match h.stream_events(s).pop() {
        Some(StreamEvent::Failed(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!((error.class_name(), error.code()), ("RemoteError", 2));
    let StreamError::RemoteReset {
        payload, reason, ..
    } = error
    else {
        panic!()
    };
    assert_eq!(
        serde_json::from_str::<Value>(payload.as_json().unwrap().as_str()).unwrap(),
        json!({"type": "Error", "message": "the handler blew up"})
    );
    assert_eq!(reason.as_deref(), Some("the handler blew up"));
    sent_only(&mut h, &[]);
    assert_survives(&h);
}

#[test]
fn a_fragmented_reset_closes_the_stream_on_its_first_fragment() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.take_wire();
    h.recv(json!({"type": "reset", "stream": 1, "code": 2, "reason": "r", "fragment": "{\"type\":\"Val", "more": true}));
    h.recv(
        json!({"type": "reset", "stream": 1, "code": 2, "reason": "r", "fragment": "ueError\"}"}),
    );
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::RemoteReset {
            code: 2,
            reason: Some("r".into()),
            payload: Payload::Absent
        })]
    );
    sent_only(&mut h, &[]);
    assert_survives(&h);
}

#[test]
fn cancel_sends_reset_cancelled_and_discards_what_is_in_flight() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"subscribe": "ticks"}), false);
    h.recv(json!({"type": "data", "stream": 1, "payload": {"tick": 1}}));
    h.take_wire();
    assert!(h.peer.cancel(s, Some("the consumer went away".into())));
    h.flush();
    sent_only(
        &mut h,
        &[json!({"type": "reset", "stream": 1, "code": 1, "reason": "the consumer went away"})],
    );
    let error = match h.stream_events(s).pop() {
        Some(StreamEvent::Failed(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!((error.class_name(), error.code()), ("StreamReset", 1));
    h.recv(json!({"type": "data", "stream": 1, "payload": {"tick": 2}}));
    assert_eq!(
        h.stream_events(s).iter().filter_map(payload_value).count(),
        1,
        "tick 2 is discarded"
    );
    assert!(!h.peer.cancel(s, None), "cancel is a no-op once closed");
    assert_eq!(
        h.peer.send(s, Outbound::data(Payload::null())),
        Err(SendError::NotLive)
    );
    sent_only(&mut h, &[]);
    assert_survives(&h);
}

#[test]
fn streaming_response_until_end() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"export": "all"}), true);
    for row in 0..5 {
        h.recv(json!({"type": "data", "stream": 1, "payload": {"row": row}}));
    }
    h.recv(json!({"type": "data", "stream": 1, "end": true, "trailers": {"rows": 5}}));
    let events = h.stream_events(s);
    assert_eq!(events[0], StreamEvent::ReplyHeaders(Headers::new()));
    assert_eq!(
        events.iter().filter_map(payload_value).collect::<Vec<_>>(),
        (0..5).map(|r| json!({"row": r})).collect::<Vec<_>>()
    );
    assert_eq!(
        events[6..],
        [
            StreamEvent::End {
                trailers: Some(headers_of(&json!({"rows": 5})))
            },
            StreamEvent::Closed
        ]
    );
}

#[test]
fn unary_request_with_server_push_interleaved() {
    let mut h = Harness::connected(with_cap(64));
    let s = h.open(
        json!({"q": "a request long enough to need fragments"}),
        true,
    );
    let sent = h.take_sent();
    assert!(sent.len() > 2 && sent.iter().all(|f| f["type"] == "open" && f["stream"] == 1));
    let joined: String = sent
        .iter()
        .map(|f| f["fragment"].as_str().unwrap())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&joined).unwrap(),
        json!({"q": "a request long enough to need fragments"})
    );
    assert_eq!(sent.last().unwrap()["end"], json!(true));
    // A push crosses the reply: a fragmented open on 2, interleaved with the reply on 1.
    h.recv(json!({"type": "open", "stream": 2, "fragment": "{\"ev\":", "more": true}));
    h.recv(json!({"type": "data", "stream": 1, "fragment": "{\"ok\":", "more": true}));
    h.recv(json!({"type": "open", "stream": 2, "fragment": "1}", "end": true}));
    h.recv(json!({"type": "data", "stream": 1, "fragment": "true}", "end": true}));
    assert!(h.events.iter().any(
        |e| matches!(e, Event::Incoming { stream, end: true, payload, .. }
        if stream.id == 2 && payload.as_json().map(RawJson::as_str) == Some("{\"ev\":1}"))
    ));
    assert_eq!(
        payload_value(&h.stream_events(s)[1]),
        Some(json!({"ok": true}))
    );
    assert_survives(&h);
}

#[test]
fn a_small_frame_overtakes_a_fragmented_payload() {
    let mut h = Harness::connected(with_cap(128));
    let big = h
        .peer
        .open(
            None,
            json_payload(&json!({"blob": "b".repeat(2000)})),
            true,
            h.now,
        )
        .unwrap();
    // One fragment of the big upload goes out, then a small call is made.
    assert!(matches!(
        h.peer.poll_action(h.now),
        Some(Action::Send { .. })
    ));
    let small = h
        .peer
        .open(None, json_payload(&json!({"tiny": 1})), true, h.now)
        .unwrap();
    h.flush();
    let sent = h.take_sent();
    let small_at = sent.iter().position(|f| f["stream"] == small.id).unwrap();
    let last_big = sent.iter().rposition(|f| f["stream"] == big.id).unwrap();
    assert!(
        small_at < 3,
        "the small open goes out within a round, not after the upload"
    );
    assert!(small_at < last_big);
    assert!(sent.iter().all(|f| f.to_string().len() <= 128));
}

#[test]
fn bidirectional_keeps_sending_after_the_remote_ends() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({"chat": true}), false);
    h.recv(json!({"type": "data", "stream": 1, "payload": {"hi": 1}, "end": true}));
    assert_eq!(h.peer.stream_state(s), Some(StreamState::HalfClosedRemote));
    h.peer
        .send(s, Outbound::data(json_payload(&json!({"more": 1}))))
        .unwrap();
    h.peer
        .send(s, Outbound::end(json_payload(&json!({"last": 1}))))
        .unwrap();
    h.flush();
    assert_eq!(h.stream_events(s).last(), Some(&StreamEvent::Closed));
    let sent = h.take_sent();
    assert_ordered_subset(
        &sent,
        &[
            json!({"type": "open", "stream": 1}),
            json!({"type": "data", "stream": 1, "payload": {"more": 1}}),
            json!({"type": "data", "stream": 1, "payload": {"last": 1}, "end": true}),
        ],
    );
}

#[test]
fn a_push_is_surfaced_and_finish_sends_the_implicit_end() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "open", "stream": 2, "end": true, "headers": {":event": "created", ":topic": "music"}, "payload": {"id": 7}}));
    let (stream, headers, payload) = match h.events.last() {
        Some(Event::Incoming {
            stream,
            headers,
            payload,
            end: true,
        }) => (*stream, headers.clone(), payload.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        headers.map(|h| headers_value(&h)),
        Some(json!({":event": "created", ":topic": "music"}))
    );
    assert_eq!(payload, Payload::json(r#"{"id":7}"#).unwrap());
    assert_eq!(
        h.peer.stream_state(stream),
        Some(StreamState::HalfClosedRemote)
    );
    assert!(h.peer.finish(stream));
    h.flush();
    sent_only(&mut h, &[json!({"type": "data", "stream": 2, "end": true})]);
    assert_eq!(h.stream_events(stream), vec![StreamEvent::Closed]);
    assert!(!h.peer.finish(stream), "already ended");
}

#[test]
fn a_push_handler_may_answer_once_with_leading_headers() {
    let mut h = Harness::default_connected();
    let s = push(&mut h, 2);
    h.peer
        .send(
            s,
            Outbound::data(Payload::Absent).with_headers(headers_of(&json!({"ack": 1}))),
        )
        .unwrap();
    assert_eq!(
        h.peer.send(
            s,
            Outbound::data(Payload::null()).with_headers(Headers::new())
        ),
        Err(SendError::HeadersAlreadySent)
    );
    h.peer
        .send(
            s,
            Outbound::end(Payload::null()).with_trailers(headers_of(&json!({"t": 1}))),
        )
        .unwrap();
    h.flush();
    sent_only(
        &mut h,
        &[
            json!({"type": "data", "stream": 2, "headers": {"ack": 1}}),
            json!({"type": "data", "stream": 2, "end": true, "payload": null, "trailers": {"t": 1}}),
        ],
    );
    assert_eq!(h.peer.stream_state(s), Some(StreamState::HalfClosedLocal));
}

#[test]
fn a_push_without_a_handler_is_refused() {
    let mut options = quiet_options();
    options.connection.accept_incoming = false;
    let mut h = Harness::connected(options);
    h.recv(json!({"type": "open", "stream": 2, "payload": {"x": 1}, "end": true}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 2, "code": 4})]);
    assert!(h.events.is_empty());
    h.peer.set_accept_incoming(true);
    h.recv(json!({"type": "open", "stream": 4, "payload": {"x": 1}, "end": true}));
    assert!(matches!(h.events.last(), Some(Event::Incoming { .. })));
    sent_only(&mut h, &[]);
}

#[test]
fn a_push_handler_that_raises_resets_with_application_error() {
    let mut h = Harness::default_connected();
    let s = push(&mut h, 2);
    let error = Payload::json(r#"{"type":"TypeError","message":"boom"}"#).unwrap();
    assert_eq!(
        h.peer
            .reset(s, code::APPLICATION_ERROR, Some("boom".into()), error),
        Ok(true)
    );
    h.flush();
    sent_only(
        &mut h,
        &[
            json!({"type": "reset", "stream": 2, "code": 2, "reason": "boom", "payload": {"type": "TypeError", "message": "boom"}}),
        ],
    );
    assert_eq!(
        h.peer.reset(s, 2, None, Payload::Absent),
        Ok(false),
        "no-op once closed"
    );
    assert_eq!(
        h.peer.reset(s, 5, None, Payload::Absent),
        Err(SendError::InvalidResetCode(5))
    );
    assert_eq!(
        h.peer.reset(s, 9, None, Payload::Absent),
        Err(SendError::InvalidResetCode(9))
    );
}

#[test]
fn pushes_beyond_the_local_limit_are_refused_and_our_own_streams_do_not_count() {
    let mut options = quiet_options();
    options.connection.max_concurrent_streams = 2;
    let mut h = Harness::connected(options);
    for _ in 0..5 {
        h.open(json!({}), false); // our own: never counted (WSM-STM-037)
    }
    h.take_wire();
    push(&mut h, 2);
    push(&mut h, 4);
    push(&mut h, 6);
    sent_only(&mut h, &[json!({"type": "reset", "stream": 6, "code": 4})]);
    assert_eq!(
        h.events
            .iter()
            .filter(|e| matches!(e, Event::Incoming { .. }))
            .count(),
        2
    );
    assert_survives(&h);
}

#[test]
fn a_fragmented_push_surfaces_only_when_complete() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "open", "stream": 2, "headers": {":event": "e"}, "fragment": "{\"big\":", "more": true}));
    h.recv(json!({"type": "open", "stream": 4, "payload": 1}));
    assert_eq!(h.events.len(), 1, "only the whole push on 4 so far");
    h.recv(json!({"type": "open", "stream": 2, "fragment": "true}"}));
    match h.events.last() {
        Some(Event::Incoming {
            stream,
            headers: Some(headers),
            payload,
            end: false,
        }) => {
            assert_eq!(stream.id, 2);
            assert_eq!(headers_value(headers), json!({":event": "e"}));
            assert_eq!(payload.as_json().unwrap().as_str(), "{\"big\":true}");
        }
        other => panic!("{other:?}"),
    }
    sent_only(&mut h, &[]);
}

#[test]
fn continuation_fragments_of_a_refused_push_are_late_frames() {
    let mut options = quiet_options();
    options.connection.accept_incoming = false;
    let mut h = Harness::connected(options);
    h.recv(json!({"type": "open", "stream": 2, "fragment": "[1,", "more": true}));
    h.recv(json!({"type": "open", "stream": 4, "payload": 1}));
    h.recv(json!({"type": "open", "stream": 2, "fragment": "2]"}));
    sent_only(
        &mut h,
        &[
            json!({"type": "reset", "stream": 2, "code": 4}),
            json!({"type": "reset", "stream": 4, "code": 4}),
        ],
    );
    assert_survives(&h);
}

#[test]
fn a_viewset_call_on_the_wire() {
    let mut h = Harness::default_connected();
    let headers = json!({":method": "POST", ":path": "/music", ":query": {"a": 1}, "idempotency-key": "\"k1\""});
    let s = h.open_with(headers.clone(), json!({"title": "Kind of Blue"}), true);
    let sent = h.take_sent();
    assert_eq!(
        sent,
        vec![
            json!({"type": "open", "stream": 1, "end": true, "headers": headers, "payload": {"title": "Kind of Blue"}})
        ]
    );
    h.recv_raw(r#"{"type":"data","stream":1,"end":true,"headers":{":status":201,"content-type":"application/json"},"payload":{"id":1}}"#);
    let events = h.stream_events(s);
    let StreamEvent::ReplyHeaders(reply) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(reply.get(":status").unwrap().as_str(), "201");
    // An empty body replies with a null payload, which counts as a payload.
    let s2 = h.open(Value::Null, true);
    assert_eq!(
        h.take_sent(),
        vec![json!({"type": "open", "stream": 3, "end": true, "payload": null})]
    );
    h.recv_raw(r#"{"type":"data","stream":3,"end":true,"headers":{":status":204},"payload":null}"#);
    assert_eq!(
        h.stream_events(s2)[1],
        StreamEvent::Payload(RawJson::null())
    );
}

// ======================================================================= local API

#[test]
fn the_last_stream_id_is_two_to_the_31_minus_one() {
    // Taking 2^31 - 1 starts the exhaustion shutdown (WSM-SID-007). Opening a billion streams is
    // out of a test's reach, so the bound itself is checked.
    assert_eq!(MAX_STREAM_ID, 2_147_483_647);
}

#[test]
fn ids_are_odd_increasing_and_readable_at_once() {
    let mut h = Harness::default_connected();
    let ids: Vec<u64> = (0..4)
        .map(|_| h.peer.open(None, Payload::null(), true, h.now).unwrap().id)
        .collect();
    assert_eq!(ids, [1, 3, 5, 7]);
    h.flush();
    let sent: Vec<u64> = h
        .take_sent()
        .iter()
        .map(|f| f["stream"].as_u64().unwrap())
        .collect();
    assert_eq!(sent, [1, 3, 5, 7]);
}

#[test]
fn open_never_refuses_for_concurrency() {
    let mut h = Harness::default_connected();
    for _ in 0..250 {
        h.peer.open(None, Payload::null(), false, h.now).unwrap();
    }
    h.flush();
    assert_eq!(h.take_sent().len(), 250);
}

#[test]
fn send_errors_distinguish_the_cases() {
    let mut h = Harness::default_connected();
    let unary = h.open(json!({}), true);
    assert_eq!(
        h.peer.send(unary, Outbound::data(Payload::null())),
        Err(SendError::AlreadyEnded)
    );
    assert_eq!(SendError::AlreadyEnded.class_name(), "StreamClosed");
    let open = h.open(json!({}), false);
    assert_eq!(
        h.peer.send(
            open,
            Outbound::data(Payload::null()).with_headers(Headers::new())
        ),
        Err(SendError::HeadersAlreadySent),
        "on a stream this peer opened the open was the first frame"
    );
    assert_eq!(
        h.peer.send(
            open,
            Outbound::data(Payload::null()).with_trailers(Headers::new())
        ),
        Err(SendError::TrailersWithoutEnd)
    );
    assert_eq!(SendError::HeadersAlreadySent.class_name(), "ProtocolError");
    let stale = StreamRef {
        socket: h.socket + 100,
        id: open.id,
    };
    assert_eq!(
        h.peer.send(stale, Outbound::data(Payload::null())),
        Err(SendError::NotLive)
    );
    h.take_wire();
    assert_eq!(
        h.take_sent(),
        Vec::<Value>::new(),
        "nothing was sent for refused calls"
    );
}

#[test]
fn a_reset_never_precedes_the_open_it_names() {
    let mut h = Harness::default_connected();
    let s = h.peer.open(None, Payload::null(), true, h.now).unwrap();
    assert!(h.peer.cancel(s, None)); // before the open was polled out
    h.flush();
    sent_only(
        &mut h,
        &[
            json!({"type": "open", "stream": 1}),
            json!({"type": "reset", "stream": 1, "code": 1}),
        ],
    );
}

#[test]
fn a_reset_during_a_fragmented_open_lets_the_open_finish_first() {
    let mut h = Harness::connected(with_cap(128));
    let s = h
        .peer
        .open(
            None,
            json_payload(&json!({"blob": "o".repeat(600)})),
            false,
            h.now,
        )
        .unwrap();
    assert!(matches!(
        h.peer.poll_action(h.now),
        Some(Action::Send { .. })
    ));
    assert!(h.peer.timeout(s));
    h.flush();
    let sent = h.take_sent();
    let reset_at = sent.iter().position(|f| f["type"] == "reset").unwrap();
    assert_eq!(reset_at, sent.len() - 1);
    assert!(sent[..reset_at].iter().all(|f| f["type"] == "open"));
    assert!(
        sent[reset_at - 1].get("more").is_none(),
        "the open's sequence completed"
    );
}

#[test]
fn a_reset_drops_the_remaining_fragments_of_an_upload() {
    let mut h = Harness::connected(with_cap(128));
    let s = h.open(json!({}), false);
    h.take_wire();
    h.peer
        .send(
            s,
            Outbound::end(json_payload(&json!({"blob": "u".repeat(2000)}))),
        )
        .unwrap();
    let mut sent = Vec::new();
    for _ in 0..3 {
        match h.peer.poll_action(h.now) {
            Some(Action::Send { text, .. }) => {
                sent.push(serde_json::from_str::<Value>(&text).unwrap())
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(h.peer.cancel(s, Some("stop".into())));
    h.flush();
    sent.extend(h.take_sent());
    assert_eq!(sent.len(), 4);
    assert!(sent[..3]
        .iter()
        .all(|f| f["type"] == "data" && f["more"] == true));
    assert!(matches(
        &sent[3],
        &json!({"type": "reset", "stream": 1, "code": 1})
    ));
}

#[test]
fn oversized_headers_are_a_synchronous_protocol_error() {
    let mut h = Harness::connected(with_cap(128));
    let headers = headers_of(&json!({"h": "v".repeat(200)}));
    let error = h
        .peer
        .open(Some(headers), Payload::null(), true, h.now)
        .unwrap_err();
    assert!(matches!(error, OpenError::Unsendable(_)));
    assert_eq!(error.class_name(), "ProtocolError");
    // The id was not consumed.
    assert_eq!(h.open(json!({}), true).id, 1);
}

// ======================================================================= state table (§4.2)

/// A fresh connection with one local stream in `state`; returns it.
fn local_stream_in(state: &str) -> (Harness, StreamRef) {
    let mut h = Harness::default_connected();
    let s = match state {
        "open" => h.open(json!({}), false),
        "half_closed_local" => h.open(json!({}), true),
        "half_closed_remote" => {
            let s = h.open(json!({}), false);
            h.recv(json!({"type": "data", "stream": 1, "end": true}));
            s
        }
        "closed" => {
            let s = h.open(json!({}), true);
            h.recv(json!({"type": "data", "stream": 1, "end": true}));
            s
        }
        _ => unreachable!(),
    };
    h.take_wire();
    h.take_events();
    (h, s)
}

fn state(h: &Harness, s: StreamRef) -> Option<StreamState> {
    h.peer.stream_state(s)
}

fn socket_death_cell(state_name: &str) {
    let (mut h, s) = local_stream_in(state_name);
    let live = state(&h, s).is_some();
    h.server_closes(1006, "");
    assert_eq!(state(&h, s), None);
    let expected = if live {
        vec![StreamEvent::Failed(StreamError::ConnectionLost)]
    } else {
        vec![]
    };
    assert_eq!(h.stream_events(s), expected, "{state_name}: socket death");
}

fn recv_open_cell(state_name: &str) {
    // An `open` naming a live or dead id of our parity: wrong parity, connection-level.
    let (mut h, _) = local_stream_in(state_name);
    h.recv(json!({"type": "open", "stream": 1}));
    assert_connection_died(&mut h);
}

#[test]
fn state_idle_row() {
    // send open → open, or half_closed_local with end.
    let mut h = Harness::default_connected();
    let a = h.open(json!({}), false);
    let b = h.open(json!({}), true);
    assert_eq!(
        (state(&h, a), state(&h, b)),
        (Some(StreamState::Open), Some(StreamState::HalfClosedLocal))
    );
    // recv open → open, or half_closed_remote with end.
    let c = push(&mut h, 2);
    h.recv(json!({"type": "open", "stream": 4, "end": true}));
    let d = StreamRef {
        socket: h.socket,
        id: 4,
    };
    assert_eq!(
        (state(&h, c), state(&h, d)),
        (Some(StreamState::Open), Some(StreamState::HalfClosedRemote))
    );
    // recv data / data(end) / reset on an idle (never opened) id: connection-level.
    for frame in [
        json!({"type": "data", "stream": 1, "payload": 1}),
        json!({"type": "data", "stream": 1, "end": true}),
        json!({"type": "reset", "stream": 1, "code": 0}),
        json!({"type": "data", "stream": 2, "payload": 1}),
    ] {
        let mut h = Harness::default_connected();
        h.recv(frame);
        assert_connection_died(&mut h);
    }
}

#[test]
fn state_open_row() {
    recv_open_cell("open");
    // send data → open
    let (mut h, s) = local_stream_in("open");
    h.peer.send(s, Outbound::data(Payload::null())).unwrap();
    assert_eq!(state(&h, s), Some(StreamState::Open));
    // send end → half_closed_local
    h.peer.send(s, Outbound::end(Payload::Absent)).unwrap();
    assert_eq!(state(&h, s), Some(StreamState::HalfClosedLocal));
    // recv data → open; recv data(end) → half_closed_remote
    let (mut h, s) = local_stream_in("open");
    h.recv(json!({"type": "data", "stream": 1, "payload": 1}));
    assert_eq!(state(&h, s), Some(StreamState::Open));
    h.recv(json!({"type": "data", "stream": 1, "payload": 2, "end": true}));
    assert_eq!(state(&h, s), Some(StreamState::HalfClosedRemote));
    // send reset → closed
    let (mut h, s) = local_stream_in("open");
    assert!(h.peer.cancel(s, None));
    assert_eq!(state(&h, s), None);
    // recv reset → closed
    let (mut h, s) = local_stream_in("open");
    h.recv(json!({"type": "reset", "stream": 1, "code": 0}));
    assert_eq!(state(&h, s), None);
    assert!(matches!(
        h.stream_events(s)[..],
        [StreamEvent::Failed(StreamError::RemoteReset {
            code: 0,
            ..
        })]
    ));
    socket_death_cell("open");
}

#[test]
fn state_half_closed_local_row() {
    recv_open_cell("half_closed_local");
    // send data / send end → RAISE, nothing sent
    let (mut h, s) = local_stream_in("half_closed_local");
    assert_eq!(
        h.peer.send(s, Outbound::data(Payload::null())),
        Err(SendError::AlreadyEnded)
    );
    assert_eq!(
        h.peer.send(s, Outbound::end(Payload::Absent)),
        Err(SendError::AlreadyEnded)
    );
    h.flush();
    assert!(h.take_sent().is_empty());
    // recv data → half_closed_local; recv data(end) → closed
    h.recv(json!({"type": "data", "stream": 1, "payload": 1}));
    assert_eq!(state(&h, s), Some(StreamState::HalfClosedLocal));
    h.recv(json!({"type": "data", "stream": 1, "end": true}));
    assert_eq!(state(&h, s), None);
    assert_eq!(h.stream_events(s).last(), Some(&StreamEvent::Closed));
    // send reset → closed; recv reset → closed
    let (mut h, s) = local_stream_in("half_closed_local");
    assert!(h.peer.cancel(s, None));
    assert_eq!(state(&h, s), None);
    let (mut h, s) = local_stream_in("half_closed_local");
    h.recv(json!({"type": "reset", "stream": 1, "code": 8}));
    assert_eq!(state(&h, s), None);
    socket_death_cell("half_closed_local");
}

#[test]
fn state_half_closed_remote_row() {
    recv_open_cell("half_closed_remote");
    // send data → half_closed_remote; send end → closed
    let (mut h, s) = local_stream_in("half_closed_remote");
    h.peer.send(s, Outbound::data(Payload::null())).unwrap();
    assert_eq!(state(&h, s), Some(StreamState::HalfClosedRemote));
    h.peer.send(s, Outbound::end(Payload::Absent)).unwrap();
    assert_eq!(state(&h, s), None);
    h.flush();
    assert_eq!(h.stream_events(s), vec![StreamEvent::Closed]);
    // recv data / recv data(end) → ILL-S: reset(PROTOCOL_ERROR), the connection lives
    for frame in [
        json!({"type": "data", "stream": 1, "payload": 1}),
        json!({"type": "data", "stream": 1, "end": true}),
    ] {
        let (mut h, s) = local_stream_in("half_closed_remote");
        h.recv(frame);
        sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 3})]);
        assert_eq!(state(&h, s), None);
        assert_survives(&h);
    }
    // send reset → closed; recv reset → closed
    let (mut h, s) = local_stream_in("half_closed_remote");
    assert!(h.peer.cancel(s, None));
    assert_eq!(state(&h, s), None);
    let (mut h, s) = local_stream_in("half_closed_remote");
    h.recv(json!({"type": "reset", "stream": 1, "code": 0}));
    assert_eq!(state(&h, s), None);
    socket_death_cell("half_closed_remote");
}

#[test]
fn state_closed_row() {
    recv_open_cell("closed");
    // send data / send end → RAISE
    let (mut h, s) = local_stream_in("closed");
    assert_eq!(
        h.peer.send(s, Outbound::data(Payload::null())),
        Err(SendError::NotLive)
    );
    assert_eq!(
        h.peer.send(s, Outbound::end(Payload::Absent)),
        Err(SendError::NotLive)
    );
    // recv data / data(end) / reset → IGN; send reset → NOOP
    h.recv(json!({"type": "data", "stream": 1, "payload": 1}));
    h.recv(json!({"type": "data", "stream": 1, "end": true}));
    h.recv(json!({"type": "reset", "stream": 1, "code": 2}));
    assert!(!h.peer.cancel(s, None));
    h.flush();
    assert!(h.take_sent().is_empty());
    assert!(h.stream_events(s).is_empty());
    assert_survives(&h);
    // socket death → NOOP
    socket_death_cell("closed");
}

// ======================================================================= heartbeat

fn heartbeat_options() -> PeerOptions {
    let mut options = quiet_options();
    options.connection.ping_interval_ms = DEFAULT_PING_INTERVAL_MS;
    options.connection.ping_timeout_ms = DEFAULT_PING_TIMEOUT_MS;
    options
}

#[test]
fn the_heartbeat_pings_after_idle_and_a_pong_keeps_the_socket() {
    let mut h = Harness::connected(heartbeat_options());
    h.advance(19_999);
    assert!(h.take_sent().is_empty());
    h.advance(1);
    let sent = h.take_sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["type"], "ping");
    let nonce = sent[0]["nonce"].as_str().unwrap().to_owned();
    assert_eq!(nonce.len(), 16);
    h.advance(9_000);
    h.recv(json!({"type": "pong", "nonce": nonce}));
    h.advance(9_000);
    assert_survives(&h);
    // The next ping comes an interval after the pong (the last traffic).
    h.advance(11_000);
    let sent = h.take_sent();
    assert_eq!(sent.len(), 1);
    assert_ne!(sent[0]["nonce"], json!(nonce), "a fresh nonce");
}

#[test]
fn no_pong_within_the_timeout_declares_the_socket_dead() {
    let mut h = Harness::connected(heartbeat_options());
    let s = h.open(json!({}), true);
    h.take_wire();
    h.advance(20_000);
    h.advance(9_999);
    assert_survives(&h);
    h.advance(1);
    // Streams fail first, then exactly one close report with 1006 …
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::ConnectionLost)]
    );
    assert_eq!(
        h.closes(),
        vec![CloseReason {
            code: 1006,
            reason: "no pong within 10000 ms".into(),
            was_clean: false,
            will_retry: true
        }]
    );
    // … and the socket is closed locally with 1000, never 1006.
    let wire = h.take_wire();
    assert!(
        wire.iter().any(|w| matches!(w, Wire::Close(_, 1000, _))),
        "{wire:?}"
    );
    assert!(!h.peer.is_open());
    // Then the normal backoff path.
    h.advance(250);
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(..)]));
}

#[test]
fn only_arrivals_postpone_the_ping() {
    let mut h = Harness::connected(heartbeat_options());
    h.advance(15_000);
    h.recv(json!({"type": "widget"})); // any inbound frame counts
    h.advance(15_000);
    assert!(h.take_sent().is_empty());
    // Sending is not liveness: the ping is due 20 s after the last arrival, not after the open.
    h.open(json!({}), false);
    h.take_wire();
    h.advance(4_999);
    assert!(h.take_sent().is_empty());
    h.advance(1);
    assert_eq!(h.take_sent()[0]["type"], "ping");
}

#[test]
fn a_pong_with_another_nonce_does_not_count() {
    let mut h = Harness::connected(heartbeat_options());
    h.advance(20_000);
    h.take_wire();
    h.recv(json!({"type": "pong", "nonce": "not-ours"}));
    h.recv(json!({"type": "pong"}));
    h.advance(10_000);
    assert_eq!(h.closes().len(), 1);
    assert_eq!(h.closes()[0].code, 1006);
}

/// The nonce of the heartbeat ping that just went out (after `advance` made it due).
fn sent_ping(h: &mut Harness) -> String {
    let sent = h.take_sent();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["type"], "ping");
    sent[0]["nonce"].as_str().unwrap().to_owned()
}

#[test]
fn a_pong_measures_its_ping_round_trip_on_the_virtual_clock() {
    let mut h = Harness::connected(heartbeat_options());
    assert_eq!(h.peer.poll_round_trip(), None, "nothing before the first pong");
    h.advance(20_000);
    let nonce = sent_ping(&mut h);
    h.advance(37);
    assert_eq!(h.peer.poll_round_trip(), None, "nothing while the ping is outstanding");
    h.recv(json!({"type": "pong", "nonce": nonce}));
    assert_eq!(h.peer.poll_round_trip(), Some(37));
    assert_eq!(h.peer.poll_round_trip(), None, "reported once");
    // The next ping, an interval after the pong, is measured afresh.
    h.advance(20_000);
    let nonce = sent_ping(&mut h);
    h.advance(1_250);
    h.recv(json!({"type": "pong", "nonce": nonce}));
    assert_eq!(h.peer.poll_round_trip(), Some(1_250));
    assert_survives(&h);
}

#[test]
fn a_pong_that_does_not_answer_the_outstanding_ping_measures_nothing() {
    let mut h = Harness::connected(heartbeat_options());
    // No ping outstanding: a pong, even one carrying the nonce the next ping will have, is ignored.
    h.recv(json!({"type": "pong", "nonce": "0000000000000001"}));
    assert_eq!(h.peer.poll_round_trip(), None);
    h.advance(20_000);
    let first = sent_ping(&mut h);
    h.advance(5);
    h.recv(json!({"type": "pong", "nonce": first}));
    assert_eq!(h.peer.poll_round_trip(), Some(5));
    h.advance(20_000);
    let second = sent_ping(&mut h);
    assert_ne!(first, second);
    h.advance(10);
    // The earlier ping's nonce again, another nonce, none: not the outstanding ping's pong.
    h.recv(json!({"type": "pong", "nonce": first}));
    h.recv(json!({"type": "pong", "nonce": "not-ours"}));
    h.recv(json!({"type": "pong"}));
    assert_eq!(h.peer.poll_round_trip(), None);
    h.advance(30);
    h.recv(json!({"type": "pong", "nonce": second}));
    assert_eq!(h.peer.poll_round_trip(), Some(40));
    // Its repeat finds no ping outstanding.
    h.advance(7);
    h.recv(json!({"type": "pong", "nonce": second}));
    assert_eq!(h.peer.poll_round_trip(), None);
    assert_survives(&h);
}

#[test]
fn a_ping_that_dies_unanswered_measures_nothing_and_a_new_socket_starts_over() {
    let mut h = Harness::connected(heartbeat_options());
    h.advance(20_000);
    let lost = sent_ping(&mut h);
    h.advance(10_000); // no pong: the socket is dead
    assert_eq!(h.closes().len(), 1);
    h.recv(json!({"type": "pong", "nonce": lost})); // too late, and to a socket that is gone
    assert_eq!(h.peer.poll_round_trip(), None);
    h.advance(250);
    h.open_socket();
    h.advance(20_000);
    let nonce = sent_ping(&mut h);
    h.advance(12);
    h.recv(json!({"type": "pong", "nonce": nonce}));
    assert_eq!(h.peer.poll_round_trip(), Some(12));
}

#[test]
fn a_ping_is_echoed_with_its_nonce_and_an_absent_nonce_stays_absent() {
    let mut h = Harness::default_connected();
    h.recv(json!({"type": "ping", "nonce": "8f14e45fceea167a"}));
    h.recv(json!({"type": "ping"}));
    assert_eq!(
        h.take_sent(),
        vec![
            json!({"type": "pong", "nonce": "8f14e45fceea167a"}),
            json!({"type": "pong"})
        ]
    );
}

#[test]
fn a_zero_interval_disables_the_heartbeat() {
    let mut h = Harness::default_connected();
    assert_eq!(h.peer.poll_timeout(), None);
    h.advance(1_000_000);
    assert!(h.take_sent().is_empty());
    assert_survives(&h);
}

// ======================================================================= close()

#[test]
fn close_sends_goaway_drains_then_closes_with_1000() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.recv(json!({"type": "open", "stream": 4, "end": true}));
    h.take_wire();
    h.peer.close(0, Some("bye".into()), 10_000, h.now);
    h.flush();
    sent_only(
        &mut h,
        &[json!({"type": "goaway", "code": 0, "last_stream": 4, "reason": "bye"})],
    );
    assert!(!h.peer.is_open());
    assert_eq!(
        h.peer.open(None, Payload::null(), true, h.now),
        Err(OpenError::GoingAway)
    );
    // A new incoming open is refused while draining.
    h.recv(json!({"type": "open", "stream": 6, "end": true}));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 6, "code": 4})]);
    // In-flight streams finish.
    h.recv(json!({"type": "data", "stream": 1, "payload": 1, "end": true}));
    assert_eq!(h.stream_events(s).last(), Some(&StreamEvent::Closed));
    assert!(h.closes().is_empty());
    h.peer.finish(StreamRef {
        socket: h.socket,
        id: 4,
    });
    h.flush();
    let wire = h.take_wire();
    assert!(
        matches!(wire.as_slice(), [Wire::Sent(_, end), Wire::Close(_, 1000, reason)] if end["end"] == true && reason == "bye"),
        "{wire:?}"
    );
    assert_eq!(
        h.closes(),
        vec![CloseReason {
            code: 1000,
            reason: "bye".into(),
            was_clean: true,
            will_retry: false
        }]
    );
    assert!(h.peer.is_closed());
    // The socket's close event that follows changes nothing; nothing is ever dialled again.
    h.server_closes(1000, "bye");
    h.advance(120_000);
    assert!(h.take_wire().is_empty());
    assert_eq!(h.closes().len(), 1);
}

#[test]
fn close_without_streams_closes_at_once() {
    let mut h = Harness::default_connected();
    h.peer.close(0, None, 10_000, h.now);
    h.flush();
    let wire = h.take_wire();
    assert!(
        matches!(wire.as_slice(), [Wire::Sent(_, g), Wire::Close(_, 1000, _)] if g["type"] == "goaway" && g["last_stream"] == 0)
    );
    assert_eq!(h.closes().len(), 1);
}

#[test]
fn the_drain_deadline_fails_what_is_left() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.peer.close(0, None, 2_000, h.now);
    h.flush();
    h.advance(1_999);
    assert!(h.closes().is_empty());
    h.advance(1);
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::ConnectionLost)]
    );
    assert_eq!(h.closes().len(), 1);
    assert!(!h.closes()[0].will_retry);
    assert!(h
        .take_wire()
        .iter()
        .any(|w| matches!(w, Wire::Close(_, 1000, _))));
}

#[test]
fn the_server_closing_during_the_drain_reports_once() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.peer.close(0, None, 10_000, h.now);
    h.flush();
    h.server_closes(1001, "going away");
    assert_eq!(
        h.stream_events(s),
        vec![StreamEvent::Failed(StreamError::ConnectionLost)]
    );
    assert_eq!(
        h.closes(),
        vec![CloseReason {
            code: 1001,
            reason: "going away".into(),
            was_clean: false,
            will_retry: false
        }]
    );
    h.advance(60_000);
    assert!(h.take_wire().iter().all(|w| !matches!(w, Wire::Dial(..))));
}

#[test]
fn close_reasons_are_cut_to_what_a_browser_accepts() {
    let mut h = Harness::default_connected();
    h.peer.close(0, Some("é".repeat(100)), 0, h.now);
    h.flush();
    let reason = h
        .take_wire()
        .into_iter()
        .find_map(|w| match w {
            Wire::Close(_, _, reason) => Some(reason),
            _ => None,
        })
        .unwrap();
    assert!(reason.len() <= 123 && reason.len() >= 122);
}

// ======================================================================= driver ergonomics

#[test]
fn calls_without_a_clock_surface_their_events_at_once() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.take_events();
    assert!(h.peer.cancel(s, None));
    // No poll_action in between: the failure is already observable.
    assert_eq!(
        h.peer.poll_event(),
        Some(Event::Stream {
            stream: s,
            event: StreamEvent::Failed(StreamError::LocalReset {
                code: 1,
                reason: None
            })
        })
    );
}

#[test]
fn a_lost_socket_has_nothing_left_to_transmit() {
    // Queued frames of every lane are dropped with the socket (WSM-STM-014): nothing is pending,
    // and a protocol error leaves only its goaway.
    let mut conn = Connection::new(ConnectionConfig::default(), 0).unwrap();
    conn.open(None, Payload::null(), false, 0).unwrap();
    assert!(conn.has_pending_transmit());
    conn.socket_lost();
    assert!(!conn.has_pending_transmit());
    assert_eq!(conn.poll_transmit(0), None);

    let mut conn = Connection::new(ConnectionConfig::default(), 0).unwrap();
    conn.open(None, Payload::null(), false, 0).unwrap();
    conn.receive("[]", 1);
    let goaway = conn.poll_transmit(1).unwrap_or_default();
    assert!(goaway.starts_with(r#"{"type":"goaway""#), "{goaway}");
    assert!(!conn.has_pending_transmit());
    assert_eq!(conn.poll_transmit(1), None);
}

#[test]
fn the_connection_is_usable_on_its_own() {
    let mut conn = Connection::new(ConnectionConfig::default(), 0).unwrap();
    let id = conn.open(None, Payload::null(), true, 0).unwrap();
    assert_eq!(
        conn.poll_transmit(0).as_deref(),
        Some(r#"{"type":"open","stream":1,"end":true,"payload":null}"#)
    );
    assert_eq!(conn.poll_transmit(0), None);
    conn.receive(
        r#"{"type":"data","stream":1,"end":true,"headers":{":status":200},"payload":[]}"#,
        5,
    );
    let events: Vec<ConnEvent> = std::iter::from_fn(|| conn.poll_event()).collect();
    assert_eq!(events.len(), 4);
    assert_eq!(
        events[3],
        ConnEvent::Stream {
            id,
            event: StreamEvent::Closed
        }
    );
    assert_eq!(
        (conn.highest_local_open(), conn.highest_remote_open()),
        (1, 0)
    );
    assert_eq!(
        conn.live_streams().count(),
        0,
        "nothing is kept per closed stream"
    );
    conn.receive("[]", 6);
    assert!(matches!(
        conn.poll_termination(),
        Some(Termination::ProtocolError { .. })
    ));
    assert!(conn.is_done());
    let goaway: Value = serde_json::from_str(&conn.poll_transmit(6).unwrap()).unwrap();
    assert!(matches(
        &goaway,
        &json!({"type": "goaway", "code": 3, "last_stream": 0})
    ));
    assert_eq!(
        conn.open(None, Payload::null(), true, 7),
        Err(OpenError::GoingAway)
    );
}

#[test]
fn a_cap_below_the_floor_is_a_configuration_error() {
    let cfg = ConnectionConfig {
        max_frame_bytes: 63,
        ..ConnectionConfig::default()
    };
    assert!(Connection::new(cfg, 0).is_err());
    let cfg = ConnectionConfig {
        max_frame_bytes: MIN_FRAME_BYTES,
        ..ConnectionConfig::default()
    };
    let mut conn = Connection::new(cfg, 0).unwrap();
    // At the floor a payload still goes out, fragmented.
    conn.open(
        None,
        Payload::json(json!({"k": "ü🌍\u{1}".repeat(20)}).to_string()).unwrap(),
        true,
        0,
    )
    .unwrap();
    let mut joined = String::new();
    while let Some(text) = conn.poll_transmit(0) {
        assert!(text.len() <= MIN_FRAME_BYTES);
        joined.push_str(decode(&text).unwrap().fragment.as_deref().unwrap());
    }
    assert_eq!(
        serde_json::from_str::<Value>(&joined).unwrap(),
        json!({"k": "ü🌍\u{1}".repeat(20)})
    );
}

#[test]
fn resets_and_goaways_are_never_lost_to_a_long_reason_under_a_small_cap() {
    let mut options = with_cap(MIN_FRAME_BYTES);
    options.connection.accept_incoming = false;
    let mut h = Harness::connected(options);
    h.recv(json!({"type": "open", "stream": 2}));
    let s = h.open(json!({}), true);
    h.peer.timeout(s);
    h.flush();
    let sent = h.take_sent();
    assert_ordered_subset(
        &sent,
        &[
            json!({"type": "reset", "stream": 2, "code": 4}),
            json!({"type": "reset", "stream": 1, "code": 6}),
        ],
    );
    assert!(sent.iter().all(|f| f.to_string().len() <= MIN_FRAME_BYTES));
    h.recv_raw(
        "{\"type\": \"data\", \"stream\": \"this is not an id and the error message is long\"}",
    );
    let sent = h.take_sent();
    assert_eq!(
        sent,
        vec![json!({"type": "goaway", "code": 3, "last_stream": 2})]
    );
}

#[test]
fn a_binary_message_is_a_connection_level_error() {
    let mut h = Harness::default_connected();
    h.peer.socket_binary_message(h.socket, h.now);
    h.flush();
    assert_connection_died(&mut h);
}
