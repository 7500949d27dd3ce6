// REST proxies end to end in Node 20, against the real backend behind the fault proxy.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { control } from './control.mjs';
import { restScenarios } from './rest-scenarios.mjs';

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

for (const [name, scenario] of Object.entries(restScenarios)) {
  test(`node: ${name}`, () => scenario(ctx));
}
