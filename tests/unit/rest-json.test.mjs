// Pins how a REST proxy writes a JSON body (issue 36 §6, docs/transports.md), with a fake fetch and
// clock: as JSON.stringify writes it in a page without muxws; once the page has made a muxws proxy,
// as the backend's json.dumps writes a muxws payload (the bytes its idempotency record hashes over
// muxws), so one key is one record on either transport; the same bytes on every attempt; string
// and binary bodies as given. End to end against the real backend: tests/e2e/transports-scenarios.mjs.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { networkError } from './fake-fetch.mjs';
import { assertNoLeaks, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup(() => ({ status: 200, body: {} }));

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

const BODY = { note: 'é 東京 😀', list: [1, 2.5, { x: 1e-7, big: 1e21, small: 0.0001, whole: 1e16 }], ok: true, none: null, s: 'a,b:"c"\\ 1.5e3' };
/** What Python's json.dumps(json.loads(JSON.stringify(BODY))) writes (Python 3.11). */
const AS_PYTHON =
  '{"note": "\\u00e9 \\u6771\\u4eac \\ud83d\\ude00", "list": [1, 2.5, {"x": 1e-07, "big": 1e+21, "small": 0.0001, "whole": 10000000000000000}], "ok": true, "none": null, "s": "a,b:\\"c\\"\\\\ 1.5e3"}';

async function sent(body, options = {}) {
  const items = restItems(pkg, { repeat: { delayMs: 100 }, ...options });
  const call = items.echo(body);
  await clock.advance(1_000);
  await call;
  return server.requestsWithKey(call.key);
}

test('a REST JSON body: JSON.stringify’s text until the page makes a muxws proxy, then json.dumps’s, on every attempt', async () => {
  const [before] = await sent(BODY);
  assert.equal(before.text, JSON.stringify(BODY), 'no muxws proxy yet: JSON.stringify’s text');

  class Mux extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {}
  new Mux({ basePath: '/items', peer: () => new Promise(() => {}), schemaCheck: false });

  let lost = 1;
  server.script = () => (lost-- > 0 ? networkError() : { status: 200, body: {} });
  const attempts = await sent(BODY);
  assert.equal(attempts.length, 2, 'a lost attempt and its repeat');
  for (const attempt of attempts) {
    assert.equal(attempt.text, AS_PYTHON, 'the text the backend hashes for the muxws payload');
    assert.equal(attempt.headers['content-type'], 'application/json');
  }
  server.script = () => ({ status: 200, body: {} });

  const [text] = await sent('{"as":"given"}');
  assert.equal(text.text, '{"as":"given"}', 'a string body as given');
  const [bytes] = await sent(new Uint8Array([123, 125]));
  assert.deepEqual([...bytes.bytes], [123, 125], 'bytes as given');
  const [number] = await sent(0.5);
  assert.equal(number.text, '0.5', 'a JSON number');
  const [whole] = await sent(3);
  assert.equal(whole.text, '3', 'an integer stays one');
});
