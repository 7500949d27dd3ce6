/**
 * The follower's engine: every followed topic's cursor, the events waiting for their turn, the
 * polls and the subscriptions of every channel, as one state machine in the shape of the call
 * engine and the muxws connection. It is sans-IO: each input carries `now` (the package's one
 * clock), nothing here sends, awaits or sets a timer; what is to be done is queued as actions
 * (`pollAction()`), and `nextTimeout()` is when it wants to be told the time again.
 *
 * The rules it keeps, whatever the order its inputs come in:
 * - a follower's events are handed out one at a time, in rev order, each once: the next only
 *   after `handled()` says the application's handler returned; `onResync` and `onRefused` take
 *   the same turn, so none runs during another;
 * - the cursor moves when an event is handed out, and goes back only by a resync;
 * - a resync exactly when the server's log no longer holds the cursor (`events: null` to a poll
 *   sent with the cursor held, or a rev below it: a store that lost its log, a cursor a hostile
 *   push moved too far), or when what it holds is more than the caps let the client keep;
 * - no answer keeps a follower waiting in silence: while its subscribe is unanswered, and while
 *   its peer holds pushed streams the server never ended (pushes may be refused), it polls at its
 *   poll interval; a `poll_after_ms` holds only the followers of the poll it answered;
 * - nothing is handed out after `close()`;
 * - queued events are capped by bytes; a follower's poll that hangs is abandoned at its deadline
 *   and its topic polled alone after it, so it holds no other topic; failures back off with
 *   jitter and show as the follower's error.
 *
 * Payloads and errors are JavaScript values the engine passes through and never reads.
 */

/** A follower's mode as its handle shows it. */
export type Mode = 'push' | 'poll' | 'paused' | 'refused' | 'closed';

/** One event (or, with no `event`, the answer's rev past filtered events) waiting for its turn. */
export interface Item {
  rev: number;
  prev: number;
  /** The event's name; undefined for a move of the cursor to `rev` that delivers nothing. */
  event?: string;
  version: number;
  payload: unknown;
  scope: string | undefined;
  via: 'push' | 'poll';
  /** What it costs to keep (its payload's JSON length). */
  bytes: number;
}

/** One event of a poll's answer, its fields checked (wire.ts). */
export type WireEvent = Omit<Item, 'via' | 'scope'>;

/** What the server answered for one topic of a poll, as wire.ts read it. */
export type TopicAnswer =
  /** `whole`: every event was read (false: the list broke at one that is not an event, and ends there). */
  | { kind: 'events'; rev: number; scope: string | undefined; events: WireEvent[]; whole: boolean }
  /** `events: null`: the log no longer holds the cursor (or the events are more than the client keeps). */
  | { kind: 'gap'; rev: number; scope: string | undefined }
  /** A 400–499 other than 429: the topic is refused for good. */
  | { kind: 'refused'; error: unknown }
  /** 429, 5xx, or an answer not understood: asked again later. */
  | { kind: 'later'; error: unknown };

/** What a follower is started with. */
export interface FollowerConfig {
  channel: number;
  topic: string;
  /** The rev to follow from; null: from now. */
  cursor: number | null;
  scope: string | undefined;
  pollIntervalMs: number;
  checkIntervalMs: number;
}

/** What a follower's handle shows. */
export interface FollowerView {
  mode: Mode;
  cursor: number | null;
  scope: string | undefined;
  error: unknown;
}

/** What the engine asks its driver to do. */
export type Action =
  | { type: 'poll'; poll: number; channel: number; cursors: [topic: string, cursor: number | null, scope: string | undefined][] }
  | { type: 'abandon'; poll: number }
  | { type: 'subscribe'; sub: number; channel: number; topic: string }
  | { type: 'unsubscribe'; channel: number; topic: string }
  | { type: 'event'; follower: number; item: Item; prev: number }
  | { type: 'resync'; follower: number; rev: number; scope: string | undefined }
  | { type: 'refused'; follower: number; error: unknown }
  | { type: 'changed'; follower: number; view: FollowerView }
  | { type: 'ready'; follower: number; ok: boolean; error: unknown }
  | { type: 'caughtUp'; token: unknown; ok: boolean; error: unknown }
  /** The engine holds the follower no more (closed, or refused and its `onRefused` handed out): nothing more comes of it. */
  | { type: 'gone'; follower: number };

/** How long a poll may go unanswered before it is abandoned (the backend answers at once). */
export const POLL_TIMEOUT_MS = 15_000;
/** Cursors one poll carries at most (the server's `viewsets_event_max_subscriptions` default). */
export const MAX_CURSORS = 256;
/** Bytes of events one follower keeps waiting for their turn; past it pushes are dropped (a poll brings them) and an answer is a resync. */
export const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** The longest wait the server's `poll_after_ms` and the backoff may ask. */
export const MAX_WAIT_MS = 300_000;
/** The first wait after a failure (a subscribe's; a poll's waits at least its interval). */
const RETRY_MS = 1000;
/** The longest backoff after failures in a row. */
const MAX_BACKOFF_MS = 60_000;

