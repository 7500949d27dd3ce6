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

use alloc::{borrow::ToOwned, boxed::Box, string::String, vec::Vec};

use crate::error::{code, ConfigError, OpenError, SendError, StreamError};
use crate::fragment::{
    check_sendable, check_sendable_source, Assembler, AssemblyError, FragmentError, PayloadSource,
    Split, Splitter, DEFAULT_MAX_PAYLOAD_BYTES, MAX_FRAME_BYTES, MIN_FRAME_BYTES,
};
use crate::frame::{
    decode_limited, encode, read_head, set_fresh, Frame, FrameType, Headers, MapRules, Payload,
    RawJson,
};
use crate::list::{put_at, take_at};
use crate::text::{around, cat3, prefix, push_u64};
use vec_fifo::Fifo;

/// A stream id on one socket. Ids restart at 1 on every socket (WSM-RCN-031).
pub type StreamId = u64;

/// The largest stream id; taking it starts the exhaustion shutdown (WSM-SID-007).
pub const MAX_STREAM_ID: StreamId = (1 << 31) - 1;

/// Default `pingIntervalMs`: idle time before a heartbeat `ping` (WSM-RCN-010).
pub const DEFAULT_PING_INTERVAL_MS: u64 = 20_000;

/// Default `pingTimeoutMs`: how long a heartbeat `ping` waits for its `pong` (WSM-RCN-011).
pub const DEFAULT_PING_TIMEOUT_MS: u64 = 10_000;

/// Default `maxConcurrentStreams`: how many remote-opened streams may be live here (WSM-STM-036).
pub const DEFAULT_MAX_CONCURRENT_STREAMS: usize = 100;

/// Most members an inbound `headers` or `trailers` map may have (duplicates counted). A frame
/// over it is refused at its own level, as a frame the receiver declines: a stream-level frame
/// gets `reset(PAYLOAD_TOO_LARGE)` on its stream and the connection is kept (WSM-FRG-021/031,
/// WSM-STM-021); any other frame is a connection-level error (§4.3).
///
/// Why 256: stream headers carry one call's metadata — `:status` and the HTTP response headers of
/// a ViewSet answer, a handful; common HTTP stacks stop at 100 (hyper, Tomcat) to 2 000
/// (Node.js) request headers. 256 leaves ten times the usual count while bounding what one frame
/// can make this side allocate and hand to JavaScript (at most 256 strings per map) — the cost of
/// reading a map is linear in its size either way.
pub const MAX_HEADER_KEYS: usize = 256;

/// Default goaway drain of `close()` (WSM-CON-024/025).
pub const DEFAULT_DRAIN_MS: u64 = 10_000;

/// After **receiving** a `goaway`, the dialer waits for the remote to close the socket
/// (WSM-CON-024). If it has not done so this long after the goaway — twice the remote's default
/// drain — the dialer closes the socket itself with 1000 so a misbehaving server cannot strand it.
pub const GOAWAY_CLOSE_FALLBACK_MS: u64 = 20_000;

/// Local, never-announced settings of one connection (`SPEC.md` §7, WSM-CON-031).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionConfig {
    /// Frame cap in bytes. [`MAX_FRAME_BYTES`] except in tests (WSM-FRG-004/005); also the size
    /// above which an inbound message is reset with `PAYLOAD_TOO_LARGE` (WSM-FRG-031).
    pub max_frame_bytes: usize,
    /// Largest reassembled inbound payload (WSM-FRG-035).
    pub max_payload_bytes: usize,
    /// How many remote-opened streams may be live at once (WSM-STM-036/037).
    pub max_concurrent_streams: usize,
    /// Heartbeat interval: a `ping` goes out when nothing has **arrived** for this long, however
    /// much was sent; `0` disables the heartbeat (WSM-RCN-010, see [`Connection`]).
    pub ping_interval_ms: u64,
    /// Heartbeat pong deadline: no `pong` within this long after a `ping` and the socket is dead
    /// (WSM-RCN-011).
    pub ping_timeout_ms: u64,
    /// Whether an incoming-stream (push) handler is registered; without one every incoming `open`
    /// is answered `reset(REFUSED)` (WSM-STM-033). Built without the crate's `incoming` feature
    /// (on by default), the crate has no push support and refuses every incoming `open` whatever
    /// this says.
    pub accept_incoming: bool,
    /// Hand the fragments of a fragmented `data` payload to the driver one by one
    /// ([`StreamEvent::Fragment`]) instead of reassembling them here: the driver joins and parses
    /// them and reports the outcome with [`Connection::payload_checked`]. `max_payload_bytes` is
    /// still enforced, by a byte count (WSM-FRG-030/032). Pushed `open` payloads are always
    /// reassembled here.
    pub deliver_fragments: bool,
    /// Seeds the table that finds duplicate keys in inbound `headers`/`trailers`: give each
    /// peer a random one (the wasm module derives it from its random seed), so that a server
    /// cannot choose keys that collide in it. Any value is correct; the default is fixed.
    pub key_hash_seed: u64,
}

impl Default for ConnectionConfig {
    fn default() -> Self {
        ConnectionConfig {
            max_frame_bytes: MAX_FRAME_BYTES,
            max_payload_bytes: DEFAULT_MAX_PAYLOAD_BYTES,
            max_concurrent_streams: DEFAULT_MAX_CONCURRENT_STREAMS,
            ping_interval_ms: DEFAULT_PING_INTERVAL_MS,
            ping_timeout_ms: DEFAULT_PING_TIMEOUT_MS,
            accept_incoming: false,
            deliver_fragments: false,
            key_hash_seed: crate::frame::DEFAULT_KEY_HASH_SEED,
        }
    }
}

