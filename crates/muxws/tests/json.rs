//! The hand-written JSON scanner against `serde_json` (WSM-CDC-004/005, WSM-FRM-001…006):
//!
//! - [`RawJson::parse`] accepts exactly the texts `serde_json` accepts as one JSON value, on
//!   generated JSON and JSON-ish input;
//! - [`decode`] and [`Headers::from_json`] give exactly the results of the previous serde-based
//!   codec (kept below as `reference`) on generated envelopes, errors included;
//! - the documented differences are pinned: nesting deeper than 128 levels is refused (serde_json
//!   accepted any depth inside raw values), and integral floats in ids are judged by their exact
//!   value rather than after rounding to `f64`;
//! - nothing panics or overflows the stack on any input.

use muxws_proto::*;
use proptest::prelude::*;
use proptest::sample::select;
use serde::de::IgnoredAny;

/// The serde-based codec this crate used before the scanner, as it was (errors reduced to `()`).
mod reference {
    use std::fmt;

    use muxws_proto::{Frame, FrameType, Headers, Payload, RawJson};
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use serde_json::value::RawValue;

    const FIELD_NAMES: [&str; 12] = [
        "type",
        "stream",
        "payload",
        "fragment",
        "more",
        "headers",
        "end",
        "trailers",
        "code",
        "reason",
        "nonce",
        "last_stream",
    ];

    struct RawEnvelope<'a>([Option<&'a RawValue>; 12]);

    impl<'de> Deserialize<'de> for RawEnvelope<'de> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct EnvelopeVisitor;
            impl<'de> Visitor<'de> for EnvelopeVisitor {
                type Value = RawEnvelope<'de>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut fields: [Option<&'de RawValue>; 12] = [None; 12];
                    while let Some(key) = map.next_key::<String>()? {
                        let value: &'de RawValue = map.next_value()?;
                        if let Some(index) = FIELD_NAMES.iter().position(|name| *name == key) {
                            fields[index] = Some(value);
                        }
                    }
                    Ok(RawEnvelope(fields))
                }
            }
            deserializer.deserialize_map(EnvelopeVisitor)
        }
    }

    struct SerdeHeaders(Headers);

    impl<'de> Deserialize<'de> for SerdeHeaders {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct HeadersVisitor;
            impl<'de> Visitor<'de> for HeadersVisitor {
                type Value = SerdeHeaders;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut headers = Headers::new();
                    while let Some(key) = map.next_key::<String>()? {
                        let value: Box<RawValue> = map.next_value()?;
                        headers.insert(key, RawJson::parse(value.get()).expect("valid"));
                    }
                    Ok(SerdeHeaders(headers))
                }
            }
            deserializer.deserialize_map(HeadersVisitor)
        }
    }

    pub fn headers(text: &str) -> Result<Headers, ()> {
        serde_json::from_str::<SerdeHeaders>(text)
            .map(|h| h.0)
            .map_err(drop)
    }

    fn present(raw: Option<&RawValue>) -> Option<&str> {
        raw.map(RawValue::get).filter(|raw| *raw != "null")
    }

    fn field_string(raw: Option<&RawValue>) -> Result<Option<String>, ()> {
        match present(raw) {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<String>(raw).map(Some).map_err(drop),
        }
    }

    fn field_bool(raw: Option<&RawValue>) -> Result<bool, ()> {
        match raw {
            None => Ok(false),
            Some(raw) => serde_json::from_str::<bool>(raw.get()).map_err(drop),
        }
    }

    fn field_id(raw: Option<&RawValue>) -> Result<Option<u64>, ()> {
        let Some(raw) = present(raw) else {
            return Ok(None);
        };
        let number = serde_json::from_str::<serde_json::Number>(raw).map_err(drop)?;
        if let Some(value) = number.as_u64() {
            return Ok(Some(value));
        }
        match number.as_f64() {
            Some(value)
                if value >= 0.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 =>
            {
                Ok(Some(value as u64))
            }
            _ => Err(()),
        }
    }

    fn field_int(raw: Option<&RawValue>) -> Result<Option<i64>, ()> {
        match present(raw) {
            None => Ok(None),
            Some(raw) => serde_json::from_str::<i64>(raw).map(Some).map_err(drop),
        }
    }

    fn field_map(raw: Option<&RawValue>) -> Result<Option<Headers>, ()> {
        match present(raw) {
            None => Ok(None),
            Some(raw) => headers(raw).map(Some),
        }
    }

    pub fn decode(text: &str) -> Result<Frame, ()> {
        let envelope: RawEnvelope<'_> = serde_json::from_str(text).map_err(drop)?;
        let f = &envelope.0;
        let kind = serde_json::from_str::<String>(f[0].ok_or(())?.get()).map_err(drop)?;
        if f[2].is_some() && f[3].is_some() {
            return Err(());
        }
        Ok(Frame {
            kind: FrameType::from_name(&kind),
            stream: field_id(f[1])?,
            payload: match f[2] {
                None => Payload::Absent,
                Some(raw) => Payload::json(raw.get()).expect("valid"),
            },
            fragment: field_string(f[3])?,
            more: field_bool(f[4])?,
            headers: field_map(f[5])?,
            end: field_bool(f[6])?,
            trailers: field_map(f[7])?,
            code: field_int(f[8])?,
            reason: field_string(f[9])?,
            nonce: field_string(f[10])?,
            last_stream: field_id(f[11])?,
        })
    }
}

