//! Error values and the names of the TypeScript error classes they map to (`SPEC.md` §5.6,
//! WSM-ERR-002…009).
//!
//! Every error here carries a [`class_name`](StreamError::class_name) — the `name` discriminator of
//! the JS class the wasm layer must throw (WSM-ERR-004). The hierarchy on the JS side:
//!
//! ```text
//! MuxwsError
//! ├── ProtocolError  ├── ConnectionClosed  ├── ConnectionGoingAway  ├── StreamClosed
//! ├── CodecError → CodecMismatch
//! └── StreamReset{code} → RemoteError(2) · StreamRefused(4) · StreamTimeout(6) · ConnectionLost(9)
//! ```

use alloc::string::String;

use crate::fragment::FragmentError;
use crate::frame::{Payload, CODEC_NAME, SUBPROTOCOL};
use crate::text::{push_i64, push_u64};

use crate::text::wire_error;

/// Reset codes of `SPEC.md` §2.4; unknown codes stay plain integers everywhere (a closed enum in
/// the read loop is the failure §2.4 warns about).
pub mod code {
    /// Graceful; "done, no longer interested" (§2.4).
    pub const NO_ERROR: i64 = 0;
    /// The initiator asked the operation to stop (WSM-ERR-012).
    pub const CANCELLED: i64 = 1;
    /// The remote handler raised; optional structured payload (WSM-ERR-006).
    pub const APPLICATION_ERROR: i64 = 2;
    /// The peer violated the specification (WSM-STM-021).
    pub const PROTOCOL_ERROR: i64 = 3;
    /// Not accepted and definitely not processed (WSM-STM-033/036, WSM-CON-021/023).
    pub const REFUSED: i64 = 4;
    /// Retired `STREAM_LIMIT`; never sent, treated as unknown when received (WSM-STM-022).
    pub const RETIRED_STREAM_LIMIT: i64 = 5;
    /// A local deadline expired (WSM-ERR-011).
    pub const TIMEOUT: i64 = 6;
    /// Over the frame cap or `max_payload_bytes` (WSM-FRG-031/032).
    pub const PAYLOAD_TOO_LARGE: i64 = 7;
    /// A bug in the peer implementation (§2.4).
    pub const INTERNAL_ERROR: i64 = 8;
    /// Synthesised locally at socket death; never on the wire (WSM-STM-014).
    pub const CONNECTION_CLOSED: i64 = 9;
}

/// The JS error class an error maps to (WSM-ERR-004); [`ErrorClass::name`] is its `name`. The
/// discriminants are the class numbers the wasm module reports (its `ErrorClass` table,
/// `crates/muxws-wasm/src/abi.rs`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ErrorClass {
    /// `ProtocolError`.
    ProtocolError = 1,
    /// `ConnectionClosed`.
    ConnectionClosed = 2,
    /// `ConnectionGoingAway`.
    ConnectionGoingAway = 3,
    /// `StreamClosed`.
    StreamClosed = 4,
    /// `CodecMismatch`.
    CodecMismatch = 5,
    /// `ConnectionRefused`.
    ConnectionRefused = 6,
    /// `StreamReset`.
    StreamReset = 7,
    /// `RemoteError`.
    RemoteError = 8,
    /// `StreamTimeout`.
    StreamTimeout = 9,
    /// `StreamRefused`.
    StreamRefused = 10,
    /// `ConnectionLost`.
    ConnectionLost = 11,
}

impl ErrorClass {
    /// Every class, in the order of its number (1 up): what the wasm module's error table is
    /// rendered from. A new class fails to compile in the test that checks this list.
    pub const ALL: [ErrorClass; 11] = [
        ErrorClass::ProtocolError,
        ErrorClass::ConnectionClosed,
        ErrorClass::ConnectionGoingAway,
        ErrorClass::StreamClosed,
        ErrorClass::CodecMismatch,
        ErrorClass::ConnectionRefused,
        ErrorClass::StreamReset,
        ErrorClass::RemoteError,
        ErrorClass::StreamTimeout,
        ErrorClass::StreamRefused,
        ErrorClass::ConnectionLost,
    ];

