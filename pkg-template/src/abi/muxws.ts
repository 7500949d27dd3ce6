// Generated from crates/muxws-wasm/src/abi.rs and exports.rs by `cargo test -p muxws-wasm abi`: do not edit.
// Change the Rust table, then run that command with ABI_WRITE=1 to write this file again.

/** The muxws module's exports (`exports!` in `crates/muxws-wasm/src/exports.rs`): functions of numbers, called on the instance. */
export interface MuxwsExports {
  /** The module's memory, where its windows and records are. */
  readonly memory: WebAssembly.Memory;
  /**
   * [`BOUNDARY_VERSION`].
   *
   * `fn boundary_version() -> u32`
   */
  boundary_version(): number;
  /**
   * The input window, at least `size` bytes: its address (valid until the next call).
   *
   * `fn input(size: u32) -> u32`
   */
  input(size: number): number;
  /**
   * The address of the output record: `OUT_FIELDS` `f64`, its kinds and fields declared in
   * `abi.rs`; it does not move.
   *
   * `fn out() -> u32`
   */
  out(): number;
  /**
   * A new peer (see [`Module::peer_new`]); its handle, or 0 with the error in the record.
   *
   * `fn peer_new(ping_interval_ms: f64, ping_timeout_ms: f64, hello_timeout_ms: f64, max_frame_bytes: f64, max_payload_bytes: f64, initial_delay_ms: f64, factor: f64, max_delay_ms: f64, jitter: f64, max_attempts: f64, call_concurrency: f64, lazy: u32, seed: f64, protocols_len: i32, hello_headers_len: i32, hello_payload_len: i32) -> u32`
   *
   * Called only through `peerNew()`, which takes its arguments by name.
   */
  readonly peer_new: unknown;
  /**
   * [`Module::peer_free`].
   *
   * `fn peer_free(peer: u32)`
   */
  peer_free(peer: number): void;
  /**
   * [`Module::socket_opened`].
   *
   * `fn socket_opened(peer: u32, socket: f64, protocol_len: i32, now: f64)`
   */
  socket_opened(peer: number, socket: number, protocolLen: number, now: number): void;
  /**
   * [`Module::socket_message`].
   *
   * `fn socket_message(peer: u32, socket: f64, len: i32, complete: u32, now: f64)`
   */
  socket_message(peer: number, socket: number, len: number, complete: number, now: number): void;
  /**
   * [`Module::socket_binary`].
   *
   * `fn socket_binary(peer: u32, socket: f64, now: f64)`
   */
  socket_binary(peer: number, socket: number, now: number): void;
  /**
   * [`Module::socket_closed`].
   *
   * `fn socket_closed(peer: u32, socket: f64, code: u32, reason_len: i32, clean: u32, now: f64)`
   */
  socket_closed(peer: number, socket: number, code: number, reasonLen: number, clean: number, now: number): void;
  /**
   * [`Module::fallback`].
   *
   * `fn fallback(peer: u32, after_ms: f64, now: f64)`
   */
  fallback(peer: number, afterMs: number, now: number): void;
  /**
   * [`Module::timer`].
   *
   * `fn timer(peer: u32, now: f64)`
   */
  timer(peer: number, now: number): void;
  /**
   * [`Module::next_timeout`] (-1: none).
   *
   * `fn next_timeout(peer: u32) -> f64`
   */
  next_timeout(peer: number): number;
  /**
   * [`Module::open`]: the stream's tag, or 0 with the error in the record.
   *
   * `fn open(peer: u32, headers_len: i32, source: u32, units: u32, end: u32, call: u32, now: f64) -> u32`
   */
  open(peer: number, headersLen: number, source: number, units: number, end: number, call: number, now: number): number;
  /**
   * [`Module::send`]: 0, or the error class with the message in the record.
   *
   * `fn send(peer: u32, tag: u32, source: u32, units: u32, end: u32) -> u32`
   */
  send(peer: number, tag: number, source: number, units: number, end: number): number;
  /**
   * [`Module::cancel`].
   *
   * `fn cancel(peer: u32, tag: u32, reason_len: i32)`
   */
  cancel(peer: number, tag: number, reasonLen: number): void;
  /**
   * [`Module::expire`].
   *
   * `fn expire(peer: u32, tag: u32)`
   */
  expire(peer: number, tag: number): void;
  /**
   * [`Module::set_deadline`].
   *
   * `fn set_deadline(peer: u32, tag: u32, at: f64)`
   */
  set_deadline(peer: number, tag: number, at: number): void;
  /**
   * [`Module::checked`].
   *
   * `fn checked(peer: u32, tag: u32, valid: u32)`
   */
  checked(peer: number, tag: number, valid: number): void;
  /**
   * [`Module::close`].
   *
   * `fn close(peer: u32, code: f64, reason_len: i32, drain_ms: f64, now: f64)`
   */
  close(peer: number, code: number, reasonLen: number, drainMs: number, now: number): void;
  /**
   * [`Module::accept_pushes`]: `accept` 1 registers the push handler, 0 unregisters it.
   *
   * `fn accept_pushes(peer: u32, accept: u32)`
   */
  accept_pushes(peer: number, accept: number): void;
  /**
   * [`Module::finish`].
   *
   * `fn finish(peer: u32, tag: u32)`
   */
  finish(peer: number, tag: number): void;
  /**
   * [`Module::reconnect_now`].
   *
   * `fn reconnect_now(peer: u32, now: f64) -> u32`
   */
  reconnect_now(peer: number, now: number): number;
  /**
   * [`Module::is_open`].
   *
   * `fn is_open(peer: u32) -> u32`
   */
  is_open(peer: number): number;
  /**
   * [`Module::is_closed`].
   *
   * `fn is_closed(peer: u32) -> u32`
   */
  is_closed(peer: number): number;
  /**
   * [`Module::stream_id`].
   *
   * `fn stream_id(peer: u32, tag: u32) -> f64`
   */
  stream_id(peer: number, tag: number): number;
  /**
   * [`Module::frame_cap`].
   *
   * `fn frame_cap(peer: u32) -> u32`
   */
  frame_cap(peer: number): number;
  /**
   * [`Module::stream_count`].
   *
   * `fn stream_count(peer: u32) -> u32`
   */
  stream_count(peer: number): number;
  /**
   * [`Module::poll`]: the next record's kind, 0 when there is none.
   *
   * `fn poll(peer: u32, now: f64, sends: u32) -> u32`
   */
  poll(peer: number, now: number, sends: number): number;
}

