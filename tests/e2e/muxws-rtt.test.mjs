// A muxws peer's ping round trip (issue 37: `peer.rttMs`) against the real backend in Node 20
// (--experimental-websocket), through the fault proxy: null until the first pong; a finite figure
// ≥ 0 once the heartbeat's ping (every pingIntervalMs without an arrival) is answered; unchanged
// while the proxy lets nothing pass (`silence_ws`); and once the held bytes go on
// (`unsilence_ws`), the pong that was held measures the wait.
import { equal, ok } from './check.mjs';
import { sleep } from './control.mjs';
import { runScenariosInNode } from './node-runner.mjs';

const PING_INTERVAL_MS = 200;
/** Long enough that the silenced socket is not declared dead while the scenario watches it. */
const PING_TIMEOUT_MS = 20_000;
/** How long the tunnel stays silent. */
const SILENCE_MS = 2500;

/** Waits until `condition()` holds (polled every 20 ms); false once `ms` passed. */
async function until(condition, ms) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

runScenariosInNode({
  async 'muxws rttMs: null until the first pong, then the heartbeat ping round trip; unchanged while silenced; the held pong measures the silence'({ pkg, wsUrl, ctl }) {
    const closes = [];
    const peer = await pkg.connectMuxws(wsUrl, {
      pingIntervalMs: PING_INTERVAL_MS,
      pingTimeoutMs: PING_TIMEOUT_MS,
      onClose: (reason) => closes.push(reason),
    });
    try {
      equal(peer.rttMs, null, 'no pong before the first ping');
      ok(await until(() => peer.rttMs !== null, 15_000), 'a pong within 15 s of a ping every 200 ms idle');
      const first = peer.rttMs;
      ok(typeof first === 'number' && Number.isFinite(first) && first >= 0, `a finite round trip ≥ 0, got ${first}`);
      ok(first < PING_TIMEOUT_MS, `the round trip ${first} ms is under the ping timeout`);
      // read-only: an assignment does not change it (a getter without a setter)
      ok(!Object.getOwnPropertyDescriptor(Object.getPrototypeOf(peer), 'rttMs')?.set, 'rttMs has no setter');
      console.log(`[figure] muxws ping round trip through the fault proxy: ${first} ms`);

      const silenced = await ctl.silenceWs();
      equal(silenced.silenced, 1, 'one tunnel silenced');
      // A pong forwarded just before the silence may still be on its way in: let it land.
      await sleep(300);
      const held = peer.rttMs;
      const silentFrom = Date.now();
      // Nothing passes: every ping the heartbeat sends meanwhile waits for its pong.
      const changes = [];
      while (Date.now() - silentFrom < SILENCE_MS) {
        if (peer.rttMs !== held) changes.push(peer.rttMs);
        await sleep(25);
      }
      equal(changes.length, 0, `rttMs stays ${held} while nothing passes (saw ${changes.join(', ')})`);
      ok(peer.isOpen, 'the silenced socket is not declared dead within the ping timeout');

      const unsilencedAt = Date.now();
      equal((await ctl.unsilenceWs()).unsilenced, 1, 'the tunnel goes on');
      // The ping sent during the silence reaches the server now; its pong measures the wait.
      ok(await until(() => peer.rttMs !== held, 10_000), 'the held ping is answered once the bytes go on');
      const waited = peer.rttMs;
      ok(Number.isFinite(waited) && waited >= SILENCE_MS - 1000, `the held pong measures the silence: ${waited} ms ≥ ${SILENCE_MS - 1000} ms`);
      ok(waited <= Date.now() - silentFrom + 1000, `and no more than the time since the silence: ${waited} ms`);
      console.log(`[figure] muxws round trip of a ping held ${unsilencedAt - silentFrom} ms by the proxy: ${waited} ms`);
      equal(closes.length, 0, 'the socket was never lost');
    } finally {
      await ctl.clearFaults().catch(() => {});
      await peer.close({ drainMs: 200 });
    }
  },
});
