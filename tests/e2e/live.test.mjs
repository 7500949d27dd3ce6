// Live lists (liveList(proxy)) end to end in Node 20 against the real backend behind the fault proxy.
import { runScenariosInNode } from './node-runner.mjs';
import { liveScenarios } from './live-scenarios.mjs';

runScenariosInNode(liveScenarios);
