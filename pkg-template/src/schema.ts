/**
 * The startup schema check: once per proxy that declares its mixins, after its constructor returns,
 * in the background and never repeated, `GET {basePath}/schema`; a console warning for each declared
 * built-in action whose route the backend's OpenAPI document does not serve (the comparison is
 * schema-check/check.ts, loaded once the document is there); a check that fails is one line naming the
 * error. On a server, a proxy made in a request scope runs none (the browser runs it); one made
 * outside every request runs it once, as the process. Over a lazy muxws peer the check waits until
 * a call of the app has made the peer known: it never connects a peer the app has not used yet.
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
  Promise.resolve(core.transport.known).then(() =>
    issueCall(core, 'GET', '/schema', { background: true, repeat: { withinMs: 0 } }).then(
      (document) =>
        loadChunk<typeof import('./schema-check/check.js')>('schema-check.js', new URL('./schema-check.js?no-inline', import.meta.url), 0).then(
          (module) => module.schemaMismatches(joinPath, core.basePath, expected, document).forEach((problem) => warn(problem)),
          (error: unknown) => warn(`schema check not run: ${error}`),
        ),
      (error: unknown) => warn(`schema check failed: ${error}`),
    ),
  );
}
