// What the module's plugins import from `#app`, the alias Nuxt gives an app's plugins for its own API
// (the plugins are always built by Nuxt, which resolves it): Nuxt knows a plugin by this call.
declare module '#app' {
  /** Nuxt's plugin marker: the plugin as it is given. */
  export function defineNuxtPlugin<T>(plugin: T): T;
}
