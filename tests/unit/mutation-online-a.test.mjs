// Written for the mutants of runtime.ts's followOnline() that the rest of the unit suite let live
// (see tests/mutation/README.md): a scope that has navigator.onLine but no addEventListener is
// not followed: the package imports, no listener is added, calls go out as in Node.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { installClock } from './fake-clock.mjs';
import { installFetch } from './fake-fetch.mjs';
import { assertNoLeaks, importPackage, observe, restItems } from './kit.mjs';

const added = [];
Object.defineProperty(globalThis, 'navigator', { value: { onLine: false }, configurable: true, writable: true });
const clock = installClock();
const server = installFetch(() => ({ status: 200, body: { fine: true } }));
const pkg = await importPackage();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

test('navigator.onLine without addEventListener: not followed; a call goes out and is answered', async () => {
  assert.deepEqual(added, [], 'no online/offline listener');
  const seen = observe(restItems(pkg).list());
  await clock.settle();
  assert.deepEqual(seen.value, { fine: true });
});
