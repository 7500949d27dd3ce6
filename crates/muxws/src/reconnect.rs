//! Reconnection (`SPEC.md` §5.12): the backoff schedule as a pure function and the supervisor
//! ([`Peer`]) that drives one socket after another.
//!
//! ```text
//! delay = min(initial_delay_ms · factor^attempts, max_delay_ms) · (1 + jitter · draw),  draw ∈ [-1, 1]
//! ```
//!
//! clamped at 0 (WSM-RCN-002/003). `attempts` is the number of consecutive failed attempts, so the
//! first redial after a loss waits about `initial_delay_ms` (there is a sleep before **every**
//! redial).

/// What the peer hands its driver: actions, events and the handles they name.
mod events;
/// What a peer is constructed with.
mod options;
/// The peer itself.
mod supervisor;

pub use events::{Action, CloseReason, Event, SocketId, StreamRef};
pub use options::{Hello, PeerOptions, DEFAULT_HELLO_TIMEOUT_MS};
pub use supervisor::Peer;

use crate::error::ConfigError;
use alloc::borrow::ToOwned;

/// The backoff options (`SPEC.md` §7; TS `ReconnectOptions`). Durations are milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct ReconnectOptions {
    /// Unjittered delay before the first retry; must be > 0 (default 250) (WSM-RCN-003).
    pub initial_delay_ms: f64,
    /// Multiplier per failed attempt; must be ≥ 1 (default 2) (WSM-RCN-003).
    pub factor: f64,
    /// Cap on the unjittered delay; not validated beyond being a number (default 30 000)
    /// (WSM-RCN-002: jitter still applies to capped delays).
    pub max_delay_ms: f64,
    /// Dispersion fraction in `[0, 1]` (default 0.3), applied to every delay, capped ones
    /// included (WSM-RCN-002).
    pub jitter: f64,
    /// Consecutive failed attempts before giving up; `None` is unlimited (default), `Some(0)`
    /// gives up at the first loss without dialling (WSM-RCN-044).
    pub max_attempts: Option<u32>,
}

impl Default for ReconnectOptions {
    fn default() -> Self {
        ReconnectOptions {
            initial_delay_ms: 250.0,
            factor: 2.0,
            max_delay_ms: 30_000.0,
            jitter: 0.3,
            max_attempts: None,
        }
    }
}

impl ReconnectOptions {
    /// `initial_delay_ms > 0`, `factor ≥ 1`, `0 ≤ jitter ≤ 1`, all finite numbers; rejected where
    /// they are written rather than discovered as a shrinking schedule (WSM-RCN-003).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.initial_delay_ms.is_finite() && self.initial_delay_ms > 0.0) {
            return Err(ConfigError(
                "initial_delay_ms must be a number greater than 0".to_owned(),
            ));
        }
        if !(self.factor.is_finite() && self.factor >= 1.0) {
            return Err(ConfigError(
                "factor must be a finite number of at least 1".to_owned(),
            ));
        }
        if !(0.0..=1.0).contains(&self.jitter) {
            return Err(ConfigError("jitter must be between 0 and 1".to_owned()));
        }
        if self.max_delay_ms.is_nan() {
            return Err(ConfigError("max_delay_ms must be a number".to_owned()));
        }
        Ok(())
    }

    /// `attempts < max_attempts` (WSM-RCN-044).
    pub fn should_retry(&self, attempts: u32) -> bool {
        self.max_attempts.is_none_or(|max| attempts < max)
    }
}

/// `min(initial · factor^attempts, max)` — the delay before jitter (WSM-RCN-003).
pub fn unjittered_delay_ms(attempts: u32, options: &ReconnectOptions) -> f64 {
    (options.initial_delay_ms * power(options.factor, attempts)).min(options.max_delay_ms)
}

/// `base^exponent` by squaring — the computation of `f64::powi` (compiler-rt's `__powidf2`), which
/// `core` does not offer: the same bits, in at most 32 steps.
fn power(mut base: f64, mut exponent: u32) -> f64 {
    let mut result = 1.0;
    loop {
        if exponent & 1 == 1 {
            result *= base;
        }
        exponent >>= 1;
        if exponent == 0 {
            return result;
        }
        base *= base;
    }
}

/// The delay before retry number `attempts`, jittered by `draw ∈ [-1, 1]` (clamped; NaN counts as
/// 0) and clamped at 0. A pure function of `(attempts, options, draw)` (WSM-RCN-002/003); the draw
/// comes from an ordinary PRNG such as `Math.random`, never a cryptographic one (WSM-RCN-005).
pub fn delay_ms(attempts: u32, options: &ReconnectOptions, draw: f64) -> f64 {
    let draw = if draw.is_nan() {
        0.0
    } else {
        draw.clamp(-1.0, 1.0)
    };
    (unjittered_delay_ms(attempts, options) * (1.0 + options.jitter * draw)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::power;

    #[test]
    fn power_has_the_bits_of_powi() {
        for base in [0.0f64, 1.0, 1.5, 2.0, 1.1, 3.7, 10.0, 1e-3, 1.000_000_1] {
            for exponent in (0..70).chain([1_000, 1 << 20, i32::MAX as u32]) {
                let expected = base.powi(exponent as i32);
                let got = power(base, exponent);
                assert!(
                    got.to_bits() == expected.to_bits() || (got.is_nan() && expected.is_nan()),
                    "{base}^{exponent}: {got} vs {expected}"
                );
            }
        }
        assert_eq!(power(2.0, u32::MAX), f64::INFINITY);
    }
}
