/**
 * What the follower's chunk (follow-engine.ts and the files only it uses) is given of the package,
 * handed to it by follow.ts instead of imported: the chunk imports only types, so the bundle has no
 * shared chunk, and nothing in it imports follow.ts back.
 */
import { issueCall } from './compose.js';
import { HttpError } from './errors.js';
import { restTransport } from './rest.js';
import { warn } from './runtime.js';

/** What the engine chunk is given of the package (it imports only types, so the bundle has no shared chunk). */
export const followKit = [HttpError, warn, issueCall, restTransport] as const;

/** The type of {@link followKit}. */
export type FollowKit = typeof followKit;

/** The checked options the engine reads (callbacks and numbers, as given). */
export interface CheckedFollow {
  eventsPath: string;
  from: number | null;
  persist: boolean;
  pollIntervalMs: number;
  checkIntervalMs: number;
  onEvent?: (event: never) => unknown;
  onResync?: (info: never) => unknown;
  onRefused?: (error: HttpError) => unknown;
}
