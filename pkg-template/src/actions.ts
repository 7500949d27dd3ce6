/**
 * How each built-in action goes on the wire (fastapi-viewsets 0.14 routes), the methods that send
 * them, and the routes a `declares` list expects of the backend's schema.
 */
import type { ActionName, ViewSetMixinClass } from './mixins.js';
import type { RequestOptions } from './options.js';
import { withKey, type ViewSetCall } from './runtime.js';

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
      const method = function (this: { request: Sender }, ...args: unknown[]): unknown {
        const suffix = path === '/{pk}' ? `/${encodeURIComponent(String(args.shift()))}` : path;
        let value = data === '-' ? undefined : args.shift();
        let given = args.shift();
        // `list({ query })` (0.1): a single argument holding options rather than query parameters
        if (data === 'q' && given === undefined && value !== null && typeof value === 'object' && Object.values(value).some(isOptionValue)) {
          given = value;
          value = undefined;
        }
        const send = (options: unknown): ViewSetCall<unknown> => this.request(verb, suffix, options);
        // Options that are not an object go through as they are, so the call rejects with a TypeError.
        if (given !== undefined && (given === null || typeof given !== 'object')) return send(given);
        const options: RequestOptions = { ...(given as RequestOptions | undefined) };
        if (data === 'b') options.body = value;
        else if (value !== undefined) options.query = value as RequestOptions['query'];
        const call = send(options);
        return answer ? withKey(call.then(answer), call.key) : call;
      };
      Object.defineProperty(method, 'name', { value: action });
      Object.defineProperty(target.prototype, action, { value: method, writable: true, configurable: true });
    }
  }
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
