//! The supervisor: one [`Peer`] over a sequence of sockets (`SPEC.md` §5.12, WSM-RCN-*).
//!
//! Life of a peer:
//!
//! ```text
//!  new ──Dial──▶ Dialing ──socket_opened(muxws.v1.json)──▶ [Hello] ──ack──▶ Established
//!                  │  (fails before open / wrong protocol)      │ reset, timeout, loss
//!                  ▼                                            ▼
//!        first connect? ConnectFailed, Stopped      first connect? ConnectFailed, Stopped
//!        else attempts+1 ─▶ Backoff ─(delay)─▶ Dial      else attempts+1, Closed{…} ─▶ Backoff
//!  Established ──socket loss──▶ streams ConnectionLost, Closed{…, will_retry} ─▶ Backoff | Stopped
//!  close() ──▶ goaway(code), drain, close 1000 ─▶ Closed{will_retry: false}, Stopped
//! ```
//!
//! Every socket gets a fresh [`SocketId`]; inputs naming any other socket are ignored, so events
//! of a socket that is being closed can never leak into the next one. Stream handles are
//! [`StreamRef`]s — socket plus id — because ids restart at 1 on every socket (WSM-RCN-031).

use alloc::{borrow::ToOwned, boxed::Box, string::String, vec::Vec};

use super::delay_ms;
use super::events::{Action, CloseReason, Event, SocketId, StreamRef};
use super::options::PeerOptions;
use crate::connection::{
    earliest, outbound_frame, ConnEvent, Connection, Outbound, StreamEvent, StreamId, StreamState,
    Termination, CLOSE_ABNORMAL, CLOSE_CODEC_MISMATCH, CLOSE_NORMAL, CLOSE_PROTOCOL_ERROR,
};
use crate::error::{ConfigError, ConnectError, OpenError, SendError, StreamError};
use crate::fragment::{check_sendable, PayloadSource};
use crate::frame::{set_fresh, FrameType, Headers, Payload, SUBPROTOCOL};
use crate::list::take_at;
use crate::text::{around, cat3};
use vec_fifo::Fifo;

enum Phase {
    Dialing { socket: SocketId },
    Hello { hello_id: StreamId, deadline: u64 },
    Established,
    Closing,
    Backoff { until: u64 },
    Stopped,
}

/// A socket being closed: flushed, then closed with `code` and `reason` (cut to what a browser
/// accepts, see [`close_reason_text`]).
struct Retiring {
    socket: SocketId,
    conn: Connection,
    code: u16,
    reason: String,
}

/// How [`Peer::retire_live`] stops the live connection before it is closed.
#[derive(Clone, Copy)]
enum LetGo {
    /// Nothing more is sent: the socket is being closed at once (`Connection::socket_lost`).
    Silence,
    /// What is queued is still flushed, e.g. the `reset(TIMEOUT)` of a timed-out hello
    /// (`Connection::abandon`).
    Flush,
    /// The connection already ended itself (it reported its termination): it is flushed as is.
    Ended,
}

/// The dialer supervisor: one application-facing peer over a sequence of sockets; see the module
/// documentation. Sans-IO: socket events go in through `socket_*`, work comes out through
/// [`Peer::poll_action`], notifications through [`Peer::poll_event`], and timers through
/// [`Peer::poll_timeout`]/[`Peer::handle_timeout`] (WSM-RCN-001…006, WSM-RCN-020…045,
/// WSM-INV-002: one peer type, pushes included).
pub struct Peer {
    options: PeerOptions,
    jitter: Box<dyn FnMut() -> f64>,
    phase: Phase,
    live: Option<(SocketId, Connection)>,
    retiring: Vec<Retiring>,
    /// A few at most (a dial, a close): a `Vec`, taken from the front.
    actions: Vec<Action>,
    events: Fifo<Event>,
    next_socket: SocketId,
    attempts: u32,
    reconnects: u32,
    first: bool,
    final_reported: bool,
    /// The latest `now` any input carried; calls that take no clock settle with it.
    last_now: u64,
}

/// A browser rejects a close reason over 123 UTF-8 bytes; cut on a character boundary.
fn close_reason_text(reason: &str) -> String {
    crate::text::prefix(reason, 123).to_owned()
}

