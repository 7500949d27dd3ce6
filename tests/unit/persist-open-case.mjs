// The scenario of persist: true where IndexedDB cannot be opened (follow/persist.ts's open(), its
// mutants in tests/mutation/README.md): the follower follows from now, twice, and goes on, nothing
// reported. Each way the open fails runs in a file of its own (the database is opened once per
// process): mutation-follow-persist-open-throws.test.mjs, mutation-follow-persist-open-fails.test.mjs.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { restSetup } from './kit.mjs';

/** Registers the test: `how` names the failure, `open` is the fake `indexedDB.open`. */
export async function openFailsCase(how, open) {
  const realSetTimeout = globalThis.setTimeout;
  const { clock, server, pkg } = await restSetup(() => ({ status: 200, body: { topics: { t: { rev: 4, events: [] } }, poll_after_ms: 0 } }));
  let opens = 0;
  globalThis.indexedDB = {
    open() {
      opens++;
      return open();
    },
  };
  const warnings = [];
  const consoleError = console.error;
  console.error = (...args) => warnings.push(args);
  after(() => {
    console.error = consoleError;
    delete globalThis.indexedDB;
  });

  test(`an IndexedDB whose open() ${how}: persist follows from now, twice, and goes on`, async () => {
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
}
