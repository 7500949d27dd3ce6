// Generated from crates/muxws-wasm/src/abi.rs by `cargo test -p muxws-wasm abi`: do not edit.
// Change the Rust table, then run that command with ABI_WRITE=1 to write this file again.

import { CodecMismatch, ConnectionClosed, ConnectionGoingAway, ConnectionLost, ConnectionRefused, ProtocolError, RemoteError, StreamClosed, StreamRefused, StreamReset, StreamTimeout } from '../errors.js';

/** The muxws error classes by the module's class code (`ErrorClass`; 0, a code of none, is a protocol error). */
export const ERROR_CLASSES = [ProtocolError, ProtocolError, ConnectionClosed, ConnectionGoingAway, StreamClosed, CodecMismatch, ConnectionRefused, StreamReset, RemoteError, StreamTimeout, StreamRefused, ConnectionLost] as const;