/** The arguments of `peer_new`, by name. */
export interface PeerNewArgs {
  /** `f64`. */
  pingIntervalMs: number;
  /** `f64`. */
  pingTimeoutMs: number;
  /** `f64`. */
  helloTimeoutMs: number;
  /** `f64`. */
  maxFrameBytes: number;
  /** `f64`. */
  maxPayloadBytes: number;
  /** `f64`. */
  initialDelayMs: number;
  /** `f64`. */
  factor: number;
  /** `f64`. */
  maxDelayMs: number;
  /** `f64`. */
  jitter: number;
  /** `f64`. */
  maxAttempts: number;
  /** `f64`. */
  callConcurrency: number;
  /** `u32`. */
  lazy: number;
  /** `f64`. */
  seed: number;
  /** `i32`. */
  protocolsLen: number;
  /** `i32`. */
  helloHeadersLen: number;
  /** `i32`. */
  helloPayloadLen: number;
}

/** Calls `peer_new` of `e` with the arguments `a` names, in the order it takes them. */
export function peerNew(e: MuxwsExports, a: PeerNewArgs): number {
  return (e.peer_new as (...args: number[]) => number)(a.pingIntervalMs, a.pingTimeoutMs, a.helloTimeoutMs, a.maxFrameBytes, a.maxPayloadBytes, a.initialDelayMs, a.factor, a.maxDelayMs, a.jitter, a.maxAttempts, a.callConcurrency, a.lazy, a.seed, a.protocolsLen, a.helloHeadersLen, a.helloPayloadLen);
}

