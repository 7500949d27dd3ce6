// The muxws dialer and muxws ViewSet proxies end to end in Node 20 (--experimental-websocket),
// against the real backend's muxws endpoint behind the fault proxy.
import { muxwsScenarios } from './muxws-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode(muxwsScenarios);