impl Peer {
    /// Validate the options and queue the first [`Action::Dial`]. `jitter` returns draws in
    /// `[-1, 1]` for the backoff schedule — `Math.random() * 2 - 1` in the browser
    /// (WSM-RCN-003/005).
    pub fn new(options: PeerOptions, jitter: Box<dyn FnMut() -> f64>) -> Result<Peer, ConfigError> {
        options.reconnect.validate()?;
        options.connection.validate()?;
        if let Some(hello) = &options.hello {
            // The hello's `open`, as `socket_opened` will send it.
            let mut frame = outbound_frame(FrameType::Open, 1, hello.headers.clone(), None, true);
            set_fresh(&mut frame.payload, hello.payload.clone());
            check_sendable(&frame, options.connection.max_frame_bytes).map_err(|e| {
                let mut message = String::from("the hello cannot be sent: ");
                e.write_message(&mut message);
                ConfigError(message)
            })?;
        }
        let mut peer = Peer {
            options,
            jitter,
            phase: Phase::Stopped,
            live: None,
            retiring: Vec::new(),
            actions: Vec::new(),
            events: Fifo::new(),
            next_socket: 1,
            attempts: 0,
            reconnects: 0,
            first: true,
            final_reported: false,
            last_now: 0,
        };
        peer.dial();
        Ok(peer)
    }

    // ------------------------------------------------------------------------------ queries

    /// True while a connection is established — false between sockets, in the hello window and
    /// while `close()` drains (WSM-RCN-042/043).
    pub fn is_open(&self) -> bool {
        matches!(self.phase, Phase::Established)
    }

    /// True once the peer will never dial again (closed, gave up, or the first connect failed)
    /// (WSM-RCN-044).
    pub fn is_closed(&self) -> bool {
        matches!(self.phase, Phase::Stopped)
    }

    /// Consecutive failed attempts — the helper's only persistent state (WSM-RCN-001).
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The subprotocol offer of every [`Action::Dial`]: `muxws.v1.json` first, then
    /// [`PeerOptions::subprotocols`] (WSM-CDC-020/021).
    pub fn protocols(&self) -> impl Iterator<Item = &str> {
        core::iter::once(SUBPROTOCOL).chain(self.options.subprotocols.iter().map(String::as_str))
    }

    /// The current socket, if one is open (WSM-RCN-043: it may be in the hello window).
    pub fn socket(&self) -> Option<SocketId> {
        self.live.as_ref().map(|(socket, _)| *socket)
    }

    /// The current connection, for inspection (WSM-STM-001).
    pub fn connection(&self) -> Option<&Connection> {
        self.live.as_ref().map(|(_, conn)| conn)
    }

    /// The round trip (ms) of the current connection's last heartbeat `ping`, once; see
    /// [`Connection::poll_round_trip`] (WSM-CON-012).
    pub fn poll_round_trip(&mut self) -> Option<u64> {
        self.live.as_mut()?.1.poll_round_trip()
    }

    /// State of a live stream; `None` once closed or if its socket is gone (§4.2).
    pub fn stream_state(&self, stream: StreamRef) -> Option<StreamState> {
        self.conn_for(stream)
            .and_then(|conn| conn.stream_state(stream.id))
    }

    fn conn_for(&self, stream: StreamRef) -> Option<&Connection> {
        match &self.live {
            Some((socket, conn)) if *socket == stream.socket => Some(conn),
            _ => None,
        }
    }

    fn conn_for_mut(&mut self, stream: StreamRef) -> Option<&mut Connection> {
        match &mut self.live {
            Some((socket, conn)) if *socket == stream.socket => Some(conn),
            _ => None,
        }
    }

    // ------------------------------------------------------------------------------ outputs

    /// The next socket action. Call after every input until it returns `None`, then drain
    /// [`Peer::poll_event`]. Yielding a macrotask between `Send`s lets other work interleave with
    /// a long fragmented upload (WSM-FRG-019).
    pub fn poll_action(&mut self, now: u64) -> Option<Action> {
        self.progress(now);
        if let Some(action) = take_at(&mut self.actions, 0) {
            return Some(action);
        }
        if let Some((socket, conn)) = &mut self.live {
            let socket = *socket;
            if let Some(text) = conn.poll_transmit(now) {
                self.progress(now);
                return Some(Action::Send { socket, text });
            }
        }
        if let Some(retiring) = self.retiring.first_mut() {
            if let Some(text) = retiring.conn.poll_transmit(now) {
                return Some(Action::Send {
                    socket: retiring.socket,
                    text,
                });
            }
            let retiring = take_at(&mut self.retiring, 0)?;
            return Some(Action::Close {
                socket: retiring.socket,
                code: retiring.code,
                reason: retiring.reason,
            });
        }
        None
    }

