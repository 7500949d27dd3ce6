/**
 * The Nuxt module's plugin in the browser (`nuxt/plugin-client.js`, added by the module): the
 * package's SSR plugin on the app, given what the server's render read (`nuxtApp.payload.viewsets`),
 * so that the live lists and followers of the first render show exactly the server's rows and status,
 * read nothing again, and follow from the server's cursor. It runs after Nuxt has revived the
 * payload (Nuxt's own payload plugin is ordered first).
 */
import { defineNuxtPlugin } from '#app';
import { viewsetsSSR, type ViewsetsPayload } from '@dynamicforms/fastapi-viewsets/vue';
import type { NuxtAppLike } from './nuxt-app.js';

/** The plugin: Nuxt calls it once, with the page's app. */
export default defineNuxtPlugin((nuxtApp: NuxtAppLike): void => {
  nuxtApp.vueApp.use(viewsetsSSR((nuxtApp.payload.viewsets as ViewsetsPayload | undefined) ?? null));
});
