// Call activity end to end in Node 20 (--experimental-websocket for the muxws scenario).
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { activityScenarios } from './activity-scenarios.mjs';
import { control } from './control.mjs';

const pkg = await import('../../pkg/index.js');
let stack;
let ctx;

before(async () => {
  stack = await startStack({});
  ctx = { pkg, baseUrl: stack.baseUrl, wsUrl: stack.wsUrl, ctl: control(stack.baseUrl) };
});
after(async () => {
  await stack?.stop();
});

for (const [name, scenario] of Object.entries(activityScenarios)) {
  test(`node: ${name}`, () => scenario(ctx));
}
