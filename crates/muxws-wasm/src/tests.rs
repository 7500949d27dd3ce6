//! The module driven as its driver drives it: text written into the input window, numbers in,
//! records out; the server's side played by hand.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::module::{Module, PeerConfig};
use crate::abi::{self, class};
use muxws_proto::ErrorClass;
use crate::source::tests::FakeStrings;

/// One output record, read as the driver reads it.
#[derive(Debug, Clone, PartialEq)]
struct Record {
    kind: u32,
    fields: [f64; 5],
    text: String,
}

struct Driver {
    module: Module<FakeStrings>,
    strings: FakeStrings,
    next_source: u32,
    now: f64,
}

impl Driver {
    fn new() -> Driver {
        let strings = FakeStrings::default();
        Driver {
            module: Module::new(strings.clone()),
            strings,
            next_source: 0,
            now: 1_000.0,
        }
    }

    /// Writes `parts` one after another into the input window; their byte lengths.
    fn write(&mut self, parts: &[&str]) -> Vec<i32> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let window = self.module.input(total);
        let mut at = 0;
        parts
            .iter()
            .map(|p| {
                window[at..at + p.len()].copy_from_slice(p.as_bytes());
                at += p.len();
                p.len() as i32
            })
            .collect()
    }

    fn source(&mut self, text: &str) -> (u32, u32) {
        self.next_source += 1;
        let units = self.strings.put(self.next_source, text);
        (self.next_source, units)
    }

    fn peer(&mut self, config: PeerConfig) -> u32 {
        let lens = self.write(&["token.a"]);
        let peer = self.module.peer_new(&config, lens[0], -1, -1);
        assert!(peer > 0, "{}", self.module.out.text);
        peer
    }

    fn record(&self, kind: u32) -> Record {
        let f = &self.module.out.fields;
        Record {
            kind,
            fields: [f[1], f[2], f[3], f[4], f[5]],
            text: self.module.out.text.clone(),
        }
    }

    /// Every record until there is none, performing RELEASEs as the driver does.
    fn poll(&mut self, peer: u32, sends: bool) -> Vec<Record> {
        let mut out = Vec::new();
        loop {
            let kind = self.module.poll(peer, self.now, sends);
            if kind == 0 {
                return out;
            }
            let record = self.record(kind);
            if kind == abi::release::KIND {
                self.strings.forget(record.fields[0] as u32);
            }
            out.push(record);
        }
    }

    fn connected(&mut self, config: PeerConfig) -> u32 {
        let peer = self.peer(config);
        let dial = self.poll(peer, true);
        assert_eq!(dial[0].kind, abi::dial::KIND);
        assert_eq!(dial[0].text, "muxws.v1.json,token.a");
        let lens = self.write(&["muxws.v1.json"]);
        self.module
            .socket_opened(peer, dial[0].fields[0], lens[0], self.now);
        assert_eq!(kinds(&self.poll(peer, true)), [abi::established::KIND]);
        peer
    }

    /// A peer with a hello (`headers`, `payload` as JSON texts) whose socket has opened; the
    /// records polled after the open (the hello's `open` among them).
    fn opened_with_hello(&mut self, headers: &str, payload: &str) -> (u32, Vec<Record>) {
        let lens = self.write(&["", headers, payload]);
        let peer = self.module.peer_new(&quiet(), lens[0], lens[1], lens[2]);
        assert!(peer > 0, "{}", self.module.out.text);
        let dial = self.poll(peer, true);
        assert_eq!(dial[0].text, "muxws.v1.json");
        let lens = self.write(&["muxws.v1.json"]);
        self.module
            .socket_opened(peer, dial[0].fields[0], lens[0], self.now);
        (peer, self.poll(peer, true))
    }

    fn receive(&mut self, peer: u32, frame: Value) {
        let text = frame.to_string();
        let lens = self.write(&[&text]);
        self.module
            .socket_message(peer, 1.0, lens[0], true, self.now);
    }

    fn open_call(&mut self, peer: u32, headers: &Value, body: &str) -> u32 {
        let text = headers.to_string();
        let lens = self.write(&[&text]);
        let (source, units) = self.source(body);
        let tag = self
            .module
            .open(peer, lens[0], source, units, true, true, self.now);
        assert!(tag > 0, "{}", self.module.out.text);
        tag
    }
}

#[test]
fn the_dial_offers_the_non_empty_subprotocols_in_their_order() {
    let mut d = Driver::new();
    let lens = d.write(&[",,token.a,,ünï,b,"]);
    let peer = d.module.peer_new(&PeerConfig::default(), lens[0], -1, -1);
    assert!(peer > 0, "{}", d.module.out.text);
    let dial = d.poll(peer, true);
    assert_eq!(dial[0].kind, abi::dial::KIND);
    assert_eq!(dial[0].text, "muxws.v1.json,token.a,ünï,b");
}

