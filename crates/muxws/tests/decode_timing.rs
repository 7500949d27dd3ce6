//! Decoding time against message size, per hostile shape (issue 12).
//!
//! - `decode_time_table` (ignored; run it in release):
//!   `cargo test -p muxws-proto --release --test decode_timing -- --ignored --nocapture`
//!   prints 1 KiB vs 1 MiB decode times per shape as a markdown table; linear decoding shows a
//!   ratio near 1 000 (fixed costs make small messages relatively dearer, so a bit below), a
//!   quadratic one near 10⁶.
//! - `decoding_time_grows_linearly` (ignored; a timing, so it needs a quiet machine):
//!   `cargo test -p muxws-proto --test decode_timing -- --ignored`: 16× the bytes must cost at most
//!   64× the time (the best of several runs of each), where a quadratic decoder takes ~256×. It ran
//!   by default until a fresh clone's suite, beside other builds on the same 2 cores (load ~13),
//!   measured ×110 for "many keys in the payload", whose release table shows 846× for 1 024× the
//!   bytes: the load, not the decoder. The suite's check is the exact, load-free work counter of
//!   `src/tests/linearity.rs`, over the same shapes.

#[path = "support/shapes.rs"]
mod shapes;

use std::hint::black_box;
use std::time::{Duration, Instant};

use muxws_proto::decode;

/// The best of `runs` timings of `reps` decodes, per decode.
fn best(text: &str, runs: usize, reps: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                black_box(decode(black_box(text)).is_ok());
            }
            start.elapsed() / reps as u32
        })
        .min()
        .unwrap()
}

#[test]
#[ignore = "a timing: run it on a quiet machine with -- --ignored (the suite's check is src/tests/linearity.rs)"]
fn decoding_time_grows_linearly() {
    const SMALL: usize = 32 * 1024;
    const LARGE: usize = 16 * SMALL;
    for (name, shape) in shapes::SHAPES {
        let (small, large) = (shape(SMALL), shape(LARGE));
        let t_small = best(&small, 7, 8);
        let t_large = best(&large, 5, 1);
        let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-9);
        assert!(
            ratio <= 64.0,
            "{name}: {t_small:?} -> {t_large:?} (×{ratio:.0}) for ×16 the bytes"
        );
    }
}

#[test]
#[ignore = "a release-mode measurement: --release -- --ignored --nocapture"]
fn decode_time_table() {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    println!();
    println!("| shape | 1 KiB | 1 MiB | ratio |");
    println!("|---|---:|---:|---:|");
    for (name, shape) in shapes::SHAPES {
        let (small, large) = (shape(KIB), shape(MIB));
        let t_small = best(&small, 9, 2_000);
        let t_large = best(&large, 7, 2);
        let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
        println!(
            "| {name} | {:.2} µs | {:.2} ms | {ratio:.0}× |",
            t_small.as_secs_f64() * 1e6,
            t_large.as_secs_f64() * 1e3
        );
        assert!(ratio < 5_000.0, "{name}: ×{ratio:.0}");
    }
}
