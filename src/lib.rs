//! `@dynamicforms/fastapi-viewsets`: idempotent, repeatable ViewSet calls for fastapi-viewsets
//! backends, over REST (`fetch`) and muxws (multiplexed streams over one WebSocket).
//!
//! The rules live in two pure crates, re-exported here: [`viewsets_core`] (keys, repeat policy,
//! the call engine, call activity) and [`muxws_proto`] (the muxws dialer protocol). This crate adds
//! [`compose`] (URL, query and header composition, pure) and, on `wasm32`, the thin layer that drives
//! both with `fetch`, `WebSocket`, timers and `crypto.getRandomValues`, exported through
//! `wasm-bindgen` to the TypeScript facade in `pkg-template/`.

#![warn(missing_docs)]

pub mod compose;
pub mod schema;
#[cfg(target_arch = "wasm32")]
mod wasm;

pub use muxws_proto;
pub use viewsets_core;
