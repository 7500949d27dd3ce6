/**
 * The Nuxt module's Nitro plugin (`nuxt/nitro.js`, added by the module through a file it writes into
 * the build folder with the module's options): every request the server handles (a page's render,
 * an API route of the app) runs in a request scope of its own (`createRequestScope()` of
 * `@dynamicforms/fastapi-viewsets/ssr`), whose calls send the request's forwarded headers
 * (by default `authorization` and `cookie`: each request renders as its own user). The scope is
 * closed once the request's handler is done (the page plugin closes it earlier, once the app has
 * rendered).
 */
import { createRequestScope } from '@dynamicforms/fastapi-viewsets/ssr';
import { SCOPE_KEY } from './nuxt-app.js';

/** The part of Nitro's app the plugin wraps: h3's app, whose handler every request goes through. */
export interface NitroAppLike {
  h3App: { handler: (event: H3EventLike) => unknown };
}

/** What the plugin reads of a request's event (h3 1.x). */
export interface H3EventLike {
  node?: { req?: { headers?: Record<string, string | string[] | undefined> } };
  /** What the request's handlers share: the scope goes here, for the page plugin. */
  context?: Record<string, unknown>;
}

/** The options the module hands the plugin. */
export interface NitroOptions {
  /** The request headers every call of the request's scope sends (lower case). */
  forwardHeaders: readonly string[];
}

/** The headers of `event` named in `names`, as an object (a repeated header joined by `, `). */
export function forwarded(event: H3EventLike, names: readonly string[]): Record<string, string> {
  const given = event.node?.req?.headers ?? {};
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = given[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Wraps `nitroApp`'s handler so that each request runs in a request scope of its own. */
export function scopeEachRequest(nitroApp: NitroAppLike, options: NitroOptions): void {
  const handler = nitroApp.h3App.handler;
  nitroApp.h3App.handler = (event) => {
    const scope = createRequestScope({ headers: forwarded(event, options.forwardHeaders) });
    (event.context ??= {})[SCOPE_KEY] = scope;
    return Promise.resolve()
      .then(() => scope.run(() => handler(event)))
      .finally(() => scope.close());
  };
}
