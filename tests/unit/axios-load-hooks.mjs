// Module hooks for axios-load.test.mjs (registered with node:module's register()): the network
// fails every load of the axios transport's sending half under its first URL (axios-send.js?no-inline); a
// load under a URL of its own (axios-send.js?no-inline&N, as the transport tries again) goes through.
export async function load(url, context, nextLoad) {
  if (url.endsWith('/axios-send.js?no-inline')) throw new TypeError('Failed to fetch dynamically imported module (the network failed it, in this test)');
  return nextLoad(url, context);
}
