//! When a call is repeated: the repeat policy, how an attempt ended, and the seed's Repeats table.
//!
//! Seed, "Frontend / Repeats": the proxies "repeat a call with the same key when an attempt ends
//! without an answer from the application", by the Repeats table, within the limits of the options
//! `repeat.withinMs` and `repeat.delayMs`.

/// Default of `repeat.withinMs`: a repeat is sent at most this long after the first attempt.
/// Seed option table: "repeat.withinMs 600000".
pub const DEFAULT_WITHIN_MS: u64 = 600_000;

/// Default of `repeat.delayMs`: the delay before the first delayed repeat. Seed option table:
/// "repeat.delayMs 1000".
pub const DEFAULT_DELAY_MS: u64 = 1_000;

/// The longest delay before a repeat. Seed: "doubled after each, at most 30000".
pub const MAX_DELAY_MS: u64 = 30_000;

/// Default of `attemptTimeoutMs`, the timeout of one attempt. Seed option table:
/// "attemptTimeoutMs 30000".
pub const DEFAULT_ATTEMPT_TIMEOUT_MS: u64 = 30_000;

/// [`RepeatPolicy::jitter`] is a fraction in units of `1 / JITTER_WHOLE`: `JITTER_WHOLE` is a
/// jitter of 1 (a delay may shrink to nothing), 0 none.
pub const JITTER_WHOLE: u32 = 1 << 16;

/// The `repeat` option of a proxy (or, after [`RepeatPolicy::with_override`], of one call).
///
/// Seed rule: "repeat.withinMs: a repeat is sent only this long after the first attempt; past it the
/// call rejects with the error of its last attempt. 0 turns repeating off" and "repeat.delayMs: the
/// delay before a repeat after a lost connection or a gateway status, doubled after each, at most
/// 30000". Issue 14: "repeat.jitter (0…1, default 0, so the seed's schedule stays exact unless
/// asked): each delay drawn uniformly from [d·(1−j), d]".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepeatPolicy {
    /// A repeat is sent only while (its send time − the first attempt's start) ≤ `within_ms`;
    /// 0 turns repeating off.
    pub within_ms: u64,
    /// The delay before the first delayed repeat; doubled for each further one, at most
    /// [`MAX_DELAY_MS`].
    pub delay_ms: u64,
    /// `repeat.jitter` in units of `1 /` [`JITTER_WHOLE`] (values above it count as it): each
    /// computed delay `d` is drawn uniformly from `[d·(1−j), d]` (see
    /// [`RepeatPolicy::jittered_delay_before`]). 0, the default, keeps the schedule exact.
    pub jitter: u32,
}

impl Default for RepeatPolicy {
    /// `within_ms` [`DEFAULT_WITHIN_MS`], `delay_ms` [`DEFAULT_DELAY_MS`], as the seed's option table;
    /// no jitter.
    fn default() -> Self {
        RepeatPolicy {
            within_ms: DEFAULT_WITHIN_MS,
            delay_ms: DEFAULT_DELAY_MS,
            jitter: 0,
        }
    }
}

/// The `repeat` member of `RequestOptions`: per-call values that replace the proxy's.
///
/// Seed rule: "repeat is an option of every proxy and of RequestOptions, where it applies to one
/// call." A `None` member keeps the proxy's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RepeatOverride {
    /// Replaces [`RepeatPolicy::within_ms`] when set.
    pub within_ms: Option<u64>,
    /// Replaces [`RepeatPolicy::delay_ms`] when set.
    pub delay_ms: Option<u64>,
    /// Replaces [`RepeatPolicy::jitter`] when set.
    pub jitter: Option<u32>,
}

impl RepeatPolicy {
    /// The policy of one call: the proxy's policy (`self`) with the members the call sets replaced.
    ///
    /// Seed rule: "repeat is an option of every proxy and of RequestOptions, where it applies to one
    /// call."
    pub fn with_override(self, o: &RepeatOverride) -> Self {
        RepeatPolicy {
            within_ms: o.within_ms.unwrap_or(self.within_ms),
            delay_ms: o.delay_ms.unwrap_or(self.delay_ms),
            jitter: o.jitter.unwrap_or(self.jitter),
        }
    }

