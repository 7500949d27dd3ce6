// Live lists (liveList(proxy)) end to end in headless Chromium: the scenarios of
// tests/e2e/live-scenarios.mjs, unchanged, against the real backend behind the fault proxy.
import { liveScenarios } from '../e2e/live-scenarios.mjs';
import { scenariosInChromium } from './chromium-scenarios.mjs';

scenariosInChromium(['/tests/e2e/live-scenarios.mjs'], liveScenarios);
