// follow() and watch(): the options checked (each wrong one a TypeError naming it), their defaults
// as the polls show them (the events path, the poll interval, the cursor sent), the handle before
// and after the first answer (the survivors of the follower's mutation run, tests/mutation/README.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { flush } from './fake-clock.mjs';
import { restItems, restSetup } from './kit.mjs';

const rev = { value: 50 };
const { clock, server, pkg } = await restSetup((request) => {
  const url = new URL(request.url);
  if (!url.pathname.endsWith('/poll')) return { status: 404, body: {} };
  const body = JSON.parse(request.text);
  const topics = {};
  for (const topic of Object.keys(body.cursors)) topics[topic] = { rev: rev.value, events: [] };
  return { status: 200, body: { topics, poll_after_ms: 0 } };
});

const wrong = (what) => ({ name: 'TypeError', message: `the option ${what} is wrong` });

test('follow(): a topic that is not a string, options that are not an object, each wrong option: a TypeError naming it', () => {
  const base = { baseUrl: 'http://backend.test' };
  for (const topic of ['', 7, null, undefined, {}]) {
    assert.throws(() => pkg.follow(topic, base), { name: 'TypeError', message: "topic must be a string such as '/items' or 'imports:7'" });
  }
  for (const options of [null, 'x', 5, true]) assert.throws(() => pkg.follow('t', options), { name: 'TypeError', message: 'follow options must be an object' });
  for (const eventsPath of ['events', '', 7]) assert.throws(() => pkg.follow('t', { ...base, eventsPath }), wrong("eventsPath (a path such as '/events')"));
  for (const pollIntervalMs of [0, -1, 1.5, '100', 2 ** 53]) assert.throws(() => pkg.follow('t', { ...base, pollIntervalMs }), wrong('pollIntervalMs (whole milliseconds, 1 or more)'));
  for (const checkIntervalMs of [0, -5, 2.5, '1']) assert.throws(() => pkg.follow('t', { ...base, checkIntervalMs }), wrong('checkIntervalMs (whole milliseconds, 1 or more)'));
  for (const from of [-1, 1.5, '5', 'then', 2 ** 53]) assert.throws(() => pkg.follow('t', { ...base, from }), wrong("from ('now' or a rev)"));
  for (const persist of ['yes', 1]) assert.throws(() => pkg.follow('t', { ...base, persist }), wrong('persist (a boolean)'));
  for (const name of ['onEvent', 'onResync', 'onRefused']) {
    for (const value of ['f', 1, null, {}]) assert.throws(() => pkg.follow('t', { ...base, [name]: value }), wrong('onEvent, onResync, onRefused (functions)'), `${name} ${value}`);
  }
  assert.throws(() => pkg.follow('t', { baseUrl: 'http://backend.test', peer: {} }), { name: 'TypeError', message: 'follow takes peer or baseUrl, not both' });
  for (const baseUrl of [5, {}]) assert.throws(() => pkg.follow('t', { baseUrl }), { name: 'TypeError', message: "options.baseUrl must be a string such as 'https://api.example.com' (required outside a web page)" });
  // outside a web page a baseUrl is required; a page whose origin is 'null' has none
  assert.throws(() => pkg.follow('t'), /options\.baseUrl must be a string/);
  globalThis.location = { origin: 'null' };
  try {
    assert.throws(() => pkg.follow('t', {}), /options\.baseUrl must be a string/);
  } finally {
    delete globalThis.location;
  }
  assert.equal(server.requests.length, 0, 'nothing sent');
});

test('the smallest values are taken: an interval of 1 ms, from rev 0', async () => {
  const follower = pkg.follow('smallest', { baseUrl: 'http://backend.test', pollIntervalMs: 1, checkIntervalMs: 1, from: 0, persist: false });
  await follower.ready;
  assert.deepEqual(JSON.parse(server.requests[0].text), { cursors: { smallest: 0 }, scopes: {} }, 'from 0: the first poll asks from rev 0');
  await follower.close();
  server.requests.length = 0;
});

