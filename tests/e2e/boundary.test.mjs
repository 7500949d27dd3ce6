// The JS↔wasm boundary acceptance scenarios (issue 11) in Node 20 (--experimental-websocket), against
// the real backend behind the fault proxy.
import { boundaryScenarios } from './boundary-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode(boundaryScenarios);
