// muxws dialer and muxws ViewSet proxies end to end in Node 20 (run with --experimental-websocket),
// against the real backend's muxws endpoint behind the fault proxy.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { control } from './control.mjs';
import { muxwsScenarios } from './muxws-scenarios.mjs';

const pkg = await import('../../pkg/index.js');
let stack;
let ctx;

before(async () => {
  if (typeof WebSocket === 'undefined') throw new Error('run node with --experimental-websocket');
  stack = await startStack({});
  ctx = { pkg, baseUrl: stack.baseUrl, wsUrl: stack.wsUrl, ctl: control(stack.baseUrl) };
});
after(async () => {
  await stack?.stop();
});

for (const [name, scenario] of Object.entries(muxwsScenarios)) {
  test(`node: ${name}`, () => scenario(ctx));
}
