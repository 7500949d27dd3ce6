/**
 * Error classes of the package. Every error a call rejects with is an instance of one of them,
 * `instanceof`-checkable, with `name` equal to its class name, and carries the call's `key` and the
 * number of `attempts` it made.
 */

import { apiBody } from './caller.js';

/** Properties the runtime sets on the errors a call rejects with. */
export interface ErrorProps {
  key?: string;
  attempts?: number;
  cause?: unknown;
  [name: string]: unknown;
}

function assign(target: object, props: ErrorProps | undefined): void {
  if (!props) return;
  for (const [name, value] of Object.entries(props)) {
    if (name !== 'cause' && value !== undefined) (target as Record<string, unknown>)[name] = value;
  }
}

/** Base of the errors a ViewSet call rejects with. */
export class ViewSetError extends Error {
  override name = 'ViewSetError';
  /** The call's Idempotency-Key. */
  declare key?: string;
  /** How many attempts the call made. */
  declare attempts?: number;
  constructor(message: string, props?: ErrorProps) {
    super(message, props && 'cause' in props ? { cause: props.cause } : undefined);
    assign(this, props);
  }
}

/** One problem with a field of the request, as fastapi-viewsets reports it. */
export interface FieldError {
  /** `pydantic.<type>` (e.g. `pydantic.missing`) or `fastapi-viewsets.<code>`. */
  code: string;
  /** The values the message was made from (pydantic's `ctx`). */
  params: Record<string, unknown>;
  /** The English message. */
  detail: string;
}

/** The body fastapi-viewsets gives an error answer. */
export interface ApiErrorBody {
  /** The English message. */
  detail: string;
  /** What went wrong, e.g. `fastapi-viewsets.not_found` (0.6's backends: `not_found`). */
  detail_code?: string;
  /** The values of the message, e.g. `{ pk: 99 }`. */
  detail_params?: Record<string, unknown>;
  /** Per field (`''` for the body as a whole, `a.0` for an item), what is wrong with it. */
  field_errors?: Record<string, FieldError[]>;
}

/** What an answer with an error status holds, as 0.6 code (and axios' errors) read it. */
export interface ErrorResponse {
  /** The HTTP status (`:status` over muxws). */
  status: number;
  /** The parsed body: an `ApiErrorBody` when the answer was JSON, its text otherwise. */
  data: unknown;
  /** The answer's headers: lower-case names, string values, no muxws pseudo-headers. */
  headers: Record<string, string>;
}

/**
 * An answer with an error status, as 0.6 raised it over muxws: `response.status`, `.data`,
 * `.headers`. Every `HttpError` is one (over REST and muxws), so 0.6 checks keep matching.
 */
export class ViewSetRequestError extends ViewSetError {
  override name = 'ViewSetRequestError';
  /** The answer. */
  readonly response: ErrorResponse;
  /** 0.6's constructor; `message` and `props` (key, attempts) are what the SDK adds. */
  constructor(status: number, data: unknown, headers: Record<string, string> = {}, message?: string, props?: ErrorProps) {
    super(message ?? `Request failed with status code ${status}`, props);
    this.response = { status, data, headers };
  }
}

/** The application answered with a status of 400 or more (REST or muxws). */
export class HttpError extends ViewSetRequestError {
  override name = 'HttpError';
  /** The HTTP status (`:status` over muxws): `response.status`. */
  get status(): number {
    return this.response.status;
  }
  /** The parsed body: an `ApiErrorBody` when the answer was JSON, its text otherwise (`response.data`). */
  get body(): unknown {
    return this.response.data;
  }
  /** The answer's headers (`response.headers`). */
  get headers(): Record<string, string> {
    return this.response.headers;
  }
  /** `body.detail` when the body is an `ApiErrorBody`. */
  get detail(): unknown {
    return this.apiBody?.detail;
  }
  /** `body.detail_code`, e.g. `fastapi-viewsets.not_found`. */
  get detailCode(): string | undefined {
    return this.apiBody?.detail_code;
  }
  /** `body.detail_params`. */
  get detailParams(): Record<string, unknown> | undefined {
    return this.apiBody?.detail_params;
  }
  /** `body.field_errors`: per field, a list of `{ code, params, detail }`. */
  get fieldErrors(): Record<string, FieldError[]> | undefined {
    return this.apiBody?.field_errors;
  }
  private get apiBody(): ApiErrorBody | undefined {
    return apiBody<ApiErrorBody>(this.body);
  }
}

