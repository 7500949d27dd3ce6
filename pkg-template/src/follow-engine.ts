/**
 * The followers, loaded on demand by follow.ts: per channel one poller that sends one poll for
 * every followed topic (split above the server's 256 cursors), at the shortest interval its
 * followers ask for and never under the answer's `poll_after_ms`, paused while the platform is
 * offline and sent at once when it is back; per topic a cursor, the events delivered once, in rev
 * order, each awaited, `events: null` as `onResync`, refusals as `onRefused`. An answer is hostile input: only the topics asked are read, every rev is
 * checked, caps come before work.
 *
 * This chunk imports only types and the files only it uses (follow-channel.ts, follow-persist.ts,
 * apply-changes.ts): what it needs of the package comes in the kit follow.ts hands it.
 */
import type { HttpError } from './errors.js';
import type { ProxyCore } from './compose.js';
import type { EventChannel, Follower, Topic } from './events.js';
import type { CheckedFollow, FollowKit } from './follow-kit.js';
import { channelOf } from './follow-channel.js';
import { loadCursor, saveCursor } from './follow-persist.js';

export { applyChanges } from './apply-changes.js';

/** Cursors one poll carries at most (the server's `viewsets_event_max_subscriptions` default). */
const MAX_CURSORS = 256;
/** Events one topic's answer may hold; an answer with more is not read (the server keeps 32 by default). */
const MAX_EVENTS = 10_000;
/** The longest `poll_after_ms` obeyed, and the longest backoff after failed polls. */
const MAX_WAIT_MS = 300_000;
/** Scope keys longer than this are not taken. */
const MAX_SCOPE = 1024;

/** A rev as the server issues them: a whole number from 0 below 2^53. */
function isRev(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `object[name]` when `object` has it as its own property (never an inherited `__proto__` or getter). */
function own(object: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, name) ? object[name] : undefined;
}

/** The handle follow.ts returned, whose state the engine writes. */
type Handle = { -readonly [K in keyof Follower]: Follower[K] };

/** One followed topic. */
class TopicFollower {
  /** An answer of this topic is being delivered: it is left out of polls until done. */
  busy = false;
  /** `catchUp()` calls waiting for the next answer delivered. */
  waiters: (() => void)[] = [];
  /** `catchUp()` calls made while an answer was being delivered: they wait for the poll after it. */
  later: (() => void)[] = [];
  readyFns!: [() => void, (error: unknown) => void];
  readonly ready: Promise<void>;
  held = false;

  constructor(
    readonly kit: FollowKit,
    readonly handle: Handle,
    readonly poller: Poller,
    readonly options: CheckedFollow,
  ) {
    this.ready = new Promise((resolve, reject) => (this.readyFns = [resolve, reject]));
    this.ready.catch(() => {});
  }

  get active(): boolean {
    return this.handle.mode === 'poll' || this.handle.mode === 'paused';
  }

