/**
 * The startup schema check: once per proxy that declares its mixins, after its constructor returns,
 * in the background, `GET {basePath}/schema` as a call of the proxy like any other (its repeat
 * policy: a lost answer is repeated, and over muxws the call waits for the socket); a console
 * warning for each declared built-in action whose route the backend's OpenAPI document does not
 * serve (the comparison is schema-check/check.ts, loaded once the document is there), or that the
 * check failed, one line naming the error. Over muxws the check goes out once its peer has connected
 * (or its REST fallback started): over a lazy peer, once a call of the app has made the peer known
 * (it never connects a peer the app has not used yet) and its first socket is up. A check that never
 * went out (its peer closed for good before it ever connected) is not a failure, and warns nothing.
 * On a server, a proxy made in a request scope runs none (the browser runs it); one made outside
 * every request runs it once, as the process.
 */
import { loadChunk } from './chunk.js';
import { issueCall, joinPath, type ProxyCore } from './compose.js';
import { resolver } from './runtime.js';

/** Schedules the check of a proxy whose declared actions expect `expected` (see schema-check/check.ts). */
export function scheduleSchemaCheck(core: ProxyCore, expected: readonly string[]): void {
  // A proxy made while a server renders a request (a module-level proxy first imported by a render)
  // runs no check there: it would be that request's call, with its headers, and the browser runs it.
  // (A branch on the resolver: a bundler drops it from an app that never installs one.)
  if (resolver && resolver()) return;
  // one line, the error named and no stack: a server imports a module-level proxy once per process,
  // maybe before its backend is up, and a stack trace in its log was only alarming (issue 35 §4)
  const warn = (text: string) => console.warn(`[fastapi-viewsets] ${core.basePath}: ${text}`);
  Promise.resolve(core.transport.known).then(
    () =>
      issueCall(core, 'GET', '/schema', { background: true }).then(
        (document) =>
          loadChunk<typeof import('./schema-check/check.js')>('schema-check.js', new URL('./schema-check.js?no-inline', import.meta.url), 0).then(
            (module) => module.schemaMismatches(joinPath, core.basePath, expected, document).forEach((problem) => warn(problem)),
            (error: unknown) => warn(`schema check not run: ${error}`),
          ),
        (error: unknown) => warn(`schema check failed: ${error}`),
      ),
    // the peer closed for good before it connected: the check never went out
    () => {},
  );
}