    /// The next application notification (WSM-ERR-003: each reaches its call site in the JS
    /// layer).
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When to call [`Peer::handle_timeout`] next: backoff end, hello deadline, heartbeat,
    /// drain deadline (WSM-RCN-010/011/026, WSM-CON-024).
    pub fn poll_timeout(&self) -> Option<u64> {
        let own = match self.phase {
            Phase::Backoff { until } => Some(until),
            Phase::Hello { deadline, .. } => Some(deadline),
            _ => None,
        };
        let conn = self.live.as_ref().and_then(|(_, conn)| conn.poll_timeout());
        earliest(own, conn)
    }

    /// Run whatever is due at `now` (WSM-RCN-010/011/026, WSM-CON-024).
    pub fn handle_timeout(&mut self, now: u64) {
        match self.phase {
            Phase::Backoff { until } if now >= until => self.dial(),
            Phase::Hello { hello_id, deadline } if now >= deadline => {
                if let Some((_, conn)) = &mut self.live {
                    conn.timeout(hello_id);
                }
            }
            _ => {}
        }
        if let Some((_, conn)) = &mut self.live {
            conn.handle_timeout(now);
        }
        self.progress(now);
    }

    // ------------------------------------------------------------------------------ socket inputs

    /// The socket opened; `protocol` is `ws.protocol`. Anything but `muxws.v1.json` closes it and
    /// fails the attempt with `CodecMismatch` (WSM-CDC-028, WSM-CON-030).
    pub fn socket_opened(&mut self, socket: SocketId, protocol: &str, now: u64) {
        self.last_now = self.last_now.max(now);
        if !matches!(self.phase, Phase::Dialing { socket: s } if s == socket) {
            return;
        }
        if protocol != SUBPROTOCOL {
            self.actions.push(Action::Close {
                socket,
                code: CLOSE_CODEC_MISMATCH,
                reason: cat3("expected subprotocol ", SUBPROTOCOL, ""),
            });
            // WSM-CDC-028: the socket opened, but with another subprotocol than the one this
            // client speaks.
            let selected = protocol.to_owned();
            self.dial_failed(ConnectError::CodecMismatch { selected }, now);
            return;
        }
        // The options were validated in `Peer::new`.
        let mut conn = Connection::with_valid_config(self.options.connection.clone(), now);
        // The hello is an ordinary open, stream 1, before any application frame; no
        // interceptor sees it (WSM-RCN-021/023). It cannot be refused (it was checked in
        // `Peer::new`); were it, the connection would count as established without one.
        let hello_id = self.options.hello.as_ref().and_then(|hello| {
            conn.open(hello.headers.clone(), hello.payload.clone(), true, now)
                .ok()
        });
        self.live = Some((socket, conn));
        match hello_id {
            Some(hello_id) => {
                self.phase = Phase::Hello {
                    hello_id,
                    deadline: now.saturating_add(self.options.hello_timeout_ms),
                };
            }
            None => self.established(),
        }
    }

    /// One inbound text message on `socket` (WSM-CDC-002). Malformed input never panics: it
    /// becomes a connection-level error (WSM-FRM-005).
    pub fn socket_message(&mut self, socket: SocketId, text: &str, now: u64) {
        if let Some((s, conn)) = &mut self.live {
            if *s == socket {
                conn.receive(text, now);
                self.progress(now);
            }
        }
    }

    /// A text message on `socket` known to be over the frame cap, of which only `head` (its first
    /// bytes, e.g. what fits a window of the cap + 1 bytes) is given: declined without being
    /// decoded (WSM-FRG-031, [`Connection::receive_over_cap`]). Never panics.
    pub fn socket_message_over_cap(&mut self, socket: SocketId, head: &str, now: u64) {
        if let Some((s, conn)) = &mut self.live {
            if *s == socket {
                conn.receive_over_cap(head, now);
                self.progress(now);
            }
        }
    }