fn kinds(records: &[Record]) -> Vec<u32> {
    records.iter().map(|r| r.kind).collect()
}

/// The first record of `kind` among `records`.
fn first_of(records: &[Record], kind: u32) -> &Record {
    records.iter().find(|r| r.kind == kind).unwrap()
}

fn sent(records: &[Record]) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r.kind == abi::send::KIND)
        .map(|r| serde_json::from_str(&r.text).unwrap())
        .collect()
}

fn quiet() -> PeerConfig {
    PeerConfig {
        ping_interval_ms: 0.0,
        ..PeerConfig::default()
    }
}

#[test]
fn a_viewset_call_goes_out_and_its_answer_comes_back_as_records() {
    let mut d = Driver::new();
    let peer = d.connected(quiet());
    let tag = d.open_call(
        peer,
        &json!({":method": "POST", ":path": "/items/echo", "idempotency-key": "\"k\""}),
        r#"{"note":"é"}"#,
    );
    assert_eq!(d.module.stream_count(peer), 1);
    // Nothing reaches the socket until the driver flushes (once per turn).
    let events_only = d.poll(peer, false);
    assert!(sent(&events_only).is_empty());
    let records = d.poll(peer, true);
    assert_eq!(
        sent(&records),
        [json!({"type": "open", "stream": 1, "end": true,
            "headers": {":method": "POST", ":path": "/items/echo", "idempotency-key": "\"k\""},
            "payload": {"note": "é"}})]
    );
    assert!(
        records.iter().any(|r| r.kind == abi::release::KIND),
        "the small body was read once"
    );
    d.receive(
        peer,
        json!({"type": "data", "stream": 1, "end": true, "headers": {":status": 201}, "payload": {"ok": 1}}),
    );
    let records = d.poll(peer, true);
    assert_eq!(
        kinds(&records),
        [
            abi::reply_headers::KIND,
            abi::payload::KIND,
            abi::end::KIND,
            abi::stream_closed::KIND
        ]
    );
    assert!(records.iter().all(|r| r.fields[0] == f64::from(tag)));
    assert_eq!(records[0].text, r#"{":status":201}"#);
    assert_eq!(records[1].text, r#"{"ok":1}"#);
    assert_eq!(d.module.stream_count(peer), 0);
    assert_eq!(d.strings.count(), 0, "every source released");
}

#[test]
fn calls_beyond_call_concurrency_wait_unsent_and_go_out_in_order() {
    let mut d = Driver::new();
    let peer = d.connected(PeerConfig {
        call_concurrency: 2.0,
        ..quiet()
    });
    let tags: Vec<u32> = (0..4)
        .map(|i| d.open_call(peer, &json!({":path": "/p"}), &i.to_string()))
        .collect();
    assert_eq!(d.module.stream_count(peer), 4);
    assert_eq!(d.module.stream_id(peer, tags[1]), 3.0);
    assert_eq!(d.module.stream_id(peer, tags[2]), 0.0, "waiting: no id yet");
    let first = sent(&d.poll(peer, true));
    assert_eq!(first.len(), 2);
    // A direct stream is not a call: never held back.
    let lens = d.write(&[]);
    let _ = lens;
    let (source, units) = d.source("null");
    let direct = d.module.open(peer, -1, source, units, true, false, d.now);
    assert!(direct > 0);
    assert_eq!(sent(&d.poll(peer, true)).len(), 1);
    d.receive(
        peer,
        json!({"type": "data", "stream": 1, "end": true, "payload": 0}),
    );
    let records = d.poll(peer, true);
    let opened = sent(&records);
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0]["payload"], json!(2), "the third call, in order");
    assert_eq!(opened[0]["stream"], json!(7));
    assert_eq!(d.module.stream_count(peer), 4);
    // A waiting call that is abandoned is dropped unsent.
    d.module.cancel(peer, tags[3], -1);
    d.receive(
        peer,
        json!({"type": "data", "stream": 3, "end": true, "payload": 0}),
    );
    assert!(sent(&d.poll(peer, true)).is_empty());
    assert_eq!(d.module.stream_count(peer), 2);
}