    /// The delay before the next delayed repeat, when `delayed_repeats_so_far` delayed repeats of the
    /// call have been scheduled before it: `delay_ms · 2^delayed_repeats_so_far`, at most
    /// [`MAX_DELAY_MS`].
    ///
    /// Seed rule: "The delay before a repeat after a lost connection or a gateway status, doubled
    /// after each, at most 30000." Repeats sent at once do not count.
    pub fn delay_before(&self, delayed_repeats_so_far: u32) -> u64 {
        let factor = 1u64.checked_shl(delayed_repeats_so_far).unwrap_or(u64::MAX);
        self.delay_ms.saturating_mul(factor).min(MAX_DELAY_MS)
    }

    /// [`RepeatPolicy::delay_before`] with the policy's jitter applied: a delay `d` becomes
    /// `d − ⌊d·j·u⌋`, `u` uniform in `[0, 1)`, so it lies in `[d·(1−j), d]`. `u` is drawn from the
    /// call's `seed` (a random number the driver gave the call) and `delayed_repeats_so_far`: the same
    /// seed gives the same schedule, and the calls of a crowd of clients cut off by one outage spread
    /// out. Without jitter this is exactly `delay_before`.
    ///
    /// Only the computed backoff is jittered. A server's `Retry-After` is not: jitter only shortens a
    /// delay, and the server asked for that moment or later.
    pub fn jittered_delay_before(&self, delayed_repeats_so_far: u32, seed: u32) -> u64 {
        // At most MAX_DELAY_MS (< 2^15): the products below stay far below u64::MAX.
        let delay = self.delay_before(delayed_repeats_so_far);
        let span = (delay * u64::from(self.jitter.min(JITTER_WHOLE))) >> 16;
        let random = mix(seed.wrapping_add(delayed_repeats_so_far.wrapping_mul(0x9E37_79B9)));
        delay - ((span * u64::from(random)) >> 32)
    }
}

/// A bijective 32-bit mixing function (MurmurHash3's finalizer, a published constant sequence):
/// neighbouring inputs give unrelated outputs.
fn mix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

/// How one attempt of a call ended, for both transports. The wasm layer maps what `fetch` or the
/// muxws stream gave it to one of these and reports it to the engine.
///
/// Seed rule: the "An attempt that ended without an answer" column of the Repeats table, plus the
/// outcomes that settle the call ("Any other outcome settles the call").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptEnd {
    /// REST: the application (or a gateway) answered with `status`. `json_detail`: the body is a JSON
    /// object with a `detail` member (what FastAPI gives an `HTTPException`).
    HttpAnswer {
        /// The HTTP status code.
        status: u16,
        /// The body is a JSON object holding `detail`.
        json_detail: bool,
    },
    /// REST: the request failed without a response (other than a cancellation or the attempt's own
    /// timeout).
    NetworkError,
    /// REST: the attempt's own timeout (`attemptTimeoutMs`) passed.
    AttemptTimeout,
    /// The caller cancelled the call (REST and muxws).
    Cancelled,
    /// muxws: a reply with `:status` (200 when it is missing).
    MuxwsReply {
        /// The reply's `:status`.
        status: u16,
    },
    /// muxws: the attempt's own timeout (`timeoutMs`) passed; `reset(TIMEOUT)` was sent.
    StreamTimeout,
    /// muxws: the stream failed with ConnectionLost.
    ConnectionLost {
        /// The peer has closed for good (`onClose` with `willRetry` false).
        closed_for_good: bool,
    },
    /// muxws: the stream failed with StreamRefused.
    StreamRefused {
        /// The peer has closed for good.
        closed_for_good: bool,
    },
    /// muxws: `open()` threw ConnectionClosed (the peer is between sockets, or closed for good).
    OpenConnectionClosed {
        /// The peer has closed for good.
        closed_for_good: bool,
    },
    /// muxws: `open()` threw ConnectionGoingAway (its connection drains after a goaway).
    OpenGoingAway {
        /// The peer has closed for good.
        closed_for_good: bool,
    },
    /// Anything else (StreamReset, RemoteError, ProtocolError, a bug): settles the call.
    OtherError,
}