impl ConnectionConfig {
    /// Reject a frame cap below [`MIN_FRAME_BYTES`] at construction rather than as an endless
    /// split loop later (WSM-FRG-034), and a zero payload or concurrency limit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        // The message below spells the floor out.
        const _: () = assert!(MIN_FRAME_BYTES == 64);
        if self.max_frame_bytes < MIN_FRAME_BYTES {
            return Err(ConfigError(around(
                "max_frame_bytes ",
                self.max_frame_bytes as u64,
                " is below the floor of 64: too small for an envelope plus one indivisible unit (WSM-FRG-034)",
            )));
        }
        if self.max_payload_bytes == 0 {
            return Err(ConfigError(
                "max_payload_bytes must be at least 1".to_owned(),
            ));
        }
        if self.max_concurrent_streams == 0 {
            return Err(ConfigError(
                "max_concurrent_streams must be at least 1 (WSM-STM-036)".to_owned(),
            ));
        }
        Ok(())
    }
}

/// What one `send` on a stream carries (WSM-FRM-011/012/013/016).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Outbound {
    /// The payload; [`Payload::Absent`] for a payload-less frame (`SPEC.md` §2.2, WSM-FRM-011).
    pub payload: Payload,
    /// Leading headers — only on this side's first frame of a stream it did not open
    /// (WSM-FRM-016, WSM-API-024).
    pub headers: Option<Headers>,
    /// Trailers — only together with `end` (WSM-FRM-013).
    pub trailers: Option<Headers>,
    /// This side's last frame (WSM-FRM-012).
    pub end: bool,
}

impl Outbound {
    /// A `data` frame carrying `payload` (WSM-FRM-011).
    pub fn data(payload: Payload) -> Outbound {
        Outbound {
            payload,
            ..Outbound::default()
        }
    }

    /// A `data` frame carrying `payload` and `end` — `Payload::Absent` for a bare end
    /// (WSM-FRM-012).
    pub fn end(payload: Payload) -> Outbound {
        Outbound {
            payload,
            end: true,
            ..Outbound::default()
        }
    }

    /// Add leading headers (WSM-API-024).
    pub fn with_headers(mut self, headers: Headers) -> Outbound {
        self.headers = Some(headers);
        self
    }

    /// Add trailers (WSM-FRM-013).
    pub fn with_trailers(mut self, trailers: Headers) -> Outbound {
        self.trailers = Some(trailers);
        self
    }
}

/// The state of a live stream (§4.2); `idle` is never observable (WSM-STM-011) and `closed`
/// streams are not retained (WSM-STM-001).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamState {
    /// Both directions open (§4.2).
    Open,
    /// This peer sent `end` (WSM-STM-012).
    HalfClosedLocal,
    /// The remote sent `end` (WSM-STM-012).
    HalfClosedRemote,
}

/// Something that happened on one stream, in wire order (WSM-API-002/025, WSM-ERR-009).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamEvent {
    /// On a stream this peer opened: the answering side's first frame arrived, carrying these
    /// headers (empty if it carried none). Emitted exactly once, before that frame's payload; a
    /// stream that fails before an answer gets `Failed` instead (WSM-FRM-016, WSM-API-025).
    ReplyHeaders(Headers),
    /// One reassembled payload; `null` is a payload (WSM-API-002/006, WSM-FRG-030).
    Payload(RawJson),
    /// With [`ConnectionConfig::deliver_fragments`]: one fragment of a fragmented payload, in
    /// order; `more` is false on the last one, after which the stream waits for
    /// [`Connection::payload_checked`] (WSM-FRG-030).
    Fragment {
        /// The fragment's text: a slice of the payload's JSON text.
        text: String,
        /// More fragments of this payload follow.
        more: bool,
    },
    /// The remote sent `end`, with its trailers (WSM-FRM-012/013).
    End {
        /// Trailers of the ending frame.
        trailers: Option<Headers>,
    },
    /// Both sides ended: the stream closed **normally** (§4.2). Later sends raise `StreamClosed`
    /// (WSM-ERR-009).
    Closed,
    /// The stream ended abnormally; terminal (WSM-ERR-009, WSM-RCN-041).
    Failed(StreamError),
}

/// A notification from the connection (WSM-API-002, WSM-STM-031, WSM-CON-022).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnEvent {
    /// An event on a stream this peer opened, or on an incoming stream already surfaced
    /// (WSM-API-002, WSM-ERR-003).
    Stream {
        /// The stream.
        id: StreamId,
        /// What happened.
        event: StreamEvent,
    },
    /// The remote opened a stream (a push) and its opening payload is fully reassembled; the
    /// application handler runs now (WSM-STM-031/032). When the handler returns the owner calls
    /// [`Connection::finish`] for the implicit end (WSM-STM-035).
    Incoming {
        /// The stream (even id).
        id: StreamId,
        /// The open's headers.
        headers: Option<Headers>,
        /// The opening payload (absent if the open carried none).
        payload: Payload,
        /// Whether the open carried `end` (a one-shot push, e.g. `notify`).
        end: bool,
    },
    /// The remote sent `goaway`; `open()` now throws `ConnectionGoingAway`, streams above
    /// `last_stream` already failed `Refused` (WSM-CON-022/023).
    GoAway {
        /// The goaway code (3 = we broke the protocol, §2.4).
        code: i64,
        /// The remote's reason, for logs.
        reason: Option<String>,
        /// Highest of our stream ids the remote will still complete (WSM-CON-020).
        last_stream: StreamId,
    },
}

/// Why the connection is over; reported once by [`Connection::poll_termination`]. The owner then
/// flushes [`Connection::poll_transmit`] and closes the socket with
/// [`Termination::close_code`] (WSM-STM-023, WSM-CON-024/025, WSM-RCN-011).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// A connection-level protocol error; `goaway(3)` is queued (WSM-STM-023).
    ProtocolError {
        /// What was wrong.
        reason: String,
    },
    /// A goaway this peer sent has drained, or its drain deadline passed (WSM-CON-024/025).
    Drained {
        /// The reason given to `close()`.
        reason: Option<String>,
    },
    /// No pong within the ping timeout: the socket is dead (WSM-RCN-011).
    HeartbeatTimeout,
    /// The remote sent a goaway and never closed the socket (see [`GOAWAY_CLOSE_FALLBACK_MS`];
    /// WSM-CON-024).
    GoawayTimeout,
}

