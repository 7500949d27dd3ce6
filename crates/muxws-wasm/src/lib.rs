//! The muxws module of `@dynamicforms/fastapi-viewsets`: `muxws_proto::Peer`s by handle behind an
//! interface of numbers, short texts and byte windows (docs/boundary.md, "The muxws module"). Only
//! `connectMuxws()` loads it, by dynamic import, so an app that uses REST alone never ships it.
//!
//! - [`module`] — the state and every entry point, as plain Rust (natively tested);
//! - [`config`] — a new peer's options: the defaults applied, the ranges checked, refusals named
//!   as `connectMuxws` names the options;
//! - [`out`] — the output record, and the records of socket actions and stream events;
//! - [`source`] — outbound payloads that stay driver-side strings, read a window at a time;
//! - [`abi`] — the numbers the module and its driver agree on, declared once (the driver reads them
//!   through `pkg-template/src/abi/muxws.ts`, rendered from them and from the exports' table by the
//!   drift test, `abi_typescript`);
//! - `exports` — the exports, declared once (`wasm_abi::exports!`: the functions, wasm32 only, and
//!   the table their TypeScript interface is rendered from), each a one-line forward into
//!   [`module`]; and the one import (plain `extern "C"`, no wasm-bindgen).
//!
//! `no_std` in wasm (with `alloc`, a small free-list allocator and a panic handler that traps), so
//! that none of std's panic and formatting machinery is linked.
//!
//! The module never runs user code: the only JavaScript it calls is the driver's payload reader
//! (`TextEncoder.encodeInto`), which cannot call back into it. Inputs for unknown handles or tags
//! are ignored, and nothing panics on any input.

#![cfg_attr(target_arch = "wasm32", no_std)]
#![deny(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

pub mod config;
pub mod module;
pub mod out;
pub mod abi;
pub mod source;

#[allow(unsafe_code)]
// `#[no_mangle]`: the exports are named for the driver, which calls them on the instance; and
// the call of the driver's reader, the one import.
mod exports;

#[cfg(test)]
mod abi_typescript;
#[cfg(test)]
mod tests;
