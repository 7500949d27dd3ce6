//! The numbers the module and its driver (`pkg-template/src/muxws-driver.ts`) agree on: output
//! record kinds, error classes, and the layout of the output record. Change both sides together
//! (docs/boundary.md, "The muxws module").

/// Output record kinds, returned by `poll` (0: nothing to report). The record's fields follow in
/// `out[1..6]`; `out[6]`/`out[7]` are the pointer and byte length of its text.
pub mod kind {
    /// Create `new WebSocket(url, protocols)`: `a` socket id; text: the offer, `,`-separated.
    pub const DIAL: u32 = 1;
    /// `ws.send(text)` on socket `a`.
    pub const SEND: u32 = 2;
    /// `ws.close(b, text)` on socket `a`.
    pub const CLOSE: u32 = 3;
    /// The first connection is established.
    pub const ESTABLISHED: u32 = 4;
    /// The first connect failed for good, laid out as [`STREAM_FAILED`] with `a` 0: `b` error class,
    /// `c` code (a failed hello's stream error, unwrapped: WSM-RCN-026; a socket that never opened,
    /// the close code the platform reported), `d`/`e` where the reason and payload start.
    pub const CONNECT_FAILED: u32 = 5;
    /// A connection was re-established: `a` the 1-based count of re-establishments.
    pub const RECONNECTED: u32 = 6;
    /// A socket was lost: `a` close code, `b` wasClean, `c` willRetry; text: the reason.
    pub const CLOSED: u32 = 7;
    /// The server sent goaway: `a` code, `b` last_stream; text: its reason.
    pub const GOAWAY: u32 = 8;
    /// Stream `a` got its answer's first-frame headers; text: the headers as JSON.
    pub const REPLY_HEADERS: u32 = 9;
    /// Stream `a` got a whole payload; text: its JSON.
    pub const PAYLOAD: u32 = 10;
    /// Stream `a` got one fragment of a payload, `b` 1 while more follow; text: the fragment.
    /// After the last one the driver reports whether the joined text parsed (`checked`).
    pub const FRAGMENT: u32 = 11;
    /// The remote ended its side of stream `a`.
    pub const END: u32 = 12;
    /// Stream `a` closed normally (both sides ended).
    pub const STREAM_CLOSED: u32 = 13;
    /// Stream `a` failed: `b` error class, `c` reset code, `d` the byte offset in the text where
    /// the reset's payload JSON starts (-1: none); text: the message, then that payload.
    pub const STREAM_FAILED: u32 = 14;
    /// The driver may forget payload source `a`: the module will not read it again.
    pub const RELEASE: u32 = 15;
    /// Queued call stream `a` could not be opened when its turn came: `b` error class; text: the
    /// message.
    pub const OPEN_FAILED: u32 = 16;
}

/// Error classes (the driver maps them to the classes of `errors.ts`): the protocol layer's
/// [`muxws_proto::ErrorClass`] numbers, and 12 for an option it refused.
pub mod class {
    use muxws_proto::ErrorClass;

    /// `ProtocolError`.
    pub const PROTOCOL_ERROR: u32 = ErrorClass::ProtocolError as u32;
    /// `ConnectionClosed`.
    pub const CONNECTION_CLOSED: u32 = ErrorClass::ConnectionClosed as u32;
    /// `ConnectionGoingAway`.
    pub const CONNECTION_GOING_AWAY: u32 = ErrorClass::ConnectionGoingAway as u32;
    /// `StreamClosed`.
    pub const STREAM_CLOSED: u32 = ErrorClass::StreamClosed as u32;
    /// `CodecMismatch`.
    pub const CODEC_MISMATCH: u32 = ErrorClass::CodecMismatch as u32;
    /// `ConnectionRefused`.
    pub const CONNECTION_REFUSED: u32 = ErrorClass::ConnectionRefused as u32;
    /// `StreamReset`.
    pub const STREAM_RESET: u32 = ErrorClass::StreamReset as u32;
    /// `RemoteError`.
    pub const REMOTE_ERROR: u32 = ErrorClass::RemoteError as u32;
    /// `StreamTimeout`.
    pub const STREAM_TIMEOUT: u32 = ErrorClass::StreamTimeout as u32;
    /// `StreamRefused`.
    pub const STREAM_REFUSED: u32 = ErrorClass::StreamRefused as u32;
    /// `ConnectionLost`.
    pub const CONNECTION_LOST: u32 = ErrorClass::ConnectionLost as u32;
    /// A plain `Error`: an option the protocol layer refused.
    pub const CONFIG: u32 = 12;
}

/// How many `f64` fields an output record has: kind, five fields, text pointer, text length.
pub const OUT_FIELDS: usize = 8;
