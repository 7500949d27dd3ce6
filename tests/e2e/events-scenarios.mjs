// Live data end to end: follow() and a proxy's watch()/applyChanges() against the real backend's
// events (fastapi-viewsets 0.14: ChangeEvents, the source `imports`, the scoped viewset /scoped),
// through the fault proxy. Each scenario runs unchanged in Node 20 (tests/e2e/events.test.mjs) and
// in headless Chromium (tests/browser/e2e.test.mjs). A scenario gets { pkg, baseUrl, wsUrl, ctl }.
import { equal, ok, same } from './check.mjs';
import { recordActivity, sleep } from './control.mjs';

const POLL_MS = 250;

/** A second client: plain fetch, no SDK. */
export async function other(baseUrl, method, path, body, headers = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function items(pkg, baseUrl, options = {}) {
  const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
  return new Api({ basePath: '/items', baseUrl, schemaCheck: false, repeat: { delayMs: 50 }, ...options });
}

/** Resolves once `check()` holds, polling every 20 ms; throws after `ms`. */
export async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** A topic of the source `imports` no other scenario uses. */
export const freshKey = () => `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Publishes `n` events to `imports:{key}` on the server; answers their revs. */
export async function publish(baseUrl, key, n) {
  return (await other(baseUrl, 'POST', `/__test/events/publish?key=${key}&n=${n}`)).revs;
}

/** Checks that `events` is an unbroken chain from `from`: each prev the rev before, revs increasing. */
export function chain(events, from, what) {
  let at = from;
  for (const event of events) {
    equal(event.prev, at, `${what}: prev of rev ${event.rev}`);
    ok(event.rev > at, `${what}: revs increase`);
    at = event.rev;
  }
}

export const eventsScenarios = {
  async "events: watch() over REST gets a second client's create, update and delete within the poll interval"({ pkg, baseUrl }) {
    const proxy = items(pkg, baseUrl);
    const seen = [];
    const follower = proxy.watch({ pollIntervalMs: POLL_MS, onChange: (change, event) => seen.push({ change, event, at: Date.now() }) });
    try {
      equal(follower.topic, '/items', 'the topic is the proxy basePath');
      await follower.ready;
      equal(follower.mode, 'poll', 'mode');
      ok(Number.isSafeInteger(follower.cursor), `a cursor is held (${follower.cursor})`);
      const sent = Date.now();
      const created = await other(baseUrl, 'POST', '/items', { name: 'live' });
      await until(() => seen.length >= 1, POLL_MS + 1500, 'the create');
      ok(seen[0].at - sent <= POLL_MS + 1500, `the create arrived in ${seen[0].at - sent} ms`);
      same(seen[0].change, { op: 'created', changes: [{ pk: created.id }] }, 'the create');
      equal(seen[0].event.via, 'poll', 'via');
      equal(seen[0].event.event, 'records_changed', 'event name');
      equal(seen[0].event.version, 1, 'version');
      await other(baseUrl, 'PATCH', `/items/${created.id}`, { name: 'live 2' });
      await other(baseUrl, 'DELETE', `/items/${created.id}`);
      await until(() => seen.length >= 3, 2 * POLL_MS + 3000, 'the update and the delete');
      same(seen.map((entry) => entry.change.op), ['created', 'updated', 'deleted'], 'in order');
      chain(seen.map((entry) => entry.event), seen[0].event.prev, 'the chain');
      equal(follower.cursor, seen[2].event.rev, 'the cursor is the last rev');
      await sleep(3 * POLL_MS);
      equal(seen.length, 3, 'each once');
    } finally {
      await follower.close();
    }
    equal(follower.mode, 'closed', 'closed');
  },

  async 'events: follow() delivers a burst in rev order, each event once'({ pkg, baseUrl }) {
    const key = freshKey();
    const got = [];
    const follower = pkg.follow(`imports:${key}`, {
      baseUrl,
      pollIntervalMs: 100,
      async onEvent(event) {
        got.push(event);
        await sleep(5); // awaited before the next one
      },
    });
    try {
      await follower.ready;
      const revs = [];
      for (let round = 0; round < 5; round += 1) {
        revs.push(...(await publish(baseUrl, key, 4)));
        await sleep(60);
      }
      await until(() => got.length >= revs.length, 5000, `${revs.length} events`);
      await follower.catchUp();
      same(got.map((event) => event.rev), revs, 'every rev, once, in order');
      chain(got, got[0].prev, 'the chain');
      ok(got.every((event) => event.topic === `imports:${key}` && event.event === 'import_finished' && event.via === 'poll'), 'topic, name, via');
      same(got[3].payload, { file: `${key}-3.csv`, rows: 3 }, 'payload');
      ok(!('scope' in got[0]), 'no scope on an unscoped topic');
    } finally {
      await follower.close();
    }
  },

  async 'events: more events than the log holds while no poll goes: onResync once, then events again'({ pkg, baseUrl }) {
    const { event_log_size: logSize } = await other(baseUrl, 'GET', '/__test/ready');
    const key = freshKey();
    const got = [];
    const resyncs = [];
    let inResync = false;
    const follower = pkg.follow(`imports:${key}`, {
      baseUrl,
      from: 'now',
      pollIntervalMs: 600_000, // no poll but the ones catchUp() asks for
      onEvent: (event) => {
        ok(!inResync, 'no event while onResync runs');
        got.push(event);
      },
      async onResync(info) {
        inResync = true;
        resyncs.push(info);
        await sleep(100);
        inResync = false;
      },
    });
    try {
      await follower.ready;
      await publish(baseUrl, key, 2);
      await follower.catchUp();
      equal(got.length, 2, 'two events before the overflow');
      const revs = await publish(baseUrl, key, logSize + 5);
      await follower.catchUp();
      equal(resyncs.length, 1, 'onResync once');
      same(resyncs[0], { topic: `imports:${key}`, rev: revs.at(-1), scope: undefined }, 'the resync info');
      equal(got.length, 2, 'no event of the lost stretch');
      equal(follower.cursor, revs.at(-1), 'the cursor is the rev of the resync');
      const after = await publish(baseUrl, key, 3);
      await follower.catchUp();
      same(got.slice(2).map((event) => event.rev), after, 'events again after the resync');
      equal(got[2].prev, revs.at(-1), 'from the resync rev');
      equal(resyncs.length, 1, 'still one resync');
    } finally {
      await follower.close();
    }
  },

  async 'events: a refused topic: onRefused with 403, mode refused, ready rejects'({ pkg, baseUrl }) {
    const refusals = [];
    const follower = pkg.follow('imports:secret', { baseUrl, pollIntervalMs: 100, onRefused: (error) => refusals.push(error), onEvent: () => {} });
    let readyError;
    await follower.ready.catch((error) => {
      readyError = error;
    });
    equal(refusals.length, 1, 'onRefused once');
    ok(refusals[0] instanceof pkg.HttpError, 'an HttpError');
    equal(refusals[0].status, 403, 'status');
    equal(refusals[0].detailCode, 'fastapi-viewsets.event_topic_refused', 'detailCode');
    equal(readyError, refusals[0], 'ready rejects with it');
    equal(follower.mode, 'refused', 'mode');
    await sleep(300);
    equal(refusals.length, 1, 'no more polls of a refused topic');
    await follower.close();
  },

  async 'events: a scoped topic (@event_scope) gets its own events only'({ pkg, baseUrl }) {
    const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
    const org7 = new Api({ basePath: '/scoped', baseUrl, schemaCheck: false, headers: { 'X-Org': '7' } });
    const org8 = new Api({ basePath: '/scoped', baseUrl, schemaCheck: false, headers: { 'X-Org': '8' } });
    const seen7 = [];
    const seen8 = [];
    const follow7 = org7.watch({ pollIntervalMs: POLL_MS, onChange: (change, event) => seen7.push(event) });
    const follow8 = org8.watch({ pollIntervalMs: POLL_MS, onChange: (change, event) => seen8.push(event) });
    try {
      await Promise.all([follow7.ready, follow8.ready]);
      equal(follow7.scope, '7', 'the scope of org 7');
      equal(follow8.scope, '8', 'the scope of org 8');
      const created = await org7.create({ name: 'org 7 only' });
      await until(() => seen7.length >= 1, POLL_MS + 2000, 'the org 7 event');
      await follow8.catchUp();
      same(seen7[0].payload, { op: 'created', changes: [{ pk: created.id }] }, 'org 7 got its create');
      equal(seen7[0].scope, '7', 'with its scope');
      equal(seen8.length, 0, 'org 8 got nothing');
      await org8.create({ name: 'org 8 only' });
      await until(() => seen8.length >= 1, POLL_MS + 2000, 'the org 8 event');
      await follow7.catchUp();
      equal(seen7.length, 1, 'org 7 did not get the org 8 create');
    } finally {
      await Promise.all([follow7.close(), follow8.close()]);
    }
  },

  async 'events: applyChanges against the real list (create, update, delete, the same change twice)'({ pkg, baseUrl }) {
    const proxy = items(pkg, baseUrl);
    const changes = [];
    const follower = proxy.watch({ pollIntervalMs: POLL_MS, onChange: (change) => changes.push(change) });
    try {
      await follower.ready;
      let rows = await proxy.list();
      const created = await other(baseUrl, 'POST', '/items', { name: 'applied', qty: 1 });
      await until(() => changes.length >= 1, POLL_MS + 2000, 'the create');
      rows = await proxy.applyChanges(rows, changes[0]);
      const again = await proxy.applyChanges(rows, changes[0]);
      same(again, rows, 'the same create twice gives the same rows');
      same(rows, await proxy.list(), 'rows after the create are the list');
      await other(baseUrl, 'PATCH', `/items/${created.id}`, { qty: 5 });
      await until(() => changes.length >= 2, POLL_MS + 2000, 'the update');
      rows = await proxy.applyChanges(rows, changes[1]);
      same(await proxy.applyChanges(rows, changes[1]), rows, 'the same update twice');
      equal(rows.find((row) => row.id === created.id).qty, 5, 'the updated record');
      same(rows, await proxy.list(), 'rows after the update are the list');
      await other(baseUrl, 'DELETE', `/items/${created.id}`);
      await until(() => changes.length >= 3, POLL_MS + 2000, 'the delete');
      rows = await proxy.applyChanges(rows, changes[2]);
      same(await proxy.applyChanges(rows, changes[2]), rows, 'the same delete twice');
      ok(!rows.some((row) => row.id === created.id), 'the record is gone');
      same(rows, await proxy.list(), 'rows after the delete are the list');
      // a writer gets its own change back: applying it to rows that already hold the record changes nothing
      const own = await proxy.create({ name: 'mine' });
      rows = [...rows, own];
      await until(() => changes.length >= 4, POLL_MS + 2000, 'the own create');
      same(await proxy.applyChanges(rows, changes[3]), rows, 'an own create applied to rows holding it');
    } finally {
      await follower.close();
    }
  },

  async 'events: applyChanges() of 2 000 records where the schema declares {pk}__in: a few list calls of /catalog/indexed, no retrieve; the rows are the records'({ pkg, baseUrl, ctl }) {
    await ctl.seedCatalog();
    try {
      const N = 2000;
      const created = await other(baseUrl, 'POST', '/catalog/bulk/bulk', Array.from({ length: N }, (_, i) => ({ title: `applied ${i}`, author: 'Apply', year: 2000 + (i % 20) })));
      const ids = created.map((book) => book.id);
      equal(new Set(ids).size, N, `${N} books made`);
      const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
      const indexed = new Api({ basePath: '/catalog/indexed', baseUrl, schemaCheck: false });
      const count = async () => {
        const counters = await ctl.counters();
        return { list: counters['indexed.list'] ?? 0, retrieve: counters['indexed.retrieve'] ?? 0 };
      };
      const before = await count();
      // one row already there is replaced where it stands; a pk gone meanwhile leaves the rows
      const rows = [{ id: ids[5], title: 'stale' }, { id: 1, title: 'a seeded book, not in the change' }];
      await other(baseUrl, 'DELETE', `/catalog/indexed/${ids[7]}`);
      const out = await indexed.applyChanges(rows, { op: 'updated', changes: ids.map((pk) => ({ pk })) });
      const after = await count();
      const lists = after.list - before.list;
      equal(after.retrieve - before.retrieve, 0, 'no retrieve');
      ok(lists >= 1 && lists <= 10, `a few list calls (${lists})`);
      equal(out.length, 2 + N - 2, 'every record but the one gone (its row was not there), the row of ids[5] replaced');
      equal(out[0].title, 'applied 5', 'the row of ids[5] replaced where it stood');
      equal(out[1].title, rows[1].title, 'the row not in the change kept');
      same(out.slice(2).map((book) => book.id), ids.filter((id, i) => i !== 5 && i !== 7), 'the others appended, in the change\'s order');
      // a proxy whose schema does not declare it (/catalog/books, the same books): retrieves, 8 at a time
      const Books = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
      const books = new Books({ basePath: '/catalog/books', baseUrl, schemaCheck: false });
      const counted = (await ctl.counters())['books.retrieve'] ?? 0;
      const some = await books.applyChanges([], { op: 'created', changes: ids.slice(10, 30).map((pk) => ({ pk })) });
      equal(some.length, 20, 'read by retrieves');
      equal(((await ctl.counters())['books.retrieve'] ?? 0) - counted, 20, 'one retrieve each');
    } finally {
      await ctl.seedCatalog();
    }
  },

  async 'events: polls are background calls, each with a key of its own'({ pkg, baseUrl, ctl }) {
    const key = freshKey();
    const activity = recordActivity(pkg);
    let maxCount = 0;
    const stopCount = pkg.onCallActivity(() => {
      maxCount = Math.max(maxCount, pkg.pendingCallCount());
    });
    const follower = pkg.follow(`imports:${key}`, { baseUrl, pollIntervalMs: 100, onEvent: () => {} });
    try {
      await follower.ready;
      await sleep(700);
    } finally {
      await follower.close();
      stopCount();
      activity.stop();
    }
    const polls = activity.events.filter((event) => event.path === '/events/poll' && event.type === 'start');
    ok(polls.length >= 4, `several polls (${polls.length})`);
    ok(polls.every((event) => event.background === true), 'every poll is background');
    equal(maxCount, 0, 'pendingCallCount() never counted a poll');
    ok(pkg.pendingCalls().filter((call) => call.path === '/events/poll').length <= 1, 'pendingCalls() does not fill up with polls');
    const keys = new Set(polls.map((event) => event.key));
    equal(keys.size, polls.length, 'a new key per poll');
    await sleep(200);
    const wire = (await ctl.log()).filter((entry) => entry.path === '/events/poll' && keys.has(String(entry.idempotency_key).slice(1, -1)));
    ok(wire.length >= polls.length - 1, `the polls on the wire (${wire.length} of ${polls.length})`);
    equal(new Set(wire.map((entry) => entry.idempotency_key)).size, wire.length, 'every poll on the wire had its own Idempotency-Key');
  },

  async 'events: a poll that got no answer is repeated under its key, the next poll has a new one'({ pkg, baseUrl, ctl }) {
    const key = freshKey();
    const got = [];
    const follower = pkg.follow(`imports:${key}`, { baseUrl, pollIntervalMs: 600_000, onEvent: (event) => got.push(event) });
    await follower.ready;
    const activity = recordActivity(pkg);
    try {
      // a gateway's 503 page: no answer of the backend (Chromium resends a dropped connection by
      // itself, unseen, so the loss is a gateway status here)
      await ctl.fault('status:503', { count: 1, path: '/events/poll', method: 'POST' });
      const [rev] = await publish(baseUrl, key, 1);
      await follower.catchUp();
      same(got.map((event) => event.rev), [rev], 'the event, once, from the repeat');
      const [first] = activity.events.filter((event) => event.path === '/events/poll' && event.type === 'start');
      const retries = activity.retriesOf(first.key);
      equal(retries.length, 1, 'the poll without an answer was repeated once');
      equal(retries[0].ended, 'gateway-status', 'how it ended');
      equal((await ctl.entriesOf(first.key)).length, 1, 'its repeat reached the backend under the same key');
      await publish(baseUrl, key, 1);
      await follower.catchUp();
      const starts = activity.events.filter((event) => event.path === '/events/poll' && event.type === 'start');
      equal(starts.length, 2, 'two polls');
      ok(starts[1].key !== first.key, 'the next poll has a new key');
      equal(got.length, 2, 'and its event');
    } finally {
      activity.stop();
      await ctl.clearFaults();
      await follower.close();
    }
  },

  async 'events: a poll answered 429 backs off and goes on; a whole poll answered 401 refuses its topics'({ pkg, baseUrl, ctl }) {
    const key = freshKey();
    const refusals = [];
    const got = [];
    const follower = pkg.follow(`imports:${key}`, { baseUrl, pollIntervalMs: 100, onEvent: (event) => got.push(event), onRefused: (error) => refusals.push(error) });
    try {
      await follower.ready;
      await ctl.fault('status:429', { count: 2, path: '/events/poll', method: 'POST' });
      const revs = await publish(baseUrl, key, 2);
      await until(() => got.length >= 2, 5000, 'the events after two 429s');
      same(got.map((event) => event.rev), revs, 'delivered after the backoff');
      equal(refusals.length, 0, 'a 429 refuses nothing');
      equal(follower.mode, 'poll', 'still polling');
      await ctl.fault('status:401', { count: 1, path: '/events/poll', method: 'POST' });
      await until(() => refusals.length >= 1, 3000, 'the refusal');
      equal(refusals[0].status, 401, 'the whole poll refused with 401');
      equal(follower.mode, 'refused', 'mode');
    } finally {
      await ctl.clearFaults();
      await follower.close();
    }
  },

  async 'events: follow() over a muxws peer subscribes its socket and gets the events by push'({ pkg, baseUrl, wsUrl, ctl }) {
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 50, jitter: 0 } });
    const key = freshKey();
    const got = [];
    const follower = pkg.follow(`imports:${key}`, { peer, pollIntervalMs: 100, onEvent: (event) => got.push(event) });
    try {
      await follower.ready;
      equal(follower.mode, 'push', 'mode');
      const revs = await publish(baseUrl, key, 3);
      await until(() => got.length >= 3, 3000, 'three events over muxws');
      same(got.map((event) => event.rev), revs, 'in order, once');
      ok(got.every((event) => event.via === 'push'), 'via push');
      const Api = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
      const wsItems = new Api({ basePath: '/items', peer, schemaCheck: false });
      const changes = [];
      const watcher = wsItems.watch({ onChange: (change) => changes.push(change) });
      await watcher.ready;
      equal(watcher.mode, 'push', "the proxy's watcher pushes too");
      const created = await other(baseUrl, 'POST', '/items', { name: 'over muxws' });
      await until(() => changes.length >= 1, 3000, 'the create over muxws');
      same(changes[0], { op: 'created', changes: [{ pk: created.id }] }, 'the change');
      await watcher.close();
      const calls = (await ctl.log()).filter((entry) => entry.path?.startsWith('/events/') && entry.transport === 'muxws');
      const subscribes = calls.filter((entry) => entry.path === '/events/subscribe');
      ok(subscribes.length >= 2, `subscribes went over muxws (${subscribes.length})`);
      ok(calls.some((entry) => entry.path === '/events/unsubscribe'), "the watcher's close() unsubscribed");
      equal(new Set(calls.map((entry) => entry.idempotency_key)).size, calls.length, 'each call with its own key');
    } finally {
      await follower.close();
      await peer.close();
    }
  },

  async 'events: wrong options are TypeErrors, nothing followed'({ pkg, baseUrl }) {
    const proxy = items(pkg, baseUrl);
    const throwsType = (run, what) => {
      try {
        run();
      } catch (error) {
        ok(error instanceof TypeError, `${what}: a TypeError (${error})`);
        return;
      }
      throw new Error(`${what}: expected a TypeError`);
    };
    throwsType(() => proxy.watch({}), 'watch without onChange');
    throwsType(() => proxy.watch({ onChange() {}, pollIntervalMs: -1 }), 'a negative interval');
    throwsType(() => proxy.watch({ onChange() {}, persist: 'yes' }), 'persist not a boolean');
    throwsType(() => pkg.follow('imports:x', { baseUrl, from: '12' }), 'from as a string');
    throwsType(() => pkg.follow('imports:x', { baseUrl, onEvent: 1 }), 'onEvent not a function');
    throwsType(() => pkg.follow('', { baseUrl }), 'an empty topic');
    throwsType(() => pkg.follow('imports:x', { baseUrl, peer: {} }), 'peer and baseUrl');
    let error;
    await proxy.applyChanges('rows', { op: 'created', changes: [] }).catch((caught) => {
      error = caught;
    });
    ok(error instanceof TypeError, 'applyChanges with rows not an array rejects with a TypeError');
  },
};

export const eventsRedisScenarios = {
  async 'events, two processes + Redis: the write on one, the polls on the other'({ pkg, baseUrl, ctl }) {
    const proxy = items(pkg, baseUrl);
    const changes = [];
    try {
      await ctl.fault('pin', { upstream: 1, count: 1000, path: '/events/poll', method: 'POST' });
      const follower = proxy.watch({ pollIntervalMs: POLL_MS, onChange: (change, event) => changes.push(event) });
      try {
        await follower.ready;
        await ctl.fault('pin', { upstream: 0, count: 1, path: '/items', method: 'POST' });
        const created = await other(baseUrl, 'POST', '/items', { name: 'cross-process' });
        await until(() => changes.length >= 1, POLL_MS + 3000, 'the create made on the other process');
        same(changes[0].payload, { op: 'created', changes: [{ pk: created.id }] }, 'the change');
      } finally {
        await follower.close();
      }
      const log = await ctl.log();
      const write = log.find((entry) => entry.path === '/items' && entry.method === 'POST' && entry.ran);
      equal(write?.served_by, 'A', 'the write ran on process A');
      const polls = log.filter((entry) => entry.path === '/events/poll');
      ok(polls.length >= 2 && polls.every((entry) => entry.served_by === 'B'), `every poll on process B (${[...new Set(polls.map((entry) => entry.served_by))]})`);
    } finally {
      await ctl.clearFaults();
    }
  },
};
