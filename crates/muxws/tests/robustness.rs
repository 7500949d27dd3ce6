//! The read loop must be unkillable (pitfall 4): whatever arrives, the peer never panics, and every
//! outcome is an ordinary event, frame or close.

mod common;

use common::*;
use muxws_proto::*;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn field_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..12).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        (0.0f64..10.0).prop_map(|f| json!(f)),
        "[a-z\"\\\\{}:,]{0,8}".prop_map(Value::String),
        Just(json!("{\"a\":")),
        Just(json!("1]")),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z:]{1,4}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Envelope-shaped objects: mostly known keys with plausible or wrong-typed values.
fn envelope() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        Just(json!("open")),
        Just(json!("data")),
        Just(json!("reset")),
        Just(json!("ping")),
        Just(json!("pong")),
        Just(json!("goaway")),
        Just(json!("widget")),
        Just(json!(7)),
    ];
    let key = prop_oneof![
        Just("stream"),
        Just("payload"),
        Just("fragment"),
        Just("more"),
        Just("headers"),
        Just("end"),
        Just("trailers"),
        Just("code"),
        Just("reason"),
        Just("nonce"),
        Just("last_stream"),
        Just("colour"),
    ];
    let stream = prop_oneof![(0u64..8).prop_map(|n| json!(n)), field_value()];
    (
        kind,
        stream,
        prop::collection::vec((key, field_value()), 0..5),
    )
        .prop_map(|(kind, stream, fields)| {
            let mut object = Map::new();
            object.insert("type".into(), kind);
            object.insert("stream".into(), stream);
            for (k, v) in fields {
                object.insert(k.to_owned(), v);
            }
            Value::Object(object)
        })
}

fn busy_peer(cap: usize) -> Harness {
    let mut options = quiet_options();
    options.connection.max_frame_bytes = cap;
    options.connection.max_payload_bytes = 64;
    let mut h = Harness::connected(options);
    h.open(json!({"a": 1}), false);
    h.open(json!({"b": 2}), true);
    h.recv(json!({"type": "open", "stream": 2, "payload": 1}));
    h
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(messages in prop::collection::vec(any::<String>(), 1..8)) {
        let mut h = busy_peer(MAX_FRAME_BYTES);
        for message in &messages {
            h.recv_raw(message);
        }
        h.advance(100_000);
    }

    #[test]
    fn arbitrary_envelopes_never_panic(frames in prop::collection::vec(envelope(), 1..12), cap in 64usize..200) {
        let mut h = busy_peer(cap);
        for frame in frames {
            h.recv(frame);
        }
        h.advance(60_000);
        // Whatever happened, the peer is in a coherent state and still drivable.
        prop_assert!(h.peer.is_open() || !h.closes().is_empty() || h.peer.socket().is_none());
        let _ = h.peer.open(None, Payload::null(), true, h.now);
        h.flush();
    }

    #[test]
    fn arbitrary_json_values_never_panic(value in field_value()) {
        let mut h = busy_peer(MAX_FRAME_BYTES);
        h.recv(value);
    }
}
