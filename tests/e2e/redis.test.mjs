// Two backend processes sharing Redis, in Node 20 (--experimental-websocket).
import { runScenariosInNode } from './node-runner.mjs';
import { redisScenarios } from './redis-scenarios.mjs';

runScenariosInNode(redisScenarios, { redis: true, processes: 2 });