/** The muxws module's output record and the version of its exports. */
export const enum Layout {
  /** How many `f64` fields an output record has. */
  OutFields = 8,
  /** The field holding where the record's text starts in the module's memory. */
  TextAt = 6,
  /** The field holding the byte length of the record's text. */
  TextLength = 7,
  /** Where an export that refused what it was given writes the error's `ErrorClass`; the text is the message. */
  FailureClass = 1,
  /** The version of the exports and records (`boundary_version()`). */
  BoundaryVersion = 5,
}

/** The error class of a failed stream or connect, by the class of `errors.ts` it makes. */
export const enum ErrorClass {
  ProtocolError = 1,
  ConnectionClosed = 2,
  ConnectionGoingAway = 3,
  StreamClosed = 4,
  CodecMismatch = 5,
  ConnectionRefused = 6,
  StreamReset = 7,
  RemoteError = 8,
  StreamTimeout = 9,
  StreamRefused = 10,
  ConnectionLost = 11,
  /** A bad option or argument: a `TypeError`. */
  Config = 12,
}

/**
 * The WebSocket close codes the driver and the module hand each other: a socket's end
 * (`socket_closed`), the `code` of a connection error.
 */
export const enum CloseCode {
  /** An orderly close (`muxws_proto::CLOSE_NORMAL`). */
  Normal = 1000,
  /**
   * A socket lost without a close frame, or one the platform would not make
   * (`muxws_proto::CLOSE_ABNORMAL`).
   */
  Abnormal = 1006,
}

/**
 * The reset codes of `SPEC.md` §2.4 (`muxws_proto::code`): the `code` a `StreamReset` (and
 * each of its subclasses) carries; the retired 5 is left out (never sent, read as unknown).
 */
export const enum ResetCode {
  /** Graceful: done, no longer interested. */
  NoError = 0,
  /** The initiator asked the operation to stop. */
  Cancelled = 1,
  /** The remote handler raised. */
  ApplicationError = 2,
  /** The peer violated the specification. */
  ProtocolError = 3,
  /** Not accepted and definitely not processed. */
  Refused = 4,
  /** A local deadline expired. */
  Timeout = 6,
  /** Over the frame cap or `max_payload_bytes`. */
  PayloadTooLarge = 7,
  /** A bug in the peer implementation. */
  InternalError = 8,
  /**
   * Made locally when the socket died under the stream (or before it could open); never on
   * the wire.
   */
  ConnectionClosed = 9,
}

/** The kinds of MuxwsRecord records (field 0). */
export const enum MuxwsRecordKind {
  /** Create `new WebSocket(url, protocols)`. */
  Dial = 1,
  /** `ws.send(text)`. */
  Send = 2,
  /** `ws.close(code, reason)`. */
  Close = 3,
  /** The first connection is established. */
  Established = 4,
  /**
   * The first connect failed for good, laid out as a failed stream is, without a stream: a failed
   * hello's stream error, unwrapped (WSM-RCN-026); a socket that never opened, the close code
   * the platform reported.
   */
  ConnectFailed = 5,
  /** A connection was re-established. */
  Reconnected = 6,
  /** A socket was lost. */
  Closed = 7,
  /** The server sent goaway. */
  GoAway = 8,
  /** A stream got its answer's first-frame headers. */
  ReplyHeaders = 9,
  /** A stream got a whole payload. */
  Payload = 10,
  /**
   * A stream got one fragment of a payload; after the last one the driver reports whether the
   * joined text parsed (`checked`).
   */
  Fragment = 11,
  /** The remote ended its side of a stream. */
  End = 12,
  /** A stream closed normally (both sides ended). */
  StreamClosed = 13,
  /** A stream failed. */
  StreamFailed = 14,
  /** The driver may forget a payload source: the module will not read it again. */
  Release = 15,
  /** A queued call stream could not be opened when its turn came. */
  OpenFailed = 16,
  /**
   * The server opened a stream (a push, WSM-STM-031), its opening payload whole (a fragmented
   * open is reassembled first). The stream is live under its tag until the driver calls
   * `finish` (the handler returned: the implicit end, WSM-STM-035) or `cancel`; its later
   * records are those of any stream.
   */
  Push = 17,
  /**
   * The peer's REST fallback started or ended (`viewsets_core::Fallback`): its calls' next
   * attempts go over REST while `on`.
   */
  Fallback = 18,
  /**
   * A heartbeat `ping` was answered by its `pong`: the round trip, from the ping's `now` to the
   * pong's (`Connection::poll_round_trip`, WSM-CON-012).
   */
  RoundTrip = 19,
}

