// The muxws boundary scenarios in Node 20 (--experimental-websocket): the real backend behind the
// fault proxy, and the hostile muxws server for a real subprotocol mismatch.
import { after, before, test } from 'node:test';

import { startHostileMuxws } from '../harness/hostile-muxws.mjs';
import { startStack } from '../harness/stack.mjs';
import { control } from './control.mjs';
import { muxwsBoundaryScenarios } from './muxws-boundary-scenarios.mjs';

let stack;
let hostile;
let ctx;

before(async () => {
  if (typeof WebSocket === 'undefined') throw new Error('run node with --experimental-websocket (muxws needs WebSocket)');
  const pkg = await import('../../pkg/index.js');
  stack = await startStack({});
  hostile = await startHostileMuxws();
  ctx = { pkg, baseUrl: stack.baseUrl, wsUrl: stack.wsUrl, hostileBase: hostile.base, ctl: control(stack.baseUrl) };
});
after(async () => {
  await hostile?.stop();
  await stack?.stop();
});

for (const [name, scenario] of Object.entries(muxwsBoundaryScenarios)) {
  test(`node: ${name}`, { timeout: 180_000 }, () => scenario(ctx));
}