    /// A **binary** message on `socket`: a connection-level error under the JSON codec
    /// (WSM-CDC-002, WSM-FRM-005).
    pub fn socket_binary_message(&mut self, socket: SocketId, now: u64) {
        if let Some((s, conn)) = &mut self.live {
            if *s == socket {
                conn.receive_binary(now);
                self.progress(now);
            }
        }
    }

    /// The socket's `close` event (also the only event of a socket that never opened): every
    /// stream on it fails `ConnectionLost`, then the loss is reported once (WSM-RCN-040/041,
    /// WSM-CDC-024 for a socket that never opened).
    pub fn socket_closed(
        &mut self,
        socket: SocketId,
        code: u16,
        reason: &str,
        was_clean: bool,
        now: u64,
    ) {
        self.last_now = self.last_now.max(now);
        if matches!(self.phase, Phase::Dialing { socket: s } if s == socket) {
            let error = ConnectError::NotOpened {
                code,
                reason: reason.to_owned(),
            };
            self.dial_failed(error, now);
            return;
        }
        if let Some((s, conn)) = &mut self.live {
            if *s == socket {
                conn.socket_lost();
                self.pump();
                self.live = None;
                self.lost(code, reason.to_owned(), was_clean, now);
                return;
            }
        }
        // A socket we were closing anyway: nothing left to flush or close (socket ids are never
        // reused, so it is retiring at most once).
        if let Some(at) = self.retiring.iter().position(|r| r.socket == socket) {
            take_at(&mut self.retiring, at);
        }
    }

    // ------------------------------------------------------------------------------ application calls

    /// `peer.open()`: synchronous; allocates the id and enqueues the `open` in one step. Throws
    /// exactly `ConnectionGoingAway` (after a goaway, while closing) or `ConnectionLost` (between
    /// sockets, including the hello window); nothing is ever queued for a later socket
    /// (WSM-API-001/003/004, WSM-SID-006, WSM-RCN-042). `headers` are final — open interceptors
    /// run in the JS layer before this call.
    pub fn open(
        &mut self,
        headers: Option<Headers>,
        payload: Payload,
        end: bool,
        now: u64,
    ) -> Result<StreamRef, OpenError> {
        self.open_on_live(now, |conn| conn.open(headers, payload, end, now))
    }

    /// [`Peer::open`] with a payload `source` gives, a window at a time, so it is never held
    /// whole here (WSM-FRG-018); see [`Connection::open_with_source`].
    pub fn open_with_source(
        &mut self,
        headers: Option<Headers>,
        source: Box<dyn PayloadSource>,
        end: bool,
        now: u64,
    ) -> Result<StreamRef, OpenError> {
        self.open_on_live(now, |conn| conn.open_with_source(headers, source, end, now))
    }

    /// Opens a stream on the live connection with `open`, when there is one that takes new streams:
    /// `ConnectionGoingAway` while closing, `ConnectionLost` between sockets.
    fn open_on_live(
        &mut self,
        now: u64,
        open: impl FnOnce(&mut Connection) -> Result<StreamId, OpenError>,
    ) -> Result<StreamRef, OpenError> {
        match self.phase {
            Phase::Established => {}
            Phase::Closing => return Err(OpenError::GoingAway),
            _ => return Err(OpenError::ConnectionLost),
        }
        let Some((socket, conn)) = &mut self.live else {
            return Err(OpenError::ConnectionLost);
        };
        let socket = *socket;
        let id = open(conn)?;
        self.progress(now);
        Ok(StreamRef { socket, id })
    }

    /// `data` whose payload `source` gives, with `end` when `end` is true; errors as
    /// [`Peer::send`] (WSM-FRG-018).
    pub fn send_with_source(
        &mut self,
        stream: StreamRef,
        source: Box<dyn PayloadSource>,
        end: bool,
    ) -> Result<(), SendError> {
        let result = self
            .conn_for_mut(stream)
            .ok_or(SendError::NotLive)?
            .send_with_source(stream.id, source, end);
        self.settle();
        result
    }

    /// With fragment delivery ([`ConnectionConfig::deliver_fragments`](crate::ConnectionConfig::deliver_fragments)): whether the joined
    /// fragments of the stream's payload parsed; see [`Connection::payload_checked`].
    pub fn payload_checked(&mut self, stream: StreamRef, valid: bool) {
        if let Some(conn) = self.conn_for_mut(stream) {
            conn.payload_checked(stream.id, valid);
        }
        self.settle();
    }

