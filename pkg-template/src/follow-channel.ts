/**
 * The poll channel of a follower: `POST {eventsPath}/poll` through a proxy's core (its transport,
 * headers and interceptors), so over REST or a muxws peer's streams as the core's transport is. A
 * push channel (subscribe, server-opened streams) implements the same `EventChannel`. Used by
 * follow-engine.ts only, so it ships in that chunk.
 */
import type { ProxyCore } from './compose.js';
import type { EventChannel } from './events.js';
import type { FollowKit } from './follow-kit.js';

/** A poll's own repeat window: a lost answer is asked again under the same key only this long. */
const POLL_REPEAT = { withinMs: 10_000, delayMs: 500 };

/** The channels by what they go through (a proxy's core, a peer's transport, an origin) and events path. */
const channels = new WeakMap<object, Map<string, EventChannel>>();

/**
 * The channel of `owner` polling `{eventsPath}/poll` through `core` (its transport, headers and
 * interceptors): REST or a muxws peer's streams, as the core's transport is. Every poll is a call
 * of its own (a new key), in the background, never persisted.
 */
export function channelOf(kit: FollowKit, owner: object, core: ProxyCore, eventsPath: string, persistKey: string): EventChannel {
  let byPath = channels.get(owner);
  if (!byPath) channels.set(owner, (byPath = new Map()));
  let channel = byPath.get(eventsPath);
  if (!channel) {
    const events: ProxyCore = { ...core, basePath: eventsPath, persist: false };
    channel = {
      poll: (cursors, scopes) => kit[2](events, 'POST', '/poll', { body: { cursors, scopes }, background: true, repeat: POLL_REPEAT }),
      persistKey: `${persistKey}${eventsPath}`,
    };
    byPath.set(eventsPath, channel);
  }
  return channel;
}