/// WebSocket close code 1000, the only standard code a browser may send; used for every orderly
/// local close, including a heartbeat death (WSM-RCN-011: never 1006).
pub const CLOSE_NORMAL: u16 = 1000;

/// Browser-legal stand-in for 1002 (protocol error): JS `close()` accepts only 1000 and
/// 3000–4999 (WSM-STM-023).
pub const CLOSE_PROTOCOL_ERROR: u16 = 4002;

/// Browser-legal stand-in for 1008 (policy violation) after a subprotocol mismatch (WSM-CDC-028).
pub const CLOSE_CODEC_MISMATCH: u16 = 4008;

impl Termination {
    /// The WebSocket close code the socket is closed with (WSM-RCN-011, WSM-STM-023).
    pub fn close_code(&self) -> u16 {
        match self {
            Termination::ProtocolError { .. } => CLOSE_PROTOCOL_ERROR,
            _ => CLOSE_NORMAL,
        }
    }

    /// The close reason text (WSM-RCN-045).
    pub fn close_reason(self, ping_timeout_ms: u64) -> String {
        match self {
            Termination::ProtocolError { reason } => cat3("protocol error: ", &reason, ""),
            Termination::Drained { reason } => reason.unwrap_or_default(),
            Termination::HeartbeatTimeout => around("no pong within ", ping_timeout_ms, " ms"),
            Termination::GoawayTimeout => "remote did not close after its goaway".to_owned(),
        }
    }
}

/// An `open` or `data` frame this side sends on stream `id`, its payload still absent. Every
/// field is written here (no default frame whose fields are then replaced and dropped).
#[inline(never)]
pub(crate) fn outbound_frame(
    kind: FrameType,
    id: StreamId,
    headers: Option<Headers>,
    trailers: Option<Headers>,
    end: bool,
) -> Frame {
    Frame {
        kind,
        stream: Some(id),
        payload: Payload::Absent,
        fragment: None,
        more: false,
        headers,
        end,
        trailers,
        code: None,
        reason: None,
        nonce: None,
        last_stream: None,
    }
}

/// The earlier of two optional times (`None`: no time).
// Out of line: the muxws module measured smaller so (gzip).
#[inline(never)]
pub(crate) fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A map from stream id to `V`, kept as a sorted vector: live streams are few, and this is far
/// smaller in wasm than a `BTreeMap` per value type.
struct IdMap<V>(Vec<(StreamId, V)>);

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap(Vec::new())
    }
}

impl<V> IdMap<V> {
    fn index(&self, id: StreamId) -> Result<usize, usize> {
        self.0.binary_search_by_key(&id, |(k, _)| *k)
    }
    // Out of line: the muxws module measured smaller so (gzip).
    #[inline(never)]
    fn get(&self, id: &StreamId) -> Option<&V> {
        let i = self.index(*id).ok()?;
        self.0.get(i).map(|(_, v)| v)
    }
    fn get_mut(&mut self, id: &StreamId) -> Option<&mut V> {
        let i = self.index(*id).ok()?;
        self.0.get_mut(i).map(|(_, v)| v)
    }
    // Out of line: the muxws module measured smaller so (gzip).
    #[inline(never)]
    fn contains_key(&self, id: &StreamId) -> bool {
        self.index(*id).is_ok()
    }
    // Entries move with `list`'s helpers, which have no panicking path (a binary search's
    // answer is always a valid place).
    fn insert(&mut self, id: StreamId, value: V) {
        match self.index(id) {
            Ok(i) => {
                if let Some(entry) = self.0.get_mut(i) {
                    entry.1 = value;
                }
            }
            Err(i) => put_at(&mut self.0, i, (id, value)),
        }
    }
    fn remove(&mut self, id: &StreamId) -> Option<V> {
        let i = self.index(*id).ok()?;
        take_at(&mut self.0, i).map(|(_, v)| v)
    }
    fn entry_or_default(&mut self, id: StreamId) -> Option<&mut V>
    where
        V: Default,
    {
        let i = match self.index(id) {
            Ok(i) => i,
            Err(i) => {
                put_at(&mut self.0, i, (id, V::default()));
                i
            }
        };
        self.0.get_mut(i).map(|(_, v)| v)
    }
    fn keys(&self) -> impl Iterator<Item = StreamId> + '_ {
        self.0.iter().map(|(k, _)| *k)
    }
    fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// Why an inbound stream-level frame is declined before its content is used.
#[derive(Clone, Copy)]
enum Refusal {
    /// The message is over `max_frame_bytes` (WSM-FRG-031).
    OverCap,
    /// `headers` or `trailers` has more than [`MAX_HEADER_KEYS`] members.
    HeaderKeys,
}

/// Where a stream-level frame goes, decided from its id alone.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Route {
    /// An `open` above the remote's high-water mark.
    NewOpen,
    /// A later fragment of a remote open being reassembled.
    OpenContinuation,
    /// A frame for a live stream.
    Live,
    /// At or below the high-water mark and not live: ignored (WSM-STM-002).
    Late,
}

struct Assembly {
    kind: FrameType,
    assembler: Assembler,
    headers: Option<Headers>,
    /// Bytes handed out as [`StreamEvent::Fragment`]s so far (fragment delivery).
    passed: usize,
}

/// The end of a payload whose fragments went to the driver, held until it says whether the
/// joined text parsed (fragment delivery).
struct AwaitingVerdict {
    end: bool,
    trailers: Option<Headers>,
}

