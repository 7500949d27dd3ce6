/**
 * What the devtools subpath (`@dynamicforms/fastapi-viewsets/devtools`, its development entry) needs
 * of the package that is not public: one object with named members, exported as
 * `internalDevtools`. An app whose build resolves the subpath to its stub (every production build)
 * imports nothing of it, and its bundler drops it.
 */
import { followServices } from './follow-services.js';
import { cancelCall, setDevTap } from './runtime.js';
import type { DevTap } from './vocabulary/devtools.js';

/** The devtools' services. */
export const devtoolsServices = {
  /** Sets the tap the runtime, followers, live lists and muxws peers tell (undefined: none). */
  tap(tap: DevTap | undefined): void {
    setDevTap(tap);
    followServices.resynced = tap && ((handle) => tap.resynced(handle));
  },
  /** Cancels the unsettled call with a key: it rejects with `CallCancelled`. */
  cancel: cancelCall,
};

/** The type of `internalDevtools`. */
export type DevtoolsServices = typeof devtoolsServices;
