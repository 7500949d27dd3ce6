// Every mixin action of the backend end to end over muxws in Node 20 (--experimental-websocket),
// against the real backend's catalog viewsets, and 0.6-style code over muxws (route_muxws, a lazy peer).
import { catalogMuxwsScenarios } from './catalog-scenarios.mjs';
import { compat06MuxwsScenarios } from './compat06-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode({ ...catalogMuxwsScenarios, ...compat06MuxwsScenarios });