/** The one backoff of the package: the wait before try `attempt` (1 for the first repeat). */
export type Backoff = (attempt: number, baseMs: number, capMs: number) => number;

/** A follower's state (the engine's alone). */
interface Follower extends FollowerConfig {
  readonly id: number;
  mode: 'active' | 'refused' | 'closed';
  queue: Item[];
  bytes: number;
  /** A resync to hand out before anything queued. */
  resync: { rev: number; scope: string | undefined } | undefined;
  /** A refusal to hand out (`onRefused`). */
  refusal: { error: unknown } | undefined;
  /** A handler of this follower is running. */
  handling: boolean;
  /** The poll under way that carries this follower (0: none) and the cursor it was sent with. */
  poll: number;
  sent: number | null;
  /** A poll is wanted as soon as the one under way is answered. */
  again: boolean;
  /** When the next poll of this follower is due. */
  dueAt: number;
  /** Not polled before this (the `poll_after_ms` of its last poll's answer; `catchUp()` lifts it). */
  floorUntil: number;
  failures: number;
  resyncs: number;
  error: unknown;
  ready: 'pending' | 'done';
  /** An answer of the server came (a poll's, or a subscribe's that needs no poll to catch up): `ready` may resolve. */
  heard: boolean;
  waiters: { token: unknown; poll: number; target: number }[];
  /** Its subscribe's answer is awaited (it gives the cursor from now, or says a poll must catch up). */
  awaitingSub: boolean;
  /** The rev of the queued event whose gap asked for a poll: a gap asks once. */
  askedFor: number;
  /** The cursor at which a push at or below it asked for a poll: once per cursor. */
  staleAt: number | null;
  /** Its last poll hung: it is polled alone until answered. */
  alone: boolean;
  /** Its next poll asks from now (cursor null) and resyncs to the answer: what it holds is over the caps. */
  fresh: boolean;
  /** What its handle showed last. */
  shown: FollowerView | undefined;
}

interface PeerState {
  up: boolean;
  closed: boolean;
  /** It holds so many pushed streams the server never ended that its next pushes may be refused. */
  choked: boolean;
  /** Bumped by every socket gained or lost: an answer of an older socket is not taken. */
  gen: number;
}

/** A channel's subscription of one topic on its peer's current socket. */
interface Sub {
  readonly channel: number;
  readonly topic: string;
  state: 'idle' | 'asking' | 'held' | 'replaced';
  id: number;
  gen: number;
  retries: number;
  retryAt: number;
}

interface Poll {
  readonly channel: number;
  readonly followers: number[];
  readonly deadline: number;
}

/** The followers of every channel of the page. */
export class FollowEngine {
  readonly #followers = new Map<number, Follower>();
  /** Each channel's peer: the key of the muxws peer whose socket it subscribes (0: none, REST). */
  readonly #channels = new Map<number, number>();
  readonly #peers = new Map<number, PeerState>();
  readonly #subs = new Map<string, Sub>();
  /** Which channel's subscription each peer's socket holds, by `${peer} ${topic}` (the server keeps one per socket and topic). */
  readonly #held = new Map<string, number>();
  readonly #polls = new Map<number, Poll>();
  readonly #actions: Action[] = [];
  #online = true;
  #ids = 0;

  constructor(private readonly backoff: Backoff) {}

  // ------------------------------------------------------------------------------- inputs

