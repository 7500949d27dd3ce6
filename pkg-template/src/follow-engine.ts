/**
 * The followers, loaded on demand by follow.ts: per channel one poller that sends one poll for
 * every followed topic (split above the server's 256 cursors), at the shortest interval its
 * followers ask for and never under the answer's `poll_after_ms`, paused while the platform is
 * offline and sent at once when it is back; over a muxws peer a push session (follow-push.ts)
 * that subscribes the peer's socket, the poller then sending only check polls. Per topic a
 * cursor, the events delivered once, in rev order, each awaited (pushes and poll answers one
 * after the other), `events: null` as `onResync`, refusals as `onRefused`. An answer is hostile
 * input: only the topics asked are read, every rev is checked, caps come before work.
 *
 * This chunk imports only types and the files only it uses (follow-channel.ts, follow-push.ts,
 * follow-wire.ts, follow-persist.ts, apply-changes.ts): what it needs of the package comes in the
 * kit follow.ts hands it.
 */
import type { HttpError } from './errors.js';
import type { ProxyCore } from './compose.js';
import type { EventChannel, Follower, Topic } from './events.js';
import type { CheckedFollow, FollowKit } from './follow-kit.js';
import { channelOf } from './follow-channel.js';
import { loadCursor, saveCursor } from './follow-persist.js';
import { sessionOf, type PushSession, type Pushed, type PushTarget } from './follow-push.js';
import { isObject, isRev, own, refusal, scopeOf } from './follow-wire.js';

export { applyChanges } from './apply-changes.js';

/** Cursors one poll carries at most (the server's `viewsets_event_max_subscriptions` default). */
const MAX_CURSORS = 256;
/** Events one topic's answer may hold; an answer with more is not read (the server keeps 32 by default). */
const MAX_EVENTS = 10_000;
/** The longest `poll_after_ms` obeyed, and the longest backoff after failed polls. */
const MAX_WAIT_MS = 300_000;
/** Pushed events one topic keeps waiting for their turn; past it they are dropped and a poll catches up. */
const MAX_QUEUED = 10_000;

/** The handle follow.ts returned, whose state the engine writes. */
type Handle = { -readonly [K in keyof Follower]: Follower[K] };

/** One followed topic. */
class TopicFollower implements PushTarget {
  /** An answer or pushes of this topic are being delivered: it is left out of polls until done. */
  busy = false;
  /** `catchUp()` calls waiting for the next answer delivered. */
  waiters: (() => void)[] = [];
  /** `catchUp()` calls made while an answer was being delivered: they wait for the poll after it. */
  later: (() => void)[] = [];
  readyFns!: [() => void, (error: unknown) => void];
  readonly ready: Promise<void>;
  held = false;
  /** The push session of a muxws peer's channel, while this topic is followed by push. */
  session: PushSession | undefined;
  /** The current socket holds this topic: its pushes flow. */
  pushing = false;
  /** Pushed events waiting for their turn, by rev (oldest first). */
  private pushes: Pushed[] = [];
  /** The rev of the push whose gap asked for a catch-up poll: the same gap asks once. */
  private askedFor = -1;
  /** A subscribe's answer that came while an answer was being delivered. */
  private answered: [number, string | undefined] | undefined;

  constructor(
    readonly kit: FollowKit,
    readonly handle: Handle,
    readonly poller: Poller,
    readonly options: CheckedFollow,
  ) {
    this.ready = new Promise((resolve, reject) => (this.readyFns = [resolve, reject]));
    this.ready.catch(() => {});
  }

  get topic(): Topic {
    return this.handle.topic;
  }

  get active(): boolean {
    const mode = this.handle.mode;
    return mode === 'poll' || mode === 'paused' || mode === 'push';
  }

  /** The mode of an active follower: `'paused'` while offline, else `'push'` while its pushes flow, else `'poll'`. */
  setMode(paused: boolean): void {
    if (this.active) this.handle.mode = paused ? 'paused' : this.pushing ? 'push' : 'poll';
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
    this.leave(false);
    this.readyFns[1](error);
    this.settleWaiters(true);
    const onRefused = this.options.onRefused;
    return onRefused ? this.call('onRefused', () => onRefused(error)) : Promise.resolve();
  }

  /** Leaves the poller and the push session (unsubscribing the socket when `unsubscribe`). */
  private leave(unsubscribe: boolean): void {
    this.poller.remove(this);
    this.session?.detach(this, unsubscribe);
    this.pushing = false;
    this.pushes = [];
  }

  settleWaiters(all = false): void {
    for (const waiter of this.waiters.splice(0)) waiter();
    if (all) for (const waiter of this.later.splice(0)) waiter();
  }

