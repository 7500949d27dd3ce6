//! A new peer's options as the driver passes them ([`PeerConfig`]), with the protocol layer's
//! defaults applied where the caller gave none and the ranges checked that the protocol layer does
//! not check itself (`resolve`); the protocol layer's refusals named as `connectMuxws` names the
//! options (`option_names`).

use alloc::string::String;

use muxws_proto::ReconnectOptions;

/// A new peer's options as the driver passes them: numbers (their types checked by the driver: a
/// count is a non-negative whole number), NaN for one the caller did not give ([`PeerConfig::default`]'s then applies). The module checks
/// their ranges (`peer_new`), naming each as `connectMuxws` does.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerConfig {
    /// Heartbeat idle interval (0: off).
    pub ping_interval_ms: f64,
    /// Heartbeat pong deadline.
    pub ping_timeout_ms: f64,
    /// How long the hello may go unacknowledged.
    pub hello_timeout_ms: f64,
    /// The frame cap (65 536 except in tests).
    pub max_frame_bytes: f64,
    /// The largest inbound payload.
    pub max_payload_bytes: f64,
    /// Backoff: first delay.
    pub initial_delay_ms: f64,
    /// Backoff: factor per failed attempt.
    pub factor: f64,
    /// Backoff: largest delay.
    pub max_delay_ms: f64,
    /// Backoff: jitter fraction.
    pub jitter: f64,
    /// Failed attempts before giving up (at least 0); infinite: never.
    pub max_attempts: f64,
    /// ViewSet calls with a stream open at once; later ones wait here, unsent.
    pub call_concurrency: f64,
    /// Hand the peer out at once and keep trying to connect in the background.
    pub lazy: bool,
    /// Seed of the backoff jitter's generator (an ordinary PRNG, WSM-RCN-005) and of the
    /// connections' duplicate-key tables (`Math.random()`).
    pub seed: f64,
}

impl Default for PeerConfig {
    fn default() -> Self {
        let connection = muxws_proto::ConnectionConfig::default();
        let reconnect = ReconnectOptions::default();
        PeerConfig {
            ping_interval_ms: connection.ping_interval_ms as f64,
            ping_timeout_ms: connection.ping_timeout_ms as f64,
            hello_timeout_ms: muxws_proto::DEFAULT_HELLO_TIMEOUT_MS as f64,
            max_frame_bytes: connection.max_frame_bytes as f64,
            max_payload_bytes: connection.max_payload_bytes as f64,
            initial_delay_ms: reconnect.initial_delay_ms,
            factor: reconnect.factor,
            max_delay_ms: reconnect.max_delay_ms,
            jitter: reconnect.jitter,
            max_attempts: f64::INFINITY,
            call_concurrency: 100.0,
            lazy: false,
            seed: 1.0,
        }
    }
}

/// `value`, or `default` when the caller gave none (NaN).
#[inline(never)]
fn given(value: f64, default: f64) -> f64 {
    if value.is_nan() {
        default
    } else {
        value
    }
}

/// `config` with [`PeerConfig::default`]'s value where it holds NaN (not given), or the message
/// refusing a value out of range, the option named as `connectMuxws` names it. The driver gives
/// whole numbers where the protocol crate counts (it converts them); checked here is what the
/// protocol crate does not have (`callConcurrency`, `maxAttempts`); the backoff's ranges and the
/// floors of the frame cap and the payload are its checks, their messages renamed by
/// [`option_names`].
pub(crate) fn resolve(config: &PeerConfig) -> Result<PeerConfig, &'static str> {
    let d = PeerConfig::default();
    let c = PeerConfig {
        ping_interval_ms: given(config.ping_interval_ms, d.ping_interval_ms),
        ping_timeout_ms: given(config.ping_timeout_ms, d.ping_timeout_ms),
        hello_timeout_ms: given(config.hello_timeout_ms, d.hello_timeout_ms),
        max_frame_bytes: given(config.max_frame_bytes, d.max_frame_bytes),
        max_payload_bytes: given(config.max_payload_bytes, d.max_payload_bytes),
        initial_delay_ms: given(config.initial_delay_ms, d.initial_delay_ms),
        factor: given(config.factor, d.factor),
        max_delay_ms: given(config.max_delay_ms, d.max_delay_ms),
        jitter: given(config.jitter, d.jitter),
        max_attempts: given(config.max_attempts, d.max_attempts),
        call_concurrency: given(config.call_concurrency, d.call_concurrency),
        lazy: config.lazy,
        seed: config.seed,
    };
    if c.call_concurrency < 1.0 {
        return Err("callConcurrency must be at least 1");
    }
    // Not NaN here: `given` replaced it.
    if c.max_attempts < 0.0 {
        return Err("reconnect.maxAttempts must be a number of at least 0");
    }
    Ok(c)
}

/// The protocol crate's refusal of an option, the option named as `connectMuxws` names it.
pub(crate) fn option_names(message: String) -> String {
    const NAMES: [(&str, &str); 5] = [
        ("initial_delay_ms", "reconnect.initialDelayMs"),
        ("factor", "reconnect.factor"),
        ("jitter", "reconnect.jitter"),
        ("max_frame_bytes", "maxFrameBytes"),
        ("max_payload_bytes", "maxPayloadBytes"),
    ];
    for (rust, js) in NAMES {
        // Bytes, not `str::strip_prefix`, whose pattern searcher is larger.
        if let (true, Some(rest)) = (
            message.as_bytes().starts_with(rust.as_bytes()),
            message.get(rust.len()..),
        ) {
            let mut out = String::from(js);
            out.push_str(rest);
            return out;
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nan() -> PeerConfig {
        PeerConfig {
            ping_interval_ms: f64::NAN,
            ping_timeout_ms: f64::NAN,
            hello_timeout_ms: f64::NAN,
            max_frame_bytes: f64::NAN,
            max_payload_bytes: f64::NAN,
            initial_delay_ms: f64::NAN,
            factor: f64::NAN,
            max_delay_ms: f64::NAN,
            jitter: f64::NAN,
            max_attempts: f64::NAN,
            call_concurrency: f64::NAN,
            lazy: false,
            seed: 1.0,
        }
    }

    #[test]
    fn options_not_given_take_the_defaults() {
        assert_eq!(resolve(&nan()), Ok(PeerConfig::default()));
    }

    #[test]
    fn call_concurrency_and_attempts_out_of_range_are_refused_by_their_connect_name() {
        let refused = |config: PeerConfig| resolve(&config).unwrap_err();
        let base = nan();
        assert_eq!(
            refused(PeerConfig {
                call_concurrency: 0.0,
                ..base.clone()
            }),
            "callConcurrency must be at least 1"
        );
        assert_eq!(
            refused(PeerConfig {
                max_attempts: -1.0,
                ..base.clone()
            }),
            "reconnect.maxAttempts must be a number of at least 0"
        );
        assert!(resolve(&PeerConfig {
            max_attempts: 0.0,
            ping_interval_ms: 0.0,
            ..base
        })
        .is_ok());
    }

    #[test]
    fn the_protocol_crates_refusals_name_the_connect_options() {
        assert_eq!(
            option_names("initial_delay_ms must be a number greater than 0".to_owned()),
            "reconnect.initialDelayMs must be a number greater than 0"
        );
        assert_eq!(
            option_names("max_payload_bytes must be at least 1".to_owned()),
            "maxPayloadBytes must be at least 1"
        );
        assert_eq!(
            option_names("the hello cannot be sent".to_owned()),
            "the hello cannot be sent"
        );
    }
}
