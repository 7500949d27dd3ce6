//! `ProxyCore`: the options of one ViewSet proxy and its `request()`, shared by REST and muxws
//! proxies. The TS facade's class factories and mixins are thin shells around it.

use js_sys::{Array, Function, Object};
use viewsets_core::{
    with_key, CallSpec, Headers, IdempotencyKey, RepeatOverride, RepeatPolicy, Transport, DEFAULT_ATTEMPT_TIMEOUT_MS,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::{self, type_error};
use super::runtime::{self, NewCall, Prepared, Route};
use crate::compose;

/// The options of one proxy, checked once when the proxy is made.
#[wasm_bindgen]
pub struct ProxyCore {
    base_url: String,
    base_path: String,
    headers: Headers,
    interceptors: Vec<Function>,
    attempt_timeout_ms: u64,
    repeat: RepeatPolicy,
    route: Route,
    peer_id: Option<viewsets_core::PeerId>,
}

#[wasm_bindgen]
impl ProxyCore {
    /// Checks `options` (see `ViewSetOptions` in the facade) and keeps them. `peer` is the muxws
    /// peer for a muxws proxy, `undefined` for REST. Bad options throw a `TypeError`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &JsValue, peer: &JsValue) -> Result<ProxyCore, JsValue> {
        if !options.is_object() {
            return Err(type_error("ViewSet options must be an object with at least basePath"));
        }
        let base_path = js::get(options, "basePath")
            .as_string()
            .ok_or_else(|| type_error("options.basePath must be a string such as '/items'"))?;
        let (route, peer_id, base_url) = if peer.is_undefined() || peer.is_null() {
            let base_url = match js::get(options, "baseUrl") {
                value if value.is_undefined() => default_base_url()?,
                value => value
                    .as_string()
                    .ok_or_else(|| type_error("options.baseUrl must be a string such as 'https://api.example.com'"))?,
            };
            (Route::Rest, None, base_url)
        } else {
            let (route, id) = super::muxws::route_for(peer)?;
            (route, Some(id), String::new())
        };
        let headers = js::headers_from(&js::get(options, "headers"), "options.headers")?;
        let interceptors = functions(&js::get(options, "interceptors"), "options.interceptors")?;
        let timeout_option = if peer_id.is_some() { "timeoutMs" } else { "attemptTimeoutMs" };
        // Both default to 30 s, so that no call hangs on a peer that stays connected but never answers.
        let attempt_timeout_ms = js::optional_ms(options, timeout_option)?.unwrap_or(DEFAULT_ATTEMPT_TIMEOUT_MS);
        let repeat = RepeatPolicy::default().with_override(&repeat_override(&js::get(options, "repeat"))?);
        Ok(ProxyCore { base_url, base_path, headers, interceptors, attempt_timeout_ms, repeat, route, peer_id })
    }

    /// `basePath` as given.
    #[wasm_bindgen(getter, js_name = basePath)]
    pub fn base_path(&self) -> String {
        self.base_path.clone()
    }

    /// Issues one call: `method` and `path` (relative to `basePath`) with `RequestOptions`. Returns a
    /// `ViewSetCall` promise whose `key` is readable at once. Everything wrong with the call (a bad
    /// key, a bad header, a throwing interceptor) rejects it before anything is sent.
    pub fn request(&self, method: &str, path: &str, options: &JsValue) -> js_sys::Promise {
        let key_given = js::get(options, "key");
        match self.compose(method, path, options) {
            Ok(call) => runtime::issue(call),
            Err(error) => {
                // A `ViewSetCall` always has a key: the one given, else a new one (nothing was sent).
                let promise = js_sys::Promise::reject(&error);
                let key = key_given.as_string().or_else(|| {
                    js::random_bytes().ok().map(|bytes| IdempotencyKey::generate(bytes).as_str().to_owned())
                });
                if let Some(key) = key {
                    js::define_read_only(&promise, "key", &JsValue::from_str(&key));
                }
                promise
            }
        }
    }
}

#[wasm_bindgen]
impl ProxyCore {
    /// The startup schema check's verdict: one sentence per action in `expected`
    /// (`"<action> <METHOD> <suffix>"`) that the OpenAPI `document` does not serve.
    #[wasm_bindgen(js_name = schemaMismatches)]
    pub fn schema_mismatches(&self, document: &JsValue, expected: Vec<String>) -> Vec<String> {
        let paths = js::get(document, "paths");
        let Some(paths) = paths.dyn_ref::<Object>() else {
            return vec!["GET {basePath}/schema did not answer an OpenAPI document".to_owned()];
        };
        let served: Vec<crate::schema::ServedPath> = Object::entries(paths)
            .iter()
            .map(|entry| {
                let entry: Array = entry.unchecked_into();
                let methods = match entry.get(1).dyn_ref::<Object>() {
                    Some(operations) => Object::keys(operations).iter().filter_map(|m| m.as_string()).collect(),
                    None => Vec::new(),
                };
                crate::schema::ServedPath { path: entry.get(0).as_string().unwrap_or_default(), methods }
            })
            .collect();
        crate::schema::mismatches(&self.base_path, &expected, &served)
    }
}

