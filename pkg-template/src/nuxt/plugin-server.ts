/**
 * The Nuxt module's plugin on the server (`nuxt/plugin-server.js`, added by the module). The render of
 * each request runs in the request scope that the module's Nitro plugin opened around the request
 * (`nuxt/nitro.js`, which hands it over on the event's context); this puts the package's SSR plugin
 * on the request's Vue app, writes what the render read (the live lists' rows, status, error and
 * cursor, the followers' cursors) into `nuxtApp.payload.viewsets` once the app has rendered, and
 * closes the scope then: nothing the render opened outlives it. It imports nothing of the `/ssr`
 * subpath (Node only), so that Vite's scan of an app's plugins for the browser resolves it.
 */
import { defineNuxtPlugin } from '#app';
import { viewsetsSSR } from '@dynamicforms/fastapi-viewsets/vue';
import { SCOPE_KEY, type NuxtAppLike, type ScopeLike } from './nuxt-app.js';

/** The plugin: Nuxt calls it once per request, with that request's app. */
export default defineNuxtPlugin((nuxtApp: NuxtAppLike): void => {
  const viewsets = viewsetsSSR();
  nuxtApp.vueApp.use(viewsets);
  const scope = nuxtApp.ssrContext?.event?.context?.[SCOPE_KEY] as ScopeLike | undefined;
  nuxtApp.hook('app:rendered', () => {
    nuxtApp.payload.viewsets = viewsets.payload();
    return scope?.close();
  });
});
