// What the tests of the devtools subpath in a bundler's app share (devtools-vite, devtools-webpack):
// the app's script, which mounts the panel and makes one keyed call to the real backend, and a visit
// of its page that waits for the call and for the panel to list it.

/** The README's policy with style-src 'self' (the panel's styles come from its own file). */
export const POLICY = "script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

/**
 * Source text for the app's module: reports the page's policy violations, mounts the panel open,
 * reads `/config.json`, calls `POST /items/echo` with the body `{ from }` and sets `window.__result`
 * to the call's key and the key the backend saw.
 */
export const devtoolsMain = (from) => `
import { restViewSet, ViewSetMixin } from '@dynamicforms/fastapi-viewsets';
import { mountDevtools } from '@dynamicforms/fastapi-viewsets/devtools';

window.__violations = [];
document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));
mountDevtools({ open: true });
const { baseUrl } = await (await fetch('/config.json')).json();
class Items extends restViewSet()('id', [ViewSetMixin]) {}
const items = new Items({ basePath: '/items', baseUrl, schemaCheck: false });
const call = items.request('POST', '/echo', { body: { from: ${JSON.stringify(from)} } });
const answer = await call;
window.__result = { key: call.key, seen: answer.idempotency_key };
`;

/**
 * Opens `url` in `browser`, waits for the app's call, then (with `panel`) for the panel to list it
 * settled, else a second for a panel that should not come; resolves with the page's result, the
 * panel's row of the call (null without `panel`), whether the panel's host is in the page, the
 * policy violations, the requests and the errors.
 */
export async function visit(browser, url, { panel = true } = {}) {
  const page = await browser.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 60_000 });
    const result = await page.evaluate(() => window.__result);
    let row = null;
    if (panel) {
      await page.waitForFunction(
        (key) => document.querySelector('[data-fastapi-viewsets-devtools]')?.shadowRoot?.querySelector(`tr.call[data-key="${key}"][data-state="settled"]`),
        result.key,
        { timeout: 60_000 },
      );
      row = await page.evaluate((key) => document.querySelector('[data-fastapi-viewsets-devtools]').shadowRoot.querySelector(`tr.call[data-key="${key}"]`).textContent, result.key);
    } else {
      // give a panel that should not come the time it would take
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const host = await page.evaluate(() => Boolean(document.querySelector('[data-fastapi-viewsets-devtools]')));
    const violations = await page.evaluate(() => window.__violations);
    return { ...result, row, host, violations, requests, errors };
  } finally {
    await page.close();
  }
}