/// What follows an attempt's end. Seed: the "Repeated" column of the Repeats table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// "Any other outcome settles the call."
    Settle,
    /// "at once" (the attempt's own timeout ended it).
    RepeatAtOnce,
    /// "after the delay" (a lost request or a gateway status).
    RepeatAfterDelay,
    /// "after the delay, and once the peer has reconnected" (muxws, the peer between sockets).
    RepeatAfterDelayAndReconnect,
}

/// The seed's Repeats table, and nothing else: what follows an attempt that ended with `end`.
///
/// | transport | attempt ended with | verdict |
/// |---|---|---|
/// | REST | an error without response, not a cancellation: the attempt's timeout | at once |
/// | REST | … any other (network) error | after the delay |
/// | REST | 502, 503 or 504 whose body is not a JSON object with `detail` | after the delay |
/// | muxws | StreamTimeout | at once |
/// | muxws | ConnectionLost, StreamRefused, open() threw ConnectionClosed or ConnectionGoingAway, while the peer has not closed for good | after the delay and once the peer has reconnected |
/// | any | any other outcome (an answer, a cancellation, a muxws status, …) | settles |
pub fn classify(end: &AttemptEnd) -> Verdict {
    match *end {
        AttemptEnd::HttpAnswer {
            status: 502..=504,
            json_detail: false,
            ..
        } => Verdict::RepeatAfterDelay,
        AttemptEnd::HttpAnswer { .. } => Verdict::Settle,
        AttemptEnd::NetworkError => Verdict::RepeatAfterDelay,
        AttemptEnd::AttemptTimeout => Verdict::RepeatAtOnce,
        AttemptEnd::Cancelled => Verdict::Settle,
        AttemptEnd::MuxwsReply { .. } => Verdict::Settle,
        AttemptEnd::StreamTimeout => Verdict::RepeatAtOnce,
        AttemptEnd::ConnectionLost { closed_for_good }
        | AttemptEnd::StreamRefused { closed_for_good }
        | AttemptEnd::OpenConnectionClosed { closed_for_good }
        | AttemptEnd::OpenGoingAway { closed_for_good } => {
            if closed_for_good {
                Verdict::Settle
            } else {
                Verdict::RepeatAfterDelayAndReconnect
            }
        }
        AttemptEnd::OtherError => Verdict::Settle,
    }
}

/// How an attempt ended, as call-activity events name it (seed, "Call activity": "retry for each
/// repeat, with how the attempt ended"): the `ended` member of `retry` and `settle` events. The
/// discriminants are the codes the wasm module hands the TS runtime, which holds the same names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Ended {
    /// An HTTP answer that settles, or a muxws reply.
    Answered,
    /// A 502, 503 or 504 that is repeated.
    GatewayStatus,
    /// No response (REST).
    NetworkError,
    /// The attempt's own timeout (REST).
    Timeout,
    /// The caller cancelled.
    Cancelled,
    /// The stream's own timeout (muxws).
    StreamTimeout,
    /// The socket died under the stream.
    ConnectionLost,
    /// The server refused the stream.
    StreamRefused,
    /// `open()` threw ConnectionClosed.
    ConnectionClosed,
    /// `open()` threw ConnectionGoingAway.
    GoingAway,
    /// Anything else.
    Error,
}

impl Ended {
    /// The name: `"answered"`, `"gateway-status"`, `"network-error"`, `"timeout"`, `"cancelled"`,
    /// `"stream-timeout"`, `"connection-lost"`, `"stream-refused"`, `"connection-closed"`,
    /// `"going-away"`, `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Ended::Answered => "answered",
            Ended::GatewayStatus => "gateway-status",
            Ended::NetworkError => "network-error",
            Ended::Timeout => "timeout",
            Ended::Cancelled => "cancelled",
            Ended::StreamTimeout => "stream-timeout",
            Ended::ConnectionLost => "connection-lost",
            Ended::StreamRefused => "stream-refused",
            Ended::ConnectionClosed => "connection-closed",
            Ended::GoingAway => "going-away",
            Ended::Error => "error",
        }
    }
}

