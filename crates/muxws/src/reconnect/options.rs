//! What a [`Peer`](super::Peer) is constructed with (`SPEC.md` §7).

use alloc::{string::String, vec::Vec};

use super::ReconnectOptions;
use crate::connection::ConnectionConfig;
use crate::frame::{Headers, Payload};

/// Default `helloTimeoutMs` (WSM-RCN-026).
pub const DEFAULT_HELLO_TIMEOUT_MS: u64 = 10_000;
/// The hello: captured once, replayed verbatim as stream 1 of every socket (WSM-RCN-020/021).
/// Never carry a credential in it (WSM-RCN-025).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Headers of the hello `open` (WSM-RCN-021).
    pub headers: Option<Headers>,
    /// The hello payload (`Payload::null()` when only headers were given, as `open()` defaults,
    /// WSM-API-003; WSM-RCN-020).
    pub payload: Payload,
}

/// Everything a [`Peer`](crate::Peer) is constructed with (`SPEC.md` §7; TS `ConnectOptions`).
#[derive(Clone, Debug, PartialEq)]
pub struct PeerOptions {
    /// Extra `Sec-WebSocket-Protocol` entries offered **after** `muxws.v1.json` — e.g. a bearer
    /// token, which must be a valid HTTP token (WSM-CDC-020/021).
    pub subprotocols: Vec<String>,
    /// The hello, or `None` for none (WSM-RCN-024).
    pub hello: Option<Hello>,
    /// How long the hello may go unacknowledged (WSM-RCN-026).
    pub hello_timeout_ms: u64,
    /// The backoff schedule (WSM-RCN-001…005, WSM-RCN-044).
    pub reconnect: ReconnectOptions,
    /// Per-socket settings: caps, limits, heartbeat, push acceptance (WSM-FRG-005/035,
    /// WSM-STM-036, WSM-RCN-010/011).
    pub connection: ConnectionConfig,
    /// Treat a failed first connect like a failed reconnect — count it and dial again after the
    /// backoff — instead of reporting [`Event::ConnectFailed`](crate::Event::ConnectFailed) and stopping: for a peer handed
    /// to the application at once that keeps trying in the background (stricter WSM-RCN-006
    /// when false, the default). [`Event::Established`](crate::Event::Established) still marks the first connection.
    pub retry_first_connect: bool,
}

impl Default for PeerOptions {
    fn default() -> Self {
        PeerOptions {
            subprotocols: Vec::new(),
            hello: None,
            hello_timeout_ms: DEFAULT_HELLO_TIMEOUT_MS,
            reconnect: ReconnectOptions::default(),
            connection: ConnectionConfig::default(),
            retry_first_connect: false,
        }
    }
}
