//! Small bindings to the JavaScript platform: clock, timers, `fetch`, the console, random bytes,
//! property access, and the error classes the TS facade registers.

use std::cell::RefCell;

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout_raw(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout_raw(id: &JsValue);
    /// The global `fetch` (browsers and Node 20 alike; no `window` needed).
    #[wasm_bindgen(js_name = fetch)]
    pub fn fetch(input: &str, init: &web_sys::RequestInit) -> js_sys::Promise;
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error_raw(message: &str, detail: &JsValue);
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    fn json_stringify_raw(value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse_raw(text: &str) -> Result<JsValue, JsValue>;
    /// `String(value)`: how `fetch` and `URLSearchParams` turn a value into text.
    #[wasm_bindgen(js_name = String)]
    pub fn js_string(value: &JsValue) -> String;
}

/// Milliseconds on the wall clock (`Date.now()`): the engine's `now`, and the timestamps of activity
/// events and pending calls a UI shows.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// Schedules `handler` after `ms` milliseconds; returns the timer handle for [`clear_timeout`].
pub fn set_timeout(handler: &Function, ms: u64) -> JsValue {
    set_timeout_raw(handler, ms.min(i32::MAX as u64) as f64)
}

/// Cancels a timer from [`set_timeout`].
pub fn clear_timeout(handle: &JsValue) {
    clear_timeout_raw(handle)
}

/// Reports a failure nobody awaits (a throwing listener, a failed schema check) on the console.
pub fn console_error(message: &str, detail: &JsValue) {
    console_error_raw(message, detail)
}

/// `JSON.stringify(value)`; `None` for `undefined` (no body); an error for cycles and BigInts.
pub fn json_stringify(value: &JsValue) -> Result<Option<String>, JsValue> {
    if value.is_undefined() {
        return Ok(None);
    }
    Ok(json_stringify_raw(value)?.as_string())
}

/// `JSON.parse(text)`.
pub fn json_parse(text: &str) -> Result<JsValue, JsValue> {
    json_parse_raw(text)
}

/// How many random bytes one `crypto.getRandomValues()` call fetches: 16 keys' worth, since the call
/// itself costs more than the bytes (it showed in profiles of sequential calls).
const RANDOM_POOL_BYTES: usize = 256;

thread_local! {
    static RANDOM_POOL: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// 16 bytes from `crypto.getRandomValues()`, which exists in every context, secure or not, and in
/// Node 20 (the seed's rule for building a v4 key outside a secure context). Each byte is used once.
pub fn random_bytes() -> Result<[u8; 16], JsValue> {
    RANDOM_POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        if pool.len() < 16 {
            let crypto = get(&js_sys::global(), "crypto");
            let crypto: web_sys::Crypto = crypto
                .dyn_into()
                .map_err(|_| type_error("crypto.getRandomValues() is not available to generate an Idempotency-Key"))?;
            let mut fresh = vec![0u8; RANDOM_POOL_BYTES];
            crypto.get_random_values_with_u8_array(&mut fresh)?;
            *pool = fresh;
        }
        let at = pool.len() - 16;
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&pool[at..]);
        pool.truncate(at);
        Ok(bytes)
    })
}

/// `object[name]`, `undefined` when `object` is not an object or lacks it.
pub fn get(object: &JsValue, name: &str) -> JsValue {
    if !object.is_object() && !object.is_function() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// `object[name] = value` on a plain object this module created.
pub fn set(object: &Object, name: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(name), value);
}

/// Defines a read-only, enumerable `name` on `target` (the `key` of a `ViewSetCall`).
pub fn define_read_only(target: &JsValue, name: &str, value: &JsValue) {
    let descriptor = Object::new();
    set(&descriptor, "value", value);
    set(&descriptor, "enumerable", &JsValue::TRUE);
    if let Some(target) = target.dyn_ref::<Object>() {
        let _ = Object::define_property(target, &JsValue::from_str(name), &descriptor);
    }
}

/// A `TypeError` with `message`: bad keys, bad options, bad headers.
pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

thread_local! {
    static ERROR_CLASSES: RefCell<Option<Object>> = const { RefCell::new(None) };
}

