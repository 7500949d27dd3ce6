// A lazy muxws peer's first call warns nothing (issue 36 §5), in Chromium: an app, built by Vite with
// its defaults and served with the README's policy, defines a muxws proxy at module scope over the
// README's lazy peer, `peer: () => connectMuxws(url, { lazy: true })`, its schema check on (the
// default), and calls it. The call is answered at its first attempt, and the schema check goes out
// over the socket it waited for: no "schema check failed ConnectionLost: not connected (between
// sockets)". The proxy also declares LookupMixin, whose route /items does not serve: the check's
// comparison reports it, the sign the page waits for that the check came to its end (or a failure).
// The same in Node 20: tests/e2e/lazy-peer.test.mjs. (tests/browser/lazy-peer-log.mjs prints the
// network log of a page whose lazy peer is left unused.)
//   node --test tests/browser/lazy-peer.test.mjs
//   PKG_DIR=<folder> … packs another build of the package (7a0e5fb's fails).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { packedAppHooks, pageResult, serveViteBuild } from './consumer-app.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgDir = path.resolve(process.env.PKG_DIR ?? path.join(repoRoot, 'pkg'));

// The page's warnings are read by the page itself (console.warn wrapped before the proxy exists), so
// that it waits for the check's end, not for a time.
const MAIN_JS = `
import { muxwsViewSet, connectMuxws, onCallActivity, ViewSetMixin, LookupMixin } from '@dynamicforms/fastapi-viewsets';
const warnings = [];
const realWarn = console.warn;
console.warn = (...args) => { warnings.push(args.map(String).join(' ')); realWarn(...args); };
const events = [];
onCallActivity((event) => events.push(event));
const { wsUrl } = await (await fetch('/config.json')).json();
class MuxApi extends muxwsViewSet()('id', [ViewSetMixin, LookupMixin]) {}
export const items = new MuxApi({ basePath: '/items', peer: () => connectMuxws(wsUrl, { lazy: true }) });
const first = items.list();
const listed = await first;
const ended = () => warnings.some((line) => line.includes('/items: schema check') || (line.includes('/items:') && line.includes('lookup()')));
for (let i = 0; i < 1500 && !ended(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
window.__result = {
  listed: Array.isArray(listed),
  firstCall: events.filter((event) => event.key === first.key).map((event) => event.type),
  checks: events.filter((event) => event.path === '/items/schema' && event.type === 'settle').map(({ ok, transport, attempts, background }) => ({ ok, transport, attempts, background })),
  pageWarnings: warnings,
};
`;

const fixture = packedAppHooks('lazy-peer', (app, stack) => serveViteBuild(app, stack, MAIN_JS), { pkgDir });

test("chromium: a lazy peer's first call warns nothing: answered at its first attempt, the schema check goes out over the socket it waited for", async () => {
  const result = await pageResult(fixture.browser, fixture.server.url);
  assert.equal(result.listed, true, 'the first call is answered');
  assert.deepEqual(result.pageWarnings.filter((line) => line.includes('schema check')), [], 'no "schema check failed" (nor "not run")');
  assert.deepEqual(result.firstCall, ['start', 'settle'], 'the first call: one attempt, no repeat');
  assert.ok(result.pageWarnings.some((line) => line.includes('lookup()') && line.includes('/items/lookup')), `the comparison ran: lookup() reported (${result.pageWarnings})`);
  assert.deepEqual(result.checks, [{ ok: true, transport: 'muxws', attempts: 1, background: true }], 'one check, over the socket, sent once');
  assert.deepEqual(result.errors.filter((text) => !/favicon|404 \(Not Found\)/.test(text)), [], 'nothing logged an error');
});
