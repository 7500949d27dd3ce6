/**
 * What the live list's chunk (live/live-list.ts) is given of the package, handed to it by
 * live/index.ts instead of imported: the chunk imports only types, so the bundle has no shared
 * chunk. One object with named members.
 */
import { internalsOf } from '../caller.js';
import { issuedCalls } from '../compose.js';
import { now } from '../clock.js';
import { HttpError } from '../errors.js';
import { addListener, warn } from '../runtime.js';

export const liveKit = { HttpError, warn, internalsOf, issuedCalls, addListener, now };

/** The type of {@link liveKit}. */
export type LiveKit = typeof liveKit;
