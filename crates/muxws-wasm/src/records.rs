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
    /// The first connect failed for good: `a` error class; text: the message.
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

/// Error classes (the driver maps them to the classes of `errors.ts`).
pub mod class {
    /// `ProtocolError`.
    pub const PROTOCOL_ERROR: u32 = 1;
    /// `ConnectionClosed`.
    pub const CONNECTION_CLOSED: u32 = 2;
    /// `ConnectionGoingAway`.
    pub const CONNECTION_GOING_AWAY: u32 = 3;
    /// `StreamClosed`.
    pub const STREAM_CLOSED: u32 = 4;
    /// `CodecMismatch`.
    pub const CODEC_MISMATCH: u32 = 5;
    /// `ConnectionRefused`.
    pub const CONNECTION_REFUSED: u32 = 6;
    /// `StreamReset`.
    pub const STREAM_RESET: u32 = 7;
    /// `RemoteError`.
    pub const REMOTE_ERROR: u32 = 8;
    /// `StreamTimeout`.
    pub const STREAM_TIMEOUT: u32 = 9;
    /// `StreamRefused`.
    pub const STREAM_REFUSED: u32 = 10;
    /// `ConnectionLost`.
    pub const CONNECTION_LOST: u32 = 11;
    /// A plain `Error`: an option the protocol layer refused.
    pub const CONFIG: u32 = 12;

    /// The class of a protocol error's JS class name.
    pub fn of(name: &str) -> u32 {
        match name {
            "ConnectionClosed" => CONNECTION_CLOSED,
            "ConnectionGoingAway" => CONNECTION_GOING_AWAY,
            "StreamClosed" => STREAM_CLOSED,
            "CodecMismatch" => CODEC_MISMATCH,
            "ConnectionRefused" => CONNECTION_REFUSED,
            "StreamReset" => STREAM_RESET,
            "RemoteError" => REMOTE_ERROR,
            "StreamTimeout" => STREAM_TIMEOUT,
            "StreamRefused" => STREAM_REFUSED,
            "ConnectionLost" => CONNECTION_LOST,
            _ => PROTOCOL_ERROR,
        }
    }
}

/// How many `f64` fields an output record has: kind, five fields, text pointer, text length.
pub const OUT_FIELDS: usize = 8;
