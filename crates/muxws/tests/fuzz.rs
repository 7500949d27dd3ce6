//! Fuzz-style tests (issue 12): random and mutated frames, and whole connections driven by random
//! operations. Thousands of inputs run by default; the `#[ignore]`d ones run millions in release:
//! `cargo test -p muxws-proto --release --test fuzz -- --ignored`.
//!
//! Checked for every input: no panic; `decode(encode(f)) == f` for every frame that decodes (and
//! for random valid frames); and on whole connections the stream invariants — ids odd and
//! increasing per socket, nothing sent on a stream after its reset nor data after its end, no
//! message over the cap, every message our own JSON, every stream the application knows ends
//! exactly once, nothing after its end, reply headers at most once and before any payload.

use std::collections::HashMap;

use muxws_proto::*;
use proptest::prelude::*;
use serde_json::{json, Value};

// ======================================================================= frames

/// Seeds: the corpus' pinned wire plus frames of every field (built once).
fn seeds() -> &'static [String] {
    static SEEDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(build_seeds)
}

fn build_seeds() -> Vec<String> {
    let corpus = include_str!("conformance/frames/v1-frames.json");
    let cases: Value = serde_json::from_str(corpus).unwrap();
    let mut out: Vec<String> = cases
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["json_wire"].as_str().unwrap().to_owned())
        .collect();
    out.push(r#"{"type":"open","stream":2,"headers":{"a":1,"a":2,"b":[1,{"c":null}]},"payload":{"x":"\ud800\u00e9"}}"#.into());
    out.push(r#"{"type":"data","stream":1.0,"end":true,"trailers":{"t":"\"q\""},"more":false,"payload":-0.5e-3}"#.into());
    out.push(r#"{"type":"goaway","code":-9223372036854775808,"last_stream":18446744073709551615,"reason":"\n"}"#.into());
    out
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, &'static str),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
    /// Splice another seed in at a position.
    Splice(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let fragments = prop::sample::select(vec![
        "\"",
        "\\",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "null",
        "true",
        "1e999",
        "-0",
        "\\u",
        "\\ud800",
        "\"headers\":{\"k\":1,\"k\":2}",
        "\"stream\":",
        "\"type\":\"open\",",
        "99999999999999999999",
        "\u{0}",
        "é",
        "🛰",
        " ",
        "\"payload\":",
        "\"fragment\":\"x\",",
        ",\"more\":true",
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), fragments).prop_map(|(p, s)| Mutation::Insert(p, s)),
        (any::<usize>(), 1usize..8).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), 1usize..32).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(p, s)| Mutation::Splice(p, s)),
    ]
}