    /// `stream.send()/end()/reply()/sendHeaders()` (WSM-FRM-011/016, WSM-ERR-009, WSM-API-024).
    pub fn send(&mut self, stream: StreamRef, out: Outbound) -> Result<(), SendError> {
        let result = self
            .conn_for_mut(stream)
            .ok_or(SendError::NotLive)?
            .send(stream.id, out);
        self.settle();
        result
    }

    /// After a call that carries no clock: forward the connection's events at once, using the
    /// latest time seen.
    fn settle(&mut self) {
        self.progress(self.last_now);
    }

    /// The implicit end when a push handler returns (WSM-STM-035); false if nothing was sent.
    pub fn finish(&mut self, stream: StreamRef) -> bool {
        let sent = self
            .conn_for_mut(stream)
            .is_some_and(|conn| conn.finish(stream.id));
        self.settle();
        sent
    }

    /// `stream.cancel(reason)`: `reset(CANCELLED)`, closed locally at once; a no-op after socket
    /// death (WSM-ERR-012, WSM-RCN-041).
    pub fn cancel(&mut self, stream: StreamRef, reason: Option<String>) -> bool {
        let done = self
            .conn_for_mut(stream)
            .is_some_and(|conn| conn.cancel(stream.id, reason));
        self.settle();
        done
    }

    /// A request deadline expired: `reset(TIMEOUT)` first, then `StreamTimeout` locally
    /// (WSM-ERR-011). The deadline itself is the caller's timer (WSM-ERR-010: none by default).
    pub fn timeout(&mut self, stream: StreamRef) -> bool {
        let done = self
            .conn_for_mut(stream)
            .is_some_and(|conn| conn.timeout(stream.id));
        self.settle();
        done
    }

    /// `stream.reset(code, reason)`, e.g. `APPLICATION_ERROR` with a serialized error when a push
    /// handler raised (WSM-STM-034, WSM-ERR-006/008). A no-op after socket death (WSM-RCN-041).
    pub fn reset(
        &mut self,
        stream: StreamRef,
        code: i64,
        reason: Option<String>,
        payload: Payload,
    ) -> Result<bool, SendError> {
        let result = match self.conn_for_mut(stream) {
            Some(conn) => conn.reset(stream.id, code, reason, payload),
            None => Ok(false),
        };
        self.settle();
        result
    }

    /// Register or unregister the push handler; without one incoming opens are refused
    /// (WSM-STM-030/033). Applies to the current and every later socket.
    pub fn set_accept_incoming(&mut self, accept: bool) {
        self.options.connection.accept_incoming = accept;
        if let Some((_, conn)) = &mut self.live {
            conn.set_accept_incoming(accept);
        }
    }

    /// `peer.close({code, reason, drainMs})`: stop reconnecting (even mid-backoff), send
    /// `goaway(code, last_stream = highest_remote_open)`, drain, close with 1000, then report
    /// `Closed{will_retry: false}` once (WSM-CON-021/025, WSM-RCN-040/044).
    pub fn close(&mut self, code: i64, reason: Option<String>, drain_ms: u64, now: u64) {
        match self.phase {
            Phase::Stopped | Phase::Closing => {}
            Phase::Established => {
                if let Some((_, conn)) = &mut self.live {
                    conn.begin_drain(code, reason, drain_ms, now);
                }
                self.phase = Phase::Closing;
                self.progress(now);
            }
            // Dialing, in the hello window or in a backoff sleep: the peer stops here.
            Phase::Dialing { .. } | Phase::Hello { .. } | Phase::Backoff { .. } => {
                let reason = reason.unwrap_or_default();
                if let Phase::Dialing { socket } = self.phase {
                    self.actions.push(Action::Close {
                        socket,
                        code: CLOSE_NORMAL,
                        reason: close_reason_text(&reason),
                    });
                } else {
                    // In the hello window, if there is a live connection.
                    self.retire_live(CLOSE_NORMAL, &reason, LetGo::Silence);
                }
                self.closed_by_application(reason);
            }
        }
    }

    /// Skip a pending backoff sleep and dial now — a "try again now" button. Does not reset the
    /// attempt counter (WSM-RCN-004). Returns false when no backoff was pending.
    pub fn reconnect_now(&mut self, _now: u64) -> bool {
        if matches!(self.phase, Phase::Backoff { .. }) {
            self.dial();
            true
        } else {
            false
        }
    }

