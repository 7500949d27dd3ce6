//! The decoder's cost is linear in the message's size for every shape of input: a deterministic
//! count of the decoder's work (every loop of `json.rs` and of the duplicate-key pass ticks it;
//! the counter exists only in this crate's unit tests) for messages of n and 16·n bytes.
//! A quadratic pass — such as the key-by-key search of the map built so far that header maps
//! used before — multiplies the count by ~256 there; a linear one by ~16 (the one sort of the
//! duplicate-key pass adds a log factor, well inside the bound).

#[path = "../../tests/support/shapes.rs"]
mod shapes;

use crate::connection::{Connection, ConnectionConfig};
use crate::frame::{decode, Headers};
use crate::json::work;

const SMALL: usize = 16 * 1024;
const LARGE: usize = 16 * SMALL;

fn work_of(f: impl FnOnce()) -> u64 {
    work::take();
    f();
    work::take()
}

#[test]
fn decoding_work_grows_linearly_for_every_shape() {
    for (name, shape) in shapes::SHAPES {
        let (small, large) = (shape(SMALL), shape(LARGE));
        let w_small = work_of(|| drop(decode(&small)));
        let w_large = work_of(|| drop(decode(&large)));
        let ratio = w_large as f64 / w_small.max(1) as f64;
        let size_ratio = large.len() as f64 / small.len() as f64;
        assert!(
            ratio <= 2.0 * size_ratio,
            "{name}: work {w_small} -> {w_large} (×{ratio:.1}) for ×{size_ratio:.1} the bytes"
        );
        // And a small constant per byte.
        assert!(
            w_large <= 40 * large.len() as u64,
            "{name}: {w_large} units for {} bytes",
            large.len()
        );
    }
}

#[test]
fn header_maps_cost_linear_work_whatever_their_keys() {
    for (name, shape) in shapes::SHAPES
        .iter()
        .filter(|(name, _)| name.contains("header"))
    {
        let small = shape(SMALL);
        let large = shape(LARGE);
        let map =
            |text: &str| text[text.find(r#""headers":"#).unwrap() + 10..text.len() - 1].to_owned();
        let (small, large) = (map(&small), map(&large));
        let w_small = work_of(|| drop(Headers::from_json(&small).unwrap()));
        let w_large = work_of(|| drop(Headers::from_json(&large).unwrap()));
        assert!(
            w_large as f64 <= 2.0 * 16.0 * w_small as f64,
            "{name}: {w_small} -> {w_large}"
        );
    }
}

#[test]
fn the_connection_reads_at_most_the_cap_of_an_over_cap_message() {
    let cfg = ConnectionConfig::default();
    let mut conn = Connection::new(cfg, 0).unwrap();
    let id = conn
        .open(None, crate::frame::Payload::null(), true, 0)
        .unwrap();
    let _ = conn.poll_transmit(0);
    let mut units = Vec::new();
    for megabytes in [1usize, 4] {
        let text = format!(
            r#"{{"type":"data","stream":{id},"payload":"{}"}}"#,
            "x".repeat(megabytes << 20)
        );
        units.push(work_of(|| conn.receive(&text, 0)));
    }
    // The same bounded read of the head, however big the message.
    assert_eq!(units[0], units[1]);
    assert!(
        units[0] <= 10 * crate::fragment::MAX_FRAME_BYTES as u64,
        "{units:?}"
    );
}
