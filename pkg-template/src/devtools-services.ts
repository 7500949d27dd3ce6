/**
 * What the devtools subpath (`@dynamicforms/fastapi-viewsets/devtools`, its development entry) needs
 * of the package that is not public: one object with named members, exported as
 * `internalDevtools`. An app whose build resolves the subpath to its stub (every production build)
 * imports nothing of it, and its bundler drops it.
 */
import { cancelCall, setDevTap } from './runtime.js';

/** The devtools' services. */
export const devtoolsServices = {
  /** Sets the tap the runtime, followers, live lists and muxws peers tell (undefined: none). */
  tap: setDevTap,
  /** Cancels the unsettled call with a key: it rejects with `CallCancelled`. */
  cancel: cancelCall,
};

/** The type of `internalDevtools`. */
export type DevtoolsServices = typeof devtoolsServices;
