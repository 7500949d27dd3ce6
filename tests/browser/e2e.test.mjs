// The REST (and, with the muxws issue, muxws) scenarios in real headless Chromium against the real backend.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { restScenarios } from '../e2e/rest-scenarios.mjs';
import { openRunner } from './browser.mjs';

let stack;
let runner;

before(async () => {
  stack = await startStack({});
  runner = await openRunner('/tests/e2e/rest-scenarios.mjs', { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl });
});
after(async () => {
  await runner?.close();
  await stack?.stop();
});

for (const name of Object.keys(restScenarios)) {
  test(`chromium: ${name}`, () => runner.run(name));
}