fn mutate(text: &str, mutations: &[Mutation], seeds: &[String]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for m in mutations {
        let len = bytes.len().max(1);
        match m {
            Mutation::Flip(p, b) if !bytes.is_empty() => bytes[p % len] ^= b | 1,
            Mutation::Insert(p, s) => {
                let at = p % (bytes.len() + 1);
                bytes.splice(at..at, s.bytes());
            }
            Mutation::Delete(p, n) if !bytes.is_empty() => {
                let at = p % len;
                let end = (at + n).min(bytes.len());
                bytes.drain(at..end);
            }
            Mutation::Duplicate(p, n) if !bytes.is_empty() => {
                let at = p % len;
                let end = (at + n).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(end..end, copy);
            }
            Mutation::Truncate(p) => bytes.truncate(p % (bytes.len() + 1)),
            Mutation::Splice(p, s) => {
                let at = p % (bytes.len() + 1);
                let other = seeds[s % seeds.len()].as_bytes().to_vec();
                bytes.splice(at..at, other);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Whatever the text, decoding does not panic; a frame that decodes re-encodes as JSON to a text
/// that decodes to the same frame.
fn check_frame_text(text: &str) {
    if let Ok(frame) = decode(text) {
        let encoded = encode(&frame);
        let again = decode(&encoded).expect("our own encoding decodes");
        assert_eq!(again, frame, "decode∘encode of {text:?}");
        // JSON by this crate's own scanner (serde_json refuses the lone surrogates that
        // `JSON.parse`, and so this crate, accept inside payloads).
        assert!(RawJson::parse(encoded).is_ok(), "encode gives JSON");
    }
    let _ = Headers::from_json(text);
    let _ = RawJson::parse(text);
}

fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z\"\\\\\u{1}é🛰]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z:]{1,3}", inner), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .prop_map(|v| v.to_string())
}

fn headers() -> impl Strategy<Value = Option<Headers>> {
    prop::option::of(
        prop::collection::vec(("[a-z:\"]{0,4}", json_text()), 0..5).prop_map(|entries| {
            let mut h = Headers::new();
            for (k, v) in entries {
                h.insert(k, RawJson::parse(v).unwrap());
            }
            h
        }),
    )
}

/// Any valid frame (within the twelve fields' types).
fn frame() -> impl Strategy<Value = Frame> {
    let kind = prop_oneof![
        Just(FrameType::Open),
        Just(FrameType::Data),
        Just(FrameType::Reset),
        Just(FrameType::Ping),
        Just(FrameType::Pong),
        Just(FrameType::Goaway),
        "[a-z]{1,6}".prop_map(|n| FrameType::from_name(&n)),
    ];
    let text = "[a-z\"\\\\\n\u{1}é🛰]{0,8}";
    (
        kind,
        prop::option::of(any::<u64>()),
        prop::option::of(json_text()),
        prop::option::of(text),
        any::<(bool, bool)>(),
        headers(),
        headers(),
        prop::option::of(any::<i64>()),
        (
            prop::option::of(text),
            prop::option::of(text),
            prop::option::of(any::<u64>()),
        ),
    )
        .prop_map(
            |(
                kind,
                stream,
                payload,
                fragment,
                (more, end),
                headers,
                trailers,
                code,
                (reason, nonce, last),
            )| {
                let mut f = Frame::new(kind);
                f.stream = stream;
                match (payload, fragment) {
                    (Some(p), _) => f.payload = Payload::json(p).unwrap(),
                    (None, fragment) => f.fragment = fragment,
                }
                f.more = more;
                f.end = end;
                f.headers = headers;
                f.trailers = trailers;
                f.code = code;
                f.reason = reason;
                f.nonce = nonce;
                f.last_stream = last;
                f
            },
        )
}

fn frame_cases(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(frame_cases(3_000))]

    #[test]
    fn mutated_corpus_frames(seed in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let text = mutate(&seeds[seed % seeds.len()], &mutations, seeds);
        check_frame_text(&text);
    }

    #[test]
    fn valid_frames_round_trip(f in frame()) {
        let text = encode(&f);
        prop_assert_eq!(decode(&text).unwrap(), f.clone());
        // Canonical: encoding again gives the same text.
        prop_assert_eq!(encode(&decode(&text).unwrap()), text);
    }
}

proptest! {
    #![proptest_config(frame_cases(2_000_000))]

    #[test]
    #[ignore = "millions of inputs: run in release with --ignored"]
    fn mutated_corpus_frames_millions(seed in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let text = mutate(&seeds[seed % seeds.len()], &mutations, seeds);
        check_frame_text(&text);
    }

}

proptest! {
    #![proptest_config(frame_cases(1_000_000))]

    #[test]
    #[ignore = "millions of inputs: run in release with --ignored"]
    fn valid_frames_round_trip_millions(f in frame()) {
        let text = encode(&f);
        prop_assert_eq!(decode(&text).unwrap(), f);
    }
}

// ======================================================================= connections

/// One random operation on a peer, or one thing its server or socket does.
#[derive(Clone, Debug)]
enum Op {
    Open {
        size: usize,
        end: bool,
        headers: bool,
    },
    Send {
        pick: usize,
        size: usize,
        end: bool,
        headers: bool,
    },
    Cancel(usize),
    Timeout(usize),
    Reset(usize),
    Finish(usize),
    /// A server frame: kind 0..9, a stream chosen among the known ones or near them.
    Server {
        kind: u8,
        pick: usize,
        bits: u8,
        size: usize,
    },
    Mutated {
        kind: u8,
        pick: usize,
        mutations: Vec<Mutation>,
    },
    OverCap(usize),
    Binary,
    Advance(u64),
    ServerCloses,
    OpenSocket,
    DialFails,
    Close(u64),
    ReconnectNow,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (0usize..400, any::<bool>(), any::<bool>()).prop_map(|(size, end, headers)| Op::Open { size, end, headers }),
        6 => (any::<usize>(), 0usize..300, any::<bool>(), any::<bool>()).prop_map(|(pick, size, end, headers)| Op::Send { pick, size, end, headers }),
        1 => any::<usize>().prop_map(Op::Cancel),
        1 => any::<usize>().prop_map(Op::Timeout),
        1 => any::<usize>().prop_map(Op::Reset),
        1 => any::<usize>().prop_map(Op::Finish),
        30 => (0u8..10, any::<usize>(), any::<u8>(), 0usize..200).prop_map(|(kind, pick, bits, size)| Op::Server { kind, pick, bits, size }),
        1 => (0u8..10, any::<usize>(), prop::collection::vec(mutation(), 1..4)).prop_map(|(kind, pick, mutations)| Op::Mutated { kind, pick, mutations }),
        1 => any::<usize>().prop_map(Op::OverCap),
        1 => Just(Op::Binary),
        8 => prop_oneof![0u64..50, 0u64..1_000, 0u64..30_000].prop_map(Op::Advance),
        1 => Just(Op::ServerCloses),
        5 => Just(Op::OpenSocket),
        1 => Just(Op::DialFails),
        1 => (0u64..3_000).prop_map(Op::Close),
        1 => Just(Op::ReconnectNow),
    ]
}