  /** Delivers one topic's answer `answer` (as received) to a poll sent with the cursor `sent`. */
  async deliver(answer: unknown, sent: number | null): Promise<void> {
    this.busy = true;
    try {
      await this.apply(answer, sent);
    } finally {
      this.busy = false;
      this.settleWaiters();
      this.pollForLater();
      this.after();
    }
  }

  /** `catchUp()` calls made while this topic was delivering wait for the answer of a poll sent now. */
  private pollForLater(): void {
    if (!this.later.length) return;
    this.waiters.push(...this.later.splice(0));
    this.poller.soon();
  }

  /** What waited for a delivery to end: the ready promise, a subscribe's answer, the pushes. */
  private after(): void {
    if (this.held) this.readyFns[0]();
    const answered = this.answered;
    this.answered = undefined;
    if (answered) this.subscribed(...answered);
    else void this.drain();
  }

  private async apply(answer: unknown, sent: number | null): Promise<void> {
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
    if (!isRev(rev) || (events !== null && !Array.isArray(events)) || (Array.isArray(events) && events.length > MAX_EVENTS)) return;
    const scope = scopeOf(own(answer, 'scope'));
    const cursor = this.handle.cursor;
    if (events === null) {
      // a gap after a cursor that pushes have moved since the poll went is the next poll's to tell
      if (cursor !== sent) return this.poller.soon();
      this.moveTo(rev, scope);
      this.held = true;
      const onResync = this.options.onResync;
      if (onResync) await this.call('onResync', () => onResync((scope === undefined ? { topic: this.handle.topic, rev } : { topic: this.handle.topic, rev, scope }) as never));
      return;
    }
    if (sent === null) {
      // "from now": the answer's rev, unless a subscribe's answer gave a cursor meanwhile
      if (cursor === null) this.moveTo(rev, scope);
      this.held = true;
      return;
    }
    // the chain starts at the cursor the poll was sent with, each event's prev the rev before it;
    // a chain that breaks is left there; an event a push delivered meanwhile is passed over
    let link = sent;
    for (const event of events) {
      if (!this.active || !isObject(event)) return;
      const eventRev = own(event, 'rev');
      const name = own(event, 'event');
      const version = own(event, 'version');
      if (own(event, 'prev') !== link || !isRev(eventRev) || eventRev <= link || typeof name !== 'string' || !isRev(version) || version < 1) return;
      link = eventRev;
      const at = this.handle.cursor!;
      if (eventRev > at) await this.emit(name, version, eventRev, at, own(event, 'payload'), scope, 'poll');
    }
    this.held = true;
    // the answer's rev covers events the server's filters left out (unless pushes went past the chain)
    if (rev > link && this.active && this.handle.cursor === link) this.moveTo(rev, scope);
  }

  /** Gives one event to `onEvent` (awaited), then moves the cursor to it. */
  private async emit(event: string, version: number, rev: number, prev: number, payload: unknown, scope: string | undefined, via: 'push' | 'poll'): Promise<void> {
    const message = { topic: this.handle.topic, event, version, rev, prev, payload, scope, via };
    if (scope === undefined) delete (message as { scope?: string }).scope;
    const onEvent = this.options.onEvent;
    if (onEvent) await this.call('onEvent', () => onEvent(message as never));
    this.moveTo(rev, scope);
  }

  // ------------------------------------------------------------------------ by push (PushTarget)

  subscribed(rev: number, scope: string | undefined): void {
    if (!this.active) return;
    if (this.busy) {
      this.answered = [rev, scope];
      return;
    }
    this.pushing = true;
    this.setMode(offline());
    const cursor = this.handle.cursor;
    // events came (or the scope changed) since the cursor: a poll from it catches up
    const behind = cursor !== null && (rev !== cursor || scope !== this.handle.scope);
    // following from now: the subscribe's rev is the cursor
    if (cursor === null) this.moveTo(rev, scope);
    if (behind) this.poller.soon();
    else {
      this.held = true;
      this.readyFns[0]();
    }
    this.poller.replan();
    void this.drain();
  }

  unsubscribed(): void {
    this.pushing = false;
    this.setMode(offline());
    this.poller.replan();
  }

  pushed(event: Pushed): void {
    const cursor = this.handle.cursor;
    if (!this.active || (cursor !== null && event.rev <= cursor)) return;
    const pushes = this.pushes;
    if (pushes.length >= MAX_QUEUED) {
      // too far behind: the poll from the cursor brings what was dropped
      this.pushes = [];
      this.poller.soon();
      return;
    }
    // by rev, each once (pushes come in rev order, so this is nearly always the end)
    let at = pushes.length;
    while (at > 0 && pushes[at - 1].rev > event.rev) at--;
    if (pushes[at - 1]?.rev !== event.rev) pushes.splice(at, 0, event);
    void this.drain();
  }

