//! The harness: a [`Pair`] of a [`CallEngine`] and a muxws [`Peer`] on one virtual clock, wired
//! as the package's TypeScript driver wires them, and a scripted server on the other end of the
//! socket.
//!
//! The driver's part, as `pkg-template/src/muxws/driver.ts` plays it:
//! - `SendAttempt` opens a stream with the call's headers (built for a first attempt, the captured
//!   ones when `carry` is set); an `open()` that throws ends the attempt at once;
//! - `AbandonAttempt` forgets the stream's attempt and resets the stream (`timeout()` for
//!   `Timeout`, `cancel()` otherwise), so nothing more of it reaches the engine;
//! - a stream that closes normally ends its attempt with `MuxwsReply` and the reply's `:status`; one
//!   that fails, with the end its error class names;
//! - `Established` and `Reconnected` make the peer available, `GoAway` and a `Closed` that will
//!   retry unavailable, a `Closed` that will not closes it for good;
//! - `ReconnectNow` is `reconnect_now()`.
#![allow(dead_code)]

use std::collections::HashMap;

use muxws_proto::{
    Action as PeerAction, ErrorClass, Event, Headers, OpenError, Payload, Peer, PeerOptions,
    RawJson, SocketId, StreamEvent, StreamRef, SUBPROTOCOL,
};
use serde_json::{json, Value};
use viewsets_core::{
    Abandon, Action, ActivityEvent, AttemptEnd, CallEngine, CallId, CallSpec, PeerId, Transport,
};

/// The engine's id of the one peer of a pair.
pub const PEER: PeerId = 1;

/// One `SendAttempt` the driver carried out.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    /// The call.
    pub call: CallId,
    /// The attempt's number.
    pub attempt: u32,
    /// Sent with the first attempt's headers.
    pub carry: bool,
    /// The stream it went out on, or why `open()` threw.
    pub opened: Result<StreamRef, OpenError>,
}

/// The attempt a live stream carries, and the `:status` of its reply once it came.
struct Attempt {
    call: CallId,
    attempt: u32,
    status: Option<u16>,
}

/// An engine and a peer, and everything that passed between them and the socket.
pub struct Pair {
    /// The calls, with their one muxws transport: [`PEER`].
    pub engine: CallEngine,
    /// The peer the calls' streams go out on.
    pub peer: Peer,
    /// The virtual clock, milliseconds.
    pub now: u64,
    /// The socket the server side speaks on: the last one opened.
    pub socket: SocketId,
    /// Every socket the peer dialled, in order.
    pub dialled: Vec<SocketId>,
    /// Every frame the peer sent, with its socket, in order.
    pub wire: Vec<(SocketId, Value)>,
    /// Every event the peer reported, in order.
    pub peer_events: Vec<Event>,
    /// Every attempt sent, in order.
    pub sent: Vec<Sent>,
    /// Every attempt abandoned, in order.
    pub abandoned: Vec<(CallId, u32, Abandon)>,
    /// Every call settled: the call, its last attempt, how that ended.
    pub settled: Vec<(CallId, u32, AttemptEnd)>,
    /// Every activity event, in order.
    pub activity: Vec<ActivityEvent>,
    /// The attempts of the live streams.
    streams: HashMap<StreamRef, Attempt>,
    /// The headers each call's first attempt went out with.
    captured: HashMap<CallId, Headers>,
}

/// Peer options with the heartbeat off (no pings on the wire) and the defaults otherwise: a
/// reconnect backoff of 250 ms for the first loss, as the jitter draws are 0.
pub fn quiet_options() -> PeerOptions {
    let mut options = PeerOptions::default();
    options.connection.ping_interval_ms = 0;
    options
}

impl Pair {
    /// A pair whose peer's first socket is open and established: the engine knows it available.
    pub fn connected() -> Pair {
        let peer = Peer::new(quiet_options(), Box::new(|| 0.0)).expect("valid options");
        let mut pair = Pair {
            engine: CallEngine::new(),
            peer,
            now: 0,
            socket: 0,
            dialled: Vec::new(),
            wire: Vec::new(),
            peer_events: Vec::new(),
            sent: Vec::new(),
            abandoned: Vec::new(),
            settled: Vec::new(),
            activity: Vec::new(),
            streams: HashMap::new(),
            captured: HashMap::new(),
        };
        pair.drive();
        pair.open_socket();
        assert_eq!(pair.peer_events, vec![Event::Established]);
        pair
    }

