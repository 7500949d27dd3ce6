// A fake globalThis.WebSocket and a tiny scripted muxws server on it, for the facade's unit tests:
// no socket, no network. Frames are the muxws v1 JSON text frames (`muxws.v1.json`).
//
//   const server = installMuxwsServer({ answer: (open, socket) => ({ status: 200, payload: [] }) });
//   server.sockets            // every FakeWebSocket the client made, in order
//   server.opens              // every `open` frame the server received: { frame, socket }
//   server.uninstall();
//
// A socket the client makes is accepted (subprotocol `muxws.v1.json`) in a microtask, unless
// `accept` says otherwise: `accept(socket)` returns true (accept), false (leave it connecting: the
// test calls socket.accept() or socket.refuse() itself) or a subprotocol to select.
// `answer(open, socket)` decides each stream the client opens:
//   { status, payload, headers }   one `data` frame with `:status`, the payload and end: true
//   'drop'                         no answer at all (the stream stays open)
//   { reset: code, reason }        `reset` of the stream (4 REFUSED, 6 TIMEOUT, 2 APPLICATION_ERROR…)
//   'close'                        the socket is lost (close 1006, not clean)
//   { goaway: code }               `goaway` with last_stream 0 (this stream is not served), then
//                                  the server closes the socket cleanly (1000)
// Pings are answered with pongs.

export const SUBPROTOCOL = 'muxws.v1.json';

function closeEvent(code, reason, wasClean) {
  return Object.assign(new Event('close'), { code, reason, wasClean });
}

/** A fake WebSocket: the client side the package drives, with test-side controls. */
export class FakeWebSocket extends EventTarget {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;
  /** Called with each new socket (the server installs itself here). */
  static onCreate = null;

  constructor(url, protocols = []) {
    super();
    this.url = String(url);
    this.offered = typeof protocols === 'string' ? [protocols] : [...protocols];
    this.readyState = FakeWebSocket.CONNECTING;
    this.protocol = '';
    this.binaryType = 'blob';
    this.extensions = '';
    this.bufferedAmount = 0;
    this.onopen = this.onmessage = this.onerror = this.onclose = null;
    /** The frames the client sent, parsed. */
    this.sent = [];
    /** The client's close(code, reason), if it called it. */
    this.closedByClient = null;
    /** Called with each frame the client sends (the server's hook). */
    this.onClientFrame = null;
    FakeWebSocket.onCreate?.(this);
  }

  #fire(event) {
    this[`on${event.type}`]?.(event);
    this.dispatchEvent(event);
  }

  send(text) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new DOMException('WebSocket is not open', 'InvalidStateError');
    const frame = JSON.parse(text);
    this.sent.push(frame);
    // The server reads it later, never inside the client's own send().
    queueMicrotask(() => this.onClientFrame?.(frame));
  }

  close(code = 1000, reason = '') {
    if (this.readyState >= FakeWebSocket.CLOSING) return;
    this.closedByClient = { code, reason };
    this.readyState = FakeWebSocket.CLOSING;
    // The closing handshake completes in a later microtask, cleanly, with the client's code.
    queueMicrotask(() => this.#closed(code, reason, true));
  }

  #closed(code, reason, wasClean) {
    if (this.readyState === FakeWebSocket.CLOSED) return;
    this.readyState = FakeWebSocket.CLOSED;
    this.#fire(closeEvent(code, reason, wasClean));
  }

  // ------------------------------------------------------------------ the test's (server's) side

  /** The server accepts the upgrade, selecting `protocol`. */
  accept(protocol = SUBPROTOCOL) {
    if (this.readyState !== FakeWebSocket.CONNECTING) return;
    this.readyState = FakeWebSocket.OPEN;
    this.protocol = protocol;
    this.#fire(new Event('open'));
  }

  /** The upgrade fails (refused or unreachable): `error`, then close 1006. */
  refuse() {
    if (this.readyState !== FakeWebSocket.CONNECTING) return;
    this.#fire(new Event('error'));
    this.#closed(1006, '', false);
  }

  /** The server sends one frame (an object, sent as JSON text). */
  push(frame) {
    if (this.readyState !== FakeWebSocket.OPEN) return;
    this.#fire(new MessageEvent('message', { data: typeof frame === 'string' ? frame : JSON.stringify(frame) }));
  }

  /** The connection is lost (or closed by the server, `wasClean`). */
  drop(code = 1006, reason = '', wasClean = false) {
    this.#closed(code, reason, wasClean);
  }
}

/** Installs FakeWebSocket as globalThis.WebSocket with a scripted muxws server behind it. */
export function installMuxwsServer({ accept = () => true, answer = () => ({ status: 200, payload: null }) } = {}) {
  const original = globalThis.WebSocket;
  const server = {
    accept,
    answer,
    sockets: [],
    opens: [],
    resets: [],
    /** The open sockets. */
    live: () => server.sockets.filter((socket) => socket.readyState === FakeWebSocket.OPEN),
    /** Sends an answer for stream `stream` on `socket` (what `answer` may return, see above). */
    reply(socket, stream, decision) {
      if (decision === 'drop' || decision == null) return;
      if (decision === 'close') return socket.drop(1006, '', false);
      if (typeof decision.reset === 'number') {
        return socket.push({ type: 'reset', stream, code: decision.reset, ...(decision.reason ? { reason: decision.reason } : {}) });
      }
      if (typeof decision.goaway === 'number') {
        socket.push({ type: 'goaway', code: decision.goaway, last_stream: 0, reason: 'going away' });
        return queueMicrotask(() => socket.drop(1000, 'going away', true));
      }
      const headers = { ':status': decision.status ?? 200, ...(decision.headers ?? {}) };
      socket.push({ type: 'data', stream, headers, payload: decision.payload ?? null, end: true });
    },
    uninstall() {
      FakeWebSocket.onCreate = null;
      globalThis.WebSocket = original;
    },
  };
  FakeWebSocket.onCreate = (socket) => {
    server.sockets.push(socket);
    socket.onClientFrame = (frame) => {
      if (frame.type === 'ping') return socket.push(frame.nonce === undefined ? { type: 'pong' } : { type: 'pong', nonce: frame.nonce });
      if (frame.type === 'reset') return server.resets.push({ frame, socket });
      if (frame.type === 'goaway') return socket.drop(1000, '', true);
      if (frame.type === 'open') {
        server.opens.push({ frame, socket });
        return server.reply(socket, frame.stream, server.answer(frame, socket));
      }
    };
    queueMicrotask(() => {
      const decision = server.accept(socket);
      if (decision === true) socket.accept();
      else if (typeof decision === 'string') socket.accept(decision);
    });
  };
  globalThis.WebSocket = FakeWebSocket;
  return server;
}
