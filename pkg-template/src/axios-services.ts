/**
 * What the axios transport's sending half (`axios/`, shipped as `axios-send.js`) is given of the
 * package, as one object with named members, handed to it by axios.ts instead of imported: the
 * chunk imports from outside its folder only types and shared/'s rules, so it is bundled alone and
 * imports nothing of index.js back.
 */
import { engine, putText } from './calls.js';
import { captureHeaders, failAttempt, report } from './runtime.js';

/** The calls module's header rule of `name` (bits of `HeaderRule`); 0 for a name with a non-ASCII character, none of the ones it knows. */
function headerRule(name: string): number {
  const { length, badIndex } = putText(name);
  return badIndex < 0 ? engine.header_rule(length) : 0;
}

/** What the sending half uses of the package. */
export const axiosServices = {
  /** `runtime.ts`: keeps the headers the first attempt sent (a repeat sends them again). */
  captureHeaders,
  /** `runtime.ts`: ends an attempt without an answer (or with one that is an error). */
  failAttempt,
  /** `runtime.ts`: reports an attempt's answer. */
  report,
  /** The calls module's header rule of a header name (which ones axios sets again on every request). */
  headerRule,
};

/** The type of {@link axiosServices}. */
export type AxiosServices = typeof axiosServices;
