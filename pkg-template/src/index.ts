/**
 * `@dynamicforms/fastapi-viewsets`: ViewSet proxies whose every call carries an Idempotency-Key and
 * is repeated safely when its answer is lost, over REST and muxws, with call activity for the UI.
 *
 * Importing the package instantiates its WebAssembly module (top-level await); there is no init
 * step to call, in a browser, a bundler (Vite, webpack, Rollup) or Node 20.
 */
import initWasm, { registerErrorClasses, newIdempotencyKey, runtimeStats } from './wasm/fastapi_viewsets.js';
import * as errors from './errors.js';

const wasmUrl = new URL('./wasm/fastapi_viewsets_bg.wasm', import.meta.url);

/** Node cannot `fetch` a `file:` URL: there the bytes are read from disk. */
async function wasmSource(): Promise<URL | Uint8Array> {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  if (!node || wasmUrl.protocol !== 'file:') return wasmUrl;
  const fsModule = 'node:fs/promises'; // a variable keeps bundlers from resolving it for browsers
  const fs = (await import(/* @vite-ignore */ fsModule)) as { readFile(url: URL): Promise<Uint8Array> };
  return fs.readFile(wasmUrl);
}

await initWasm({ module_or_path: await wasmSource() });
registerErrorClasses(errors);

export * from './errors.js';
export * from './viewset.js';
export * from './activity.js';
export * from './muxws.js';

/** A new version 4 UUID, built from `crypto.getRandomValues()` as every call's key is. */
export function newKey(): string {
  return newIdempotencyKey();
}

/** What the module holds right now (calls, listeners, timers, peers): for leak checks in tests. */
export function internalStats(): Record<string, number | boolean> {
  return runtimeStats() as Record<string, number | boolean>;
}
