// Generated from crates/muxws-wasm/src/abi.rs by `cargo test -p muxws-wasm abi`: do not edit.
// Change the Rust table, then run that command with ABI_WRITE=1 to write this file again.

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
  BoundaryVersion = 4,
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
  }
}
