// A test file that runs scenario modules of tests/e2e/ in Chromium, unchanged (live, live-pages): the
// real backend, the runner page of browser.mjs loading the modules, one test per scenario.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { openRunner } from './browser.mjs';

/**
 * Registers the file's hooks and tests: before them, the real backend (`startStack(stackOptions)`)
 * and the runner page loading `modules` (paths under tests/) with the backend's URLs; one test
 * `chromium: <name>` per scenario of `scenarios` (a module's exported table), run in the page;
 * after them, the lines the scenarios logged with `[figure]`, then the page and the backend closed.
 */
export function scenariosInChromium(modules, scenarios, stackOptions = {}) {
  let stack;
  let runner;
  before(async () => {
    stack = await startStack(stackOptions);
    runner = await openRunner(modules, { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl });
    console.log(`chromium ${runner.browserVersion}`);
  });
  after(async () => {
    for (const line of runner?.consoleLines ?? []) if (line.includes('[figure]')) console.log(`chromium ${line}`);
    await runner?.close();
    await stack?.stop();
  });
  for (const name of Object.keys(scenarios)) {
    test(`chromium: ${name}`, () => runner.run(name));
  }
}