#[test]
fn waiting_calls_fail_with_connection_closed_when_the_peer_closes_for_good() {
    let mut d = Driver::new();
    let peer = d.connected(PeerConfig {
        call_concurrency: 1.0,
        ..quiet()
    });
    d.open_call(peer, &json!({}), "1");
    let waiting = d.open_call(peer, &json!({}), "2");
    d.poll(peer, true);
    let lens = d.write(&["bye"]);
    d.module.close(peer, 0.0, lens[0], 0.0, d.now);
    d.poll(peer, true);
    d.module.timer(peer, d.now); // the drain deadline
    let records = d.poll(peer, true);
    let failed: Vec<&Record> = records
        .iter()
        .filter(|r| r.kind == abi::open_failed::KIND)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].fields[0], f64::from(waiting));
    assert_eq!(failed[0].fields[1], f64::from(ErrorClass::ConnectionClosed as u32));
    let closed = first_of(&records, abi::closed::KIND);
    assert_eq!((closed.fields[2], closed.text.as_str()), (0.0, "bye"));
    assert!(d.module.is_closed(peer));
    // Opening now: ConnectionClosed, nothing sent.
    let (source, units) = d.source("1");
    assert_eq!(d.module.open(peer, -1, source, units, true, true, d.now), 0);
    assert_eq!(d.module.out.fields[1], f64::from(ErrorClass::ConnectionClosed as u32));
    d.poll(peer, true);
    d.module.peer_free(peer);
    assert!(d.module.is_closed(peer));
    assert_eq!(d.strings.count(), 0);
}

#[test]
fn ten_megabytes_each_way_pass_a_window_and_a_fragment_at_a_time() {
    let mut d = Driver::new();
    let peer = d.connected(quiet());
    let body = serde_json::to_string(&"é🌍x".repeat(1_200_000)).unwrap(); // ~10 MB
    let tag = d.open_call(peer, &json!({":path": "/echo"}), &body);
    let mut joined = String::new();
    let mut largest = 0;
    loop {
        let kind = d.module.poll(peer, d.now, true);
        if kind == 0 {
            break;
        }
        if kind == abi::send::KIND {
            let text = &d.module.out.text;
            largest = largest.max(text.len());
            let frame: Value = serde_json::from_str(text).unwrap();
            joined.push_str(frame["fragment"].as_str().unwrap());
        }
    }
    assert_eq!(joined, body);
    assert!(largest <= 65_536);
    assert!(
        d.module.input(0).len() <= 65_537,
        "the input window never grew past the frame cap"
    );
    // The answer, in fragments: handed out one by one, never joined here.
    let cap_text = "x".repeat(60_000);
    let parts = 170;
    for i in 0..parts {
        let mut frame = json!({"type": "data", "stream": 1, "fragment": cap_text});
        if i == 0 {
            frame["headers"] = json!({":status": 200});
        }
        if i + 1 < parts {
            frame["more"] = json!(true);
        } else {
            frame["end"] = json!(true);
        }
        d.receive(peer, frame);
    }
    let records = d.poll(peer, true);
    let fragments: Vec<&Record> = records
        .iter()
        .filter(|r| r.kind == abi::fragment::KIND)
        .collect();
    assert_eq!(fragments.len(), parts);
    assert_eq!(fragments.last().unwrap().fields[1], 0.0);
    assert!(fragments[..parts - 1].iter().all(|r| r.fields[1] == 1.0));
    d.module.checked(peer, tag, true);
    assert_eq!(kinds(&d.poll(peer, true)), [abi::end::KIND, abi::stream_closed::KIND]);
}

#[test]
fn a_payload_the_driver_could_not_parse_fails_its_stream_with_a_reset() {
    let mut d = Driver::new();
    let peer = d.connected(quiet());
    let tag = d.open_call(peer, &json!({}), "1");
    d.poll(peer, true);
    d.receive(
        peer,
        json!({"type": "data", "stream": 1, "fragment": "{", "more": true}),
    );
    d.receive(
        peer,
        json!({"type": "data", "stream": 1, "fragment": "!", "end": true}),
    );
    d.poll(peer, true);
    d.module.checked(peer, tag, false);
    let records = d.poll(peer, true);
    assert_eq!(sent(&records)[0]["code"], json!(3));
    let failed = first_of(&records, abi::stream_failed::KIND);
    assert_eq!(failed.fields[1], f64::from(ErrorClass::StreamReset as u32));
    assert_eq!(failed.fields[2], 3.0);
}

/// A request that is not a ViewSet call (`call` 0), with `set_deadline` at `at`; its tag.
#[test]
fn a_pong_comes_out_as_the_round_trip_of_its_ping_once() {
    let mut d = Driver::new();
    let peer = d.connected(PeerConfig {
        ping_interval_ms: 1_000.0,
        ..PeerConfig::default()
    });
    let start = d.now;
    assert_eq!(d.module.next_timeout(peer), start + 1_000.0, "the heartbeat's ping");
    d.now = start + 1_000.0;
    d.module.timer(peer, d.now);
    let records = d.poll(peer, true);
    let ping = sent(&records);
    assert_eq!(ping.len(), 1);
    assert_eq!(ping[0]["type"], "ping");
    assert!(records.iter().all(|r| r.kind != abi::round_trip::KIND));
    d.now += 37.0;
    d.receive(peer, json!({"type": "pong", "nonce": "ffff"}));
    assert!(d.poll(peer, true).iter().all(|r| r.kind != abi::round_trip::KIND), "not its pong");
    d.receive(peer, json!({"type": "pong", "nonce": ping[0]["nonce"]}));
    let records = d.poll(peer, true);
    assert_eq!(kinds(&records), [abi::round_trip::KIND]);
    assert_eq!(records[0].fields[0], 37.0);
    d.receive(peer, json!({"type": "pong", "nonce": ping[0]["nonce"]}));
    assert!(d.poll(peer, true).is_empty(), "its repeat measures nothing");
}

