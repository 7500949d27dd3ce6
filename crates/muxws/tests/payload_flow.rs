//! Payloads that are never held whole: outbound ones pulled a window at a time from a
//! [`PayloadSource`], inbound fragments handed to the driver one by one with a byte count and the
//! driver's verdict; and the retried first connect. (Over-cap messages refused from their head:
//! `receive_over_cap`, tested with the decoder.)

mod common;

use std::cell::Cell;
use std::rc::Rc;

use common::*;
use muxws_proto::*;
use proptest::prelude::*;
use serde_json::json;

/// A source as the wasm module's is: it copies each window into a buffer of its own (as
/// `TextEncoder.encodeInto` writes into linear memory), counts the largest window asked for, and
/// tracks its read position in UTF-16 units.
struct CopyingSource {
    text: String,
    position: usize,
    units: usize,
    window: Vec<u8>,
    largest: Rc<Cell<usize>>,
}

impl CopyingSource {
    fn boxed(text: &str, largest: Rc<Cell<usize>>) -> Box<dyn PayloadSource> {
        Box::new(CopyingSource {
            text: text.to_owned(),
            position: 0,
            units: 0,
            window: Vec::new(),
            largest,
        })
    }
}

impl PayloadSource for CopyingSource {
    fn peek(&mut self, max: usize) -> (&[u8], bool) {
        self.largest.set(self.largest.get().max(max));
        let rest = &self.text[self.position..];
        let mut end = 0;
        for (i, c) in rest.char_indices() {
            if i + c.len_utf8() > max {
                break;
            }
            end = i + c.len_utf8();
        }
        self.window.clear();
        self.window.extend_from_slice(&rest.as_bytes()[..end]);
        (&self.window, end == rest.len())
    }

    fn advance(&mut self, bytes: usize) {
        let taken = std::str::from_utf8(&self.window[..bytes]).expect("a code point boundary");
        self.units += taken.encode_utf16().count();
        self.position += bytes;
        self.window = Vec::new();
    }
}

fn pulled(text: &str) -> Box<dyn PayloadSource> {
    CopyingSource::boxed(text, Rc::new(Cell::new(0)))
}

fn connection(cap: usize) -> Connection {
    let cfg = ConnectionConfig {
        max_frame_bytes: cap,
        ping_interval_ms: 0,
        ..ConnectionConfig::default()
    };
    Connection::new(cfg, 0).unwrap()
}

fn transmitted(conn: &mut Connection) -> Vec<String> {
    std::iter::from_fn(|| conn.poll_transmit(0)).collect()
}

