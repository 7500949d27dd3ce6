// The REST and muxws scenarios in real headless Chromium against the real backend: the very files the
// Node runs use, loaded into a page served from another origin.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { muxwsScenarios } from '../e2e/muxws-scenarios.mjs';
import { restScenarios } from '../e2e/rest-scenarios.mjs';
import { openRunner } from './browser.mjs';

let stack;
let runner;

before(async () => {
  stack = await startStack({});
  const env = { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl };
  runner = await openRunner(['/tests/e2e/rest-scenarios.mjs', '/tests/e2e/muxws-scenarios.mjs'], env);
});
after(async () => {
  await runner?.close();
  await stack?.stop();
});

for (const name of [...Object.keys(restScenarios), ...Object.keys(muxwsScenarios)]) {
  test(`chromium: ${name}`, () => runner.run(name));
}
