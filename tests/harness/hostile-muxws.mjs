// A hostile muxws acceptor for robustness tests: a minimal WebSocket server (node:http upgrade,
// RFC 6455 text frames, no dependencies) that accepts `muxws.v1.json` and, on the FIRST connection
// of each mode, answers the client's first stream with malformed input. Every later connection
// behaves: each `open` is answered with one `data` frame `{:status: 200}` and `{ok, connection}`.
//
//   const hostile = await startHostileMuxws();   // { base, connections(path), stop() }
//   connectMuxws(`${hostile.base}undecodable/any-tag`)
//
// The first path segment is the mode; connections are counted per whole path, so each tag gets its
// own misbehaving first connection. Modes (the misbehaviour on the first connection):
//   undecodable            a text message that is not JSON                     (connection-level)
//   missing-type           an object without "type"                            (connection-level)
//   wrong-parity           an "open" with an odd (dialer-parity) id             (connection-level)
//   above-high-water-mark  "data" for a stream id the client never opened       (connection-level)
//   oversize               one message of 70 000 bytes on the stream             (stream-level, reset 7)
//   fragment-interrupted   a fragment with more:true, then a whole data frame   (stream-level, reset 3)
//   headers-on-later-frame a headers-only data, then data with headers again    (stream-level, reset 3)
//   status-as-string       answers {":status": "404"} (a numeric string, as 0.6 read it), {detail}
//   status-not-a-status    answers {":status": "teapot"}
//   refuse-with-payload    resets the stream APPLICATION_ERROR (2) with a reason and a payload
//   unprintable-header     answers 404 with a header value whose conversion throws ({"toString": 1})
//   two-payloads           answers with two payloads, then ends
//   no-payload             ends the stream with headers and no payload
//   silent                 never answers the stream at all                      (the caller's timeout)
//   deaf                   answers nothing at all, pings included               (the heartbeat)
//   select-other           accepts the upgrade choosing the client's LAST offered subprotocol
//                          instead of muxws.v1.json                            (CodecMismatch)
import crypto from 'node:crypto';
import http from 'node:http';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function encodeText(text) {
  const payload = Buffer.from(text, 'utf8');
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x81, length]) : length < 65536
    ? Buffer.from([0x81, 126, length >> 8, length & 255])
    : Buffer.concat([Buffer.from([0x81, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
  return Buffer.concat([head, payload]);
}

/** Parses complete client frames out of `buffer`; returns [frames, rest]. */
function decodeFrames(buffer) {
  const frames = [];
  let offset = 0;
  while (buffer.length - offset >= 2) {
    const opcode = buffer[offset] & 0x0f;
    let length = buffer[offset + 1] & 0x7f;
    let cursor = offset + 2;
    if (length === 126) {
      if (buffer.length < cursor + 2) break;
      length = buffer.readUInt16BE(cursor);
      cursor += 2;
    } else if (length === 127) {
      if (buffer.length < cursor + 8) break;
      length = Number(buffer.readBigUInt64BE(cursor));
      cursor += 8;
    }
    const masked = (buffer[offset + 1] & 0x80) !== 0;
    const mask = masked ? buffer.subarray(cursor, cursor + 4) : null;
    if (masked) cursor += 4;
    if (buffer.length < cursor + length) break;
    const payload = Buffer.from(buffer.subarray(cursor, cursor + length));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
    frames.push({ opcode, payload });
    offset = cursor + length;
  }
  return [frames, buffer.subarray(offset)];
}

function misbehave(mode, stream, send) {
  switch (mode) {
    case 'undecodable':
      return send('{this is not json');
    case 'missing-type':
      return send(JSON.stringify({ stream, end: true, payload: 1 }));
    case 'wrong-parity':
      return send(JSON.stringify({ type: 'open', stream: 1001, end: true, payload: null }));
    case 'above-high-water-mark':
      return send(JSON.stringify({ type: 'data', stream: stream + 200, end: true, headers: { ':status': 200 }, payload: 1 }));
    case 'oversize':
      return send(JSON.stringify({ type: 'data', stream, end: true, headers: { ':status': 200 }, payload: 'x'.repeat(70000) }));
    case 'fragment-interrupted':
      send(JSON.stringify({ type: 'data', stream, headers: { ':status': 200 }, fragment: '{"a":', more: true }));
      return send(JSON.stringify({ type: 'data', stream, end: true, payload: 2 }));
    case 'headers-on-later-frame':
      send(JSON.stringify({ type: 'data', stream, headers: { ':status': 200 } }));
      return send(JSON.stringify({ type: 'data', stream, end: true, headers: { ':status': 200 }, payload: 3 }));
    case 'status-as-string':
      return send(JSON.stringify({ type: 'data', stream, end: true, headers: { ':status': '404' }, payload: { detail: 'not here' } }));
    case 'refuse-with-payload':
      return send(JSON.stringify({ type: 'reset', stream, code: 2, reason: 'who are you', payload: { need: 'token' } }));
    case 'unprintable-header':
      return send(JSON.stringify({ type: 'data', stream, end: true, headers: { ':status': 404, 'x-odd': { toString: 1 } }, payload: { detail: 'gone' } }));
    case 'two-payloads':
      send(JSON.stringify({ type: 'data', stream, headers: { ':status': 200 }, payload: { first: true } }));
      return send(JSON.stringify({ type: 'data', stream, end: true, payload: { second: true } }));
    case 'no-payload':
      return send(JSON.stringify({ type: 'data', stream, end: true, headers: { ':status': 200 } }));
    case 'status-not-a-status':
      return send(JSON.stringify({ type: 'data', stream, end: true, headers: { ':status': 'teapot' }, payload: { ok: true } }));
    case 'silent':
      return undefined;
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

/** Starts the server on a free 127.0.0.1 port. */
export async function startHostileMuxws() {
  const connections = new Map();
  const sockets = new Set();
  const server = http.createServer((request, response) => response.writeHead(426).end());
  server.on('upgrade', (request, socket) => {
    const pathname = new URL(request.url, 'http://x').pathname;
    const mode = pathname.split('/')[1];
    const offered = String(request.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (!offered.includes('muxws.v1.json')) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const accept = crypto.createHash('sha1').update(request.headers['sec-websocket-key'] + GUID).digest('base64');
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${mode === 'select-other' ? offered.at(-1) : 'muxws.v1.json'}\r\n\r\n`,
    );
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const number = (connections.get(pathname) ?? 0) + 1;
    connections.set(pathname, number);
    const send = (text) => socket.writable && socket.write(encodeText(text));
    let pending = Buffer.alloc(0);
    let misbehaved = false;
    socket.on('data', (chunk) => {
      const [frames, rest] = decodeFrames(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const frame of frames) {
        if (frame.opcode === 0x8) {
          socket.end(Buffer.from([0x88, 0]));
          return;
        }
        if (frame.opcode !== 0x1 || (mode === 'deaf' && number === 1)) continue;
        let message;
        try {
          message = JSON.parse(frame.payload.toString('utf8'));
        } catch {
          continue;
        }
        if (message.type === 'ping') {
          send(JSON.stringify(message.nonce === undefined ? { type: 'pong' } : { type: 'pong', nonce: message.nonce }));
        } else if (message.type === 'open') {
          if (number === 1 && !misbehaved) {
            misbehaved = true;
            misbehave(mode, message.stream, send);
          } else {
            send(JSON.stringify({ type: 'data', stream: message.stream, end: true, headers: { ':status': 200 }, payload: { ok: true, connection: number } }));
          }
        }
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    base: `ws://127.0.0.1:${port}/`,
    connections: (pathname) => connections.get(pathname) ?? 0,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
