// muxws liveness by arrival (issue 12) in Node 20 (--experimental-websocket): a tunnel silenced by the
// fault proxy must be found dead within pingIntervalMs + pingTimeoutMs while calls keep going out.
import { muxwsLivenessScenarios } from './muxws-liveness-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode(muxwsLivenessScenarios);
