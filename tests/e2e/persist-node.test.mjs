// Persistence where there is no IndexedDB (Node 20; server-side rendering runs the same code):
// resumeCalls() resolves with no calls and leaves persistence off, a call with `persist` is sent as
// any other, with its key, and nothing is logged. (In browsers: tests/browser/life.test.mjs.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { startStack } from '../harness/stack.mjs';
import { control } from './control.mjs';

let stack;
let pkg;

before(async () => {
  pkg = await import('../../pkg/index.js');
  stack = await startStack({});
});

after(async () => {
  await stack?.stop();
});

test('node: without IndexedDB, resumeCalls() resolves with none and a persisted call is an ordinary call, nothing logged', async () => {
  assert.equal(typeof indexedDB, 'undefined');
  const logged = [];
  const { error, warn } = console;
  console.error = (...args) => logged.push(args.map(String).join(' '));
  console.warn = console.error;
  try {
    class Items extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {}
    const items = new Items({ basePath: '/items', baseUrl: stack.baseUrl, schemaCheck: false, persist: true });
    assert.deepEqual(await pkg.resumeCalls(), []);
    const call = items.request('POST', '/echo', { body: { persisted: true } });
    const answer = await call;
    assert.deepEqual(answer.body, { persisted: true });
    assert.equal(await control(stack.baseUrl).runsOf(call.key), 1);
    await new Promise((resolve) => setTimeout(resolve, 50)); // a store's warning would come after the settle
  } finally {
    console.error = error;
    console.warn = warn;
  }
  assert.deepEqual(logged, []);
});
