//! The muxws module's side of the boundary (docs/boundary.md): the output record kinds and their
//! fields, the error classes and the reset and close codes, declared once here (the exports in
//! `exports.rs`). The TypeScript the driver reads them through, `pkg-template/src/abi/muxws.ts`
//! (and the driver's list of error classes, `pkg-template/src/abi/muxws-errors.ts`), is rendered
//! from these declarations by `abi_typescript.rs`, whose test fails when the files differ from them
//! (`ABI_WRITE=1 cargo test -p muxws-wasm abi` writes them again).
//!
//! Every record is [`OUT_FIELDS`] numbers: its kind, five fields, and the pointer and byte length
//! of its text in the module's memory. The module writes a record's fields in the order declared
//! here, from field 1.

use wasm_abi::records;

/// The version of the exports and records the driver must speak; a driver of another version
/// refuses the module (a stale cached `.wasm`).
/// 2: `peer_new` takes NaN for an option not given and checks the ranges itself; `frame_cap`.
/// 3: `set_deadline`: a `request()`'s deadline is the module's, served by the peer's timer.
/// 4: `fallback` and its record: a peer's calls go over REST while it cannot be had (issue 26).
/// 5: the `round_trip` record: a heartbeat ping's round trip (issue 37).
pub const BOUNDARY_VERSION: u32 = 5;

/// How many `f64` fields an output record has: kind, five fields, text pointer, text length.
pub const OUT_FIELDS: usize = 8;
/// Where an output record's text starts (a pointer into the module's memory).
pub const TEXT_AT: usize = 6;
/// The byte length of an output record's text.
pub const TEXT_LENGTH: usize = 7;
/// Where an export that refuses what it was given (a new peer's options, an open, a send) writes
/// the error's class (an [`class`] code); the record's text is the message.
pub const FAILURE_CLASS: usize = 1;

wasm_abi::codes! {
    /// The WebSocket close codes the driver and the module hand each other: a socket's end
    /// (`socket_closed`), the `code` of a connection error.
    pub mod close_code: CloseCode as CLOSE_CODES {
        /// An orderly close (`muxws_proto::CLOSE_NORMAL`).
        NORMAL Normal = muxws_proto::CLOSE_NORMAL as u32,
        /// A socket lost without a close frame, or one the platform would not make
        /// (`muxws_proto::CLOSE_ABNORMAL`).
        ABNORMAL Abnormal = muxws_proto::CLOSE_ABNORMAL as u32,
    }
}

wasm_abi::codes! {
    /// The reset codes of `SPEC.md` §2.4 (`muxws_proto::code`): the `code` a `StreamReset` (and
    /// each of its subclasses) carries; the retired 5 is left out (never sent, read as unknown).
    pub mod reset_code: ResetCode as RESET_CODES {
        /// Graceful: done, no longer interested.
        NO_ERROR NoError = muxws_proto::code::NO_ERROR as u32,
        /// The initiator asked the operation to stop.
        CANCELLED Cancelled = muxws_proto::code::CANCELLED as u32,
        /// The remote handler raised.
        APPLICATION_ERROR ApplicationError = muxws_proto::code::APPLICATION_ERROR as u32,
        /// The peer violated the specification.
        PROTOCOL_ERROR ProtocolError = muxws_proto::code::PROTOCOL_ERROR as u32,
        /// Not accepted and definitely not processed.
        REFUSED Refused = muxws_proto::code::REFUSED as u32,
        /// A local deadline expired.
        TIMEOUT Timeout = muxws_proto::code::TIMEOUT as u32,
        /// Over the frame cap or `max_payload_bytes`.
        PAYLOAD_TOO_LARGE PayloadTooLarge = muxws_proto::code::PAYLOAD_TOO_LARGE as u32,
        /// A bug in the peer implementation.
        INTERNAL_ERROR InternalError = muxws_proto::code::INTERNAL_ERROR as u32,
        /// Made locally when the socket died under the stream (or before it could open); never on
        /// the wire.
        CONNECTION_CLOSED ConnectionClosed = muxws_proto::code::CONNECTION_CLOSED as u32,
    }
}

