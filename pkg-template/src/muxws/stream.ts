/**
 * What is JavaScript about each stream of a muxws peer: the `Pending` record the peer keeps by the
 * module's tag (one kind per owner: a ViewSet call's attempt, a `request()`, an `open()` stream),
 * and `StreamCore`, the driver's side of a public `MuxwsStream`.
 */
import type { CallRecord } from '../vocabulary/call-types.js';
import { makeError } from './module.js';
import { ErrorClass } from '../abi/muxws.js';

/** Settle-able promise parts. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/**
 * A promise and its settling functions. An internal one (`quiet`) never reports a rejection nobody
 * awaits as unhandled; the promise of a `request()` is the caller's, and does.
 */
export function deferred<T>(quiet = true): Deferred<T> {
  const parts = {} as Deferred<T>;
  parts.promise = new Promise<T>((resolve, reject) => {
    parts.resolve = resolve;
    parts.reject = reject;
  });
  if (quiet) parts.promise.catch(() => {});
  return parts;
}

/** What every kind of stream gathers of its answer. */
interface Inbound {
  /** The wire id (0 for a call's attempt: it may wait in the module for a free stream). */
  id: number;
  headers: Record<string, unknown> | null;
  parts: string[];
  payload: unknown;
  /** How many payloads arrived (a `request()` takes exactly one: WSM-API-006). */
  paid: number;
}

/** A ViewSet call's attempt. */
export interface CallPending extends Inbound {
  kind: 'call';
  /** Null once abandoned (its end is then nobody's news). */
  call: Readonly<CallRecord> | null;
  attempt: number;
}

/** A `request()`. */
export interface RequestPending extends Inbound {
  kind: 'request';
  done: Deferred<unknown>;
  withHeaders: boolean;
}

/** An `open()` stream, or a pushed one. */
export interface StreamPending extends Inbound {
  kind: 'stream';
  stream: StreamCore;
}

/** What is JavaScript about one stream of a peer, by the module's tag; its kind is `kind`. */
export type Pending = CallPending | RequestPending | StreamPending;

/** What a stream asks of its peer (`PeerCore`). */
export interface StreamOwner {
  /** Sends on stream `tag`; throws what the module refused (the stream's own error once it failed). */
  sendOn(stream: StreamCore, tag: number, payload: unknown, end: boolean): void;
  /** Cancels stream `tag` with `reason`. */
  cancelStream(tag: number, reason?: string): void;
}

/** A stream from `MuxwsPeer.open()`, or one the server opened (a push), as the public `MuxwsStream` drives it. */
export class StreamCore {
  /** The stream id on its socket. */
  readonly id: number;
  /** The open's headers: as the server sent them for a stream it opened (a push); as this side sent them otherwise. */
  readonly headers: Record<string, unknown>;
  readonly #peer: StreamOwner;
  readonly #tag: number;
  readonly #headers = deferred<Record<string, unknown>>();
  readonly #result = deferred<unknown>();
  readonly #closed = deferred<void>();
  /** The error the stream failed with, once it did. */
  failure: unknown = undefined;
  #settled = false;

  /** @internal */
  constructor(peer: StreamOwner, tag: number, id: number, headers: Record<string, unknown>) {
    this.#peer = peer;
    this.#tag = tag;
    this.id = id;
    this.headers = headers;
  }

  /** The answering side's first-frame headers, or `{}` if the stream ended without any; never rejects. */
  replyHeaders(): Promise<Record<string, unknown>> {
    return this.#headers.promise;
  }

  /** The first payload, or the error the stream failed with. */
  result(): Promise<unknown> {
    return this.#result.promise;
  }

  /** Settles once the stream is over, however it ended; never rejects. */
  closed(): Promise<void> {
    return this.#closed.promise;
  }

  /** Sends `payload` (none when undefined), ending this side when `end`. */
  send(payload: unknown, end: boolean): void {
    this.#peer.sendOn(this, this.#tag, payload, end);
  }

  /** `reset(CANCELLED)` with `reason`, closed at once; nothing once over. */
  cancel(reason?: string): void {
    this.#peer.cancelStream(this.#tag, reason);
  }

  /** @internal */
  headersArrived(headers: Record<string, unknown>): void {
    this.#headers.resolve(headers);
  }

  /** @internal */
  payloadArrived(value: unknown): void {
    if (!this.#settled) {
      this.#settled = true;
      this.#result.resolve(value);
    }
  }

  /** @internal The stream is over: `error` when it failed. */
  over(error: unknown): void {
    if (!this.#settled) {
      this.#settled = true;
      this.#result.reject(error ?? makeError(ErrorClass.ProtocolError, 'the stream closed without a payload'));
    }
    if (error !== null) this.failure = error;
    this.#headers.resolve({});
    this.#closed.resolve();
  }
}
