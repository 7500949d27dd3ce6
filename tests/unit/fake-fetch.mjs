// A scripted fake of globalThis.fetch for the facade's unit tests. It records every request and
// answers it as the test's script says, never touching the network.
//
//   const server = installFetch((request) => ({ status: 200, body: { ok: true } }));
//   server.requests[0]   // { method, url, headers (plain object, lower-case names, with the
//                        //   content type fetch adds for a body that has one), bytes, text,
//                        //   at (Date.now() when fetch was called), aborted, abortReason }
//   server.uninstall();
//
// The script is a function of the request (and its index among all requests) returning one of:
//   { status, body, headers }  a Response; a body that is not a string, bytes, Blob or stream is
//                              sent as JSON (content-type set)
//   networkError()             fetch rejects with TypeError('fetch failed')
//   HANG (or undefined)        no answer until the request's signal aborts it (then fetch rejects
//                              with the signal's reason, as the platform's fetch does) or the test
//                              answers it itself with request.respond(answer)
// A script may also be an array, used in order (its last entry for every later request).

/** The answer that never comes (unless the signal aborts the request or the test answers it). */
export const HANG = Symbol('hang');

/** fetch rejects as it does when the connection fails. */
export function networkError(message = 'fetch failed') {
  return { error: new TypeError(message) };
}

function responseOf(answer) {
  const headers = new Headers(answer.headers ?? {});
  let body = answer.body ?? null;
  const raw = typeof body === 'string' || body instanceof Uint8Array || body instanceof ReadableStream || body instanceof Blob;
  if (body !== null && !raw) {
    body = JSON.stringify(body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  return new Response(body, { status: answer.status ?? 200, headers });
}

/**
 * The bytes of a request body as fetch would send them, and the content type fetch would add for
 * it when the headers have none (a Blob's type, URLSearchParams', FormData's boundary).
 */
function bodyOf(url, method, headers, body) {
  if (body == null) return { bytes: Promise.resolve(null), contentType: null };
  if (typeof body === 'string') return { bytes: Promise.resolve(new TextEncoder().encode(body)), contentType: null };
  if (body instanceof ArrayBuffer) return { bytes: Promise.resolve(new Uint8Array(body.slice(0))), contentType: null };
  if (ArrayBuffer.isView(body)) {
    return { bytes: Promise.resolve(new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength))), contentType: null };
  }
  // Blob, URLSearchParams, FormData, streams: let the platform serialise them.
  const request = new Request(url, { method, body, duplex: 'half' });
  return { bytes: request.arrayBuffer().then((buffer) => new Uint8Array(buffer)), contentType: request.headers.get('content-type') };
}

export function installFetch(script = () => HANG) {
  const original = globalThis.fetch;
  const requests = [];
  const pick = (request, index) => {
    if (Array.isArray(server.script)) return server.script[Math.min(index, server.script.length - 1)];
    return server.script(request, index);
  };

  async function fakeFetch(input, init = {}) {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = {};
    for (const [name, value] of new Headers(init.headers ?? {})) headers[name.toLowerCase()] = value;
    const signal = init.signal ?? null;
    let answer;
    const answered = new Promise((resolve) => {
      answer = resolve;
    });
    const request = {
      method,
      url,
      headers,
      bytes: null,
      text: null,
      at: Date.now(),
      signal,
      aborted: false,
      abortReason: undefined,
      /** Set once fetch resolved or rejected with the script's answer (not by an abort). */
      answered: false,
      /** Answers this request now (a script answer, see above). */
      respond: (value) => answer(value),
    };
    const index = requests.length;
    requests.push(request);
    // The bytes are read at once for strings and buffers, through the platform for other bodies.
    const body = bodyOf(url, method, init.headers, init.body);
    if (body.contentType && !('content-type' in headers)) headers['content-type'] = body.contentType;
    request.bytes = await body.bytes;
    request.text = request.bytes ? new TextDecoder().decode(request.bytes) : null;

    const aborted = new Promise((_, reject) => {
      const onAbort = () => {
        request.aborted = true;
        request.abortReason = signal.reason;
        reject(signal.reason ?? new DOMException('This operation was aborted', 'AbortError'));
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    aborted.catch(() => {});
    // As the platform's fetch: an aborted signal wins over any answer, and its script is not asked.
    if (!request.aborted) {
      const scripted = pick(request, index);
      if (scripted !== HANG && scripted !== undefined) answer(scripted);
    }
    const value = await Promise.race([aborted, answered]);
    request.answered = true;
    if (value && value.error) throw value.error;
    return responseOf(value);
  }

  const server = {
    script,
    requests,
    /** The requests whose Idempotency-Key header is `key` (as its Structured Field string). */
    requestsWithKey: (key) => requests.filter((request) => request.headers['idempotency-key'] === `"${key}"`),
    uninstall() {
      globalThis.fetch = original;
    },
  };
  globalThis.fetch = fakeFetch;
  return server;
}
