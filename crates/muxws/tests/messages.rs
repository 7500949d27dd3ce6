//! The texts the JS layer shows (error `message`s, close reasons) are written without
//! `core::fmt` argument formatting; these pin them to exactly what the `format!`-based code
//! produced, numbers included.

mod common;

use common::*;
use muxws_proto::*;

#[test]
fn stream_open_and_send_errors() {
    let remote = StreamError::RemoteReset {
        code: 2,
        reason: Some("boom".into()),
        payload: Payload::Absent,
    };
    assert_eq!(
        remote.to_string(),
        "stream reset by the remote with code 2: boom"
    );
    let local = StreamError::LocalReset {
        code: -7,
        reason: None,
    };
    assert_eq!(local.to_string(), "stream reset locally with code -7");
    let local = StreamError::LocalReset {
        code: i64::MIN,
        reason: Some(String::new()),
    };
    assert_eq!(
        local.to_string(),
        "stream reset locally with code -9223372036854775808: "
    );
    assert_eq!(
        StreamError::Refused.to_string(),
        "stream refused: above the last_stream of the remote's goaway, never processed"
    );
    assert_eq!(StreamError::ConnectionLost.to_string(), "connection lost");
    assert_eq!(
        SendError::InvalidResetCode(5).to_string(),
        "reset code 5 must never be sent (retired 5, local-only 9)"
    );
    assert_eq!(
        ConnectError::Hello(StreamError::ConnectionLost).to_string(),
        "the hello failed: connection lost"
    );
    assert_eq!(
        StreamRef {
            socket: 3,
            id: u64::MAX
        }
        .to_string(),
        "3/18446744073709551615"
    );
}

#[test]
fn fragment_errors() {
    assert_eq!(
        FragmentError::EnvelopeTooLarge { cap: 96 }.to_string(),
        "frame exceeds the 96-byte cap but carries no payload to fragment; headers are never fragmented (WSM-FRG-021)"
    );
    assert_eq!(
        FragmentError::Floor { cap: 64 }.to_string(),
        "a frame cap of 64 bytes cannot hold this frame's envelope plus one indivisible unit of payload (WSM-FRG-034)"
    );
    assert_eq!(
        FragmentError::ClosingFloor { cap: 65536 }.to_string(),
        "a frame cap of 65536 bytes cannot hold this frame's closing envelope; trailers are never fragmented (WSM-FRG-020/034)"
    );
    assert_eq!(
        OpenError::Unsendable(FragmentError::Floor { cap: 70 }).to_string(),
        FragmentError::Floor { cap: 70 }.to_string()
    );
    assert_eq!(
        SendError::Unsendable(FragmentError::Floor { cap: 70 }).to_string(),
        FragmentError::Floor { cap: 70 }.to_string()
    );
}

#[test]
fn configuration_errors() {
    let mut options = PeerOptions::default();
    options.connection.max_frame_bytes = 63;
    assert_eq!(
        Peer::new(options, Box::new(|| 0.0)).err().unwrap().to_string(),
        "max_frame_bytes 63 is below the floor of 64: too small for an envelope plus one indivisible unit (WSM-FRG-034)"
    );
}

#[test]
fn close_reasons() {
    assert_eq!(
        Termination::HeartbeatTimeout.close_reason(10_000),
        "no pong within 10000 ms"
    );
    assert_eq!(
        Termination::ProtocolError { reason: "x".into() }.close_reason(0),
        "protocol error: x"
    );
}

#[test]
fn connect_error_messages_name_only_what_happened() {
    let message = |h: &mut Harness| match h.take_events().as_slice() {
        [Event::ConnectFailed(error)] => (error.class_name(), error.to_string()),
        other => panic!("{other:?}"),
    };
    // A socket that never opened: refused upgrade or unreachable server, with the platform's words.
    let mut h = Harness::dialing(quiet_options());
    h.dial_fails();
    assert_eq!(
        message(&mut h),
        (
            "ConnectionRefused",
            "the WebSocket offering subprotocol \"muxws.v1.json\" did not open: the server refused the upgrade or could not be reached".to_owned()
        )
    );
    let mut h = Harness::dialing(quiet_options());
    let socket = h.last_dial().unwrap();
    h.peer.socket_closed(
        socket,
        1006,
        "Received network error or non-101 status code.",
        false,
        h.now,
    );
    h.flush();
    assert_eq!(
        message(&mut h).1,
        "the WebSocket offering subprotocol \"muxws.v1.json\" did not open: the server refused the upgrade or could not be reached (Received network error or non-101 status code.)"
    );
    let mut h = Harness::dialing(quiet_options());
    let socket = h.last_dial().unwrap();
    h.peer.socket_closed(socket, 1015, "", false, h.now);
    h.flush();
    assert!(message(&mut h)
        .1
        .ends_with("could not be reached (close code 1015)"));
    // A real codec mismatch: the socket opened with another subprotocol.
    let mut h = Harness::dialing(quiet_options());
    h.peer.socket_opened(1, "muxws.v1.msgpack", h.now);
    h.flush();
    assert_eq!(
        message(&mut h),
        (
            "CodecMismatch",
            "the server selected subprotocol \"muxws.v1.msgpack\" instead of \"muxws.v1.json\", the only one this client speaks (muxws v1, the \"json\" codec)".to_owned()
        )
    );
    assert!(h.wire.contains(&Wire::Close(
        1,
        4008,
        "expected subprotocol muxws.v1.json".into()
    )));
    let mut h = Harness::dialing(quiet_options());
    h.peer.socket_opened(1, "", h.now);
    h.flush();
    assert!(message(&mut h)
        .1
        .starts_with("the server selected no subprotocol instead of"));
}

