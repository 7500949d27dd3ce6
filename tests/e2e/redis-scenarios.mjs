// Two backend processes sharing Redis behind the fault proxy, pinned so that the repeat of a call whose
// connection was lost lands on the OTHER process, which attaches to the running call through Redis. The action runs once; the answer is the first
// execution's. Runs in Node 20 and in Chromium.
import { equal, ok } from './check.mjs';
import { sleep } from './control.mjs';

function servedBy(entries) {
  return new Set(entries.map((entry) => entry.served_by));
}

export const redisScenarios = {
  async 'two processes + Redis, REST: the connection drops mid-call, the repeat on the other process attaches, ran once'({ pkg, baseUrl, ctl }) {
    const Api = pkg.restViewSet()('id', [pkg.ViewSetMixin]);
    const items = new (class extends Api {
      slow(note, sleepS) {
        return this.request('POST', '/slow', { query: { sleep: sleepS }, body: { note } });
      }
    })({ basePath: '/items', baseUrl, schemaCheck: false, repeat: { delayMs: 50 } });
    try {
      await ctl.fault('pin', { upstream: 0, count: 1, path: '/items/slow', method: 'POST' });
      await ctl.fault('pin', { upstream: 1, count: 1, path: '/items/slow', method: 'POST' });
      await ctl.fault('drop_during:0.4', { count: 1, path: '/items/slow', method: 'POST' });
      const call = items.slow('cross-process', 1.2);
      const answer = await call;
      equal(answer.note, 'cross-process', 'answer');
      equal(await ctl.runsOf(call.key), 1, 'ran once across both processes');
      const entries = await ctl.entriesOf(call.key);
      ok(entries.length >= 2, 'the repeat reached the backend');
      equal(servedBy(entries).size, 2, `both processes saw the key (${[...servedBy(entries)]})`);
      equal(answer.served_by, entries.find((entry) => entry.ran).served_by, 'the answer is the running process\'s outcome');
    } finally {
      await ctl.clearFaults();
    }
  },

  async 'two processes + Redis, muxws: the socket is cut mid-call, the repeat on the other process attaches, ran once'({ pkg, wsUrl, ctl }) {
    await ctl.fault('pin', { upstream: 0, count: 1, path: '/ws' });
    await ctl.fault('pin', { upstream: 1, count: 1, path: '/ws' });
    const peer = await pkg.connectMuxws(wsUrl, { reconnect: { initialDelayMs: 50, jitter: 0 } });
    try {
      const Api = pkg.muxwsViewSet()('id', [pkg.ViewSetMixin]);
      const items = new (class extends Api {
        slow(note, sleepS) {
          return this.request('POST', '/slow', { query: { sleep: sleepS }, body: { note } });
        }
      })({ basePath: '/items', peer, schemaCheck: false, repeat: { delayMs: 50 } });
      const call = items.slow('cross-socket', 1.2);
      await sleep(300);
      await ctl.killWs();
      const answer = await call;
      equal(answer.note, 'cross-socket', 'answer');
      equal(await ctl.runsOf(call.key), 1, 'ran once across both processes');
      const entries = await ctl.entriesOf(call.key);
      equal(servedBy(entries).size, 2, `both processes saw the key (${[...servedBy(entries)]})`);
      ok(entries.every((entry) => entry.transport === 'muxws'), 'over muxws');
    } finally {
      await peer.close();
      await ctl.clearFaults();
    }
  },
};