/**
 * The application answered with a status below 400 and a JSON content type, but a body that does
 * not parse as JSON. Not repeated: the application did answer.
 */
export class InvalidResponseError extends ViewSetError {
  override name = 'InvalidResponseError';
  /** The HTTP status. */
  declare status: number;
  /** The body as received. */
  declare text: string;
  /** The answer's headers (lower-case names). */
  declare headers: Record<string, string>;
}

/** An attempt ended without an answer (connection refused or cut, CORS refusal) and no repeat followed. */
export class NetworkError extends ViewSetError {
  override name = 'NetworkError';
}

/** An attempt outlived `attemptTimeoutMs` and no repeat followed. */
export class AttemptTimeoutError extends ViewSetError {
  override name = 'AttemptTimeoutError';
}

/** The caller cancelled the call through `RequestOptions.signal`. */
export class CallCancelled extends ViewSetError {
  override name = 'CallCancelled';
}

/** Base of the muxws errors (names as in the muxws specification). */
export class MuxwsError extends Error {
  override name = 'MuxwsError';
  /** The Idempotency-Key of the ViewSet call that rejected with this error, if any. */
  declare key?: string;
  /** How many attempts that call made. */
  declare attempts?: number;
  constructor(message: string, props?: ErrorProps) {
    super(message, props && 'cause' in props ? { cause: props.cause } : undefined);
    assign(this, props);
  }
}

/** The peer broke the protocol (or this side was asked to). */
export class ProtocolError extends MuxwsError {
  override name = 'ProtocolError';
}

/** The peer's connection closed (peer level, never per stream). */
export class ConnectionClosed extends MuxwsError {
  override name = 'ConnectionClosed';
  declare code?: number;
  declare reason?: string;
  declare wasClean?: boolean;
}

/** `open()` after a `goaway`: the connection drains and takes no new stream. */
export class ConnectionGoingAway extends MuxwsError {
  override name = 'ConnectionGoingAway';
}

/** A stream's result was consumed twice. */
export class StreamAlreadyConsumed extends MuxwsError {
  override name = 'StreamAlreadyConsumed';
}

/** A send on a stream that closed normally. */
export class StreamClosed extends MuxwsError {
  override name = 'StreamClosed';
}

/** A codec problem. */
export class CodecError extends MuxwsError {
  override name = 'CodecError';
  declare configured?: string;
  declare available?: string[];
}

/** The codec asked for is not built in. */
export class CodecNotRegistered extends CodecError {
  override name = 'CodecNotRegistered';
}

/** The server accepted the WebSocket but selected another subprotocol than `muxws.v1.json`. */
export class CodecMismatch extends CodecError {
  override name = 'CodecMismatch';
}

/**
 * The WebSocket never opened: the server refused the upgrade (an HTTP status instead of 101) or
 * could not be reached — a browser cannot tell these apart. `message` carries what the platform said.
 * It extends `CodecMismatch` because the muxws specification names a refused handshake so (WSM-CDC-024);
 * `name` tells the two apart.
 */
export class ConnectionRefused extends CodecMismatch {
  override name = 'ConnectionRefused';
  declare code?: number;
}

/** A URL the transport cannot dial. */
export class TransportUrlError extends MuxwsError {
  override name = 'TransportUrlError';
}

/** A stream was reset; `code` is the reset code as received. */
export class StreamReset extends MuxwsError {
  override name = 'StreamReset';
  declare code?: number;
  declare reason?: string;
  declare streamId?: number;
}

/** The remote handler failed (reset code 2); `payload` is its structured error. */
export class RemoteError extends StreamReset {
  override name = 'RemoteError';
  declare payload?: unknown;
}

/** The stream's deadline passed; `reset(TIMEOUT)` was sent (code 6). */
export class StreamTimeout extends StreamReset {
  override name = 'StreamTimeout';
}

/** The remote refused the stream (code 4): it was not processed. */
export class StreamRefused extends StreamReset {
  override name = 'StreamRefused';
}

/** The socket died under the stream, or `open()` was called between sockets. */
export class ConnectionLost extends StreamReset {
  override name = 'ConnectionLost';
}
