/**
 * Everything the package keeps between calls, made afresh in one call, for tests (the package
 * exports it as `internalFreshRuntime`): the call runtime (runtime.ts's `freshRuntime()`), the
 * registry of persisted calls (persistence off again), the persisting proxies compose.ts keeps for
 * resumed calls, and the followers (each closed). Linked only into an app that calls it.
 */
import { freshProxies } from './compose.js';
import { freshFollowers } from './follow.js';
import { freshPersist } from './persist.js';
import { freshRuntime } from './runtime.js';

/** Makes the package's state afresh: calls, persisted calls, persisting proxies, followers. */
export function freshPackage(): void {
  freshFollowers();
  freshPersist();
  freshProxies();
  freshRuntime();
}
