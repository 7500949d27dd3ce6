/**
 * The startup schema check: once per proxy that declares its mixins, after its constructor returns,
 * in the background, `GET {basePath}/schema` as a call of the proxy like any other (its repeat
 * policy: a lost answer is repeated, and over muxws the call waits for the socket); a console
 * warning for each declared built-in action whose route the backend's OpenAPI document does not
 * serve (the comparison is schema-check/check.ts, loaded once the document is there), or that the
 * check failed. Over muxws the check goes out once its peer has connected (or its REST fallback
 * started): over a lazy peer, once a call of the app has made the peer known (it never connects a
 * peer the app has not used yet) and its first socket is up. A check that never went out (its peer
 * closed for good before it ever connected) is not a failure, and warns nothing.
 */
import { loadChunk } from './chunk.js';
import { issueCall, joinPath, type ProxyCore } from './compose.js';

/** Schedules the check of a proxy whose declared actions expect `expected` (see schema-check/check.ts). */
export function scheduleSchemaCheck(core: ProxyCore, expected: readonly string[]): void {
  const warn = (text: string, error?: unknown) => console.warn(`[fastapi-viewsets] ${core.basePath}: ${text}`, ...(error === undefined ? [] : [error]));
  Promise.resolve(core.transport.known).then(
    () =>
      issueCall(core, 'GET', '/schema', { background: true }).then(
        (document) =>
          loadChunk<typeof import('./schema-check/check.js')>('schema-check.js', new URL('./schema-check.js?no-inline', import.meta.url), 0).then(
            (module) => module.schemaMismatches(joinPath, core.basePath, expected, document).forEach((problem) => warn(problem)),
            (error: unknown) => warn('schema check not run', error),
          ),
        (error: unknown) => warn('schema check failed', error),
      ),
    // the peer closed for good before it connected: the check never went out
    () => {},
  );
}
