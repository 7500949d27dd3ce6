//! The drift test of the muxws module's boundary: the tables of `abi.rs` and the exports of
//! `exports.rs`, rendered as the TypeScript the driver reads them through
//! (`pkg-template/src/abi/muxws.ts`, `pkg-template/src/abi/muxws-errors.ts`), and compared with
//! those files. A module of its own, so that neither of the two it reads imports the other.

use alloc::string::String;
use alloc::vec::Vec;

use wasm_abi::typescript as ts;

use muxws_proto::ErrorClass;

use crate::abi::*;

/// `pkg-template/src/abi/muxws.ts`: the tables of `abi.rs` and `exports.rs`, rendered.
fn typescript() -> String {
    use wasm_abi::{Code, CodeTable, Constant, ExportTable, RecordTable};
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
    let mut codes: Vec<Code> = ErrorClass::ALL
        .iter()
        .map(|class| Code { name: class.name(), value: *class as u32, doc: "" })
        .collect();
    codes.push(Code { name: "Config", value: class::CONFIG, doc: "A bad option or argument: a `TypeError`.\n" });
    let codes: &'static [Code] = Vec::leak(codes);
    ts::code_table(
        &mut out,
        &CodeTable { name: "ErrorClass", doc: "The error class of a failed stream or connect, by the class of `errors.ts` it makes.\n", codes },
    );
    ts::code_table(&mut out, &CLOSE_CODES);
    ts::code_table(&mut out, &RESET_CODES);
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

/// `pkg-template/src/abi/muxws-errors.ts`: the error classes by code, for the driver (handed to it among `muxwsServices`).
fn error_classes() -> String {
    let mut out = ts::header("crates/muxws-wasm/src/abi.rs", "cargo test -p muxws-wasm abi");
    let mut names: Vec<&str> = ErrorClass::ALL.iter().map(|class| class.name()).collect();
    names.sort_unstable();
    names.dedup();
    out.push_str(&alloc::format!("\nimport {{ {} }} from '../errors.js';\n", names.join(", ")));
    out.push_str("\n/** The muxws error classes by the module's class code (`ErrorClass`; 0, a code of none, is a protocol error). */\n");
    let by_code: Vec<&str> = core::iter::once("ProtocolError").chain(ErrorClass::ALL.iter().map(|class| class.name())).collect();
    out.push_str(&alloc::format!("export const ERROR_CLASSES = [{}] as const;\n", by_code.join(", ")));
    out
}
/// The drift test: the TypeScript side is what the tables of `abi.rs` and `exports.rs` render. `ABI_WRITE=1` writes it.
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
            "pkg-template/src/abi/{file} is not what the tables in crates/muxws-wasm/src/abi.rs and exports.rs render: run `ABI_WRITE=1 cargo test -p muxws-wasm abi`, then review the diff"
        );
    }
}