fn serde_accepts(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

fn ws() -> impl Strategy<Value = &'static str> {
    select(vec!["", "", "", " ", "\n\t ", "\r\n"])
}

fn string_literal() -> impl Strategy<Value = String> {
    let piece = select(vec![
        "a",
        "type",
        "é",
        "🛰",
        "\u{7f}",
        " ",
        "\\\"",
        "\\\\",
        "\\/",
        "\\b",
        "\\f",
        "\\n",
        "\\r",
        "\\t",
        "\\u0041",
        "\\u00E9",
        "\\u2028",
        "\\ud83d\\ude80",
        "\\uD83D\\uDE80",
        "\\ud800",
        "\\udc00",
        "\\ud800\\u0041",
        "\\ud800\\ud800",
    ]);
    prop::collection::vec(piece, 0..4).prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

/// Numbers in every JSON spelling. Large magnitudes come in integer syntax only: with a fraction
/// or an exponent, serde_json's float conversion is not exact there (see
/// `integral_floats_are_judged_by_their_exact_value`).
fn number() -> impl Strategy<Value = String> {
    let sign = || select(vec!["", "", "-"]);
    let plain = (
        sign(),
        select(vec![
            "9007199254740991",
            "9007199254740992",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
        ]),
    )
        .prop_map(|(sign, int)| format!("{sign}{int}"));
    let spelled = (
        sign(),
        select(vec!["0", "1", "3", "42", "100", "1000", "123456789"]),
        select(vec!["", "", "", ".0", ".5", ".000", ".25"]),
        select(vec!["", "", "", "e0", "E+2", "e-3", "e-2", "E1", "e400"]),
    )
        .prop_map(|(sign, int, frac, exp)| format!("{sign}{int}{frac}{exp}"));
    prop_oneof![1 => plain, 3 => spelled]
}

fn value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        string_literal(),
        number(),
        select(vec!["true", "false", "null"]).prop_map(str::to_owned),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone(), ws()), 0..4).prop_map(|items| {
                let items: Vec<String> = items
                    .into_iter()
                    .map(|(a, v, b)| format!("{a}{v}{b}"))
                    .collect();
                format!("[{}]", items.join(","))
            }),
            prop::collection::vec((ws(), string_literal(), ws(), inner, ws()), 0..4).prop_map(
                |members| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(a, k, b, v, c)| format!("{a}{k}{b}:{v}{c}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }
            ),
        ]
    })
}