    /// The JS class `name` (WSM-ERR-004).
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::ProtocolError => "ProtocolError",
            ErrorClass::ConnectionClosed => "ConnectionClosed",
            ErrorClass::ConnectionGoingAway => "ConnectionGoingAway",
            ErrorClass::StreamClosed => "StreamClosed",
            ErrorClass::CodecMismatch => "CodecMismatch",
            ErrorClass::ConnectionRefused => "ConnectionRefused",
            ErrorClass::StreamReset => "StreamReset",
            ErrorClass::RemoteError => "RemoteError",
            ErrorClass::StreamTimeout => "StreamTimeout",
            ErrorClass::StreamRefused => "StreamRefused",
            ErrorClass::ConnectionLost => "ConnectionLost",
        }
    }
}

/// Why a stream failed — the terminal, non-normal outcome of a stream (WSM-ERR-009, WSM-RCN-041).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StreamError {
    /// The remote sent `reset` (WSM-FRM-014). Any code is accepted, unknown ones included (§2.4).
    RemoteReset {
        /// The wire code, unconverted.
        code: i64,
        /// The remote's `reason`, for logs only.
        reason: Option<String>,
        /// The structured error of an `APPLICATION_ERROR` (WSM-ERR-006); absent when the reset
        /// carried none or was fragmented (the stream closes on its first fragment).
        payload: Payload,
    },
    /// This peer sent `reset` on the stream: `cancel()` (1, WSM-ERR-012), `timeout()` (6,
    /// WSM-ERR-011), an explicit `reset()`, or a stream-level violation by the remote (3 or 7,
    /// WSM-STM-020/021).
    LocalReset {
        /// The code that went on the wire.
        code: i64,
        /// The reason that went on the wire.
        reason: Option<String>,
    },
    /// Failed locally because a received `goaway`'s `last_stream` is below this stream's id;
    /// nothing was sent (WSM-CON-023). Definitely not processed.
    Refused,
    /// The socket died while the stream was live: a synthesised `CONNECTION_CLOSED`, never on the
    /// wire (WSM-STM-014, WSM-RCN-041).
    ConnectionLost,
}

impl StreamError {
    /// The numeric code the JS `StreamReset.code` carries (§2.4).
    pub fn code(&self) -> i64 {
        match self {
            StreamError::RemoteReset { code, .. } | StreamError::LocalReset { code, .. } => *code,
            StreamError::Refused => code::REFUSED,
            StreamError::ConnectionLost => code::CONNECTION_CLOSED,
        }
    }

    /// The JS class (WSM-ERR-002/004): `RemoteError` (2), `StreamRefused` (4), `StreamTimeout`
    /// (6), `ConnectionLost` (socket death), else `StreamReset`. A reset this peer sent itself maps
    /// to `StreamTimeout` for code 6 and `StreamReset` otherwise.
    pub fn class(&self) -> ErrorClass {
        match self {
            StreamError::RemoteReset { code, .. } => match *code {
                code::APPLICATION_ERROR => ErrorClass::RemoteError,
                code::REFUSED => ErrorClass::StreamRefused,
                code::TIMEOUT => ErrorClass::StreamTimeout,
                _ => ErrorClass::StreamReset,
            },
            StreamError::LocalReset { code, .. } if *code == code::TIMEOUT => {
                ErrorClass::StreamTimeout
            }
            StreamError::LocalReset { .. } => ErrorClass::StreamReset,
            StreamError::Refused => ErrorClass::StreamRefused,
            StreamError::ConnectionLost => ErrorClass::ConnectionLost,
        }
    }

    /// The reason, if any (for the JS `.reason`; never parsed, §2.2).
    pub fn reason(&self) -> Option<&str> {
        match self {
            StreamError::RemoteReset { reason, .. } | StreamError::LocalReset { reason, .. } => {
                reason.as_deref()
            }
            StreamError::Refused | StreamError::ConnectionLost => None,
        }
    }

    /// Appends [`StreamError::message`] to `out`.
    pub fn write_message(&self, out: &mut String) {
        let (by, code, reason) =
            match self {
                StreamError::RemoteReset { code, reason, .. } => ("by the remote", code, reason),
                StreamError::LocalReset { code, reason } => ("locally", code, reason),
                StreamError::Refused => return out.push_str(
                    "stream refused: above the last_stream of the remote's goaway, never processed",
                ),
                StreamError::ConnectionLost => return out.push_str("connection lost"),
            };
        out.push_str("stream reset ");
        out.push_str(by);
        out.push_str(" with code ");
        push_i64(out, *code);
        if let Some(reason) = reason {
            out.push_str(": ");
            out.push_str(reason);
        }
    }
}