    // ------------------------------------------------------------------------------ internals

    fn dial(&mut self) {
        let socket = self.next_socket;
        self.next_socket += 1;
        self.phase = Phase::Dialing { socket };
        self.actions.push(Action::Dial { socket });
    }

    fn backoff(&mut self, now: u64) {
        let draw = (self.jitter)();
        let delay = delay_ms(self.attempts, &self.options.reconnect, draw);
        // Rounded half up (the delay is finite and non-negative; `as` saturates).
        let until = now.saturating_add((delay + 0.5) as u64);
        self.phase = Phase::Backoff { until };
    }

    fn retry_or_give_up(&mut self, now: u64) {
        if self.options.reconnect.should_retry(self.attempts) {
            self.backoff(now);
        } else {
            let reason = around(
                "gave up reconnecting after ",
                u64::from(self.attempts),
                " attempts",
            );
            self.report_closed(CLOSE_ABNORMAL, reason, false, false, now);
        }
    }

    /// Reports `Closed` and, when `will_retry`, waits out the backoff before the next dial;
    /// otherwise the peer stops, its final `Closed` reported once (WSM-RCN-040/044/045).
    fn report_closed(
        &mut self,
        code: u16,
        reason: String,
        was_clean: bool,
        will_retry: bool,
        now: u64,
    ) {
        if !will_retry {
            self.phase = Phase::Stopped;
            if self.final_reported {
                return;
            }
            self.final_reported = true;
        }
        self.events.push_back(Event::Closed(CloseReason {
            code,
            reason,
            was_clean,
            will_retry,
        }));
        if will_retry {
            self.backoff(now);
        }
    }

    /// A dial that never produced an established socket: no `Closed` (WSM-RCN-040).
    fn dial_failed(&mut self, error: ConnectError, now: u64) {
        if self.first_is_final() {
            self.connect_failed(error);
            return;
        }
        self.attempts = self.attempts.saturating_add(1);
        self.retry_or_give_up(now);
    }

    fn connect_failed(&mut self, error: ConnectError) {
        self.first = false;
        self.final_reported = true;
        self.phase = Phase::Stopped;
        self.events.push_back(Event::ConnectFailed(error));
    }

    /// Whether a failure now ends the peer: the first connect fails for good unless the peer
    /// retries it (WSM-RCN-006, [`PeerOptions::retry_first_connect`]).
    // Out of line: smaller wasm.
    #[inline(never)]
    fn first_is_final(&self) -> bool {
        self.first && !self.options.retry_first_connect
    }

    fn closed_by_application(&mut self, reason: String) {
        if self.first_is_final() {
            self.connect_failed(ConnectError::Closed);
            return;
        }
        self.report_closed(CLOSE_NORMAL, reason, true, false, self.last_now);
    }

    fn established(&mut self) {
        self.phase = Phase::Established;
        self.attempts = 0;
        if self.first {
            self.first = false;
            self.events.push_back(Event::Established);
        } else {
            self.reconnects = self.reconnects.saturating_add(1);
            self.events.push_back(Event::Reconnected {
                attempt: self.reconnects,
            });
        }
    }

    /// A socket that existed is gone; every stream on it has already failed (WSM-RCN-041).
    /// Report it once and decide whether to redial (WSM-RCN-040/044).
    fn lost(&mut self, code: u16, reason: String, was_clean: bool, now: u64) {
        match self.phase {
            Phase::Closing => self.report_closed(code, reason, was_clean, false, now),
            Phase::Hello { .. } if self.first_is_final() => {
                self.connect_failed(ConnectError::Hello(StreamError::ConnectionLost));
            }
            _ => {
                if matches!(self.phase, Phase::Hello { .. }) {
                    // A hello attempt that lost its socket is a failed attempt (WSM-RCN-026).
                    self.attempts = self.attempts.saturating_add(1);
                }
                let will_retry = self.options.reconnect.should_retry(self.attempts);
                self.report_closed(code, reason, was_clean, will_retry, now);
            }
        }
    }

    fn hello_failed(&mut self, error: StreamError, now: u64) {
        let mut reason = String::from("hello failed: ");
        error.write_message(&mut reason);
        self.retire_live(CLOSE_NORMAL, &reason, LetGo::Flush);
        if self.first_is_final() {
            self.connect_failed(ConnectError::Hello(error));
            return;
        }
        self.attempts = self.attempts.saturating_add(1);
        let will_retry = self.options.reconnect.should_retry(self.attempts);
        self.report_closed(CLOSE_NORMAL, reason, true, will_retry, now);
    }

