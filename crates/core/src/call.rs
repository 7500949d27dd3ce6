//! The call vocabulary: the ids, the description of a call, why an attempt is abandoned, why a
//! call waits, and how a pending call is listed. The types the engine, its activity events and the
//! wasm layer share; the state machine that uses them is [`CallEngine`](crate::CallEngine).

use crate::repeat::{RepeatPolicy, DEFAULT_ATTEMPT_TIMEOUT_MS};

/// The engine's id of a call, unique for the engine's lifetime and increasing in issue order.
pub type CallId = u64;

/// The driver's id of a muxws peer (one connection supervisor).
pub type PeerId = u64;

/// How a call is sent. Seed: "The npm proxies send an Idempotency-Key with every call, over REST and
/// over muxws"; the Repeats table has a row set for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Over HTTP (`fetch`).
    Rest,
    /// Over a muxws stream of `peer`.
    Muxws {
        /// The peer whose streams carry the call.
        peer: PeerId,
    },
}

impl Transport {
    /// The muxws peer, `None` for REST.
    pub fn peer(&self) -> Option<PeerId> {
        match *self {
            Transport::Rest => None,
            Transport::Muxws { peer } => Some(peer),
        }
    }
}

/// Everything the engine needs to know about a call when it is issued. The call's key, method,
/// path, body and headers are the driver's: the engine deals in call ids only.
///
/// Seed rules: "repeat is an option of every proxy and of RequestOptions" (`policy`, the proxy's with
/// the call's override applied); "attemptTimeoutMs: the timeout of one attempt […] 0 sets none. Over
/// muxws, timeoutMs is the timeout of one attempt" (`attempt_timeout_ms`); "RequestOptions.background:
/// true marks a call such an indicator leaves out" (`background`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSpec {
    /// REST or muxws (and through which peer).
    pub transport: Transport,
    /// The repeat policy of this call.
    pub policy: RepeatPolicy,
    /// The timeout of one attempt in milliseconds; 0 sets none.
    pub attempt_timeout_ms: u64,
    /// Left out of `pending_call_count()` (and by a busy indicator).
    pub background: bool,
    /// A random number the driver draws for the call: the seed of its jitter
    /// ([`RepeatPolicy::jittered_delay_before`]). Unused without jitter.
    pub jitter_seed: u32,
}

impl CallSpec {
    /// A spec with the seed's defaults: [`RepeatPolicy::default`], an attempt timeout of
    /// [`DEFAULT_ATTEMPT_TIMEOUT_MS`], not background, jitter seed 0.
    pub fn new(transport: Transport) -> Self {
        CallSpec {
            transport,
            policy: RepeatPolicy::default(),
            attempt_timeout_ms: DEFAULT_ATTEMPT_TIMEOUT_MS,
            background: false,
            jitter_seed: 0,
        }
    }
}

/// Why an attempt is abandoned. Seed: "A repeated attempt is abandoned first: its axios request is
/// aborted through its AbortSignal, its muxws stream is cancelled."
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abandon {
    /// The attempt's own timeout passed (REST: abort the request; muxws: `reset(TIMEOUT)`).
    Timeout,
    /// A repeat replaces the attempt.
    Superseded,
    /// The caller cancelled the call.
    Cancelled,
}

/// Why an unsettled call waits: what must happen before anything more happens to it. The
/// discriminants are the codes the wasm module hands the TS runtime.
///
/// A waiting repeat may wait for several things at once (a muxws repeat for its delay and its
/// peer, any repeat for the platform to be online); it is given the first of `Offline`, `Reconnect`,
/// `Delay` that holds: while offline neither the delay nor the peer sends it (coming online sends it
/// at once), and a peer that is away holds it past its delay; a delay alone is the least of them
/// (`retry_now` ends it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum WaitReason {
    /// An attempt is in flight: the call waits for its answer (or its timeout).
    InFlight,
    /// A repeat waits for its delay (the backoff, a resumed delay, or a `Retry-After`).
    Delay,
    /// A muxws repeat waits for its peer to reconnect (seed: "after the delay, and once the peer has
    /// reconnected").
    Reconnect,
    /// A repeat waits for the platform to be online ([`CallEngine::set_online`](crate::CallEngine::set_online)).
    Offline,
}

impl WaitReason {
    /// The name: `"in-flight"`, `"delay"`, `"reconnect"`, `"offline"`.
    pub fn as_str(self) -> &'static str {
        match self {
            WaitReason::InFlight => "in-flight",
            WaitReason::Delay => "delay",
            WaitReason::Reconnect => "reconnect",
            WaitReason::Offline => "offline",
        }
    }
}

/// One unsettled call as `pendingCalls()` lists it. Seed: "pendingCalls() lists the calls that have
/// not settled, oldest first, with when each was issued and how many of its attempts went
/// unanswered". The driver adds what it knows of the call (key, method, path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingCall {
    /// The call.
    pub call: CallId,
    /// REST or muxws.
    pub transport: Transport,
    /// When it was issued (the `now` of [`CallEngine::issue`](crate::CallEngine::issue)).
    pub issued_at: u64,
    /// How many of its attempts ended without an answer.
    pub unanswered_attempts: u32,
    /// Issued with `RequestOptions.background: true`.
    pub background: bool,
    /// When the next attempt is due, while a repeat waits for its delay; `None` while an attempt is in
    /// flight, the repeat waits only for the peer to reconnect, or the platform is offline (the
    /// repeat then goes out when it is online again, not at a known time).
    pub next_attempt_at: Option<u64>,
    /// The waiting repeat goes out only once its muxws peer is connected (seed: "after the delay, and
    /// once the peer has reconnected").
    pub waiting_for_reconnect: bool,
    /// Why the call waits (see [`WaitReason`] for the order when several hold).
    pub reason: WaitReason,
}