/// What the wire of one socket showed for one stream.
#[derive(Default)]
struct WireStream {
    ended: bool,
    reset: bool,
}

struct Driver {
    peer: Peer,
    cap: usize,
    now: u64,
    /// The socket the peer dialled last and whether it opened.
    socket: Option<(SocketId, bool)>,
    /// Streams the application knows (opened or pushed), with their events.
    streams: Vec<StreamRef>,
    events: HashMap<StreamRef, Vec<StreamEvent>>,
    /// Per socket: the last id opened, and each stream's wire state.
    opened: HashMap<SocketId, u64>,
    wire: HashMap<(SocketId, u64), WireStream>,
    /// Remote (even) ids already opened by the "server", per socket.
    next_push: HashMap<SocketId, u64>,
    sent: Vec<String>,
}

fn payload(size: usize) -> Payload {
    Payload::json(json!({ "d": "é".repeat(size / 2) + &"\"".repeat(size % 7) }).to_string())
        .unwrap()
}

impl Driver {
    fn new(cap: usize, max_payload: usize) -> Driver {
        let mut options = PeerOptions::default();
        options.connection.max_frame_bytes = cap;
        options.connection.max_payload_bytes = max_payload;
        options.connection.ping_interval_ms = 5_000;
        options.connection.ping_timeout_ms = 2_000;
        options.connection.accept_incoming = true;
        options.connection.max_concurrent_streams = 4;
        let mut d = Driver {
            peer: Peer::new(options, Box::new(|| 0.5)).unwrap(),
            cap,
            now: 0,
            socket: None,
            streams: Vec::new(),
            events: HashMap::new(),
            opened: HashMap::new(),
            wire: HashMap::new(),
            next_push: HashMap::new(),
            sent: Vec::new(),
        };
        d.flush();
        d.apply(&Op::OpenSocket); // the first connect succeeds
        d
    }

    fn live_socket(&self) -> Option<SocketId> {
        self.socket.filter(|s| s.1).map(|s| s.0)
    }

