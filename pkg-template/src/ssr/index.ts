/**
 * `@dynamicforms/fastapi-viewsets/ssr`: request scopes for a server that renders pages (Node only:
 * it imports `node:async_hooks`; the main entry and `/vue` never import it, so a browser never
 * sees it).
 *
 * On a server one process renders every request, and what the package keeps per page would be
 * shared by all of them. Importing this subpath installs the package's scope resolver, backed by
 * one `AsyncLocalStorage`: a call issued while a request scope runs belongs to that request, and
 * `pendingCalls()`, `pendingCallCount()`, `onCallActivity`, `useCallActivity`, a live list's
 * pending writes and the call observers of that request see its own calls only. What runs outside
 * every scope (a module's top level) is the process's, as a browser page's one scope.
 *
 * Per request: the calls issued in it, its activity listeners, its call observers (the live
 * lists' own writes), the headers its calls send (`headers`: the incoming request's
 * `authorization`, `cookie`…). In a request `liveList()` and `follow()` read once and follow
 * nothing, so nothing a render opens outlives it.
 * Per process: the proxies (module-level, as the README writes them), the calls module, muxws
 * peers, the schema check. Nothing is persisted on a server (there is no IndexedDB).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { internalScopeResolver, type CallScope } from '@dynamicforms/fastapi-viewsets';

/** What a request scope is made with. */
export interface RequestScopeOptions {
  /**
   * Headers every call issued in the scope sends beneath the proxy's and the call's own (the
   * incoming request's `authorization` and `cookie`, say): any `HeadersInit` form.
   */
  headers?: HeadersInit | Record<string, string> | undefined;
}

/** One request's scope: its calls, listeners, headers and what it opened. */
export interface RequestScope {
  /**
   * Runs `fn` in this scope: every call, activity listener, live list and follower that `fn` and
   * its asynchronous continuations make belongs to it. Returns what `fn` returns.
   */
  run<T>(fn: () => T): T;
  /**
   * Ends the scope: its activity listeners and call observers are dropped. Calls still in flight
   * finish, told to nobody. (Nothing else needs closing: in a request, `liveList()` and `follow()`
   * read once and follow nothing.) Idempotent.
   */
  close(): Promise<void>;
  /** `close()` was called. */
  readonly closed: boolean;
}

/** The scope's state, as the runtime reads it (`CallScope`), and the handle's. */
interface Scope extends CallScope {
  readonly handle: RequestScope;
}

const storage = new AsyncLocalStorage<Scope>();
/** Each handle's scope. */
const scopes = new WeakMap<RequestScope, Scope>();
/** A framework's own lookup of the request's scope (`lookUpRequestScopeWith`), asked when no `run()` is under way. */
let lookUp: (() => RequestScope | undefined) | undefined;
// One resolver per process: the package's runtime asks it for the scope of every call it issues.
internalScopeResolver(() => storage.getStore() ?? looked());

/** The scope the framework's lookup finds; none when it finds none or throws (outside a request). */
function looked(): Scope | undefined {
  try {
    const found = lookUp?.();
    return found ? scopes.get(found) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the render cannot be run inside `scope.run()`: `lookUp` finds the current request's scope
 * by the framework's own request context (one made by `createRequestScope()` and kept there, e.g.
 * by Nuxt's `useNuxtApp()` with its async context), asked whenever no `run()` is under way; it must
 * answer undefined outside a request. One per process: a later call replaces it.
 */
export function lookUpRequestScopeWith(find: () => RequestScope | undefined): void {
  if (typeof find !== 'function') throw new TypeError('lookUpRequestScopeWith(find) takes a function');
  lookUp = find;
}

/** The header list the runtime merges under a call's headers (lower-case name: [name, value]). */
function headerList(init: RequestScopeOptions['headers']): Map<string, [string, string]> {
  const list = new Map<string, [string, string]>();
  if (init === undefined) return list;
  // the platform's reading of every HeadersInit form, its checks included (a TypeError for a bad name or value)
  new Headers(init as HeadersInit).forEach((value, name) => list.set(name, [name, value]));
  return list;
}

/** A new request scope, not entered yet: `scope.run(render)`, then `scope.close()` once the response is made. */
export function createRequestScope(options: RequestScopeOptions = {}): RequestScope {
  if (options === null || typeof options !== 'object') throw new TypeError('createRequestScope(options): options must be an object');
  let closed = false;
  const scope: Scope = {
    listeners: new Set(),
    observers: new Set(),
    headers: headerList(options.headers),
    handle: {
      run: (fn) => {
        if (typeof fn !== 'function') throw new TypeError('scope.run(fn) takes a function');
        return storage.run(scope, fn);
      },
      async close() {
        closed = true;
        scope.listeners.clear();
        scope.observers.clear();
      },
      get closed() {
        return closed;
      },
    },
  };
  scopes.set(scope.handle, scope);
  return scope.handle;
}

/**
 * Runs `fn` in a new request scope and closes the scope once `fn` has settled (returned, resolved
 * or thrown): the one line a plain Node server needs around its render. Resolves or rejects as `fn`
 * does.
 */
export async function runInRequest<T>(fn: (scope: RequestScope) => T | Promise<T>, options?: RequestScopeOptions): Promise<T> {
  const scope = createRequestScope(options);
  try {
    return await scope.run(() => fn(scope));
  } finally {
    await scope.close();
  }
}

/** The request scope the caller runs in (inside `run()` or `runInRequest()`), else undefined. */
export function requestScope(): RequestScope | undefined {
  return storage.getStore()?.handle;
}
