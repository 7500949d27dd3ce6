//! The JSON codec against this project's own frame vectors (WSM-TST-001 kinds, WSM-CDC-004/005):
//! for every vector, `decode(wire) == frame`, `decode(encode(frame)) == frame` and
//! `parse(encode(frame)) == parse(wire)`, compared as parsed objects. Every payload-bearing vector
//! is also split at a hostile 96-byte cap.

use muxws_proto::fragment::split_frame;
use muxws_proto::*;
use serde_json::{json, Value};

/// The logical content of a frame with payload and maps parsed, so comparisons never depend on
/// key order or spacing (WSM-CDC-005). Absent and null payloads stay distinct.
fn logical(frame: &Frame) -> Value {
    let parse = |raw: &RawJson| serde_json::from_str::<Value>(raw.as_str()).unwrap();
    let map = |h: &Option<Headers>| {
        h.as_ref()
            .map(|h| serde_json::from_str::<Value>(&h.to_json()).unwrap())
    };
    json!({
        "type": frame.kind.as_str(),
        "stream": frame.stream,
        "payload": match &frame.payload {
            Payload::Absent => json!({"absent": true}),
            Payload::Json(raw) => json!({"value": parse(raw)}),
        },
        "fragment": frame.fragment,
        "more": frame.more,
        "headers": map(&frame.headers),
        "end": frame.end,
        "trailers": map(&frame.trailers),
        "code": frame.code,
        "reason": frame.reason,
        "nonce": frame.nonce,
        "last_stream": frame.last_stream,
    })
}

fn p(text: &str) -> Payload {
    Payload::json(text).unwrap()
}

fn h(text: &str) -> Option<Headers> {
    Some(Headers::from_json(text).unwrap())
}

fn on(kind: FrameType, stream: u64) -> Frame {
    Frame::on_stream(kind, stream)
}

