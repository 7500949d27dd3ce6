/**
 * A proxy's options, checked once, and each call composed from them: key, URL and query, headers
 * (proxy → call → key → request interceptors → key), body, repeat policy, signal. Whatever is wrong
 * is a TypeError naming the option; nothing is sent then.
 */
import { Defaults } from './abi/calls.js';
import { engine, putText, takeText } from './calls.js';
import { applyHeaders, headersFrom, TOKEN, type HeaderList } from './headers.js';

import { axiosTransport, type AxiosLike } from './axios.js';
import { restTransport } from './rest.js';
import { get, reading } from './caller.js';
import { isWhole } from './shared/values.js';
import type { CallRecord, Transport, ViewSetCall } from './vocabulary/call-types.js';
import { issue, resolver, withKey } from './runtime.js';


import type { RequestInterceptor } from './rest.js';

export type { RequestDraft, RequestInterceptor } from './rest.js';

/** The checked options of one proxy. */
export interface ProxyCore {
  readonly basePath: string;
  readonly baseUrl: string;
  readonly headers: HeaderList;
  readonly interceptors: readonly RequestInterceptor[];
  readonly attemptTimeoutMs: number;
  readonly withinMs: number;
  readonly delayMs: number;
  readonly jitter: number;
  readonly transport: Transport;
  /** Calls are persisted unless they say otherwise (`persist` of the proxy). */
  readonly persist: boolean;
  /** Header names never persisted with a call (lower case), besides credentials. */
  readonly persistExclude: readonly string[];
}

/**
 * The proxies that persist calls (REST through fetch), by `basePath` (the latest made for a path):
 * what a resumed call is sent through. A muxws or axios proxy made for the same path never takes
 * over a stored call, whose bytes are fetch's.
 */
const proxies = new Map<string, ProxyCore>();

/** Forgets the persisting proxies made so far, for tests (`internalFreshRuntime`): a resumed call finds none until a proxy is made again. */
export function freshProxies(): void {
  proxies.clear();
}

/** The persisting proxy made last for `basePath`, if any. */
export function proxyFor(basePath: string): ProxyCore | undefined {
  return proxies.get(basePath);
}

/** An optional non-negative whole number of milliseconds. */
function optionalMs(options: unknown, name: string): number | undefined {
  const value = get(options, name);
  if (value === undefined) return undefined;
  if (!isWhole(value)) {
    throw new TypeError(`${name} must be a non-negative whole number of milliseconds`);
  }
  return value;
}

/** `{ withinMs, delayMs, jitter }` of a `repeat` option (each may be missing). */
function repeatOption(value: unknown): { withinMs?: number; delayMs?: number; jitter?: number } {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object') throw new TypeError('repeat must be an object { withinMs, delayMs } (and optionally jitter)');
  const jitter = get(value, 'jitter');
  if (jitter !== undefined && !(typeof jitter === 'number' && jitter >= 0 && jitter <= 1)) {
    throw new TypeError('repeat.jitter must be a number from 0 to 1');
  }
  return { withinMs: optionalMs(value, 'withinMs'), delayMs: optionalMs(value, 'delayMs'), jitter };
}

function defaultBaseUrl(): string {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (typeof origin === 'string' && origin !== 'null') return origin;
  throw new TypeError('options.baseUrl is required outside a web page (for example in Node)');
}

/**
 * Checks a proxy's options (throws a TypeError naming the first mistake). `peerTransport` is given
 * for a class whose calls travel over muxws: the transport of `options.peer` (a TypeError for
 * anything else). Without it the calls go over REST.
 */
