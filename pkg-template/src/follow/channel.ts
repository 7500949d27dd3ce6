/**
 * The channel of a follower: what it sends to the events viewset through a proxy's core (its
 * transport, headers and interceptors). Every poll, subscribe and unsubscribe is a call of this
 * package with a key of its own, in the background, never persisted. Over a muxws peer the channel
 * also subscribes the peer's socket (the pushes come on the peer's server-opened streams); while
 * the peer's calls fall back to REST, and once it is closed for good, it polls over REST at the
 * peer's origin.
 */
import type { ProxyCore } from '../compose.js';
import type { FollowServices } from '../follow-services.js';
import type { PushPeer } from '../vocabulary/call-types.js';

/** A poll's own repeat window: a lost answer is asked again under the same key only this long. */
const POLL_REPEAT = { withinMs: 10_000, delayMs: 500 };
/**
 * A subscribe is never repeated: a repeat under its key on a later socket would be answered from
 * the server's idempotency store and subscribe nothing. A lost answer is a new subscribe (a new
 * key) on the next socket.
 */
const ONCE = { withinMs: 0 };

/** How a follower reaches the events viewset. */
export interface Channel {
  /** The engine's name of it. */
  readonly id: number;
  /** The IndexedDB key prefix of this channel's persisted cursors (its origin and events path). */
  readonly persistKey: string;
  /** `POST {eventsPath}/poll`; resolves with the answer as received (unchecked). */
  poll(cursors: Record<string, number | null>, scopes: Record<string, string>, signal: AbortSignal): Promise<unknown>;
  /** Over a muxws peer: the peer, its subscribe and unsubscribe. */
  readonly push?: {
    peer(): Promise<PushPeer>;
    subscribe(topic: string): Promise<unknown>;
    unsubscribe(topic: string): Promise<unknown>;
  };
}

/** The channels by what they go through (a proxy's core, a peer's transport, an origin) and events path. */
const channels = new WeakMap<object, Map<string, Channel>>();
let ids = 0;

/** The REST origin of a muxws URL (ws → http, wss → https), or undefined. */
function restOrigin(url: string): string | undefined {
  try {
    const { protocol, host } = new URL(url);
    return protocol === 'wss:' ? `https://${host}` : protocol === 'ws:' ? `http://${host}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The channel of `owner` to `{eventsPath}` through `core` (its transport, headers and
 * interceptors): REST, or a muxws peer's streams with subscriptions of its socket.
 */
export function channelOf(services: FollowServices, owner: object, core: ProxyCore, eventsPath: string, persistKey: string): Channel {
  let byPath = channels.get(owner);
  if (!byPath) channels.set(owner, (byPath = new Map()));
  const known = byPath.get(eventsPath);
  if (known) return known;
  const events: ProxyCore = { ...core, basePath: eventsPath, persist: false };
  const send = (over: ProxyCore, path: string, body: unknown, repeat: object, signal?: AbortSignal) =>
    services.issueCall(over, 'POST', path, { body, background: true, repeat, signal });
  const pushPeer = core.transport.pushPeer?.bind(core.transport);
  let peer: PushPeer | undefined;
  /** Over REST at the peer's origin (or where its calls fall back to): the core's headers and interceptors. */
  const overRest = (): ProxyCore | undefined => {
    const baseUrl = peer?.restBase ?? (peer?.isClosed ? restOrigin(peer.url) : undefined);
    return baseUrl ? { ...events, baseUrl, transport: services.restTransport } : undefined;
  };
  const channel: Channel = {
    id: ++ids,
    persistKey: `${persistKey}${eventsPath}`,
    poll: (cursors, scopes, signal) => send(overRest() ?? events, '/poll', { cursors, scopes }, POLL_REPEAT, signal),
    ...(pushPeer && {
      push: {
        peer: () => pushPeer().then((found) => (peer = found)),
        subscribe: (topic: string) => send(events, '/subscribe', { topic }, ONCE),
        unsubscribe: (topic: string) => send(events, '/unsubscribe', { topic }, ONCE),
      },
    }),
  };
  byPath.set(eventsPath, channel);
  return channel;
}
