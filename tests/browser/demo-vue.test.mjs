// The demo's Vue page (www/vue.html: the composables of @dynamicforms/fastapi-viewsets/vue) in
// Chromium against the real backend behind the fault proxy: the live list reads, an own write shows
// at once marked pending and is then answered; with its answer lost it shows as repeating while the
// busy indicator counts it, and is created once.
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

test('demo vue.html: the live list, an own write pending then answered, a lost answer repeated with the busy indicator', async () => {
  await fetch(`${demo.config.baseUrl}/__test/reset`, { method: 'POST' });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    await page.goto(`${demo.url}vue.html`);
    await page.waitForSelector('#vue-status[data-why=""]', { timeout: 15_000 });
    await page.fill('input', 'from vue');
    await page.click('button[type="submit"]');
    await page.waitForSelector('#vue-rows li[data-pending=""] .live-name', { timeout: 5_000 });
    assert.equal(await page.textContent('#vue-rows li .live-name'), 'from vue');
    // the next answer is lost: the create is repeated under its key, and shown as such
    await page.click('text=Lose the next answer');
    await page.fill('input', 'lost once');
    await page.click('button[type="submit"]');
    await page.waitForSelector('#vue-rows li[data-pending="repeating"]', { timeout: 5_000 });
    await page.waitForSelector('#vue-busy[data-count="1"]');
    await page.waitForFunction(() => document.querySelectorAll('#vue-rows li[data-pending=""]').length === 2, null, { timeout: 10_000 });
    const names = await page.$$eval('#vue-rows li .live-name', (items) => items.map((item) => item.textContent));
    assert.deepEqual(names, ['from vue', 'lost once'], 'each once');
    const server = await (await fetch(`${demo.config.baseUrl}/items`)).json();
    assert.deepEqual(server.map((item) => item.name), ['from vue', 'lost once'], 'created once on the server');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
