//! A hostile or dead server (issue 12): an over-cap message is declined from its head without
//! being decoded, header maps are capped, no frame this side emits is over the cap (no pong
//! amplification), and a socket that stops delivering is found dead within
//! `ping_interval_ms + ping_timeout_ms` however much this side keeps sending.

mod common;

use common::*;
use muxws_proto::*;
use serde_json::{json, Value};

fn with_cap(cap: usize) -> PeerOptions {
    let mut options = quiet_options();
    options.connection.max_frame_bytes = cap;
    options
}

fn assert_survives(h: &Harness) {
    assert!(h.is_alive(), "the connection must survive");
    assert!(h.closes().is_empty(), "no close reported");
}

/// `goaway(3)` then `Close(4002)`, one `Closed` report with `will_retry`.
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
    assert!(goaway < close);
    let closes = h.closes();
    assert_eq!(closes.len(), 1);
    assert!(closes[0].will_retry);
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

/// Every text the peer ever sent fits `cap`.
fn assert_nothing_over(h: &Harness, cap: usize) {
    for (_, text) in &h.raw_sent {
        assert!(
            text.len() <= cap,
            "{} bytes sent over the {cap}-byte cap",
            text.len()
        );
    }
}

fn last_failure(h: &Harness, s: StreamRef) -> Option<StreamError> {
    match h.stream_events(s).last() {
        Some(StreamEvent::Failed(e)) => Some(e.clone()),
        _ => None,
    }
}

// ======================================================================= over the frame cap

#[test]
fn an_over_cap_reply_is_declined_from_its_head_without_being_decoded() {
    let mut h = Harness::connected(with_cap(256));
    let s = h.open(json!({}), true);
    h.take_wire();
    // The tail is not JSON at all: decoding the whole message would make this a
    // connection-level error. Reading only the head resets the one stream and keeps the socket.
    let text = format!(
        r#"{{"type":"data","stream":1,"payload":"{}"#,
        "z".repeat(4000)
    );
    h.recv_raw(&text);
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 7})]);
    assert!(matches!(
        last_failure(&h, s),
        Some(StreamError::LocalReset { code: 7, .. })
    ));
    assert_survives(&h);
}

