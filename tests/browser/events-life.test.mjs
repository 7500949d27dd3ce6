// Live data through the browser's life in headless Chromium against the real backend behind the
// fault proxy: a follower with `persist: true` resumes from its stored cursor after a reload (the
// events published meanwhile, or onResync once the log no longer holds them), and a follower pauses
// while the browser is offline (BrowserContext.setOffline) and polls at once when it is back. The
// page side is tests/browser/events-life-page.mjs.
// Run: node --test tests/browser/events-life.test.mjs (needs pkg/: bash scripts/build.sh)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { chromium } from 'playwright-core';

import { startStack } from '../harness/stack.mjs';
import { CHROMIUM_ARGS, serveStatic } from './browser.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(probe, what, timeoutMs = 20_000, everyMs = 25) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

let stack;
let site;
let browser;

async function loadSteps(page) {
  await page.evaluate((env) => window.loadScenarios(['/tests/browser/events-life-page.mjs'], env), { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl });
}

async function openPage(context) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(error.message));
  await page.goto(`${site.url}/tests/browser/runner.html`);
  await loadSteps(page);
  return page;
}

function step(page, name, arg) {
  return page.evaluate(([name, arg]) => window.scenarios[name](window.ctx, arg), [name, arg]);
}

/** Publishes `n` events to `imports:{key}` (from Node); answers their revs. */
async function publish(key, n) {
  const response = await fetch(`${stack.baseUrl}/__test/events/publish?key=${key}&n=${n}`, { method: 'POST' });
  assert.equal(response.status, 200);
  return (await response.json()).revs;
}

/** The proxy's log entries of polls (`t` in ms). */
async function polls() {
  const { requests } = await stack.proxyLog();
  return requests.filter((entry) => entry.path.startsWith('/events/poll')).map((entry) => ({ ...entry, t: entry.t * 1000 }));
}

before(async () => {
  stack = await startStack({});
  site = await serveStatic();
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close().catch(() => {});
  await site?.close();
  await stack?.stop();
});

describe('live data: persisted cursors and offline', { timeout: 120_000 }, () => {
  it('persist: true, page reloaded: the follower resumes from the stored cursor and gets the events published meanwhile, once', async () => {
    const context = await browser.newContext();
    try {
      const page = await openPage(context);
      const key = `p${Date.now().toString(36)}`;
      await step(page, 'followImports', { key });
      const before = await publish(key, 2);
      await until(async () => (await step(page, 'followState')).events.length === 2, 'the first two events');
      assert.equal((await step(page, 'followState')).cursor, before[1], 'the cursor is the last rev');
      await page.reload();
      const meanwhile = await publish(key, 3);
      await loadSteps(page);
      const cursor = await step(page, 'followImports', { key });
      assert.ok(cursor === before[1] || cursor === meanwhile[2], `resumed from the stored cursor (${cursor})`);
      await until(async () => (await step(page, 'followState')).events.length === 3, 'the events published while the page reloaded');
      const state = await step(page, 'followState');
      assert.deepEqual(state.events.map((event) => event.rev), meanwhile, 'every event of the gap, once, in order');
      assert.equal(state.events[0].prev, before[1], 'from the stored cursor');
      assert.deepEqual(state.resyncs, [], 'no resync');
      await step(page, 'closeFollower');
      // without persist the reloaded page starts from now: none of the gap
      await page.reload();
      await publish(key, 1);
      await loadSteps(page);
      await step(page, 'followImports', { key, persist: false });
      await sleep(600);
      assert.deepEqual((await step(page, 'followState')).events, [], 'from now without persist');
      await step(page, 'closeFollower');
      assert.deepEqual(page.errors, [], 'no page errors');
    } finally {
      await context.close().catch(() => {});
    }
  });

  it('persist: true, more events than the log holds while the page was gone: onResync once, then events again', async () => {
    const context = await browser.newContext();
    try {
      const { event_log_size: logSize } = await (await fetch(`${stack.baseUrl}/__test/ready`)).json();
      const page = await openPage(context);
      const key = `r${Date.now().toString(36)}`;
      await step(page, 'followImports', { key });
      await publish(key, 1);
      await until(async () => (await step(page, 'followState')).events.length === 1, 'the first event');
      await page.reload();
      const lost = await publish(key, logSize + 3);
      await loadSteps(page);
      await step(page, 'followImports', { key });
      const state = await until(async () => {
        const now = await step(page, 'followState');
        return now.resyncs.length ? now : null;
      }, 'the resync');
      assert.deepEqual(state.resyncs, [{ topic: `imports:${key}`, rev: lost.at(-1) }], 'onResync once, at the last rev');
      const after = await publish(key, 2);
      await until(async () => (await step(page, 'followState')).events.length === 2, 'the events after the resync');
      assert.deepEqual((await step(page, 'followState')).events.map((event) => event.rev), after, 'events again');
      assert.equal((await step(page, 'followState')).resyncs.length, 1, 'one resync');
      await step(page, 'closeFollower');
    } finally {
      await context.close().catch(() => {});
    }
  });

  it('offline: no poll goes while the browser is offline (mode paused); back online, a poll goes at once and delivers', async () => {
    const context = await browser.newContext();
    try {
      const page = await openPage(context);
      const key = `o${Date.now().toString(36)}`;
      await step(page, 'followImports', { key, persist: false, pollIntervalMs: 300 });
      await context.setOffline(true);
      // the follower has seen the browser go offline (not a time after it)
      await until(async () => (await step(page, 'followState')).mode === 'paused', 'the follower paused');
      const offlineAt = Date.now();
      await publish(key, 2);
      await sleep(1200); // four poll intervals in which no poll may go
      const offlineState = await step(page, 'followState');
      assert.equal(offlineState.mode, 'paused', 'paused offline');
      assert.deepEqual(offlineState.events, [], 'nothing delivered offline');
      await context.setOffline(false);
      const onlineAt = Date.now();
      await until(async () => (await step(page, 'followState')).events.length === 2, 'the events once back online', 5000);
      const deliveredIn = Date.now() - onlineAt;
      assert.ok(deliveredIn < 1000, `delivered ${deliveredIn} ms after coming back (interval 300 ms)`);
      assert.equal((await step(page, 'followState')).mode, 'poll', 'polling again');
      const sentOffline = (await polls()).filter((entry) => entry.t > offlineAt + 100 && entry.t < onlineAt - 100);
      assert.deepEqual(sentOffline, [], 'no poll reached the network while offline');
      await step(page, 'closeFollower');
    } finally {
      await context.close().catch(() => {});
    }
  });
});
