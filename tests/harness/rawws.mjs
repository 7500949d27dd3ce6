// A minimal WebSocket client (RFC 6455) on node:net, for harness self-tests that need to see the
// wire: text frames, close frames and whether a socket ended without one. Node 20, stdlib only.
//
//   const ws = await RawWebSocket.connect('ws://127.0.0.1:8110/ws', { protocol: 'muxws.v1.json' });
//   ws.sendJson({ type: 'open', stream: 1, headers: { ':method': 'GET', ':path': '/items' }, end: true });
//   const reply = await ws.nextJson((frame) => frame.stream === 1);
//   const { code, clean } = await ws.closed;   // code 1006 and clean false: no close frame came

import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import net from 'node:net';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export class RawWebSocket extends EventEmitter {
  static connect(url, { protocol, origin, headers = {}, timeoutMs = 5000 } = {}) {
    const target = new URL(url);
    if (target.protocol !== 'ws:') throw new TypeError(`only ws: URLs, not ${target.protocol}`);
    const key = crypto.randomBytes(16).toString('base64');
    const lines = [
      `GET ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${target.host}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${key}`,
      'Sec-WebSocket-Version: 13',
    ];
    if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
    if (origin) lines.push(`Origin: ${origin}`);
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);

    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(target.port || 80), target.hostname);
      let buffer = Buffer.alloc(0);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`WebSocket handshake to ${url} timed out`));
      }, timeoutMs);
      const fail = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      socket.on('error', fail);
      socket.on('close', () => fail(new Error(`connection to ${url} closed during the handshake`)));
      socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
      const onData = (chunk) => {
        buffer = Buffer.concat([buffer, chunk]);
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        socket.removeAllListeners('error');
        socket.removeAllListeners('close');
        clearTimeout(timer);
        const head = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const status = Number(head[0].split(' ')[1]);
        const responseHeaders = Object.fromEntries(
          head.slice(1).map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        if (status !== 101) {
          socket.destroy();
          const error = new Error(`WebSocket handshake answered ${status}`);
          error.status = status;
          reject(error);
          return;
        }
        const expected = crypto.createHash('sha1').update(key + GUID).digest('base64');
        if (responseHeaders['sec-websocket-accept'] !== expected) {
          socket.destroy();
          reject(new Error('bad Sec-WebSocket-Accept'));
          return;
        }
        resolve(new RawWebSocket(socket, responseHeaders, buffer.subarray(end + 4)));
      };
      socket.on('data', onData);
    });
  }

  constructor(socket, headers, rest) {
    super();
    this.socket = socket;
    this.headers = headers;
    this.protocol = headers['sec-websocket-protocol'] ?? null;
    this.buffer = Buffer.alloc(0);
    this.fragments = [];
    this.messages = [];
    this.waiters = [];
    this.closeFrame = null;
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        const result = this.closeFrame
          ? { code: this.closeFrame.code, reason: this.closeFrame.reason, clean: true }
          : { code: 1006, reason: '', clean: false };
        this.emit('close', result);
        for (const waiter of this.waiters.splice(0)) waiter.reject(new Error(`socket closed (${result.code})`));
        resolve(result);
      });
    });
    socket.on('error', () => {});
    socket.on('data', (chunk) => this.onData(chunk));
    if (rest.length) this.onData(rest);
  }

  onData(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.buffer.length < 2) return;
      const fin = (this.buffer[0] & 0x80) !== 0;
      const opcode = this.buffer[0] & 0x0f;
      const masked = (this.buffer[1] & 0x80) !== 0;
      let length = this.buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      const maskOffset = offset;
      if (masked) offset += 4;
      if (this.buffer.length < offset + length) return;
      let payload = Buffer.from(this.buffer.subarray(offset, offset + length));
      if (masked) {
        const mask = this.buffer.subarray(maskOffset, maskOffset + 4);
        for (let i = 0; i < payload.length; i += 1) payload[i] ^= mask[i % 4];
      }
      this.buffer = this.buffer.subarray(offset + length);
      this.onFrame(fin, opcode, payload);
    }
  }

  onFrame(fin, opcode, payload) {
    if (opcode === 0x8) {
      this.closeFrame = {
        code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005,
        reason: payload.subarray(2).toString('utf8'),
      };
      if (!this.closeSent) this.sendFrame(0x8, payload.subarray(0, 2));
      this.socket.end();
      return;
    }
    if (opcode === 0x9) {
      this.sendFrame(0xa, payload);
      return;
    }
    if (opcode === 0xa) return;
    this.fragments.push(payload);
    if (!fin) return;
    const data = Buffer.concat(this.fragments);
    this.fragments = [];
    const message = data.toString('utf8');
    this.emit('message', message);
    const index = this.waiters.findIndex((waiter) => waiter.match(message));
    if (index >= 0) this.waiters.splice(index, 1)[0].resolve(message);
    else this.messages.push(message);
  }

  sendFrame(opcode, payload) {
    const mask = crypto.randomBytes(4);
    const length = payload.length;
    let header;
    if (length < 126) {
      header = Buffer.from([0x80 | opcode, 0x80 | length]);
    } else if (length < 65536) {
      header = Buffer.alloc(4);
      header[0] = 0x80 | opcode;
      header[1] = 0x80 | 126;
      header.writeUInt16BE(length, 2);
    } else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    const body = Buffer.from(payload);
    for (let i = 0; i < body.length; i += 1) body[i] ^= mask[i % 4];
    if (!this.socket.destroyed) this.socket.write(Buffer.concat([header, mask, body]));
  }

  send(text) {
    this.sendFrame(0x1, Buffer.from(text, 'utf8'));
  }

  sendJson(value) {
    this.send(JSON.stringify(value));
  }

  /** The next text message `predicate` accepts (already received ones first). */
  next(predicate = () => true, timeoutMs = 10000) {
    const index = this.messages.findIndex(predicate);
    if (index >= 0) return Promise.resolve(this.messages.splice(index, 1)[0]);
    if (this.socket.destroyed) return Promise.reject(new Error('socket closed'));
    return new Promise((resolve, reject) => {
      const waiter = { match: predicate, resolve, reject };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      waiter.resolve = (value) => {
        clearTimeout(timer);
        resolve(value);
      };
      waiter.reject = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      this.waiters.push(waiter);
    });
  }

  /** The next JSON message `predicate` accepts, parsed. */
  async nextJson(predicate = () => true, timeoutMs) {
    const text = await this.next((message) => {
      try {
        return predicate(JSON.parse(message));
      } catch {
        return false;
      }
    }, timeoutMs);
    return JSON.parse(text);
  }

  close(code = 1000, reason = '') {
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.closeSent = true;
    this.sendFrame(0x8, payload);
    return this.closed;
  }

  destroy() {
    this.socket.destroy();
    return this.closed;
  }
}
