//! The header rules of repeated attempts, in one place.
//!
//! Seed, "Frontend / Repeats": "Every attempt is sent with the headers of the first […] (other than
//! Accept, Accept-Encoding, Content-Length, Content-Type and User-Agent, which axios sets again)" and
//! "Idempotency-Key is matched in any letter case: a header of that name in the proxy's or the call's
//! headers is replaced by the call's key."

use crate::key::IdempotencyKey;

/// A list of header fields, `(name, value)`, in the order they were given and with names spelt as
/// given. Header names are compared without regard to letter case.
pub type Headers = Vec<(String, String)>;

/// The name the call's key is sent under. Seed: "The npm proxies send an Idempotency-Key with every
/// call, over REST and over muxws".
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// The headers of the first attempt that are not carried over to its repeats, because the transport
/// sets them again. Seed: "other than Accept, Accept-Encoding, Content-Length, Content-Type and
/// User-Agent, which axios sets again". Matched in any letter case.
pub const NOT_CARRIED_OVER: [&str; 5] = [
    "Accept",
    "Accept-Encoding",
    "Content-Length",
    "Content-Type",
    "User-Agent",
];

/// `headers` with every `Idempotency-Key` field (in any letter case) removed and
/// `("Idempotency-Key", key as a Structured Field string)` appended.
///
/// Seed rule: "Idempotency-Key is matched in any letter case: a header of that name in the proxy's or
/// the call's headers is replaced by the call's key."
pub fn with_key(mut headers: Headers, key: &IdempotencyKey) -> Headers {
    headers.retain(|(name, _)| !name.eq_ignore_ascii_case(IDEMPOTENCY_KEY_HEADER));
    headers.push((IDEMPOTENCY_KEY_HEADER.to_owned(), key.to_structured_field()));
    headers
}

/// The headers of the first attempt that are sent again with each repeat: all of them except the
/// ones in [`NOT_CARRIED_OVER`] (in any letter case), order kept.
///
/// Seed rule: "Every attempt is sent with the headers of the first […] other than Accept,
/// Accept-Encoding, Content-Length, Content-Type and User-Agent".
pub fn carry_over(headers: &Headers) -> Headers {
    headers
        .iter()
        .filter(|(name, _)| {
            !NOT_CARRIED_OVER
                .iter()
                .any(|dropped| name.eq_ignore_ascii_case(dropped))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Headers {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn with_key_replaces_every_spelling() {
        let key = IdempotencyKey::parse("k").unwrap();
        let out = with_key(
            headers(&[
                ("idempotency-key", "\"a\""),
                ("X-Run", "1"),
                ("IDEMPOTENCY-KEY", "\"b\""),
                ("Idempotency-Key", "\"c\""),
            ]),
            &key,
        );
        assert_eq!(
            out,
            headers(&[("X-Run", "1"), ("Idempotency-Key", "\"k\"")])
        );
    }

    #[test]
    fn carry_over_drops_the_five_in_any_case() {
        let out = carry_over(&headers(&[
            ("accept", "*/*"),
            ("X-A", "1"),
            ("ACCEPT-ENCODING", "gzip"),
            ("content-length", "3"),
            ("Content-type", "application/json"),
            ("user-AGENT", "x"),
            ("Authorization", "Bearer t"),
            ("Accept-Language", "sl"),
        ]));
        assert_eq!(
            out,
            headers(&[
                ("X-A", "1"),
                ("Authorization", "Bearer t"),
                ("Accept-Language", "sl")
            ])
        );
    }
}
