/**
 * The calls as JSON, for a bug report: every call kept since the page loaded, with its attempts. A
 * credential is never in it: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and every
 * header or query parameter whose name speaks of a token, a secret, a password, a session, an API
 * key or auth (the Idempotency-Key excepted: it is the call's name) is written as `[redacted]`.
 * Bodies (the caller's and the answer's) are left out unless asked for; when asked for, the values
 * of such names inside them are redacted too.
 */
import type { CallView, DevStore } from '../devtools-subpath/store.js';

const REDACTED = '[redacted]';

/** A header, query parameter or body field whose value is a credential. */
export function secretName(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower === 'idempotency-key') return false;
  return /^(authorization|proxy-authorization|cookie|set-cookie|x-csrf-token|x-xsrf-token)$/.test(lower) || /token|secret|passw|session|api[-_]?key|auth|credential|cookie|sid$/.test(lower);
}

/** `headers` with every credential redacted, names in lower case. */
export function redactHeaders(headers: Record<string, string> | null): Record<string, string> | null {
  if (!headers) return null;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = secretName(name) ? REDACTED : value;
  return out;
}

/** An encoded query with the values of credential names redacted. */
export function redactQuery(query: string): string {
  if (!query) return '';
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      const name = decodeURIComponent((at < 0 ? pair : pair.slice(0, at)).replace(/\+/g, ' '));
      return at >= 0 && secretName(name) ? `${pair.slice(0, at)}=${encodeURIComponent(REDACTED)}` : pair;
    })
    .join('&');
}

/** A body as JSON can hold it, credentials redacted, depth and size bounded. */
function plainBody(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > 10_000 ? `${value.slice(0, 10_000)}… (${value.length} characters)` : value;
  if (value === undefined) return undefined;
  if (depth > 8) return '[too deep]';
  if (Array.isArray(value)) return value.slice(0, 1000).map((item) => plainBody(item, depth + 1));
  if (typeof value === 'object') {
    const tag = Object.prototype.toString.call(value).slice(8, -1);
    if (tag !== 'Object') return `[${tag}]`;
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value as Record<string, unknown>)) out[name] = secretName(name) ? REDACTED : plainBody(item, depth + 1);
    return out;
  }
  return `[${typeof value}]`;
}

/** One call as it is exported. */
function exported(call: CallView, bodies: boolean, origin: number): Record<string, unknown> {
  const at = (t: number | null): number | null => (t === null ? null : Math.round((t - origin) * 10) / 10);
  return {
    key: call.key,
    method: call.method,
    path: call.path,
    query: redactQuery(call.query),
    transport: call.transport,
    background: call.background,
    resumed: call.resumed,
    issuedAt: new Date(call.issuedAt).toISOString(),
    state: call.state,
    waitReason: call.waitReason,
    settled: call.settled && { ...call.settled, at: at(call.settled.at) },
    attempts: call.attempts.map((attempt) => ({ ...attempt, start: at(attempt.start), end: at(attempt.end) })),
    headers: redactHeaders(call.headers),
    ...(bodies && { body: plainBody(call.body), answer: plainBody(call.answer) }),
  };
}

/**
 * The record as JSON text: the calls (oldest first; times in ms since the page's start), the live
 * objects' counts, the switches. `bodies`: the caller's and the answers' bodies too.
 */
export function exportCalls(store: DevStore, bodies = false): string {
  const origin = performance.timeOrigin;
  return JSON.stringify(
    {
      exported: new Date().toISOString(),
      page: typeof location === 'object' ? location.origin + location.pathname : null,
      bodies,
      forgotten: store.dropped,
      calls: [...store.calls.values()].map((call) => exported(call, bodies, origin)),
    },
    null,
    2,
  );
}
