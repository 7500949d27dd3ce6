// Every mixin action of the backend end to end over muxws in Node 20 (--experimental-websocket),
// against the real backend's catalog viewsets.
import { catalogMuxwsScenarios } from './catalog-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode(catalogMuxwsScenarios);
