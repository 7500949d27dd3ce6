// Live lists bigger than a page (liveList over paginated and cursor ViewSets) in headless Chromium: the scenarios of
// tests/e2e/live-pages-scenarios.mjs, unchanged, against the real backend behind the fault proxy.
import { livePagesScenarios } from '../e2e/live-pages-scenarios.mjs';
import { scenariosInChromium } from './chromium-scenarios.mjs';

scenariosInChromium(['/tests/e2e/live-pages-scenarios.mjs'], livePagesScenarios);