wire_error!(StreamError, classed);

/// Why `open()` threw synchronously (WSM-API-004).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum OpenError {
    /// A `goaway` was received or sent (also: `close()` is draining, ids exhausted)
    /// (WSM-CON-021/022, WSM-SID-007). JS: `ConnectionGoingAway`.
    GoingAway,
    /// Between sockets, including the hello window; nothing is queued (WSM-RCN-042/043).
    /// JS: `ConnectionLost`.
    ConnectionLost,
    /// The frame cannot be sent under the frame cap, e.g. headers larger than the cap
    /// (WSM-FRG-021). JS: `ProtocolError`.
    Unsendable(FragmentError),
}

impl OpenError {
    /// The JS class (WSM-ERR-004).
    pub fn class(&self) -> ErrorClass {
        match self {
            OpenError::GoingAway => ErrorClass::ConnectionGoingAway,
            OpenError::ConnectionLost => ErrorClass::ConnectionLost,
            OpenError::Unsendable(_) => ErrorClass::ProtocolError,
        }
    }

    /// Appends [`OpenError::message`] to `out`.
    pub fn write_message(&self, out: &mut String) {
        match self {
            OpenError::GoingAway => {
                out.push_str("the connection is going away; open on the next connection")
            }
            OpenError::ConnectionLost => {
                out.push_str("not connected (between sockets); nothing was sent")
            }
            OpenError::Unsendable(e) => e.write_message(out),
        }
    }
}

wire_error!(OpenError, classed);

/// Why a send-side stream call (`send`/`end`/`reset`) was refused at the call site (WSM-ERR-009,
/// WSM-API-024).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SendError {
    /// The stream is not live on the current socket. No per-closed-stream state is kept
    /// (WSM-STM-001), so the wasm layer picks the class from the outcome it already delivered:
    /// `StreamClosed` after a normal close, the reset's own class after a reset, `ConnectionLost`
    /// after socket death (WSM-ERR-009).
    NotLive,
    /// This side already sent `end` (WSM-FRM-011). JS: `StreamClosed`.
    AlreadyEnded,
    /// `headers` after this side's first frame on the stream (WSM-FRM-016, WSM-API-024).
    /// JS: `ProtocolError`.
    HeadersAlreadySent,
    /// `trailers` without `end` (WSM-FRM-013). JS: `ProtocolError`.
    TrailersWithoutEnd,
    /// Reset code 5 (retired) or 9 (never on the wire) (§2.4, WSM-STM-022). JS: `ProtocolError`.
    InvalidResetCode(i64),
    /// The frame cannot be sent under the frame cap (WSM-FRG-021). JS: `ProtocolError`.
    Unsendable(FragmentError),
}

impl SendError {
    /// The JS class (WSM-ERR-004, WSM-ERR-009); for [`SendError::NotLive`] this is only the
    /// fallback — see its doc.
    pub fn class(&self) -> ErrorClass {
        match self {
            SendError::NotLive | SendError::AlreadyEnded => ErrorClass::StreamClosed,
            _ => ErrorClass::ProtocolError,
        }
    }

    /// Appends [`SendError::message`] to `out`.
    pub fn write_message(&self, out: &mut String) {
        match self {
            SendError::NotLive => out.push_str("the stream is no longer open"),
            SendError::AlreadyEnded => out.push_str("this side of the stream already ended"),
            SendError::HeadersAlreadySent => out.push_str(
                "headers ride only this side's first frame on a stream; on a stream this peer opened that is the open (WSM-FRM-016)",
            ),
            SendError::TrailersWithoutEnd => {
                out.push_str("trailers ride only the frame carrying end (WSM-FRM-013)")
            }
            SendError::InvalidResetCode(c) => {
                out.push_str("reset code ");
                push_i64(out, *c);
                out.push_str(" must never be sent (retired 5, local-only 9)");
            }
            SendError::Unsendable(e) => e.write_message(out),
        }
    }
}

wire_error!(SendError, classed);

