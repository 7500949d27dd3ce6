/**
 * The Nuxt module's devtools plugin (`nuxt/plugin-devtools.js`), added by the module in `nuxt dev`
 * only (and not when `fastapiViewsets: { devtools: false }`), for the browser only: it mounts the
 * devtools panel of `@dynamicforms/fastapi-viewsets/devtools` (its button at the bottom right). A
 * `nuxt build` adds no such plugin, so the production app holds none of it. Importing the subpath
 * starts its record as the app starts: the calls of the first page are in the panel.
 */
import { defineNuxtPlugin } from '#app';
import { mountDevtools } from '@dynamicforms/fastapi-viewsets/devtools';

/** The plugin: Nuxt calls it once, with the page's app; the panel's code loads on demand. */
export default defineNuxtPlugin((): void => {
  mountDevtools();
});
