// The Vue subpath (`@dynamicforms/fastapi-viewsets/vue`) in Node 20, against the real backend behind
// the fault proxy: the composables run in an effect scope of the real Vue runtime (`vue`, the
// optional peer), as a component's setup or a Pinia setup store runs them, with no component and no
// DOM. The subpath imports the package by its name; a resolve hook points that name at pkg/ (as an
// app's install does). The same composables in a real Vue app built by Vite, in Chromium:
// tests/browser/vue-app.test.mjs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { pkg } from './pkg-by-name.mjs';
import { control, sleep, waitUntil as until } from './control.mjs';
import { other } from './events-scenarios.mjs';

const vue = await import('vue');
const { useCallActivity, useFollow, useLiveList } = await import('../../pkg/vue/index.js');

let stack;
let ctl;
before(async () => {
  if (typeof WebSocket === 'undefined') throw new Error('run node with --experimental-websocket (muxws needs WebSocket)');
  stack = await startStack();
  ctl = control(stack.baseUrl);
});
after(async () => {
  await stack?.stop();
});

class ItemApi extends pkg.restViewSet()('id', [pkg.ViewSetMixin]) {
  slow(seconds) {
    return this.request('POST', '/slow', { query: { sleep: seconds }, body: { note: 'slow' } });
  }
}

test('vue in node: useLiveList over REST — a write by another client shows, an own write at once marked with its key, then answered; the scope ends the list', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  await other(stack.baseUrl, 'POST', '/items', { name: 'first' });
  const items = new ItemApi({ basePath: '/items', baseUrl: stack.baseUrl, schemaCheck: false });
  const scope = vue.effectScope();
  const live = scope.run(() => useLiveList(items, undefined, { pollIntervalMs: 100 }));
  try {
    await live.list.value.ready;
    assert.deepEqual(live.rows.value.map((row) => row.name), ['first'], 'the first read');
    assert.equal(live.status.value.loading, false);
    await other(stack.baseUrl, 'POST', '/items', { name: 'second' });
    await until(() => live.rows.value.length === 2, () => `another client's create: ${JSON.stringify(live.rows.value)}`);
    const call = items.create({ name: 'mine' });
    // in the task of the call: the list's rows, marked pending with the call's key; the refs once
    // its listeners ran, after the batch
    const list = live.list.value;
    assert.equal(list.rows.at(-1).name, 'mine', 'the own write in the list at once, in the task of the call');
    await Promise.resolve();
    assert.equal(live.rows.value.at(-1).name, 'mine', 'and in the ref after the batch');
    assert.equal(live.pending.value[0]?.key, call.key, 'marked with its key');
    assert.equal(live.pendingOf(live.rows.value.at(-1))?.state, 'sending');
    const made = await call;
    await until(() => live.pending.value.length === 0, () => `still pending: ${JSON.stringify(live.pending.value)}`);
    assert.deepEqual(live.rows.value.map((row) => [row.id, row.name]), [[1, 'first'], [2, 'second'], [made.id, 'mine']], 'answered in its place, no duplicate from the echo');
    await sleep(300);
    assert.equal(live.rows.value.length, 3, 'the echo neither duplicates nor removes the row');
    assert.equal(await ctl.runsOf(call.key), 1, 'the create ran once');
    scope.stop();
    await until(() => list.status.why === 'closed', () => `the list after the scope ended: ${JSON.stringify(list.status)}`);
  } finally {
    scope.stop();
  }
});

test('vue in node: useLiveList with params in a ref — sorted and filtered by the server, read again when the ref changes', async () => {
  await ctl.seedCatalog();
  const books = new (pkg.restViewSet()('id', [pkg.ViewSetMixin]))({ basePath: '/catalog/books', baseUrl: stack.baseUrl, schemaCheck: false });
  const params = vue.ref({ sort: 'title', author: 'Austen' });
  const scope = vue.effectScope();
  const live = scope.run(() => useLiveList(books, params, { pollIntervalMs: 100 }));
  try {
    await until(() => !live.status.value.loading, () => 'the first read');
    const titles = () => live.rows.value.map((row) => row.title);
    const austen = titles();
    assert.ok(austen.length > 1, `Austen's books (${austen})`);
    assert.deepEqual(austen, [...austen].sort(), 'in the server’s order (sort=title)');
    params.value = { sort: 'title:desc', author: 'Austen' };
    await until(() => titles()[0] === austen.at(-1), () => `read again for the new params: ${titles()}`);
    assert.deepEqual(titles(), [...austen].reverse(), 'the new order');
  } finally {
    scope.stop();
  }
});

test('vue in node: useCallActivity — pendingCount counts a call under way and leaves background calls out; retryNow and offline are there', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  const items = new ItemApi({ basePath: '/items', baseUrl: stack.baseUrl, schemaCheck: false });
  const scope = vue.effectScope();
  const activity = scope.run(() => useCallActivity());
  try {
    assert.equal(activity.pendingCount.value, 0);
    assert.equal(activity.offline.value, false);
    const background = items.request('GET', '', { background: true });
    const call = items.slow(0.4);
    assert.equal(activity.pendingCount.value, 1, 'the call counts at once, the background one does not');
    assert.deepEqual(activity.pending.value.map((pending) => pending.key), [call.key], 'the pending call, by its key');
    await Promise.all([call, background]);
    await until(() => activity.pendingCount.value === 0, () => `pendingCount ${activity.pendingCount.value} after the answer`);
    assert.equal(typeof activity.retryNow, 'function');
    assert.equal(await ctl.runsOf(call.key), 1, 'ran once');
  } finally {
    scope.stop();
  }
});

test('vue in node: useFollow over muxws — pushed events in order; the scope ends the follower and the server holds no subscription of the socket', async () => {
  await ctl.reset();
  await ctl.clearFaults();
  const peer = await pkg.connectMuxws(stack.wsUrl);
  const seen = [];
  const scope = vue.effectScope();
  const followed = scope.run(() => useFollow('/items', { peer, onEvent: (event) => void seen.push(event.rev) }));
  const held = async () => (await (await fetch(`${stack.baseUrl}/__test/events/subscriptions`)).json()).sockets;
  try {
    await until(() => followed.mode.value === 'push', () => `mode ${followed.mode.value}`);
    assert.ok((await held()).some((topics) => topics.includes('/items')), 'subscribed');
    for (const name of ['a', 'b', 'c']) await other(stack.baseUrl, 'POST', '/items', { name });
    await until(() => seen.length === 3, () => `events seen: ${seen}`);
    assert.deepEqual(seen, [...seen].sort((x, y) => x - y), 'in rev order, each once');
    assert.equal(followed.last.value?.rev, seen.at(-1), '`last` is the newest event');
    assert.equal(followed.cursor.value, seen.at(-1), 'the cursor');
    scope.stop();
    const deadline = Date.now() + 5000;
    while ((await held()).some((topics) => topics.includes('/items'))) {
      assert.ok(Date.now() < deadline, `a subscription is left: ${JSON.stringify(await held())}`);
      await sleep(50);
    }
  } finally {
    scope.stop();
    await peer.close();
  }
});
