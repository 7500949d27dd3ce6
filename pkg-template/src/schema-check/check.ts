/**
 * The startup schema check's comparison, a module of the package of its own (schema-check.js,
 * imported by its URL once the backend's schema has arrived, as follow-engine.js is): an app
 * carries none of it in its entry. It imports nothing of index.js: compose.ts's `joinPath` comes as an argument.
 */
import type { joinPath as JoinPath } from '../compose.js';

/**
 * Path templates match segment by segment, any `{param}` matching any `{param}`; `wanted` is
 * `joinPath()`'s, `served` is made so (slashes at its ends do not count).
 */
function sameTemplate(joinPath: typeof JoinPath, served: string, wanted: string): boolean {
  const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');
  const a = joinPath('', served).split('/');
  const b = wanted.split('/');
  return a.length === b.length && a.every((segment, i) => segment === b[i] || (isParam(segment) && isParam(b[i])));
}

/**
 * One sentence per route of `expected` (`"<action> <METHOD> <suffix>"`, the suffix relative to the
 * base path, `/{pk}` for any path parameter) that the OpenAPI `document` does not serve.
 */
export function schemaMismatches(joinPath: typeof JoinPath, basePath: string, expected: readonly string[], document: unknown): string[] {
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
    if (!served.some((entry) => sameTemplate(joinPath, entry.path, wanted) && entry.methods.includes(method))) {
      problems.push(`the proxy declares ${action}() but the backend serves no ${method} ${wanted}`);
    }
  }
  return problems;
}