records! {
    layouts RECORDS;
    /// Create `new WebSocket(url, protocols)`.
    pub mod dial: Dial = 1 {
        /// The socket's id.
        SOCKET socket: 1 => Num,
        /// The subprotocols to offer, `,`-separated.
        PROTOCOLS protocols: 0 => Text,
    }
    /// `ws.send(text)`.
    pub mod send: Send = 2 {
        /// The socket's id.
        SOCKET socket: 1 => Num,
        /// The frame's byte length.
        BYTES bytes: 7 => Num,
        /// The frame.
        TEXT text: 0 => Text,
    }
    /// `ws.close(code, reason)`.
    pub mod close: Close = 3 {
        /// The socket's id.
        SOCKET socket: 1 => Num,
        /// The close code.
        CODE code: 2 => Num,
        /// The close reason.
        REASON reason: 0 => Text,
    }
    /// The first connection is established.
    pub mod established: Established = 4 {}
    /// The first connect failed for good, laid out as a failed stream is, without a stream: a failed
    /// hello's stream error, unwrapped (WSM-RCN-026); a socket that never opened, the close code
    /// the platform reported.
    pub mod connect_failed: ConnectFailed = 5 {
        /// The error's class.
        CLASS cls: 2 => Enum("ErrorClass"),
        /// The reset code of the hello's stream, or the socket's close code.
        CODE code: 3 => Num,
        /// The error's message.
        MESSAGE message: 0 => TextHead,
        /// Where the reason starts in the text (-1: none).
        REASON_AT reason: 4 => TextFrom,
        /// Where the reset's payload JSON starts in the text (-1: none).
        PAYLOAD_AT payload: 5 => TextFrom,
    }
    /// A connection was re-established.
    pub mod reconnected: Reconnected = 6 {
        /// The 1-based count of re-establishments.
        COUNT count: 1 => Num,
    }
    /// A socket was lost.
    pub mod closed: Closed = 7 {
        /// The close code.
        CODE code: 1 => Num,
        /// The close was clean.
        WAS_CLEAN wasClean: 2 => Bool,
        /// The peer will dial again.
        WILL_RETRY willRetry: 3 => Bool,
        /// The close reason.
        REASON reason: 0 => Text,
    }
    /// The server sent goaway.
    pub mod goaway: GoAway = 8 {
        /// The goaway's code.
        CODE code: 1 => Num,
        /// Its `last_stream`.
        LAST_STREAM lastStream: 2 => Num,
        /// Its reason.
        REASON reason: 0 => Text,
    }
    /// A stream got its answer's first-frame headers.
    pub mod reply_headers: ReplyHeaders = 9 {
        /// The stream's tag.
        TAG tag: 1 => Num,
        /// The headers as JSON.
        HEADERS headers: 0 => Text,
    }
    /// A stream got a whole payload.
    pub mod payload: Payload = 10 {
        /// The stream's tag.
        TAG tag: 1 => Num,
        /// The payload's JSON.
        JSON json: 0 => Text,
    }
    /// A stream got one fragment of a payload; after the last one the driver reports whether the
    /// joined text parsed (`checked`).
    pub mod fragment: Fragment = 11 {
        /// The stream's tag.
        TAG tag: 1 => Num,
        /// More fragments follow.
        MORE more: 2 => Bool,
        /// The fragment.
        TEXT text: 0 => Text,
    }
    /// The remote ended its side of a stream.
    pub mod end: End = 12 {
        /// The stream's tag.
        TAG tag: 1 => Num,
    }
    /// A stream closed normally (both sides ended).
    pub mod stream_closed: StreamClosed = 13 {
        /// The stream's tag.
        TAG tag: 1 => Num,
    }
    /// A stream failed.
    pub mod stream_failed: StreamFailed = 14 {
        /// The stream's tag.
        TAG tag: 1 => Num,
        /// The error's class.
        CLASS cls: 2 => Enum("ErrorClass"),
        /// The reset code.
        CODE code: 3 => Num,
        /// The error's message.
        MESSAGE message: 0 => TextHead,
        /// Where the reset's reason starts in the text (-1: none).
        REASON_AT reason: 4 => TextFrom,
        /// Where the reset's payload JSON starts in the text (-1: none).
        PAYLOAD_AT payload: 5 => TextFrom,
    }
    /// The driver may forget a payload source: the module will not read it again.
    pub mod release: Release = 15 {
        /// The source's id.
        SOURCE source: 1 => Num,
    }
    /// A queued call stream could not be opened when its turn came.
    pub mod open_failed: OpenFailed = 16 {
        /// The stream's tag.
        TAG tag: 1 => Num,
        /// The error's class.
        CLASS cls: 2 => Enum("ErrorClass"),
        /// The error's message.
        MESSAGE message: 0 => Text,
    }
    /// The server opened a stream (a push, WSM-STM-031), its opening payload whole (a fragmented
    /// open is reassembled first). The stream is live under its tag until the driver calls
    /// `finish` (the handler returned: the implicit end, WSM-STM-035) or `cancel`; its later
    /// records are those of any stream.
    pub mod push: Push = 17 {
        /// The tag the module gives the pushed stream.
        TAG tag: 1 => Num,
        /// The stream's wire id (even: the server's).
        ID id: 2 => Num,
        /// The open also ended the server's side (a one-shot push, `notify`).
        END end: 3 => Bool,
        /// The open's headers as JSON (`{}` when it had none).
        HEADERS headers: 0 => TextHead,
        /// Where the opening payload's JSON starts in the text (-1: the open had no payload).
        PAYLOAD_AT payload: 4 => TextFrom,
    }
    /// The peer's REST fallback started or ended (`viewsets_core::Fallback`): its calls' next
    /// attempts go over REST while `on`.
    pub mod fallback: Fallback = 18 {
        /// Calls go over REST now.
        ON on: 1 => Bool,
    }
    /// A heartbeat `ping` was answered by its `pong`: the round trip, from the ping's `now` to the
    /// pong's (`Connection::poll_round_trip`, WSM-CON-012).
    pub mod round_trip: RoundTrip = 19 {
        /// The round trip in ms of the driver's clock.
        MS ms: 1 => Num,
    }
}

/// The one error class the module adds to the protocol's [`muxws_proto::ErrorClass`] (whose
/// numbers it reports as they are).
pub mod class {
    /// A bad option or argument: the driver throws a `TypeError`.
    pub const CONFIG: u32 = 12;
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use muxws_proto::ErrorClass;

    /// The class the module adds is not one of the protocol's.
    #[test]
    fn config_is_not_a_protocol_class() {
        assert!(ErrorClass::ALL.iter().all(|class| (*class as u32) < class::CONFIG));
    }

    /// Every declared field fits the record, and no two fields of a record share an offset unless
    /// both are text (whose offsets are not read) .
    #[test]
    fn the_layouts_fit_the_record() {
        for record in RECORDS {
            let numbers: Vec<usize> = record
                .fields
                .iter()
                .filter(|field| !matches!(field.ty, wasm_abi::Ty::Text | wasm_abi::Ty::TextHead))
                .map(|field| field.at)
                .collect();
            assert!(numbers.iter().all(|at| *at > 0 && *at < OUT_FIELDS), "{}", record.name);
            let mut unique = numbers.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), numbers.len(), "{}", record.name);
        }
    }
}