/// Why the **first** connection attempt failed; `connectMuxws()` rejects with it and the peer is
/// finished (WSM-RCN-006, WSM-INV-018) — unless it retries its first connect
/// ([`crate::PeerOptions::retry_first_connect`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ConnectError {
    /// The socket opened but the server selected another subprotocol than `muxws.v1.json`
    /// (WSM-CDC-028): a real codec mismatch. The message names what was offered and what was
    /// selected.
    CodecMismatch {
        /// What the server selected (`""`: none).
        selected: String,
    },
    /// The socket never opened: the server refused the upgrade (an HTTP status instead of 101),
    /// or could not be reached. A browser cannot tell these apart; `reason` is what the platform
    /// said, if anything. JS: `ConnectionRefused`.
    NotOpened {
        /// The close code the platform reported (1006 when it said nothing).
        code: u16,
        /// What the platform said (an error event's message, a close reason); may be empty.
        reason: String,
    },
    /// The hello was reset, timed out or lost its socket; the underlying error, unwrapped
    /// (WSM-RCN-026).
    Hello(StreamError),
    /// `close()` was called before the first connection was established. JS: `ConnectionClosed`
    /// (WSM-ERR-002: peer-level, not a stream error).
    Closed,
}

impl ConnectError {
    /// The JS class (WSM-ERR-004/005).
    pub fn class(&self) -> ErrorClass {
        match self {
            ConnectError::CodecMismatch { .. } => ErrorClass::CodecMismatch,
            ConnectError::NotOpened { .. } => ErrorClass::ConnectionRefused,
            ConnectError::Hello(e) => e.class(),
            ConnectError::Closed => ErrorClass::ConnectionClosed,
        }
    }

    /// Appends [`ConnectError::message`] to `out`.
    pub fn write_message(&self, out: &mut String) {
        match self {
            ConnectError::CodecMismatch { selected } => {
                out.push_str("the server ");
                if selected.is_empty() {
                    out.push_str("selected no subprotocol");
                } else {
                    out.push_str("selected subprotocol \"");
                    out.push_str(selected);
                    out.push('"');
                }
                out.push_str(" instead of \"");
                out.push_str(SUBPROTOCOL);
                out.push_str("\", the only one this client speaks (muxws v1, the \"");
                out.push_str(CODEC_NAME);
                out.push_str("\" codec)");
            }
            ConnectError::NotOpened { code, reason } => {
                out.push_str(
                    "the WebSocket offering subprotocol \"muxws.v1.json\" did not open: \
                     the server refused the upgrade or could not be reached",
                );
                if !reason.is_empty() {
                    out.push_str(" (");
                    out.push_str(reason);
                    out.push(')');
                }
                if *code != crate::CLOSE_ABNORMAL && *code != 0 {
                    out.push_str(" (close code ");
                    push_u64(out, u64::from(*code));
                    out.push(')');
                }
            }
            ConnectError::Hello(e) => {
                out.push_str("the hello failed: ");
                e.write_message(out);
            }
            ConnectError::Closed => out.push_str("closed before the connection was established"),
        }
    }
}

wire_error!(ConnectError, classed);

/// An invalid option, reported at construction (WSM-FRG-034, WSM-RCN reconnect validation).
/// JS: a plain `Error` — a programming mistake, not a protocol failure.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConfigError(pub String);

wire_error!(ConfigError, text);

#[cfg(test)]
mod tests {
    use super::ErrorClass;

    /// [`ErrorClass::ALL`] holds every class once, in the order of its number.
    #[test]
    fn every_error_class_is_listed_in_order() {
        fn listed(class: ErrorClass) -> bool {
            // No `_` arm: a new class fails to compile here until it is listed.
            match class {
                ErrorClass::ProtocolError | ErrorClass::ConnectionClosed | ErrorClass::ConnectionGoingAway => true,
                ErrorClass::StreamClosed | ErrorClass::CodecMismatch | ErrorClass::ConnectionRefused => true,
                ErrorClass::StreamReset | ErrorClass::RemoteError | ErrorClass::StreamTimeout => true,
                ErrorClass::StreamRefused | ErrorClass::ConnectionLost => true,
            }
        }
        for (index, class) in ErrorClass::ALL.into_iter().enumerate() {
            assert!(listed(class));
            assert_eq!(class as usize, index + 1);
        }
    }
}
