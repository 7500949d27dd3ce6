/**
 * What the module's plugins use of Nuxt's app (a structural subset of `NuxtApp`: the package imports
 * nothing of Nuxt's).
 */
import type { Plugin } from 'vue';

/** The Nuxt app a plugin is given. */
export interface NuxtAppLike {
  /** The request's Vue app (on the server), the page's (in the browser). */
  vueApp: { use(plugin: Plugin): unknown };
  /** What the server sends the client with the HTML (serialized by Nuxt). */
  payload: Record<string, unknown>;
  /** Adds a listener to one of the app's hooks (`app:rendered`: the server's render is done). */
  hook(name: string, handler: (...args: any[]) => unknown): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}