/// (name, logical frame, hand-written wire).
fn vectors() -> Vec<(&'static str, Frame, &'static str)> {
    use FrameType::*;
    vec![
        (
            "open-unary-end",
            Frame {
                payload: p(r#"{"op":"list"}"#),
                end: true,
                ..on(Open, 1)
            },
            r#"{"type":"open","stream":1,"end":true,"payload":{"op":"list"}}"#,
        ),
        (
            "open-headers",
            Frame {
                payload: p(r#"{"op":"export"}"#),
                headers: h(r#"{"trace":"t-9","try":3}"#),
                ..on(Open, 3)
            },
            r#"{"type":"open","stream":3,"headers":{"trace":"t-9","try":3},"payload":{"op":"export"}}"#,
        ),
        (
            "open-no-payload",
            on(Open, 5),
            r#"{"type":"open","stream":5}"#,
        ),
        (
            "data-chunk",
            Frame {
                payload: p(r#"{"n":64}"#),
                ..on(Data, 7)
            },
            r#"{"type":"data","stream":7,"payload":{"n":64}}"#,
        ),
        (
            "data-headers-only",
            Frame {
                headers: h(r#"{":status":200,"content-type":"application/json"}"#),
                ..on(Data, 3)
            },
            r#"{"type":"data","stream":3,"headers":{":status":200,"content-type":"application/json"}}"#,
        ),
        (
            "data-headers-and-payload",
            Frame {
                headers: h(r#"{":status":201}"#),
                payload: p(r#"{"id":4}"#),
                ..on(Data, 3)
            },
            r#"{"type":"data","stream":3,"headers":{":status":201},"payload":{"id":4}}"#,
        ),
        (
            "data-end-trailers",
            Frame {
                payload: p(r#"{"n":2}"#),
                end: true,
                trailers: h(r#"{"sum":"ab12"}"#),
                ..on(Data, 7)
            },
            r#"{"type":"data","stream":7,"end":true,"payload":{"n":2},"trailers":{"sum":"ab12"}}"#,
        ),
        (
            "data-end-bare",
            Frame {
                end: true,
                ..on(Data, 7)
            },
            r#"{"type":"data","stream":7,"end":true}"#,
        ),
        (
            "data-null-payload",
            Frame {
                payload: Payload::null(),
                ..on(Data, 9)
            },
            r#"{"type":"data","stream":9,"payload":null}"#,
        ),
        (
            "fragmented-open-first",
            Frame {
                fragment: Some(r#"{"blob":"zz"#.into()),
                more: true,
                ..on(Open, 11)
            },
            r#"{"type":"open","stream":11,"fragment":"{\"blob\":\"zz","more":true}"#,
        ),
        (
            "fragmented-open-last",
            Frame {
                fragment: Some(r#"zz"}"#.into()),
                end: true,
                ..on(Open, 11)
            },
            r#"{"type":"open","stream":11,"end":true,"fragment":"zz\"}"}"#,
        ),
        (
            "reset-application-error",
            Frame {
                payload: p(r#"{"type":"KeyError","message":"gone"}"#),
                ..Frame::reset(13, 2, Some("raised".into()))
            },
            r#"{"type":"reset","stream":13,"code":2,"payload":{"type":"KeyError","message":"gone"},"reason":"raised"}"#,
        ),
        (
            "reset-cancelled",
            Frame::reset(15, 1, Some("tab closed".into())),
            r#"{"type":"reset","stream":15,"code":1,"reason":"tab closed"}"#,
        ),
        (
            "ping",
            Frame {
                nonce: Some("00000000000000aa".into()),
                ..Frame::new(Ping)
            },
            r#"{"type":"ping","nonce":"00000000000000aa"}"#,
        ),
        (
            "pong",
            Frame {
                nonce: Some("00000000000000aa".into()),
                ..Frame::new(Pong)
            },
            r#"{"type":"pong","nonce":"00000000000000aa"}"#,
        ),
        (
            "goaway",
            Frame::goaway(0, 9, Some("redeploy".into())),
            r#"{"type":"goaway","code":0,"last_stream":9,"reason":"redeploy"}"#,
        ),
        (
            "goaway-protocol-error-zero",
            Frame::goaway(3, 0, None),
            r#"{"type":"goaway","code":3,"last_stream":0}"#,
        ),
        (
            "payload-non-bmp",
            Frame {
                payload: p(r#"{"t":"ključ 🔑 𝔸𝔹 🚀"}"#),
                ..on(Data, 17)
            },
            r#"{"type":"data","stream":17,"payload":{"t":"ključ 🔑 𝔸𝔹 🚀"}}"#,
        ),
        (
            "payload-multibyte-escapes",
            Frame {
                payload: p(r#"{"t":"đ ć — \"q\"\n\tx"}"#),
                ..on(Data, 19)
            },
            r#"{"type":"data","stream":19,"payload":{"t":"đ ć — \"q\"\n\tx"}}"#,
        ),
        (
            "payload-list",
            Frame {
                payload: p("[3,2,1]"),
                ..on(Data, 21)
            },
            r#"{"type":"data","stream":21,"payload":[3,2,1]}"#,
        ),
        (
            "payload-string",
            Frame {
                payload: p(r#""text""#),
                ..on(Data, 23)
            },
            r#"{"type":"data","stream":23,"payload":"text"}"#,
        ),
        (
            "payload-false",
            Frame {
                payload: p("false"),
                ..on(Data, 25)
            },
            r#"{"type":"data","stream":25,"payload":false}"#,
        ),
        (
            "payload-zero",
            Frame {
                payload: p("0"),
                ..on(Data, 27)
            },
            r#"{"type":"data","stream":27,"payload":0}"#,
        ),
        (
            "payload-empty-string",
            Frame {
                payload: p(r#""""#),
                ..on(Data, 29)
            },
            r#"{"type":"data","stream":29,"payload":""}"#,
        ),
        (
            "payload-empty-object",
            Frame {
                payload: p("{}"),
                ..on(Data, 31)
            },
            r#"{"type":"data","stream":31,"payload":{}}"#,
        ),
        (
            "payload-empty-list",
            Frame {
                payload: p("[]"),
                ..on(Data, 33)
            },
            r#"{"type":"data","stream":33,"payload":[]}"#,
        ),
        (
            "payload-safe-integers",
            Frame {
                payload: p(r#"{"hi":9007199254740991,"lo":-9007199254740991}"#),
                ..on(Data, 35)
            },
            r#"{"type":"data","stream":35,"payload":{"hi":9007199254740991,"lo":-9007199254740991}}"#,
        ),
        (
            "payload-nested",
            Frame {
                payload: p(r#"{"a":[{"b":{"c":[1,[2,[3,{}]]]}},[]],"d":null}"#),
                ..on(Data, 37)
            },
            r#"{"type":"data","stream":37,"payload":{"a":[{"b":{"c":[1,[2,[3,{}]]]}},[]],"d":null}}"#,
        ),
        // The wire escapes `/` as `\/`; the decoded value has a plain `/`.
        (
            "payload-solidus-backslash",
            Frame {
                payload: p(r#"{"dir":"D:\\x\\y","url":"/api/v2/items"}"#),
                ..on(Data, 39)
            },
            r#"{"type":"data","stream":39,"payload":{"dir":"D:\\x\\y","url":"\/api\/v2\/items"}}"#,
        ),
        (
            "payload-line-separators",
            Frame {
                payload: p("{\"t\":\"one\u{2028}two\u{2029}three\"}"),
                ..on(Data, 41)
            },
            r#"{"type":"data","stream":41,"payload":{"t":"one\u2028two\u2029three"}}"#,
        ),
        (
            "open-headers-payload-end",
            Frame {
                payload: p(r#"{"op":"csv"}"#),
                headers: h(r#"{":method":"GET",":path":"/x"}"#),
                end: true,
                ..on(Open, 43)
            },
            r#"{"type":"open","stream":43,"end":true,"headers":{":method":"GET",":path":"/x"},"payload":{"op":"csv"}}"#,
        ),
        (
            "open-empty-headers",
            Frame {
                headers: h("{}"),
                ..on(Open, 45)
            },
            r#"{"type":"open","stream":45,"headers":{}}"#,
        ),
        (
            "data-end-trailers-no-payload",
            Frame {
                end: true,
                trailers: h(r#"{"rows":0}"#),
                ..on(Data, 47)
            },
            r#"{"type":"data","stream":47,"end":true,"trailers":{"rows":0}}"#,
        ),
        (
            "fragmented-data-middle",
            Frame {
                fragment: Some(r#"zz","k":"y"#.into()),
                more: true,
                ..on(Data, 49)
            },
            r#"{"type":"data","stream":49,"fragment":"zz\",\"k\":\"y","more":true}"#,
        ),
        (
            "fragmented-data-last-no-end",
            Frame {
                fragment: Some(r#"y"}"#.into()),
                ..on(Data, 51)
            },
            r#"{"type":"data","stream":51,"fragment":"y\"}"}"#,
        ),
        (
            "fragmented-open-headers-first",
            Frame {
                fragment: Some(r#"{"op":"ex"#.into()),
                more: true,
                headers: h(r#"{"trace":"x1"}"#),
                ..on(Open, 53)
            },
            r#"{"type":"open","stream":53,"fragment":"{\"op\":\"ex","headers":{"trace":"x1"},"more":true}"#,
        ),
        (
            "fragmented-data-last-trailers",
            Frame {
                fragment: Some(r#"rt"}"#.into()),
                end: true,
                trailers: h(r#"{"sum":"ff"}"#),
                ..on(Data, 55)
            },
            r#"{"type":"data","stream":55,"end":true,"fragment":"rt\"}","trailers":{"sum":"ff"}}"#,
        ),
        (
            "fragmented-reset-code-reason",
            Frame {
                fragment: Some(r#"{"type":"KeyEr"#.into()),
                more: true,
                ..Frame::reset(57, 2, Some("raised".into()))
            },
            r#"{"type":"reset","stream":57,"code":2,"fragment":"{\"type\":\"KeyEr","more":true,"reason":"raised"}"#,
        ),
        (
            "reset-protocol-error-bare",
            Frame::reset(59, 3, None),
            r#"{"type":"reset","stream":59,"code":3}"#,
        ),
        (
            "reset-refused",
            Frame::reset(61, 4, Some("busy".into())),
            r#"{"type":"reset","stream":61,"code":4,"reason":"busy"}"#,
        ),
        (
            "reset-timeout",
            Frame::reset(63, 6, Some("late".into())),
            r#"{"type":"reset","stream":63,"code":6,"reason":"late"}"#,
        ),
        (
            "reset-too-large",
            Frame::reset(65, 7, Some("big".into())),
            r#"{"type":"reset","stream":65,"code":7,"reason":"big"}"#,
        ),
        (
            "reset-internal",
            Frame::reset(67, 8, Some("bug".into())),
            r#"{"type":"reset","stream":67,"code":8,"reason":"bug"}"#,
        ),
        ("ping-no-nonce", Frame::new(Ping), r#"{"type":"ping"}"#),
        ("pong-no-nonce", Frame::new(Pong), r#"{"type":"pong"}"#),
        (
            "goaway-no-reason",
            Frame::goaway(0, 15, None),
            r#"{"type":"goaway","code":0,"last_stream":15}"#,
        ),
    ]
}

#[test]
fn every_vector_decodes_encodes_and_round_trips_as_parsed_objects() {
    for (name, frame, wire) in vectors() {
        let decoded = decode(wire).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            logical(&decoded),
            logical(&frame),
            "{name}: decode(wire) == frame"
        );
        let encoded = encode(&frame);
        let round = decode(&encoded).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(round, frame, "{name}: decode(encode(frame)) == frame");
        let ours: Value = serde_json::from_str(&encoded).unwrap();
        let theirs: Value = serde_json::from_str(wire).unwrap();
        assert_eq!(ours, theirs, "{name}: parse(encode(frame)) == parse(wire)");
    }
}

#[test]
fn the_vectors_cover_all_twelve_fields_and_all_six_types() {
    let wires: Vec<Value> = vectors()
        .iter()
        .map(|(_, _, w)| serde_json::from_str(w).unwrap())
        .collect();
    for field in muxws_proto::frame::FIELD_NAMES {
        assert!(
            wires.iter().any(|w| w.get(field).is_some()),
            "no vector carries {field}"
        );
    }
    for kind in ["open", "data", "reset", "ping", "pong", "goaway"] {
        assert!(
            wires.iter().any(|w| w["type"] == kind),
            "no vector of type {kind}"
        );
    }
    for code in [1, 2, 3, 4, 6, 7, 8] {
        assert!(
            wires
                .iter()
                .any(|w| w["type"] == "reset" && w["code"] == code),
            "no reset {code}"
        );
    }
}

#[test]
fn absent_and_null_payloads_are_different_frames() {
    let absent = decode(r#"{"type":"data","stream":1}"#).unwrap();
    let null = decode(r#"{"type":"data","stream":1,"payload":null}"#).unwrap();
    assert_eq!(absent.payload, Payload::Absent);
    assert_eq!(null.payload, Payload::null());
    assert_ne!(absent, null);
    assert_eq!(encode(&absent), r#"{"type":"data","stream":1}"#);
    assert_eq!(
        encode(&null),
        r#"{"type":"data","stream":1,"payload":null}"#
    );
}

#[test]
fn payload_text_is_carried_verbatim_and_never_re_encoded() {
    // Spacing and escapes inside a payload survive untouched in both directions (WSM-FRM-006).
    let wire = r#"{"type":"data","stream":3,"payload":{ "kind" : "\u00e9\/", "n" : 1.50 }}"#;
    let frame = decode(wire).unwrap();
    assert_eq!(
        frame.payload.as_json().unwrap().as_str(),
        r#"{ "kind" : "\u00e9\/", "n" : 1.50 }"#
    );
    assert!(encode(&frame).contains(r#"{ "kind" : "\u00e9\/", "n" : 1.50 }"#));
}

#[test]
fn headers_keep_their_order_and_integer_status() {
    let frame =
        decode(r#"{"type":"data","stream":1,"headers":{":status":204,"z":1,"a":{"y":1,"b":2}}}"#)
            .unwrap();
    let headers = frame.headers.unwrap();
    let keys: Vec<&str> = headers.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, [":status", "z", "a"]);
    assert_eq!(headers.get(":status").unwrap().as_str(), "204");
    assert_eq!(
        headers.to_json(),
        r#"{":status":204,"z":1,"a":{"y":1,"b":2}}"#
    );
}

#[test]
fn unknown_fields_are_dropped_and_never_re_emitted() {
    let frame =
        decode(r#"{"colour":"red","type":"data","stream":1,"payload":1,"x":{"y":[1]}}"#).unwrap();
    assert_eq!(
        frame,
        Frame {
            payload: Payload::json("1").unwrap(),
            ..Frame::on_stream(FrameType::Data, 1)
        }
    );
    assert_eq!(encode(&frame), r#"{"type":"data","stream":1,"payload":1}"#);
}

#[test]
fn unknown_types_decode_as_unknown() {
    let frame = decode(r#"{"type":"window_update","stream":1,"spin":"cw"}"#).unwrap();
    assert_eq!(frame.kind, FrameType::Unknown("window_update".into()));
    assert!(!frame.kind.is_stream_level());
}

#[test]
fn malformed_messages_are_decode_errors() {
    for bad in [
        "{this is not json",
        "",
        "[1,2]",
        "\"ping\"",
        "null",
        "42",
        "{}",
        r#"{"stream":1}"#,
        r#"{"type":1}"#,
        r#"{"type":null}"#,
        r#"{"type":"ping"} trailing"#,
        r#"{"type":"data","stream":"1"}"#,
        r#"{"type":"data","stream":-1}"#,
        r#"{"type":"data","stream":1.5}"#,
        r#"{"type":"data","stream":true}"#,
        r#"{"type":"data","stream":1,"more":"yes"}"#,
        r#"{"type":"data","stream":1,"more":null}"#,
        r#"{"type":"data","stream":1,"end":1}"#,
        r#"{"type":"data","stream":1,"headers":[]}"#,
        r#"{"type":"data","stream":1,"headers":"h"}"#,
        r#"{"type":"data","stream":1,"trailers":5}"#,
        r#"{"type":"reset","stream":1,"code":1.0}"#,
        r#"{"type":"reset","stream":1,"code":"2"}"#,
        r#"{"type":"reset","stream":1,"code":2,"reason":5}"#,
        r#"{"type":"ping","nonce":{}}"#,
        r#"{"type":"goaway","code":0,"last_stream":-3}"#,
        r#"{"type":"data","stream":1,"fragment":5}"#,
        r#"{"type":"data","stream":1,"payload":1,"fragment":"1"}"#,
        r#"{"type":"data","stream":1,"payload":null,"fragment":null}"#,
    ] {
        assert!(decode(bad).is_err(), "{bad:?} must not decode");
    }
}

#[test]
fn lenient_where_the_reference_is_lenient() {
    // An integral float id is accepted; `null` is accepted where the default is null.
    let frame = decode(
        r#"{"type":"data","stream":3.0,"headers":null,"reason":null,"code":null,"nonce":null}"#,
    )
    .unwrap();
    assert_eq!(frame, Frame::on_stream(FrameType::Data, 3));
    // Escaped keys are still the known keys; the last duplicate wins.
    let frame = decode(r#"{"typ\u0065":"open","type":"data","stream":5}"#).unwrap();
    assert_eq!(frame.kind, FrameType::Data);
    // Escapes `\/` and `\u2028` in strings decode.
    let frame = decode(r#"{"type":"reset","stream":1,"code":0,"reason":"a\/b\u2028"}"#).unwrap();
    assert_eq!(frame.reason.as_deref(), Some("a/b\u{2028}"));
}

#[test]
fn canonical_key_order_for_log_diffing() {
    // The one test that pins byte order (WSM-CDC-005): type, stream, then alphabetical.
    let frame = Frame {
        kind: FrameType::Data,
        stream: Some(7),
        payload: Payload::Absent,
        fragment: Some("f".into()),
        more: true,
        headers: Some(Headers::new()),
        end: true,
        trailers: Some(Headers::new()),
        code: Some(0),
        reason: Some("r".into()),
        nonce: Some("n".into()),
        last_stream: Some(1),
    };
    assert_eq!(
        encode(&frame),
        r#"{"type":"data","stream":7,"code":0,"end":true,"fragment":"f","headers":{},"last_stream":1,"more":true,"nonce":"n","reason":"r","trailers":{}}"#
    );
}

#[test]
fn non_ascii_is_not_escaped_and_controls_use_lowercase_hex() {
    let frame = Frame {
        fragment: Some("č🛰\u{1}\u{1f}\"\\/".into()),
        ..Frame::on_stream(FrameType::Data, 1)
    };
    assert_eq!(
        encode(&frame),
        r#"{"type":"data","stream":1,"fragment":"č🛰\u0001\u001f\"\\/"}"#
    );
}

#[test]
fn raw_json_and_headers_validate_their_input() {
    assert!(Payload::json("{").is_err());
    assert!(Payload::json("1 2").is_err());
    assert!(Payload::json("NaN").is_err());
    assert!(Payload::json("").is_err());
    assert!(Payload::json(" [1] ").is_ok());
    assert!(Headers::from_json("[]").is_err());
    assert!(Headers::from_json("{\"a\":}").is_err());
    let mut headers = Headers::from_json(r#"{"b":1,"a":2,"b":3}"#).unwrap();
    assert_eq!(headers.to_json(), r#"{"b":3,"a":2}"#);
    headers.insert("c", RawJson::parse("\"x\"").unwrap());
    headers.insert("a", RawJson::null());
    assert_eq!(headers.to_json(), r#"{"b":3,"a":null,"c":"x"}"#);
    assert_eq!(headers.len(), 3);
}

#[test]
fn every_payload_vector_splits_under_a_96_byte_cap_and_reassembles() {
    for (name, frame, _) in vectors() {
        let Payload::Json(payload) = &frame.payload else {
            continue;
        };
        let fragments = split_frame(&frame, 96).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut joined = String::new();
        for fragment in &fragments {
            assert!(
                encode(fragment).len() <= 96,
                "{name}: fragment over the cap"
            );
            match (&fragment.fragment, &fragment.payload) {
                (Some(text), Payload::Absent) => joined.push_str(text),
                (None, Payload::Json(raw)) => joined.push_str(raw.as_str()),
                other => panic!("{name}: {other:?}"),
            }
        }
        assert_eq!(joined, payload.as_str(), "{name}");
    }
}
