//! One socket's worth of muxws dialer state (`SPEC.md` §4, §5.5, §5.14, §5.15).
//!
//! [`Connection`] owns exactly what WSM-STM-001 allows: the two high-water marks and the map of
//! live streams — nothing per closed stream. It is sans-IO: text messages go in through
//! [`Connection::receive`], encoded frames come out through [`Connection::poll_transmit`],
//! notifications through [`Connection::poll_event`], timers through
//! [`Connection::poll_timeout`]/[`Connection::handle_timeout`], and the end of the connection
//! through [`Connection::poll_termination`].
//!
//! Classification of inbound frames (§4.3):
//! - **connection-level** — undecodable message, missing `type`, wrong field types, an `open` with
//!   odd (our) parity, an `open` not above the remote's previous highest, any frame naming an id
//!   above the relevant high-water mark: `goaway(PROTOCOL_ERROR)` is queued, every live stream
//!   fails with `ConnectionLost`, and [`Termination::ProtocolError`] asks the owner to close the
//!   socket once the goaway is flushed (WSM-STM-003/023, WSM-SID-005, WSM-FRM-005);
//! - **stream-level** — `data` after the remote's `end`, headers on a later frame, a non-fragment
//!   frame mid-reassembly, an over-cap message, a payload over `max_payload_bytes`, an undecodable
//!   reassembled payload: `reset(3)` or `reset(7)` for that stream only (WSM-STM-020/021,
//!   WSM-FRM-016, WSM-FRG-031/032/033);
//! - **ignored** — a frame for an id at or below the high-water mark that is not live (late frames
//!   after cancel/timeout/reset), unknown frame types and unknown fields (WSM-STM-002/015,
//!   WSM-FRM-001/002).
//!
//! The writer keeps a lane per stream plus a connection lane (`0`) and picks the next frame
//! round-robin over lanes with work; a fragmented payload yields one fragment per turn and the next
//! fragment is cut only when it is asked for (WSM-FRG-017/018/019, WSM-INV-004).

mod config;
mod events;
mod id_map;
mod inbound;
mod stream;
mod writer;

use alloc::{borrow::ToOwned, boxed::Box, string::String};

use crate::error::{code, ConfigError, OpenError, SendError, StreamError};
use crate::fragment::{check_sendable, PayloadSource};
use crate::frame::{set_fresh, Frame, FrameType, Headers, Payload};
use vec_fifo::Fifo;

pub use config::{
    ConnectionConfig, DEFAULT_DRAIN_MS, DEFAULT_MAX_CONCURRENT_STREAMS, DEFAULT_PING_INTERVAL_MS,
    DEFAULT_PING_TIMEOUT_MS, GOAWAY_CLOSE_FALLBACK_MS, MAX_HEADER_KEYS,
};
pub use events::{
    ConnEvent, StreamEvent, Termination, CLOSE_ABNORMAL, CLOSE_CODEC_MISMATCH, CLOSE_NORMAL,
    CLOSE_PROTOCOL_ERROR,
};
pub use id_map::{StreamId, MAX_STREAM_ID};
pub use stream::StreamState;
pub(crate) use writer::outbound_frame;
pub use writer::Outbound;

use id_map::IdMap;
use stream::StreamRec;
use writer::{Body, Writer};

/// The earlier of two optional times (`None`: no time).
// Out of line: smaller wasm.
#[inline(never)]
pub(crate) fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
enum Phase {
    Open,
    Draining {
        deadline: u64,
        reason: Option<String>,
    },
    Done,
}

