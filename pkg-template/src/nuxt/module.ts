/**
 * `@dynamicforms/fastapi-viewsets/nuxt`: the package's Nuxt module (Nuxt 3.8 or later, Nuxt 4).
 *
 * ```ts
 * // nuxt.config.ts
 * export default defineNuxtConfig({ modules: ['@dynamicforms/fastapi-viewsets/nuxt'] });
 * ```
 *
 * What it sets, so that an app needs no other glue:
 * - two plugins of the app (`nuxt/plugin-server.js`, `nuxt/plugin-client.js`): on the server each
 *   request's render runs in a scope of its own, closed once the app has rendered, and what the
 *   render read goes into the payload; on the client the payload hydrates the live lists and
 *   followers, which go on from the server's cursor;
 * - in `nuxt dev` only, a plugin of the browser (`nuxt/plugin-devtools.js`) that mounts the devtools
 *   panel of `@dynamicforms/fastapi-viewsets/devtools` (`devtools: false` leaves it out); a
 *   `nuxt build` adds nothing of it;
 * - Vite's dependency optimizer told of the package's entries (`optimizeDeps.include`), so that
 *   `nuxt dev` does not discover them at run time and reload the first page;
 * - the package's files loaded on demand (the follower's engine, the live list, the axios
 *   transport's sending half, the schema check's comparison, the muxws driver and module) left out
 *   of the pages' `<link rel="modulepreload">` and `prefetch` hints: a page downloads each only when
 *   it uses it.
 *
 * The module is a plain function of Nuxt's module interface: it imports nothing of Nuxt's.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The module's options (`fastapiViewsets` in `nuxt.config`). */
export interface ModuleOptions {
  /**
   * The headers of the incoming request that every call of its render sends to the backend, beneath
   * the proxy's and the call's own (lower case; default `['authorization', 'cookie']`: each request
   * renders as its own user). `[]` forwards none.
   */
  forwardHeaders?: readonly string[] | undefined;
  /**
   * Mount the devtools panel (`@dynamicforms/fastapi-viewsets/devtools`) in every page of `nuxt dev`
   * (default `true`; `false` leaves it out). A `nuxt build` never adds it.
   */
  devtools?: boolean | undefined;
}

/** The headers forwarded when the options name none. */
export const DEFAULT_FORWARD_HEADERS: readonly string[] = Object.freeze(['authorization', 'cookie']);

