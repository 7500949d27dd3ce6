/**
 * The calls module: the page's one call engine (keys, repeats, deadlines, activity), compiled from
 * Rust (`crates/calls-wasm`), instantiated once when the package is imported. It speaks numbers
 * only, strings crossing through its text window (docs/boundary.md); this file loads it and reads
 * its records and its text.
 *
 * Its bytes come inside this module (`wasm/calls-bytes.js`, written by scripts/inline-wasm.mjs), not
 * as a file fetched after it: importing the package is one round trip, in browsers, bundlers and Node alike.
 */
import { WASM_SHIFT, WASM_TEXT } from './wasm/calls-bytes.js';

/** The module's exports: plain functions of numbers (`crates/calls-wasm/src/lib.rs`). */
export interface CallsExports {
  readonly memory: WebAssembly.Memory;
  boundary_version(): number;
  scratch(length: number): number;
  key_generate(a: number, b: number, c: number, d: number): number;
  key_field(length: number, badIndex: number, badCode: number): number;
  header_rule(length: number): number;
  call_issue(peer: number, withinMs: number, delayMs: number, attemptTimeoutMs: number, background: number, now: number, jitter: number, jitterSeed: number): number;
  call_headers_captured(call: number, attempt: number): void;
  call_attempt_ended(call: number, attempt: number, end: number, status: number, now: number, retryAfterMs: number): void;
  call_cancel(call: number, now: number): void;
  peer_state(peer: number, state: number, now: number): void;
  retry_now(now: number): void;
  set_online(online: number, now: number): void;
  handle_timeout(now: number): void;
  next_timeout(): number;
  drain_actions(): number;
  action_records(): number;
  pending_count(): number;
  pending_fill(): number;
  pending_records(): number;
  live_calls(): number;
}

/** The module's bytes from their text: one character per byte, shifted (scripts/inline-wasm.mjs). */
function wasmBytes(text: string, shift: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length);
  // A Uint8Array keeps the low 8 bits of what is stored: the shift and the +256 of escaped characters fall away.
  for (let at = 0; at < text.length; at++) bytes[at] = text.charCodeAt(at) - shift;
  return bytes;
}

/**
 * The module's one import, as wasm-bindgen's output names it: the routine that fills wasm-bindgen's
 * table of JavaScript values. No export of this module passes a JavaScript value (they take and
 * return numbers), so the table is never read and the routine has nothing to do. wasm-bindgen's
 * JS glue, which would add 0.3 KB gzip, is not used.
 */
const IMPORTS = { './calls_bg.js': { __wbindgen_init_externref_table(): void {} } };

// Compiled off the main thread. The module and the facade ship in one file, so they never differ in
// version (`boundary_version()` is the crate's record of it, for tools).
const { instance } = await WebAssembly.instantiate(wasmBytes(WASM_TEXT, WASM_SHIFT), IMPORTS);
/** The engine's exports. */
export const engine = instance.exports as unknown as CallsExports & { __wbindgen_start(): void };
engine.__wbindgen_start();

/** Fields of one action record (`drain_actions`). */
export const ACTION_FIELDS = 8;
/** Fields of one pending-call record (`pending_fill`). */
export const PENDING_FIELDS = 6;

/** A copy of `count` records of `fields` numbers at `pointer` in the module's memory. */
export function records(pointer: number, count: number, fields: number): Float64Array {
  return new Float64Array(engine.memory.buffer, pointer, count * fields).slice();
}

/**
 * Writes the ASCII characters of `text` before its first other one to the module's text window
 * (bytes) and returns how many, with that other character's position (in characters) and code
 * point, `-1` when there is none: the module decides what to make of it.
 */
export function putText(text: string): { length: number; badIndex: number; badCode: number } {
  // The window first: growing it may grow the memory, which detaches a buffer read before.
  const pointer = engine.scratch(text.length);
  const bytes = new Uint8Array(engine.memory.buffer, pointer, text.length);
  let index = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code > 0x7f) return { length: index, badIndex: index, badCode: code };
    bytes[index++] = code;
  }
  return { length: index, badIndex: -1, badCode: 0 };
}

const ascii = new TextDecoder('latin1');

/** The first `length` bytes of the module's text window (ASCII), as a string. */
export function takeText(length: number): string {
  const pointer = engine.scratch(0);
  return ascii.decode(new Uint8Array(engine.memory.buffer, pointer, length));
}

/** The size of the module's linear memory in bytes (it never shrinks: its high-water mark). */
export function memoryBytes(): number {
  return engine.memory.buffer.byteLength;
}
