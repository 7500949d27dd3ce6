//! The calls module of `@dynamicforms/fastapi-viewsets`: the page's one [`CallEngine`] (keys,
//! repeats, deadlines, activity) exported to the TS runtime as `extern "C"` functions of numbers;
//! strings cross through a text window of ASCII bytes (docs/boundary.md). Bodies, headers,
//! responses, errors and listeners never enter it.
//!
//! Every export takes the engine for the length of the call only and never calls JavaScript, so no
//! JavaScript exception can pass through it and no state is ever left borrowed; unknown ids are
//! ignored by the engine.

#![cfg_attr(target_arch = "wasm32", no_std)]
#![warn(missing_docs)]

extern crate alloc;

pub mod abi;

use alloc::vec::Vec;
use core::cell::UnsafeCell;

use viewsets_core::{
    check_key, is_set_again_by_axios, new_key_text, write_structured_field, CallEngine, CallSpec, KeyError, RepeatPolicy,
    Transport,
};

use abi::{attempt_end, jitter, optional_ms, write_action, write_pending};
use wasm_abi::ms;

/// The engine, the two record buffers JavaScript reads after `drain_actions`/`pending_fill`, and
/// the text window.
struct Calls {
    engine: CallEngine,
    actions: Vec<f64>,
    pending: Vec<f64>,
    text: Vec<u8>,
}

/// The module's state, built at compile time (nothing to set up on the first call). Without the
/// `atomics` target feature a wasm module runs on one thread; every export takes the state only for
/// its own length and calls no JavaScript, so it is never taken twice at once. A plain cell rather
/// than a `RefCell`, whose borrow check could only fail by panicking (its message and location
/// stayed in the module), and no lazy set-up: both are smaller wasm.
static CALLS: OneThread<UnsafeCell<Calls>> = OneThread(UnsafeCell::new(Calls {
    engine: CallEngine::new(),
    actions: Vec::new(),
    pending: Vec::new(),
    text: Vec::new(),
}));

fn with<R>(f: impl FnOnce(&mut Calls) -> R) -> R {
    // SAFETY: one thread (see `OneThread`), and `with` is never re-entered: the exports are its only
    // callers, each calls it once, and no code under it calls JavaScript (which alone could call an
    // export again). So this is the only reference to the state while `f` runs.
    f(unsafe { &mut *CALLS.0.get() })
}

// `OneThread`, the allocator and the panic handler, as the muxws module has them.
wasm_abi::one_thread_module!();

/// The first `len` bytes of the text window (all of it when `len` is larger).
fn window(calls: &Calls, len: u32) -> &[u8] {
    calls.text.get(..len as usize).unwrap_or(&calls.text)
}

/// The 16 bytes of four random `u32`s, each little-endian, in order (built without
/// `copy_from_slice`, whose length check kept a panic message in the module).
fn random_bytes([a, b, c, d]: [u32; 4]) -> [u8; 16] {
    (u128::from(d) << 96 | u128::from(c) << 64 | u128::from(b) << 32 | u128::from(a)).to_le_bytes()
}

/// Appends the Structured Field string of the (checked, ASCII) key `key` to `text`: one copy of
/// the code for [`key_generate`] and [`key_field`].
fn push_structured_field(text: &mut Vec<u8>, key: &[u8]) {
    // `extend_from_slice` rather than `push`: it grows the `Vec` through the `reserve` code every
    // `Vec` shares, where `push` brings in growing code for bytes alone.
    write_structured_field(key.iter().map(|&byte| char::from(byte)), |ch| text.extend_from_slice(&[ch as u8]));
}

/// Empties `records`, has `write` append records of `fields` numbers to it, and returns how many
/// records it holds then: what JavaScript reads at their pointer.
fn fill(records: &mut Vec<f64>, fields: usize, write: impl FnOnce(&mut Vec<f64>)) -> u32 {
    records.clear();
    write(records);
    (records.len() / fields) as u32
}

