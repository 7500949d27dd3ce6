/**
 * The Nuxt module's plugin on the server (`nuxt/plugin-server.js`, added by the module): the render of
 * each request runs in the request scope that the module's Nitro plugin opened around the request
 * (`nuxt/nitro.js`); this puts the package's SSR plugin on the request's Vue app, writes what the
 * render read (the live lists' rows, status, error and cursor, the followers' cursors) into
 * `nuxtApp.payload.viewsets` once the app has rendered, and closes the scope then: nothing the render
 * opened outlives it.
 */
import { requestScope } from '@dynamicforms/fastapi-viewsets/ssr';
import { viewsetsSSR } from '@dynamicforms/fastapi-viewsets/vue';
import type { NuxtAppLike } from './nuxt-app.js';

/** The plugin: Nuxt calls it once per request, with that request's app. */
export default function fastapiViewsetsServer(nuxtApp: NuxtAppLike): void {
  const viewsets = viewsetsSSR();
  nuxtApp.vueApp.use(viewsets);
  // Taken now, in the request's context: the hook may run where the context is not the request's.
  const scope = requestScope();
  nuxtApp.hook('app:rendered', () => {
    nuxtApp.payload.viewsets = viewsets.payload();
    return scope?.close();
  });
}