/// One socket's muxws dialer state; see the module documentation (WSM-STM-001, WSM-SID-002,
/// WSM-CON-030).
///
/// # Liveness is judged by what arrives
///
/// The heartbeat looks only at **inbound** messages: when nothing has arrived for
/// `ping_interval_ms` a `ping` goes out, and when its `pong` has not arrived `ping_timeout_ms`
/// later the socket is dead ([`Termination::HeartbeatTimeout`]), however many frames this side
/// sent meanwhile. A socket that went silent is therefore declared dead within
/// `ping_interval_ms + ping_timeout_ms` (30 s by default) whatever is being sent.
///
/// This is stricter than the spec's wording, which pings "on an otherwise idle socket" — idle in
/// either direction (WSM-RCN-010). Counting outgoing frames as activity lets a line that died
/// silently (TCP still open, nothing arriving: a closed laptop lid, a NAT that dropped its state)
/// look alive for as long as the application keeps sending into it — every call timing out and
/// being repeated keeps the clock fresh, so no ping is ever sent and the death is never found.
/// Only an arrival proves the remote is still there; pinging a busy-sending connection that hears
/// nothing back costs the server one `pong`.
pub struct Connection {
    cfg: ConnectionConfig,
    next_local_id: StreamId,
    highest_local_open: StreamId,
    highest_remote_open: StreamId,
    streams: IdMap<StreamRec>,
    writer: Writer,
    events: Fifo<ConnEvent>,
    phase: Phase,
    goaway_sent: bool,
    goaway_received: Option<StreamId>,
    goaway_deadline: Option<u64>,
    /// When a message last arrived (the heartbeat's only clock).
    last_arrival: u64,
    /// The pong deadline of the outstanding heartbeat `ping`, whose nonce is
    /// `hex16(ping_count)` (the count moves only when a ping goes out with none outstanding).
    ping: Option<u64>,
    ping_count: u64,
    /// When the outstanding heartbeat `ping` was queued (the start of its round trip).
    ping_sent_at: u64,
    /// The last round trip (ms) not yet taken by [`Connection::poll_round_trip`].
    round_trip: Option<u64>,
    termination: Option<Termination>,
    ignored_frames: u64,
    unknown_frames: u64,
    /// Streams whose fragmented payload waits for [`Connection::payload_checked`].
    verdicts_awaited: usize,
}

impl Connection {
    /// A fresh connection on a socket that just opened with the subprotocol accepted
    /// (WSM-CON-030). Ids start at 1 (WSM-SID-002, WSM-RCN-031); the heartbeat clock starts now.
    pub fn new(cfg: ConnectionConfig, now: u64) -> Result<Connection, ConfigError> {
        cfg.validate()?;
        Ok(Connection::with_valid_config(cfg, now))
    }

    /// [`Connection::new`] for a configuration already validated (the supervisor validates its
    /// options once, in `Peer::new`).
    // Out of line: smaller wasm.
    #[inline(never)]
    pub(crate) fn with_valid_config(cfg: ConnectionConfig, now: u64) -> Connection {
        Connection {
            cfg,
            next_local_id: 1,
            highest_local_open: 0,
            highest_remote_open: 0,
            streams: IdMap::default(),
            writer: Writer::default(),
            events: Fifo::new(),
            phase: Phase::Open,
            goaway_sent: false,
            goaway_received: None,
            goaway_deadline: None,
            last_arrival: now,
            ping: None,
            ping_count: 0,
            ping_sent_at: now,
            round_trip: None,
            termination: None,
            ignored_frames: 0,
            unknown_frames: 0,
            verdicts_awaited: 0,
        }
    }

    // ----------------------------------------------------------------------------- queries

    /// The configuration (`SPEC.md` §7).
    pub fn config(&self) -> &ConnectionConfig {
        &self.cfg
    }

    /// Register or unregister the incoming-stream handler (WSM-STM-030/033).
    pub fn set_accept_incoming(&mut self, accept: bool) {
        self.cfg.accept_incoming = accept;
    }

    /// Highest id this peer opened on this socket (WSM-STM-001).
    pub fn highest_local_open(&self) -> StreamId {
        self.highest_local_open
    }

    /// Highest id the remote opened on this socket (WSM-STM-001).
    pub fn highest_remote_open(&self) -> StreamId {
        self.highest_remote_open
    }

    /// State of a live stream; `None` once closed (WSM-STM-001, §4.2).
    pub fn stream_state(&self, id: StreamId) -> Option<StreamState> {
        self.streams.get(&id).map(StreamRec::state)
    }