/// Fragments that break or bend JSON when spliced in anywhere.
fn token() -> impl Strategy<Value = &'static str> {
    select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "\\u",
        "\\ud800",
        "d800",
        "0",
        "1",
        "-",
        ".",
        "e",
        "E",
        "+",
        "01",
        "1.",
        ".1",
        "-0",
        "1e5",
        "true",
        "false",
        "null",
        "nul",
        "tru",
        " ",
        "\t",
        "\n",
        "\r",
        "\u{0}",
        "\u{1}",
        "\u{1f}",
        "\u{7f}",
        "é",
        "🛰",
        "/",
        "\\/",
        "\\n",
        "\\x",
        "x",
        "\u{a0}",
        "\u{feff}",
        "NaN",
        "Infinity",
        "'",
        "//",
        "/*",
        "\"a\"",
        "\"\u{1}\"",
    ])
}

/// `text` with a few tokens spliced in and/or a few characters cut out.
fn mutated(base: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (
        base,
        prop::collection::vec((any::<prop::sample::Index>(), token()), 0..3),
        prop::collection::vec(any::<prop::sample::Index>(), 0..2),
    )
        .prop_map(|(text, inserts, cuts)| {
            let mut chars: Vec<char> = text.chars().collect();
            for (at, token) in inserts {
                let at = at.index(chars.len() + 1);
                chars.splice(at..at, token.chars());
            }
            for at in cuts {
                if !chars.is_empty() {
                    chars.remove(at.index(chars.len()));
                }
            }
            chars.into_iter().collect()
        })
}

/// Envelope-shaped texts: known keys (also escaped and duplicated), unknown keys, plausible and
/// wrong-typed values.
fn envelope_text() -> impl Strategy<Value = String> {
    let key = select(vec![
        "\"type\"",
        "\"stream\"",
        "\"payload\"",
        "\"fragment\"",
        "\"more\"",
        "\"headers\"",
        "\"end\"",
        "\"trailers\"",
        "\"code\"",
        "\"reason\"",
        "\"nonce\"",
        "\"last_stream\"",
        "\"typ\\u0065\"",
        "\"\\u0073tream\"",
        "\"colour\"",
        "\"\\ud800\"",
        "\"\\ud83d\\ude80\"",
    ]);
    let field_value = prop_oneof![
        3 => select(vec![
            "\"data\"", "\"open\"", "\"reset\"", "\"ping\"", "\"pong\"", "\"goaway\"", "\"x\"",
            "true", "false", "null", "{}", "{\"a\":1,\"b\":[2],\"a\":3}", "{\":status\":200}",
        ])
        .prop_map(str::to_owned),
        2 => number(),
        2 => value(),
    ];
    let any_member = (key, field_value).prop_map(|(k, v)| format!("{k}:{v}"));
    // Values of the right type for their key, so that many envelopes decode.
    let plausible = prop_oneof![
        number().prop_map(|n| format!("\"stream\":{n}")),
        number().prop_map(|n| format!("\"last_stream\":{n}")),
        number().prop_map(|n| format!("\"code\":{n}")),
        value().prop_map(|v| format!("\"payload\":{v}")),
        string_literal().prop_map(|v| format!("\"fragment\":{v}")),
        string_literal().prop_map(|v| format!("\"reason\":{v}")),
        string_literal().prop_map(|v| format!("\"nonce\":{v}")),
        string_literal().prop_map(|v| format!("\"type\":{v}")),
        select(vec!["true", "false"]).prop_map(|v| format!("\"more\":{v}")),
        select(vec!["true", "false"]).prop_map(|v| format!("\"end\":{v}")),
        value().prop_map(|v| format!("\"headers\":{{\"h\":{v}}}")),
        value().prop_map(|v| format!("\"trailers\":{{\"t\":{v},\"t\":1}}")),
        value().prop_map(|v| format!("\"x\":{v}")),
    ];
    let member = prop_oneof![1 => any_member, 3 => plausible];
    (
        ws(),
        prop::collection::vec((ws(), member, ws()), 0..6),
        ws(),
    )
        .prop_map(|(a, members, b)| {
            let members: Vec<String> = members
                .into_iter()
                .map(|(w1, m, w2)| format!("{w1}{m}{w2}"))
                .collect();
            format!("{a}{{\"type\":\"data\",{}}}{b}", members.join(","))
        })
}