wasm_abi::exports! {
    table EXPORTS; cfg(all());
    /// The text window: strings cross the boundary here as bytes, written and read by JavaScript
    /// through a view of the module's memory (no glue per string). Both sides write ASCII only
    /// (JavaScript describes a key's first non-ASCII character separately, see [`key_field`]). Returns where it starts, with room for at least `len` bytes; its contents are
    /// kept.
    fn scratch(len: u32) -> u32 {
        with(|calls| {
            let len = len as usize;
            if calls.text.len() < len {
                // `extend` rather than `resize`: the same zeroes, smaller wasm.
                let more = len - calls.text.len();
                calls.text.extend(core::iter::repeat_n(0, more));
            }
            calls.text.as_ptr() as usize as u32
        })
    }

    /// A new key: the version 4 UUID of 16 random bytes given as four little-endian `u32`s (JavaScript
    /// draws them from a pooled `crypto.getRandomValues()`), written to the text window as its
    /// Structured Field string (the UUID in double quotes: the key is what is between them); returns
    /// its length. One crossing gives a call both forms of its key.
    fn key_generate(a: u32, b: u32, c: u32, d: u32) -> u32 {
        let random = random_bytes([a, b, c, d]);
        let key = new_key_text(random);
        with(|calls| {
            calls.text.clear();
            push_structured_field(&mut calls.text, &key);
            calls.text.len() as u32
        })
    }

    /// The key given by the caller as the value of the `Idempotency-Key` header (a Structured Field
    /// string), written to the text window; returns its length. JavaScript writes the ASCII characters
    /// of the key before its first non-ASCII one (`len` bytes) and passes that character's position
    /// (counted in characters) and code point in `bad_index`/`bad_code` (`bad_index` −1: none). A key
    /// that is not acceptable returns why: −1 empty, −2 − i the character at position i is not
    /// printable ASCII (the TS runtime words the TypeError).
    fn key_field(len: u32, bad_index: i32, bad_code: u32) -> i32 {
        with(|calls| {
            let ascii = window(calls, len);
            let bad = (bad_index >= 0).then(|| char::from_u32(bad_code).unwrap_or(char::REPLACEMENT_CHARACTER));
            match check_key(ascii.iter().map(|&byte| char::from(byte)).chain(bad)) {
                Ok(()) => {
                    // Grown as it is written: `with_capacity` brings in more wasm.
                    let mut field = Vec::new();
                    push_structured_field(&mut field, ascii);
                    // The field becomes the text window (the key's text is not needed any more).
                    calls.text = field;
                    calls.text.len() as i32
                }
                Err(KeyError::NotPrintableAscii { index, .. }) => -2 - index as i32,
                Err(_) => -1,
            }
        })
    }

    /// The header rules for the (ASCII) name in the text window (`len` bytes), as
    /// [`abi::header_rule`] bits: `SET_AGAIN_BY_AXIOS`, axios sets it again on every request (the
    /// axios transport does not carry it). A name with other characters has none.
    fn header_rule(len: u32) -> u32 {
        with(|calls| if is_set_again_by_axios(window(calls, len)) { abi::header_rule::SET_AGAIN_BY_AXIOS } else { 0 })
    }

    /// Issues a call and returns its id (≥ 1). `peer` 0 is REST, any other value the muxws peer the
    /// call travels through; `within_ms`/`delay_ms`/`jitter_fraction` are its repeat policy
    /// (`jitter_fraction` is `repeat.jitter`, 0…1: below 0 or NaN is 0, above 1 is 1), `attempt_timeout_ms` the
    /// timeout of one attempt (0: none), `jitter_seed` a random number drawn for the call (its jitter's
    /// seed).
    fn call_issue(
        peer: u32,
        within_ms: f64,
        delay_ms: f64,
        attempt_timeout_ms: f64,
        background: u32,
        now: f64,
        jitter_fraction: f64,
        jitter_seed: u32,
    ) -> u32 {
        let transport = if peer == 0 { Transport::Rest } else { Transport::Muxws { peer: u64::from(peer) } };
        let spec = CallSpec {
            transport,
            policy: RepeatPolicy { within_ms: ms(within_ms), delay_ms: ms(delay_ms), jitter: jitter(jitter_fraction) },
            attempt_timeout_ms: ms(attempt_timeout_ms),
            background: background != 0,
            jitter_seed,
        };
        with(|calls| calls.engine.issue(spec, ms(now))) as u32
    }

    /// The first attempt's headers are known to the runtime: repeats of `call` carry them.
    fn call_headers_captured(call: u32, attempt: u32) {
        with(|calls| calls.engine.headers_captured(u64::from(call), attempt))
    }

    /// Attempt `attempt` of `call` ended: `end` and `status` as in docs/boundary.md; `retry_after_ms`
    /// the answer's `Retry-After` in milliseconds from now (negative or NaN: none).
    fn call_attempt_ended(call: u32, attempt: u32, end: u32, status: u32, now: f64, retry_after_ms: f64) {
        let (call, end, retry_after_ms) = (u64::from(call), attempt_end(end, status), optional_ms(retry_after_ms));
        with(|calls| calls.engine.attempt_ended_with_retry_after(call, attempt, end, retry_after_ms, ms(now)))
    }

    /// The caller cancelled `call`.
    fn call_cancel(call: u32, now: f64) {
        with(|calls| calls.engine.cancel(u64::from(call), ms(now)))
    }

    /// News of a muxws peer: `state` an [`abi::peer_state`] code (an unknown one is "unavailable").
    fn peer_state(peer: u32, state: u32, now: f64) {
        with(|calls| match state {
            abi::peer_state::CLOSED_FOR_GOOD => calls.engine.peer_closed_for_good(u64::from(peer), ms(now)),
            _ => calls.engine.peer_available(u64::from(peer), state == abi::peer_state::AVAILABLE, ms(now)),
        })
    }

    /// "Try again now": with `call` 0, every waiting repeat goes out at once; with a call's id, that
    /// call's waiting repeat alone (an id that names no waiting call, such as one the runtime never
    /// issued, does nothing). Returns how many waiting repeats went (or, over a muxws peer that is
    /// away, wait for its reconnect alone): 0 or 1 for one call.
    fn retry_now(call: u32, now: f64) -> u32 {
        let only = (call != 0).then_some(u64::from(call));
        with(|calls| calls.engine.retry_waiting(only, ms(now)) as u32)
    }

    /// The platform's `online`/`offline` news (`navigator.onLine`); the engine starts online.
    fn set_online(online: u32, now: f64) {
        with(|calls| calls.engine.set_online(online != 0, ms(now)))
    }

    /// Runs the engine's timers due at `now`.
    fn handle_timeout(now: f64) {
        with(|calls| calls.engine.handle_timeout(ms(now)))
    }

    /// When the engine wants `handle_timeout` called next; -1 when nothing is timed.
    fn next_timeout() -> f64 {
        with(|calls| calls.engine.poll_timeout().map_or(-1.0, |at| at as f64))
    }

    /// Writes every queued action to the action records and returns how many there are.
    fn drain_actions() -> u32 {
        with(|calls| {
            let Calls { engine, actions, .. } = calls;
            fill(actions, abi::ACTION_FIELDS, |records| engine.drain_actions(|action| write_action(records, action)))
        })
    }

    /// Where the action records of the last [`drain_actions`] are, in linear memory.
    fn action_records() -> u32 {
        with(|calls| calls.actions.as_ptr() as usize as u32)
    }

    /// How many calls have not settled, background calls left out.
    fn pending_count() -> u32 {
        with(|calls| calls.engine.pending_call_count() as u32)
    }

    /// Writes the unsettled calls, oldest first, to the pending records and returns how many.
    fn pending_fill() -> u32 {
        with(|calls| {
            let Calls { engine, pending, .. } = calls;
            // `for_each` rather than `for`: the iterator runs its own loop, with its state in locals.
            fill(pending, abi::PENDING_FIELDS, |records| engine.pending_calls().for_each(|call| write_pending(records, &call)))
        })
    }

    /// Where the pending records of the last [`pending_fill`] are, in linear memory.
    fn pending_records() -> u32 {
        with(|calls| calls.pending.as_ptr() as usize as u32)
    }

    /// How many calls the engine holds state for (0 once every call settled): for leak checks.
    fn live_calls() -> u32 {
        with(|calls| calls.engine.live_calls() as u32)
    }

    /// The version of this module's exports and record layouts (docs/boundary.md), for tools that read
    /// the module. The facade carries this module inside its own JS module (scripts/inline-wasm.mjs), so
    /// the two always come from one build and the facade need not check it.
    ///
    /// The one export made through wasm-bindgen, which wasm-pack runs: the others are plain
    /// `extern "C"` functions of numbers, which need no glue (the runtime calls them on the instance).
    @bindgen fn boundary_version() -> u32 {
        BOUNDARY_VERSION
    }
}

/// See [`boundary_version`]. 7: `retry_now` takes a call's id (0: every waiting call) and returns
/// how many waiting repeats it sent. 6: `header_rule` has one bit, `SET_AGAIN_BY_AXIOS` (1); the
/// key-header bit, which nothing read, is gone.
pub const BOUNDARY_VERSION: u32 = 7;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_bytes_are_the_words_little_endian_in_order() {
        let words = [0x0302_0100, 0x0706_0504, 0x0b0a_0908, 0x0f0e_0d0c];
        assert_eq!(random_bytes(words), core::array::from_fn(|i| i as u8));
        let mut expected = Vec::new();
        for word in [0xdead_beef_u32, 1, u32::MAX, 0x8000_0000] {
            expected.extend_from_slice(&word.to_le_bytes());
        }
        assert_eq!(random_bytes([0xdead_beef, 1, u32::MAX, 0x8000_0000])[..], expected[..]);
    }
}