    /// Issues a muxws call over the pair's peer with the seed's defaults and `attempt_timeout_ms`
    /// (0: none), and drives.
    pub fn issue(&mut self, attempt_timeout_ms: u64) -> CallId {
        let mut spec = CallSpec::new(Transport::Muxws { peer: PEER });
        spec.attempt_timeout_ms = attempt_timeout_ms;
        let call = self.engine.issue(spec, self.now);
        self.drive();
        call
    }

    // ----- the driver

    /// One round: the engine's actions, then the peer's actions, then the peer's events. Returns
    /// whether anything was done.
    pub fn step(&mut self) -> bool {
        let mut busy = false;
        while let Some(action) = self.engine.poll_action() {
            busy = true;
            self.engine_action(action);
        }
        while let Some(action) = self.peer.poll_action(self.now) {
            busy = true;
            match action {
                PeerAction::Dial { socket } => self.dialled.push(socket),
                PeerAction::Send { socket, text } => {
                    let frame = serde_json::from_str(&text).expect("the peer sends JSON");
                    self.wire.push((socket, frame));
                }
                PeerAction::Close { .. } => {}
            }
        }
        while let Some(event) = self.peer.poll_event() {
            busy = true;
            self.peer_event(event.clone());
            self.peer_events.push(event);
        }
        busy
    }

    /// Steps until neither side has anything left to do.
    pub fn drive(&mut self) {
        while self.step() {}
    }

    /// Moves the clock on by `ms`, running every timer of either side that falls due on the way,
    /// earliest first, and driving after each.
    pub fn advance(&mut self, ms: u64) {
        let target = self.now + ms;
        loop {
            self.drive();
            let next = [self.engine.poll_timeout(), self.peer.poll_timeout()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(due) if due <= target => {
                    self.now = self.now.max(due);
                    self.engine.handle_timeout(self.now);
                    self.peer.handle_timeout(self.now);
                }
                _ => break,
            }
        }
        self.now = target;
        self.drive();
    }

    fn engine_action(&mut self, action: Action) {
        match action {
            Action::SendAttempt {
                call,
                attempt,
                carry,
            } => self.send_attempt(call, attempt, carry),
            Action::AbandonAttempt { call, attempt, why } => {
                self.abandoned.push((call, attempt, why));
                let stream = self
                    .streams
                    .iter()
                    .find(|(_, a)| a.call == call && a.attempt == attempt)
                    .map(|(&stream, _)| stream);
                if let Some(stream) = stream {
                    self.streams.remove(&stream);
                    if why == Abandon::Timeout {
                        self.peer.timeout(stream);
                    } else {
                        self.peer.cancel(stream, None);
                    }
                }
            }
            Action::Settle { call, attempt, end } => self.settled.push((call, attempt, end)),
            Action::ReconnectNow { .. } => {
                self.peer.reconnect_now(self.now);
            }
            Action::Activity(event) => self.activity.push(event),
        }
    }

    fn send_attempt(&mut self, call: CallId, attempt: u32, carry: bool) {
        let headers = match self.captured.get(&call) {
            Some(headers) if carry => headers.clone(),
            _ => {
                let text = json!({ "idempotency-key": format!("\"key-{call}\"") }).to_string();
                Headers::from_json(&text).expect("an object")
            }
        };
        let payload = Payload::json(json!({ "call": call }).to_string()).expect("json");
        let opened = self
            .peer
            .open(Some(headers.clone()), payload, true, self.now);
        self.sent.push(Sent {
            call,
            attempt,
            carry,
            opened: opened.clone(),
        });
        match opened {
            Ok(stream) => {
                if !carry {
                    self.captured.insert(call, headers);
                    self.engine.headers_captured(call, attempt);
                }
                let status = None;
                self.streams.insert(
                    stream,
                    Attempt {
                        call,
                        attempt,
                        status,
                    },
                );
            }
            Err(error) => {
                let end = end_of(error.class(), false, self.peer.is_closed());
                self.engine.attempt_ended(call, attempt, end, self.now);
            }
        }
    }

    fn peer_event(&mut self, event: Event) {
        match event {
            Event::Established | Event::Reconnected { .. } => {
                self.engine.peer_available(PEER, true, self.now)
            }
            Event::GoAway { .. } => self.engine.peer_available(PEER, false, self.now),
            Event::Closed(reason) if reason.will_retry => {
                self.engine.peer_available(PEER, false, self.now)
            }
            Event::Closed(_) => self.engine.peer_closed_for_good(PEER, self.now),
            Event::Stream { stream, event } => self.stream_event(stream, event),
            Event::ConnectFailed(_) | Event::Incoming { .. } => {}
        }
    }

