/**
 * The platform `WebSocket` as a muxws peer drives it: one text socket whose four events come out
 * as calls of the peer's handler, ended exactly once (whether the platform says `error`, `close`,
 * or a `send` fails), and whose `close` never throws.
 */
import { CloseCode } from '../abi/muxws.js';
import { services } from './module.js';

/** What a socket tells its peer. */
export interface SocketEvents {
  /** The socket opened with the subprotocol the server selected. */
  opened(protocol: unknown): void;
  /** A message arrived (a string, or binary data). */
  message(data: unknown): void;
  /** The socket is gone: its close code, reason and whether it closed cleanly; the last event. */
  ended(code: number, reason: string, clean: boolean): void;
}

/** One platform `WebSocket` of a peer. */
export class PlatformSocket {
  readonly #ws: WebSocket;
  readonly #events: SocketEvents;

  /** Dials `url` offering `protocols`; throws what the platform threw when it refuses to. */
  constructor(url: string, protocols: string[], events: SocketEvents) {
    const ws = new (globalThis as { WebSocket: typeof WebSocket }).WebSocket(url, protocols);
    ws.binaryType = 'arraybuffer';
    this.#ws = ws;
    this.#events = events;
    ws.onopen = () => events.opened(ws.protocol);
    ws.onmessage = (event) => events.message(event.data);
    // Node 20 reports a refused handshake with `error` alone; browsers send `error`, then `close`.
    ws.onerror = (event) => this.#end(CloseCode.Abnormal, services.get(event, 'message'), false);
    ws.onclose = (event) => this.#end(event.code, event.reason, event.wasClean);
  }

  /** Reports `ended`, the first time only (the handlers are gone after it). */
  #end(code: unknown, reason: unknown, clean: boolean): void {
    if (this.#ws.onclose === null) return;
    this.detach();
    this.#events.ended(typeof code === 'number' ? code : CloseCode.Abnormal, typeof reason === 'string' ? reason : '', clean);
  }

  /** Stops reporting: nothing the platform says of this socket reaches the peer any more. */
  detach(): void {
    const ws = this.#ws;
    ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
  }

  /** Sends `text`; a socket that cannot send is lost (closed, and ended with 1006, `CloseCode.Abnormal`). */
  send(text: string): void {
    try {
      this.#ws.send(text);
    } catch (error) {
      try {
        this.#ws.close();
      } catch {
        // already gone
      }
      this.#end(CloseCode.Abnormal, `the socket could not send: ${services.describe(error)}`, false);
    }
  }

  /** Closes with `code` and `reason`, or without them when the platform refuses those. */
  close(code: number, reason: string): void {
    try {
      this.#ws.close(code, reason);
    } catch {
      try {
        this.#ws.close();
      } catch {
        // already gone
      }
    }
  }
}
