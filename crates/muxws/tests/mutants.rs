//! Tests written to kill the mutants `cargo mutants` found surviving the other suites (issue 22;
//! see `MUTANTS.md` beside `Cargo.toml` for the run, the survivors and their triage). Each test
//! names the mutant it kills; like the other suites, they assert outcomes of the public API.
//! (One more, `fragments_adding_up_to_exactly_max_payload_bytes_are_handed_out`, sits in
//! `payload_flow.rs` beside the `max_payload_bytes` test whose helpers it uses.)

mod common;

use common::*;
use muxws_proto::*;
use serde_json::json;

/// `connection/mod.rs`: `Connection::goaway_received` replaced with `None`. The getter reports the
/// `last_stream` of a received goaway, the lowest one when several arrive (WSM-CON-022).
#[test]
fn goaway_received_reports_the_lowest_announced_last_stream() {
    let mut h = Harness::default_connected();
    let conn = |h: &Harness| h.peer.connection().expect("a connection").goaway_received();
    assert_eq!(conn(&h), None);
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": 5}));
    assert_eq!(conn(&h), Some(5));
    // A later goaway may only lower it.
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": 9}));
    assert_eq!(conn(&h), Some(5));
    h.recv(json!({"type": "goaway", "code": 0, "last_stream": 1}));
    assert_eq!(conn(&h), Some(1));
    // No `last_stream`: 0.
    h.recv(json!({"type": "goaway", "code": 0}));
    assert_eq!(conn(&h), Some(0));
    assert!(!h.peer.connection().unwrap().goaway_sent());
}

/// `frame.rs`: `Headers::is_empty` replaced with `false` (WSM-API-025).
#[test]
fn headers_is_empty_tells_an_empty_map() {
    assert!(Headers::new().is_empty());
    assert!(Headers::default().is_empty());
    assert!(Headers::from_json("{}").unwrap().is_empty());
    assert!(Headers::from_json(" { } ").unwrap().is_empty());
    let one = Headers::new().with("a", RawJson::null());
    assert!(!one.is_empty());
    assert_eq!(one.len(), 1);
    assert!(!Headers::from_json(r#"{"a":1,"a":2}"#).unwrap().is_empty());
}

/// `fragment.rs`: `bare_len(frame) + 11 + window.len()` → `bare_len(frame) + 11 * window.len()`
/// in `check_sendable_source`. A frame whose envelope leaves no room for a fragment is still
/// sendable from a source when the whole frame fits the cap, and exactly then (WSM-FRG-004/034).
#[test]
fn a_pulled_payload_whose_whole_frame_fits_exactly_is_sendable() {
    let headers = Headers::new().with("k".repeat(60), RawJson::parse("1").unwrap());
    let payload = r#""ab""#;
    let frame = Frame {
        headers: Some(headers.clone()),
        payload: Payload::json(payload).unwrap(),
        end: true,
        ..Frame::on_stream(FrameType::Open, 1)
    };
    let whole = encode(&frame);
    let cap = whole.len();
    assert!(cap >= MIN_FRAME_BYTES);
    let source = |text: &str| TextSource::new(text.to_owned());
    // At exactly its length the whole frame fits...
    assert_eq!(check_sendable(&frame, cap), Ok(()));
    assert_eq!(
        check_sendable_source(&frame, &mut source(payload), cap),
        Ok(())
    );
    // ...though no fragment of it would: a longer payload cannot be cut under this cap...
    let long = r#""abcdefghijklmnopqrstuvwxyz""#;
    assert_eq!(
        check_sendable_source(&frame, &mut source(long), cap),
        Err(FragmentError::Floor { cap })
    );
    // ...and one byte less does not hold the short one either.
    assert_eq!(
        check_sendable_source(&frame, &mut source(payload), cap - 1),
        Err(FragmentError::Floor { cap: cap - 1 })
    );
    // Through a connection: accepted, and sent whole.
    let cfg = ConnectionConfig {
        max_frame_bytes: cap,
        ping_interval_ms: 0,
        ..ConnectionConfig::default()
    };
    let mut conn = Connection::new(cfg, 0).unwrap();
    let id = conn
        .open_with_source(Some(headers), Box::new(source(payload)), true, 0)
        .unwrap();
    assert_eq!(id, 1);
    assert_eq!(conn.poll_transmit(0), Some(whole));
    assert_eq!(conn.poll_transmit(0), None);
}
