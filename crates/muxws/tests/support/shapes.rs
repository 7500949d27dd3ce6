//! Hostile message shapes for the decoder's cost tests: each builds a message of about `bytes`
//! bytes whose size is all in one construct. Shared by the unit test that counts the decoder's
//! work (`src/tests/linearity.rs`) and the timing tests (`tests/decode_timing.rs`).

/// `(name, builder)`; a builder returns a message of at least `bytes` bytes (and not much more).
pub type Shape = (&'static str, fn(usize) -> String);

/// Every shape measured.
pub const SHAPES: &[Shape] = &[
    ("distinct header keys", distinct_header_keys),
    ("duplicate header keys", duplicate_header_keys),
    (
        "header keys with a long common prefix",
        prefixed_header_keys,
    ),
    ("escaped header keys", escaped_header_keys),
    ("unknown envelope keys", unknown_envelope_keys),
    ("duplicate envelope keys", duplicate_envelope_keys),
    ("nesting at the depth limit", nesting_at_the_limit),
    ("nesting beyond the depth limit", nesting_beyond_the_limit),
    ("escapes in a string field", escapes_in_a_field),
    ("escapes in the payload", escapes_in_the_payload),
    ("huge number in `stream`", huge_stream_number),
    ("huge number in the payload", huge_payload_number),
    ("lone surrogates in the payload", lone_surrogates),
    ("many keys in the payload", payload_keys),
];

fn repeat_until(
    head: &str,
    bytes: usize,
    tail: &str,
    mut item: impl FnMut(usize) -> String,
) -> String {
    let mut out = String::with_capacity(bytes + 256);
    out.push_str(head);
    let mut i = 0;
    while out.len() + tail.len() < bytes {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&item(i));
        i += 1;
    }
    out.push_str(tail);
    out
}

/// `head`, then `unit` as often as fits, then `tail` (no separators).
fn fill(head: &str, bytes: usize, unit: &str, tail: &str) -> String {
    let mut out = String::with_capacity(bytes + 256);
    out.push_str(head);
    while out.len() + tail.len() < bytes {
        out.push_str(unit);
    }
    out.push_str(tail);
    out
}

fn distinct_header_keys(bytes: usize) -> String {
    repeat_until(
        r#"{"type":"open","stream":2,"headers":{"#,
        bytes,
        "}}",
        |i| format!(r#""k{i}":0"#),
    )
}

fn duplicate_header_keys(bytes: usize) -> String {
    repeat_until(
        r#"{"type":"open","stream":2,"headers":{"#,
        bytes,
        "}}",
        |i| format!(r#""k":{}"#, i % 10),
    )
}

fn prefixed_header_keys(bytes: usize) -> String {
    let prefix = "p".repeat(64);
    repeat_until(
        r#"{"type":"open","stream":2,"headers":{"#,
        bytes,
        "}}",
        |i| format!(r#""{prefix}{i}":0"#),
    )
}

fn escaped_header_keys(bytes: usize) -> String {
    repeat_until(
        r#"{"type":"open","stream":2,"headers":{"#,
        bytes,
        "}}",
        |i| format!(r#""\u006b\n{}":0"#, i % 1000),
    )
}

fn unknown_envelope_keys(bytes: usize) -> String {
    repeat_until(r#"{"type":"data","stream":1,"#, bytes, "}", |i| {
        format!(r#""u{i}":0"#)
    })
}

fn duplicate_envelope_keys(bytes: usize) -> String {
    repeat_until(r#"{"type":"data","stream":1,"#, bytes, "}", |_| {
        r#""payload":[0]"#.to_owned()
    })
}

fn nesting_at_the_limit(bytes: usize) -> String {
    let one = format!("{}{}", "[".repeat(127), "]".repeat(127));
    repeat_until(
        r#"{"type":"data","stream":1,"payload":["#,
        bytes,
        "]}",
        |_| one.clone(),
    )
}

fn nesting_beyond_the_limit(bytes: usize) -> String {
    let mut out = String::from(r#"{"type":"data","stream":1,"payload":"#);
    out.push_str(&"[".repeat(bytes));
    out
}

fn escapes_in_a_field(bytes: usize) -> String {
    let head = r#"{"type":"reset","stream":1,"code":1,"reason":""#;
    fill(head, bytes, r#"\n\u00e9\"\ud83d\ude80"#, "\"}")
}

fn escapes_in_the_payload(bytes: usize) -> String {
    let head = r#"{"type":"data","stream":1,"payload":""#;
    fill(head, bytes, r#"\n\u00e9\"\/\t"#, "\"}")
}

fn huge_stream_number(bytes: usize) -> String {
    format!(r#"{{"type":"data","stream":1{}.0}}"#, "0".repeat(bytes))
}

fn huge_payload_number(bytes: usize) -> String {
    format!(
        r#"{{"type":"data","stream":1,"payload":-1{}.5e-99999}}"#,
        "7".repeat(bytes)
    )
}

fn lone_surrogates(bytes: usize) -> String {
    fill(
        r#"{"type":"data","stream":1,"payload":""#,
        bytes,
        r"\ud800",
        "\"}",
    )
}

fn payload_keys(bytes: usize) -> String {
    repeat_until(
        r#"{"type":"data","stream":1,"payload":{"#,
        bytes,
        "}}",
        |i| format!(r#""k{i}":0"#),
    )
}
