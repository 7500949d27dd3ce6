//! `engine-peer`: tests, not a library. `tests/` drives a `viewsets_core::CallEngine` and a
//! `muxws_proto::Peer` together on one virtual clock, wired to each other the way the TypeScript
//! driver of the npm package wires them in the browser (stream outcomes become attempt ends, peer
//! events become peer news for the engine), with the server's side of the socket scripted by each
//! test. See `tests/common/mod.rs` for the harness.

#![forbid(unsafe_code)]