export function proxyCore(options: unknown, peerTransport?: (peer: unknown) => Transport): ProxyCore {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('ViewSet options must be an object with at least basePath');
  }
  const basePath = get(options, 'basePath');
  if (typeof basePath !== 'string') throw new TypeError("options.basePath must be a string such as '/items'");
  const peer = get(options, 'peer');
  const axios = get(options, 'axiosInstance');
  const overMuxws = peerTransport !== undefined;
  let transport: Transport = restTransport;
  let baseUrl = '';
  if (overMuxws) transport = peerTransport(peer);
  else {
    if (peer !== undefined) throw new TypeError('a restViewSet proxy takes no peer; use muxwsViewSet for calls over muxws');
    const given = get(options, 'baseUrl');
    if (given !== undefined && typeof given !== 'string') {
      throw new TypeError("options.baseUrl must be a string such as 'https://api.example.com'");
    }
    if (axios !== undefined && typeof get(axios, 'request') !== 'function') {
      throw new TypeError('options.axiosInstance must be an axios instance (axios.create() or the axios default export)');
    }
    // Through axios, URLs are relative to the instance's baseURL unless baseUrl is given.
    baseUrl = given ?? (axios === undefined ? defaultBaseUrl() : '');
  }
  const interceptors = get(options, 'interceptors') ?? [];
  if (!Array.isArray(interceptors) || interceptors.some((f) => typeof f !== 'function')) {
    throw new TypeError('options.interceptors must be an array of functions');
  }
  const repeat = repeatOption(get(options, 'repeat'));
  // Both default to 30 s, so that no call hangs on a peer that stays connected but never answers.
  let attemptTimeoutMs = optionalMs(options, overMuxws ? 'timeoutMs' : 'attemptTimeoutMs') ?? Defaults.AttemptTimeoutMs;
  if (!overMuxws && axios !== undefined) {
    // Through axios the attempt's timeout is axios's own (`timeout`), as the seed's option table says.
    transport = axiosTransport(axios as AxiosLike, attemptTimeoutMs);
    attemptTimeoutMs = 0;
  }
  const persistExclude = get(options, 'persistExclude') ?? [];
  if (!Array.isArray(persistExclude) || persistExclude.some((name) => typeof name !== 'string')) {
    throw new TypeError('options.persistExclude must be an array of header names');
  }
  const core: ProxyCore = {
    // One trailing slash dropped, as 0.6 did: `${this.basePath}/search` in a subclass stays one path.
    basePath: basePath.endsWith('/') ? basePath.slice(0, -1) : basePath,
    baseUrl,
    headers: headersFrom(get(options, 'headers'), 'options.headers'),
    interceptors: [...interceptors] as RequestInterceptor[],
    attemptTimeoutMs,
    withinMs: repeat.withinMs ?? Defaults.WithinMs,
    delayMs: repeat.delayMs ?? Defaults.DelayMs,
    jitter: repeat.jitter ?? 0,
    transport,
    persist: Boolean(get(options, 'persist')),
    persistExclude: persistExclude.map((name: string) => name.toLowerCase()),
  };
  if (transport.stored) proxies.set(core.basePath, core);
  return core;
}

