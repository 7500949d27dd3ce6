//! Test harness: drives a [`Peer`] with a virtual clock and records everything it emits.
#![allow(dead_code)]

use muxws_proto::*;
use serde_json::{json, Value};

/// One recorded socket action.
#[derive(Debug, Clone, PartialEq)]
pub enum Wire {
    Dial(SocketId, Vec<String>),
    Sent(SocketId, Value),
    Close(SocketId, u16, String),
}

pub struct Harness {
    pub peer: Peer,
    pub now: u64,
    pub socket: SocketId,
    pub wire: Vec<Wire>,
    pub events: Vec<Event>,
    /// Every text sent, verbatim, in order.
    pub raw_sent: Vec<(SocketId, String)>,
    /// Every socket dialled, in order.
    pub dialled: Vec<SocketId>,
}

/// Options with the heartbeat off and pushes accepted, unless a test says otherwise.
pub fn quiet_options() -> PeerOptions {
    let mut options = PeerOptions::default();
    options.connection.ping_interval_ms = 0;
    options.connection.accept_incoming = true;
    options
}

impl Harness {
    /// A peer whose first dial has been issued but not answered.
    pub fn dialing(options: PeerOptions) -> Harness {
        Self::dialing_with_jitter(options, Box::new(|| 0.0))
    }

    pub fn dialing_with_jitter(options: PeerOptions, jitter: Box<dyn FnMut() -> f64>) -> Harness {
        let peer = Peer::new(options, jitter).expect("valid options");
        let mut h = Harness {
            peer,
            now: 0,
            socket: 0,
            wire: Vec::new(),
            events: Vec::new(),
            raw_sent: Vec::new(),
            dialled: Vec::new(),
        };
        h.flush();
        h.socket = h.last_dial().expect("dialled");
        h
    }

    /// A peer with an established connection (no hello).
    pub fn connected(options: PeerOptions) -> Harness {
        assert!(options.hello.is_none());
        let mut h = Self::dialing(options);
        h.open_socket();
        assert_eq!(h.take_events(), vec![Event::Established]);
        h.take_wire();
        h
    }

    pub fn default_connected() -> Harness {
        Self::connected(quiet_options())
    }

    pub fn last_dial(&self) -> Option<SocketId> {
        self.dialled.last().copied()
    }

    /// Drain actions then events into the logs.
    pub fn flush(&mut self) {
        while let Some(action) = self.peer.poll_action(self.now) {
            self.wire.push(match action {
                Action::Dial { socket } => {
                    self.dialled.push(socket);
                    Wire::Dial(socket, self.peer.protocols().map(String::from).collect())
                }
                Action::Send { socket, text } => {
                    self.raw_sent.push((socket, text.clone()));
                    let value: Value = serde_json::from_str(&text).expect("peer sent valid JSON");
                    Wire::Sent(socket, value)
                }
                Action::Close {
                    socket,
                    code,
                    reason,
                } => Wire::Close(socket, code, reason),
            });
        }
        while let Some(event) = self.peer.poll_event() {
            self.events.push(event);
        }
    }

    pub fn open_socket(&mut self) {
        let dialled = self.last_dial().expect("a dial");
        self.socket = dialled;
        self.peer.socket_opened(dialled, SUBPROTOCOL, self.now);
        self.flush();
    }

    pub fn recv(&mut self, frame: Value) {
        self.recv_raw(&frame.to_string());
    }

    pub fn recv_raw(&mut self, text: &str) {
        self.peer.socket_message(self.socket, text, self.now);
        self.flush();
    }

    /// The pending dial fails before its socket opens (browser: `error`, then `close` 1006).
    pub fn dial_fails(&mut self) {
        let socket = self.last_dial().expect("a dial");
        self.peer.socket_closed(socket, 1006, "", false, self.now);
        self.flush();
    }

    pub fn server_closes(&mut self, code: u16, reason: &str) {
        self.peer
            .socket_closed(self.socket, code, reason, code == 1000, self.now);
        self.flush();
    }

    /// Advance the virtual clock by `ms`, firing every timer that falls due on the way.
    pub fn advance(&mut self, ms: u64) {
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
        self.flush();
    }

    pub fn take_wire(&mut self) -> Vec<Wire> {
        std::mem::take(&mut self.wire)
    }

    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Frames sent (on any socket) since the last take, as parsed JSON.
    pub fn take_sent(&mut self) -> Vec<Value> {
        self.take_wire()
            .into_iter()
            .filter_map(|w| match w {
                Wire::Sent(_, v) => Some(v),
                _ => None,
            })
            .collect()
    }

    pub fn open(&mut self, payload: Value, end: bool) -> StreamRef {
        let s = self
            .peer
            .open(None, json_payload(&payload), end, self.now)
            .expect("open");
        self.flush();
        s
    }

    pub fn open_with(&mut self, headers: Value, payload: Value, end: bool) -> StreamRef {
        let s = self
            .peer
            .open(
                Some(headers_of(&headers)),
                json_payload(&payload),
                end,
                self.now,
            )
            .expect("open");
        self.flush();
        s
    }

    pub fn stream_events(&self, stream: StreamRef) -> Vec<StreamEvent> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Stream { stream: s, event } if *s == stream => Some(event.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn closes(&self) -> Vec<CloseReason> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Closed(reason) => Some(reason.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn is_alive(&self) -> bool {
        self.peer.is_open() && self.peer.socket() == Some(self.socket)
    }
}

pub fn json_payload(value: &Value) -> Payload {
    Payload::json(value.to_string()).expect("valid json")
}

pub fn headers_of(value: &Value) -> Headers {
    Headers::from_json(&value.to_string()).expect("object")
}

pub fn payload_value(event: &StreamEvent) -> Option<Value> {
    match event {
        StreamEvent::Payload(raw) => Some(serde_json::from_str(raw.as_str()).expect("json")),
        _ => None,
    }
}

pub fn headers_value(headers: &Headers) -> Value {
    serde_json::from_str(&headers.to_json()).expect("json")
}

/// Subset match: every key of `pattern` equals the same key of `frame`.
pub fn matches(frame: &Value, pattern: &Value) -> bool {
    pattern
        .as_object()
        .expect("pattern object")
        .iter()
        .all(|(k, v)| frame.get(k) == Some(v))
}

/// Assert `patterns` match `frames` in order (an ordered subset match, as `expect_out`).
pub fn assert_ordered_subset(frames: &[Value], patterns: &[Value]) {
    let mut cursor = 0;
    for pattern in patterns {
        let found = frames[cursor..].iter().position(|f| matches(f, pattern));
        match found {
            Some(i) => cursor += i + 1,
            None => panic!("no frame matching {pattern} in {frames:#?} (from position {cursor})"),
        }
    }
}

pub fn is_goaway(frame: &Value) -> bool {
    frame["type"] == json!("goaway")
}
