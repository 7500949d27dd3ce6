/**
 * The muxws module as its driver sees it: its exports, its instantiation with what the package
 * lends the driver (`muxws-kit.ts`), the payload strings it reads through its one import, its input
 * window and its output record, and the errors made from the class codes it writes. Every other
 * file of the driver builds on this one; it imports only types, const enums and `wasm-loader.ts`.
 */
import type { ErrorProps } from './errors.js';
import type { DriverKit } from './muxws-kit.js';
import { compileWasm } from './wasm-loader.js';
import { ErrorClass, Layout } from './abi/muxws.js';

/** The module's exports: plain functions of numbers (`crates/muxws-wasm/src/exports.rs`). */
export interface MuxwsExports {
  readonly memory: WebAssembly.Memory;
  boundary_version(): number;
  input(size: number): number;
  out(): number;
  peer_new(
    pingIntervalMs: number,
    pingTimeoutMs: number,
    helloTimeoutMs: number,
    maxFrameBytes: number,
    maxPayloadBytes: number,
    initialDelayMs: number,
    factor: number,
    maxDelayMs: number,
    jitter: number,
    maxAttempts: number,
    callConcurrency: number,
    lazy: number,
    seed: number,
    protocolsLength: number,
    helloHeadersLength: number,
    helloPayloadLength: number,
  ): number;
  peer_free(peer: number): void;
  socket_opened(peer: number, socket: number, protocolLength: number, now: number): void;
  socket_message(peer: number, socket: number, length: number, whole: number, now: number): void;
  socket_binary(peer: number, socket: number, now: number): void;
  socket_closed(peer: number, socket: number, code: number, reasonLength: number, clean: number, now: number): void;
  timer(peer: number, now: number): void;
  fallback(peer: number, afterMs: number, now: number): void;
  next_timeout(peer: number): number;
  open(peer: number, headersLength: number, source: number, units: number, end: number, call: number, now: number): number;
  send(peer: number, tag: number, source: number, units: number, end: number): number;
  cancel(peer: number, tag: number, reasonLength: number): void;
  expire(peer: number, tag: number): void;
  set_deadline(peer: number, tag: number, at: number): void;
  checked(peer: number, tag: number, valid: number): void;
  accept_pushes(peer: number, accept: number): void;
  finish(peer: number, tag: number): void;
  close(peer: number, code: number, reasonLength: number, drainMs: number, now: number): void;
  reconnect_now(peer: number, now: number): number;
  is_open(peer: number): number;
  is_closed(peer: number): number;
  stream_id(peer: number, tag: number): number;
  frame_cap(peer: number): number;
  stream_count(peer: number): number;
  poll(peer: number, now: number, sends: number): number;
}

// What the rest of the package lends the driver (`muxws-kit.ts`), taken out of the kit by position
// (its order) by `instantiate`; each has the name it has in the package.
/** `body.ts`: a payload's JSON text. */
export let muxwsBody!: DriverKit[0];
/** `caller.ts`: a value described for a message. */
export let describe!: DriverKit[1];
/** `caller.ts`: a defensive property read. */
export let get!: DriverKit[2];
/** The muxws error classes by the module's class code. */
export let errorClasses!: DriverKit[3];
/** `errors.ts`: the error of a URL muxws cannot dial. */
export let TransportUrlError!: DriverKit[4];
/** `rest.ts`: whether an answer body is an error body holding `detail`. */
export let hasDetail!: DriverKit[5];
/** `rest.ts`: the proxy's interceptors applied to a call's headers. */
export let intercept!: DriverKit[6];
/** `runtime.ts`: adds a source of `stats()` figures. */
export let addStats!: DriverKit[7];
/** `runtime.ts`: keeps an attempt's final headers for its repeats. */
export let captureHeaders!: DriverKit[8];
/** `runtime.ts`: tells the engine a peer's state. */
export let peerState!: DriverKit[9];
/** `runtime.ts`: registers a peer and its transport. */
export let registerPeer!: DriverKit[10];
/** `runtime.ts`: reports an attempt's answer. */
export let report!: DriverKit[11];
/** `runtime.ts`: forgets a peer. */
export let unregisterPeer!: DriverKit[12];
/** `runtime.ts`: a warning on the console. */
export let warn!: DriverKit[13];
/** `runtime.ts`: ends an attempt with an error. */
export let failAttempt!: DriverKit[14];
/** `clock.ts`: the time the modules are given. */
export let now!: DriverKit[15];
/** `timer.ts`: one platform timer. */
export let wakeup!: DriverKit[16];
/** `rest.ts`: the REST transport, for the attempts of a peer's calls that fall back. */
export let restTransport!: DriverKit[17];
/** The package's one source of online / offline. */
export let online!: DriverKit[18];
/** The muxws module's exports, once instantiated. */
export let mw!: MuxwsExports;
/** Where the module's output record lives in its memory. */
let outPointer = 0;

/** Takes what the package lends the driver, then compiles and instantiates the muxws module. */
export async function instantiate(given: DriverKit): Promise<void> {
  [muxwsBody, describe, get, errorClasses, TransportUrlError, hasDetail, intercept, addStats, captureHeaders, peerState, registerPeer, report, unregisterPeer, warn, failAttempt, now, wakeup, restTransport, online] = given;
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
  return new (errorClasses[cls] ?? errorClasses[ErrorClass.ProtocolError])(message, props);
}

/** The error of what was refused. */
export function refusedError({ cls, message }: Refusal, props?: ErrorProps): Error {
  return makeError(cls, message, props);
}

/** The error a peer closed for good answers every open with. */
export function closedForGood(): Error {
  return makeError(ErrorClass.ConnectionClosed, 'the muxws peer is closed for good', { code: 1000, wasClean: true });
}
