/**
 * How each built-in action goes on the wire (fastapi-viewsets 0.14 routes), the methods that send
 * them, and the routes a `declares` list expects of the backend's schema.
 */
import { reading } from './caller.js';
import { rejectedCall } from './compose.js';
import type { ActionName, ViewSetMixinClass } from './mixins.js';
import type { RequestOptions } from './vocabulary/options.js';
import type { ViewSetCall } from './vocabulary/call-types.js';
import { withKey } from './runtime.js';

/**
 * `METHOD path data` per action: `path` relative to the base path (`/{pk}` is the first argument,
 * URL-encoded); `data` is what the next argument is: `b` the JSON body, `q` the query parameters
 * (sort, filters), `-` nothing. Options come last.
 */
const ROUTES: Record<ActionName, string> = {
  list: 'GET / q',
  listPage: 'GET / q',
  listCursor: 'GET / q',
  retrieve: 'GET /{pk} -',
  create: 'POST / b',
  update: 'PUT /{pk} b',
  partialUpdate: 'PATCH /{pk} b',
  destroy: 'DELETE /{pk} -',
  bulkCreate: 'POST /bulk b',
  bulkUpdate: 'PUT /bulk b',
  bulkPartialUpdate: 'PATCH /bulk b',
  // fastapi-viewsets reads bulk destroy's `pk: list[K]` from the body (a query `?pk=` is a 422)
  bulkDestroy: 'DELETE /bulk b',
  lookup: 'GET /lookup q',
};

/** A value 0.6's query parameters never hold: an object other than an array of scalars. */
function isOptionValue(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !(Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object'));
}

type Sender = (method: string, path: string, options: unknown) => ViewSetCall<unknown>;

/**
 * Gives `target`'s prototype the built-in actions the mixins of `mixins` bring, sending through
 * `this.request`. A mixin's static `answer`, when it has one, turns each answer of its actions
 * into what the action resolves with (the page envelopes of `listPage`/`listCursor`).
 */
export function addActions(target: { prototype: object }, mixins: readonly ViewSetMixinClass[]): void {
  const added = new Set<string>();
  for (const mixin of mixins) {
    const answer = (mixin as { answer?: (body: unknown) => unknown }).answer;
    for (const action of mixin.actions) {
      const route: unknown = ROUTES[action as ActionName];
      // not a built-in action (0.6 declarations may list others), or brought by an earlier mixin
      if (typeof route !== 'string' || added.has(action)) continue;
      added.add(action);
      const [verb, path, data] = route.split(' ');
      const hasPk = path === '/{pk}';
      const method = function (this: { request: Sender }, ...args: unknown[]): unknown {
        let suffix: string;
        let given: unknown;
        // Reading the caller's arguments (a pk's toString, a query's keys, the options' getters) may
        // throw: the call then rejects with a TypeError, as request() does, never synchronously.
        try {
          [suffix, given] = reading(`the arguments of ${action}()`, () => {
            // (pk), (value), options: the pk if the path has one, the value unless the route takes none
            let at = hasPk ? 1 : 0;
            let value = data === '-' ? undefined : args[at++];
            let options = args[at];
            // `list({ query })` (0.1): a single argument holding options rather than query parameters
            if (data === 'q' && options === undefined && value !== null && typeof value === 'object' && Object.values(value).some(isOptionValue)) {
              options = value;
              value = undefined;
            }
            // Options that are not an object go through as they are, so the call rejects with a TypeError.
            if (options === undefined || (options !== null && typeof options === 'object')) {
              options = { ...(options as RequestOptions | undefined), ...(data === 'b' ? { body: value } : value !== undefined ? { query: value } : {}) };
            }
            return [hasPk ? `/${pkSegment(args[0])}` : path, options];
          });
        } catch (error) {
          return rejectedCall(error);
        }
        const call = this.request(verb, suffix, given);
        return answer ? withKey(call.then(answer), call.key) : call;
      };
      Object.defineProperty(method, 'name', { value: action });
      Object.defineProperty(target.prototype, action, { value: method, writable: true, configurable: true });
    }
  }
}

/**
 * A primary key as one path segment, percent-encoded. `.` and `..` are refused: a URL resolves them
 * as the path's own dots (`/items/..` is `/`), so the call would reach another endpoint.
 */
function pkSegment(pk: unknown): string {
  const segment = encodeURIComponent(String(pk));
  if (segment === '.' || segment === '..') throw new TypeError(`the primary key "${segment}" would name another path`);
  return segment;
}

/** The routes the actions of `declares` expect: `"<action> <METHOD> <path>"` (`/{pk}` for any path parameter). */
export function expectedRoutes(declares: readonly { readonly actions: readonly string[] }[]): string[] {
  const routes = new Set<string>();
  for (const mixin of declares) {
    for (const action of mixin?.actions ?? []) {
      const route: unknown = ROUTES[action as ActionName];
      if (typeof route === 'string') routes.add(`${action} ${route.slice(0, route.lastIndexOf(' '))}`);
    }
  }
  return [...routes];
}