impl AttemptEnd {
    /// How the attempt ended, as activity events name it.
    pub fn ended(&self) -> Ended {
        match self {
            AttemptEnd::HttpAnswer { .. } => {
                // Whether a gateway status is the application's answer is the Repeats table's call.
                if classify(self) == Verdict::Settle {
                    Ended::Answered
                } else {
                    Ended::GatewayStatus
                }
            }
            AttemptEnd::NetworkError => Ended::NetworkError,
            AttemptEnd::AttemptTimeout => Ended::Timeout,
            AttemptEnd::Cancelled => Ended::Cancelled,
            AttemptEnd::MuxwsReply { .. } => Ended::Answered,
            AttemptEnd::StreamTimeout => Ended::StreamTimeout,
            AttemptEnd::ConnectionLost { .. } => Ended::ConnectionLost,
            AttemptEnd::StreamRefused { .. } => Ended::StreamRefused,
            AttemptEnd::OpenConnectionClosed { .. } => Ended::ConnectionClosed,
            AttemptEnd::OpenGoingAway { .. } => Ended::GoingAway,
            AttemptEnd::OtherError => Ended::Error,
        }
    }

    /// The name of [`AttemptEnd::ended`].
    pub fn label(&self) -> &'static str {
        self.ended().as_str()
    }

    /// The attempt was answered with a status below 400: the call's promise resolves (the `ok` of a
    /// settle event). Every other end rejects it.
    pub fn is_success(&self) -> bool {
        match *self {
            AttemptEnd::HttpAnswer { status, .. } | AttemptEnd::MuxwsReply { status } => {
                status < 400
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_doubles_and_caps() {
        let policy = RepeatPolicy::default();
        let delays: Vec<u64> = (0..8).map(|k| policy.delay_before(k)).collect();
        assert_eq!(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
        assert_eq!(policy.delay_before(200), MAX_DELAY_MS);
        let big = RepeatPolicy {
            within_ms: 1,
            delay_ms: u64::MAX,
            jitter: 0,
        };
        assert_eq!(big.delay_before(3), MAX_DELAY_MS);
        let zero = RepeatPolicy {
            within_ms: 1,
            delay_ms: 0,
            jitter: 0,
        };
        assert_eq!(zero.delay_before(99), 0);
    }

    #[test]
    fn override_replaces_only_what_is_set() {
        let proxy = RepeatPolicy {
            within_ms: 5,
            delay_ms: 7,
            jitter: 0,
        };
        assert_eq!(proxy.with_override(&RepeatOverride::default()), proxy);
        let call = RepeatOverride {
            within_ms: Some(0),
            delay_ms: None,
            jitter: None,
        };
        assert_eq!(
            proxy.with_override(&call),
            RepeatPolicy {
                within_ms: 0,
                delay_ms: 7,
                jitter: 0
            }
        );
        let call = RepeatOverride {
            within_ms: None,
            delay_ms: Some(9),
            jitter: None,
        };
        assert_eq!(
            proxy.with_override(&call),
            RepeatPolicy {
                within_ms: 5,
                delay_ms: 9,
                jitter: 0
            }
        );
    }

    #[test]
    fn success_is_an_answer_below_400() {
        assert!(AttemptEnd::HttpAnswer {
            status: 201,
            json_detail: false
        }
        .is_success());
        assert!(AttemptEnd::MuxwsReply { status: 399 }.is_success());
        assert!(!AttemptEnd::MuxwsReply { status: 400 }.is_success());
        assert!(!AttemptEnd::HttpAnswer {
            status: 504,
            json_detail: true
        }
        .is_success());
        assert!(!AttemptEnd::NetworkError.is_success());
    }

    #[test]
    fn labels() {
        assert_eq!(
            AttemptEnd::HttpAnswer {
                status: 503,
                json_detail: false
            }
            .label(),
            "gateway-status"
        );
        assert_eq!(
            AttemptEnd::HttpAnswer {
                status: 503,
                json_detail: true
            }
            .label(),
            "answered"
        );
        assert_eq!(
            AttemptEnd::OpenGoingAway {
                closed_for_good: false
            }
            .label(),
            "going-away"
        );
    }
}