#[test]
fn a_driver_may_pass_only_the_head_of_an_over_cap_message() {
    let mut h = Harness::connected(with_cap(256));
    let s = h.open(json!({}), true);
    h.take_wire();
    // What a 257-byte window holds of a 4 MiB message.
    let head = format!(
        r#"{{"type":"data","stream":1,"end":true,"payload":"{}"#,
        "y".repeat(250)
    );
    h.peer.socket_message_over_cap(h.socket, &head, h.now);
    h.flush();
    sent_only(&mut h, &[json!({"type": "reset", "stream": 1, "code": 7})]);
    assert!(matches!(
        last_failure(&h, s),
        Some(StreamError::LocalReset { code: 7, .. })
    ));
    assert_survives(&h);
    // A head cut inside the stream number never names the wrong stream.
    let s3 = h.open(json!({}), true);
    h.take_wire();
    h.peer
        .socket_message_over_cap(h.socket, r#"{"type":"data","stream":3"#, h.now);
    h.flush();
    assert_connection_died(&mut h);
    assert_eq!(last_failure(&h, s3), Some(StreamError::ConnectionLost));
}

#[test]
fn an_over_cap_open_is_refused_and_never_surfaced() {
    let mut h = Harness::connected(with_cap(256));
    let text = format!(
        r#"{{"type":"open","stream":2,"end":true,"payload":"{}"}}"#,
        "x".repeat(1000)
    );
    h.recv_raw(&text);
    sent_only(&mut h, &[json!({"type": "reset", "stream": 2, "code": 7})]);
    assert!(h
        .events
        .iter()
        .all(|e| !matches!(e, Event::Incoming { .. })));
    assert_survives(&h);
    // The id was consumed: a later open must still be above it.
    h.recv(json!({"type": "open", "stream": 2, "payload": 1}));
    assert_connection_died(&mut h);
}

#[test]
fn an_over_cap_continuation_of_a_fragmented_open_resets_that_stream() {
    let mut h = Harness::connected(with_cap(256));
    h.recv(json!({"type": "open", "stream": 2, "fragment": "[1,", "more": true}));
    let text = format!(
        r#"{{"type":"open","stream":2,"fragment":"{}"}}"#,
        "2,".repeat(300)
    );
    h.recv_raw(&text);
    sent_only(&mut h, &[json!({"type": "reset", "stream": 2, "code": 7})]);
    assert_survives(&h);
}

#[test]
fn an_over_cap_message_keeps_the_id_checks() {
    // Above the high-water mark: connection-level, as for any frame.
    let mut h = Harness::connected(with_cap(256));
    h.recv_raw(&format!(
        r#"{{"type":"data","stream":9,"payload":"{}"}}"#,
        "x".repeat(500)
    ));
    assert_connection_died(&mut h);
    // A late frame (closed, at or below the mark) stays silently ignored.
    let mut h = Harness::connected(with_cap(256));
    let s = h.open(json!({}), true);
    h.peer.cancel(s, None);
    h.flush();
    h.take_wire();
    h.recv_raw(&format!(
        r#"{{"type":"data","stream":1,"payload":"{}"}}"#,
        "x".repeat(500)
    ));
    sent_only(&mut h, &[]);
    assert_survives(&h);
    assert_eq!(h.peer.connection().unwrap().ignored_frames(), 1);
}

#[test]
fn an_over_cap_message_that_names_no_stream_in_its_head_is_connection_level() {
    // Keys in another order: the payload fills the head before `type` and `stream` appear.
    let mut h = Harness::connected(with_cap(256));
    h.open(json!({}), true);
    h.take_wire();
    h.recv_raw(&format!(
        r#"{{"payload":"{}","stream":1,"type":"data"}}"#,
        "x".repeat(500)
    ));
    assert_connection_died(&mut h);
}

#[test]
fn an_over_cap_ping_gets_no_pong_and_ends_the_connection() {
    let mut h = Harness::default_connected();
    let s = h.open(json!({}), true);
    h.take_wire();
    let nonce = "n".repeat(4 * 1024 * 1024);
    h.recv_raw(&format!(r#"{{"type":"ping","nonce":"{nonce}"}}"#));
    assert!(!h.take_sent().iter().any(|f| f["type"] == "pong"));
    h.recv_raw(&format!(r#"{{"type":"ping","nonce":"{nonce}"}}"#)); // after the end: ignored
    assert_nothing_over(&h, MAX_FRAME_BYTES);
    assert_eq!(last_failure(&h, s), Some(StreamError::ConnectionLost));
    let closes = h.closes();
    assert_eq!(closes.len(), 1);
    assert_eq!(closes[0].code, CLOSE_PROTOCOL_ERROR);
    // Same for the other connection-level types and unknown ones.
    for kind in ["pong", "goaway", "widget"] {
        let mut h = Harness::connected(with_cap(128));
        h.recv_raw(&format!(
            r#"{{"type":"{kind}","reason":"{}"}}"#,
            "r".repeat(200)
        ));
        assert_connection_died(&mut h);
    }
}

#[test]
fn a_ping_at_the_cap_is_answered_within_the_cap() {
    for cap in [64usize, 100, 256, MAX_FRAME_BYTES] {
        let mut h = Harness::connected(with_cap(cap));
        // Exactly `cap` bytes, with escapes that decode shorter and a solidus we write bare.
        let shell = r#"{"type":"ping","nonce":"\u0041\/"}"#.len();
        let nonce = format!("\\u0041\\/{}", "k".repeat(cap - shell));
        let ping = format!(r#"{{"type":"ping","nonce":"{nonce}"}}"#);
        assert_eq!(ping.len(), cap);
        h.recv_raw(&ping);
        let sent = h.take_sent();
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(sent[0]["type"], "pong");
        assert_eq!(
            sent[0]["nonce"],
            json!(format!("A/{}", "k".repeat(cap - shell)))
        );
        assert_nothing_over(&h, cap);
        assert_survives(&h);
    }
}

// ======================================================================= header maps

fn many_keys(n: usize) -> String {
    let body: Vec<String> = (0..n).map(|i| format!(r#""k{i}":{i}"#)).collect();
    format!("{{{}}}", body.join(","))
}

#[test]
fn header_maps_are_capped_at_their_own_level() {
    let mut h = Harness::default_connected();
    // At the cap: accepted whole, in order.
    h.recv_raw(&format!(
        r#"{{"type":"open","stream":2,"end":true,"headers":{}}}"#,
        many_keys(MAX_HEADER_KEYS)
    ));
    match h.take_events().as_slice() {
        [Event::Incoming {
            headers: Some(headers),
            ..
        }] => {
            assert_eq!(headers.len(), MAX_HEADER_KEYS);
            assert_eq!(
                headers.iter().last().unwrap().0,
                format!("k{}", MAX_HEADER_KEYS - 1)
            );
        }
        other => panic!("{other:?}"),
    }
    // One over (duplicates count): a new open is refused with 7, never surfaced.
    h.recv_raw(&format!(
        r#"{{"type":"open","stream":4,"end":true,"headers":{}}}"#,
        many_keys(MAX_HEADER_KEYS + 1)
    ));
    sent_only(&mut h, &[json!({"type": "reset", "stream": 4, "code": 7})]);
    assert!(h.take_events().is_empty());
    // A reply whose headers, or trailers, are over: that stream is reset, the socket kept.
    for field in ["headers", "trailers"] {
        let s = h.open(json!({}), true);
        h.take_wire();
        h.recv_raw(&format!(
            r#"{{"type":"data","stream":{},"end":true,"{field}":{}}}"#,
            s.id,
            many_keys(MAX_HEADER_KEYS + 1)
        ));
        sent_only(
            &mut h,
            &[json!({"type": "reset", "stream": s.id, "code": 7})],
        );
        assert!(matches!(
            last_failure(&h, s),
            Some(StreamError::LocalReset { code: 7, .. })
        ));
        assert_survives(&h);
    }
    // On a connection-level frame it is a connection-level error.
    h.recv_raw(&format!(
        r#"{{"type":"ping","nonce":"a","headers":{}}}"#,
        many_keys(MAX_HEADER_KEYS + 1)
    ));
    assert_connection_died(&mut h);
}

#[test]
fn duplicate_header_keys_keep_the_first_position_and_the_last_value() {
    // Against a straightforward model of JSON.parse, over many shapes of duplication.
    let mut seed = 7u64;
    for round in 0..200 {
        let n = 1 + round % 40;
        let mut members = Vec::new();
        for i in 0..n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = format!("k{}", (seed >> 33) % (1 + n as u64 / 3));
            members.push((key, i));
        }
        let text = format!(
            "{{{}}}",
            members
                .iter()
                .map(|(k, v)| format!(r#""{k}":{v}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut expected: Vec<(String, String)> = Vec::new();
        for (k, v) in &members {
            match expected.iter_mut().find(|(ek, _)| ek == k) {
                Some(entry) => entry.1 = v.to_string(),
                None => expected.push((k.clone(), v.to_string())),
            }
        }
        let headers = Headers::from_json(&text).unwrap();
        let got: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_owned(), v.as_str().to_owned()))
            .collect();
        assert_eq!(got, expected, "{text}");
        // The decoder agrees, and escaped spellings of one key are one key.
        let frame = decode(&format!(r#"{{"type":"open","stream":2,"headers":{text}}}"#)).unwrap();
        assert_eq!(frame.headers, Some(headers));
    }
    let h = Headers::from_json(r#"{"a":1,"\u0061":2,"b":3,"a":4}"#).unwrap();
    assert_eq!(h.to_json(), r#"{"a":4,"b":3}"#);
}

// ======================================================================= liveness by arrival

fn heartbeat_options() -> PeerOptions {
    let mut options = quiet_options();
    options.connection.ping_interval_ms = DEFAULT_PING_INTERVAL_MS;
    options.connection.ping_timeout_ms = DEFAULT_PING_TIMEOUT_MS;
    options
}

fn heartbeat_deaths(h: &Harness) -> Vec<CloseReason> {
    h.closes()
        .into_iter()
        .filter(|c| c.reason.starts_with("no pong"))
        .collect()
}

#[test]
fn a_silent_socket_is_dead_within_interval_plus_timeout_however_much_is_sent() {
    let mut h = Harness::connected(heartbeat_options());
    let t0 = h.now; // the last arrival (the socket opened)
    let mut streams = Vec::new();
    // Calls keep going out every second and time out after 5 s, as repeats do; nothing arrives.
    while h.closes().is_empty() {
        let s = h.open(json!({"call": streams.len()}), true);
        streams.push((s, h.now));
        for (s, opened) in &streams {
            if h.now >= opened + 5_000 {
                h.peer.timeout(*s);
            }
        }
        h.flush();
        h.advance(1_000);
        assert!(
            h.now - t0 <= 31_000,
            "not found dead after {} ms",
            h.now - t0
        );
    }
    let sent: Vec<Value> = h.take_sent();
    let pings: Vec<&Value> = sent.iter().filter(|f| f["type"] == "ping").collect();
    assert_eq!(pings.len(), 1, "one ping, 20 s after the last arrival");
    assert!(sent.iter().filter(|f| f["type"] == "open").count() >= 29);
    let deaths = heartbeat_deaths(&h);
    assert_eq!(deaths.len(), 1);
    assert!(deaths[0].will_retry);
    assert_eq!(deaths[0].code, 1006);
    // Every stream still live at that moment failed ConnectionLost, before the Closed report.
    let closed_at = h
        .events
        .iter()
        .position(|e| matches!(e, Event::Closed(_)))
        .unwrap();
    for (s, _) in &streams {
        let failed = h.events.iter().position(
            |e| matches!(e, Event::Stream { stream, event: StreamEvent::Failed(_) } if stream == s),
        );
        let failed = failed.expect("every stream ended");
        if let Event::Stream {
            event: StreamEvent::Failed(StreamError::ConnectionLost),
            ..
        } = &h.events[failed]
        {
            assert!(failed < closed_at);
        }
    }
    // And the backoff path redials.
    h.advance(1_000);
    assert!(h.wire.iter().any(|w| matches!(w, Wire::Dial(..))));
}

#[test]
fn detection_time_is_bounded_by_interval_plus_timeout() {
    for (interval, timeout) in [(1_000u64, 500u64), (20_000, 10_000), (5_000, 30_000)] {
        let mut options = heartbeat_options();
        options.connection.ping_interval_ms = interval;
        options.connection.ping_timeout_ms = timeout;
        let mut h = Harness::connected(options);
        // Some traffic arrives first; the line goes silent at `silent_at`.
        h.advance(interval / 2);
        h.recv(json!({"type": "widget"}));
        let silent_at = h.now;
        let mut step = 0;
        while heartbeat_deaths(&h).is_empty() {
            if step % 97 == 0 {
                h.open(json!({"n": step}), true); // sending all the time
            }
            step += 1;
            h.advance(1);
        }
        let dead_after = h.now - silent_at;
        assert!(
            dead_after <= interval + timeout,
            "{dead_after} > {interval}+{timeout}"
        );
        assert_eq!(dead_after, interval + timeout, "not before the deadline");
    }
}

#[test]
fn a_pong_proves_life_and_the_next_ping_follows_the_last_arrival() {
    let mut h = Harness::connected(heartbeat_options());
    for _ in 0..5 {
        h.advance(20_000);
        let sent = h.take_sent();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0]["type"], "ping");
        h.advance(3_000);
        h.recv(json!({"type": "pong", "nonce": sent[0]["nonce"]}));
        // Sending meanwhile changes nothing.
        h.open(json!({}), true);
        h.take_wire();
    }
    assert_survives(&h);
    // A steady inbound flow means no ping at all.
    let mut h = Harness::connected(heartbeat_options());
    for _ in 0..100 {
        h.advance(19_000);
        h.recv(json!({"type": "widget"}));
    }
    assert!(h.take_sent().is_empty());
    assert_survives(&h);
}

// ======================================================================= round trips

#[test]
fn hostile_pongs_measure_nothing_and_hold_nothing() {
    let mut options = heartbeat_options();
    options.connection.max_frame_bytes = 4_096;
    let mut h = Harness::connected(options);
    h.advance(20_000);
    let sent = h.take_sent();
    assert_eq!(sent[0]["type"], "ping");
    let nonce = sent[0]["nonce"].as_str().unwrap().to_owned();
    // A flood of pongs that answer nothing: nonces of every length up to the cap, no nonce, the
    // ping's nonce with a character added or dropped or reversed. (A nonce that is not a
    // string is a wrong field type: a protocol error, tested with the other frames.)
    let long = "f".repeat(4_000);
    for i in 0..2_000u32 {
        let frame = match i % 5 {
            0 => json!({"type": "pong", "nonce": &long[..(i as usize * 7) % 4_000]}),
            1 => json!({"type": "pong"}),
            2 => json!({"type": "pong", "nonce": nonce.chars().rev().collect::<String>()}),
            3 => json!({"type": "pong", "nonce": format!("{nonce}0")}),
            _ => json!({"type": "pong", "nonce": &nonce[1..]}),
        };
        h.recv(frame);
    }
    assert_eq!(h.peer.poll_round_trip(), None, "no pong of these answers the ping");
    assert!(h.take_sent().is_empty(), "a pong is never answered");
    // The ping is still outstanding and still judged: its own pong measures it …
    h.advance(3);
    h.recv(json!({"type": "pong", "nonce": nonce}));
    assert_eq!(h.peer.poll_round_trip(), Some(3));
    // … and a thousand repeats of it measure nothing more.
    for _ in 0..1_000 {
        h.recv(json!({"type": "pong", "nonce": nonce}));
    }
    assert_eq!(h.peer.poll_round_trip(), None);
    let conn = h.peer.connection().unwrap();
    assert_eq!(conn.live_streams().count(), 0);
    assert_survives(&h);
}

#[test]
fn a_clock_that_went_back_measures_zero() {
    let mut h = Harness::connected(heartbeat_options());
    h.advance(20_000);
    let sent = h.take_sent();
    let nonce = sent[0]["nonce"].as_str().unwrap().to_owned();
    // The pong's `now` is before the ping's: 0, never a wrapped figure.
    let text = json!({"type": "pong", "nonce": nonce}).to_string();
    let socket = h.socket;
    h.peer.socket_message(socket, &text, h.now - 500);
    assert_eq!(h.peer.poll_round_trip(), Some(0));
}
