// Listeners see a consistent batch: a call issued inside an onCallActivity listener is reported
// after the batch being delivered, to every listener, as TanStack's notifyManager flushes at the
// outermost batch only. Before, the second listener was told of the new call's start before the
// first call's start, the event it was being told about.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertNoLeaks, restItems, restSetup } from './kit.mjs';

const { clock, server, pkg } = await restSetup(() => ({ status: 200, body: { ok: true } }));

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  clock.uninstall();
});

test('a call issued inside a listener is reported after the batch being delivered, to every listener', async () => {
  const items = restItems(pkg);
  const first = [];
  const second = [];
  let inner;
  const stopFirst = pkg.onCallActivity((event) => {
    first.push([event.type, event.path]);
    if (event.type === 'start' && event.path.endsWith('/items/1')) inner = items.retrieve(2);
  });
  const stopSecond = pkg.onCallActivity((event) => second.push([event.type, event.path]));
  const outer = items.retrieve(1);
  const starts = (seen) => seen.filter(([type]) => type === 'start').map(([, path]) => path);
  assert.deepEqual(starts(second), ['/items/1', '/items/2'], `the second listener is told of the first call's start first: ${JSON.stringify(second)}`);
  assert.deepEqual(starts(first), ['/items/1', '/items/2']);
  assert.deepEqual(first, second, 'both listeners see the same events in the same order');
  await Promise.all([outer, inner]);
  await clock.advance(10);
  stopFirst();
  stopSecond();
});
