//! `muxws-proto`: a sans-IO implementation of the **dialer** side of muxws v1 with the JSON codec
//! (`velis74/muxws` `SPEC.md`), for the browser client of `@dynamicforms/fastapi-viewsets`.
//!
//! No sockets, no clock, no randomness of its own: time comes in as `now` (milliseconds on any
//! monotonic clock), socket events come in as method calls, and everything the outside world must
//! do comes out of `poll_*` functions. The backoff jitter is an injected closure.
//!
//! Modules, bottom-up:
//! - [`frame`] — the twelve-field envelope, absent vs `null` payload, tolerant decoding with strict
//!   field types, compact canonical encoding; payloads and header values stay raw JSON text
//!   ([`RawJson`]) and are never re-encoded or inspected (WSM-FRM-*, WSM-CDC-004/005);
//! - [`fragment`] — the reference splitter (cap, budget, codepoint-safe cuts, verify and re-split)
//!   and per-stream reassembly with `max_payload_bytes` (WSM-FRG-*);
//! - [`connection`] — one socket: odd ids, the two high-water marks, live streams only, stream-
//!   and connection-level errors, resets, goaway, ping/pong and heartbeat, pushes, the round-robin
//!   writer (WSM-SID-*, WSM-STM-*, WSM-CON-*);
//! - [`reconnect`] — the backoff schedule ([`delay_ms`]) and the supervisor [`Peer`]: first connect,
//!   hello, `Closed`/`Reconnected` reporting, `close()`, `reconnect_now()` (WSM-RCN-*);
//! - [`error`] — error values and the names of the JS error classes they map to (WSM-ERR-*).
//!
//! # How a driver uses it
//!
//! ```
//! use muxws_proto::{Action, Event, Peer, PeerOptions, Payload, SUBPROTOCOL};
//!
//! let mut peer = Peer::new(PeerOptions::default(), Box::new(|| 0.0)).unwrap();
//! let now = 0;
//! // 1. Perform actions: Dial → `new WebSocket(url, protocols)`, Send → `ws.send`, Close → `ws.close`.
//! let Some(Action::Dial { socket }) = peer.poll_action(now) else { unreachable!() };
//! assert_eq!(peer.protocols().next(), Some(SUBPROTOCOL));
//! // 2. Report that socket's events back, tagged with its id.
//! peer.socket_opened(socket, SUBPROTOCOL, now);
//! assert_eq!(peer.poll_event(), Some(Event::Established)); // connectMuxws() resolves
//! // 3. Application calls.
//! let stream = peer.open(None, Payload::json(r#"{"q":1}"#).unwrap(), true, now).unwrap();
//! let Some(Action::Send { text, .. }) = peer.poll_action(now) else { unreachable!() };
//! assert_eq!(text, r#"{"type":"open","stream":1,"end":true,"payload":{"q":1}}"#);
//! peer.socket_message(socket, r#"{"type":"data","stream":1,"end":true,"payload":{"ok":true}}"#, now);
//! while let Some(event) = peer.poll_event() { let _ = (stream, event); }
//! // 4. Arm one timer for `peer.poll_timeout()`; when it fires call `peer.handle_timeout(now)`.
//! ```
//!
//! `no_std` with `alloc`, so that the wasm module it is linked into needs none of std's panic and
//! formatting machinery.
//!
//! After **every** call into the peer, drain [`Peer::poll_action`] and then [`Peer::poll_event`];
//! re-arm the timer from [`Peer::poll_timeout`]. See `API.md` in the crate root for the full
//! surface.

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

/// One socket: ids, stream states, errors, goaway, heartbeat, writer (WSM-SID-*, WSM-STM-*, WSM-CON-*).
pub mod connection;
/// Error values and their JS class names (WSM-ERR-*).
pub mod error;
/// Splitter and assembler (WSM-FRG-*).
pub mod fragment;
/// The envelope and the JSON codec (WSM-FRM-*, WSM-CDC-001…005).
pub mod frame;
/// Backoff schedule and supervisor (WSM-RCN-*).
pub mod reconnect;

/// The strict JSON scanner behind the codec (validation, byte ranges, string decoding).
mod json;
/// `Vec` insertion and removal without panicking paths.
mod list;
/// Message text without `core::fmt`.
mod text;

pub use connection::{
    ConnEvent, Connection, ConnectionConfig, Outbound, StreamEvent, StreamId, StreamState,
    Termination, CLOSE_ABNORMAL, CLOSE_CODEC_MISMATCH, CLOSE_NORMAL, CLOSE_PROTOCOL_ERROR,
    DEFAULT_DRAIN_MS, DEFAULT_MAX_CONCURRENT_STREAMS, DEFAULT_PING_INTERVAL_MS, DEFAULT_PING_TIMEOUT_MS,
    GOAWAY_CLOSE_FALLBACK_MS, MAX_HEADER_KEYS, MAX_STREAM_ID,
};
pub use error::{code, ConfigError, ConnectError, ErrorClass, OpenError, SendError, StreamError};
pub use fragment::{
    check_sendable, check_sendable_source, Assembler, AssemblyError, FragmentError,
    PayloadSource, Split, Splitter, TextSource, DEFAULT_MAX_PAYLOAD_BYTES, MAX_FRAME_BYTES,
    MIN_FRAME_BYTES,
};
pub use frame::{
    decode, encode, DecodeError, Frame, FrameType, Headers, InvalidJson, Payload, RawJson,
    CODEC_NAME, SUBPROTOCOL,
};
pub use reconnect::{
    delay_ms, unjittered_delay_ms, Action, CloseReason, Event, Hello, Peer, PeerOptions,
    ReconnectOptions, SocketId, StreamRef, DEFAULT_HELLO_TIMEOUT_MS,
};

/// Unit tests that need the crate's private parts (the decoder's work counter); the other
/// suites are in `tests/`.
#[cfg(test)]
mod tests {
    /// The decoder's work is linear in its input for every shape.
    mod linearity;
}