fn arbitrary_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => any::<char>(),
            2 => prop::char::range('\u{0}', '\u{1f}'),
            2 => Just('"'),
            1 => Just('\\'),
            2 => prop::char::range('\u{1f300}', '\u{1f6ff}'),
            2 => prop::char::range('a', 'z'),
        ],
        0..700,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The same bytes on the wire whether the payload is given whole or pulled through a source:
    /// the cut points of the reference ports do not depend on how the text is held.
    #[test]
    fn a_pulled_payload_goes_out_exactly_as_a_whole_one(
        text in arbitrary_text(),
        cap in 64usize..400,
        with_headers in any::<bool>(),
        end in any::<bool>(),
    ) {
        let payload = serde_json::to_string(&json!({ "t": text, "n": [1, 2] })).unwrap();
        let headers = with_headers.then(|| Headers::from_json(r#"{":path":"/p","x":"é"}"#).unwrap());
        let mut whole = connection(cap);
        let mut pull = connection(cap);
        let a = whole.open(headers.clone(), Payload::json(payload.clone()).unwrap(), end, 0);
        let largest = Rc::new(Cell::new(0));
        let b = pull.open_with_source(headers, CopyingSource::boxed(&payload, largest.clone()), end, 0);
        prop_assert_eq!(a.clone().map(|_| ()), b.map(|_| ()));
        if a.is_ok() {
            prop_assert_eq!(transmitted(&mut whole), transmitted(&mut pull));
            prop_assert!(largest.get() <= cap + 1, "windows of at most cap + 1 bytes");
            if !end {
                let more = serde_json::to_string(&text).unwrap();
                let id = a.unwrap();
                whole.send(id, Outbound::end(Payload::json(more.clone()).unwrap())).unwrap();
                pull.send_with_source(id, pulled(&more), true).unwrap();
                prop_assert_eq!(transmitted(&mut whole), transmitted(&mut pull));
            }
        }
    }

    /// The enqueue-time check decides as it does for a payload given whole.
    #[test]
    fn the_sendable_check_of_a_source_agrees(
        text in "[a-z\u{e9}]{0,300}",
        key in "[a-z]{0,200}",
        cap in 64usize..300,
    ) {
        let payload = serde_json::to_string(&text).unwrap();
        let mut headers = Headers::new();
        headers.insert(key, RawJson::parse("1").unwrap());
        let frame = Frame {
            headers: Some(headers),
            payload: Payload::json(payload.clone()).unwrap(),
            end: true,
            ..Frame::on_stream(FrameType::Open, 1)
        };
        let mut source = TextSource::new(payload);
        prop_assert_eq!(
            check_sendable(&frame, cap).is_ok(),
            check_sendable_source(&frame, &mut source, cap).is_ok()
        );
    }
}

#[test]
fn a_ten_megabyte_payload_is_read_a_window_at_a_time() {
    let text = serde_json::to_string(&"ü🌍x".repeat(1_000_000)).unwrap(); // ~9 MB
    let largest = Rc::new(Cell::new(0));
    let mut conn = connection(MAX_FRAME_BYTES);
    conn.open_with_source(None, CopyingSource::boxed(&text, largest.clone()), true, 0)
        .unwrap();
    let mut joined = String::new();
    let mut frames = 0;
    while let Some(wire) = conn.poll_transmit(0) {
        assert!(wire.len() <= MAX_FRAME_BYTES);
        let frame = decode(&wire).unwrap();
        joined.push_str(frame.fragment.as_deref().unwrap());
        frames += 1;
    }
    assert_eq!(joined, text);
    assert!(frames > 100);
    assert_eq!(largest.get(), MAX_FRAME_BYTES + 1);
}

#[test]
fn a_small_pulled_payload_goes_out_whole_and_invalid_text_goes_out_as_a_fragment() {
    let mut conn = connection(MAX_FRAME_BYTES);
    conn.open_with_source(None, pulled(r#"{"a":1}"#), true, 0)
        .unwrap();
    assert_eq!(
        transmitted(&mut conn),
        [r#"{"type":"open","stream":1,"end":true,"payload":{"a":1}}"#]
    );
    // Text that is not JSON never breaks the envelope: the remote finds an undecodable payload.
    conn.open_with_source(None, pulled("{nope"), true, 0)
        .unwrap();
    assert_eq!(
        transmitted(&mut conn),
        [r#"{"type":"open","stream":3,"end":true,"fragment":"{nope"}"#]
    );
}

#[test]
fn pulled_uploads_interleave_with_streams_queued_after_them() {
    let mut conn = connection(MAX_FRAME_BYTES);
    let big = serde_json::to_string(&"x".repeat(200_000)).unwrap();
    conn.open_with_source(None, pulled(&big), true, 0).unwrap();
    conn.open(None, Payload::json("1").unwrap(), true, 0)
        .unwrap();
    let streams: Vec<u64> = transmitted(&mut conn)
        .iter()
        .map(|w| decode(w).unwrap().stream.unwrap())
        .collect();
    assert_eq!(
        streams[..3],
        [1, 3, 1],
        "the small open goes out second: {streams:?}"
    );
    assert_eq!(
        streams.iter().filter(|s| **s == 1).count(),
        streams.len() - 1
    );
}

#[test]
fn a_cancelled_pulled_upload_stops_reading_its_source() {
    let mut conn = connection(MAX_FRAME_BYTES);
    let big = serde_json::to_string(&"x".repeat(300_000)).unwrap();
    let id = conn.open(None, Payload::null(), false, 0).unwrap();
    conn.send_with_source(id, pulled(&big), true).unwrap();
    let first = conn.poll_transmit(0).unwrap();
    assert!(first.contains(r#""type":"open""#));
    let fragment = conn.poll_transmit(0).unwrap();
    assert!(fragment.contains(r#""more":true"#));
    assert!(conn.cancel(id, None));
    let rest = transmitted(&mut conn);
    assert_eq!(rest.len(), 1, "only the reset: {rest:?}");
    assert!(rest[0].contains(r#""type":"reset""#));
}

// ------------------------------------------------------------------------- fragment delivery

fn delivering(options: PeerOptions) -> Harness {
    let mut options = options;
    options.connection.deliver_fragments = true;
    Harness::connected(options)
}

fn fragments_of(h: &Harness, stream: StreamRef) -> Vec<(String, bool)> {
    h.stream_events(stream)
        .into_iter()
        .filter_map(|e| match e {
            StreamEvent::Fragment { text, more } => Some((text, more)),
            _ => None,
        })
        .collect()
}

fn reply_fragments(h: &mut Harness, stream: u64, parts: &[&str], end: bool) {
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let mut frame = json!({"type": "data", "stream": stream, "fragment": part});
        if i == 0 {
            frame["headers"] = json!({":status": 200});
        }
        if !last {
            frame["more"] = json!(true);
        }
        if last && end {
            frame["end"] = json!(true);
        }
        h.recv(frame);
    }
}

#[test]
fn fragments_reach_the_driver_one_by_one_and_the_verdict_ends_the_stream() {
    let mut h = delivering(quiet_options());
    let stream = h.open(json!(null), true);
    h.take_events();
    h.take_wire();
    reply_fragments(&mut h, 1, &["{\"a\":", "[1,2", "]}"], true);
    assert_eq!(
        fragments_of(&h, stream),
        [
            ("{\"a\":".to_owned(), true),
            ("[1,2".to_owned(), true),
            ("]}".to_owned(), false)
        ]
    );
    // The end waits for the verdict.
    assert!(!h
        .stream_events(stream)
        .iter()
        .any(|e| matches!(e, StreamEvent::End { .. } | StreamEvent::Closed)));
    h.peer.payload_checked(stream, true);
    h.flush();
    let events = h.stream_events(stream);
    assert!(matches!(events[0], StreamEvent::ReplyHeaders(_)));
    assert!(matches!(
        events[events.len() - 2..],
        [StreamEvent::End { .. }, StreamEvent::Closed]
    ));
    assert!(h.take_sent().is_empty(), "nothing sent back");
    assert_eq!(h.peer.stream_state(stream), None);
}

#[test]
fn a_payload_the_driver_could_not_parse_resets_the_stream_with_protocol_error() {
    let mut h = delivering(quiet_options());
    let stream = h.open(json!(null), true);
    h.take_wire();
    reply_fragments(&mut h, 1, &["{\"a\":", "oops"], true);
    h.peer.payload_checked(stream, false);
    h.flush();
    let sent = h.take_sent();
    assert_eq!(sent.len(), 1);
    assert!(matches(
        &sent[0],
        &json!({"type": "reset", "stream": 1, "code": 3})
    ));
    assert!(matches!(
        h.stream_events(stream).last(),
        Some(StreamEvent::Failed(StreamError::LocalReset { code: 3, .. }))
    ));
    assert!(h.is_alive(), "stream-level only");
    // A second verdict, or one for an unknown stream, changes nothing.
    h.peer.payload_checked(stream, true);
    h.peer
        .payload_checked(StreamRef { socket: 99, id: 7 }, false);
    h.flush();
    assert!(h.take_sent().is_empty());
}

#[test]
fn max_payload_bytes_is_a_byte_count_on_the_crossing_fragment() {
    let mut options = quiet_options();
    options.connection.max_payload_bytes = 8;
    let mut h = delivering(options);
    let stream = h.open(json!(null), true);
    h.take_wire();
    reply_fragments(&mut h, 1, &["[1,", "2,3", ",4,", "5]"], true);
    assert_eq!(
        fragments_of(&h, stream).len(),
        2,
        "the crossing fragment is not handed out"
    );
    let sent = h.take_sent();
    assert!(matches(
        &sent[0],
        &json!({"type": "reset", "stream": 1, "code": 7})
    ));
    assert!(matches!(
        h.stream_events(stream).last(),
        Some(StreamEvent::Failed(StreamError::LocalReset { code: 7, .. }))
    ));
}

/// Exactly `max_payload_bytes` bytes handed out is within the limit: only a fragment that
/// crosses it resets the stream (kills `>` → `>=` in `Connection::feed`; see `MUTANTS.md`).
#[test]
fn fragments_adding_up_to_exactly_max_payload_bytes_are_handed_out() {
    let mut options = quiet_options();
    options.connection.max_payload_bytes = 8;
    let mut h = delivering(options);
    let stream = h.open(json!(null), true);
    h.take_wire();
    // 3 + 3 + 2 = 8 bytes: `[1,23,4]`.
    reply_fragments(&mut h, 1, &["[1,", "23,", "4]"], true);
    assert_eq!(
        fragments_of(&h, stream),
        [
            ("[1,".to_owned(), true),
            ("23,".to_owned(), true),
            ("4]".to_owned(), false)
        ]
    );
    h.peer.payload_checked(stream, true);
    h.flush();
    assert!(h.take_sent().is_empty(), "no reset");
    assert!(matches!(
        h.stream_events(stream)[..],
        [.., StreamEvent::End { .. }, StreamEvent::Closed]
    ));
}

#[test]
fn input_without_a_verdict_counts_as_parsed_and_whole_payloads_still_arrive_whole() {
    let mut h = delivering(quiet_options());
    let first = h.open(json!(null), true);
    let second = h.open(json!(null), true);
    reply_fragments(&mut h, 1, &["[", "1]"], true);
    h.recv(json!({"type": "data", "stream": 3, "end": true, "payload": {"whole": true}}));
    assert!(matches!(
        h.stream_events(first)[..],
        [.., StreamEvent::End { .. }, StreamEvent::Closed]
    ));
    let events = h.stream_events(second);
    assert_eq!(payload_value(&events[1]), Some(json!({"whole": true})));
}

#[test]
fn input_settles_the_payload_waiting_for_a_verdict_and_skips_one_whose_stream_is_gone() {
    let mut h = delivering(quiet_options());
    let first = h.open(json!(null), true);
    let second = h.open(json!(null), true);
    // Stream 3's payload waits for a verdict; the next input (stream 1's first fragment) settles it.
    reply_fragments(&mut h, 3, &["[", "3]"], true);
    reply_fragments(&mut h, 1, &["[", "1]"], true);
    assert!(matches!(
        h.stream_events(second)[..],
        [.., StreamEvent::End { .. }, StreamEvent::Closed]
    ));
    // Stream 1's payload now waits; cancelled, its verdict is never given, and input goes on.
    h.peer.cancel(first, None);
    h.flush();
    let before = h.stream_events(first).len();
    h.recv(json!({"type": "ping", "nonce": "n"}));
    h.recv(json!({"type": "ping", "nonce": "m"}));
    let events = h.stream_events(first);
    assert_eq!(events.len(), before);
    assert!(matches!(
        events.last(),
        Some(StreamEvent::Failed(StreamError::LocalReset { code: 1, .. }))
    ));
    assert!(h.is_alive());
}

#[test]
fn a_fragmented_hello_answer_acknowledges_the_hello_without_a_verdict() {
    let mut options = quiet_options();
    options.connection.deliver_fragments = true;
    options.hello = Some(Hello {
        headers: None,
        payload: Payload::null(),
    });
    let mut h = Harness::dialing(options);
    h.open_socket();
    reply_fragments(&mut h, 1, &["{\"hi\":", "1}"], true);
    assert_eq!(h.take_events(), vec![Event::Established]);
}

// ------------------------------------------------------------------------- retried first connect

fn lazy_options() -> PeerOptions {
    let mut options = quiet_options();
    options.retry_first_connect = true;
    options.reconnect.jitter = 0.0;
    options
}

#[test]
fn a_lazy_peer_retries_its_first_connect_and_reports_it_as_established() {
    let mut h = Harness::dialing(lazy_options());
    assert_eq!(
        h.peer.open(None, Payload::null(), true, 0),
        Err(OpenError::ConnectionLost),
        "nothing is queued before the first connection"
    );
    h.dial_fails();
    assert!(h.take_events().is_empty(), "no ConnectFailed, no Closed");
    assert!(!h.peer.is_closed());
    assert_eq!(h.peer.attempts(), 1);
    h.take_wire();
    h.advance(499);
    assert!(h.take_wire().is_empty());
    h.advance(1); // 250 · 2^1
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(2, _)]));
    h.open_socket();
    assert_eq!(h.take_events(), vec![Event::Established]);
    assert_eq!(h.peer.attempts(), 0);
    // A later loss reconnects as usual and reports onReconnect(1).
    h.server_closes(1006, "");
    h.advance(250);
    h.open_socket();
    assert!(h.take_events().contains(&Event::Reconnected { attempt: 1 }));
}

#[test]
fn a_lazy_peer_gives_up_after_max_attempts_and_close_before_it_connects_reports_once() {
    let mut options = lazy_options();
    options.reconnect.max_attempts = Some(2);
    let mut h = Harness::dialing(options);
    h.dial_fails();
    h.advance(500);
    h.dial_fails();
    let closes = h.closes();
    assert_eq!(closes.len(), 1);
    assert!(!closes[0].will_retry);
    assert!(closes[0].reason.contains("gave up"));
    assert!(h.peer.is_closed());

    let mut h = Harness::dialing(lazy_options());
    h.dial_fails();
    h.peer.close(0, Some("bye".into()), 0, h.now);
    h.flush();
    assert_eq!(
        h.take_events(),
        vec![Event::Closed(CloseReason {
            code: 1000,
            reason: "bye".into(),
            was_clean: true,
            will_retry: false
        })]
    );
    assert!(h.peer.is_closed());
}

#[test]
fn a_lazy_peer_retries_a_codec_mismatch_and_a_failed_hello_too() {
    let mut options = lazy_options();
    options.hello = Some(Hello {
        headers: None,
        payload: Payload::null(),
    });
    let mut h = Harness::dialing(options);
    h.peer.socket_opened(1, "other", h.now);
    h.flush();
    assert!(h.take_events().is_empty());
    h.advance(500);
    h.open_socket();
    h.recv(json!({"type": "reset", "stream": 1, "code": 8}));
    let events = h.take_events();
    assert!(
        events.iter().all(|e| !matches!(e, Event::ConnectFailed(_))),
        "{events:?}"
    );
    assert!(!h.peer.is_closed());
    h.advance(1_000);
    h.open_socket();
    h.recv(json!({"type": "data", "stream": 1, "end": true}));
    assert!(h.take_events().contains(&Event::Established));
}
