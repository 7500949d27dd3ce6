// The demo's page of a long list (www/rows.html: useLiveList over the backend's paginated ViewSet of
// 5 000 rows, /catalog/big-pages, with the README's IntersectionObserver scroll) in Chromium against
// the real backend behind the fault proxy, over REST and over muxws: scrolled until row 1 000 is on
// the screen, the rows shown are the server's first pages in its order; another tab renames a row
// through its own page and another client renames row 1 000, and both show; no frame drawn in
// between holds a row twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { chromium } from 'playwright-core';

import { startDemo } from '../../www/serve.mjs';
import { CHROMIUM_ARGS } from './browser.mjs';

let demo;
let browser;

before(async () => {
  demo = await startDemo({ port: 0 });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
  await demo?.stop();
});

async function server(method, pathname, body) {
  const response = await fetch(`${demo.config.baseUrl}${pathname}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  assert.ok(response.ok, `${method} ${pathname}: ${response.status}`);
  return response.json();
}

/** The server's first `pages` pages of /catalog/big-pages (100 a page), as `id:name` strings. */
async function serverRows(pages) {
  const rows = [];
  for (let i = 0; i < pages; i++) rows.push(...(await server('GET', `/catalog/big-pages?offset=${i * 100}&limit=100`)).results.map((row) => `${row.id}:${row.name}`));
  return rows;
}

/** The rows a tab shows, as `id:name` strings. */
const shown = (page) => page.$$eval('#big-rows li', (items) => items.map((li) => `${li.dataset.id}:${li.querySelector('.live-name').textContent}`));

/** Whether the row `id` is drawn inside the visible part of the list's scroll box, and the box inside the window. */
const onScreen = (page, id) =>
  page.evaluate((id) => {
    const row = document.querySelector(`#big-rows li[data-id="${id}"]`)?.getBoundingClientRect();
    const box = document.querySelector('#big-box').getBoundingClientRect();
    return !!row && row.height > 0 && row.top >= Math.max(0, box.top) && row.bottom <= Math.min(innerHeight, box.bottom);
  }, id);

/** A tab of the page (`query`: the transport), once its first page is shown. */
async function tab(query) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && !/Failed to load resource/.test(message.text()) && errors.push(message.text()));
  await page.goto(`${demo.url}rows.html${query}`);
  await page.waitForFunction(() => document.querySelectorAll('#big-rows li').length >= 100 && document.querySelector('#big-status')?.dataset.why === '', null, { timeout: 20_000 }).catch((error) => {
    throw new Error(`the page did not show its first page: ${errors.join('; ') || error.message}`);
  });
  page.errors = errors;
  return page;
}

/** Resolves once `check()` holds in the page; fails with `what` after `ms`. */
async function until(page, check, arg, what, ms = 30_000) {
  await page.waitForFunction(check, arg, { timeout: ms, polling: 50 }).catch(async (error) => {
    throw new Error(`${what}: ${error.message} (status: ${await page.textContent('#big-status').catch(() => '?')})`);
  });
}

for (const [transport, query] of [['REST', ''], ['muxws', '?transport=muxws']]) {
  test(`demo rows.html over ${transport}: 5 000 rows scrolled to row 1 000, the server's rows in its order; a rename in another tab and one by another client show; never a row twice`, async () => {
    await server('POST', '/__test/big/seed');
    await fetch(`${demo.config.baseUrl}/__fault?mode=clear`);
    const page = await tab(query);
    let other;
    try {
      assert.match(await page.textContent('#big-status'), / of 5000 rows loaded/, 'the total: the server’s count');
      // every animation frame the page draws is checked for a row shown twice
      await page.evaluate(() => {
        window.twice = [];
        const check = () => {
          const ids = [...document.querySelectorAll('#big-rows li')].map((li) => li.dataset.id);
          if (new Set(ids).size !== ids.length) window.twice.push(ids.length);
          window.checking = requestAnimationFrame(check);
        };
        check();
      });
      // scrolled to the end row again and again, as a user does, until row 1 000 is there
      const deadline = Date.now() + 90_000;
      while (!(await page.$('#big-rows li[data-id="1000"]'))) {
        const count = await page.$$eval('#big-rows li', (items) => items.length);
        assert.ok(Date.now() < deadline, `scrolled to ${count} rows, no row 1 000`);
        await page.evaluate(() => document.querySelector('#big-end').scrollIntoView());
        await page.waitForFunction((before) => document.querySelectorAll('#big-rows li').length > before || document.querySelector('#big-rows li[data-id="1000"]'), count, { timeout: 20_000, polling: 50 }).catch(() => {});
      }
      await page.evaluate(() => document.querySelector('#big-rows li[data-id="1000"]').scrollIntoView({ block: 'center' }));
      assert.ok(await onScreen(page, 1000), 'row 1 000 on the screen');
      // the scroll may still be reading a page: the window at rest, then whole pages of the server's
      await until(page, () => document.querySelector('#big-status').dataset.window === 'can-load-more', null, 'the window at rest');
      const rows = await shown(page);
      const pages = rows.length / 100;
      assert.ok(Number.isInteger(pages) && pages >= 10, `whole pages, at least 10: ${rows.length} rows`);
      assert.deepEqual(rows, await serverRows(pages), 'the server’s first rows in its order');
      assert.equal(rows[999], '1000:row 1000', 'row 1 000 is the 1 000th row');

      // another tab renames row 5 through its own page (its own write, answered), and another client row 1 000
      other = await tab(query);
      await other.click('#big-rows li[data-id="5"] button');
      await until(other, () => document.querySelector('#big-rows li[data-id="5"] .live-name').textContent === 'row 0005!' && document.querySelector('#big-rows li[data-id="5"]').dataset.pending === '', null, 'the other tab’s rename answered there');
      const renamed = await server('PATCH', '/catalog/big-pages/1000', { name: 'row 1000, renamed elsewhere' });
      assert.equal(renamed.name, 'row 1000, renamed elsewhere');
      await until(page, () => document.querySelector('#big-rows li[data-id="5"] .live-name').textContent === 'row 0005!', null, 'the other tab’s rename shown');
      await until(page, () => document.querySelector('#big-rows li[data-id="1000"] .live-name').textContent === 'row 1000, renamed elsewhere', null, 'the other client’s rename of row 1 000 shown');
      assert.ok(await onScreen(page, 1000), 'row 1 000 still on the screen');
      await until(page, () => document.querySelector('#big-status').dataset.window === 'can-load-more', null, 'the window at rest');
      const after = await shown(page);
      assert.deepEqual(after, await serverRows(after.length / 100), 'the rows shown are the server’s');
      const ids = await page.$$eval('#big-rows li', (items) => items.map((li) => li.dataset.id));
      assert.equal(new Set(ids).size, ids.length, 'no id twice in the DOM');
      assert.deepEqual(await page.evaluate(() => window.twice), [], 'no frame drawn showed a row twice');
      assert.deepEqual(page.errors, []);
      assert.deepEqual(other.errors, []);
    } finally {
      await page.evaluate(() => cancelAnimationFrame(window.checking)).catch(() => {});
      await other?.close();
      await page.close();
    }
  });
}