/** What the module reads and writes of Nuxt (a structural subset of `@nuxt/schema`'s `Nuxt`). */
export interface NuxtLike {
  /** Nuxt's resolved options. */
  options: {
    /** `nuxt dev` (true) or a build (false). */
    dev?: boolean;
    /** The build folder (`.nuxt`), where Nitro's plugin is written. */
    buildDir: string;
    /** The app's templates: Nitro's plugin is one, written with the module's options. */
    build: { templates: Array<{ filename: string; write?: boolean; getContents: () => string }> };
    /** Nitro's options: its plugins. */
    nitro: { plugins?: string[] } & Record<string, unknown>;
    /** The app's plugins: the module's two go first. */
    plugins: Array<string | { src: string; mode?: 'all' | 'server' | 'client' }>;
    /** Vite's options: the optimizer's entries and the dev server's plugin. */
    vite?: { optimizeDeps?: { include?: string[] }; plugins?: unknown[] } & Record<string, unknown>;
  };
  /** Adds a handler of one of Nuxt's build hooks (`build:manifest`). */
  hook(name: string, handler: (...args: any[]) => unknown): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One resource of Nuxt's client manifest as the `build:manifest` hook sees it. */
interface ManifestResource {
  /** The output file. */
  file?: string;
  /** The source it was built from (Vite's entries). */
  src?: string;
  /** Hinted with `<link rel="modulepreload">` (scripts) or `preload`. */
  preload?: boolean;
  /** Hinted with `<link rel="prefetch">`. */
  prefetch?: boolean;
  /** The files a chunk names (`new URL(…, import.meta.url)`), hinted with it. */
  assets?: string[];
}

const NAME = '@dynamicforms/fastapi-viewsets';

/**
 * The package's files loaded on demand, by their paths in the package: Vite's manifest lists each
 * under its source (`src`), and Nuxt adds an entry under its output name; an app downloads each only
 * once it uses what is in it.
 */
const ON_DEMAND = /@dynamicforms\/fastapi-viewsets\/(?:follow-engine\.js|axios-send\.js|schema-check\.js|live\/live-list\.js|live\/paged\.js|muxws-driver\.js|wasm\/muxws_bg\.wasm)(?:\?|$)/;

/**
 * Drops the preload and prefetch hints of the package's on-demand files from Nuxt's client manifest
 * (the `build:manifest` hook): Nuxt hints every asset of a page's chunks, and a file that
 * `new URL('./x.js?no-inline', import.meta.url)` names is an asset of the package's chunk, so every
 * page downloaded all of them. Returns the output files whose hints it dropped.
 */
export function dropOnDemandHints(manifest: Record<string, ManifestResource>): string[] {
  const files = new Set<string>();
  for (const [id, resource] of Object.entries(manifest)) {
    if (ON_DEMAND.test(resource.src ?? id) && resource.file) files.add(resource.file);
  }
  for (const [id, resource] of Object.entries(manifest)) {
    if (files.has(id) || (resource.file !== undefined && files.has(resource.file))) {
      resource.preload = false;
      resource.prefetch = false;
    }
  }
  return [...files];
}

/** The muxws module of the package by its path, with no query: what Vite's dev server must not take for a wasm ES module. */
const MUXWS_WASM = /[\\/]@dynamicforms[\\/]fastapi-viewsets[\\/]wasm[\\/]muxws_bg\.wasm$/;

/**
 * A plugin of Vite's dev server: the muxws module is fetched by the driver (`new URL('./wasm/muxws_bg.wasm?no-inline',
 * import.meta.url)`, served as a file) and never imported as a module; but Vite records the file an
 * asset URL names as an import of its module, and Nuxt's dev server warms every import up: Vite's
 * wasm plugin then made the file a wasm ES module whose import `muxws` (the driver's reader) no
 * module resolves, and printed `Failed to resolve import "muxws"` on every cold start. The file by
 * its bare path is an empty module here; the driver's URL (`?no-inline`) is still served as it is.
 */
export const muxwsWasmAsFile = {
  name: 'fastapi-viewsets:muxws-wasm-is-a-file',
  apply: 'serve',
  enforce: 'pre',
  load: (id: string) => (MUXWS_WASM.test(id) ? 'export {};' : undefined),
} as const;

/**
 * The module itself: Nuxt calls it once per build (and once per `nuxt dev` start). It returns
 * `false`, which tells Nuxt not to add the package to `build.transpile`: transpiled, the package was
 * bundled into the server's build, whose target (es2019) has no top-level await, and the build
 * failed; left as it is, the server imports it from `node_modules` as any dependency (Nitro copies it
 * into `.output/server/node_modules`), and the plugins, which Nuxt imports by their paths, are built
 * with the app.
 */
function fastapiViewsets(options: ModuleOptions | undefined, nuxt: NuxtLike): false {
  const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
  const forwardHeaders = (options?.forwardHeaders ?? DEFAULT_FORWARD_HEADERS).map((name) => {
    if (typeof name !== 'string' || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(name)) throw new TypeError(`fastapiViewsets.forwardHeaders: ${JSON.stringify(name)} is no header name`);
    return name.toLowerCase();
  });
  // Nitro's plugin, written with the options into the build folder: every request in a scope of its own.
  const filename = 'fastapi-viewsets-nitro.mjs';
  const contents = `import { scopeEachRequest } from ${JSON.stringify(here('./nitro.js'))};\nexport default (nitroApp) => scopeEachRequest(nitroApp, ${JSON.stringify({ forwardHeaders })});\n`;
  nuxt.options.build.templates.push({ filename, write: true, getContents: () => contents });
  (nuxt.options.nitro.plugins ??= []).push(join(nuxt.options.buildDir, filename));
  // The server's plugin first, so that the request's scope is open before any other plugin's calls.
  nuxt.options.plugins.unshift({ src: here('./plugin-server.js'), mode: 'server' }, { src: here('./plugin-client.js'), mode: 'client' });
  // the devtools panel in `nuxt dev` only, after the module's other plugins: a build adds nothing of it
  const devtools = nuxt.options.dev === true && options?.devtools !== false;
  if (devtools) nuxt.options.plugins.splice(2, 0, { src: here('./plugin-devtools.js'), mode: 'client' });
  const vite = (nuxt.options.vite ??= {});
  const optimizeDeps = (vite.optimizeDeps ??= {});
  optimizeDeps.include = [...(optimizeDeps.include ?? []), NAME, `${NAME}/vue`, ...(devtools ? [`${NAME}/devtools`] : [])].filter((entry, at, all) => all.indexOf(entry) === at);
  (vite.plugins ??= []).push(muxwsWasmAsFile);
  nuxt.hook('build:manifest', (manifest: Record<string, ManifestResource>) => void dropOnDemandHints(manifest));
  return false;
}

/** What Nuxt shows of the module, and the key of its options in `nuxt.config`. */
fastapiViewsets.getMeta = () => Promise.resolve({ name: `${NAME}/nuxt`, configKey: 'fastapiViewsets', compatibility: { nuxt: '>=3.8.0' } });

export default fastapiViewsets;