  /** Runs a callback of the application; what it throws is reported, never the follower's end. */
  async call(what: string, run: () => unknown): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.kit[1](`${what} of ${this.handle.topic} threw`, error);
    }
  }

  /** The cursor and scope are now these (kept in IndexedDB with `persist`). */
  moveTo(cursor: number, scope: string | undefined): void {
    this.handle.cursor = cursor;
    this.handle.scope = scope;
    if (this.options.persist) saveCursor(this.poller.channel.persistKey, this.handle.topic, cursor, scope);
  }

  refuse(error: HttpError): Promise<void> {
    if (!this.active) return Promise.resolve();
    this.handle.mode = 'refused';
    this.poller.remove(this);
    this.readyFns[1](error);
    this.settleWaiters(true);
    const onRefused = this.options.onRefused;
    return onRefused ? this.call('onRefused', () => onRefused(error)) : Promise.resolve();
  }

  settleWaiters(all = false): void {
    for (const waiter of this.waiters.splice(0)) waiter();
    if (all) for (const waiter of this.later.splice(0)) waiter();
  }

  /** Delivers one topic's answer `answer` (as received). */
  async deliver(answer: unknown): Promise<void> {
    this.busy = true;
    try {
      await this.apply(answer);
    } finally {
      this.busy = false;
      if (this.held) this.readyFns[0]();
      this.settleWaiters();
      if (this.later.length) {
        this.waiters.push(...this.later.splice(0));
        this.poller.soon();
      }
    }
  }

  private async apply(answer: unknown): Promise<void> {
    if (!isObject(answer) || !this.active) return;
    const status = own(answer, 'status');
    if (own(answer, 'error') !== undefined || status !== undefined) {
      // 400–499 other than 429 refuse the topic; 429, 5xx and anything else are asked again later
      if (typeof status === 'number' && status >= 400 && status < 500 && status !== 429) {
        const body = own(answer, 'error');
        const detail = isObject(body) && typeof body.detail === 'string' ? body.detail : `HTTP ${status}`;
        await this.refuse(new this.kit[0](status, body, {}, `following ${this.handle.topic} was refused (${status}): ${detail}`, { key: '', attempts: 1 }));
      }
      return;
    }
    const rev = own(answer, 'rev');
    const events = own(answer, 'events');
    const given = own(answer, 'scope');
    if (!isRev(rev) || (events !== null && !Array.isArray(events)) || (Array.isArray(events) && events.length > MAX_EVENTS)) return;
    const scope = typeof given === 'string' && given.length <= MAX_SCOPE ? given : undefined;
    const cursor = this.handle.cursor;
    if (events === null) {
      this.moveTo(rev, scope);
      this.held = true;
      const onResync = this.options.onResync;
      if (onResync) await this.call('onResync', () => onResync((scope === undefined ? { topic: this.handle.topic, rev } : { topic: this.handle.topic, rev, scope }) as never));
      return;
    }
    if (cursor === null) {
      this.moveTo(rev, scope);
      this.held = true;
      return;
    }
    let at = cursor;
    for (const event of events) {
      if (!this.active) return;
      // each event follows the one before (its prev is the cursor); a chain that breaks is left there
      if (!isObject(event)) return;
      const eventRev = own(event, 'rev');
      const name = own(event, 'event');
      const version = own(event, 'version');
      if (own(event, 'prev') !== at || !isRev(eventRev) || eventRev <= at || typeof name !== 'string' || !isRev(version) || version < 1) return;
      const message = { topic: this.handle.topic, event: name, version, rev: eventRev, prev: at, payload: own(event, 'payload'), scope, via: 'poll' as const };
      if (scope === undefined) delete (message as { scope?: string }).scope;
      const onEvent = this.options.onEvent;
      if (onEvent) await this.call('onEvent', () => onEvent(message as never));
      at = eventRev;
      this.moveTo(at, scope);
    }
    this.held = true;
    // the answer's rev covers events the server's filters left out
    if (rev > at && this.active) this.moveTo(rev, scope);
  }

  catchUp(): Promise<void> {
    if (!this.active) return Promise.resolve();
    const done = new Promise<void>((resolve) => (this.busy ? this.later : this.waiters).push(resolve));
    this.poller.soon();
    return done;
  }

  close(): Promise<void> {
    if (this.handle.mode !== 'closed') {
      const wasActive = this.active;
      this.handle.mode = 'closed';
      this.poller.remove(this);
      if (wasActive) this.readyFns[1](new Error(`following ${this.handle.topic} was closed`));
      this.settleWaiters(true);
    }
    return Promise.resolve();
  }
}

/** Pollers by channel. */
const pollers = new Map<EventChannel, Poller>();

/** Whether the platform says it is offline (`navigator.onLine` false); never in Node. */
function offline(): boolean {
  return (globalThis as { navigator?: { onLine?: unknown } }).navigator?.onLine === false;
}

let listening = false;

/** Follows the platform's online/offline events once: offline pauses every poller, online polls at once. */
function followOnline(): void {
  const scope = globalThis as { addEventListener?: (type: string, listener: () => void) => void };
  if (listening || typeof scope.addEventListener !== 'function') return;
  listening = true;
  scope.addEventListener('online', () => pollers.forEach((poller) => poller.soon()));
  scope.addEventListener('offline', () => pollers.forEach((poller) => poller.setMode('paused')));
}

/** The polls of one channel. */
class Poller {
  readonly followers = new Set<TopicFollower>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private polling = false;
  private again = false;
  /** The server's `poll_after_ms`: the shortest interval. */
  private floorMs = 0;
  /** Failed polls in a row (429, 5xx, no answer): the interval doubles with each. */
  private failures = 0;

