//! The muxws module's side of the boundary (docs/boundary.md): the output record kinds and their
//! fields, and the error classes, declared once here. The TypeScript the driver reads them through,
//! `pkg-template/src/abi/muxws.ts` (and the kit's list of error classes,
//! `pkg-template/src/abi/muxws-errors.ts`), is rendered from these declarations; a test fails when
//! the files differ from them (`ABI_WRITE=1 cargo test -p muxws-wasm abi` writes them again).
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
pub const BOUNDARY_VERSION: u32 = 4;

/// How many `f64` fields an output record has: kind, five fields, text pointer, text length.
pub const OUT_FIELDS: usize = 8;
/// Where an output record's text starts (a pointer into the module's memory).
pub const TEXT_AT: usize = 6;
/// The byte length of an output record's text.
pub const TEXT_LENGTH: usize = 7;
/// Where an export that refuses what it was given (a new peer's options, an open, a send) writes
/// the error's class (an [`class`] code); the record's text is the message.
pub const FAILURE_CLASS: usize = 1;

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
}

/// The record kinds by the names the module uses (`poll` returns them; 0: nothing to report).
pub mod kind {
    /// [`super::dial`].
    pub const DIAL: u32 = super::dial::KIND;
    /// [`super::send`].
    pub const SEND: u32 = super::send::KIND;
    /// [`super::close`].
    pub const CLOSE: u32 = super::close::KIND;
    /// [`super::established`].
    pub const ESTABLISHED: u32 = super::established::KIND;
    /// [`super::connect_failed`].
    pub const CONNECT_FAILED: u32 = super::connect_failed::KIND;
    /// [`super::reconnected`].
    pub const RECONNECTED: u32 = super::reconnected::KIND;
    /// [`super::closed`].
    pub const CLOSED: u32 = super::closed::KIND;
    /// [`super::goaway`].
    pub const GOAWAY: u32 = super::goaway::KIND;
    /// [`super::reply_headers`].
    pub const REPLY_HEADERS: u32 = super::reply_headers::KIND;
    /// [`super::payload`].
    pub const PAYLOAD: u32 = super::payload::KIND;
    /// [`super::fragment`].
    pub const FRAGMENT: u32 = super::fragment::KIND;
    /// [`super::end`].
    pub const END: u32 = super::end::KIND;
    /// [`super::stream_closed`].
    pub const STREAM_CLOSED: u32 = super::stream_closed::KIND;
    /// [`super::stream_failed`].
    pub const STREAM_FAILED: u32 = super::stream_failed::KIND;
    /// [`super::release`].
    pub const RELEASE: u32 = super::release::KIND;
    /// [`super::open_failed`].
    pub const OPEN_FAILED: u32 = super::open_failed::KIND;
    /// [`super::push`].
    pub const PUSH: u32 = super::push::KIND;
    /// [`super::fallback`].
    pub const FALLBACK: u32 = super::fallback::KIND;
}

/// Error classes (the driver makes the classes of `errors.ts` from them): the protocol layer's
/// [`muxws_proto::ErrorClass`] numbers, and [`class::CONFIG`] for an option it refused.
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
    /// A bad option or argument: the driver throws a `TypeError`.
    pub const CONFIG: u32 = 12;
}

