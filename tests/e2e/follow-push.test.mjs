// Live data by server push over a muxws peer (follow, watch) end to end in Node 20, against the real
// backend's events behind the fault proxy; and with two backend processes sharing a RedisEventStore,
// the write on one and the socket on the other.
import { runScenariosInNode } from './node-runner.mjs';
import { followPushRedisScenarios, followPushScenarios } from './follow-push-scenarios.mjs';

runScenariosInNode(followPushScenarios);
runScenariosInNode(followPushRedisScenarios, { redis: true, processes: 2 });
