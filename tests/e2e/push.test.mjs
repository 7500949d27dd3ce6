// Server push on the muxws peer (onStream) end to end in Node 20, against the real backend's events.
import { runScenariosInNode } from './node-runner.mjs';
import { pushScenarios } from './push-scenarios.mjs';

runScenariosInNode(pushScenarios);