    fn stream_event(&mut self, stream: StreamRef, event: StreamEvent) {
        let Some(attempt) = self.streams.get_mut(&stream) else {
            return;
        };
        let end = match event {
            StreamEvent::ReplyHeaders(headers) => {
                attempt.status = Some(status_of(&headers));
                return;
            }
            StreamEvent::Closed => AttemptEnd::MuxwsReply {
                status: attempt.status.unwrap_or(200),
            },
            StreamEvent::Failed(error) => end_of(error.class(), true, self.peer.is_closed()),
            _ => return,
        };
        let Attempt { call, attempt, .. } = self.streams.remove(&stream).expect("live");
        self.engine.attempt_ended(call, attempt, end, self.now);
    }

    // ----- the server's side of the socket

    /// The last socket dialled opens and speaks muxws.
    pub fn open_socket(&mut self) {
        let socket = *self.dialled.last().expect("a dial");
        self.socket = socket;
        self.peer.socket_opened(socket, SUBPROTOCOL, self.now);
        self.drive();
    }

    /// The server sends `frame` on the open socket.
    pub fn server_sends(&mut self, frame: Value) {
        self.peer
            .socket_message(self.socket, &frame.to_string(), self.now);
        self.drive();
    }

    /// The server answers `stream` with one payload and `:status`, ending its side.
    pub fn answer(&mut self, stream: StreamRef, status: u16, payload: Value) {
        assert_eq!(stream.socket, self.socket, "answered on the open socket");
        self.server_sends(json!({
            "type": "data", "stream": stream.id, "headers": {":status": status},
            "payload": payload, "end": true,
        }));
    }

    /// The socket dies without a close handshake (browser: close 1006).
    pub fn lose_socket(&mut self) {
        self.peer
            .socket_closed(self.socket, 1006, "", false, self.now);
        self.drive();
    }

    /// The server closes the socket cleanly with `code`.
    pub fn server_closes(&mut self, code: u16) {
        self.peer
            .socket_closed(self.socket, code, "", true, self.now);
        self.drive();
    }

    // ----- reading the records

    /// The stream attempt `attempt` of `call` went out on.
    pub fn stream_of(&self, call: CallId, attempt: u32) -> StreamRef {
        let sent = self
            .sent
            .iter()
            .find(|s| s.call == call && s.attempt == attempt)
            .expect("the attempt was sent");
        sent.opened.clone().expect("on a stream")
    }

    /// The frames the peer sent on `socket` for stream `id`.
    pub fn frames_of(&self, stream: StreamRef) -> Vec<&Value> {
        self.wire
            .iter()
            .filter(|(socket, frame)| *socket == stream.socket && frame["stream"] == stream.id)
            .map(|(_, frame)| frame)
            .collect()
    }

    /// The activity of `call`, in order.
    pub fn activity_of(&self, call: CallId) -> Vec<viewsets_core::ActivityKind> {
        self.activity
            .iter()
            .filter(|e| e.call == call)
            .map(|e| e.kind.clone())
            .collect()
    }

    /// The reason `pending_calls()` gives for `call`.
    pub fn reason_of(&self, call: CallId) -> Option<viewsets_core::WaitReason> {
        self.engine
            .pending_calls()
            .find(|p| p.call == call)
            .map(|p| p.reason)
    }
}

/// How an attempt whose stream failed (`opened`) or whose `open()` threw ended, by the error's
/// class: the driver's table.
fn end_of(class: ErrorClass, opened: bool, closed_for_good: bool) -> AttemptEnd {
    match class {
        ErrorClass::StreamTimeout => AttemptEnd::StreamTimeout,
        ErrorClass::ConnectionLost => AttemptEnd::ConnectionLost { closed_for_good },
        ErrorClass::StreamRefused => AttemptEnd::StreamRefused { closed_for_good },
        ErrorClass::ConnectionGoingAway if !opened => AttemptEnd::OpenGoingAway {
            closed_for_good: false,
        },
        ErrorClass::ConnectionClosed if !opened => AttemptEnd::OpenConnectionClosed {
            closed_for_good: true,
        },
        _ => AttemptEnd::OtherError,
    }
}

/// A reply's `:status`; 200 when it has none (or one that is not a number).
fn status_of(headers: &Headers) -> u16 {
    headers
        .get(":status")
        .and_then(|raw: &RawJson| raw.as_str().parse().ok())
        .unwrap_or(200)
}
