// Live lists bigger than a page (liveList over paginated and cursor ViewSets) end to end in Node 20
// against the real backend behind the fault proxy.
import { runScenariosInNode } from './node-runner.mjs';
import { livePagesScenarios } from './live-pages-scenarios.mjs';

runScenariosInNode(livePagesScenarios);
