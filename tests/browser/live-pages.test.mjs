// Live lists bigger than a page (liveList over paginated and cursor ViewSets) in headless Chromium: the scenarios of
// tests/e2e/live-pages-scenarios.mjs, unchanged, against the real backend behind the fault proxy.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { livePagesScenarios } from '../e2e/live-pages-scenarios.mjs';
import { openRunner } from './browser.mjs';

let stack;
let runner;

before(async () => {
  stack = await startStack({});
  runner = await openRunner(['/tests/e2e/live-pages-scenarios.mjs'], { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl });
  console.log(`chromium ${runner.browserVersion}`);
});
after(async () => {
  for (const line of runner?.consoleLines ?? []) if (line.includes('[figure]')) console.log(`chromium ${line}`);
  await runner?.close();
  await stack?.stop();
});

for (const name of Object.keys(livePagesScenarios)) {
  test(`chromium: ${name}`, () => runner.run(name));
}
