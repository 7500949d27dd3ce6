/**
 * Following topics by push over a muxws peer: one session per channel subscribes the peer's
 * socket to every followed topic, hands each push to the followers of its topic, and subscribes
 * again (a new call, a new key) after every reconnect. A socket loss stops the pushes until then;
 * a peer closed for good ends the session (the channel then polls over REST).
 *
 * The session's push handler never waits on application code: it queues the event with its
 * follower and returns, so the pushed stream ends at once and a slow `onEvent` never makes the
 * peer refuse a push (muxws refuses past 100 open remote streams). Used by the follower's chunk.
 */
import type { HttpError } from './errors.js';
import type { EventChannel, Topic } from './events.js';
import type { FollowKit } from './follow-kit.js';
import type { PushPeer } from './runtime.js';
import { isObject, isRev, own, refusal, scopeOf } from './follow-wire.js';

/** One event as a push brings it (its headers checked). */
export interface Pushed {
  rev: number;
  prev: number;
  event: string;
  version: number;
  payload: unknown;
  scope: string | undefined;
}

/** What the session asks of a follower of a topic. */
export interface PushTarget {
  readonly topic: Topic;
  /** The subscribe of this topic on the current socket answered: pushes flow from `rev` on. */
  subscribed(rev: number, scope: string | undefined): void;
  /** The socket is gone (or the peer closed for good): no pushes until subscribed again. */
  unsubscribed(): void;
  /** A push of this topic. */
  pushed(event: Pushed): void;
  /** The server refused the topic. */
  refuse(error: HttpError): Promise<void>;
}

/** The first wait before a subscribe refused for now (429, 5xx, an answer not understood) is sent again; it doubles. */
const RETRY_MS = 1000;
/** The longest wait between such subscribes. */
const MAX_RETRY_MS = 60_000;

/** The sessions by channel. */
const sessions = new Map<EventChannel, PushSession>();

/** The push session of `channel` (one that has a push peer), made at its first follower. */
export function sessionOf(kit: FollowKit, channel: EventChannel): PushSession {
  let session = sessions.get(channel);
  if (!session) sessions.set(channel, (session = new PushSession(kit, channel)));
  return session;
}

/** The subscriptions of one channel's peer socket. */
export class PushSession {
  private readonly targets = new Map<Topic, Set<PushTarget>>();
  /** The topics the current socket holds for this channel (their subscribe answered on it), with the scope answered. */
  private readonly held = new Map<Topic, string | undefined>();
  /** Consecutive retries of a topic's subscribe, for its backoff. */
  private readonly retries = new Map<Topic, number>();
  private peer: PushPeer | undefined;
  private removers: (() => void)[] = [];
  /** Bumped by every socket loss and every new socket: an answer of an older one is not taken. */
  private socket = 0;
  private ended = false;

  constructor(
    private readonly kit: FollowKit,
    private readonly channel: EventChannel,
  ) {
    channel.pushPeer!().then(
      (peer) => this.begin(peer),
      () => this.end(),
    );
  }

  private begin(peer: PushPeer): void {
    if (this.ended) return;
    this.peer = peer;
    this.removers = [
      peer.onStream((payload, stream) => this.pushed(payload, (stream as { headers?: unknown }).headers)),
      peer.onReconnect(() => this.subscribeAll()),
      peer.onClose(() => this.lost()),
    ];
    if (peer.isOpen) this.subscribeAll();
    // a lazy peer's first connection is no reconnect
    else peer.connected.then(() => this.peer?.isOpen && !this.ended && this.subscribeAll(), () => this.lost());
  }

  /** Follows `target`'s topic by push from now on. */
  attach(target: PushTarget): void {
    let set = this.targets.get(target.topic);
    if (!set) this.targets.set(target.topic, (set = new Set()));
    set.add(target);
    if (this.held.has(target.topic)) {
      // the socket holds the topic already: a subscribe answers its rev for this follower
      this.subscribe(target.topic, this.socket, [target]);
    } else if (set.size === 1 && this.peer?.isOpen) {
      this.subscribe(target.topic, this.socket);
    }
  }

