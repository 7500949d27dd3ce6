// One key across transports (issue 26) end to end in Node 20 (--experimental-websocket): a query in
// the path, the parts of a call side by side, and a muxws peer's REST fallback, against the real
// backend behind the fault proxy.
import { transportsScenarios } from './transports-scenarios.mjs';
import { runScenariosInNode } from './node-runner.mjs';

runScenariosInNode(transportsScenarios);
