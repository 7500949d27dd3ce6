/**
 * The channel of a follower: what it sends to the events viewset through a proxy's core (its
 * transport, headers and interceptors). Every poll, subscribe and unsubscribe is a call of this
 * package with a key of its own, in the background, never persisted. Over a muxws peer the channel
 * also subscribes the peer's socket (the pushes come on the peer's server-opened streams), and once
 * the peer is closed for good it polls over REST at the peer's origin. Used by the follower's
 * chunk only.
 */
import type { ProxyCore } from './compose.js';
import type { EventChannel } from './events.js';
import type { FollowKit } from './follow-kit.js';
import type { PushPeer } from './runtime.js';

/** A poll's own repeat window: a lost answer is asked again under the same key only this long. */
const POLL_REPEAT = { withinMs: 10_000, delayMs: 500 };
/**
 * A subscribe is never repeated: a repeat under its key on a later socket would be answered from
 * the server's idempotency store and subscribe nothing. A lost answer is a new subscribe (a new
 * key) on the next socket.
 */
const ONCE = { withinMs: 0 };

/** The channels by what they go through (a proxy's core, a peer's transport, an origin) and events path. */
const channels = new WeakMap<object, Map<string, EventChannel>>();

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
export function channelOf(kit: FollowKit, owner: object, core: ProxyCore, eventsPath: string, persistKey: string): EventChannel {
  let byPath = channels.get(owner);
  if (!byPath) channels.set(owner, (byPath = new Map()));
  let channel = byPath.get(eventsPath);
  if (!channel) {
    const events: ProxyCore = { ...core, basePath: eventsPath, persist: false };
    const send = (over: ProxyCore, path: string, body: unknown, repeat: object) => kit[2](over, 'POST', path, { body, background: true, repeat });
    const pushPeer = core.transport.pushPeer?.bind(core.transport);
    let peer: PushPeer | undefined;
    let rest: ProxyCore | undefined;
    channel = {
      poll(cursors, scopes) {
        // a peer closed for good polls over REST at its origin, with the core's headers and interceptors
        if (peer?.isClosed && !rest) {
          const baseUrl = restOrigin(peer.url);
          if (baseUrl) rest = { ...events, baseUrl, transport: kit[3] };
        }
        return send(rest ?? events, '/poll', { cursors, scopes }, POLL_REPEAT);
      },
      persistKey: `${persistKey}${eventsPath}`,
    };
    if (pushPeer) {
      channel.pushPeer = () => pushPeer().then((known) => (peer = known));
      channel.subscribe = (topic) => send(events, '/subscribe', { topic }, ONCE);
      channel.unsubscribe = (topic) => send(events, '/unsubscribe', { topic }, ONCE);
    }
    byPath.set(eventsPath, channel);
  }
  return channel;
}