    fn on_termination(&mut self, termination: Termination, now: u64) {
        let Some((_, conn)) = &self.live else {
            return;
        };
        let ping_timeout_ms = conn.config().ping_timeout_ms;
        let (code, was_clean) = match termination {
            Termination::HeartbeatTimeout => (CLOSE_ABNORMAL, false),
            Termination::ProtocolError { .. } => (CLOSE_PROTOCOL_ERROR, false),
            Termination::Drained { .. } | Termination::GoawayTimeout => (CLOSE_NORMAL, true),
        };
        let close_code = termination.close_code();
        let close_reason = termination.close_reason(ping_timeout_ms);
        self.retire_live(close_code, &close_reason, LetGo::Ended);
        self.lost(code, close_reason, was_clean, now);
    }

    /// Retire the live connection, if there is one: `let_go` says how it stops, its live streams
    /// fail `ConnectionLost` (reported with its last events, pumped now), and it waits in
    /// `retiring` to be flushed and closed with `code` and `reason` (cut by
    /// [`close_reason_text`]).
    fn retire_live(&mut self, code: u16, reason: &str, let_go: LetGo) {
        let Some((socket, mut conn)) = self.live.take() else {
            return;
        };
        match let_go {
            LetGo::Silence => conn.socket_lost(),
            LetGo::Flush => conn.abandon(),
            LetGo::Ended => {}
        }
        Self::pump_into(socket, &mut conn, &mut self.events, None);
        self.retiring.push(Retiring {
            socket,
            conn,
            code,
            reason: close_reason_text(reason),
        });
    }

    /// Translate the connection's events into peer events; returns the hello's outcome, if the
    /// hello stream finished (acknowledged: `Ok`).
    fn pump_into(
        socket: SocketId,
        conn: &mut Connection,
        events: &mut Fifo<Event>,
        hello_id: Option<StreamId>,
    ) -> Option<Result<(), StreamError>> {
        let mut hello = None;
        while let Some(event) = conn.poll_event() {
            match event {
                ConnEvent::Stream { id, event } if Some(id) == hello_id => match event {
                    StreamEvent::Closed => hello = Some(Ok(())),
                    StreamEvent::Failed(error) => hello = Some(Err(error)),
                    // The hello's answer is not looked at, so it needs no parsing either.
                    StreamEvent::Fragment { more: false, .. } => conn.payload_checked(id, true),
                    _ => {}
                },
                ConnEvent::Stream { id, event } => events.push_back(Event::Stream {
                    stream: StreamRef { socket, id },
                    event,
                }),
                // Without the `incoming` feature no push is accepted, so none is surfaced.
                ConnEvent::Incoming {
                    id,
                    headers,
                    payload,
                    end,
                } if cfg!(feature = "incoming") => events.push_back(Event::Incoming {
                    stream: StreamRef { socket, id },
                    headers,
                    payload,
                    end,
                }),
                ConnEvent::Incoming { .. } => {}
                ConnEvent::GoAway {
                    code,
                    reason,
                    last_stream,
                } => events.push_back(Event::GoAway {
                    code,
                    reason,
                    last_stream,
                }),
            }
        }
        hello
    }

    fn pump(&mut self) -> Option<Result<(), StreamError>> {
        let hello_id = match self.phase {
            Phase::Hello { hello_id, .. } => Some(hello_id),
            _ => None,
        };
        let (socket, conn) = self.live.as_mut()?;
        Self::pump_into(*socket, conn, &mut self.events, hello_id)
    }

    /// Move the current connection forward after any input: forward its events, then act on a
    /// hello outcome or on the connection's end.
    fn progress(&mut self, now: u64) {
        self.last_now = self.last_now.max(now);
        let termination = match &mut self.live {
            Some((_, conn)) => conn.poll_termination(),
            None => return,
        };
        let hello = self.pump();
        if let Some(termination) = termination {
            self.on_termination(termination, now);
            return;
        }
        match hello {
            Some(Ok(())) => self.established(),
            Some(Err(error)) => self.hello_failed(error, now),
            None => {}
        }
    }
}