struct StreamRec {
    local: bool,
    local_ended: bool,
    remote_ended: bool,
    /// The remote has sent its first frame here; its one chance at headers is spent (WSM-FRM-016).
    remote_spoke: bool,
    /// This side has sent its first frame here (for a local stream: the open).
    we_spoke: bool,
    /// The application knows the stream (local streams always; incoming ones once surfaced).
    surfaced: bool,
    assembly: Option<Assembly>,
    verdict: Option<AwaitingVerdict>,
}

/// A frame waiting in a lane: whole, or with a payload a [`PayloadSource`] gives.
struct Queued {
    frame: Frame,
    /// Where the payload comes from when `frame` does not carry it.
    source: Option<Box<dyn PayloadSource>>,
}

impl Queued {
    /// `frame` as it is.
    fn whole(frame: Frame) -> Queued {
        Queued {
            frame,
            source: None,
        }
    }
}

/// An outbound payload as the application gave it.
enum Body {
    Whole(Payload),
    Pulled(Box<dyn PayloadSource>),
}

impl Body {
    /// `frame` (payload absent) with this payload, checked sendable under `cap` (WSM-FRG-021/034).
    fn queue(self, mut frame: Frame, cap: usize) -> Result<Queued, FragmentError> {
        match self {
            Body::Whole(payload) => {
                frame.payload = payload;
                check_sendable(&frame, cap)?;
                Ok(Queued::whole(frame))
            }
            Body::Pulled(mut source) => {
                check_sendable_source(&frame, source.as_mut(), cap)?;
                Ok(Queued {
                    frame,
                    source: Some(source),
                })
            }
        }
    }
}

#[derive(Default)]
struct Lane {
    queue: Fifo<Queued>,
    split: Option<Splitter>,
}

impl Lane {
    fn has_work(&self) -> bool {
        self.split.is_some() || !self.queue.is_empty()
    }
}

/// Round-robin writer over per-stream lanes plus the connection lane `0` (WSM-FRG-017/018/019).
#[derive(Default)]
struct Writer {
    lanes: IdMap<Lane>,
    /// Connection-level frames (always whole: one queue type for every lane).
    control: Fifo<Queued>,
    ring: Fifo<StreamId>,
}

impl Writer {
    fn has_work(&self, lane: StreamId) -> bool {
        if lane == 0 {
            !self.control.is_empty()
        } else {
            self.lanes.get(&lane).is_some_and(Lane::has_work)
        }
    }

    fn push(&mut self, lane: StreamId, frame: Frame) {
        if lane == 0 {
            let was_idle = self.control.is_empty();
            self.control.push_back(Queued::whole(frame));
            if was_idle && !self.ring.contains(&0) {
                self.ring.push_back(0);
            }
        } else {
            self.push_queued(lane, Queued::whole(frame));
        }
    }

    fn push_queued(&mut self, lane: StreamId, item: Queued) {
        let was_idle = !self.has_work(lane);
        if let Some(entry) = self.lanes.entry_or_default(lane) {
            entry.queue.push_back(item);
        }
        if was_idle && !self.ring.contains(&lane) {
            self.ring.push_back(lane);
        }
    }

    /// The next message, never over `cap`: stream lanes are cut under it by the splitter, and a
    /// control frame that would not fit (only a `pong` could, echoing a hostile nonce) is dropped
    /// rather than sent (WSM-FRG-004: the cap binds every frame this side emits).
    fn poll(&mut self, cap: usize) -> Option<String> {
        while let Some(lane) = self.ring.pop_front() {
            let produced = self.produce(lane, cap);
            if self.has_work(lane) {
                self.ring.push_back(lane);
            } else if lane != 0 {
                self.lanes.remove(&lane);
            }
            if let Some(text) = produced.filter(|text| text.len() <= cap) {
                return Some(text);
            }
        }
        None
    }

    fn produce(&mut self, lane: StreamId, cap: usize) -> Option<String> {
        if lane == 0 {
            return Some(encode(&self.control.pop_front()?.frame));
        }
        let lane = self.lanes.get_mut(&lane)?;
        loop {
            if let Some(splitter) = &mut lane.split {
                match splitter.next_fragment_text() {
                    Ok(Some(fragment)) => {
                        if splitter.is_done() {
                            lane.split = None;
                        }
                        return Some(fragment);
                    }
                    // Unreachable after `check_sendable`; drop the rest rather than stall.
                    Ok(None) | Err(_) => lane.split = None,
                }
                continue;
            }
            let Queued { frame, source } = lane.queue.pop_front()?;
            let started = match source {
                None => Splitter::start(frame, cap),
                Some(source) => Splitter::start_with_source(frame, source, cap),
            };
            match started {
                Ok(Split::Whole(frame)) => return Some(encode(&frame)),
                Ok(Split::Fragments(splitter)) => lane.split = Some(splitter),
                Err(_) => {} // unsendable frames are refused at enqueue time
            }
        }
    }

    /// Before queueing a reset: drop the stream's unsent frames, except an `open` that has not
    /// (completely) reached the wire — a reset for an id the remote never saw opened is a
    /// connection-level error there (WSM-STM-003). A data payload cut mid-sequence is simply
    /// ended by the reset.
    fn discard_for_reset(&mut self, lane: StreamId) {
        if let Some(lane) = self.lanes.get_mut(&lane) {
            if let Some(splitter) = &lane.split {
                if matches!(splitter.kind(), FrameType::Open) {
                    lane.queue.clear();
                    return;
                }
                lane.split = None;
            }
            let keep = usize::from(
                lane.queue
                    .front()
                    .is_some_and(|q| matches!(q.frame.kind, FrameType::Open)),
            );
            lane.queue.truncate(keep);
        }
    }

    fn drop_lane(&mut self, lane: StreamId) {
        self.lanes.remove(&lane);
    }