fn same_outcome(text: &str) -> Result<(), TestCaseError> {
    let ours = decode(text);
    let theirs = reference::decode(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", text),
        (Err(_), Err(())) => {}
        _ => prop_assert!(false, "{text}: ours {ours:?}, reference {theirs:?}"),
    }
    let ours = Headers::from_json(text).ok();
    let theirs = reference::headers(text).ok();
    prop_assert_eq!(ours, theirs, "{}", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn accepts_exactly_what_serde_json_accepts_on_generated_json(text in value()) {
        prop_assert_eq!(RawJson::parse(text.as_str()).is_ok(), serde_accepts(&text), "{}", text);
        prop_assert!(RawJson::parse(text.as_str()).is_ok(), "{}", text);
    }

    #[test]
    fn accepts_exactly_what_serde_json_accepts_on_mutated_json(text in mutated(value())) {
        prop_assert_eq!(RawJson::parse(text.as_str()).is_ok(), serde_accepts(&text), "{}", text);
    }

    #[test]
    fn accepts_exactly_what_serde_json_accepts_on_token_soup(
        tokens in prop::collection::vec(token(), 0..16)
    ) {
        let text = tokens.concat();
        prop_assert_eq!(RawJson::parse(text.as_str()).is_ok(), serde_accepts(&text), "{}", text);
    }

    #[test]
    fn decodes_envelopes_exactly_as_the_serde_codec_did(text in envelope_text()) {
        same_outcome(&text)?;
    }

    #[test]
    fn decodes_mutated_envelopes_exactly_as_the_serde_codec_did(text in mutated(envelope_text())) {
        same_outcome(&text)?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        let _ = RawJson::parse(text.as_str());
        let _ = Headers::from_json(&text);
        let _ = decode(&text);
        let _ = Payload::json(text);
    }
}

fn nested(levels: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn values_nest_at_most_128_levels() {
    // 128 levels anywhere a value is carried; the envelope's own object does not count.
    let ok = nested(128, "1");
    let deep = nested(129, "1");
    assert!(RawJson::parse(ok.as_str()).is_ok());
    assert!(RawJson::parse(deep.as_str()).is_err());
    let frame = decode(&format!(r#"{{"type":"data","stream":1,"payload":{ok}}}"#)).unwrap();
    assert_eq!(frame.payload.as_json().unwrap().as_str(), ok);
    assert!(decode(&format!(r#"{{"type":"data","stream":1,"payload":{deep}}}"#)).is_err());
    assert!(Headers::from_json(&format!(r#"{{"h":{ok}}}"#)).is_ok());
    assert!(Headers::from_json(&format!(r#"{{"h":{deep}}}"#)).is_err());
    // Unknown fields are still scanned, and held to the same bound.
    assert!(decode(&format!(r#"{{"type":"ping","x":{deep}}}"#)).is_err());
}

#[test]
fn hostile_nesting_is_an_error_not_a_stack_overflow() {
    for text in [
        "[".repeat(1_000_000),
        "{\"a\":".repeat(300_000),
        format!(
            "{{\"type\":\"data\",\"payload\":{}",
            "[{\"k\":".repeat(200_000)
        ),
        nested(100_000, ""),
    ] {
        assert!(RawJson::parse(text.as_str()).is_err());
        assert!(decode(&text).is_err());
        assert!(Headers::from_json(&text).is_err());
    }
}

#[test]
fn lone_surrogates_are_valid_json_but_not_strings() {
    // `JSON.parse` accepts a lone surrogate escape, so a payload may carry one...
    let frame = decode(r#"{"type":"data","stream":1,"payload":"\ud800"}"#).unwrap();
    assert_eq!(frame.payload, Payload::json(r#""\ud800""#).unwrap());
    assert!(Headers::from_json(r#"{"h":"\udc00x"}"#).is_ok());
    // ...but a key or a string field must become a Rust string.
    for bad in [
        r#"{"type":"data","stream":1,"\ud800":1}"#,
        r#"{"type":"data","stream":1,"reason":"\ud800"}"#,
        r#"{"type":"d\udc00ata","stream":1}"#,
        r#"{"type":"data","stream":1,"headers":{"\ud800":1}}"#,
    ] {
        assert!(decode(bad).is_err(), "{bad}");
        assert!(reference::decode(bad).is_err(), "{bad}");
    }
    let frame = decode(r#"{"type":"data","stream":1,"reason":"\ud83d\ude80\u00e9"}"#).unwrap();
    assert_eq!(frame.reason.as_deref(), Some("🚀é"));
}

#[test]
fn ids_and_codes() {
    let stream = |n: &str| decode(&format!(r#"{{"type":"data","stream":{n}}}"#)).map(|f| f.stream);
    let code =
        |n: &str| decode(&format!(r#"{{"type":"reset","stream":1,"code":{n}}}"#)).map(|f| f.code);
    for (text, id) in [
        ("0", 0),
        ("-0", 0),
        ("-0.0", 0),
        ("7", 7),
        ("7.0", 7),
        ("7e0", 7),
        ("70e-1", 7),
        ("0.7e1", 7),
        ("7.000000000000000000000000000", 7),
        ("9007199254740991.0", 9_007_199_254_740_991),
        ("18446744073709551615", u64::MAX),
    ] {
        assert_eq!(stream(text), Ok(Some(id)), "{text}");
    }
    for text in [
        "-1",
        "1.5",
        "1e-1",
        "9007199254740992.0",
        "18446744073709551616",
        "1e400",
        "\"1\"",
        "true",
        "[1]",
    ] {
        assert!(stream(text).is_err(), "{text}");
    }
    for (text, value) in [
        ("0", 0),
        ("2", 2),
        ("-3", -3),
        ("9223372036854775807", i64::MAX),
        ("-9223372036854775808", i64::MIN),
    ] {
        assert_eq!(code(text), Ok(Some(value)), "{text}");
    }
    // `code` takes integer syntax only, as before (`-0` included, which serde_json read as a float).
    for text in [
        "1.0",
        "1e0",
        "-0",
        "9223372036854775808",
        "-9223372036854775809",
        "2.5",
    ] {
        assert!(code(text).is_err(), "{text}");
        let text = format!(r#"{{"type":"reset","stream":1,"code":{text}}}"#);
        assert!(reference::decode(&text).is_err());
    }
}

#[test]
fn integral_floats_are_judged_by_their_exact_value() {
    // The one deliberate change for ids: serde_json (without `float_roundtrip`) read
    // 9007199254740991.0 as 9007199254740990, and took 1.0000000000000000001 for 1.0.
    let text = r#"{"type":"data","stream":9007199254740991.0}"#;
    assert_eq!(
        reference::decode(text).unwrap().stream,
        Some(9_007_199_254_740_990)
    );
    assert_eq!(decode(text).unwrap().stream, Some(9_007_199_254_740_991));
    let text = r#"{"type":"data","stream":1.0000000000000000001}"#;
    assert_eq!(reference::decode(text).unwrap().stream, Some(1));
    assert!(decode(text).is_err());
}

#[test]
fn error_messages_say_where() {
    let e = RawJson::parse("[1,]").unwrap_err();
    assert_eq!(e.to_string(), "not a JSON value (at byte 3)");
    let e = decode("[1]").unwrap_err();
    assert!(e.0.starts_with("the message is not a JSON object"), "{e}");
    let e = decode(r#"{"type":"data","stream":}"#).unwrap_err();
    assert!(
        e.0.contains("could not decode") && e.0.contains("byte 24"),
        "{e}"
    );
    let e = decode(r#"{"type":"data","stream":"x"}"#).unwrap_err();
    assert_eq!(
        e.0,
        "envelope field `stream` must be a non-negative integer, got \"x\" (WSM-FRM-005)"
    );
}
