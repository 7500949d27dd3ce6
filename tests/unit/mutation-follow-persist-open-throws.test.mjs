// persist: true where IndexedDB's open() throws (a blocked storage): the follower follows from now
// and goes on, nothing reported (follow/persist.ts's open(), tests/mutation/README.md). A file of
// its own: the database is opened once per process.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { restSetup } from './kit.mjs';

const realSetTimeout = globalThis.setTimeout;
const { clock, server, pkg } = await restSetup(() => ({ status: 200, body: { topics: { t: { rev: 4, events: [] } }, poll_after_ms: 0 } }));
let opens = 0;
globalThis.indexedDB = {
  open() {
    opens++;
    throw new DOMException('storage is blocked', 'SecurityError');
  },
};
const warnings = [];
const consoleError = console.error;
console.error = (...args) => warnings.push(args);
after(() => {
  console.error = consoleError;
  delete globalThis.indexedDB;
});

test('an IndexedDB whose open() throws: persist follows from now, twice, and goes on', async () => {
  for (const round of [1, 2]) {
    server.requests.length = 0;
    const follower = pkg.follow('t', { baseUrl: 'http://backend.test', persist: true });
    for (let i = 0; i < 200 && !server.requests.length; i++) {
      await new Promise((resolve) => realSetTimeout(resolve, 5));
      await clock.advance(0);
    }
    assert.equal(server.requests.length, 1, `round ${round}: the first poll went`);
    assert.deepEqual(JSON.parse(server.requests[0].text).cursors, { t: null }, 'from now');
    await follower.ready;
    assert.equal(follower.cursor, 4);
    await follower.close();
    await clock.advance(10);
  }
  assert.ok(opens >= 1);
  assert.deepEqual(warnings, [], 'nothing reported');
});
