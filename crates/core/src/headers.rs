//! The header rules of repeated attempts, in one place. The headers themselves are the driver's
//! (platform `Headers` over REST, the stream's header object over muxws); it asks these rules about
//! names.
//!
//! Seed, "Frontend / Repeats": "Every attempt is sent with the headers of the first […] (other than
//! Accept, Accept-Encoding, Content-Length, Content-Type and User-Agent, which axios sets again)" and
//! "Idempotency-Key is matched in any letter case: a header of that name in the proxy's or the call's
//! headers is replaced by the call's key."

/// The name the call's key is sent under. Seed: "The npm proxies send an Idempotency-Key with every
/// call, over REST and over muxws".
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// The headers axios sets again on every request, so that an attempt sent through axios does not
/// carry the first attempt's values of them. Seed: "other than Accept, Accept-Encoding,
/// Content-Length, Content-Type and User-Agent, which axios sets again". Matched in any letter case.
/// `fetch` sets none of them again (it only adds what is missing), so over `fetch` and muxws every
/// header of the first attempt is carried.
pub const SET_AGAIN_BY_AXIOS: [&str; 5] = [
    "Accept",
    "Accept-Encoding",
    "Content-Length",
    "Content-Type",
    "User-Agent",
];

/// `name` is the Idempotency-Key header, in any letter case: a header of that name given by the
/// proxy, the call or an interceptor is replaced by the call's key.
pub fn is_key_header(name: impl AsRef<[u8]>) -> bool {
    name.as_ref().eq_ignore_ascii_case(IDEMPOTENCY_KEY_HEADER.as_bytes())
}

/// `name` is one of [`SET_AGAIN_BY_AXIOS`], in any letter case: the axios transport does not carry
/// it from the first attempt to a repeat.
pub fn is_set_again_by_axios(name: impl AsRef<[u8]>) -> bool {
    SET_AGAIN_BY_AXIOS
        .iter()
        .any(|set_again| name.as_ref().eq_ignore_ascii_case(set_again.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_header_in_any_case() {
        for name in ["Idempotency-Key", "idempotency-key", "IDEMPOTENCY-KEY", "idempotency-KEY"] {
            assert!(is_key_header(name), "{name}");
        }
        for name in ["Idempotency-Keys", "X-Idempotency-Key", "", "Idempotency Key"] {
            assert!(!is_key_header(name), "{name}");
        }
    }

    #[test]
    fn the_five_axios_sets_again_in_any_case() {
        for name in ["accept", "ACCEPT-ENCODING", "Content-Length", "content-type", "User-Agent"] {
            assert!(is_set_again_by_axios(name), "{name}");
        }
        for name in ["Authorization", "Accept-Language", "X-Trace", "Idempotency-Key", "Content-Types"] {
            assert!(!is_set_again_by_axios(name), "{name}");
        }
    }
}