/** `text` without the slashes it starts or ends with (no regular expression: a call joins two paths). */
function trimSlashes(text: string, start: boolean): string {
  let from = 0;
  let to = text.length;
  if (start) while (from < to && text.charCodeAt(from) === 47) from++;
  while (to > from && text.charCodeAt(to - 1) === 47) to--;
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

/** `base`, then each path segment, joined with single slashes (`/` when all are empty). */
export function joinPath(base: string, ...segments: string[]): string {
  let out = trimSlashes(base, false);
  for (const segment of segments) {
    const trimmed = trimSlashes(segment, true);
    if (trimmed) out += `/${trimmed}`;
  }
  return out || '/';
}

/** What `encodeURIComponent` leaves as it is and a form encoding does not (`%20` becomes `+`). */
const FORM_DIFFERENT = /[!'()~]|%20/g;

/**
 * `text` as `URLSearchParams` serialises a name or value (application/x-www-form-urlencoded: only
 * ASCII letters, digits and `*-._` stay, a space is `+`), without building a `URLSearchParams`,
 * which costs a call more than the rest of its query.
 */
function formEncode(text: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch {
    // a lone surrogate, which URLSearchParams sends as U+FFFD
    return new URLSearchParams({ q: text }).toString().slice(2);
  }
  return encoded.replace(FORM_DIFFERENT, (found) => (found === '%20' ? '+' : `%${found.charCodeAt(0).toString(16).toUpperCase()}`));
}

/**
 * `out` (a query written into the path, `''` when none) followed by the encoded query string of
 * `query` (arrays repeat a name; `undefined`/`null` are left out), as `URLSearchParams` encodes it.
 */
function encodeQuery(query: unknown, out: string): string {
  if (query === undefined || query === null) return out;
  if (typeof query !== 'object') throw new TypeError('options.query must be an object');
  // A URLSearchParams is its pairs, in order (formEncode encodes as it does).
  for (const [name, value] of query instanceof URLSearchParams ? query : Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) out += `${out ? '&' : ''}${formEncode(name)}=${formEncode(String(item))}`;
    }
  }
  return out;
}

/** Random words for keys and jitter seeds, drawn 256 at a time from `crypto.getRandomValues()`. */
const randomPool = new Uint32Array(256);
let randomLeft = 0;

/** One random `u32` from the pool, refilled from `crypto.getRandomValues()` when it runs out. */
function randomWord(): number {
  if (randomLeft === 0) {
    if (typeof crypto === 'undefined' || typeof crypto.getRandomValues !== 'function') {
      throw new TypeError('crypto.getRandomValues() is not available to generate an Idempotency-Key');
    }
    crypto.getRandomValues(randomPool);
    randomLeft = randomPool.length;
  }
  return randomPool[--randomLeft];
}

/** A new key and its Structured Field string (built by the calls module from pooled random bytes). */
function generateKey(): { key: string; keyField: string } {
  const keyField = takeText(engine.key_generate(randomWord(), randomWord(), randomWord(), randomWord()));
  return { key: keyField.slice(1, -1), keyField };
}

/** A new version 4 UUID (built by the calls module from pooled `crypto.getRandomValues()` bytes). */
export function newKey(): string {
  return generateKey().key;
}

/** `key` as the value of the Idempotency-Key header (a Structured Field string); a TypeError when it is not acceptable. */
function keyField(key: string): string {
  const { length: ascii, badIndex, badCode } = putText(key);
  const length = engine.key_field(ascii, badIndex, badCode);
  if (length === -1) throw new TypeError('invalid Idempotency-Key: it must not be empty');
  if (length < -1) {
    const index = -2 - length;
    const code = [...key][index].codePointAt(0)!;
    throw new TypeError(
      `invalid Idempotency-Key: it may hold only printable ASCII characters (U+0020 to U+007E), but the character at position ${index} is ${JSON.stringify(String.fromCodePoint(code))} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`,
    );
  }
  return takeText(length);
}

/** The key of a call: the one given (checked), else a new one. */
export function callKey(given: unknown): { key: string; keyField: string } {
  if (given === undefined || given === null) return generateKey();
  if (typeof given !== 'string') throw new TypeError('options.key must be a string');
  return { key: given, keyField: keyField(given) };
}

/**
 * Composes one call of `core`, `method` on `path` (relative to `basePath`) with `options`, and
 * issues it (`runtime.issue()`); throws what is wrong with it before anything is sent.
 */
