// Module hooks for axios-load.test.mjs (registered with node:module's register()): the network
// fails every load of the axios transport's sending half under its plain URL (axios-send.js); a
// load under a URL of its own (axios-send.js?N, as the transport tries again) goes through.
export async function load(url, context, nextLoad) {
  if (url.endsWith('/axios-send.js')) throw new TypeError('Failed to fetch dynamically imported module (the network failed it, in this test)');
  return nextLoad(url, context);
}
