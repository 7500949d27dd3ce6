// The hostile-server scenarios in Node 20 (--experimental-websocket).
import { after, before, test } from 'node:test';

import { startHostileMuxws } from '../harness/hostile-muxws.mjs';
import { hostileScenarios } from './hostile-scenarios.mjs';

const pkg = await import('../../pkg/index.js');
let hostile;

before(async () => {
  if (typeof WebSocket === 'undefined') throw new Error('run node with --experimental-websocket');
  hostile = await startHostileMuxws();
});
after(async () => {
  await hostile?.stop();
});

for (const [name, scenario] of Object.entries(hostileScenarios)) {
  test(`node: ${name}`, () => scenario({ pkg, hostileBase: hostile.base }));
}
