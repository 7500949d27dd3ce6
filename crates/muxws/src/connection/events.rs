//! What the connection tells its owner: stream events, connection events and its end.

use alloc::{borrow::ToOwned, string::String};

use super::id_map::StreamId;
use crate::error::StreamError;
use crate::frame::{Headers, Payload, RawJson};
use crate::text::{around, cat3};

/// Something that happened on one stream, in wire order (WSM-API-002/025, WSM-ERR-009).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamEvent {
    /// On a stream this peer opened: the answering side's first frame arrived, carrying these
    /// headers (empty if it carried none). Emitted exactly once, before that frame's payload; a
    /// stream that fails before an answer gets `Failed` instead (WSM-FRM-016, WSM-API-025).
    ReplyHeaders(Headers),
    /// One reassembled payload; `null` is a payload (WSM-API-002/006, WSM-FRG-030).
    Payload(RawJson),
    /// With [`ConnectionConfig::deliver_fragments`](super::ConnectionConfig::deliver_fragments): one fragment of a fragmented payload, in
    /// order; `more` is false on the last one, after which the stream waits for
    /// [`Connection::payload_checked`](super::Connection::payload_checked) (WSM-FRG-030).
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
    /// [`Connection::finish`](super::Connection::finish) for the implicit end (WSM-STM-035).
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

/// Why the connection is over; reported once by [`Connection::poll_termination`](super::Connection::poll_termination). The owner then
/// flushes [`Connection::poll_transmit`](super::Connection::poll_transmit) and closes the socket with
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
    /// The remote sent a goaway and never closed the socket (see [`GOAWAY_CLOSE_FALLBACK_MS`](super::GOAWAY_CLOSE_FALLBACK_MS);
    /// WSM-CON-024).
    GoawayTimeout,
}

/// WebSocket close code 1000, the only standard code a browser may send; used for every orderly
/// local close, including a heartbeat death (WSM-RCN-011: never 1006).
pub const CLOSE_NORMAL: u16 = 1000;

/// WebSocket close code 1006: the socket was lost without a close frame (the platform reports it;
/// never sent). Also what a heartbeat death or giving up reports (WSM-RCN-011/044), and what the
/// driver reports for a socket the platform would not make.
pub const CLOSE_ABNORMAL: u16 = 1006;

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