test('the defaults: /events, a poll every 2000 ms, from now; the handle before and after the first answer', async () => {
  server.requests.length = 0;
  const follower = pkg.follow('defaults', { baseUrl: 'http://backend.test' });
  assert.equal(follower.topic, 'defaults');
  assert.equal(follower.cursor, null, 'no cursor before the first answer');
  assert.equal(follower.mode, 'poll');
  assert.equal(follower.scope, undefined);
  assert.equal(follower.error, undefined);
  await follower.ready;
  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0].method, 'POST');
  assert.equal(server.requests[0].url, 'http://backend.test/events/poll');
  assert.deepEqual(JSON.parse(server.requests[0].text), { cursors: { defaults: null }, scopes: {} }, 'from now: cursor null');
  assert.equal(follower.cursor, 50, "the first answer's rev is the cursor");
  const start = clock.now();
  await clock.advance(1999);
  assert.equal(server.requests.length, 1, 'no poll before 2000 ms');
  await clock.advance(1);
  assert.equal(server.requests.length, 2, 'the next poll at 2000 ms');
  assert.equal(server.requests[1].at - start, 2000);
  assert.deepEqual(JSON.parse(server.requests[1].text), { cursors: { defaults: 50 }, scopes: {} });
  await follower.close();
  assert.equal(follower.mode, 'closed');
  await clock.advance(10_000);
  assert.equal(server.requests.length, 2, 'nothing after close()');
  server.requests.length = 0;
});

test('an eventsPath and a from rev are used as given; a pollIntervalMs sets the wait', async () => {
  server.requests.length = 0;
  const follower = pkg.follow('given', { baseUrl: 'http://backend.test/', eventsPath: '/api/ev', from: 7, pollIntervalMs: 500 });
  await follower.ready;
  assert.equal(new URL(server.requests[0].url).pathname.replace(/\/+/g, '/'), '/api/ev/poll');
  assert.deepEqual(JSON.parse(server.requests[0].text).cursors, { given: 7 });
  await clock.advance(500);
  assert.equal(server.requests.length, 2);
  await follower.close();
  server.requests.length = 0;
});

test('watch(): onChange is required; it is given the payload and the event', async () => {
  const items = restItems(pkg);
  for (const options of [{}, { onChange: 'x' }, undefined]) {
    assert.throws(() => items.watch(options), { name: 'TypeError', message: 'watch() is a ViewSet proxy method taking options with onChange, a function' });
  }
  assert.throws(() => pkg.ViewSetMixin.prototype.watch?.call({}, { onChange() {} }) ?? items.watch.call({}, { onChange() {} }), { name: 'TypeError' });
  assert.throws(() => items.watch({ onChange() {}, pollIntervalMs: 0 }), wrong('pollIntervalMs (whole milliseconds, 1 or more)'));
  server.requests.length = 0;
  const got = [];
  const script = server.script;
  let answered = false;
  server.script = (request) => {
    const body = JSON.parse(request.text);
    if (!answered && body.cursors['/items'] === 50) {
      answered = true;
      return { status: 200, body: { topics: { '/items': { rev: 51, events: [{ rev: 51, prev: 50, event: 'records_changed', version: 1, payload: { op: 'deleted', changes: [{ pk: 1 }] } }] } }, poll_after_ms: 0 } };
    }
    return script(request);
  };
  const follower = items.watch({ pollIntervalMs: 100, onChange: (change, event) => got.push([change, event]) });
  await follower.ready;
  assert.equal(follower.topic, '/items', "the proxy's basePath is its topic");
  assert.equal(new URL(server.requests[0].url).href, 'http://api.test/events/poll');
  await follower.catchUp();
  assert.deepEqual(got, [[{ op: 'deleted', changes: [{ pk: 1 }] }, { topic: '/items', event: 'records_changed', version: 1, rev: 51, prev: 50, payload: { op: 'deleted', changes: [{ pk: 1 }] }, via: 'poll' }]]);
  await follower.close();
  server.script = script;
  await flush();
});