fn request_until(d: &mut Driver, peer: u32, at: f64) -> u32 {
    let (source, units) = d.source("1");
    let tag = d.module.open(peer, -1, source, units, true, false, d.now);
    assert!(tag > 0, "{}", d.module.out.text);
    d.module.set_deadline(peer, tag, at);
    tag
}

#[test]
fn a_request_deadline_is_served_by_the_peers_timer_and_times_the_stream_out() {
    let mut d = Driver::new();
    let peer = d.connected(quiet());
    assert_eq!(d.module.next_timeout(peer), -1.0, "a quiet peer has no timer");
    let start = d.now;
    let late = request_until(&mut d, peer, start + 5_000.0);
    let soon = request_until(&mut d, peer, start + 2_000.0);
    d.poll(peer, true);
    assert_eq!(d.module.next_timeout(peer), start + 2_000.0, "the earliest deadline");
    // early: nothing happens
    d.now = start + 1_999.0;
    d.module.timer(peer, d.now);
    assert!(d.poll(peer, true).iter().all(|r| r.kind != abi::stream_failed::KIND));
    d.now = start + 2_000.0;
    d.module.timer(peer, d.now);
    let records = d.poll(peer, true);
    assert_eq!(sent(&records), [json!({"type": "reset", "stream": 3, "code": 6, "reason": "deadline exceeded"})]);
    let failed = first_of(&records, abi::stream_failed::KIND);
    assert_eq!(failed.fields[0], f64::from(soon));
    assert_eq!(failed.fields[1], f64::from(ErrorClass::StreamTimeout as u32));
    assert_eq!(d.module.next_timeout(peer), start + 5_000.0, "the other deadline is next");
    // the other one is answered before its deadline: its deadline goes with it
    d.receive(peer, json!({"type": "data", "stream": 1, "end": true, "headers": {":status": 200}, "payload": 1}));
    let records = d.poll(peer, true);
    assert!(records.iter().any(|r| r.kind == abi::stream_closed::KIND && r.fields[0] == f64::from(late)), "{records:?}");
    assert_eq!(d.module.next_timeout(peer), -1.0, "no deadline is left");
    // unknown peers and tags are ignored
    d.module.set_deadline(peer, 999, start);
    d.module.set_deadline(peer + 1, late, start);
    assert_eq!(d.module.next_timeout(peer), -1.0);
}

#[test]
fn a_message_over_the_cap_is_refused_from_its_head() {
    let mut d = Driver::new();
    let peer = d.connected(PeerConfig {
        max_frame_bytes: 1_000.0,
        ..quiet()
    });
    d.open_call(peer, &json!({}), "1");
    d.poll(peer, true);
    let head = format!(
        r#"{{"type":"data","stream":1,"payload":"{}"#,
        "x".repeat(1_000)
    );
    let lens = d.write(&[&head[..1_001]]);
    d.module.socket_message(peer, 1.0, lens[0], false, d.now);
    let records = d.poll(peer, true);
    assert_eq!(sent(&records)[0]["code"], json!(7));
    let failed = first_of(&records, abi::stream_failed::KIND);
    assert_eq!(failed.fields[2], 7.0);
    assert!(d.module.is_open(peer));
}

