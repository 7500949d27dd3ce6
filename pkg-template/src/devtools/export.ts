/**
 * The calls as JSON, for a bug report: every call kept since the page loaded, with its attempts. A
 * credential is never in it: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and every
 * header or query parameter whose name speaks of a token, a secret, a password, a session, an API
 * key or auth (the Idempotency-Key excepted: it is the call's name) is written as `[redacted]`.
 * Bodies (the caller's and the answer's) are left out unless asked for; when asked for, the values
 * of such names inside them are redacted too. Then the value of every credential found so is
 * redacted wherever else it appears in the text (an answer that echoes a header or a query).
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

/** The values of every credential the calls carry (headers, query, bodies), to be redacted wherever they appear. */
function secretsOf(calls: readonly CallView[]): Set<string> {
  const secrets = new Set<string>();
  // long enough, and not only digits, so that replacing it leaves the JSON's structure and numbers as they are
  const add = (value: unknown): void => {
    if (typeof value === 'string' && value.length >= 6 && !/^[\d.]+$/.test(value)) secrets.add(value);
  };
  const walk = (value: unknown, depth: number): void => {
    if (depth > 8 || value === null || typeof value !== 'object') return;
    for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
      if (secretName(name)) add(item);
      else walk(item, depth + 1);
    }
  };
  for (const call of calls) {
    for (const [name, value] of Object.entries(call.headers ?? {})) {
      if (!secretName(name)) continue;
      add(value);
      // the credential of `Bearer <token>` alone too, as an answer may echo it
      add(value.replace(/^\S+\s+/, ''));
    }
    for (const pair of call.query ? call.query.split('&') : []) {
      const at = pair.indexOf('=');
      if (at > 0 && secretName(decodeURIComponent(pair.slice(0, at)))) add(decodeURIComponent(pair.slice(at + 1).replace(/\+/g, ' ')));
    }
    walk(call.body, 0);
  }
  return secrets;
}

/**
 * The record as JSON text: the calls (oldest first; times in ms since the page's start), the live
 * objects' counts, the switches. `bodies`: the caller's and the answers' bodies too.
 */
export function exportCalls(store: DevStore, bodies = false): string {
  const origin = performance.timeOrigin;
  const calls = [...store.calls.values()];
  const text = JSON.stringify(
    {
      exported: new Date().toISOString(),
      page: typeof location === 'object' ? location.origin + location.pathname : null,
      bodies,
      forgotten: store.dropped,
      calls: calls.map((call) => exported(call, bodies, origin)),
    },
    null,
    2,
  );
  // a credential's value wherever else it appears (an answer that echoes a header, a query in a path)
  let out = text;
  for (const secret of secretsOf(calls)) {
    for (const form of new Set([JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])) out = out.split(form).join(REDACTED);
  }
  return out;
}
