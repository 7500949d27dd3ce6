//! The wasm layer: bindings to the platform and the exports the TS facade builds on.

mod js;
mod muxws;
mod proxy;
mod rest;
mod runtime;
#[cfg(test)]
mod tests;

use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;


/// Registers the facade's error classes, so that every error this module makes is an instance of
/// the classes the package exports (`instanceof HttpError`, …). Called once by the facade.
#[wasm_bindgen(js_name = registerErrorClasses)]
pub fn register_error_classes(classes: Object) {
    js::register_error_classes(classes);
}

/// `onCallActivity(listener)`: calls `listener` with every activity event of every call issued
/// through a proxy (`start`, `retry`, `settle`); returns the function that removes it.
#[wasm_bindgen(js_name = onCallActivity)]
pub fn on_call_activity(listener: Function) -> Function {
    runtime::add_listener(listener)
}

/// The calls that have not settled, oldest first, packed: `pendingCalls()` of the facade unpacks them.
#[wasm_bindgen(js_name = pendingCallsPacked)]
pub fn pending_calls_packed() -> Object {
    let (numbers, strings) = runtime::pending_calls_packed();
    js::object_from(&[
        ("numbers", js_sys::Float64Array::from(numbers.as_slice()).into()),
        ("strings", JsValue::from_str(&strings)),
        ("stride", JsValue::from_f64(runtime::PENDING_CALL_NUMBERS as f64)),
    ])
}

/// `pendingCallCount()`: how many calls have not settled, background calls left out.
#[wasm_bindgen(js_name = pendingCallCount)]
pub fn pending_call_count() -> u32 {
    runtime::pending_call_count() as u32
}

/// `retryNow()`: sends every waiting repeat at once (a muxws repeat waiting for a reconnect asks its
/// peer to reconnect now).
#[wasm_bindgen(js_name = retryNow)]
pub fn retry_now() {
    runtime::retry_now()
}

/// A new version 4 UUID from `crypto.getRandomValues()`, as every call's key is made.
#[wasm_bindgen(js_name = newIdempotencyKey)]
pub fn new_idempotency_key() -> Result<String, JsValue> {
    Ok(viewsets_core::IdempotencyKey::generate(js::random_bytes()?).as_str().to_owned())
}

/// What the runtime holds right now (calls, listeners, timers, peers): for leak checks.
#[wasm_bindgen(js_name = runtimeStats)]
pub fn runtime_stats() -> Object {
    runtime::stats()
}
