/**
 * `@dynamicforms/fastapi-viewsets`: ViewSet proxies whose every call carries an Idempotency-Key and
 * is repeated safely when its answer is lost, over REST and muxws, with call activity for the UI.
 *
 * Importing the package instantiates its calls module (synchronously); there is no init step to
 * call, in a browser, a bundler (Vite, webpack, Rollup) or Node 20. The muxws module is loaded only
 * by `connectMuxws()`.
 */
// newKey and internalStats are the functions of compose.ts and runtime.ts, exported as they are
// (documented there): a wrapper here would only add a call and its bytes.
/** A new version 4 UUID, built from `crypto.getRandomValues()` as every call's key is. */
export { newKey } from './compose.js';
/** What the runtime holds right now (calls, listeners, timers, peers, memory): for leak checks in tests. */
export { stats as internalStats } from './runtime.js';

export * from './errors.js';
export * from './options.js';
export * from './mixins.js';
export * from './viewset.js';
export * from './proxies.js';
export * from './translate.js';
export * from './activity.js';
export * from './muxws.js';
export * from './persist.js';
export * from './unload.js';
export { follow } from './follow.js';
export type * from './events.js';