  /** A channel (`peer`: the key of the muxws peer whose socket it subscribes, 0 for none). */
  addChannel(id: number, peer: number): void {
    if (this.#channels.has(id)) return;
    this.#channels.set(id, peer);
    if (peer && !this.#peers.has(peer)) this.#peers.set(peer, { up: false, closed: false, choked: false, gen: 0 });
  }

  /** Starts following: over a peer whose socket is up it subscribes first, else it polls at once. */
  follow(now: number, id: number, config: FollowerConfig): void {
    const channel = this.#channels.get(config.channel);
    if (channel === undefined || this.#followers.has(id)) return;
    const peer = this.#peers.get(channel);
    const sub = peer?.up ? this.#subs.get(subKey(config.channel, config.topic)) : undefined;
    // over a socket that is up it subscribes first (unless another scope's subscription replaced this channel's)
    const subscribing = Boolean(peer?.up) && sub?.state !== 'replaced';
    const follower: Follower = {
      ...config,
      id,
      mode: 'active',
      queue: [],
      bytes: 0,
      resync: undefined,
      refusal: undefined,
      handling: false,
      poll: 0,
      sent: null,
      again: false,
      // subscribing: a poll goes anyway if the subscribe is not answered within the poll interval
      dueAt: subscribing ? now + config.pollIntervalMs : now,
      floorUntil: -Infinity,
      failures: 0,
      resyncs: 0,
      error: undefined,
      ready: 'pending',
      heard: false,
      waiters: [],
      awaitingSub: subscribing,
      askedFor: -1,
      staleAt: null,
      alone: false,
      fresh: false,
      shown: undefined,
    };
    this.#followers.set(id, follower);
    // the socket holds the topic already: a subscribe answers the rev for this follower
    if (sub?.state === 'held') sub.state = 'idle';
    this.#settle(now);
  }

  /** Stops following for good: nothing more is handed out; its subscription goes with the topic's last follower. */
  close(now: number, id: number): void {
    const follower = this.#followers.get(id);
    if (!follower) return;
    if (follower.mode === 'active') this.#end(follower, 'closed', undefined);
    this.#followers.delete(id);
    this.#view(follower);
    this.#leave(follower);
    this.#actions.push({ type: 'gone', follower: id });
    this.#settle(now);
  }

  /** `catchUp()`: polls now; `token` is answered by a `caughtUp` once that answer is handed out (or the poll failed). */
  catchUp(now: number, id: number, token: unknown): void {
    const follower = this.#followers.get(id);
    if (!follower || follower.mode !== 'active') {
      this.#actions.push({ type: 'caughtUp', token, ok: follower?.mode !== 'refused', error: follower?.error });
      return;
    }
    follower.waiters.push({ token, poll: 0, target: Infinity });
    // it polls now: the server's poll_after_ms is no reason to keep an explicit ask waiting
    follower.floorUntil = -Infinity;
    this.#want(follower, now);
    this.#settle(now);
  }

  /** The answer of poll `id`: per topic what wire.ts read, and the server's `poll_after_ms`. */
  pollAnswered(now: number, id: number, topics: ReadonlyMap<string, TopicAnswer>, floorMs: number): void {
    const poll = this.#takePoll(id);
    if (!poll) return;
    const floor = Math.min(Math.max(0, floorMs), MAX_WAIT_MS);
    for (const fid of poll.followers) {
      const follower = this.#followers.get(fid);
      if (!follower || follower.poll !== id) continue;
      follower.poll = 0;
      if (follower.mode !== 'active') continue;
      // the floor holds the followers this answer was for, no other
      follower.floorUntil = floor ? now + floor : -Infinity;
      this.#answer(follower, topics.get(follower.topic) ?? { kind: 'later', error: new Error(`the poll's answer has no entry for ${follower.topic}`) }, now, id);
    }
    this.#settle(now);
  }

  /**
   * Poll `id` failed: `refused` for a refusal (400–499 other than 429), `fresh` when its answer was
   * over the transport's size cap (the next poll asks from now and resyncs), else asked again later.
   */
  pollFailed(now: number, id: number, error: unknown, refused: boolean, fresh: boolean): void {
    const poll = this.#takePoll(id);
    if (!poll) return;
    for (const fid of poll.followers) {
      const follower = this.#followers.get(fid);
      if (!follower || follower.poll !== id) continue;
      follower.poll = 0;
      if (follower.mode !== 'active') continue;
      if (refused) this.#refuse(follower, error);
      else {
        if (fresh) follower.fresh = true;
        this.#failed(follower, error, now, id);
      }
    }
    this.#settle(now);
  }

  /** The peer's socket is up (`'up'`, again after a loss), lost (`'down'`), or the peer is closed for good. */
  peerState(now: number, peer: number, state: 'up' | 'down' | 'closed'): void {
    const known = this.#peers.get(peer);
    if (!known || known.closed) return;
    known.gen++;
    known.up = state === 'up';
    known.closed = state === 'closed';
    // a new socket holds no pushed stream yet
    known.choked = false;
    for (const [key, sub] of this.#subs) {
      if (this.#channels.get(sub.channel) !== peer) continue;
      if (known.closed) this.#subs.delete(key);
      else Object.assign(sub, { state: 'idle', retries: 0, retryAt: -Infinity });
    }
    for (const key of [...this.#held.keys()]) if (key.startsWith(`${peer} `)) this.#held.delete(key);
    for (const follower of this.#followers.values()) if (follower.mode === 'active' && this.#channels.get(follower.channel) === peer) follower.awaitingSub = known.up;
    // between sockets it polls, at its poll interval
    if (!known.up) this.#pollSoon(peer, now);
    this.#settle(now);
  }

  /**
   * The peer holds so many pushed streams the server never ended that the next pushes may be
   * refused (`choked`), or no longer: meanwhile its followers poll at their poll interval.
   */
  peerChoked(now: number, peer: number, choked: boolean): void {
    const known = this.#peers.get(peer);
    if (!known || known.choked === choked) return;
    known.choked = choked;
    if (choked) this.#pollSoon(peer, now);
    this.#settle(now);
  }

  /** The answer of subscribe `id`: pushes flow from `rev` on (in `scope`). */
  subscribeAnswered(now: number, id: number, rev: number, scope: string | undefined): void {
    const sub = this.#subOf(id);
    if (!sub) return;
    const peer = this.#channels.get(sub.channel)!;
    const followers = this.#followersOf(sub.channel, sub.topic);
    if (!followers.length) {
      this.#subs.delete(subKey(sub.channel, sub.topic));
      this.#unsubscribe(sub.channel, sub.topic);
      this.#settle(now);
      return;
    }
    Object.assign(sub, { state: 'held', retries: 0 });
    // one subscription per socket and topic: another channel's (another scope) was replaced, its followers poll
    const heldKey = `${peer} ${sub.topic}`;
    const before = this.#held.get(heldKey);
    if (before !== undefined && before !== sub.channel) {
      const other = this.#subs.get(subKey(before, sub.topic));
      if (other) other.state = 'replaced';
      for (const follower of this.#followersOf(before, sub.topic)) {
        follower.awaitingSub = false;
        if (follower.poll === 0) follower.dueAt = Math.min(follower.dueAt, now + follower.pollIntervalMs);
      }
    }
    this.#held.set(heldKey, sub.channel);
    for (const follower of followers) {
      if (follower.poll === 0 && follower.dueAt > now + follower.checkIntervalMs) follower.dueAt = now + follower.checkIntervalMs;
      if (!follower.awaitingSub) continue;
      follower.awaitingSub = false;
      // the poll it was to send had the subscribe not been answered is not needed: pushes flow, the check poll follows
      if (follower.poll === 0 && !follower.again) follower.dueAt = now + this.#interval(follower);
      if (follower.cursor === null) {
        // following from now: the subscribe's rev is the cursor
        this.#move(follower, rev, scope);
        follower.heard = true;
      } else if (rev !== follower.cursor || scope !== follower.scope) {
        // events came (or the scope changed) since the cursor: a poll from it catches up (and is heard)
        this.#want(follower, now);
      } else follower.heard = true;
    }
    this.#settle(now);
  }

  /** Subscribe `id` failed: refused for good (`refused`), or asked again after a backoff while the socket lasts. */
  subscribeFailed(now: number, id: number, error: unknown, refused: boolean): void {
    const sub = this.#subOf(id);
    if (!sub) return;
    const followers = this.#followersOf(sub.channel, sub.topic);
    // refused, or no follower wants it any more (all closed while it was under way): it goes
    if (refused || !followers.length) {
      this.#subs.delete(subKey(sub.channel, sub.topic));
      // a lost answer (no refusal) may have left the socket subscribed: undone
      if (!refused) this.#unsubscribe(sub.channel, sub.topic);
      for (const follower of followers) this.#refuse(follower, error);
    } else {
      sub.state = 'idle';
      sub.retries++;
      sub.retryAt = now + this.backoff(sub.retries, RETRY_MS, MAX_BACKOFF_MS);
      // the followers waiting for it poll meanwhile
      for (const follower of followers) {
        if (follower.awaitingSub && follower.poll === 0) follower.dueAt = Math.min(follower.dueAt, now);
      }
    }
    this.#settle(now);
  }

  /** A push of `topic` on `peer`'s socket, its headers checked: queued with the followers whose subscription brings it. */
  pushed(now: number, peer: number, topic: string, event: Omit<Item, 'via'>): void {
    const state = this.#peers.get(peer);
    if (!state?.up) return;
    for (const follower of this.#followers.values()) {
      if (follower.mode !== 'active' || follower.topic !== topic || this.#channels.get(follower.channel) !== peer) continue;
      const sub = this.#subs.get(subKey(follower.channel, topic));
      if (!sub || (sub.state !== 'asking' && sub.state !== 'held') || sub.gen !== state.gen) continue;
      const cursor = follower.cursor;
      if (cursor !== null && event.rev <= cursor) {
        // a push seen already, or one of a log that went back (a cursor a hostile push moved past
        // every rev the server holds): a poll from the cursor tells, once per cursor
        if (follower.staleAt !== cursor) {
          follower.staleAt = cursor;
          this.#want(follower, now);
        }
      } else if (!this.#enqueue(follower, { ...event, via: 'push' })) {
        // too far behind: the pushes go, a poll from the cursor brings them
        this.#dropPushes(follower);
        this.#want(follower, now);
      }
    }
    this.#settle(now);
  }

  /** The handler the engine asked for last (`event`, `resync`, `refused`) of follower `id` returned. */
  handled(now: number, id: number): void {
    const follower = this.#followers.get(id);
    if (!follower) return;
    follower.handling = false;
    // a refused follower is kept until its onRefused was handed out
    if (follower.mode === 'refused' && !follower.refusal) {
      this.#followers.delete(id);
      this.#actions.push({ type: 'gone', follower: id });
    }
    this.#settle(now);
  }

  /** The platform went offline (polls wait) or online (every follower polls at once). */
  setOnline(now: number, online: boolean): void {
    if (online === this.#online) return;
    this.#online = online;
    if (online) for (const follower of this.#followers.values()) if (follower.mode === 'active') follower.dueAt = Math.min(follower.dueAt, now);
    this.#settle(now);
  }

  /** The time `nextTimeout()` asked for came: polls abandoned at their deadline, subscribes and polls due sent. */
  timeout(now: number): void {
    for (const [id, poll] of this.#polls) {
      if (poll.deadline > now) continue;
      this.#actions.push({ type: 'abandon', poll: id });
      const error = new Error(`the poll was not answered in ${POLL_TIMEOUT_MS} ms`);
      for (const fid of poll.followers) {
        const follower = this.#followers.get(fid);
        if (!follower || follower.poll !== id) continue;
        follower.poll = 0;
        // a poll of several topics hung: each is polled alone until answered, so none holds another
        if (poll.followers.length > 1) follower.alone = true;
        if (follower.mode === 'active') this.#failed(follower, error, now, id);
      }
      this.#polls.delete(id);
    }
    this.#settle(now);
  }

  // ------------------------------------------------------------------------------- outputs

  /** The next action, or undefined when there is none. */
  pollAction(): Action | undefined {
    return this.#actions.shift();
  }

  /** When the engine wants `timeout()` (on the same clock), or -1 for never. */
  nextTimeout(): number {
    let at = Infinity;
    for (const poll of this.#polls.values()) at = Math.min(at, poll.deadline);
    for (const sub of this.#subs.values()) if (sub.state === 'idle' && this.#subWanted(sub)) at = Math.min(at, sub.retryAt);
    if (this.#online) {
      for (const follower of this.#followers.values()) {
        if (follower.mode === 'active' && follower.poll === 0) at = Math.min(at, this.#dueAt(follower));
      }
    }
    return at === Infinity ? -1 : Math.max(0, at);
  }

  // ------------------------------------------------------------------------------- the rules

  /** One topic's answer to a poll sent with the cursor `follower.sent`. */
  #answer(follower: Follower, answer: TopicAnswer, now: number, poll: number): void {
    if (answer.kind === 'refused') return this.#refuse(follower, answer.error);
    if (answer.kind === 'later') return this.#failed(follower, answer.error, now, poll);
    const sent = follower.sent;
    const asked = follower.fresh;
    follower.fresh = false;
    follower.failures = 0;
    follower.error = undefined;
    follower.alone = false;
    follower.heard = true;
    let target = follower.cursor ?? answer.rev;
    let resynced = false;
    // a rev below the cursor the poll was sent with: the server's log went back (a store that lost
    // it, a cursor a hostile push moved too far), so the cursor is of no log the server holds
    const back = answer.kind === 'events' && sent !== null && answer.rev < sent;
    if (answer.kind === 'gap' || back || (asked && sent === null)) {
      // a gap after a cursor that moved since the poll went is the next poll's to tell
      if ((answer.kind === 'gap' || back) && follower.cursor !== sent) this.#want(follower, now);
      else resynced = this.#resyncTo(follower, answer.rev, answer.scope, now);
      target = follower.cursor ?? answer.rev;
    } else if (sent === null) {
      // from now: the answer's rev, unless a subscribe's answer gave a cursor meanwhile
      if (follower.cursor === null) this.#move(follower, answer.rev, answer.scope);
    } else {
      // the chain starts at the cursor the poll was sent with, each event's prev the rev before it;
      // a chain that breaks is left there; what is at or below the cursor was handed out already
      let link = sent;
      let fits = true;
      let whole = answer.whole;
      for (const event of answer.events) {
        if (event.prev !== link || event.rev <= link) {
          whole = false;
          break;
        }
        link = event.rev;
        fits &&= this.#enqueue(follower, { ...event, scope: answer.scope, via: 'poll' });
      }
      // the answer's rev covers the events the server's filters left out (when its chain was whole)
      if (whole && answer.rev > link) fits &&= this.#enqueue(follower, { rev: answer.rev, prev: link, version: 0, payload: undefined, scope: answer.scope, via: 'poll', bytes: 0 });
      if (!fits) resynced = this.#resyncTo(follower, Math.max(answer.rev, link), answer.scope, now);
      if (fits) follower.resyncs = 0;
      target = whole ? Math.max(link, answer.rev) : link;
    }
    if (follower.again) follower.dueAt = now;
    else if (!resynced) {
      follower.dueAt = Math.min(follower.dueAt, now + this.#interval(follower));
    }
    for (const waiter of follower.waiters) if (waiter.poll === poll) waiter.target = target;
  }

  /** The cursor goes to `rev` (below it too: the server's log went back) with a resync handed out first. */
  #resyncTo(follower: Follower, rev: number, scope: string | undefined, now: number): boolean {
    const back = follower.cursor !== null && rev < follower.cursor;
    // going back, what is queued followed the cursor given up (the next poll from `rev` brings what follows it)
    follower.queue = back ? [] : follower.queue.filter((item) => item.rev > rev);
    if (back) follower.askedFor = -1;
    follower.bytes = follower.queue.reduce((sum, item) => sum + item.bytes, 0);
    follower.resync = { rev, scope };
    this.#move(follower, rev, scope);
    // a storm of resyncs backs off
    follower.resyncs++;
    const interval = this.#interval(follower);
    const wait = follower.resyncs > 1 ? Math.max(interval, this.backoff(follower.resyncs - 1, interval, MAX_BACKOFF_MS)) : interval;
    follower.dueAt = Math.min(follower.dueAt, now + wait);
    return true;
  }

  /** A poll of `follower` failed for now: its waiters and a pending ready are told, the next poll backs off. */
  #failed(follower: Follower, error: unknown, now: number, poll: number): void {
    follower.failures++;
    follower.error = error;
    follower.dueAt = follower.again ? now : now + Math.min(MAX_WAIT_MS, this.backoff(follower.failures, follower.pollIntervalMs, MAX_BACKOFF_MS));
    if (follower.ready === 'pending') {
      follower.ready = 'done';
      this.#actions.push({ type: 'ready', follower: follower.id, ok: false, error });
    }
    follower.waiters = follower.waiters.filter((waiter) => {
      if (waiter.poll !== poll) return true;
      this.#actions.push({ type: 'caughtUp', token: waiter.token, ok: false, error });
      return false;
    });
  }

  #refuse(follower: Follower, error: unknown): void {
    if (follower.mode !== 'active') return;
    this.#end(follower, 'refused', error);
    follower.refusal = { error };
    this.#leave(follower);
  }

  /** Refused or closed: the queue goes, a pending ready and every waiter are told. */
  #end(follower: Follower, mode: 'refused' | 'closed', error: unknown): void {
    follower.mode = mode;
    follower.queue = [];
    follower.bytes = 0;
    follower.resync = undefined;
    if (mode === 'refused') follower.error = error;
    if (follower.ready === 'pending') {
      follower.ready = 'done';
      this.#actions.push({ type: 'ready', follower: follower.id, ok: false, error });
    }
    for (const waiter of follower.waiters.splice(0)) this.#actions.push({ type: 'caughtUp', token: waiter.token, ok: mode === 'closed', error });
  }

  /** Its topic's subscription goes when it was the channel's last follower of it. */
  #leave(follower: Follower): void {
    const key = subKey(follower.channel, follower.topic);
    const sub = this.#subs.get(key);
    if (!sub || this.#followersOf(follower.channel, follower.topic).length) return;
    // a subscribe under way is answered first (its answer then unsubscribes)
    if (sub.state === 'asking') return;
    this.#subs.delete(key);
    if (sub.state === 'held') this.#unsubscribe(sub.channel, sub.topic);
  }

  /** Unsubscribes the socket from `topic`, unless another channel on the same peer still follows it. */
  #unsubscribe(channel: number, topic: string): void {
    const peer = this.#channels.get(channel)!;
    const state = this.#peers.get(peer);
    const heldKey = `${peer} ${topic}`;
    if (this.#held.get(heldKey) === channel) this.#held.delete(heldKey);
    const shared = [...this.#followers.values()].some((other) => other.mode === 'active' && other.topic === topic && this.#channels.get(other.channel) === peer);
    if (state?.up && !shared) this.#actions.push({ type: 'unsubscribe', channel, topic });
  }

  /** Queues `item` in rev order, each rev once; false when it would pass the byte cap (it is not queued). */
  #enqueue(follower: Follower, item: Item): boolean {
    if (follower.cursor !== null && item.rev <= follower.cursor) return true;
    const queue = follower.queue;
    let at = queue.length;
    while (at > 0 && queue[at - 1]!.rev > item.rev) at--;
    const same = queue[at - 1];
    if (same?.rev === item.rev) {
      // a move of the cursor gives way to the event itself
      if (same.event === undefined && item.event !== undefined) {
        follower.bytes += item.bytes;
        queue[at - 1] = item;
      }
      return true;
    }
    if (follower.bytes + item.bytes > MAX_QUEUED_BYTES) return false;
    follower.bytes += item.bytes;
    queue.splice(at, 0, item);
    return true;
  }

  #dropPushes(follower: Follower): void {
    follower.queue = follower.queue.filter((item) => item.via !== 'push');
    follower.bytes = follower.queue.reduce((sum, item) => sum + item.bytes, 0);
  }

  /** The active followers over `peer` not in a poll poll within their poll interval. */
  #pollSoon(peer: number, now: number): void {
    for (const follower of this.#followers.values()) {
      if (follower.mode === 'active' && follower.poll === 0 && this.#channels.get(follower.channel) === peer) follower.dueAt = Math.min(follower.dueAt, now + follower.pollIntervalMs);
    }
  }

  /** A poll of `follower` as soon as it may go (after the one under way). */
  #want(follower: Follower, now: number): void {
    if (follower.poll) follower.again = true;
    else follower.dueAt = Math.min(follower.dueAt, now);
  }

  #move(follower: Follower, cursor: number, scope: string | undefined): void {
    follower.cursor = cursor;
    follower.scope = scope;
  }

  /** After every input: hand out what may go, tell ready and waiters, subscribe and poll what is due, show what changed. */
  #settle(now: number): void {
    for (const follower of this.#followers.values()) {
      this.#handOut(follower, now);
      this.#tell(follower);
    }
    this.#subscribe(now);
    this.#sendPolls(now);
    for (const follower of this.#followers.values()) this.#view(follower);
  }

  /** Hands out the next of `follower`'s turn, if no handler of it runs: a refusal, a resync, or the event that follows the cursor. */
  #handOut(follower: Follower, now: number): void {
    if (follower.handling) return;
    if (follower.refusal) {
      const { error } = follower.refusal;
      follower.refusal = undefined;
      follower.handling = true;
      this.#actions.push({ type: 'refused', follower: follower.id, error });
      return;
    }
    if (follower.mode !== 'active') return;
    if (follower.resync) {
      const { rev, scope } = follower.resync;
      follower.resync = undefined;
      follower.handling = true;
      this.#actions.push({ type: 'resync', follower: follower.id, rev, scope });
      return;
    }
    const cursor = follower.cursor;
    // no cursor yet: the subscribe's answer (or the first poll's) gives it
    if (cursor === null) return;
    for (let head = follower.queue[0]; head; head = follower.queue[0]) {
      // at or below the cursor, or a push of another scope (the socket's subscription is another channel's now)
      const stale = head.rev <= follower.cursor! || (head.via === 'push' && head.scope !== follower.scope);
      if (!stale && head.prev !== follower.cursor) {
        if (head.event !== undefined) {
          // a suspected gap (a lost push, a server's filter): a poll from the cursor tells, once per gap
          if (head.rev > follower.askedFor) {
            follower.askedFor = head.rev;
            this.#want(follower, now);
          }
          return;
        }
      }
      follower.queue.shift();
      follower.bytes -= head.bytes;
      if (stale || head.prev !== follower.cursor) continue;
      this.#move(follower, head.rev, head.scope);
      if (head.event === undefined) continue;
      follower.handling = true;
      this.#actions.push({ type: 'event', follower: follower.id, item: head, prev: head.prev });
      return;
    }
  }

  /** A follower with nothing left to hand out now (its cursor held) resolves its ready (once the server was heard) and the waiters whose answer it handed out. */
  #tell(follower: Follower): void {
    if (follower.mode !== 'active' || follower.handling || follower.cursor === null || follower.resync) return;
    const head = follower.queue[0];
    const idle = !head || head.prev !== follower.cursor;
    if (idle && follower.heard && follower.ready === 'pending') {
      follower.ready = 'done';
      this.#actions.push({ type: 'ready', follower: follower.id, ok: true, error: undefined });
    }
    follower.waiters = follower.waiters.filter((waiter) => {
      if (waiter.target === Infinity || !(idle || follower.cursor! >= waiter.target)) return true;
      this.#actions.push({ type: 'caughtUp', token: waiter.token, ok: true, error: undefined });
      return false;
    });
  }

  /** Subscribes each followed topic of every channel whose peer's socket is up and does not hold it yet. */
  #subscribe(now: number): void {
    for (const follower of this.#followers.values()) {
      if (follower.mode !== 'active') continue;
      const peer = this.#channels.get(follower.channel)!;
      const state = this.#peers.get(peer);
      if (!state?.up) continue;
      const key = subKey(follower.channel, follower.topic);
      let sub = this.#subs.get(key);
      if (!sub) this.#subs.set(key, (sub = { channel: follower.channel, topic: follower.topic, state: 'idle', id: 0, gen: state.gen, retries: 0, retryAt: -Infinity }));
      if (sub.state !== 'idle' || sub.retryAt > now) continue;
      Object.assign(sub, { state: 'asking', id: ++this.#ids, gen: state.gen });
      for (const other of this.#followersOf(sub.channel, sub.topic)) {
        other.awaitingSub = true;
        // an answer that never comes keeps no follower waiting: it polls meanwhile, at its poll interval
        if (other.poll === 0) other.dueAt = Math.min(other.dueAt, now + other.pollIntervalMs);
      }
      this.#actions.push({ type: 'subscribe', sub: sub.id, channel: sub.channel, topic: sub.topic });
    }
  }

  /** Sends the polls due: per channel, the due followers not in a poll, at most MAX_CURSORS a poll, each topic once a poll; one whose poll hung alone. */
  #sendPolls(now: number): void {
    if (!this.#online) return;
    const due = new Map<number, Follower[][]>();
    for (const follower of this.#followers.values()) {
      if (follower.mode !== 'active' || follower.poll || this.#dueAt(follower) > now) continue;
      let polls = due.get(follower.channel);
      if (!polls) due.set(follower.channel, (polls = []));
      let poll = follower.alone ? undefined : polls.find((list) => !list[0]!.alone && list.length < MAX_CURSORS && !list.some((other) => other.topic === follower.topic));
      if (!poll) polls.push((poll = []));
      poll.push(follower);
    }
    for (const [channel, polls] of due) {
      for (const list of polls) {
        const id = ++this.#ids;
        this.#polls.set(id, { channel, followers: list.map((follower) => follower.id), deadline: now + POLL_TIMEOUT_MS });
        const cursors: [string, number | null, string | undefined][] = [];
        for (const follower of list) {
          follower.poll = id;
          follower.sent = follower.fresh ? null : follower.cursor;
          follower.again = false;
          follower.dueAt = Infinity;
          for (const waiter of follower.waiters) if (waiter.poll === 0) waiter.poll = id;
          cursors.push([follower.topic, follower.sent, follower.fresh ? undefined : follower.scope]);
        }
        this.#actions.push({ type: 'poll', poll: id, channel, cursors });
      }
    }
  }

  /** When `follower`'s next poll may go: when due, and never sooner than the `poll_after_ms` of its last poll's answer. */
  #dueAt(follower: Follower): number {
    return Math.max(follower.dueAt, follower.floorUntil);
  }

  /** Its subscription holds its topic on the peer's current socket, which refuses no push: its pushes flow. */
  #pushing(follower: Follower): boolean {
    const peer = this.#channels.get(follower.channel)!;
    const state = this.#peers.get(peer);
    const sub = this.#subs.get(subKey(follower.channel, follower.topic));
    return Boolean(state?.up && !state.choked && sub?.state === 'held' && sub.gen === state.gen && this.#held.get(`${peer} ${follower.topic}`) === follower.channel);
  }

  /** How long until its next poll when all is well: the check interval while its pushes flow, else the poll interval. */
  #interval(follower: Follower): number {
    return this.#pushing(follower) ? follower.checkIntervalMs : follower.pollIntervalMs;
  }

  #viewOf(follower: Follower): FollowerView {
    const mode: Mode = follower.mode !== 'active' ? follower.mode : !this.#online ? 'paused' : this.#pushing(follower) ? 'push' : 'poll';
    return { mode, cursor: follower.cursor, scope: follower.scope, error: follower.error };
  }

  /** A `changed` action when what `follower`'s handle shows changed. */
  #view(follower: Follower): void {
    const view = this.#viewOf(follower);
    const shown = follower.shown;
    if (shown && shown.mode === view.mode && shown.cursor === view.cursor && shown.scope === view.scope && shown.error === view.error) return;
    follower.shown = view;
    this.#actions.push({ type: 'changed', follower: follower.id, view });
  }

  #takePoll(id: number): Poll | undefined {
    const poll = this.#polls.get(id);
    this.#polls.delete(id);
    return poll;
  }

  #subOf(id: number): Sub | undefined {
    for (const sub of this.#subs.values()) {
      if (sub.id !== id || sub.state !== 'asking') continue;
      const state = this.#peers.get(this.#channels.get(sub.channel)!);
      return state && sub.gen === state.gen ? sub : undefined;
    }
    return undefined;
  }

  #subWanted(sub: Sub): boolean {
    return this.#followersOf(sub.channel, sub.topic).length > 0 && Boolean(this.#peers.get(this.#channels.get(sub.channel)!)?.up);
  }

  #followersOf(channel: number, topic: string): Follower[] {
    const out: Follower[] = [];
    for (const follower of this.#followers.values()) if (follower.mode === 'active' && follower.channel === channel && follower.topic === topic) out.push(follower);
    return out;
  }
}

function subKey(channel: number, topic: string): string {
  return `${channel} ${topic}`;
}
