/**
 * `@dynamicforms/fastapi-viewsets/devtools`, its development entry: a panel that shows every call
 * by its key with its attempts and why each ended, the live data behind the page, and a few
 * actions. The package's `exports` resolve this file under the `development` condition only (Vite's
 * dev server and `--mode development` builds, webpack's development mode, Nuxt dev); every other
 * build gets `stub.ts`, whose exports do nothing, so a production app ships none of it.
 *
 * Importing this entry starts the record (the package's tap and an activity listener, nothing
 * else): calls made before the panel is mounted are in it. The panel's code is a chunk of its own
 * (`devtools/panel.js`), loaded by `mountDevtools()`, given what it needs as named services.
 */
import { internalDevtools, retryNow } from '@dynamicforms/fastapi-viewsets';

import { devStore, type StoreOptions } from './store.js';
import type { PanelServices } from './services.js';

export type { AttemptEnd, AttemptTransport, AttemptView, CallState, CallView, LiveView } from './store.js';
export type { PanelServices } from './services.js';

/** The options of `mountDevtools()` and of the `<FastapiViewsetsDevtools>` component. */
export interface DevtoolsOptions extends StoreOptions {
  /** Open the panel at once (default: only its button shows, at the bottom right). */
  open?: boolean;
  /** Where the panel's host element is appended (default `document.body`). */
  parent?: Element;
}

type Panel = typeof import('../devtools/panel.js');

/** The panel's chunk, loaded once. */
let chunk: Promise<Panel> | undefined;

/**
 * The chunk is a file of the package's own (`devtools/panel.js` beside this entry), imported by its
 * URL: a bundler emits it as an asset of the development build (`?no-inline`: never a `data:` URL,
 * which `script-src 'self'` refuses), and a production build, which resolves the stub, never sees it.
 */
function loadPanel(): Promise<Panel> {
  return (chunk ??= import(/* @vite-ignore */ /* webpackIgnore: true */ new URL('./panel.js?no-inline', import.meta.url).href) as Promise<Panel>);
}

// the record starts as the app imports this entry: the calls its other modules make at once are in it
devStore();

/** The unmount function of the panel mounted now, if any (one panel per page). */
let mounted: (() => void) | undefined;

/** Sets the record's options (`userTiming`): the record itself starts as this entry is imported. */
export function recordCalls(options: StoreOptions = {}): void {
  devStore(options);
}

/**
 * Mounts the panel in the page (once: while a panel is mounted, its remover is returned; outside a
 * page, nothing): a host element with its own shadow root (its styles are constructed
 * stylesheets: no `<style>`, nothing `style-src 'self'` refuses), a button at the bottom right that
 * opens it; it takes no focus and listens to no key. Returns the function that removes it.
 */
export function mountDevtools(options: DevtoolsOptions = {}): () => void {
  const store = devStore(options);
  // no page (server-side rendering): nothing to mount; a panel already mounted: that one
  if (typeof document === 'undefined') return () => {};
  if (mounted) return mounted;
  let unmount: (() => void) | undefined;
  let removed = false;
  const services: PanelServices = { store, retryNow, cancel: internalDevtools.cancel };
  loadPanel().then(
    (panel) => {
      if (!removed) unmount = panel.mount(services, options.parent ?? document.body, options.open === true);
    },
    (error: unknown) => console.error('[fastapi-viewsets] the devtools panel (devtools/panel.js) was not loaded', error),
  );
  return (mounted = () => {
    removed = true;
    mounted = undefined;
    unmount?.();
  });
}


/**
 * The panel as one Vue component (`<FastapiViewsetsDevtools :open="true" />`), written with the
 * options API so that this entry imports no Vue: it renders nothing in place and mounts the panel
 * while it is mounted.
 */
export const FastapiViewsetsDevtools = {
  name: 'FastapiViewsetsDevtools',
  props: { open: { type: Boolean, default: false }, userTiming: { type: Boolean, default: false } },
  mounted(this: { open: boolean; userTiming: boolean; $unmountDevtools?: () => void }) {
    this.$unmountDevtools = mountDevtools({ open: this.open, userTiming: this.userTiming });
  },
  beforeUnmount(this: { $unmountDevtools?: () => void }) {
    this.$unmountDevtools?.();
  },
  render: (): null => null,
};