#[test]
fn heartbeat_nonces_are_sixteen_hex_digits() {
    let mut options = quiet_options();
    options.connection.ping_interval_ms = 1_000;
    let mut h = Harness::connected(options);
    h.advance(1_000);
    let nonces: Vec<String> = h
        .take_wire()
        .iter()
        .filter_map(|w| match w {
            Wire::Sent(_, frame) if frame["type"] == "ping" => {
                Some(frame["nonce"].as_str().unwrap().to_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(nonces, ["0000000000000001"]);
}

#[test]
fn every_fixed_error_text() {
    assert_eq!(
        OpenError::GoingAway.to_string(),
        "the connection is going away; open on the next connection"
    );
    assert_eq!(
        OpenError::ConnectionLost.to_string(),
        "not connected (between sockets); nothing was sent"
    );
    assert_eq!(
        SendError::NotLive.to_string(),
        "the stream is no longer open"
    );
    assert_eq!(
        SendError::AlreadyEnded.to_string(),
        "this side of the stream already ended"
    );
    assert_eq!(
        SendError::HeadersAlreadySent.to_string(),
        "headers ride only this side's first frame on a stream; on a stream this peer opened that is the open (WSM-FRM-016)"
    );
    assert_eq!(
        SendError::TrailersWithoutEnd.to_string(),
        "trailers ride only the frame carrying end (WSM-FRM-013)"
    );
    assert_eq!(
        SendError::InvalidResetCode(-9).to_string(),
        "reset code -9 must never be sent (retired 5, local-only 9)"
    );
    assert_eq!(
        ConnectError::Closed.to_string(),
        "closed before the connection was established"
    );
    assert_eq!(
        ConnectError::Hello(StreamError::LocalReset {
            code: 6,
            reason: Some("late".into())
        })
        .to_string(),
        "the hello failed: stream reset locally with code 6: late"
    );
    assert_eq!(
        Headers::from_json("[1]").unwrap_err().to_string(),
        "not a JSON value (at byte 0)"
    );
    // `message()` is what `Display` writes.
    let error = StreamError::RemoteReset {
        code: 4,
        reason: None,
        payload: Payload::Absent,
    };
    assert_eq!(error.message(), error.to_string());
    assert_eq!(error.message(), "stream reset by the remote with code 4");
}

#[test]
fn a_hello_over_the_cap_is_a_configuration_error_naming_why() {
    let mut options = PeerOptions::default();
    options.connection.max_frame_bytes = 128;
    options.hello = Some(Hello {
        headers: Some(Headers::new().with(
            "x",
            RawJson::parse(format!("\"{}\"", "y".repeat(300))).unwrap(),
        )),
        payload: Payload::null(),
    });
    assert_eq!(
        Peer::new(options, Box::new(|| 0.0)).err().unwrap().to_string(),
        "the hello cannot be sent: a frame cap of 128 bytes cannot hold this frame's envelope plus one indivisible unit of payload (WSM-FRG-034)"
    );
}

#[test]
fn a_failed_hello_closes_its_socket_with_the_error_as_reason() {
    let mut options = quiet_options();
    options.hello = Some(Hello {
        headers: None,
        payload: Payload::null(),
    });
    options.retry_first_connect = true;
    let mut h = Harness::dialing(options);
    h.open_socket();
    h.advance(DEFAULT_HELLO_TIMEOUT_MS);
    let closes = h.closes();
    assert_eq!(
        closes.last().unwrap().reason,
        "hello failed: stream reset locally with code 6: deadline exceeded"
    );
}