/** What the muxws module has to say (`poll`), one record at a time. */
export interface MuxwsRecordHandler {
  /**
   * Create `new WebSocket(url, protocols)`.
   * @param socket The socket's id.
   * @param protocols The subprotocols to offer, `,`-separated.
   */
  dial(socket: number, protocols: string): void;
  /**
   * `ws.send(text)`.
   * @param socket The socket's id.
   * @param bytes The frame's byte length.
   * @param text The frame.
   */
  send(socket: number, bytes: number, text: string): void;
  /**
   * `ws.close(code, reason)`.
   * @param socket The socket's id.
   * @param code The close code.
   * @param reason The close reason.
   */
  close(socket: number, code: number, reason: string): void;
  /** The first connection is established. */
  established(): void;
  /**
   * The first connect failed for good, laid out as a failed stream is, without a stream: a failed
   * hello's stream error, unwrapped (WSM-RCN-026); a socket that never opened, the close code
   * the platform reported.
   * @param cls The error's class.
   * @param code The reset code of the hello's stream, or the socket's close code.
   * @param message The error's message.
   * @param reason Where the reason starts in the text (-1: none).
   * @param payload Where the reset's payload JSON starts in the text (-1: none).
   */
  connectFailed(cls: ErrorClass, code: number, message: string, reason: string, payload: string): void;
  /**
   * A connection was re-established.
   * @param count The 1-based count of re-establishments.
   */
  reconnected(count: number): void;
  /**
   * A socket was lost.
   * @param code The close code.
   * @param wasClean The close was clean.
   * @param willRetry The peer will dial again.
   * @param reason The close reason.
   */
  closed(code: number, wasClean: boolean, willRetry: boolean, reason: string): void;
  /**
   * The server sent goaway.
   * @param code The goaway's code.
   * @param lastStream Its `last_stream`.
   * @param reason Its reason.
   */
  goAway(code: number, lastStream: number, reason: string): void;
  /**
   * A stream got its answer's first-frame headers.
   * @param tag The stream's tag.
   * @param headers The headers as JSON.
   */
  replyHeaders(tag: number, headers: string): void;
  /**
   * A stream got a whole payload.
   * @param tag The stream's tag.
   * @param json The payload's JSON.
   */
  payload(tag: number, json: string): void;
  /**
   * A stream got one fragment of a payload; after the last one the driver reports whether the
   * joined text parsed (`checked`).
   * @param tag The stream's tag.
   * @param more More fragments follow.
   * @param text The fragment.
   */
  fragment(tag: number, more: boolean, text: string): void;
  /**
   * The remote ended its side of a stream.
   * @param tag The stream's tag.
   */
  end(tag: number): void;
  /**
   * A stream closed normally (both sides ended).
   * @param tag The stream's tag.
   */
  streamClosed(tag: number): void;
  /**
   * A stream failed.
   * @param tag The stream's tag.
   * @param cls The error's class.
   * @param code The reset code.
   * @param message The error's message.
   * @param reason Where the reset's reason starts in the text (-1: none).
   * @param payload Where the reset's payload JSON starts in the text (-1: none).
   */
  streamFailed(tag: number, cls: ErrorClass, code: number, message: string, reason: string, payload: string): void;
  /**
   * The driver may forget a payload source: the module will not read it again.
   * @param source The source's id.
   */
  release(source: number): void;
  /**
   * A queued call stream could not be opened when its turn came.
   * @param tag The stream's tag.
   * @param cls The error's class.
   * @param message The error's message.
   */
  openFailed(tag: number, cls: ErrorClass, message: string): void;
  /**
   * The server opened a stream (a push, WSM-STM-031), its opening payload whole (a fragmented
   * open is reassembled first). The stream is live under its tag until the driver calls
   * `finish` (the handler returned: the implicit end, WSM-STM-035) or `cancel`; its later
   * records are those of any stream.
   * @param tag The tag the module gives the pushed stream.
   * @param id The stream's wire id (even: the server's).
   * @param end The open also ended the server's side (a one-shot push, `notify`).
   * @param headers The open's headers as JSON (`{}` when it had none).
   * @param payload Where the opening payload's JSON starts in the text (-1: the open had no payload).
   */
  push(tag: number, id: number, end: boolean, headers: string, payload: string): void;
  /**
   * The peer's REST fallback started or ended (`viewsets_core::Fallback`): its calls' next
   * attempts go over REST while `on`.
   * @param on Calls go over REST now.
   */
  fallback(on: boolean): void;
  /**
   * A heartbeat `ping` was answered by its `pong`: the round trip, from the ping's `now` to the
   * pong's (`Connection::poll_round_trip`, WSM-CON-012).
   * @param ms The round trip in ms of the driver's clock.
   */
  roundTrip(ms: number): void;
}

