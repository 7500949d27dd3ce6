// Call activity end to end in Node 20 (--experimental-websocket for the muxws scenario).
import { activityScenarios } from './activity-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode(activityScenarios);
