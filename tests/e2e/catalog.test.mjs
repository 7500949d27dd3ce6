// Every mixin action of the backend end to end over REST in Node 20, against the real backend's
// catalog viewsets, and the same 0.6-style application code the type test compiles.
import { catalogRestScenarios } from './catalog-scenarios.mjs';
import { compat06Scenarios } from './compat06-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode({ ...catalogRestScenarios, ...compat06Scenarios });
