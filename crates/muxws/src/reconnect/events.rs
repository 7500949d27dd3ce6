//! What a [`Peer`](super::Peer) hands its driver: socket work ([`Action`]), notifications
//! ([`Event`]) and the handles they name ([`SocketId`], [`StreamRef`]).

use alloc::string::String;
use core::fmt;

use crate::connection::{StreamEvent, StreamId};
use crate::error::ConnectError;
use crate::frame::{Headers, Payload};
use crate::text::udecimal;

/// Identifies one WebSocket the driver created for an [`Action::Dial`]; never reused, so no event
/// of a closed socket can reach the next one (WSM-RCN-031/032).
pub type SocketId = u64;

/// A stream handle: the socket it lives on and its id there (WSM-RCN-031/032).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamRef {
    /// The socket (WSM-RCN-031).
    pub socket: SocketId,
    /// The stream id on that socket (WSM-SID-008: known as soon as `open()` returns).
    pub id: StreamId,
}

impl fmt::Display for StreamRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&udecimal(self.socket))?;
        f.write_str("/")?;
        f.write_str(&udecimal(self.id))
    }
}
/// Work for the driver's socket layer, drained with [`Peer::poll_action`](crate::Peer::poll_action) (WSM-API-021: the
/// socket adapter is the only transport-specific code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Create `new WebSocket(url, protocols)` with the offer of [`Peer::protocols`](crate::Peer::protocols) (the same on
    /// every dial) and report its events with this `socket` id (WSM-CDC-020/021).
    Dial {
        /// The id to report this socket's events with.
        socket: SocketId,
    },
    /// `ws.send(text)` — always a text message (WSM-CDC-002).
    Send {
        /// The socket.
        socket: SocketId,
        /// One encoded frame.
        text: String,
    },
    /// `ws.close(code, reason)` (code is 1000 or 4xxx, reason ≤ 123 UTF-8 bytes; WSM-RCN-011).
    Close {
        /// The socket.
        socket: SocketId,
        /// WebSocket close code.
        code: u16,
        /// Close reason.
        reason: String,
    },
}

/// `CloseReason` of WSM-RCN-045: exactly these four fields, for every socket loss.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CloseReason {
    /// WebSocket close code (1006 for a heartbeat death or giving up, WSM-RCN-011/044).
    pub code: u16,
    /// Close reason text (WSM-RCN-045).
    pub reason: String,
    /// Whether the close was orderly (WSM-RCN-045).
    pub was_clean: bool,
    /// Whether the supervisor will dial again (WSM-RCN-040).
    pub will_retry: bool,
}

/// Notifications for the application layer, drained with [`Peer::poll_event`](crate::Peer::poll_event) (WSM-ERR-003:
/// each reaches its awaiting call site in the JS layer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The first connection is established (subprotocol accepted, hello acknowledged):
    /// `connectMuxws()` resolves (WSM-RCN-004/006).
    Established,
    /// The first connection attempt failed; `connectMuxws()` rejects and the peer is finished —
    /// the first connect is never retried (WSM-RCN-006, WSM-INV-018), unless
    /// [`PeerOptions::retry_first_connect`](crate::PeerOptions::retry_first_connect) is set (then this is never reported).
    ConnectFailed(ConnectError),
    /// A connection was re-established after a loss; `attempt` is the 1-based count of
    /// re-establishments. Re-subscribe here (WSM-RCN-030).
    Reconnected {
        /// 1, 2, 3, … per re-establishment.
        attempt: u32,
    },
    /// A socket that existed was lost — exactly once per loss, after every stream on it failed
    /// `ConnectionLost`; at most one `will_retry: false` per peer (WSM-RCN-040/041/044/045).
    Closed(CloseReason),
    /// The server sent `goaway` (WSM-CON-022/023); see [`ConnEvent::GoAway`](crate::ConnEvent::GoAway).
    GoAway {
        /// Goaway code; 3 means this client broke the protocol.
        code: i64,
        /// The server's reason, for logs.
        reason: Option<String>,
        /// Highest of our stream ids the server will still complete.
        last_stream: StreamId,
    },
    /// The server opened a stream (a push) and its payload is complete: run the handler, answer
    /// with [`Peer::send`](crate::Peer::send)/[`Peer::reset`](crate::Peer::reset), and call [`Peer::finish`](crate::Peer::finish) when it returns
    /// (WSM-STM-031/034/035).
    Incoming {
        /// The pushed stream.
        stream: StreamRef,
        /// The open's headers (e.g. `:event`, `:topic`).
        headers: Option<Headers>,
        /// The opening payload.
        payload: Payload,
        /// Whether the open also ended the server's side (a one-shot push).
        end: bool,
    },
    /// Something happened on a stream (see [`StreamEvent`]; WSM-API-002, WSM-ERR-009).
    Stream {
        /// The stream.
        stream: StreamRef,
        /// What happened.
        event: StreamEvent,
    },
}