    /// Ids of the live streams, ascending (WSM-STM-001).
    pub fn live_streams(&self) -> impl Iterator<Item = StreamId> + '_ {
        self.streams.keys()
    }

    /// The `last_stream` of a received goaway, if any (WSM-CON-022).
    pub fn goaway_received(&self) -> Option<StreamId> {
        self.goaway_received
    }

    /// Whether this peer sent a goaway (WSM-CON-021).
    pub fn goaway_sent(&self) -> bool {
        self.goaway_sent
    }

    /// When a message last **arrived** (sent frames do not count; see [`Connection`]'s liveness
    /// rule, WSM-RCN-010).
    pub fn last_activity(&self) -> u64 {
        self.last_arrival
    }

    /// Late frames silently ignored (the "at most a counter" of WSM-STM-002).
    pub fn ignored_frames(&self) -> u64 {
        self.ignored_frames
    }

    /// Frames of unknown type ignored (WSM-FRM-002).
    pub fn unknown_frames(&self) -> u64 {
        self.unknown_frames
    }

    /// True once the connection is over and only flushing remains (WSM-STM-023).
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    // ----------------------------------------------------------------------------- outputs

    /// The next encoded message for the socket, chosen round-robin (WSM-FRG-017/018/019), never
    /// over `max_frame_bytes`. Sending does not count as liveness (see [`Connection`]).
    pub fn poll_transmit(&mut self, _now: u64) -> Option<String> {
        let text = self.writer.poll(self.cfg.max_frame_bytes)?;
        self.check_drained();
        Some(text)
    }

    /// Whether anything is waiting to be transmitted (WSM-CON-025 drain).
    pub fn has_pending_transmit(&self) -> bool {
        !self.writer.is_idle()
    }

    /// The next notification (WSM-API-002).
    // Out of line: smaller wasm.
    #[inline(never)]
    pub fn poll_event(&mut self) -> Option<ConnEvent> {
        self.events.pop_front()
    }

    /// The round trip of the last heartbeat `ping`, in ms of the owner's clock, once: from the
    /// `now` it was queued at to the `now` of the `pong` that echoed its nonce (WSM-CON-010/012).
    /// A `pong` that does not answer the outstanding ping (another nonce, none outstanding, a
    /// repeat) measures nothing. A ping goes out only after `ping_interval_ms` with nothing
    /// arriving (see [`Connection`]), so a busy connection is measured seldom or never.
    // Out of line: smaller wasm.
    #[inline(never)]
    pub fn poll_round_trip(&mut self) -> Option<u64> {
        self.round_trip.take()
    }

    /// The connection's end, reported once (WSM-STM-023, WSM-CON-024, WSM-RCN-011).
    // Out of line: smaller wasm.
    #[inline(never)]
    pub fn poll_termination(&mut self) -> Option<Termination> {
        self.termination.take()
    }

    /// The earliest time [`Connection::handle_timeout`] has work: the next heartbeat ping, the
    /// pong deadline, the drain deadline or the goaway fallback (WSM-RCN-010/011, WSM-CON-024).
    pub fn poll_timeout(&self) -> Option<u64> {
        if self.is_done() {
            return None;
        }
        let ping = match self.ping {
            None if self.cfg.ping_interval_ms > 0 => {
                Some(self.last_arrival.saturating_add(self.cfg.ping_interval_ms))
            }
            ping => ping,
        };
        let drain = match self.phase {
            Phase::Draining { deadline, .. } => Some(deadline),
            _ => None,
        };
        earliest(earliest(ping, drain), self.goaway_deadline)
    }

    /// Run the timers due at `now` (WSM-RCN-010/011, WSM-CON-024).
    pub fn handle_timeout(&mut self, now: u64) {
        if self.is_done() {
            return;
        }
        let ping_due = self.cfg.ping_interval_ms > 0
            && now >= self.last_arrival.saturating_add(self.cfg.ping_interval_ms);
        match self.ping {
            Some(deadline) if now >= deadline => {
                self.terminate(Termination::HeartbeatTimeout);
                return;
            }
            None if ping_due => {
                self.ping_count += 1;
                self.push_nonce(FrameType::Ping, Some(crate::text::hex16(self.ping_count)));
                self.ping = Some(now.saturating_add(self.cfg.ping_timeout_ms));
                self.ping_sent_at = now;
            }
            _ => {}
        }
        if let Phase::Draining { deadline, reason } = &self.phase {
            if now >= *deadline {
                let reason = reason.clone();
                self.terminate(Termination::Drained { reason });
                return;
            }
        }
        if self.goaway_deadline.is_some_and(|d| now >= d) {
            self.terminate(Termination::GoawayTimeout);
        }
    }

    /// End the connection now: every live stream fails `ConnectionLost`, nothing more is sent
    /// (WSM-STM-014, WSM-RCN-041).
    fn terminate(&mut self, termination: Termination) {
        self.writer.clear_all();
        self.lose_all();
        self.phase = Phase::Done;
        self.termination = Some(termination);
    }

    /// Queue a `ping` or `pong` carrying `nonce` (WSM-CON-010).
    fn push_nonce(&mut self, kind: FrameType, nonce: Option<String>) {
        let mut frame = Frame::new(kind);
        set_fresh(&mut frame.nonce, nonce);
        self.writer.push(0, frame);
    }

    /// Queue `event` for stream `id`.
    fn stream_event(&mut self, id: StreamId, event: StreamEvent) {
        self.events.push_back(ConnEvent::Stream { id, event });
    }

    fn lose_all(&mut self) {
        let streams = core::mem::take(&mut self.streams);
        for (id, rec) in &streams.0 {
            if rec.is_surfaced() {
                self.stream_event(*id, StreamEvent::Failed(StreamError::ConnectionLost));
            }
        }
    }

    /// Give up on this connection while still flushing what is queued (e.g. the `reset(TIMEOUT)`
    /// of a timed-out hello before the socket is closed): every live stream fails
    /// `ConnectionLost` and no further input is processed (WSM-RCN-026, WSM-RCN-041).
    pub fn abandon(&mut self) {
        self.lose_all();
        self.phase = Phase::Done;
    }

    /// The socket closed (or is being abandoned): every live stream fails `ConnectionLost`
    /// before the owner reports the close, and nothing is sent any more (WSM-STM-014,
    /// WSM-RCN-041, WSM-INV-011).
    pub fn socket_lost(&mut self) {
        self.writer.clear_all();
        self.lose_all();
        self.phase = Phase::Done;
    }

    // ----------------------------------------------------------------------------- local API

    /// Allocate the next odd id and enqueue its `open` in one step (WSM-SID-001/002/006,
    /// WSM-INV-005, WSM-API-001). `payload` is what goes on the wire: `Payload::null()` is the
    /// API default (WSM-API-003). Never refused for concurrency (WSM-STM-036).
    pub fn open(
        &mut self,
        headers: Option<Headers>,
        payload: Payload,
        end: bool,
        now: u64,
    ) -> Result<StreamId, OpenError> {
        self.open_body(headers, Body::Whole(payload), end, now)
    }

    /// [`Connection::open`] with a payload that `source` gives, a window at a time: it is never
    /// held whole here, however long it is (WSM-FRG-018). A payload that fits the cap goes out
    /// whole, as with [`Connection::open`]; the cut points are the same.
    pub fn open_with_source(
        &mut self,
        headers: Option<Headers>,
        source: Box<dyn PayloadSource>,
        end: bool,
        now: u64,
    ) -> Result<StreamId, OpenError> {
        self.open_body(headers, Body::Pulled(source), end, now)
    }

    fn open_body(
        &mut self,
        headers: Option<Headers>,
        body: Body,
        end: bool,
        now: u64,
    ) -> Result<StreamId, OpenError> {
        if !matches!(self.phase, Phase::Open) || self.goaway_received.is_some() {
            return Err(OpenError::GoingAway);
        }
        let id = self.next_local_id;
        if id > MAX_STREAM_ID {
            return Err(OpenError::GoingAway);
        }
        let frame = outbound_frame(FrameType::Open, id, headers, None, end);
        let item = body
            .queue(frame, self.cfg.max_frame_bytes)
            .map_err(OpenError::Unsendable)?;
        self.next_local_id += 2;
        self.highest_local_open = id;
        self.streams.insert(id, StreamRec::local(end));
        self.writer.push_queued(id, item);
        if id == MAX_STREAM_ID {
            self.begin_drain(
                code::NO_ERROR,
                Some("stream ids exhausted".to_owned()),
                DEFAULT_DRAIN_MS,
                now,
            );
        }
        Ok(id)
    }

    /// Send `data` on a live stream (WSM-FRM-011/012/013/016, WSM-ERR-009, WSM-API-024).
    pub fn send(&mut self, id: StreamId, out: Outbound) -> Result<(), SendError> {
        let Outbound {
            payload,
            headers,
            trailers,
            end,
        } = out;
        self.send_body(id, Body::Whole(payload), headers, trailers, end)
    }

    /// `data` (with `end` when `end` is true) whose payload `source` gives, a window at a time
    /// (WSM-FRG-018); errors as [`Connection::send`].
    pub fn send_with_source(
        &mut self,
        id: StreamId,
        source: Box<dyn PayloadSource>,
        end: bool,
    ) -> Result<(), SendError> {
        self.send_body(id, Body::Pulled(source), None, None, end)
    }

    fn send_body(
        &mut self,
        id: StreamId,
        body: Body,
        headers: Option<Headers>,
        trailers: Option<Headers>,
        end: bool,
    ) -> Result<(), SendError> {
        let cap = self.cfg.max_frame_bytes;
        let rec = self.streams.get_mut(&id).ok_or(SendError::NotLive)?;
        rec.check_send(headers.is_some())?;
        if trailers.is_some() && !end {
            return Err(SendError::TrailersWithoutEnd);
        }
        let frame = outbound_frame(FrameType::Data, id, headers, trailers, end);
        let item = body.queue(frame, cap).map_err(SendError::Unsendable)?;
        rec.sent(end);
        let closed = rec.both_ended();
        self.writer.push_queued(id, item);
        if closed {
            self.close_normally(id);
        }
        self.check_drained();
        Ok(())
    }

    /// The implicit end of an incoming stream whose handler returned (WSM-STM-035): a bare
    /// `data(end)` unless this side already ended. Returns whether one was sent.
    pub fn finish(&mut self, id: StreamId) -> bool {
        match self.streams.get(&id) {
            Some(rec) if !rec.local_ended() => {
                self.send(id, Outbound::end(Payload::Absent)).is_ok()
            }
            _ => false,
        }
    }

    /// `stream.cancel(reason)`: `reset(CANCELLED)` and close locally at once; payloads still in
    /// flight are discarded (WSM-ERR-012). No-op (false) if the stream is not live
    /// (WSM-RCN-041).
    pub fn cancel(&mut self, id: StreamId, reason: Option<String>) -> bool {
        self.local_reset(id, code::CANCELLED, reason, Payload::Absent)
    }

    /// A local deadline expired: `reset(TIMEOUT)` goes out first, then the stream fails locally
    /// with `StreamTimeout` (WSM-ERR-011). No-op (false) if the stream is not live.
    pub fn timeout(&mut self, id: StreamId) -> bool {
        self.local_reset(
            id,
            code::TIMEOUT,
            Some("deadline exceeded".to_owned()),
            Payload::Absent,
        )
    }

    /// `stream.reset(code, reason)` — e.g. `APPLICATION_ERROR` with the error serializer's payload
    /// when a push handler raised (WSM-STM-034, WSM-ERR-006). Codes 5 and 9 are refused
    /// (§2.4). `Ok(false)` if the stream is not live (WSM-RCN-041).
    pub fn reset(
        &mut self,
        id: StreamId,
        reset_code: i64,
        reason: Option<String>,
        payload: Payload,
    ) -> Result<bool, SendError> {
        if reset_code == code::RETIRED_STREAM_LIMIT || reset_code == code::CONNECTION_CLOSED {
            return Err(SendError::InvalidResetCode(reset_code));
        }
        Ok(self.local_reset(id, reset_code, reason, payload))
    }

    fn local_reset(
        &mut self,
        id: StreamId,
        reset_code: i64,
        reason: Option<String>,
        payload: Payload,
    ) -> bool {
        let Some(rec) = self.streams.remove(&id) else {
            return false;
        };
        self.enqueue_reset(id, reset_code, reason.clone(), payload);
        if rec.is_surfaced() {
            self.stream_event(
                id,
                StreamEvent::Failed(StreamError::LocalReset {
                    code: reset_code,
                    reason,
                }),
            );
        }
        self.check_drained();
        true
    }

    fn enqueue_reset(
        &mut self,
        id: StreamId,
        reset_code: i64,
        reason: Option<String>,
        payload: Payload,
    ) {
        self.writer.discard_for_reset(id);
        let mut frame = Frame::reset(id, reset_code, reason);
        set_fresh(&mut frame.payload, payload);
        self.push_fitted(id, frame);
    }

    /// Queue a frame of this peer's own making (`reset`, `goaway`), dropping its optional
    /// `payload` and `reason` if it could not otherwise go out under the cap — a reset or goaway
    /// must never be lost to a long reason under a test cap (WSM-FRG-004/005).
    fn push_fitted(&mut self, lane: StreamId, mut frame: Frame) {
        if check_sendable(&frame, self.cfg.max_frame_bytes).is_err() {
            frame.payload = Payload::Absent;
            frame.reason = None;
        }
        self.writer.push(lane, frame);
    }

    /// Start a graceful shutdown: `goaway(code, last_stream = highest_remote_open)`, refuse new
    /// incoming opens, open nothing new, and drain until no stream is live and nothing is queued,
    /// or `drain_ms` passes (WSM-CON-021/024/025).
    pub fn begin_drain(
        &mut self,
        goaway_code: i64,
        reason: Option<String>,
        drain_ms: u64,
        now: u64,
    ) {
        if !matches!(self.phase, Phase::Open) {
            return;
        }
        self.push_fitted(
            0,
            Frame::goaway(goaway_code, self.highest_remote_open, reason.clone()),
        );
        self.goaway_sent = true;
        self.phase = Phase::Draining {
            deadline: now.saturating_add(drain_ms),
            reason,
        };
        self.check_drained();
    }

    fn check_drained(&mut self) {
        if let Phase::Draining { reason, .. } = &self.phase {
            if self.streams.is_empty() && self.writer.is_idle() {
                self.termination = Some(Termination::Drained {
                    reason: reason.clone(),
                });
                self.phase = Phase::Done;
            }
        }
    }

    fn close_normally(&mut self, id: StreamId) {
        if let Some(rec) = self.streams.remove(&id) {
            if rec.is_surfaced() {
                self.stream_event(id, StreamEvent::Closed);
            }
        }
    }
}