/// Every protocol error class, in the order of its number; a new class fails to compile in
/// `listed` (tests).
pub const ERROR_CLASSES: [muxws_proto::ErrorClass; 11] = {
    use muxws_proto::ErrorClass::*;
    [
        ProtocolError,
        ConnectionClosed,
        ConnectionGoingAway,
        StreamClosed,
        CodecMismatch,
        ConnectionRefused,
        StreamReset,
        RemoteError,
        StreamTimeout,
        StreamRefused,
        ConnectionLost,
    ]
};

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;
    use alloc::vec::Vec;
    use muxws_proto::ErrorClass;

    #[test]
    fn every_error_class_is_listed_in_order() {
        fn listed(class: ErrorClass) -> bool {
            match class {
                ErrorClass::ProtocolError | ErrorClass::ConnectionClosed | ErrorClass::ConnectionGoingAway | ErrorClass::StreamClosed => true,
                ErrorClass::CodecMismatch | ErrorClass::ConnectionRefused | ErrorClass::StreamReset | ErrorClass::RemoteError => true,
                ErrorClass::StreamTimeout | ErrorClass::StreamRefused | ErrorClass::ConnectionLost => true,
            }
        }
        for (index, class) in ERROR_CLASSES.into_iter().enumerate() {
            assert!(listed(class));
            assert_eq!(class as usize, index + 1);
        }
        assert!(ERROR_CLASSES.iter().all(|class| (*class as u32) < class::CONFIG));
    }

    /// `pkg-template/src/abi/muxws.ts`: the tables above, rendered.
    fn typescript() -> String {
        use wasm_abi::{typescript as ts, Code, CodeTable, Constant, ExportTable, RecordTable};
        let mut out = ts::header("crates/muxws-wasm/src/abi.rs and exports.rs", "cargo test -p muxws-wasm abi");
        ts::export_table(
            &mut out,
            &ExportTable {
                name: "MuxwsExports",
                doc: "The muxws module's exports (`exports!` in `crates/muxws-wasm/src/exports.rs`): functions of numbers, called on the instance.\n",
                exports: crate::exports::EXPORTS,
            },
        );
        let constant = |name, value: f64, doc| Constant { name, value, doc };
        ts::constants(
            &mut out,
            "Layout",
            "The muxws module's output record and the version of its exports.\n",
            &[
                constant("OutFields", OUT_FIELDS as f64, "How many `f64` fields an output record has.\n"),
                constant("TextAt", TEXT_AT as f64, "The field holding where the record's text starts in the module's memory.\n"),
                constant("TextLength", TEXT_LENGTH as f64, "The field holding the byte length of the record's text.\n"),
                constant(
                    "FailureClass",
                    FAILURE_CLASS as f64,
                    "Where an export that refused what it was given writes the error's `ErrorClass`; the text is the message.\n",
                ),
                constant(
                    "BoundaryVersion",
                    f64::from(BOUNDARY_VERSION),
                    "The version of the exports and records (`boundary_version()`).\n",
                ),
            ],
        );
        let mut codes: Vec<Code> = ERROR_CLASSES
            .iter()
            .map(|class| Code { name: class.name(), value: *class as u32, doc: "" })
            .collect();
        codes.push(Code { name: "Config", value: class::CONFIG, doc: "A bad option or argument: a `TypeError`.\n" });
        let codes: &'static [Code] = Vec::leak(codes);
        ts::code_table(
            &mut out,
            &CodeTable { name: "ErrorClass", doc: "The error class of a failed stream or connect, by the class of `errors.ts` it makes.\n", codes },
        );
        let records = RecordTable {
            name: "MuxwsRecord",
            doc: "What the muxws module has to say (`poll`), one record at a time.\n",
            fields: OUT_FIELDS,
            text: Some((TEXT_AT, TEXT_LENGTH)),
            records: RECORDS,
        };
        ts::record_table(&mut out, &records);
        out
    }

    /// `pkg-template/src/abi/muxws-errors.ts`: the error classes by code, for the driver's kit.
    fn error_classes() -> String {
        let mut out = ts::header("crates/muxws-wasm/src/abi.rs", "cargo test -p muxws-wasm abi");
        let mut names: Vec<&str> = ERROR_CLASSES.iter().map(|class| class.name()).collect();
        names.sort_unstable();
        names.dedup();
        out.push_str(&alloc::format!("\nimport {{ {} }} from '../errors.js';\n", names.join(", ")));
        out.push_str("\n/** The muxws error classes by the module's class code (`ErrorClass`; 0, a code of none, is a protocol error). */\n");
        let by_code: Vec<&str> = core::iter::once("ProtocolError").chain(ERROR_CLASSES.iter().map(|class| class.name())).collect();
        out.push_str(&alloc::format!("export const ERROR_CLASSES = [{}] as const;\n", by_code.join(", ")));
        out
    }
    use wasm_abi::typescript as ts;

    /// The drift test: the TypeScript side is what the tables above render. `ABI_WRITE=1` writes it.
    #[test]
    fn the_typescript_tables_are_current() {
        for (file, want) in [("muxws.ts", typescript()), ("muxws-errors.ts", error_classes())] {
            let path = alloc::format!("{}/../../pkg-template/src/abi/{file}", env!("CARGO_MANIFEST_DIR"));
            if std::env::var_os("ABI_WRITE").is_some() {
                std::fs::write(&path, &want).unwrap();
            }
            let have = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                have == want,
                "pkg-template/src/abi/{file} is not what the tables in crates/muxws-wasm/src/abi.rs render: run `ABI_WRITE=1 cargo test -p muxws-wasm abi`, then review the diff"
            );
        }
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
