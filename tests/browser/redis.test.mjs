// Two backend processes sharing Redis, the repeat landing on the other process, and a push carried from
// the process of the write to the process of the socket: in headless Chromium.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { followPushRedisScenarios } from '../e2e/follow-push-scenarios.mjs';
import { redisScenarios } from '../e2e/redis-scenarios.mjs';
import { openRunner } from './browser.mjs';

let stack;
let runner;

before(async () => {
  stack = await startStack({ redis: true, processes: 2 });
  runner = await openRunner(['/tests/e2e/redis-scenarios.mjs', '/tests/e2e/follow-push-scenarios.mjs'], { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl });
});
after(async () => {
  await runner?.close();
  await stack?.stop();
});

for (const name of [...Object.keys(redisScenarios), ...Object.keys(followPushRedisScenarios)]) {
  test(`chromium: ${name}`, () => runner.run(name));
}