/** Calls the method of `h` for the MuxwsRecord record at `at` of `r` (its kind at `r[at]`); nothing for a kind the table does not have. */
export function handleMuxwsRecord(r: ArrayLike<number>, at: number, h: MuxwsRecordHandler, text: (from: number, to: number) => string): void {
  switch (r[at]) {
    case 1:
      return h.dial(r[at + 1], text(0, r[at + 7]));
    case 2:
      return h.send(r[at + 1], r[at + 7], text(0, r[at + 7]));
    case 3:
      return h.close(r[at + 1], r[at + 2], text(0, r[at + 7]));
    case 4:
      return h.established();
    case 5: {
      const end = r[at + 7];
      const s4 = r[at + 5];
      const b4 = s4 < 0 ? end : s4;
      const s3 = r[at + 4];
      const b3 = s3 < 0 ? b4 : s3;
      return h.connectFailed(r[at + 2], r[at + 3], text(0, b3), s3 < 0 ? '' : text(s3, b4), s4 < 0 ? '' : text(s4, end));
    }
    case 6:
      return h.reconnected(r[at + 1]);
    case 7:
      return h.closed(r[at + 1], r[at + 2] === 1, r[at + 3] === 1, text(0, r[at + 7]));
    case 8:
      return h.goAway(r[at + 1], r[at + 2], text(0, r[at + 7]));
    case 9:
      return h.replyHeaders(r[at + 1], text(0, r[at + 7]));
    case 10:
      return h.payload(r[at + 1], text(0, r[at + 7]));
    case 11:
      return h.fragment(r[at + 1], r[at + 2] === 1, text(0, r[at + 7]));
    case 12:
      return h.end(r[at + 1]);
    case 13:
      return h.streamClosed(r[at + 1]);
    case 14: {
      const end = r[at + 7];
      const s5 = r[at + 5];
      const b5 = s5 < 0 ? end : s5;
      const s4 = r[at + 4];
      const b4 = s4 < 0 ? b5 : s4;
      return h.streamFailed(r[at + 1], r[at + 2], r[at + 3], text(0, b4), s4 < 0 ? '' : text(s4, b5), s5 < 0 ? '' : text(s5, end));
    }
    case 15:
      return h.release(r[at + 1]);
    case 16:
      return h.openFailed(r[at + 1], r[at + 2], text(0, r[at + 7]));
    case 17: {
      const end = r[at + 7];
      const s4 = r[at + 4];
      const b4 = s4 < 0 ? end : s4;
      return h.push(r[at + 1], r[at + 2], r[at + 3] === 1, text(0, b4), s4 < 0 ? '' : text(s4, end));
    }
    case 18:
      return h.fallback(r[at + 1] === 1);
    case 19:
      return h.roundTrip(r[at + 1]);
  }
}