  /** `target` no longer follows; the last follower of a topic unsubscribes the socket (`unsubscribe`). */
  detach(target: PushTarget, unsubscribe: boolean): void {
    const set = this.targets.get(target.topic);
    if (!set?.delete(target) || set.size) return;
    this.targets.delete(target.topic);
    this.retries.delete(target.topic);
    if (this.held.delete(target.topic) && unsubscribe) this.unsubscribe(target.topic);
    if (!this.targets.size) this.end();
  }

  /** Unsubscribes the socket from `topic`, unless another channel on the same peer still follows it (the server holds one subscription per socket and topic). */
  private unsubscribe(topic: Topic): void {
    const shared = this.neighbours().some((other) => other.targets.has(topic));
    if (this.peer?.isOpen && !shared) this.channel.unsubscribe!(topic).catch(() => {});
  }

  /** The sessions of other channels on the same peer: they share its socket's subscriptions. */
  private neighbours(): PushSession[] {
    return [...sessions.values()].filter((other) => other !== this && other.peer === this.peer);
  }

  /** No follower is left (or the peer failed): the listeners go, pushes are refused again unless the app takes them. */
  private end(): void {
    this.ended = true;
    for (const remove of this.removers.splice(0)) remove();
    sessions.delete(this.channel);
  }

  private subscribeAll(): void {
    this.socket++;
    this.held.clear();
    for (const topic of this.targets.keys()) this.subscribe(topic, this.socket);
  }

  private lost(): void {
    this.socket++;
    this.held.clear();
    for (const set of this.targets.values()) for (const target of set) target.unsubscribed();
    if (this.peer?.isClosed) this.end();
  }

  /** Subscribes the current socket (`socket`) to `topic`; its answer goes to `only`, else to every follower of the topic. */
  private subscribe(topic: Topic, socket: number, only?: PushTarget[]): void {
    this.channel.subscribe!(topic).then(
      (answer) => {
        if (socket !== this.socket) return;
        // every follower of the topic closed while it was asked: the socket holds it for no one
        if (!this.targets.has(topic)) return this.unsubscribe(topic);
        const rev = isObject(answer) ? own(answer, 'rev') : undefined;
        if (!isRev(rev)) return this.later(topic, socket);
        const scope = scopeOf(own(answer as Record<string, unknown>, 'scope'));
        this.retries.delete(topic);
        this.held.set(topic, scope);
        // one subscription per socket and topic: another channel's of another scope was replaced, its followers poll
        for (const other of this.neighbours()) {
          if (other.held.has(topic) && other.held.get(topic) !== scope) {
            other.held.delete(topic);
            for (const target of other.targets.get(topic) ?? []) target.unsubscribed();
          }
        }
        for (const target of only ?? this.targets.get(topic) ?? []) target.subscribed(rev, scope);
      },
      (error: unknown) => {
        if (socket !== this.socket || this.ended) return;
        const refused = refusal(this.kit, error);
        if (!refused) return this.later(topic, socket);
        for (const target of [...(this.targets.get(topic) ?? [])]) void target.refuse(refused);
      },
    );
  }

  /** A subscribe refused for now: sent again after a backoff, while the same socket lasts. */
  private later(topic: Topic, socket: number): void {
    const tries = this.retries.get(topic) ?? 0;
    this.retries.set(topic, tries + 1);
    setTimeout(() => {
      if (socket === this.socket && !this.ended && this.targets.has(topic)) this.subscribe(topic, socket);
    }, Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.min(tries, 16)));
  }

  /** A stream the server opened: an event of a followed topic is queued with its followers; anything else is left alone. */
  private pushed(payload: unknown, headers: unknown): void {
    if (!isObject(headers)) return;
    const topic = own(headers, ':topic');
    const targets = typeof topic === 'string' ? this.targets.get(topic) : undefined;
    if (!targets) return;
    const rev = own(headers, ':rev');
    const prev = own(headers, ':prev');
    const event = own(headers, ':event');
    const version = own(headers, ':version');
    const scope = own(headers, ':scope');
    if (!isRev(rev) || !isRev(prev) || prev >= rev || typeof event !== 'string' || !isRev(version) || version < 1) return;
    if (scope !== undefined && scopeOf(scope) === undefined) return;
    for (const target of targets) target.pushed({ rev, prev, event, version, payload, scope: scopeOf(scope) });
  }
}
