//! The wasm layer inside a real JavaScript engine (`wasm-bindgen-test`): Node, and headless Chromium
//! with `WASM_BINDGEN_USE_BROWSER=1`. Behaviour against the backend is tested end to end through the
//! package (tests/e2e); these check the platform bindings on their own.

use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use super::js;
use super::proxy::ProxyCore;

fn options(entries: &[(&str, JsValue)]) -> JsValue {
    js::object_from(entries).into()
}

#[wasm_bindgen_test]
fn keys_come_from_get_random_values_as_v4_uuids() {
    let first = super::new_idempotency_key().expect("crypto.getRandomValues exists");
    let second = super::new_idempotency_key().expect("crypto.getRandomValues exists");
    assert_ne!(first, second);
    for key in [first, second] {
        assert_eq!(key.len(), 36);
        assert_eq!(&key[14..15], "4", "version nibble of {key}");
        assert!("89ab".contains(&key[19..20]), "variant of {key}");
    }
}

#[wasm_bindgen_test]
fn bad_proxy_options_throw_type_errors() {
    let no_base_path = ProxyCore::new(&options(&[("baseUrl", "http://127.0.0.1:9".into())]), &JsValue::UNDEFINED);
    assert!(no_base_path.err().unwrap().is_instance_of::<js_sys::TypeError>());
    let bad_timeout = options(&[
        ("basePath", "/items".into()),
        ("baseUrl", "http://127.0.0.1:9".into()),
        ("attemptTimeoutMs", JsValue::from_f64(-1.0)),
    ]);
    assert!(ProxyCore::new(&bad_timeout, &JsValue::UNDEFINED).err().unwrap().is_instance_of::<js_sys::TypeError>());
    let headers = js::object_from(&[("bad name", "x".into())]);
    let bad_header = options(&[("basePath", "/items".into()), ("baseUrl", "http://127.0.0.1:9".into()), ("headers", headers.into())]);
    assert!(ProxyCore::new(&bad_header, &JsValue::UNDEFINED).err().unwrap().is_instance_of::<js_sys::TypeError>());
    let not_a_peer = options(&[("basePath", "/items".into())]);
    assert!(ProxyCore::new(&not_a_peer, &Object::new().into()).err().unwrap().is_instance_of::<js_sys::TypeError>());
}

#[wasm_bindgen_test]
async fn a_bad_key_rejects_the_call_with_a_type_error_and_keeps_the_key_on_the_promise() {
    let proxy = ProxyCore::new(
        &options(&[("basePath", "/items".into()), ("baseUrl", "http://127.0.0.1:9".into()), ("schemaCheck", JsValue::FALSE)]),
        &JsValue::UNDEFINED,
    )
    .expect("valid options");
    let call = proxy.request("POST", "/slow", &options(&[("key", "a\u{7}b".into())]));
    assert_eq!(Reflect::get(&call, &"key".into()).unwrap().as_string().as_deref(), Some("a\u{7}b"));
    let error = JsFuture::from(call).await.expect_err("a bad key rejects");
    assert!(error.is_instance_of::<js_sys::TypeError>());
    assert!(js::get(&error, "message").as_string().unwrap().contains("printable ASCII"));
    assert_eq!(super::pending_call_count(), 0, "nothing was issued");
}

#[wasm_bindgen_test]
fn a_call_promise_carries_a_read_only_key_at_once() {
    let proxy = ProxyCore::new(
        &options(&[("basePath", "/items".into()), ("baseUrl", "http://127.0.0.1:9".into())]),
        &JsValue::UNDEFINED,
    )
    .expect("valid options");
    let controller = web_sys::AbortController::new().unwrap();
    let call = proxy.request("GET", "", &options(&[("signal", controller.signal().into()), ("background", JsValue::TRUE)]));
    let key = Reflect::get(&call, &"key".into()).unwrap().as_string().expect("a key at once");
    assert_eq!(key.len(), 36);
    let descriptor = Object::get_own_property_descriptor(call.unchecked_ref::<Object>(), &"key".into());
    assert_eq!(js::get(&descriptor, "writable"), JsValue::FALSE);
    assert_eq!(super::pending_call_count(), 0, "a background call is not counted");
    controller.abort();
}

#[wasm_bindgen_test]
async fn timers_fire() {
    let fired = Promise::new(&mut |resolve, _| {
        js::set_timeout(&resolve, 5);
    });
    JsFuture::from(fired).await.expect("the timer fired");
}
