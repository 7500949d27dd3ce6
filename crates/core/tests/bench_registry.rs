//! Figures for the registry with 10 000 pending calls. Ignored by default; run with
//! `cargo test -p viewsets-core --release -- --ignored --nocapture`. Prints, never asserts on time.

use std::time::Instant;

use viewsets_core::{Action, AttemptEnd, CallEngine, CallSpec, Transport};

const CALLS: usize = 10_000;

#[test]
#[ignore]
fn bench_pending_registry_with_10000_calls() {
    let mut engine = CallEngine::new();
    let now = 0u64;
    let started = Instant::now();
    for i in 0..CALLS {
        let transport = if i % 2 == 0 {
            Transport::Rest
        } else {
            Transport::Muxws { peer: 1 }
        };
        let mut spec = CallSpec::new(transport);
        spec.background = i % 10 == 0;
        engine.issue(spec, now);
    }
    while engine.poll_action().is_some() {}
    let issue_time = started.elapsed();
    // A third of the calls wait for a repeat.
    for call in (1..=CALLS as u64).step_by(3) {
        engine.attempt_ended(call, 1, AttemptEnd::NetworkError, now + 1);
    }
    while engine.poll_action().is_some() {}

    const COUNT_ROUNDS: u32 = 1_000_000;
    let started = Instant::now();
    let mut total = 0usize;
    for _ in 0..COUNT_ROUNDS {
        total = total.wrapping_add(std::hint::black_box(&engine).pending_call_count());
    }
    let per_count = started.elapsed() / COUNT_ROUNDS;

    const LIST_ROUNDS: u32 = 50;
    let started = Instant::now();
    let mut listed = 0usize;
    for _ in 0..LIST_ROUNDS {
        listed += std::hint::black_box(&engine).pending_calls().count();
    }
    let per_list = started.elapsed() / LIST_ROUNDS;

    const TIMEOUT_ROUNDS: u32 = 1_000_000;
    let started = Instant::now();
    let mut due = 0u64;
    for _ in 0..TIMEOUT_ROUNDS {
        due = due.wrapping_add(std::hint::black_box(&engine).poll_timeout().unwrap_or(0));
    }
    let per_timeout = started.elapsed() / TIMEOUT_ROUNDS;

    println!("calls issued:            {CALLS} in {issue_time:?}");
    println!(
        "pending_call_count():    {} (background left out), {per_count:?} per call [O(1)]",
        engine.pending_call_count()
    );
    println!(
        "pending_calls():         {} entries, {per_list:?} per call [linear]",
        listed / LIST_ROUNDS as usize
    );
    println!(
        "poll_timeout():          {per_timeout:?} per call; {} timers",
        engine.scheduled_timers()
    );
    println!("(checksums {total} {due})");

    // Settling every call, in a scattered order (a stride through the ids), then what is left.
    const STRIDE: u64 = 7_919; // prime, coprime with CALLS: every id once
    let started = Instant::now();
    let mut id = 0u64;
    for _ in 0..CALLS {
        id = (id + STRIDE) % CALLS as u64;
        engine.cancel(id + 1, now + 2);
    }
    let settle_time = started.elapsed();
    let mut settled = 0usize;
    while let Some(action) = engine.poll_action() {
        settled += usize::from(matches!(action, Action::Settle { .. }));
    }
    println!(
        "cancel() x {CALLS}:         {settle_time:?} in scattered order ({settled} settled); \
         left: {} calls, {} timers",
        engine.live_calls(),
        engine.scheduled_timers()
    );
    assert_eq!(settled, CALLS);
    assert_eq!(engine.live_calls(), 0);
    assert_eq!(engine.scheduled_timers(), 0);
    assert_eq!(engine.poll_timeout(), None);
}
