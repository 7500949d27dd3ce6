/**
 * The calls module: the page's one call engine (keys, repeats, deadlines, activity), compiled from
 * Rust (`crates/calls-wasm`), instantiated once when the package is imported. It speaks numbers
 * only, strings crossing through its text window (docs/boundary.md); this file loads it and reads
 * its records and its text.
 */
import { compileWasm } from './wasm-loader.js';
import { initSync } from './wasm/calls.js';

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

/** The version of the exports and records this facade reads (`BOUNDARY_VERSION` in the crate). */
const BOUNDARY_VERSION = 5;

const module = await compileWasm(new URL('./wasm/calls_bg.wasm', import.meta.url));
/** The engine's exports. */
export const engine = initSync({ module }) as unknown as CallsExports;
if (engine.boundary_version() !== BOUNDARY_VERSION) {
  throw new Error(`the calls module speaks version ${engine.boundary_version()} of the boundary, this facade ${BOUNDARY_VERSION}: a stale cached .wasm?`);
}
const instance = engine;

/** Fields of one action record (`drain_actions`). */
export const ACTION_FIELDS = 8;
/** Fields of one pending-call record (`pending_fill`). */
export const PENDING_FIELDS = 6;

/** A copy of `count` records of `fields` numbers at `pointer` in the module's memory. */
export function records(pointer: number, count: number, fields: number): Float64Array {
  return new Float64Array(instance.memory.buffer, pointer, count * fields).slice();
}

/**
 * Writes the ASCII characters of `text` before its first other one to the module's text window
 * (bytes) and returns how many, with that other character's position (in characters) and code
 * point, `-1` when there is none: the module decides what to make of it.
 */
export function putText(text: string): { length: number; badIndex: number; badCode: number } {
  // The window first: growing it may grow the memory, which detaches a buffer read before.
  const pointer = engine.scratch(text.length);
  const bytes = new Uint8Array(instance.memory.buffer, pointer, text.length);
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
  return ascii.decode(new Uint8Array(instance.memory.buffer, pointer, length));
}

/** The size of the module's linear memory in bytes (it never shrinks: its high-water mark). */
export function memoryBytes(): number {
  return instance.memory.buffer.byteLength;
}
