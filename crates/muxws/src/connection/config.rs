//! The local settings of one connection and their defaults (`SPEC.md` §7).

use alloc::borrow::ToOwned;

use crate::error::ConfigError;
use crate::fragment::{DEFAULT_MAX_PAYLOAD_BYTES, MAX_FRAME_BYTES, MIN_FRAME_BYTES};
use crate::text::around;

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
    /// much was sent; `0` disables the heartbeat (WSM-RCN-010, see [`Connection`](super::Connection)).
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
    /// ([`StreamEvent::Fragment`](super::StreamEvent::Fragment)) instead of reassembling them here: the driver joins and parses
    /// them and reports the outcome with [`Connection::payload_checked`](super::Connection::payload_checked). `max_payload_bytes` is
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
