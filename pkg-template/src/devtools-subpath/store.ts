/**
 * The devtools' record of what the package does, kept from the moment the subpath's development
 * entry is imported (before the panel is mounted): every call by its key with each attempt (when it
 * went out, over which transport, when and how it ended), why it waits, how it settled; the
 * followers, live lists and muxws peers made. Read-only: it is told by the package's tap and its
 * activity events, and changes nothing the package does, but for the two things a developer asks
 * for (throwing the next answer away, simulating offline). Bounded: `maxCalls` calls are kept
 * (the oldest settled ones go first), the timeline of a call at most 50 attempts.
 */
import {
  internalDevtools,
  NetworkError,
  onCallActivity,
  type CallActivityEvent,
  type DevTap,
  type SeenKind,
} from '@dynamicforms/fastapi-viewsets';

/** The transport an attempt went over: `rest-for-muxws` is a muxws proxy's call over REST (`restFallback`). */
export type AttemptTransport = 'rest' | 'muxws' | 'rest-for-muxws';

/**
 * How an attempt ended, as the panel names it: `answered`, `gateway` (502/503/504 from a gateway:
 * `status`), `timeout`, `connection-lost` (no answer), `refused` (a 4xx, the application's final
 * answer: `status`; or a muxws stream the server refused, `status` 0), `abandoned` (still out when
 * its call was cancelled, or when a newer attempt went out), `cancelled`, `error`, `answer-lost` (its
 * answer was thrown away by the devtools' "lose the next answer").
 */
export type AttemptEnd = 'answered' | 'gateway' | 'timeout' | 'connection-lost' | 'refused' | 'abandoned' | 'cancelled' | 'error' | 'answer-lost';

/** One attempt of a call. */
export interface AttemptView {
  /** 1 for the first. */
  n: number;
  /** When it went out and ended (ms on the package's clock: `performance.timeOrigin + performance.now()`); `end` null while out. */
  start: number;
  end: number | null;
  transport: AttemptTransport;
  /** The answer's status (0: none). */
  status: number;
  ended: AttemptEnd | null;
}

/** Where a call is: an attempt out, waiting for its repeat's delay, for its muxws peer, for the platform to be online, or settled. */
export type CallState = 'in-flight' | 'delay' | 'reconnect' | 'offline' | 'settled';

/** A call as the devtools show it. */
export interface CallView {
  key: string;
  method: string;
  path: string;
  /** The encoded query, `''` when none. */
  query: string;
  /** The transport of its proxy (`'rest'` or `'muxws'`); each attempt says what it went over. */
  transport: 'rest' | 'muxws';
  background: boolean;
  resumed: boolean;
  issuedAt: number;
  attempts: AttemptView[];
  state: CallState;
  /** While waiting for a repeat's delay: when it goes (ms, the package's clock), and why (how the last attempt ended). */
  waitUntil: number | null;
  waitReason: string | null;
  /** Once settled: fulfilled or not, the last answer's status (0: none), how it ended, when. */
  settled: { ok: boolean; status: number; ended: string; at: number } | null;
  /** The headers of its first attempt as the transport keeps them (credentials redacted only on export). */
  headers: Record<string, string> | null;
  /** The body as the caller gave it, and the last answer's body (left out of an export unless asked for). */
  body: unknown;
  answer: unknown;
}

/** A follower, live list or muxws peer, with what the devtools counted of it. */
export interface LiveView {
  kind: SeenKind;
  handle: object;
  /** A peer's reconnects and socket losses, counted from when it was made. */
  reconnects: number;
  losses: number;
  /** A follower's resyncs (as the follower tells them) and refusals (as its state changes show them). */
  resyncs: number;
  refusals: number;
}

/** The devtools' options. */
export interface StoreOptions {
  /** User Timing marks and measures per attempt (the browser's Performance panel), named by method, path and key. Off unless asked. */
  userTiming?: boolean;
  /** How many calls are kept (default 1000): the oldest settled ones are forgotten first. */
  maxCalls?: number;
}

/** The package's clock (clock.ts). */
export const clock = (): number => performance.timeOrigin + performance.now();

const ENDS: Record<string, AttemptEnd> = {
  answered: 'answered',
  'gateway-status': 'gateway',
  'network-error': 'connection-lost',
  timeout: 'timeout',
  'stream-timeout': 'timeout',
  'connection-lost': 'connection-lost',
  'connection-closed': 'connection-lost',
  'going-away': 'connection-lost',
  'stream-refused': 'refused',
  cancelled: 'cancelled',
  error: 'error',
};

