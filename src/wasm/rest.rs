//! The REST transport: one attempt is one `fetch` with its own `AbortController`. What came back is
//! reported to the runtime as an [`AttemptEnd`] for the engine and an [`Outcome`] to settle with.

use js_sys::Object;
use viewsets_core::{AttemptEnd, CallId, Headers};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::js;
use super::runtime::{self, Outcome, Prepared};

/// Starts attempt `attempt` of `call` with `headers`; returns the controller that aborts it.
pub(crate) fn start_attempt(call: CallId, attempt: u32, prepared: &Prepared, headers: &Headers) -> web_sys::AbortController {
    let controller = web_sys::AbortController::new().expect("AbortController exists in every supported runtime");
    let init = web_sys::RequestInit::new();
    init.set_method(&prepared.method);
    let sent = js::headers_object(headers);
    if let (Some(body), Some(content_type)) = (&prepared.body, &prepared.content_type) {
        if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("content-type")) {
            js::set(&sent, "Content-Type", &JsValue::from_str(content_type));
        }
        init.set_body(&JsValue::from_str(body));
    }
    init.set_headers(&sent);
    init.set_signal(Some(&controller.signal()));
    let request = js::fetch(&prepared.url, &init);
    wasm_bindgen_futures::spawn_local(async move {
        let (end, outcome) = match JsFuture::from(request).await {
            Ok(response) => read_answer(response.unchecked_into()).await,
            Err(error) => (AttemptEnd::NetworkError, Outcome::Failure(network_error(&error))),
        };
        runtime::report(call, attempt, end, outcome);
    });
    controller
}

/// Reads a response whole: status, headers, and the body parsed as JSON when it says it is JSON.
/// A body cut off mid-way is an attempt without an answer.
async fn read_answer(response: web_sys::Response) -> (AttemptEnd, Outcome) {
    let status = response.status();
    let content_type = response.headers().get("content-type").ok().flatten().unwrap_or_default();
    let text = match response.text() {
        Ok(promise) => JsFuture::from(promise).await,
        Err(error) => Err(error),
    };
    let text = match text {
        Ok(text) => text.as_string().unwrap_or_default(),
        Err(error) => return (AttemptEnd::NetworkError, Outcome::Failure(network_error(&error))),
    };
    let body = if text.is_empty() {
        JsValue::NULL
    } else if content_type.contains("json") {
        js::json_parse(&text).unwrap_or_else(|_| JsValue::from_str(&text))
    } else {
        JsValue::from_str(&text)
    };
    let json_detail = body.is_object()
        && !js_sys::Array::is_array(&body)
        && Object::has_own(body.unchecked_ref::<Object>(), &JsValue::from_str("detail"));
    // Kept as the platform's Headers: turned into a plain object only if the call rejects with it.
    let headers = response.headers().into();
    let end = AttemptEnd::HttpAnswer { status, json_detail };
    (end, Outcome::Answer { status, body, headers })
}

fn network_error(cause: &JsValue) -> JsValue {
    let message = js::get(cause, "message").as_string().unwrap_or_else(|| "fetch failed".to_owned());
    let props = js::object_from(&[("cause", cause.clone())]);
    js::make_error("NetworkError", &format!("the request got no answer: {message}"), &props)
}
