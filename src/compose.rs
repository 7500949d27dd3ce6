//! Composing one ViewSet request from a proxy's options and a call's options: URL, query string and
//! headers. Pure Rust, shared by the REST and muxws transports and tested natively.

/// One query parameter as the caller gave it: a name and its (already stringified) value. A list value
/// becomes one pair per element, in order, as `URLSearchParams` does.
pub type QueryPair = (String, String);

/// Joins `base_url`, `base_path` and an action `path` into one URL, with exactly one `/` at each seam,
/// and appends `query` (already encoded, without `?`) when it is not empty. `base_url` may be empty
/// (a same-origin page), in which case the result starts with `base_path`.
pub fn join_url(base_url: &str, base_path: &str, path: &str, query: &str) -> String {
    let mut url = String::with_capacity(base_url.len() + base_path.len() + path.len() + query.len() + 2);
    url.push_str(base_url.trim_end_matches('/'));
    for segment in [base_path, path] {
        let segment = segment.trim_matches('/');
        if !segment.is_empty() {
            url.push('/');
            url.push_str(segment);
        }
    }
    // A viewset's collection route is `{base_path}` itself: `path` '' adds no trailing slash.
    if url.is_empty() {
        url.push('/');
    }
    if !query.is_empty() {
        url.push('?');
        url.push_str(query);
    }
    url
}

/// The path a muxws stream names in `:path`: `base_path` and `path` joined, always absolute (the
/// server answers `command_invalid` for a relative one).
pub fn stream_path(base_path: &str, path: &str) -> String {
    join_url("", base_path, path, "")
}

/// Encodes query pairs as `application/x-www-form-urlencoded`, byte for byte what `URLSearchParams`
/// produces (space as `+`; `*-._` and alphanumerics kept; everything else percent-encoded as UTF-8).
/// The backend's idempotency fingerprint hashes the raw query string, so every repeat must send the
/// very same bytes: this is computed once per call.
pub fn encode_query(pairs: &[QueryPair]) -> String {
    let mut out = String::new();
    for (index, (name, value)) in pairs.iter().enumerate() {
        if index > 0 {
            out.push('&');
        }
        form_encode_into(&mut out, name);
        out.push('=');
        form_encode_into(&mut out, value);
    }
    out
}

fn form_encode_into(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for byte in text.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => out.push(byte as char),
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(HEX[(byte >> 4) as usize] as char);
                out.push(HEX[(byte & 0x0f) as usize] as char);
            }
        }
    }
}

/// Merges header layers, later layers winning over earlier ones by name in any letter case (the
/// proxy's headers, then the call's). The surviving entry keeps the later layer's spelling and the
/// position of the first occurrence.
pub fn merge_headers(layers: &[&[(String, String)]]) -> Vec<(String, String)> {
    let mut merged: Vec<(String, String)> = Vec::new();
    for layer in layers {
        for (name, value) in layer.iter() {
            match merged.iter_mut().find(|(existing, _)| existing.eq_ignore_ascii_case(name)) {
                Some(slot) => *slot = (name.clone(), value.clone()),
                None => merged.push((name.clone(), value.clone())),
            }
        }
    }
    merged
}

/// Checks a header name a caller supplied: an HTTP token (RFC 9110 `tchar`s), as `fetch` and the
/// muxws server require. Returns a sentence for the `TypeError` otherwise.
pub fn check_header_name(name: &str) -> Result<(), String> {
    let is_tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if !name.is_empty() && name.chars().all(is_tchar) {
        Ok(())
    } else {
        Err(format!("\"{name}\" is not a valid header name"))
    }
}

/// Checks a header name on a muxws stream: an HTTP token, or a pseudo-header (`:method`, `:path`,
/// `:query`, …) that is `:` followed by a token.
pub fn check_stream_header_name(name: &str) -> Result<(), String> {
    check_header_name(name.strip_prefix(':').unwrap_or(name)).map_err(|_| format!("\"{name}\" is not a valid header name"))
}

/// Checks a header value a caller supplied: visible ASCII, spaces and tabs, no line breaks (what
/// `fetch` accepts everywhere). Returns a sentence for the `TypeError` otherwise.
pub fn check_header_value(name: &str, value: &str) -> Result<(), String> {
    if value.chars().all(|c| c == '\t' || (' '..='~').contains(&c)) {
        Ok(())
    } else {
        Err(format!("the value of header \"{name}\" holds a character outside printable ASCII"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<QueryPair> {
        list.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn joins_url_segments_with_single_slashes() {
        assert_eq!(join_url("http://h:1/", "/items/", "", ""), "http://h:1/items");
        assert_eq!(join_url("http://h:1", "items", "/5/approve", "a=1"), "http://h:1/items/5/approve?a=1");
        assert_eq!(join_url("", "/items", "slow", ""), "/items/slow");
        assert_eq!(join_url("", "", "", ""), "/");
        assert_eq!(stream_path("items", ""), "/items");
    }

    #[test]
    fn encodes_query_like_url_search_params() {
        assert_eq!(encode_query(&pairs(&[("sleep", "0.5"), ("q", "a b&c=d/é*")])), "sleep=0.5&q=a+b%26c%3Dd%2F%C3%A9*");
        assert_eq!(encode_query(&pairs(&[("x", "1"), ("x", "2")])), "x=1&x=2");
        assert_eq!(encode_query(&[]), "");
    }

    #[test]
    fn later_header_layers_win_in_any_letter_case() {
        let proxy = vec![("X-Trace".to_string(), "p".to_string()), ("Accept".to_string(), "a".to_string())];
        let call = vec![("x-trace".to_string(), "c".to_string())];
        assert_eq!(
            merge_headers(&[&proxy, &call]),
            vec![("x-trace".to_string(), "c".to_string()), ("Accept".to_string(), "a".to_string())]
        );
    }

    #[test]
    fn header_names_and_values_are_checked() {
        assert!(check_header_name("X-Trace").is_ok());
        assert!(check_header_name("bad name").is_err());
        assert!(check_header_name("").is_err());
        assert!(check_header_name(":path").is_err());
        assert!(check_stream_header_name(":path").is_ok());
        assert!(check_stream_header_name(":").is_err());
        assert!(check_header_value("X", "ok\tvalue").is_ok());
        assert!(check_header_value("X", "line\nbreak").is_err());
        assert!(check_header_value("X", "ключ").is_err());
    }
}