/** An `EndCode` (abi/calls.ts) with its flags as the panel names it. */
function endOf(end: number, status: number): AttemptEnd {
  const code = end & 255;
  if (code === 0 || code === 4) return status >= 502 && status <= 504 && !(end & 0x100) && code === 0 ? 'gateway' : status >= 400 && status < 500 ? 'refused' : 'answered';
  return (['answered', 'connection-lost', 'timeout', 'cancelled', 'answered', 'timeout', 'connection-lost', 'refused', 'connection-lost', 'connection-lost'] as const)[code] ?? 'error';
}

/** The record the panel reads: one per page. */
export class DevStore {
  readonly calls = new Map<string, CallView>();
  readonly live: LiveView[] = [];
  /** The next answer of a call that is not a background one is thrown away: its attempt ends without one and is repeated under the same key. */
  loseNext = false;
  /** The devtools dispatched `offline` (the package's calls wait as on a real loss of the network). */
  offline = false;
  /** Calls forgotten to keep the record bounded. */
  dropped = 0;
  userTiming: boolean;
  readonly maxCalls: number;
  #listeners = new Set<() => void>();

  constructor(options: StoreOptions = {}) {
    this.userTiming = options.userTiming === true;
    this.maxCalls = Math.max(10, options.maxCalls ?? 1000);
  }

