// Live data (follow, watch, applyChanges) end to end in Node 20, against the real backend with events
// behind the fault proxy; and with two backend processes sharing a RedisEventStore.
import { runScenariosInNode } from './node-runner.mjs';
import { eventsRedisScenarios, eventsScenarios } from './events-scenarios.mjs';

runScenariosInNode(eventsScenarios);
runScenariosInNode(eventsRedisScenarios, { redis: true, processes: 2 });