impl ProxyCore {
    fn compose(&self, method: &str, path: &str, options: &JsValue) -> Result<NewCall, JsValue> {
        if !(options.is_undefined() || options.is_object()) {
            return Err(type_error("request options must be an object"));
        }
        let method = method.to_ascii_uppercase();
        compose::check_header_name(&method).map_err(|_| type_error(&format!("\"{method}\" is not an HTTP method")))?;
        let key = match js::get(options, "key") {
            value if value.is_undefined() || value.is_null() => IdempotencyKey::generate(js::random_bytes()?),
            value => {
                let candidate = value.as_string().ok_or_else(|| type_error("options.key must be a string"))?;
                IdempotencyKey::parse(&candidate).map_err(|e| type_error(&format!("invalid Idempotency-Key: {e}")))?
            }
        };
        let query = compose::encode_query(&query_pairs(&js::get(options, "query"))?);
        let body = js::json_stringify(&js::get(options, "body")).map_err(|e| {
            type_error(&format!("options.body cannot be sent as JSON: {}", js::js_string(&e)))
        })?;
        let call_headers = js::headers_from(&js::get(options, "headers"), "options.headers")?;
        let mut headers = compose::merge_headers(&[&self.headers, &call_headers]);
        let content_type = body.as_ref().map(|_| {
            let given = headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("content-type"));
            given.map_or_else(|| "application/json".to_owned(), |(_, v)| v.clone())
        });
        headers = with_key(headers, &key);
        let full_path = compose::stream_path(&self.base_path, path);
        let url = compose::join_url(&self.base_url, &self.base_path, path, &query);
        // Interceptors see the call's key; whatever they do to it, the call's key is what goes out.
        headers = self.intercept(&method, &url, &full_path, headers, &js::get(options, "body"))?;
        headers = with_key(headers, &key);
        let repeat = self.repeat.with_override(&repeat_override(&js::get(options, "repeat"))?);
        let background = js::get(options, "background").is_truthy();
        let signal = match js::get(options, "signal") {
            value if value.is_undefined() || value.is_null() => None,
            value => Some(
                value
                    .dyn_into::<web_sys::AbortSignal>()
                    .map_err(|_| type_error("options.signal must be an AbortSignal"))?,
            ),
        };
        let transport = match self.peer_id {
            Some(peer) => Transport::Muxws { peer },
            None => Transport::Rest,
        };
        Ok(NewCall {
            spec: CallSpec {
                key: key.clone(),
                transport,
                method: method.clone(),
                path: full_path.clone(),
                policy: repeat,
                attempt_timeout_ms: self.attempt_timeout_ms,
                background,
            },
            prepared: Prepared { method, path: full_path, url, query, body, content_type, key, first_headers: headers },
            route: self.route.clone(),
            signal,
        })
    }

    /// Runs the request interceptors in the caller's synchronous part: each gets
    /// `{method, url, path, headers, body}`, may change `headers` in place or return a new request
    /// object. A throwing interceptor rejects the call; one returning a promise is refused.
    fn intercept(&self, method: &str, url: &str, path: &str, headers: Headers, body: &JsValue) -> Result<Headers, JsValue> {
        if self.interceptors.is_empty() {
            return Ok(headers);
        }
        let mut request = js::object_from(&[
            ("method", JsValue::from_str(method)),
            ("url", JsValue::from_str(url)),
            ("path", JsValue::from_str(path)),
            ("headers", js::headers_object(&headers).into()),
            ("body", body.clone()),
        ]);
        for interceptor in &self.interceptors {
            let returned = interceptor.call1(&JsValue::UNDEFINED, &request)?;
            if returned.is_object() {
                if returned.is_instance_of::<js_sys::Promise>() || js::get(&returned, "then").is_function() {
                    return Err(type_error("a request interceptor must be synchronous; it returned a promise"));
                }
                request = returned.unchecked_into();
            }
        }
        js::headers_from(&js::get(&request, "headers"), "the headers an interceptor set")
    }
}

fn default_base_url() -> Result<String, JsValue> {
    let location = js::get(&js_sys::global(), "location");
    match js::get(&location, "origin").as_string() {
        Some(origin) if origin != "null" => Ok(origin),
        _ => Err(type_error("options.baseUrl is required outside a web page (for example in Node)")),
    }
}

fn functions(value: &JsValue, what: &str) -> Result<Vec<Function>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let list = value.dyn_ref::<Array>().ok_or_else(|| type_error(&format!("{what} must be an array of functions")))?;
    list.iter()
        .map(|item| item.dyn_into::<Function>().map_err(|_| type_error(&format!("{what} must be an array of functions"))))
        .collect()
}

fn repeat_override(value: &JsValue) -> Result<RepeatOverride, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(RepeatOverride { within_ms: None, delay_ms: None });
    }
    if !value.is_object() {
        return Err(type_error("repeat must be an object { withinMs, delayMs }"));
    }
    Ok(RepeatOverride { within_ms: js::optional_ms(value, "withinMs")?, delay_ms: js::optional_ms(value, "delayMs")? })
}

fn query_pairs(value: &JsValue) -> Result<Vec<compose::QueryPair>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let object = value.dyn_ref::<Object>().ok_or_else(|| type_error("options.query must be an object"))?;
    let mut pairs = Vec::new();
    for entry in Object::entries(object).iter() {
        let entry: Array = entry.unchecked_into();
        let name = entry.get(0).as_string().unwrap_or_default();
        let value = entry.get(1);
        let values: Vec<JsValue> = if Array::is_array(&value) { value.unchecked_into::<Array>().iter().collect() } else { vec![value] };
        for value in values {
            if !(value.is_undefined() || value.is_null()) {
                pairs.push((name.clone(), js::js_string(&value)));
            }
        }
    }
    Ok(pairs)
}