  /** Calls `listener` after each change; returns its remover. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // a panel that fails to draw harms no call
      }
    }
  }

  /**
   * The view of a call, made on first sight: the tap's first attempt (told before the `start`
   * event), or the `start` event of a call whose first attempt waits (offline); what only the
   * call's record holds (query, headers, body) is filled in from the tap.
   */
  #view(call: { key: string; method: string; path: string; query?: string; transport: { name: 'rest' | 'muxws'; peerId?: number }; background: boolean; resumed?: unknown; send?: unknown; body?: unknown }, at: number): CallView {
    let view = this.calls.get(call.key);
    const headers = (call.send as { headers?: unknown } | undefined)?.headers;
    if (view && 'send' in call && view.headers === null) {
      view.query = call.query ?? '';
      view.headers = headers && typeof headers === 'object' ? { ...(headers as Record<string, string>) } : null;
      view.body = call.body;
    }
    if (!view) {
      view = {
        key: call.key,
        method: call.method,
        path: call.path,
        query: call.query ?? '',
        transport: call.transport.peerId ? 'muxws' : call.transport.name,
        background: call.background,
        resumed: Boolean(call.resumed),
        issuedAt: at,
        attempts: [],
        state: 'in-flight',
        waitUntil: null,
        waitReason: null,
        settled: null,
        headers: headers && typeof headers === 'object' ? { ...(headers as Record<string, string>) } : null,
        body: call.body,
        answer: undefined,
      };
      this.calls.set(call.key, view);
      this.#trim();
    }
    return view;
  }

  /** Forgets the oldest settled calls over `maxCalls`. */
  #trim(): void {
    if (this.calls.size <= this.maxCalls) return;
    for (const [key, view] of this.calls) {
      if (this.calls.size <= this.maxCalls) break;
      if (view.state === 'settled') this.calls.delete(key), this.dropped++;
    }
  }

  /** User Timing of an attempt that ended. */
  #measure(view: CallView, attempt: AttemptView): void {
    if (!this.userTiming || attempt.end === null) return;
    try {
      const name = `${view.method} ${view.path} ${view.key} #${attempt.n}`;
      performance.measure(name, { start: attempt.start - performance.timeOrigin, end: attempt.end - performance.timeOrigin, detail: { key: view.key, attempt: attempt.n, transport: attempt.transport, ended: attempt.ended, status: attempt.status } });
      performance.mark(`${name} ${attempt.ended}`, { startTime: attempt.end - performance.timeOrigin, detail: { key: view.key } });
    } catch {
      // a platform without User Timing Level 3
    }
  }

  /** Ends `attempt` (if it has not ended yet) at `at` with `ended`. */
  #end(view: CallView, attempt: AttemptView | undefined, at: number, ended: AttemptEnd, force = false): void {
    if (!attempt) return;
    if (attempt.ended && !(force && attempt.ended !== 'answer-lost')) return;
    const first = attempt.end === null;
    attempt.end ??= at;
    attempt.ended = ended;
    if (first) this.#measure(view, attempt);
  }

  /** The tap the package tells (vocabulary/devtools.ts). */
  readonly tap: DevTap = {
    sent: (call, attempt) => {
      const at = clock();
      const view = this.#view(call, at);
      // an attempt still out when the next goes was abandoned (the engine moved on)
      this.#end(view, view.attempts[view.attempts.length - 1], at, 'abandoned');
      if (view.attempts.length >= 50) view.attempts.splice(1, 1);
      const transport = call.transport.peerId ? (call.transport.name === 'rest' ? 'rest-for-muxws' : 'muxws') : 'rest';
      view.attempts.push({ n: attempt, start: at, end: null, transport, status: 0, ended: null });
      if (this.userTiming) {
        try {
          performance.mark(`${view.method} ${view.path} ${view.key} #${attempt} sent`, { detail: { key: view.key, attempt, transport } });
        } catch {
          // no User Timing
        }
      }
      view.state = 'in-flight';
      view.waitUntil = null;
      this.#changed();
    },
    ended: (call, attempt, end, status, outcome) => {
      const view = this.calls.get(call.key);
      const row = view?.attempts.find((one) => one.n === attempt);
      let lost: ReturnType<DevTap['ended']>;
      // the next answer of a call of the app's own (a background call, such as a follower's poll, is left alone)
      if (outcome.kind === 'answer' && this.loseNext && !call.background) {
        this.loseNext = false;
        lost = { kind: 'failure', error: new NetworkError(`${call.method} ${call.path}: its answer (${status}) was thrown away by the devtools ("lose the next answer")`, { key: call.key, attempts: attempt }) };
      }
      if (view && row) {
        row.status = status;
        if (outcome.kind === 'answer' && !lost) view.answer = outcome.body;
        this.#end(view, row, clock(), lost ? 'answer-lost' : endOf(end, status));
      }
      this.#changed();
      return lost;
    },
    seen: (kind, handle) => {
      const view: LiveView = { kind, handle, reconnects: 0, losses: 0, resyncs: 0, refusals: 0 };
      if (this.live.length >= 200) this.live.shift();
      this.live.push(view);
      const peer = handle as { onReconnect?: (listener: () => void) => unknown; onClose?: (listener: () => void) => unknown };
      if (kind === 'peer') {
        peer.onReconnect?.(() => void (view.reconnects++, this.#changed()));
        peer.onClose?.(() => void (view.losses++, this.#changed()));
      }
      if (kind === 'live') (handle as { subscribe(listener: () => void): unknown }).subscribe(() => this.#changed());
      if (kind === 'follower') {
        let mode: unknown;
        (handle as { subscribe(listener: (follower: { mode: unknown }) => void): unknown }).subscribe((follower) => {
          // 'refused' is a refusal (a resync the follower tells: resynced())
          if (follower.mode === 'refused' && mode !== 'refused') view.refusals++;
          mode = follower.mode;
          this.#changed();
        });
      }
      this.#changed();
    },
    resynced: (handle) => {
      const view = this.live.find((one) => one.handle === handle);
      if (view) view.resyncs++;
      this.#changed();
    },
  };

  /** What the package's activity events tell (the reason each attempt ended, waits, settling). */
  activity(event: CallActivityEvent): void {
    const view = event.type === 'start' ? this.#view({ ...event, transport: { name: event.transport } }, event.at) : this.calls.get(event.key);
    if (!view) return;
    const last = view.attempts[view.attempts.length - 1];
    if (event.type === 'start') view.issuedAt = Math.min(view.issuedAt, event.at);
    else if (event.type === 'retry') {
      const row = view.attempts.find((one) => one.n === event.attempt);
      this.#end(view, row, event.at, ENDS[event.ended] ?? 'error', true);
      view.state = event.waitsForReconnect ? 'reconnect' : 'delay';
      view.waitUntil = event.at + event.delayMs;
      view.waitReason = event.ended;
    } else if (event.type === 'wait') {
      view.state = event.reason;
    } else if (event.ended === 'cancelled') {
      // cancelled: an attempt still out was abandoned; one that had ended (a repeat waited) keeps its end
      if (last && (last.ended === null || last.ended === 'cancelled')) this.#end(view, last, event.at, 'abandoned', true);
    }
    if (event.type === 'settle') {
      // an answer settles it: a 4xx the tap saw stays refused
      if (event.ended !== 'cancelled' && !(event.ended === 'answered' && last?.ended === 'refused')) this.#end(view, last, event.at, ENDS[event.ended] ?? 'error', true);
      view.state = 'settled';
      view.waitUntil = null;
      view.settled = { ok: event.ok, status: last?.status ?? 0, ended: event.ended, at: event.at };
      this.#trim();
    }
    this.#changed();
  }

  /** Dispatches the platform's `offline` (true) or `online` event: the package's calls wait, then go at once. */
  setOffline(offline: boolean): void {
    this.offline = offline;
    globalThis.dispatchEvent?.(new Event(offline ? 'offline' : 'online'));
    this.#changed();
  }

  /** Arms (or disarms) "lose the next answer". */
  setLoseNext(on: boolean): void {
    this.loseNext = on;
    this.#changed();
  }
}

let store: DevStore | undefined;

/** The page's record, made (and the tap set) on first use; `options` apply to the first. */
export function devStore(options?: StoreOptions): DevStore {
  if (!store) {
    const made = (store = new DevStore(options));
    internalDevtools.tap(made.tap);
    onCallActivity((event) => made.activity(event));
  } else if (options?.userTiming !== undefined) store.userTiming = options.userTiming;
  return store;
}
