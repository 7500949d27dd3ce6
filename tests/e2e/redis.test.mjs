// Two backend processes sharing Redis, in Node 20 (--experimental-websocket).
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { control } from './control.mjs';
import { redisScenarios } from './redis-scenarios.mjs';

const pkg = await import('../../pkg/index.js');
let stack;
let ctx;

before(async () => {
  stack = await startStack({ redis: true, processes: 2 });
  ctx = { pkg, baseUrl: stack.baseUrl, wsUrl: stack.wsUrl, ctl: control(stack.baseUrl) };
});
after(async () => {
  await stack?.stop();
});

for (const [name, scenario] of Object.entries(redisScenarios)) {
  test(`node: ${name}`, () => scenario(ctx));
}
