// The axios scenarios in Node 20 against the real backend.
import { runScenariosInNode } from './node-runner.mjs';
import { axiosScenarios } from './axios-scenarios.mjs';

runScenariosInNode(axiosScenarios);
