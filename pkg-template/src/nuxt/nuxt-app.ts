/**
 * What the module's plugins use of Nuxt's app (a structural subset of `NuxtApp`: the package imports
 * nothing of Nuxt's), and how the Nitro plugin hands a request's scope to the page plugin.
 */
import type { Plugin } from 'vue';

/** The key of the request's scope on h3's `event.context`. */
export const SCOPE_KEY = 'fastapiViewsetsScope';

/** What the page plugin does with the request's scope: closes it once the app has rendered. */
export interface ScopeLike {
  close(): Promise<void>;
}

/** The Nuxt app a plugin is given. */
export interface NuxtAppLike {
  /** The request's Vue app (on the server), the page's (in the browser). */
  vueApp: { use(plugin: Plugin): unknown };
  /** What the server sends the client with the HTML (serialized by Nuxt). */
  payload: Record<string, unknown>;
  /** The server's render: the request's h3 event, whose context holds the request's scope. */
  ssrContext?: { event?: { context?: Record<string, unknown> } } | undefined;
  /** Adds a listener to one of the app's hooks (`app:rendered`: the server's render is done). */
  hook(name: string, handler: (...args: any[]) => unknown): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}