    fn clear_all(&mut self) {
        self.lanes.clear();
        self.control.clear();
        self.ring.clear();
    }

    fn is_idle(&self) -> bool {
        self.control.is_empty() && !self.lanes.0.iter().any(|(_, lane)| lane.has_work())
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
    // Out of line: the muxws module measured smaller so (gzip).
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
        self.streams
            .get(&id)
            .map(|rec| match (rec.local_ended, rec.remote_ended) {
                (true, _) => StreamState::HalfClosedLocal,
                (false, true) => StreamState::HalfClosedRemote,
                (false, false) => StreamState::Open,
            })
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
    // Out of line: the muxws module measured smaller so (gzip).
    #[inline(never)]
    pub fn poll_event(&mut self) -> Option<ConnEvent> {
        self.events.pop_front()
    }

    /// The connection's end, reported once (WSM-STM-023, WSM-CON-024, WSM-RCN-011).
    // Out of line: the muxws module measured smaller so (gzip).
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
        for &(id, StreamRec { surfaced, .. }) in &streams.0 {
            if surfaced {
                self.stream_event(id, StreamEvent::Failed(StreamError::ConnectionLost));
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
        self.streams.insert(
            id,
            StreamRec {
                local: true,
                local_ended: end,
                remote_ended: false,
                remote_spoke: false,
                we_spoke: true,
                surfaced: true,
                assembly: None,
                verdict: None,
            },
        );
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
        if rec.local_ended {
            return Err(SendError::AlreadyEnded);
        }
        if headers.is_some() && rec.we_spoke {
            return Err(SendError::HeadersAlreadySent);
        }
        if trailers.is_some() && !end {
            return Err(SendError::TrailersWithoutEnd);
        }
        let frame = outbound_frame(FrameType::Data, id, headers, trailers, end);
        let item = body.queue(frame, cap).map_err(SendError::Unsendable)?;
        rec.we_spoke = true;
        rec.local_ended = end;
        let closed = rec.local_ended && rec.remote_ended;
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
            Some(rec) if !rec.local_ended => self.send(id, Outbound::end(Payload::Absent)).is_ok(),
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
        if rec.surfaced {
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
            if rec.surfaced {
                self.stream_event(id, StreamEvent::Closed);
            }
        }
    }

    // ----------------------------------------------------------------------------- inbound

    /// Handle one inbound text message (WSM-CDC-002: text only). Never panics; every outcome is
    /// an event, a queued frame, a counter, or a [`Termination`].
    ///
    /// Hostile input costs time linear in its size, and a message over `max_frame_bytes` is
    /// refused from its first `max_frame_bytes` bytes without being decoded (WSM-FRG-031, see
    /// [`Connection::receive_over_cap`]).
    pub fn receive(&mut self, text: &str, now: u64) {
        self.take_message(text, false, now);
    }

    /// One inbound message, `text`, or its head when `over_cap` (known to be over the frame
    /// cap): the one path of [`Connection::receive`] and [`Connection::receive_over_cap`].
    #[inline(never)]
    fn take_message(&mut self, text: &str, over_cap: bool, now: u64) {
        if self.is_done() {
            return;
        }
        self.settle_verdicts();
        self.arrived(now);
        let cap = self.cfg.max_frame_bytes;
        let outcome = if over_cap || text.len() > cap {
            self.on_over_cap(prefix(text, cap))
        } else {
            let rules = MapRules {
                max_keys: MAX_HEADER_KEYS,
                seed: self.cfg.key_hash_seed,
            };
            match decode_limited(text, rules) {
                Ok(mut decoded) => {
                    let refusal = decoded.too_many_header_keys.then_some(Refusal::HeaderKeys);
                    self.on_frame(&mut decoded.frame, refusal, now)
                }
                Err(e) => Err(e.0),
            }
        };
        self.finish_input(outcome);
    }

    /// An inbound message known to be over `max_frame_bytes`, of which only `head` — its first
    /// bytes, any prefix (a driver that copies at most the cap + 1 bytes of a message passes what
    /// it copied) — is given. The message is declined as WSM-FRG-031 says: when its head names a
    /// stream-level frame and its stream (canonical encoders put `type` and `stream` first), that
    /// stream is reset with `PAYLOAD_TOO_LARGE` and the connection is kept, after the same id
    /// checks as any frame (an id-space violation stays connection-level); anything else — a
    /// `ping`, `pong` or `goaway` (an over-cap `ping` is never answered with an over-cap `pong`),
    /// an unknown type, a head that names no stream — belongs to no stream, so it is a
    /// connection-level protocol error, as in the reference ports. Cost: linear in `head`, read
    /// up to `max_frame_bytes`.
    pub fn receive_over_cap(&mut self, head: &str, now: u64) {
        self.take_message(head, true, now);
    }

    /// A binary message arrived. The JSON codec is a text codec and the peer never sniffs messages
    /// to pick a decoder, so this is an undecodable message: connection-level (WSM-CDC-002,
    /// WSM-FRM-005).
    pub fn receive_binary(&mut self, now: u64) {
        if self.is_done() {
            return;
        }
        self.arrived(now);
        self.protocol_error("binary message under the json codec (WSM-CDC-002)".to_owned());
    }

    /// Something arrived: the remote is alive (the heartbeat's clock, see [`Connection`]).
    fn arrived(&mut self, now: u64) {
        self.last_arrival = self.last_arrival.max(now);
    }

    fn finish_input(&mut self, outcome: Result<(), String>) {
        if let Err(reason) = outcome {
            self.protocol_error(reason);
        }
        self.check_drained();
    }

    // Out of line: the muxws module measured smaller so (gzip).
    #[inline(never)]
    fn on_over_cap(&mut self, head: &str) -> Result<(), String> {
        let head = read_head(head);
        let kind = match head.kind {
            Some(kind) if kind.is_stream_level() && head.stream.is_some() => kind,
            other => {
                let mut reason = match &other {
                    Some(kind) => cat3("a `", kind.as_str(), "` message"),
                    None => "a message".to_owned(),
                };
                reason.push_str(" over the ");
                push_u64(&mut reason, self.cfg.max_frame_bytes as u64);
                reason.push_str("-byte frame cap names no stream in its head (WSM-FRG-031)");
                return Err(reason);
            }
        };
        let mut frame = Frame::new(kind);
        frame.stream = head.stream;
        set_fresh(&mut frame.fragment, head.fragment.then(String::new));
        self.on_stream_frame(&mut frame, Some(Refusal::OverCap))
    }

    /// A connection-level error: `goaway(PROTOCOL_ERROR)` replaces everything queued, every live
    /// stream fails `ConnectionLost`, and the owner closes the socket after the flush
    /// (WSM-STM-023, WSM-FRM-005).
    fn protocol_error(&mut self, reason: String) {
        self.writer.clear_all();
        self.push_fitted(
            0,
            Frame::goaway(
                code::PROTOCOL_ERROR,
                self.highest_remote_open,
                Some(reason.clone()),
            ),
        );
        self.goaway_sent = true;
        self.lose_all();
        self.phase = Phase::Done;
        self.termination = Some(Termination::ProtocolError { reason });
    }

    // Out of line: the muxws module measured smaller so (gzip).
    #[inline(never)]
    fn on_frame(
        &mut self,
        frame: &mut Frame,
        refusal: Option<Refusal>,
        now: u64,
    ) -> Result<(), String> {
        if refusal.is_some() && !frame.kind.is_stream_level() {
            return Err(cat3(
                "`",
                frame.kind.as_str(),
                "` frame with a header map over MAX_HEADER_KEYS",
            ));
        }
        match frame.kind {
            FrameType::Unknown(_) => {
                self.unknown_frames += 1;
                Ok(())
            }
            FrameType::Ping => {
                self.push_nonce(FrameType::Pong, frame.nonce.take());
                Ok(())
            }
            FrameType::Pong => {
                if self.ping.is_some()
                    && frame.nonce.as_deref() == Some(crate::text::hex16(self.ping_count).as_str())
                {
                    self.ping = None;
                }
                Ok(())
            }
            FrameType::Goaway => {
                self.on_goaway(frame, now);
                Ok(())
            }
            FrameType::Open | FrameType::Data | FrameType::Reset => {
                self.on_stream_frame(frame, refusal)
            }
        }
    }

    fn on_goaway(&mut self, frame: &mut Frame, now: u64) {
        let announced = frame.last_stream.unwrap_or(0);
        let last = self
            .goaway_received
            .map_or(announced, |prev| prev.min(announced));
        self.goaway_received = Some(last);
        if self.goaway_deadline.is_none() {
            self.goaway_deadline = Some(now.saturating_add(GOAWAY_CLOSE_FALLBACK_MS));
        }
        self.events.push_back(ConnEvent::GoAway {
            code: frame.code.unwrap_or(code::NO_ERROR),
            reason: frame.reason.take(),
            last_stream: last,
        });
        // Our streams above `last`, in ascending id order: from the first id above it on.
        let mut at = self.streams.index(last).map_or_else(|at| at, |at| at + 1);
        while let Some(&(id, StreamRec { local, .. })) = self.streams.0.get(at) {
            if !local {
                at += 1;
                continue;
            }
            self.streams.remove(&id);
            self.writer.drop_lane(id);
            self.stream_event(id, StreamEvent::Failed(StreamError::Refused));
        }
    }

    fn on_stream_frame(
        &mut self,
        frame: &mut Frame,
        refusal: Option<Refusal>,
    ) -> Result<(), String> {
        let (id, route) = self.route(&frame.kind, frame.stream, frame.fragment.is_some())?;
        match route {
            Route::Late => {
                self.ignored_frames += 1;
                return Ok(());
            }
            Route::NewOpen => self.highest_remote_open = id,
            Route::OpenContinuation | Route::Live => {}
        }
        if let Some(refusal) = refusal {
            self.refuse(id, route, refusal);
            return Ok(());
        }
        match route {
            Route::NewOpen => self.on_remote_open(id, frame),
            Route::OpenContinuation => self.on_continuation(id, frame),
            _ if matches!(frame.kind, FrameType::Reset) => self.on_reset(id, frame),
            _ => self.on_data(id, frame),
        }
        Ok(())
    }

    /// Where a stream-level frame goes, by its id alone (WSM-SID-005, WSM-STM-002/003,
    /// WSM-FRM-015); `Err` is a connection-level error.
    fn route(
        &self,
        kind: &FrameType,
        stream: Option<StreamId>,
        fragment: bool,
    ) -> Result<(StreamId, Route), String> {
        let id = match stream {
            Some(id) if id > 0 => id,
            _ => {
                return Err(cat3(
                    "`",
                    kind.as_str(),
                    "` frame without a stream id (WSM-FRM-015)",
                ))
            }
        };
        let remote_parity = id % 2 == 0;
        if matches!(kind, FrameType::Open) {
            if !remote_parity {
                return Err(around(
                    "open for stream ",
                    id,
                    ": the acceptor must open even ids (WSM-SID-005)",
                ));
            }
            if id > self.highest_remote_open {
                return Ok((id, Route::NewOpen));
            }
            if fragment {
                match self.streams.get(&id) {
                    // A later fragment of an open being reassembled (only an accepted push is).
                    Some(rec)
                        if cfg!(feature = "incoming")
                            && rec
                                .assembly
                                .as_ref()
                                .is_some_and(|a| matches!(a.kind, FrameType::Open)) =>
                    {
                        return Ok((id, Route::OpenContinuation));
                    }
                    // A later fragment of an open already refused or reset: a late frame.
                    None => return Ok((id, Route::Late)),
                    Some(_) => {}
                }
            }
            let mut reason = around(
                "open for stream ",
                id,
                " is not above the remote's previous highest open ",
            );
            push_u64(&mut reason, self.highest_remote_open);
            reason.push_str(" (WSM-SID-005)");
            return Err(reason);
        }
        let mark = if remote_parity {
            self.highest_remote_open
        } else {
            self.highest_local_open
        };
        if id > mark {
            let mut reason = cat3("`", kind.as_str(), "` for stream ");
            push_u64(&mut reason, id);
            reason.push_str(", above the high-water mark ");
            push_u64(&mut reason, mark);
            reason.push_str(" (WSM-STM-003)");
            return Err(reason);
        }
        if !self.streams.contains_key(&id) {
            return Ok((id, Route::Late));
        }
        Ok((id, Route::Live))
    }

    /// Decline a frame the receiver's limits refuse: `reset(PAYLOAD_TOO_LARGE)` on its stream, the
    /// connection kept (WSM-FRG-031, WSM-STM-020/021). A new remote open is never recorded.
    fn refuse(&mut self, id: StreamId, route: Route, refusal: Refusal) {
        let reason = match refusal {
            Refusal::OverCap => around(
                "message over the ",
                self.cfg.max_frame_bytes as u64,
                "-byte frame cap (WSM-FRG-031)",
            ),
            Refusal::HeaderKeys => around(
                "header map over ",
                MAX_HEADER_KEYS as u64,
                " keys (MAX_HEADER_KEYS)",
            ),
        };
        if route == Route::NewOpen {
            self.push_fitted(id, Frame::reset(id, code::PAYLOAD_TOO_LARGE, Some(reason)));
        } else {
            self.stream_error(id, code::PAYLOAD_TOO_LARGE, reason);
        }
    }

    fn stream_error(&mut self, id: StreamId, reset_code: i64, reason: String) {
        self.local_reset(id, reset_code, Some(reason), Payload::Absent);
    }

    fn payload_too_large(&mut self, id: StreamId) {
        let reason = around(
            "payload over max_payload_bytes ",
            self.cfg.max_payload_bytes as u64,
            " (WSM-FRG-032)",
        );
        self.stream_error(id, code::PAYLOAD_TOO_LARGE, reason);
    }

    fn on_remote_open(&mut self, id: StreamId, frame: &mut Frame) {
        let live_remote = self.streams.values().filter(|rec| !rec.local).count();
        let refusal = if !matches!(self.phase, Phase::Open) || self.goaway_sent {
            Some("going away (WSM-CON-021)")
        } else if !(cfg!(feature = "incoming") && self.cfg.accept_incoming) {
            // Without the `incoming` feature this is constant, and what accepts a push is not
            // compiled in (the wasm module registers no push handler).
            Some("no incoming-stream handler (WSM-STM-033)")
        } else if live_remote >= self.cfg.max_concurrent_streams {
            Some("too many streams in flight (WSM-STM-036)")
        } else {
            None
        };
        if let Some(reason) = refusal {
            self.push_fitted(id, Frame::reset(id, code::REFUSED, Some(reason.to_owned())));
            return;
        }
        self.streams.insert(
            id,
            StreamRec {
                local: false,
                local_ended: false,
                remote_ended: false,
                remote_spoke: true,
                we_spoke: false,
                surfaced: false,
                assembly: None,
                verdict: None,
            },
        );
        match frame.fragment.take() {
            Some(fragment) => {
                if let Some(rec) = self.streams.get_mut(&id) {
                    rec.assembly = Some(Assembly {
                        kind: FrameType::Open,
                        assembler: Assembler::new(),
                        headers: frame.headers.take(),
                        passed: 0,
                    });
                }
                self.feed(id, fragment, frame.more, frame.end, frame.trailers.take());
            }
            None => self.deliver(
                id,
                FrameType::Open,
                frame.headers.take(),
                core::mem::take(&mut frame.payload),
                frame.end,
                None,
            ),
        }
    }

    fn on_continuation(&mut self, id: StreamId, frame: &mut Frame) {
        if frame.headers.is_some() {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "headers on a later frame (WSM-FRM-016)".to_owned(),
            );
            return;
        }
        if let Some(fragment) = frame.fragment.take() {
            self.feed(id, fragment, frame.more, frame.end, frame.trailers.take());
        }
    }

    fn on_data(&mut self, id: StreamId, frame: &mut Frame) {
        let Some(rec) = self.streams.get_mut(&id) else {
            return;
        };
        if rec.remote_ended {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "data after the remote's end (WSM-STM-020)".to_owned(),
            );
            return;
        }
        if let Some(assembly) = &rec.assembly {
            if frame.fragment.is_none() || !matches!(assembly.kind, FrameType::Data) {
                self.stream_error(
                    id,
                    code::PROTOCOL_ERROR,
                    "a non-fragment frame arrived during reassembly (WSM-FRG-033)".to_owned(),
                );
                return;
            }
            self.on_continuation(id, frame);
            return;
        }
        if frame.headers.is_some() && rec.remote_spoke {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "headers on a later frame (WSM-FRM-016)".to_owned(),
            );
            return;
        }
        let first_answer = !rec.remote_spoke && rec.local;
        rec.remote_spoke = true;
        if first_answer {
            self.stream_event(
                id,
                StreamEvent::ReplyHeaders(frame.headers.take().unwrap_or_default()),
            );
        }
        match frame.fragment.take() {
            Some(fragment) => {
                if let Some(rec) = self.streams.get_mut(&id) {
                    rec.assembly = Some(Assembly {
                        kind: FrameType::Data,
                        assembler: Assembler::new(),
                        headers: None,
                        passed: 0,
                    });
                }
                self.feed(id, fragment, frame.more, frame.end, frame.trailers.take());
            }
            None => self.deliver(
                id,
                FrameType::Data,
                None,
                core::mem::take(&mut frame.payload),
                frame.end,
                frame.trailers.take(),
            ),
        }
    }

    fn feed(
        &mut self,
        id: StreamId,
        fragment: String,
        more: bool,
        end: bool,
        trailers: Option<Headers>,
    ) {
        if more && end {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "end on a fragment that is not the last (WSM-FRG-020)".to_owned(),
            );
            return;
        }
        let limit = self.cfg.max_payload_bytes;
        let handed_out = self.cfg.deliver_fragments;
        let Some(assembly) = self
            .streams
            .get_mut(&id)
            .and_then(|rec| rec.assembly.as_mut())
        else {
            return;
        };
        if handed_out && matches!(assembly.kind, FrameType::Data) {
            if assembly.passed + fragment.len() > limit {
                self.payload_too_large(id);
                return;
            }
            assembly.passed += fragment.len();
            self.stream_event(
                id,
                StreamEvent::Fragment {
                    text: fragment,
                    more,
                },
            );
            if !more {
                if let Some(rec) = self.streams.get_mut(&id) {
                    rec.assembly = None;
                    rec.verdict = Some(AwaitingVerdict { end, trailers });
                    self.verdicts_awaited += 1;
                }
            }
            return;
        }
        match assembly.assembler.feed(&fragment, more, limit) {
            Ok(None) => {}
            Ok(Some(payload)) => {
                let (kind, headers) =
                    match self.streams.get_mut(&id).and_then(|r| r.assembly.take()) {
                        Some(a) => (a.kind, a.headers),
                        None => return,
                    };
                self.deliver(id, kind, headers, Payload::Json(payload), end, trailers);
            }
            Err(AssemblyError::TooLarge) => self.payload_too_large(id),
            Err(AssemblyError::Undecodable(e)) => self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                cat3("reassembled payload is not JSON (at ", &e.0, ")"),
            ),
        }
    }

    /// With [`ConnectionConfig::deliver_fragments`]: the driver joined the fragments of the
    /// stream's payload and `valid` says whether the text parsed as JSON. Parsed: the frame that
    /// carried the last fragment takes effect (its `end`, its trailers). Not parsed: the stream is
    /// reset with `PROTOCOL_ERROR` and fails (WSM-FRG-030). Ignored when no verdict is awaited.
    pub fn payload_checked(&mut self, id: StreamId, valid: bool) {
        let Some(awaited) = self.streams.get_mut(&id).and_then(|rec| rec.verdict.take()) else {
            return;
        };
        self.verdicts_awaited = self.verdicts_awaited.saturating_sub(1);
        if valid {
            self.deliver(
                id,
                FrameType::Data,
                None,
                Payload::Absent,
                awaited.end,
                awaited.trailers,
            );
        } else {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "reassembled payload is not JSON (WSM-FRG-030)".to_owned(),
            );
        }
        self.check_drained();
    }

    /// Input arrived while payloads still wait for the driver's verdict: they count as parsed,
    /// so that a driver that never reports cannot stall its streams.
    fn settle_verdicts(&mut self) {
        // In ascending id order, each stream looked at once (the count never falls below the
        // streams that still wait: it is only lowered when a verdict is taken).
        let mut next = 0;
        while self.verdicts_awaited > 0 {
            let from = self.streams.index(next).unwrap_or_else(|at| at);
            let waiting = self.streams.0.get(from..).unwrap_or_default();
            let Some(&(id, _)) = waiting.iter().find(|(_, rec)| rec.verdict.is_some()) else {
                break;
            };
            self.payload_checked(id, true);
            next = id.saturating_add(1);
        }
        self.verdicts_awaited = 0;
    }

    /// A complete frame's worth of content arrived on a live stream.
    fn deliver(
        &mut self,
        id: StreamId,
        kind: FrameType,
        headers: Option<Headers>,
        payload: Payload,
        end: bool,
        trailers: Option<Headers>,
    ) {
        if let Payload::Json(raw) = &payload {
            if raw.as_str().len() > self.cfg.max_payload_bytes {
                self.payload_too_large(id);
                return;
            }
        }
        let Some(rec) = self.streams.get_mut(&id) else {
            return;
        };
        if end {
            rec.remote_ended = true;
        }
        // Only an accepted push delivers an open.
        if cfg!(feature = "incoming") && matches!(kind, FrameType::Open) {
            rec.surfaced = true;
            self.events.push_back(ConnEvent::Incoming {
                id,
                headers,
                payload,
                end,
            });
            return;
        }
        let closed = rec.remote_ended && rec.local_ended;
        if let Payload::Json(raw) = payload {
            self.stream_event(id, StreamEvent::Payload(raw));
        }
        if end {
            self.stream_event(id, StreamEvent::End { trailers });
        }
        if closed {
            self.close_normally(id);
        }
    }

    fn on_reset(&mut self, id: StreamId, frame: &mut Frame) {
        let Some(rec) = self.streams.remove(&id) else {
            return;
        };
        // The remote killed the stream in both directions: nothing more goes out for it, and no
        // reset is sent back (WSM-FRM-014).
        self.writer.drop_lane(id);
        // A fragmented reset closes the stream on its first fragment; its later fragments are
        // then late frames (WSM-STM-002).
        let payload = match (frame.fragment.take(), frame.more) {
            (Some(fragment), false) => RawJson::parse(fragment)
                .map(Payload::Json)
                .unwrap_or_default(),
            (Some(_), true) => Payload::Absent,
            (None, _) => core::mem::take(&mut frame.payload),
        };
        if rec.surfaced {
            self.stream_event(
                id,
                StreamEvent::Failed(StreamError::RemoteReset {
                    code: frame.code.unwrap_or(code::PROTOCOL_ERROR),
                    reason: frame.reason.take(),
                    payload,
                }),
            );
        }
    }
}
