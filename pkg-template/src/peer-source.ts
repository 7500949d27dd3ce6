/**
 * The `peer` option of a muxws proxy: a `MuxwsPeer` from `connectMuxws()`, or (0.6's lazy peer) a
 * function returning one or a promise of one, called at the first call and its peer kept.
 *
 * A lazy peer's proxy gets a transport that forwards to the peer's own once it is known. A call
 * issued before that is pending at once (it has its key, its activity, a place in
 * `pendingCalls()`): what it sends is fixed in the caller's synchronous part (the body as the JSON
 * muxws carries), and its first attempt waits for the peer, within the attempt's timeout. Such a
 * call is known to the engine under a peer id of its own, which never waits for a reconnect: a
 * repeat of it polls with the repeat delay instead. Calls issued once the peer is known carry the
 * peer's id and are that peer's calls in every respect.
 */
import { muxwsBody, writeRestJson } from './body.js';
import { pythonJson } from './python-json.js';
import type { AbandonReason, AttemptHandle, CallParts, Transport } from './vocabulary/call-types.js';
import { failAttempt, transportOfPeer } from './runtime.js';

/** Engine peer ids of lazy sources, above any the runtime hands out to real peers. */
let lazyPeerIds = 0x8000_0000;

/**
 * What the lazy transport keeps of a call issued before its peer was known: its parts, then (once
 * the peer is known) what the peer's transport prepared of them, which every attempt sends.
 */
class Waiting {
  // Assigned, not a parameter property: tsc would also declare it as a class field (the same property, more bytes).
  declare readonly parts: CallParts;
  /** What the peer's transport prepared of `parts` (written once, by this transport's first attempt after the peer is known). */
  declare sent?: unknown;
  constructor(parts: CallParts) {
    this.parts = parts;
  }
}

/**
 * The transport of a muxws proxy's `peer` option; a TypeError for anything but a peer or a function.
 * From the first muxws proxy on, REST proxies write JSON bodies as the backend writes a muxws
 * payload, so that one key is one record on either transport.
 */
export function muxwsTransport(peer: unknown): Transport {
  writeRestJson(pythonJson);
  const found = transportOfPeer(peer);
  if (found) return found;
  if (typeof peer !== 'function') {
    throw new TypeError('options.peer must be a MuxwsPeer from connectMuxws(), or a function returning one (or a promise of one)');
  }
  return lazyTransport(peer as () => unknown);
}

function lazyTransport(source: () => unknown): Transport {
  const ownId = lazyPeerIds++;
  let real: Transport | undefined;
  let connecting: Promise<Transport> | undefined;
  let isKnown: (transport: Transport) => void;
  const known = new Promise<Transport>((resolve) => (isKnown = resolve));

  /** The peer's transport: `source` is called once; after a failure, again by the next attempt that needs it. */
  function connect(): Promise<Transport> {
    if (!connecting) {
      const attempt = new Promise((resolve) => resolve(source())).then((peer) => {
        const transport = transportOfPeer(peer);
        if (!transport) throw new TypeError('options.peer: the function must return a MuxwsPeer from connectMuxws() or a promise of one');
        isKnown(transport);
        return (real = transport);
      });
      connecting = attempt;
      attempt.catch(() => {
        if (connecting === attempt) connecting = undefined;
      });
    }
    return connecting;
  }

  return {
    get peerId() {
      return real ? real.peerId : ownId;
    },
    name: 'muxws',
    // the peer's own `known` once a call has made the peer known (read by the schema check alone: a
    // getter, so that a peer that closed for good rejects nothing nobody waits for)
    get known() {
      return known.then((transport) => transport.known);
    },
    prepare(parts) {
      if (real) return real.prepare(parts);
      const text = muxwsBody(parts.body);
      return new Waiting({ ...parts, body: text === null ? undefined : JSON.parse(text) });
    },
    openAttempt(call, attempt, carried) {
      const waiting = call.send;
      if (!(waiting instanceof Waiting)) return real!.openAttempt(call, attempt, carried);
      // Abandoning the attempt before the peer is known stops it from going out; after, it
      // abandons the attempt the peer's transport opened. The attempt goes once the peer's calls
      // can go out (its first socket up, or its fallback started): opened before, it would find no
      // socket and end as lost, to be repeated only after the repeat delay.
      let inner: AttemptHandle | null = null;
      let abandoned: AbandonReason | null = null;
      connect()
        .then((transport) => Promise.resolve(transport.known).then(() => transport, () => transport))
        .then(
          (transport) => {
            if (abandoned) return;
            try {
              if (!('sent' in waiting)) waiting.sent = transport.prepare(waiting.parts);
              // the peer's transport reads what it prepared as the call's `send`
              inner = transport.openAttempt({ ...call, send: waiting.sent }, attempt, carried);
            } catch (error) {
              failAttempt(call.id, attempt, error);
            }
          },
          (error: unknown) => {
            if (!abandoned) failAttempt(call.id, attempt, error);
          },
        );
      return {
        abandon(why) {
          abandoned = why;
          inner?.abandon(why);
        },
      };
    },
    reconnectNow() {
      real?.reconnectNow?.();
    },
    pushPeer() {
      return connect().then((transport) => transport.pushPeer!());
    },
    timeoutError(message, props) {
      // before the peer is known, the runtime's AttemptTimeoutError
      return real?.timeoutError?.(message, props);
    },
  };
}
