// Registers scenario objects as `node --test` tests against one real stack started for the file.
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { control } from './control.mjs';

/** Runs every scenario of `scenarios` in Node against a stack started with `stackOptions`. */
export function runScenariosInNode(scenarios, stackOptions = {}) {
  let stack;
  let ctx;
  before(async () => {
    if (typeof WebSocket === 'undefined') throw new Error('run node with --experimental-websocket (muxws needs WebSocket)');
    const pkg = await import('../../pkg/index.js');
    stack = await startStack(stackOptions);
    ctx = { pkg, baseUrl: stack.baseUrl, wsUrl: stack.wsUrl, ctl: control(stack.baseUrl) };
  });
  after(async () => {
    await stack?.stop();
  });
  for (const [name, scenario] of Object.entries(scenarios)) {
    test(`node: ${name}`, () => scenario(ctx));
  }
}
