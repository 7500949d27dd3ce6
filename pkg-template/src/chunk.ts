/**
 * Loading a module of the package that is imported by its URL (`follow-engine.js`, `axios-send.js`):
 * an app's bundler emits such a file as an asset and leaves the import to the browser, so no preload
 * helper is added to every app for it.
 *
 * The URLs carry `?no-inline`, Vite's own mark for an asset it must never inline: by default Vite
 * inlines an asset under 4 KiB (`build.assetsInlineLimit`) as a `data:` URL, and a page whose
 * policy is `script-src 'self'` refuses to import one. Other servers and bundlers ignore the query.
 *
 * A load that fails is told apart by a probe, a `no-cors` `fetch` of the same URL: when the file
 * answers (any status: a 404, or a 200 that the page's policy refused to run, a `data:` URL that a
 * policy refused, a file served as something else than JavaScript, or status 0, the opaque answer
 * of another origin, such as a URL outside a policy's 'self' on a server that sends no CORS
 * headers: a probe in `cors` mode failed there as if the network had, and the call was repeated
 * until its `withinMs`), no repeat can fix the load, and it rejects at
 * once with an Error naming the file, the answer and the likely causes, marked `refused`; when the
 * probe gets no answer either, the load was lost to the network and rejects with the platform's
 * error (the call is repeated). Either way the next load goes under a URL of its own (a browser
 * answers a failed module URL with the same failure), so a fixed deployment recovers without a
 * reload. (Measured in Chromium: a policy's `securitypolicyviolation` event arrives after the
 * import's rejection, and the rejection's message is the same for every cause; a probe costs one
 * request on a path that fails anyway, and the least code in every app's entry.)
 */
/** What a refused load rejects with. */
export type ChunkRefused = Error & { refused: 1 };

/** True for the error of a load that no repeat can fix. */
export const isRefused = (error: unknown): error is ChunkRefused => !!(error as { refused?: unknown } | null)?.refused;

/**
 * Imports `base` (made by `new URL('./<file>?no-inline', import.meta.url)`, so that bundlers see
 * it), under `?no-inline&<attempt>` after `attempt` loads failed.
 */
export function loadChunk<T>(file: string, base: URL, attempt: number): Promise<T> {
  const url = base.href + (attempt ? (base.search ? '&' : '?') + attempt : '');
  return import(/* @vite-ignore */ /* webpackIgnore: true */ url).catch(async (error: unknown) => {
    const answer = await fetch(url, { mode: 'no-cors' }).catch(() => null);
    if (!answer) throw error;
    throw Object.assign(new Error(`[fastapi-viewsets] ${file} not loaded, answered ${answer.status}: a Content Security Policy? not emitted by the bundler?`, { cause: error }), { refused: 1 });
  });
}
