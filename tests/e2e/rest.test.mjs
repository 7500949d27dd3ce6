// REST proxies end to end in Node 20, against the real backend behind the fault proxy.
import { runScenariosInNode } from './node-runner.mjs';
import { restScenarios } from './rest-scenarios.mjs';

runScenariosInNode(restScenarios);