  constructor(readonly channel: EventChannel) {}

  add(follower: TopicFollower): void {
    this.followers.add(follower);
    this.soon();
  }

  remove(follower: TopicFollower): void {
    this.followers.delete(follower);
    if (this.followers.size === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      pollers.delete(this.channel);
    }
  }

  setMode(mode: 'poll' | 'paused'): void {
    for (const follower of this.followers) if (follower.active) follower.handle.mode = mode;
  }

  /** Polls now (or right after the poll under way). */
  soon(): void {
    if (this.polling) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.round(), 0);
  }

  private schedule(): void {
    if (this.followers.size === 0) return;
    let interval = Infinity;
    for (const follower of this.followers) interval = Math.min(interval, follower.options.pollIntervalMs);
    const wait = Math.min(MAX_WAIT_MS, Math.max(interval * 2 ** Math.min(this.failures, 16), this.floorMs));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.round(), this.again ? this.floorMs : wait);
    this.again = false;
  }

  private async round(): Promise<void> {
    this.timer = undefined;
    if (this.followers.size === 0) return;
    if (offline()) {
      // polled again by the `online` event
      this.setMode('paused');
      return;
    }
    this.setMode('poll');
    this.polling = true;
    try {
      // every topic once per poll, at most MAX_CURSORS a poll; a topic still delivering waits
      const polls: TopicFollower[][] = [];
      for (const follower of this.followers) {
        if (follower.busy) continue;
        let poll = polls.find((list) => list.length < MAX_CURSORS && !list.some((other) => other.handle.topic === follower.handle.topic));
        if (!poll) polls.push((poll = []));
        poll.push(follower);
      }
      const failed = await Promise.all(polls.map((list) => this.poll(list)));
      this.failures = failed.some(Boolean) ? this.failures + 1 : 0;
    } finally {
      this.polling = false;
      this.schedule();
    }
  }

  /** One poll of `list`; resolves true when it failed without refusing. */
  private async poll(list: TopicFollower[]): Promise<boolean> {
    // no prototype: a topic named __proto__ is a key like any other
    const cursors: Record<Topic, number | null> = Object.create(null);
    const scopes: Record<Topic, string> = Object.create(null);
    for (const follower of list) {
      cursors[follower.handle.topic] = follower.handle.cursor;
      if (follower.handle.scope !== undefined) scopes[follower.handle.topic] = follower.handle.scope;
    }
    let answer: unknown;
    try {
      answer = await this.channel.poll(cursors, scopes);
    } catch (error) {
      const status = (error as { status?: unknown } | null)?.status;
      if (error instanceof list[0].kit[0] && typeof status === 'number' && status >= 400 && status < 500 && status !== 429) {
        await Promise.all(list.map((follower) => follower.refuse(error)));
        return false;
      }
      return true;
    }
    const topics = isObject(answer) ? own(answer, 'topics') : undefined;
    if (!isObject(answer) || !isObject(topics)) return true;
    const after = own(answer, 'poll_after_ms');
    this.floorMs = isRev(after) ? Math.min(after, MAX_WAIT_MS) : 0;
    // delivered in the background: a slow onEvent holds up its own topic only
    for (const follower of list) if (follower.active) void follower.deliver(own(topics, follower.handle.topic));
    return false;
  }
}

/** Starts the follower of `handle`'s topic on the channel of `owner` (called by follow.ts once this chunk is loaded). */
export async function start(kit: FollowKit, handle: Handle, owner: object, core: ProxyCore, options: CheckedFollow, persistKey: string): Promise<TopicFollower> {
  followOnline();
  const channel = channelOf(kit, owner, core, options.eventsPath, persistKey);
  handle.cursor = options.from;
  const stored = options.persist ? await loadCursor(channel.persistKey, handle.topic) : undefined;
  if (stored) {
    handle.cursor = stored.rev;
    handle.scope = stored.scope;
  }
  let poller = pollers.get(channel);
  if (!poller) pollers.set(channel, (poller = new Poller(channel)));
  const follower = new TopicFollower(kit, handle, poller, options);
  poller.add(follower);
  return follower;
}
