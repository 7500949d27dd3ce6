// Written for the mutants of runtime.ts that the rest of the unit suite let live (see
// tests/mutation/README.md), on the muxws side: the count of live peers in internalStats(), the
// transport a call travels through as its events and pendingCalls() name it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { installClock } from './fake-clock.mjs';
import { installMuxwsServer } from './fake-websocket.mjs';
import { installFetch, networkError } from './fake-fetch.mjs';
import { reactive } from '@vue/reactivity';
import { assertNoLeaks, importPackage, observe, recordActivity, restItems } from './kit.mjs';

const clock = installClock();
const server = installMuxwsServer();
const rest = installFetch(() => networkError());
const pkg = await importPackage();

after(async () => {
  await assertNoLeaks(pkg, clock);
  server.uninstall();
  rest.uninstall();
  clock.uninstall();
});

test('internalStats().peers counts the peers connected and not yet closed; a muxws call is named muxws', async () => {
  assert.equal(pkg.internalStats().peers, 0);
  const first = await pkg.connectMuxws('ws://mux.test/a', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  assert.equal(pkg.internalStats().peers, 1);
  const second = await pkg.connectMuxws('ws://mux.test/b', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  assert.equal(pkg.internalStats().peers, 2);

  let answer = null;
  server.answer = () => answer;
  class Items extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {}
  const items = new Items({ basePath: '/items', peer: second, schemaCheck: false });
  const activity = recordActivity(pkg);
  const call = items.list();
  const seen = observe(call);
  await clock.settle();
  const [pending] = pkg.pendingCalls();
  assert.equal(pending.transport, 'muxws');
  assert.equal(pending.waitingFor, 'in-flight');
  const [open] = server.opens.filter(({ socket }) => socket.url === 'ws://mux.test/b');
  assert.ok(open, 'the call went over the second peer');
  server.reply(open.socket, open.frame.stream, { status: 200, payload: [1] });
  await clock.settle();
  assert.deepEqual(seen.value, [1]);
  assert.ok(activity.of(call.key).every((event) => event.transport === 'muxws'));
  activity.stop();

  let closing = first.close();
  await clock.advance(100);
  await closing;
  assert.equal(pkg.internalStats().peers, 1, 'one closed for good');
  closing = second.close();
  await clock.advance(100);
  await closing;
  assert.equal(pkg.internalStats().peers, 0);
  void answer;
});

test('a peer wrapped in Vue state is the peer; the muxws module adds its memory to internalStats()', async () => {
  server.answer = () => ({ status: 200, payload: { via: 'wrapped' } });
  const peer = await pkg.connectMuxws('ws://mux.test/c', { reconnect: { initialDelayMs: 100, jitter: 0 } });
  const stats = pkg.internalStats();
  assert.equal(typeof stats.muxwsMemoryBytes, 'number', 'the muxws module\'s figures');
  assert.ok(stats.muxwsMemoryBytes > 0);
  class Items extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {}
  const state = reactive({ peer });
  const items = new Items({ basePath: '/items', peer: state.peer, schemaCheck: false });
  const call = items.list();
  await clock.settle();
  assert.deepEqual(await call, { via: 'wrapped' });
  const closing = peer.close();
  await clock.advance(100);
  await closing;
});

test('retryNow() redials a muxws peer waiting for its reconnect, even with a REST call waiting first', async () => {
  const restCall = observe(restItems(pkg, { repeat: { delayMs: 60_000, withinMs: 120_000 } }).list());
  await clock.settle();
  let answer = 'drop';
  server.answer = () => answer;
  const peer = await pkg.connectMuxws('ws://mux.test/d', { reconnect: { initialDelayMs: 30_000, jitter: 0 } });
  class Items extends pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]) {}
  const items = new Items({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 1_000 } });
  const call = observe(items.list());
  await clock.settle();
  const before = server.sockets.filter((socket) => socket.url === 'ws://mux.test/d').length;
  server.sockets.at(-1).drop();
  answer = { status: 200, payload: 'again' };
  await clock.advance(2_000);
  assert.equal(server.sockets.filter((socket) => socket.url === 'ws://mux.test/d').length, before, 'no redial before the reconnect delay');
  pkg.retryNow();
  await clock.settle();
  assert.equal(server.sockets.filter((socket) => socket.url === 'ws://mux.test/d').length, before + 1, 'redialled at once');
  await clock.settle();
  assert.equal(call.value, 'again');
  const closing = peer.close();
  await clock.advance(100);
  await closing;
  rest.script = () => ({ status: 200, body: {} });
  pkg.retryNow();
  await clock.settle();
  assert.equal(restCall.ok, true);
});
