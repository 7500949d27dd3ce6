/**
 * The calls module: the page's one call engine (keys, repeats, deadlines, activity), compiled from
 * Rust (`crates/calls-wasm`), instantiated once when the package is imported. It speaks numbers and
 * short strings only (docs/boundary.md); this file loads it and reads its records.
 */
import { compileWasm } from './wasm-loader.js';
import * as engine from './wasm/calls.js';

const instance = engine.initSync({ module: await compileWasm(new URL('./wasm/calls_bg.wasm', import.meta.url)) });

/** The engine's exports (functions of numbers and short strings). */
export { engine };

/** Fields of one action record (`drain_actions`). */
export const ACTION_FIELDS = 8;
/** Fields of one pending-call record (`pending_fill`). */
export const PENDING_FIELDS = 6;

/** A copy of `count` records of `fields` numbers at `pointer` in the module's memory. */
export function records(pointer: number, count: number, fields: number): Float64Array {
  return new Float64Array(instance.memory.buffer, pointer, count * fields).slice();
}

/**
 * Writes `text` to the module's text window (UTF-16 code units) and returns its length, for the
 * exports that read a string from there.
 */
export function putText(text: string): number {
  const length = text.length;
  const units = new Uint16Array(instance.memory.buffer, engine.scratch(length), length);
  for (let at = 0; at < length; at++) units[at] = text.charCodeAt(at);
  return length;
}

const utf16 = new TextDecoder('utf-16le');

/** The first `length` code units of the module's text window, as a string. */
export function takeText(length: number): string {
  return utf16.decode(new Uint16Array(instance.memory.buffer, engine.scratch(0), length));
}

/** The size of the module's linear memory in bytes (it never shrinks: its high-water mark). */
export function memoryBytes(): number {
  return instance.memory.buffer.byteLength;
}