/// Keeps the facade's error classes (`HttpError`, `ConnectionLost`, …) so that errors made here are
/// instances of the very classes the package exports.
pub fn register_error_classes(classes: Object) {
    ERROR_CLASSES.with(|slot| *slot.borrow_mut() = Some(classes));
}

/// `new classes[class](message, props)`; a plain `Error` named `class` carrying `props` when the
/// facade did not register that class (the wasm module used on its own).
pub fn make_error(class: &str, message: &str, props: &Object) -> JsValue {
    let constructor = ERROR_CLASSES.with(|slot| slot.borrow().as_ref().map(|classes| get(classes, class)));
    if let Some(constructor) = constructor.and_then(|c| c.dyn_into::<Function>().ok()) {
        let args = Array::of2(&JsValue::from_str(message), props);
        if let Ok(error) = Reflect::construct(&constructor, &args) {
            return error;
        }
    }
    let error = js_sys::Error::new(message);
    error.set_name(class);
    let _ = Object::assign(&error, props);
    error.into()
}

/// A plain object from `(name, value)` pairs.
pub fn object_from(entries: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (name, value) in entries {
        set(&object, name, value);
    }
    object
}

/// A plain `{name: value}` object from header pairs.
pub fn headers_object(headers: &[(String, String)]) -> Object {
    let object = Object::new();
    for (name, value) in headers {
        set(&object, name, &JsValue::from_str(value));
    }
    object
}

/// Reads a `{name: value}` object (or `undefined`) into header pairs; values are stringified as
/// `fetch` does, `undefined` and `null` values dropped.
pub fn headers_from(value: &JsValue, what: &str) -> Result<Vec<(String, String)>, JsValue> {
    headers_checked(value, what, crate::compose::check_header_name)
}

/// As [`headers_from`], for the headers of a muxws stream, where pseudo-headers (`:path`) are allowed.
pub fn stream_headers_from(value: &JsValue, what: &str) -> Result<Vec<(String, String)>, JsValue> {
    headers_checked(value, what, crate::compose::check_stream_header_name)
}

fn headers_checked(
    value: &JsValue,
    what: &str,
    check_name: fn(&str) -> Result<(), String>,
) -> Result<Vec<(String, String)>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let object = value
        .dyn_ref::<Object>()
        .ok_or_else(|| type_error(&format!("{what} must be an object of header names to values")))?;
    let mut headers = Vec::new();
    for entry in Object::entries(object).iter() {
        let entry: Array = entry.unchecked_into();
        let name = entry.get(0).as_string().unwrap_or_default();
        let value = entry.get(1);
        if value.is_undefined() || value.is_null() {
            continue;
        }
        let value = value.as_string().unwrap_or_else(|| js_string(&value));
        check_name(&name).map_err(|m| type_error(&format!("{what}: {m}")))?;
        crate::compose::check_header_value(&name, &value).map_err(|m| type_error(&format!("{what}: {m}")))?;
        headers.push((name, value));
    }
    Ok(headers)
}

/// Reads an optional non-negative whole number of milliseconds.
pub fn optional_ms(options: &JsValue, name: &str) -> Result<Option<u64>, JsValue> {
    let value = get(options, name);
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(ms) if ms >= 0.0 && ms.fract() == 0.0 && ms <= 9_007_199_254_740_991.0 => Ok(Some(ms as u64)),
        _ => Err(type_error(&format!("{name} must be a non-negative whole number of milliseconds"))),
    }
}

/// A plain `{name: value}` object of response headers: the platform's `Headers` converted, anything
/// else (already a plain object) as it is.
pub fn plain_headers(headers: JsValue) -> JsValue {
    let Some(platform) = headers.dyn_ref::<web_sys::Headers>() else {
        return headers;
    };
    let object = Object::new();
    if let Ok(Some(entries)) = js_sys::try_iter(platform) {
        for entry in entries.flatten() {
            let entry: Array = entry.unchecked_into();
            if let Some(name) = entry.get(0).as_string() {
                set(&object, &name, &entry.get(1));
            }
        }
    }
    object.into()
}