  /**
   * Delivers the pushed events that follow the cursor, in rev order, each awaited; drops those at
   * or below it. A push whose prev is not the cursor is a suspected gap (a lost push, a server's
   * filter): a poll from the cursor tells, once per gap; only its `events: null` is a resync.
   */
  private async drain(): Promise<void> {
    if (this.busy || !this.pushes.length) return;
    this.busy = true;
    try {
      while (this.active && this.pushes.length) {
        const cursor = this.handle.cursor;
        const next = this.pushes[0];
        // no cursor yet: the subscribe's answer (or the first poll's) gives it
        if (cursor === null) break;
        // at or below the cursor, or of another scope (the socket's subscription is another channel's now)
        if (next.rev <= cursor || next.scope !== this.handle.scope) {
          this.pushes.shift();
          continue;
        }
        if (next.prev !== cursor) break;
        this.pushes.shift();
        await this.emit(next.event, next.version, next.rev, cursor, next.payload, next.scope, 'push');
      }
    } finally {
      this.busy = false;
    }
    this.pollForLater();
    const next = this.pushes[0];
    if (next && this.handle.cursor !== null && next.rev > this.askedFor) {
      this.askedFor = next.rev;
      this.poller.soon();
    }
    if (this.answered) this.after();
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
      this.leave(true);
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
  scope.addEventListener('offline', () => pollers.forEach((poller) => poller.setMode(true)));
}

/** The polls of one channel. */
class Poller {
  readonly followers = new Set<TopicFollower>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private polling = false;
  private again = false;
  /** A poll is due at once (`soon()`): no replan puts it off. */
  private due = false;
  /** The server's `poll_after_ms`: the shortest interval. */
  private floorMs = 0;
  /** Failed polls in a row (429, 5xx, no answer): the interval doubles with each. */
  private failures = 0;

  constructor(readonly channel: EventChannel) {}

  /** Polls for `follower` from now on: at once, or (`now` false: it subscribes first) at the next interval. */
  add(follower: TopicFollower, now: boolean): void {
    this.followers.add(follower);
    if (now) this.soon();
    else this.replan();
  }

  remove(follower: TopicFollower): void {
    this.followers.delete(follower);
    if (this.followers.size === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      pollers.delete(this.channel);
    }
  }

  setMode(paused: boolean): void {
    for (const follower of this.followers) follower.setMode(paused);
  }

  /** Polls now (or right after the poll under way). */
  soon(): void {
    if (this.polling) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.due = true;
    this.timer = setTimeout(() => void this.round(), 0);
  }

  /** The intervals changed (a follower's pushes started or stopped): the next poll is timed again, unless one is due now. */
  replan(): void {
    if (!this.polling && !this.due) this.schedule();
  }

  /**
   * The next poll, at the shortest interval of the followers: `pollIntervalMs`, or
   * `checkIntervalMs` for one whose pushes flow (the check poll, for losses no push shows).
   */
  private schedule(): void {
    if (this.followers.size === 0) return;
    let interval = Infinity;
    for (const follower of this.followers) interval = Math.min(interval, follower.pushing ? follower.options.checkIntervalMs : follower.options.pollIntervalMs);
    const wait = Math.min(MAX_WAIT_MS, Math.max(interval * 2 ** Math.min(this.failures, 16), this.floorMs));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.round(), this.again ? this.floorMs : wait);
    this.again = false;
  }

  private async round(): Promise<void> {
    this.timer = undefined;
    this.due = false;
    if (this.followers.size === 0) return;
    if (offline()) {
      // polled again by the `online` event
      this.setMode(true);
      return;
    }
    this.setMode(false);
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
      const refused = refusal(list[0].kit, error);
      if (refused) {
        await Promise.all(list.map((follower) => follower.refuse(refused)));
        return false;
      }
      return true;
    }
    const topics = isObject(answer) ? own(answer, 'topics') : undefined;
    if (!isObject(answer) || !isObject(topics)) return true;
    const after = own(answer, 'poll_after_ms');
    this.floorMs = isRev(after) ? Math.min(after, MAX_WAIT_MS) : 0;
    // delivered in the background: a slow onEvent holds up its own topic only
    for (const follower of list) if (follower.active) void follower.deliver(own(topics, follower.handle.topic), cursors[follower.handle.topic]);
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
  // over a muxws peer the topic is subscribed first: its answer says whether a poll must catch up
  const push = channel.pushPeer !== undefined;
  poller.add(follower, !push);
  if (push) (follower.session = sessionOf(kit, channel)).attach(follower);
  return follower;
}