function composeAndIssue<R>(
  core: ProxyCore | undefined,
  method: string,
  path: string,
  options: unknown,
  key: { key: string; keyField: string },
  resumed?: { issuedAt: number },
): ViewSetCall<R> {
  if (!core) throw new TypeError('request() was called on an object that is not a ViewSet proxy');
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError('request options must be an object');
  }
  const upper = String(method).toUpperCase();
  // A method is a token (RFC 9110 §9.1), as a header name is.
  if (!TOKEN.test(upper)) throw new TypeError(`"${upper}" is not an HTTP method`);
  // A query in the path comes first, then the `query` option's: on every transport the same
  // query string (muxws `:query`, REST after `?`), the path without it (`:path`).
  const [bare, ...inPath] = String(path).split('?');
  const query = reading('options.query', () => encodeQuery(get(options, 'query'), inPath.join('?')));
  const fullPath = joinPath('', core.basePath, bare);
  const repeat = repeatOption(get(options, 'repeat'));
  const signal = get(options, 'signal') ?? null;
  if (signal !== null && !(typeof AbortSignal !== 'undefined' && signal instanceof AbortSignal)) {
    throw new TypeError('options.signal must be an AbortSignal');
  }
  // a request scope's headers (a server's) beneath the proxy's
  const scoped = resolver && resolver()?.headers;
  const headers: HeaderList = new Map(scoped ? [...scoped, ...core.headers] : core.headers);
  reading('options.headers', () => applyHeaders(headers, get(options, 'headers'), 'options.headers'));
  headers.set('idempotency-key', ['Idempotency-Key', key.keyField]);
  const url = joinPath(core.baseUrl, fullPath) + (query ? `?${query}` : '');
  const body = get(options, 'body');
  const send = core.transport.prepare({
    method: upper,
    path: fullPath,
    query,
    url,
    headers,
    keyField: key.keyField,
    body,
    interceptors: core.interceptors,
  });
  const background = Boolean(get(options, 'background'));
  // The call's record, every field written out: Node 20's V8 allocates about 10 KB for an object
  // literal that adds properties after a spread (`...key`, `...request`; measured: 12 KB a call,
  // 0.02 KB written out). Made whole here, in the shape the runtime keeps, so issue() copies nothing.
  const call: CallRecord = {
    key: key.key,
    keyField: key.keyField,
    method: upper,
    path: fullPath,
    query,
    send,
    body,
    background,
    basePath: core.basePath,
    // Background calls (the schema check, say) are never persisted.
    persist: !background && Boolean(get(options, 'persist') ?? core.persist),
    persistExclude: core.persistExclude,
    resumed,
    withinMs: repeat.withinMs ?? core.withinMs,
    delayMs: repeat.delayMs ?? core.delayMs,
    attemptTimeoutMs: core.attemptTimeoutMs,
    jitter: repeat.jitter ?? core.jitter,
    jitterSeed: randomWord(),
    // Set by issue(): the engine's id and the promise's functions.
    id: 0,
    transport: core.transport,
    carried: null,
    attempts: 0,
    outcome: null,
    inflight: null,
    resolve: null as never,
    reject: null as never,
    unwatch: null,
  };
  return issue<R>(call, signal as AbortSignal | null);
}

/**
 * Issues one call of `core`; never throws: anything wrong with it is a rejected `ViewSetCall`
 * (with the key given, else a new one), nothing sent.
 */
export function issueCall<R>(core: ProxyCore | undefined, method: string, path: string, options: unknown, resumed?: { issuedAt: number }): ViewSetCall<R> {
  let given: unknown;
  try {
    given = get(options, 'key');
    return composeAndIssue<R>(core, method, path, options, callKey(given), resumed);
  } catch (error) {
    return rejectedCall<R>(error, typeof given === 'string' ? given : '');
  }
}

/**
 * A call that could not be issued: a `ViewSetCall` rejected with `error`, which carries the call's
 * key (`key`, else a new one) like every error a call rejects with; nothing was sent.
 */
export function rejectedCall<R>(error: unknown, key = ''): ViewSetCall<R> {
  if (!key) {
    try {
      key = newKey();
    } catch {
      // no crypto: the call still rejects, with an empty key
    }
  }
  if (error instanceof Error && Object.isExtensible(error)) Object.assign(error, { key, attempts: 0 });
  return withKey(Promise.reject(error) as Promise<R>, key);
}
