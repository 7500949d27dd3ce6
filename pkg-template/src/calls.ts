/**
 * The calls module: the page's one call engine (keys, repeats, deadlines, activity), compiled from
 * Rust (`src/`, the root crate), instantiated once when the package is imported. It speaks numbers
 * only, strings crossing through its text window (docs/boundary.md); this file loads it and reads
 * its records and its text.
 *
 * Its bytes come inside this module (`wasm/calls-bytes.js`, written by scripts/inline-wasm.mjs), not
 * as a file fetched after it: importing the package is one round trip, in browsers, bundlers and Node alike.
 */
import { Layout, type CallsExports } from './abi/calls.js';
import { wasmBytes } from './wasm/calls-bytes.js';

/**
 * The module has no imports: wasm-bindgen's start function, its table of JavaScript values and the
 * import that fills it were removed after wasm-bindgen (scripts/build.sh), since no export passes a
 * JavaScript value and wasm-bindgen's JS glue is not used (it would only add bytes).
 *
 * The module compiled and instantiated synchronously, as the package's module is evaluated: for
 * 12 KB of wasm that is a fraction of a millisecond (Liftoff), where the asynchronous API waits for
 * a compile on another thread and a task before the import can resolve. Null where the engine
 * refuses it with a RangeError: Chromium before 115 allowed only 4 KB on the main thread (since
 * then 8 MB).
 */
function instantiateNow(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Instance | null {
  try {
    return new WebAssembly.Instance(new WebAssembly.Module(bytes));
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

// The module and the facade ship in one file, so they never differ in version
// (`boundary_version()` is the crate's record of it, for tools).
const moduleBytes = wasmBytes();
const instance = instantiateNow(moduleBytes) ?? (await WebAssembly.instantiate(moduleBytes)).instance;
/** The engine's exports. */
export const engine = instance.exports as unknown as CallsExports;

/**
 * Views of the whole memory, made again only when it has grown: growing detaches the buffer, and a
 * view of a detached buffer has length 0. (Reading `memory.buffer` and making a view on every call
 * cost more than the rest of a call's record handling.)
 */
let memoryAsBytes = new Uint8Array(engine.memory.buffer);
let memoryAsDoubles = new Float64Array(engine.memory.buffer);

/** A view of the whole memory as bytes. */
function byteView(): Uint8Array {
  if (memoryAsBytes.length === 0) memoryAsBytes = new Uint8Array(engine.memory.buffer);
  return memoryAsBytes;
}

/** A view of the whole memory as 64-bit floats. */
function doubleView(): Float64Array {
  if (memoryAsDoubles.length === 0) memoryAsDoubles = new Float64Array(engine.memory.buffer);
  return memoryAsDoubles;
}

/** A copy of `count` records of `fields` numbers at `pointer` (8-aligned) in the module's memory. */
export function records(pointer: number, count: number, fields: number): Float64Array {
  const at = pointer / 8;
  return doubleView().slice(at, at + count * fields);
}

/** The one array the action records are copied into (see {@link actionRecords}). */
let actionBatch = new Float64Array(Layout.ActionFields * 16);

/**
 * The `count` action records at `pointer`, copied into one array that the next call overwrites: the
 * runtime's pump, which alone drains actions and never while it performs them, reads a batch whole
 * before it drains again. (A new array per batch cost a call more than the copy.)
 */
export function actionRecords(pointer: number, count: number): Float64Array {
  const length = count * Layout.ActionFields;
  if (actionBatch.length < length) actionBatch = new Float64Array(length * 2);
  const memory = doubleView();
  const at = pointer / 8;
  for (let field = 0; field < length; field++) actionBatch[field] = memory[at + field];
  return actionBatch;
}

/**
 * Writes the ASCII characters of `text` before its first other one to the module's text window
 * (bytes) and returns how many, with that other character's position (in characters) and code
 * point, `-1` when there is none: the module decides what to make of it.
 */
export function putText(text: string): { length: number; badIndex: number; badCode: number } {
  // The window first: growing it may grow the memory, which detaches a buffer read before.
  const pointer = engine.scratch(text.length);
  const memory = byteView();
  let index = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code > 0x7f) return { length: index, badIndex: index, badCode: code };
    memory[pointer + index++] = code;
  }
  return { length: index, badIndex: -1, badCode: 0 };
}

/**
 * The first `length` bytes of the module's text window (ASCII), as a string. Its texts are short (a
 * key, a header rule), which `String.fromCharCode` makes faster than a `TextDecoder`.
 */
export function takeText(length: number): string {
  const pointer = engine.scratch(0);
  const memory = byteView();
  let text = '';
  // In slices: a caller's own key may be long, and each byte is an argument of fromCharCode.
  for (let at = 0; at < length; at += 4096) {
    text += String.fromCharCode.apply(null, memory.subarray(pointer + at, pointer + Math.min(length, at + 4096)) as unknown as number[]);
  }
  return text;
}

/** The size of the module's linear memory in bytes (it never shrinks: its high-water mark). */
export function memoryBytes(): number {
  return engine.memory.buffer.byteLength;
}