    /// Perform the peer's actions and record its events, checking the wire as it goes.
    fn flush(&mut self) {
        loop {
            let mut moved = false;
            while let Some(action) = self.peer.poll_action(self.now) {
                moved = true;
                match action {
                    Action::Dial { socket, .. } => self.socket = Some((socket, false)),
                    Action::Send { socket, text } => self.check_sent(socket, text),
                    Action::Close {
                        socket,
                        code,
                        reason,
                    } => {
                        // The browser's close event follows the close call.
                        self.peer
                            .socket_closed(socket, code, &reason, true, self.now);
                        if self.socket.map(|s| s.0) == Some(socket) {
                            self.socket = None;
                        }
                    }
                }
            }
            while let Some(event) = self.peer.poll_event() {
                moved = true;
                match event {
                    Event::Stream { stream, event } => self.on_stream_event(stream, event),
                    Event::Incoming { stream, .. } => {
                        assert!(!self.events.contains_key(&stream), "a push surfaced twice");
                        self.streams.push(stream);
                        self.events.insert(stream, Vec::new());
                    }
                    _ => {}
                }
            }
            if !moved {
                return;
            }
        }
    }

    fn check_sent(&mut self, socket: SocketId, text: String) {
        assert!(
            text.len() <= self.cap,
            "{} bytes over the {}-byte cap",
            text.len(),
            self.cap
        );
        let frame = decode(&text).expect("the peer sends frames that decode");
        assert_eq!(encode(&frame), text, "the peer sends canonical JSON");
        if let Some(id) = frame.stream.filter(|_| frame.kind.is_stream_level()) {
            let ws = self.wire.entry((socket, id)).or_default();
            assert!(!ws.reset, "{text} after a reset on stream {id}");
            match frame.kind {
                FrameType::Reset => ws.reset = true,
                _ => {
                    assert!(!ws.ended, "{text} after this side's end on stream {id}");
                    ws.ended |= frame.end && !frame.more;
                }
            }
            if frame.kind == FrameType::Open {
                let last = self.opened.entry(socket).or_insert(0);
                let continuation = frame.fragment.is_some() && id == *last;
                if !continuation {
                    assert!(
                        id % 2 == 1 && id > *last,
                        "open {id} after {last} on socket {socket}"
                    );
                    *last = id;
                }
            }
        }
        self.sent.push(text);
    }

    fn on_stream_event(&mut self, stream: StreamRef, event: StreamEvent) {
        let log = self
            .events
            .get_mut(&stream)
            .expect("events only for streams the app knows");
        let terminal = |e: &StreamEvent| matches!(e, StreamEvent::Closed | StreamEvent::Failed(_));
        assert!(
            !log.iter().any(terminal),
            "{event:?} after the end of {stream:?}"
        );
        if let StreamEvent::ReplyHeaders(_) = event {
            assert!(
                !log.iter().any(|e| matches!(
                    e,
                    StreamEvent::ReplyHeaders(_)
                        | StreamEvent::Payload(_)
                        | StreamEvent::End { .. }
                )),
                "reply headers twice or late"
            );
        }
        log.push(event);
    }

    fn pick(&self, n: usize) -> Option<StreamRef> {
        (!self.streams.is_empty()).then(|| self.streams[n % self.streams.len()])
    }

