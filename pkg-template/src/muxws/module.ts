/**
 * The muxws module as its driver sees it: its exports, its instantiation with what the package
 * lends the driver (`muxws-kit.ts`), the payload strings it reads through its one import, its input
 * window and its output record, and the errors made from the class codes it writes. Every other
 * file of the driver builds on this one; it imports only types, const enums and `muxws/wasm-loader.ts`.
 */
import type { ErrorProps } from '../errors.js';
import type { MuxwsServices } from '../muxws-kit.js';
import { compileWasm } from './wasm-loader.js';
import { CloseCode, ErrorClass, Layout, type MuxwsExports } from '../abi/muxws.js';

/** What the package lends the driver (`muxws-kit.ts`), by name; set by {@link instantiate}. */
export let services!: MuxwsServices;
/** The muxws module's exports, once instantiated. */
export let mw!: MuxwsExports;
/** Where the module's output record lives in its memory. */
let outPointer = 0;

/** Takes what the package lends the driver, then compiles and instantiates the muxws module. */
export async function instantiate(given: MuxwsServices): Promise<void> {
  services = given;
  const module = await compileWasm(new URL('./wasm/muxws_bg.wasm?no-inline', import.meta.url));
  const exports = new WebAssembly.Instance(module, { muxws: { read } }).exports as unknown as MuxwsExports;
  if (exports.boundary_version() !== Layout.BoundaryVersion) {
    throw new Error(`the muxws module speaks version ${exports.boundary_version()} of the boundary, its driver ${Layout.BoundaryVersion}: a stale cached .wasm?`);
  }
  mw = exports;
  outPointer = mw.out();
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Payload strings by handle, until the module releases them. */
export const sources = new Map<number, string>();
let lastSource = 0;

/**
 * The module's one import, the payload reader: writes the UTF-8 of `source` from UTF-16 unit
 * `from` on into `length` bytes at `pointer`; never throws.
 */
function read(source: number, from: number, pointer: number, length: number): number {
  try {
    const text = sources.get(source);
    return text === undefined ? 0 : encoder.encodeInto(text.substring(from, from + length), bytes(pointer, length)).written;
  } catch {
    return 0;
  }
}

function bytes(pointer: number, length: number): Uint8Array {
  return new Uint8Array(mw.memory.buffer, pointer, length);
}

/** A payload string for the module to read; its handle. */
export function source(text: string): number {
  lastSource = (lastSource + 1) >>> 0 || 1;
  sources.set(lastSource, text);
  return lastSource;
}

/**
 * Writes `texts` one after another into the module's input window of `room` bytes; their byte
 * lengths (-1 for null) and whether the last one fit whole.
 */
export function put(texts: (string | null)[], room: number): { lengths: number[]; whole: boolean } {
  const window = bytes(mw.input(room), room);
  let at = 0;
  let whole = true;
  const lengths = texts.map((text) => {
    if (text === null) return -1;
    const { read, written } = encoder.encodeInto(text, window.subarray(at));
    at += written;
    whole = read === text.length;
    return written;
  });
  return { lengths, whole };
}

/** Writes one short text (a reason, a subprotocol) into the input window; its byte length. */
export function putShort(text: string): number {
  return put([text], text.length * 3 + 1).lengths[0];
}

let outView: Float64Array | null = null;

/** The output record (`Layout.OutFields` numbers: kind, five fields, text pointer, text length). */
export function record(): Float64Array {
  if (outView === null || outView.buffer !== mw.memory.buffer) outView = new Float64Array(mw.memory.buffer, outPointer, Layout.OutFields);
  return outView;
}

/** Bytes `from`..`to` of the current record's text. */
export function textOf(from: number, to: number): string {
  return to > from ? decoder.decode(bytes(record()[Layout.TextAt] + from, to - from)) : '';
}

/** What the module (or the driver, before asking it) refused: the error's class and message. */
export interface Refusal {
  cls: ErrorClass;
  message: string;
}

/** The refusal an export that refused what it was given wrote into the record. */
export function refusal(): Refusal {
  const out = record();
  return { cls: out[Layout.FailureClass], message: textOf(0, out[Layout.TextLength]) };
}

/** The error for the module's class code (`ErrorClass`): a protocol error for an unknown one. */
export function makeError(cls: number, message: string, props?: ErrorProps): Error {
  if (cls === ErrorClass.Config) return new TypeError(message);
  return new (services.errorClasses[cls] ?? services.errorClasses[ErrorClass.ProtocolError])(message, props);
}

/** The error of what was refused. */
export function refusedError({ cls, message }: Refusal, props?: ErrorProps): Error {
  return makeError(cls, message, props);
}

/** The error a peer closed for good answers every open with. */
export function closedForGood(): Error {
  return makeError(ErrorClass.ConnectionClosed, 'the muxws peer is closed for good', { code: CloseCode.Normal, wasClean: true });
}
