/**
 * The startup schema check: once per proxy that declares its mixins, after its constructor returns,
 * in the background and never repeated, `GET {basePath}/schema`; a console warning for each declared
 * built-in action whose route the backend's OpenAPI document does not serve.
 */
import { issueCall, joinPath, type ProxyCore } from './compose.js';

/**
 * Path templates match segment by segment, any `{param}` matching any `{param}`; `wanted` is
 * `joinPath()`'s, `served` is made so (slashes at its ends do not count).
 */
function sameTemplate(served: string, wanted: string): boolean {
  const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');
  const a = joinPath('', served).split('/');
  const b = wanted.split('/');
  return a.length === b.length && a.every((segment, i) => segment === b[i] || (isParam(segment) && isParam(b[i])));
}

/**
 * One sentence per route of `expected` (`"<action> <METHOD> <suffix>"`, the suffix relative to the
 * base path, `/{pk}` for any path parameter) that the OpenAPI `document` does not serve.
 */
export function schemaMismatches(basePath: string, expected: readonly string[], document: unknown): string[] {
  const paths = (document as { paths?: unknown } | null)?.paths;
  if (paths === null || typeof paths !== 'object') return ['GET {basePath}/schema did not answer an OpenAPI document'];
  const served = Object.entries(paths as Record<string, unknown>).map(([path, operations]) => ({
    path,
    methods: operations !== null && typeof operations === 'object' ? Object.keys(operations).map((m) => m.toUpperCase()) : [],
  }));
  const problems: string[] = [];
  for (const route of expected) {
    const [action, method, suffix = ''] = route.split(' ');
    const wanted = joinPath('', basePath, suffix);
    if (!served.some((entry) => sameTemplate(entry.path, wanted) && entry.methods.includes(method))) {
      problems.push(`the proxy declares ${action}() but the backend serves no ${method} ${wanted}`);
    }
  }
  return problems;
}

/** Schedules the check of a proxy whose declared actions expect `expected` (see `schemaMismatches`). */
export function scheduleSchemaCheck(core: ProxyCore, expected: readonly string[]): void {
  queueMicrotask(() => {
    issueCall(core, 'GET', '/schema', { background: true, repeat: { withinMs: 0 } }).then(
      (document) => {
        for (const problem of schemaMismatches(core.basePath, expected, document)) console.warn(`[fastapi-viewsets] ${core.basePath}: ${problem}`);
      },
      (error: unknown) => console.warn(`[fastapi-viewsets] ${core.basePath}: schema check failed`, error),
    );
  });
}