#[test]
fn stream_failures_carry_message_reason_and_payload_as_offsets_into_one_text() {
    let mut d = Driver::new();
    let peer = d.connected(quiet());
    let tag = d.open_call(peer, &json!({}), "1");
    d.poll(peer, true);
    d.receive(
        peer,
        json!({"type": "reset", "stream": 1, "code": 2, "reason": "boom", "payload": {"type": "E"}}),
    );
    let records = d.poll(peer, true);
    let failed = first_of(&records, abi::stream_failed::KIND);
    assert_eq!(failed.fields[0], f64::from(tag));
    assert_eq!(failed.fields[1], f64::from(ErrorClass::RemoteError as u32));
    let (reason_at, payload_at) = (failed.fields[3] as usize, failed.fields[4] as usize);
    assert_eq!(
        &failed.text[..reason_at],
        "stream reset by the remote with code 2: boom"
    );
    assert_eq!(&failed.text[reason_at..payload_at], "boom");
    assert_eq!(&failed.text[payload_at..], r#"{"type":"E"}"#);
}

#[test]
fn a_lazy_peer_refuses_opens_until_its_first_connection_and_retries_failed_dials() {
    let mut d = Driver::new();
    let peer = d.peer(PeerConfig {
        lazy: true,
        jitter: 0.0,
        ..quiet()
    });
    let dial = d.poll(peer, true);
    let (source, units) = d.source("1");
    assert_eq!(d.module.open(peer, -1, source, units, true, true, d.now), 0);
    assert_eq!(d.module.out.fields[1], f64::from(ErrorClass::ConnectionLost as u32));
    let lens = d.write(&["Received network error or non-101 status code."]);
    d.module
        .socket_closed(peer, dial[0].fields[0], 1006, lens[0], false, d.now);
    let records = d.poll(peer, true);
    assert!(
        records.iter().all(|r| r.kind != abi::connect_failed::KIND),
        "{records:?}"
    );
    let at = d.module.next_timeout(peer);
    assert!(at > d.now);
    d.now = at;
    d.module.timer(peer, d.now);
    let redial = d.poll(peer, true);
    assert_eq!(redial[0].kind, abi::dial::KIND);
    let lens = d.write(&["muxws.v1.json"]);
    d.module
        .socket_opened(peer, redial[0].fields[0], lens[0], d.now);
    assert_eq!(kinds(&d.poll(peer, true)), [abi::established::KIND]);
}

#[test]
fn a_refused_first_connect_is_connection_refused_and_a_wrong_subprotocol_codec_mismatch() {
    let mut d = Driver::new();
    let peer = d.peer(quiet());
    let dial = d.poll(peer, true);
    let lens = d.write(&[""]);
    d.module
        .socket_closed(peer, dial[0].fields[0], 1006, lens[0], false, d.now);
    let failed = d.poll(peer, true);
    assert_eq!(failed[0].kind, abi::connect_failed::KIND);
    assert_eq!(failed[0].fields[1], f64::from(ErrorClass::ConnectionRefused as u32));
    assert_eq!(failed[0].fields[2], 1006.0, "the close code the platform reported");
    assert!(!failed[0].text.contains("CodecMismatch"));

    let peer = d.peer(quiet());
    let dial = d.poll(peer, true);
    let lens = d.write(&["token.a"]);
    d.module
        .socket_opened(peer, dial[0].fields[0], lens[0], d.now);
    let records = d.poll(peer, true);
    let failed = first_of(&records, abi::connect_failed::KIND);
    assert_eq!(failed.fields[1], f64::from(ErrorClass::CodecMismatch as u32));
    assert!(failed.text.contains("token.a") && failed.text.contains("muxws.v1.json"));
}

#[test]
fn bad_options_and_bad_headers_are_errors_not_panics() {
    let mut d = Driver::new();
    let lens = d.write(&[""]);
    let config = PeerConfig {
        max_frame_bytes: 10.0,
        ..quiet()
    };
    assert_eq!(d.module.peer_new(&config, lens[0], -1, -1), 0);
    assert_eq!(d.module.out.fields[1], f64::from(class::CONFIG));
    let lens = d.write(&["", "{not json", "1"]);
    assert_eq!(d.module.peer_new(&quiet(), lens[0], lens[1], lens[2]), 0);
    let peer = d.connected(quiet());
    let lens = d.write(&["[1]"]);
    let (source, units) = d.source("1");
    assert_eq!(
        d.module
            .open(peer, lens[0], source, units, true, false, d.now),
        0
    );
    assert_eq!(d.module.out.fields[1], f64::from(ErrorClass::ProtocolError as u32));
    // Headers over the frame cap: a ProtocolError, nothing sent.
    let big = json!({"x": "y".repeat(70_000)}).to_string();
    let lens = d.write(&[&big]);
    let (source, units) = d.source("1");
    assert_eq!(
        d.module
            .open(peer, lens[0], source, units, true, true, d.now),
        0
    );
    assert_eq!(d.module.out.fields[1], f64::from(ErrorClass::ProtocolError as u32));
    let records = d.poll(peer, true);
    assert!(sent(&records).is_empty());
    assert_eq!(d.strings.count(), 0, "the refused bodies were released");
}

#[test]
fn a_hello_is_given_as_texts_in_the_input_window() {
    let mut d = Driver::new();
    let (_, records) = d.opened_with_hello(r#"{":path":"/hello"}"#, r#"{"tab":"é"}"#);
    let hello = sent(&records);
    assert_eq!(
        hello,
        [
            json!({"type": "open", "stream": 1, "end": true, "headers": {":path": "/hello"}, "payload": {"tab": "é"}})
        ]
    );
}

#[test]
fn a_hello_reset_fails_the_first_connect_with_its_stream_error_unwrapped() {
    // WSM-RCN-026: connect() reports the underlying error, here RemoteError with its code (2),
    // reason and payload, laid out as a failed stream's record.
    let mut d = Driver::new();
    let (peer, _) = d.opened_with_hello(r#"{":path":"/hello"}"#, r#"{"tab":1}"#);
    d.receive(
        peer,
        json!({"type": "reset", "stream": 1, "code": 2, "reason": "who are you", "payload": {"need": "token"}}),
    );
    let records = d.poll(peer, true);
    let failed = first_of(&records, abi::connect_failed::KIND);
    assert_eq!(failed.fields[1], f64::from(ErrorClass::RemoteError as u32));
    assert_eq!(failed.fields[2], 2.0, "the reset's code");
    let (reason_at, payload_at) = (failed.fields[3] as usize, failed.fields[4] as usize);
    assert_eq!(&failed.text[reason_at..payload_at], "who are you");
    assert_eq!(&failed.text[payload_at..], r#"{"need":"token"}"#);
}

#[derive(Debug, Clone)]
enum Op {
    Message(String, bool),
    Opened(String),
    Closed(u32),
    Binary,
    Timer(u64),
    Open(Option<String>, String, bool, bool),
    Send(u32, Option<String>, bool),
    Cancel(u32),
    Expire(u32),
    AcceptPushes(bool),
    Finish(u32),
    Checked(u32, bool),
    Close,
    Reconnect,
    Poll(bool),
    Free,
    Peer(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let frame = prop_oneof![
        Just(r#"{"type":"data","stream":1,"end":true,"payload":1}"#.to_owned()),
        Just(
            r#"{"type":"data","stream":3,"fragment":"[1","more":true,"headers":{":status":200}}"#
                .to_owned()
        ),
        Just(r#"{"type":"data","stream":3,"fragment":"]","end":true}"#.to_owned()),
        Just(r#"{"type":"reset","stream":1,"code":4}"#.to_owned()),
        Just(r#"{"type":"goaway","last_stream":1}"#.to_owned()),
        Just(r#"{"type":"ping","nonce":"a"}"#.to_owned()),
        Just(r#"{"type":"open","stream":2,"end":true,"payload":null}"#.to_owned()),
        Just(r#"{"type":"open","stream":4,"headers":{":rev":1},"fragment":"[","more":true}"#.to_owned()),
        Just(r#"{"type":"open","stream":4,"fragment":"1]"}"#.to_owned()),
        ".{0,40}",
    ];
    prop_oneof![
        (frame, any::<bool>()).prop_map(|(f, c)| Op::Message(f, c)),
        prop_oneof![Just("muxws.v1.json".to_owned()), ".{0,8}"].prop_map(Op::Opened),
        (0u32..5000).prop_map(Op::Closed),
        Just(Op::Binary),
        (0u64..40_000).prop_map(Op::Timer),
        (
            prop::option::of(prop_oneof![Just(r#"{":path":"/x"}"#.to_owned()), ".{0,12}"]),
            prop_oneof![
                Just("null".to_owned()),
                Just("\"é🌍\"".repeat(300)),
                ".{0,12}"
            ],
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(h, b, e, c)| Op::Open(h, b, e, c)),
        (
            0u32..6,
            prop::option::of(Just("[1,2]".to_owned())),
            any::<bool>()
        )
            .prop_map(|(t, s, e)| Op::Send(t, s, e)),
        (0u32..6).prop_map(Op::Cancel),
        any::<bool>().prop_map(Op::AcceptPushes),
        (0u32..6).prop_map(Op::Finish),
        (0u32..6).prop_map(Op::Expire),
        (0u32..6, any::<bool>()).prop_map(|(t, v)| Op::Checked(t, v)),
        Just(Op::Close),
        Just(Op::Reconnect),
        any::<bool>().prop_map(Op::Poll),
        Just(Op::Free),
        (0u32..4).prop_map(Op::Peer),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any sequence of inputs, sensible or not, with any handles: no panic, every record well
    /// formed, and once everything is polled no source is left unreleased by a freed peer.
    #[test]
    fn no_input_sequence_panics(ops in prop::collection::vec(op(), 1..60), lazy in any::<bool>(), cap in prop_oneof![Just(65_536.0), Just(64.0), Just(100.0)]) {
        let mut d = Driver::new();
        let config = PeerConfig { lazy, max_frame_bytes: cap, call_concurrency: 2.0, ..PeerConfig::default() };
        let lens = d.write(&[""]);
        let mut peer = d.module.peer_new(&config, lens[0], -1, -1);
        prop_assert!(peer > 0);
        let mut socket = 1.0;
        for op in ops {
            d.now += 7.0;
            match op {
                Op::Message(text, complete) => {
                    let lens = d.write(&[&text]);
                    d.module.socket_message(peer, socket, lens[0], complete, d.now);
                }
                Op::Opened(protocol) => {
                    let lens = d.write(&[&protocol]);
                    d.module.socket_opened(peer, socket, lens[0], d.now);
                }
                Op::Closed(code) => {
                    let lens = d.write(&["gone"]);
                    d.module.socket_closed(peer, socket, code, lens[0], false, d.now);
                }
                Op::Binary => d.module.socket_binary(peer, socket, d.now),
                Op::Timer(ms) => {
                    d.now += ms as f64;
                    d.module.timer(peer, d.now);
                }
                Op::Open(headers, body, end, call) => {
                    let lens = match &headers {
                        Some(h) => d.write(&[h]),
                        None => vec![-1],
                    };
                    let (source, units) = d.source(&body);
                    d.module.open(peer, lens[0], source, units, end, call, d.now);
                }
                Op::Send(tag, body, end) => {
                    let (source, units) = match body {
                        Some(b) => d.source(&b),
                        None => (0, 0),
                    };
                    d.module.send(peer, tag, source, units, end);
                }
                Op::Cancel(tag) => d.module.cancel(peer, tag, -1),
                Op::AcceptPushes(accept) => d.module.accept_pushes(peer, accept),
                Op::Finish(tag) => d.module.finish(peer, tag),
                Op::Expire(tag) => d.module.expire(peer, tag),
                Op::Checked(tag, valid) => d.module.checked(peer, tag, valid),
                Op::Close => {
                    let lens = d.write(&["x"]);
                    d.module.close(peer, 0.0, lens[0], 50.0, d.now);
                }
                Op::Reconnect => {
                    d.module.reconnect_now(peer, d.now);
                }
                Op::Poll(sends) => {
                    for record in d.poll(peer, sends) {
                        if record.kind == abi::dial::KIND {
                            socket = record.fields[0];
                        }
                        // a kind the driver knows: DIAL (1) to ROUND_TRIP (19), the last
                        prop_assert!((abi::dial::KIND..=abi::round_trip::KIND).contains(&record.kind), "record kind {}", record.kind);
                    }
                }
                Op::Free => d.module.peer_free(peer),
                Op::Peer(handle) => peer = handle,
            }
            let _ = d.module.next_timeout(peer);
            let _ = d.module.stream_count(peer);
        }
        for handle in 0..4 {
            d.module.peer_free(handle);
        }
        d.poll(0, true);
        prop_assert_eq!(d.strings.count(), 0, "every source released once its peer is gone");
    }
}

#[test]
fn a_send_on_a_stream_that_is_over_is_refused_with_stream_closed() {
    let mut d = Driver::new();
    let peer = d.peer(quiet());
    // no stream was ever opened with this tag, and none of an unknown peer
    let (source, units) = d.source("\"late\"");
    assert_eq!(d.module.send(peer, 77, source, units, true), ErrorClass::StreamClosed as u32);
    assert_eq!(d.module.out.fields[1], f64::from(ErrorClass::StreamClosed as u32));
    assert!(!d.module.out.text.is_empty(), "the refusal carries the protocol layer's message");
    assert_eq!(d.module.send(peer + 1, 77, 0, 0, true), ErrorClass::StreamClosed as u32);
}

#[test]
fn error_classes_are_the_numbers_the_driver_maps() {
    // The driver reads them through the rendered ErrorClass (pkg-template/src/abi/muxws.ts).
    let numbers = [
        ErrorClass::ProtocolError as u32,
        ErrorClass::ConnectionClosed as u32,
        ErrorClass::ConnectionGoingAway as u32,
        ErrorClass::StreamClosed as u32,
        ErrorClass::CodecMismatch as u32,
        ErrorClass::ConnectionRefused as u32,
        ErrorClass::StreamReset as u32,
        ErrorClass::RemoteError as u32,
        ErrorClass::StreamTimeout as u32,
        ErrorClass::StreamRefused as u32,
        ErrorClass::ConnectionLost as u32,
        class::CONFIG,
    ];
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
}

#[test]
fn error_records_carry_the_protocol_layer_s_texts() {
    let mut d = Driver::new();
    let lens = d.write(&["", "{not json"]);
    assert_eq!(d.module.peer_new(&quiet(), lens[0], lens[1], -1), 0);
    assert_eq!(d.module.out.text, "not a JSON value (at byte 1)");
    let peer = d.connected(quiet());
    let lens = d.write(&["[1]"]);
    let (source, units) = d.source("1");
    assert_eq!(
        d.module
            .open(peer, lens[0], source, units, true, false, d.now),
        0
    );
    assert_eq!(
        d.module.out.text,
        "the stream's headers are not a JSON object: not a JSON value (at byte 0)"
    );
    let (source, units) = d.source("1");
    assert_eq!(
        d.module.send(peer, 99, source, units, true),
        ErrorClass::StreamClosed as u32
    );
    assert_eq!(d.module.out.text, "the stream is no longer open");
    assert_eq!(d.module.out.fields[7], d.module.out.text.len() as f64);
}

/// The text parts of a PUSH record: its headers, and its payload ('' when the open had none).
fn push_parts(record: &Record) -> (Value, Option<Value>) {
    let payload_at = record.fields[3];
    let head = if payload_at < 0.0 { &record.text[..] } else { &record.text[..payload_at as usize] };
    let payload = (payload_at >= 0.0).then(|| serde_json::from_str(&record.text[payload_at as usize..]).unwrap());
    (serde_json::from_str(head).unwrap(), payload)
}

#[test]
fn a_push_with_a_handler_comes_out_whole_and_its_end_is_the_driver_s() {
    let mut d = Driver::new();
    let peer = d.peer(quiet());
    // Registered before the socket opens: no push after the connect is refused.
    d.module.accept_pushes(peer, true);
    let dial = d.poll(peer, true);
    let lens = d.write(&["muxws.v1.json"]);
    d.module.socket_opened(peer, dial[0].fields[0], lens[0], d.now);
    assert_eq!(kinds(&d.poll(peer, true)), [abi::established::KIND]);
    let headers = json!({":event": "records_changed", ":version": 1, ":topic": "/items", ":rev": 1_796_153_364_996_u64, ":prev": 0});
    d.receive(peer, json!({"type": "open", "stream": 2, "end": true, "headers": headers, "payload": {"op": "created", "changes": [{"pk": 1}]}}));
    let records = d.poll(peer, true);
    let push = first_of(&records, abi::push::KIND);
    assert_eq!(push.fields[1], 2.0, "the wire id");
    assert_eq!(push.fields[2], 1.0, "a one-shot push");
    let (got_headers, payload) = push_parts(push);
    assert_eq!(got_headers, headers, "header values as sent: JSON numbers stay numbers");
    assert_eq!(payload, Some(json!({"op": "created", "changes": [{"pk": 1}]})));
    assert!(sent(&records).is_empty(), "nothing is answered before the handler returns");
    let tag = push.fields[0] as u32;
    assert!(tag > 0);
    assert_eq!(d.module.stream_id(peer, tag), 2.0);
    // The handler returned: the implicit end, and the stream is over.
    d.module.finish(peer, tag);
    let records = d.poll(peer, true);
    assert_eq!(sent(&records), [json!({"type": "data", "stream": 2, "end": true})]);
    assert!(records.iter().any(|r| r.kind == abi::stream_closed::KIND && r.fields[0] == f64::from(tag)));
    assert_eq!(d.module.stream_id(peer, tag), 0.0);
}

#[test]
fn without_a_handler_a_push_is_refused_and_a_fragmented_one_is_joined_first() {
    let mut d = Driver::new();
    let peer = d.connected(quiet());
    d.receive(peer, json!({"type": "open", "stream": 2, "end": true, "payload": 1}));
    let records = d.poll(peer, true);
    assert!(records.iter().all(|r| r.kind != abi::push::KIND));
    assert_eq!(sent(&records)[0]["type"], "reset");
    assert_eq!(sent(&records)[0]["code"], 4, "REFUSED (WSM-STM-033)");
    // With a handler: an open in fragments comes out once, joined, with its headers.
    d.module.accept_pushes(peer, true);
    d.receive(peer, json!({"type": "open", "stream": 4, "headers": {":topic": "imports:7"}, "fragment": "{\"rows\":", "more": true}));
    assert!(d.poll(peer, true).iter().all(|r| r.kind != abi::push::KIND), "not before the last fragment");
    d.receive(peer, json!({"type": "open", "stream": 4, "fragment": "412}", "end": true}));
    let records = d.poll(peer, true);
    let push = first_of(&records, abi::push::KIND);
    assert_eq!(push_parts(push), (json!({":topic": "imports:7"}), Some(json!({"rows": 412}))));
    // An open without headers or payload.
    d.receive(peer, json!({"type": "open", "stream": 6}));
    let records = d.poll(peer, true);
    let push = first_of(&records, abi::push::KIND);
    assert_eq!(push_parts(push), (json!({}), None));
    assert_eq!(push.fields[2], 0.0, "not ended: the server may send more on it");
}
