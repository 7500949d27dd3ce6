// The REST and muxws scenarios in real headless Chromium against the real backend: the very files the
// Node runs use, loaded into a page served from another origin.
import { after, before, test } from 'node:test';

import { startHostileMuxws } from '../harness/hostile-muxws.mjs';
import { startStack } from '../harness/stack.mjs';
import { activityScenarios } from '../e2e/activity-scenarios.mjs';
import { axiosScenarios } from '../e2e/axios-scenarios.mjs';
import { boundaryScenarios } from '../e2e/boundary-scenarios.mjs';
import { catalogMuxwsScenarios, catalogRestScenarios } from '../e2e/catalog-scenarios.mjs';
import { compat06MuxwsScenarios, compat06Scenarios } from '../e2e/compat06-scenarios.mjs';
import { eventsScenarios } from '../e2e/events-scenarios.mjs';
import { followPushScenarios } from '../e2e/follow-push-scenarios.mjs';
import { hostileScenarios } from '../e2e/hostile-scenarios.mjs';
import { muxwsBoundaryScenarios } from '../e2e/muxws-boundary-scenarios.mjs';
import { muxwsLivenessScenarios } from '../e2e/muxws-liveness-scenarios.mjs';
import { muxwsScenarios } from '../e2e/muxws-scenarios.mjs';
import { pushScenarios } from '../e2e/push-scenarios.mjs';
import { restScenarios } from '../e2e/rest-scenarios.mjs';
import { transportsScenarios } from '../e2e/transports-scenarios.mjs';
import { openRunner } from './browser.mjs';

let stack;
let hostile;
let runner;

before(async () => {
  stack = await startStack({});
  hostile = await startHostileMuxws();
  const env = { baseUrl: stack.baseUrl, wsUrl: stack.wsUrl, hostileBase: hostile.base };
  // boundary last: its exception-source scenarios are last of all, so a runtime they wedge harms no other set
  const modules = ['rest', 'muxws', 'hostile', 'activity', 'axios', 'muxws-liveness', 'catalog', 'compat06', 'events', 'push', 'follow-push', 'transports', 'muxws-boundary', 'boundary'].map(
    (name) => `/tests/e2e/${name}-scenarios.mjs`,
  );
  runner = await openRunner(modules, env);
});
after(async () => {
  // the figures the scenarios print (memory growth, dead-socket detection time)
  for (const line of runner?.consoleLines ?? []) if (line.includes('[figure]')) console.log(`chromium ${line}`);
  await runner?.close();
  await hostile?.stop();
  await stack?.stop();
});

const scenarioSets = [
  restScenarios,
  muxwsScenarios,
  hostileScenarios,
  activityScenarios,
  axiosScenarios,
  muxwsLivenessScenarios,
  catalogRestScenarios,
  catalogMuxwsScenarios,
  compat06Scenarios,
  compat06MuxwsScenarios,
  eventsScenarios,
  pushScenarios,
  followPushScenarios,
  transportsScenarios,
  muxwsBoundaryScenarios,
  boundaryScenarios,
];
for (const name of scenarioSets.flatMap((scenarios) => Object.keys(scenarios))) {
  test(`chromium: ${name}`, () => runner.run(name));
}