    /// A server frame of `kind` about a stream near the ones known on the live socket.
    fn server_frame(&mut self, kind: u8, pick: usize, bits: u8, size: usize) -> Option<String> {
        let socket = self.live_socket()?;
        // Mostly a stream still live here, sometimes one beside it (late or above the mark).
        let ended = |s: &StreamRef| {
            self.events[s]
                .iter()
                .any(|e| matches!(e, StreamEvent::Closed | StreamEvent::Failed(_)))
        };
        let live: Vec<u64> = self
            .streams
            .iter()
            .filter(|s| s.socket == socket && !ended(s))
            .map(|s| s.id)
            .collect();
        let known = if live.is_empty() {
            1
        } else {
            live[pick % live.len()]
        };
        // Nothing of ours to answer: the server pushes instead.
        let kind = if live.is_empty() && matches!(kind, 0..=2 | 4 | 9) {
            3
        } else {
            kind
        };
        let id = match (bits >> 1) % 16 {
            0 => known + 2,
            1 => known.saturating_sub(2),
            _ => known,
        };
        let body = json!({ "r": "x".repeat(size) }).to_string();
        let flag = |b: u8| bits & b != 0;
        let text = match kind {
            0..=2 => {
                let mut f = Frame::on_stream(FrameType::Data, id);
                f.end = flag(16);
                if flag(32) {
                    f.headers =
                        Some(Headers::new().with(":status", RawJson::parse("200").unwrap()));
                }
                if flag(64) {
                    let cut = size.min(body.len() - 1);
                    f.fragment = Some(body[..cut].to_owned());
                    f.more = flag(128);
                } else {
                    f.payload = Payload::json(body).unwrap();
                }
                encode(&f)
            }
            3 => {
                let next = self.next_push.entry(socket).or_insert(0);
                *next += 2;
                let mut f = Frame::on_stream(
                    FrameType::Open,
                    if bits.is_multiple_of(32) {
                        id + 1
                    } else {
                        *next
                    },
                );
                f.end = flag(16);
                f.payload = Payload::json(body).unwrap();
                encode(&f)
            }
            4 => encode(&Frame::reset(id, i64::from(bits % 10), Some("r".into()))),
            5 => {
                let nonce = "n".repeat(if flag(1) { size } else { size % 16 });
                encode(&Frame {
                    nonce: Some(nonce),
                    ..Frame::new(FrameType::Ping)
                })
            }
            6 => encode(&Frame {
                nonce: Some("0000000000000001".into()),
                ..Frame::new(FrameType::Pong)
            }),
            7 => encode(&Frame::goaway(0, id, None)),
            8 => format!(r#"{{"type":"widget","stream":{id},"x":[1,2]}}"#),
            _ => {
                // Fragmented reply: first and last fragment.
                let mut f = Frame::on_stream(FrameType::Data, id);
                f.fragment = Some(body[..body.len() / 2].to_owned());
                f.more = !flag(16);
                encode(&f)
            }
        };
        Some(text)
    }

    fn apply(&mut self, op: &Op) {
        let now = self.now;
        match op {
            Op::Open { size, end, headers } => {
                let h = headers.then(|| Headers::new().with("k", RawJson::parse("1").unwrap()));
                if let Ok(s) = self.peer.open(h, payload(*size), *end, now) {
                    assert!(!self.events.contains_key(&s), "a stream handle twice");
                    self.streams.push(s);
                    self.events.insert(s, Vec::new());
                }
            }
            Op::Send {
                pick,
                size,
                end,
                headers,
            } => {
                if let Some(s) = self.pick(*pick) {
                    let mut out = if *end {
                        Outbound::end(payload(*size))
                    } else {
                        Outbound::data(payload(*size))
                    };
                    if *headers {
                        out = out.with_headers(Headers::new());
                    }
                    let _ = self.peer.send(s, out);
                }
            }
            Op::Cancel(p) => {
                if let Some(s) = self.pick(*p) {
                    self.peer.cancel(s, Some("c".into()));
                }
            }
            Op::Timeout(p) => {
                if let Some(s) = self.pick(*p) {
                    self.peer.timeout(s);
                }
            }
            Op::Reset(p) => {
                if let Some(s) = self.pick(*p) {
                    let _ = self
                        .peer
                        .reset(s, code::APPLICATION_ERROR, None, Payload::null());
                }
            }
            Op::Finish(p) => {
                if let Some(s) = self.pick(*p) {
                    self.peer.finish(s);
                }
            }
            Op::Server {
                kind,
                pick,
                bits,
                size,
            } => {
                if let Some(text) = self.server_frame(*kind, *pick, *bits, *size) {
                    let socket = self.live_socket().unwrap();
                    self.peer.socket_message(socket, &text, now);
                }
            }
            Op::Mutated {
                kind,
                pick,
                mutations,
            } => {
                if let Some(text) = self.server_frame(*kind, *pick, 0, 20) {
                    let text = mutate(&text, mutations, seeds());
                    let socket = self.live_socket().unwrap();
                    self.peer.socket_message(socket, &text, now);
                }
            }
            Op::OverCap(p) => {
                if let Some(socket) = self.live_socket() {
                    let id = self.pick(*p).map_or(1, |s| s.id);
                    let head = format!(
                        r#"{{"type":"data","stream":{id},"payload":"{}"#,
                        "x".repeat(self.cap)
                    );
                    if p % 2 == 0 {
                        self.peer.socket_message(socket, &head, now);
                    } else {
                        self.peer.socket_message_over_cap(socket, &head, now);
                    }
                }
            }
            Op::Binary => {
                if let Some(socket) = self.live_socket() {
                    self.peer.socket_binary_message(socket, now);
                }
            }
            Op::Advance(ms) => {
                let target = self.now + ms;
                loop {
                    self.flush();
                    match self.peer.poll_timeout() {
                        Some(t) if t <= target => {
                            self.now = self.now.max(t);
                            self.peer.handle_timeout(self.now);
                        }
                        _ => break,
                    }
                }
                self.now = target;
            }
            Op::ServerCloses => {
                if let Some((socket, _)) = self.socket.take() {
                    self.peer.socket_closed(socket, 1006, "", false, now);
                }
            }
            Op::OpenSocket => {
                if let Some((socket, false)) = self.socket {
                    self.socket = Some((socket, true));
                    self.peer.socket_opened(socket, SUBPROTOCOL, now);
                }
            }
            Op::DialFails => {
                if let Some((socket, false)) = self.socket {
                    self.socket = None;
                    self.peer.socket_closed(socket, 1006, "", false, now);
                }
            }
            Op::Close(drain) => self.peer.close(0, None, *drain, now),
            Op::ReconnectNow => {
                self.peer.reconnect_now(now);
            }
        }
        self.flush();
    }

    /// End everything: the server closes the live socket; then every stream the application
    /// knows has ended exactly once.
    fn finish_and_check(&mut self) {
        self.apply(&Op::ServerCloses);
        self.apply(&Op::Advance(1));
        for s in &self.streams {
            let log = &self.events[s];
            let ends = log
                .iter()
                .filter(|e| matches!(e, StreamEvent::Closed | StreamEvent::Failed(_)))
                .count();
            assert_eq!(ends, 1, "stream {s:?} ended {ends} times: {log:?}");
        }
    }
}

fn connection_run(cap_choice: u8, small_payload_cap: bool, ops: &[Op]) {
    let cap = [64, 128, 300, MAX_FRAME_BYTES][usize::from(cap_choice % 4)];
    let max_payload = if small_payload_cap {
        150
    } else {
        DEFAULT_MAX_PAYLOAD_BYTES
    };
    let mut d = Driver::new(cap, max_payload);
    for op in ops {
        d.apply(op);
    }
    d.finish_and_check();
}

proptest! {
    #![proptest_config(frame_cases(1_500))]

    #[test]
    fn random_connections_keep_the_stream_invariants(
        cap in any::<u8>(),
        small in any::<bool>(),
        ops in prop::collection::vec(op(), 1..60),
    ) {
        connection_run(cap, small, &ops);
    }
}

proptest! {
    #![proptest_config(frame_cases(150_000))]

    #[test]
    #[ignore = "millions of operations: run in release with --ignored"]
    fn random_connections_keep_the_stream_invariants_at_length(
        cap in any::<u8>(),
        small in any::<bool>(),
        ops in prop::collection::vec(op(), 1..80),
    ) {
        connection_run(cap, small, &ops);
    }
}
