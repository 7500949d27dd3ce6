//! The driver of the module's one [`CallEngine`]: it turns the engine's actions into `fetch` calls,
//! muxws streams, timers, promise settlements and activity events, and feeds back what happened.
//!
//! Re-entrancy: JavaScript runs from inside the driver (listeners, interceptors, promise functions),
//! and that JavaScript may call back into the module (issue a call, `retryNow()`). The runtime is
//! therefore never borrowed while JavaScript runs, and only the outermost [`pump`] drains the engine.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Object};
use viewsets_core::{
    Abandon, Action, ActivityEvent, ActivityKind, AttemptEnd, CallEngine, CallId, CallSpec, Headers, IdSlab, Listeners, Transport,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js;

/// What one attempt produced, kept until the call settles with it.
pub(crate) enum Outcome {
    /// The application answered (REST response or muxws reply): status, parsed body, headers (a
    /// plain object, or the platform's `Headers`, converted only when an error carries them).
    Answer { status: u16, body: JsValue, headers: JsValue },
    /// The attempt failed without an answer; the error object to reject with.
    Failure(JsValue),
}

/// A request composed once per call and sent by every attempt.
pub(crate) struct Prepared {
    /// HTTP method, upper case.
    pub method: String,
    /// `base_path` + action path, absolute: the muxws `:path` and the `path` of activity events.
    pub path: String,
    /// The REST URL, query included.
    pub url: String,
    /// The encoded query string (without `?`), empty when none: the muxws `:query`.
    pub query: String,
    /// The body as JSON text (`None`: no body).
    pub body: Option<String>,
    /// The body's `Content-Type` (the caller's, else `application/json`), set again on every REST
    /// attempt: it is one of the headers a repeat does not carry over, since the transport sets it.
    pub content_type: Option<String>,
    /// The call's key (a muxws repeat puts it back over whatever the open interceptors set).
    pub key: viewsets_core::IdempotencyKey,
    /// The headers of the first attempt, after the request interceptors, with the call's key.
    pub first_headers: Headers,
}

/// Handle of one in-flight attempt, to abandon it.
pub(crate) enum Inflight {
    /// A `fetch` with its own abort controller.
    Fetch(web_sys::AbortController),
    /// A muxws stream (or one queued for a free stream), abandoned through its peer.
    Stream(Rc<dyn StreamTransport>),
}

/// A muxws peer as seen by the call engine's driver (implemented by the muxws layer).
pub(crate) trait StreamTransport {
    /// Opens the stream of `attempt` (or queues it for a free stream). `carried` is `None` for the
    /// first attempt (the peer's open interceptors run and the headers actually sent are returned
    /// for carrying over) and the captured headers for a repeat (sent as they are). On failure
    /// returns how the attempt ended and the error `open()` threw.
    fn open_attempt(
        &self,
        call: CallId,
        attempt: u32,
        prepared: &Prepared,
        carried: Option<&Headers>,
    ) -> Result<Headers, (AttemptEnd, JsValue)>;
    /// Abandons the stream of that attempt: `reset(TIMEOUT)` for a timeout, `reset(CANCELLED)`
    /// otherwise; an attempt still queued is dropped unsent.
    fn abandon(&self, call: CallId, attempt: u32, why: Abandon);
}

/// How the call's attempts travel.
#[derive(Clone)]
pub(crate) enum Route {
    /// `fetch`.
    Rest,
    /// A muxws peer.
    Stream(Rc<dyn StreamTransport>),
}

struct CallState {
    key: String,
    resolve: Function,
    reject: Function,
    prepared: Rc<Prepared>,
    route: Route,
    inflight: Option<(u32, Inflight)>,
    outcome: Option<(u32, Outcome)>,
    attempts: u32,
    /// The caller's `AbortSignal` and the listener to remove at settle.
    signal: Option<(web_sys::AbortSignal, Function)>,
}

#[derive(Default)]
struct Runtime {
    engine: CallEngine,
    calls: IdSlab<CallState>,
    listeners: Listeners<Function>,
    timer: Option<(u64, JsValue)>,
    timer_handler: Option<Function>,
}

thread_local! {
    static RUNTIME: RefCell<Runtime> = RefCell::new(Runtime::default());
    static PUMPING: Cell<bool> = const { Cell::new(false) };
}

fn with<R>(f: impl FnOnce(&mut Runtime) -> R) -> R {
    RUNTIME.with(|runtime| f(&mut runtime.borrow_mut()))
}

/// Everything a new call needs besides its composed request.
pub(crate) struct NewCall {
    pub spec: CallSpec,
    pub prepared: Prepared,
    pub route: Route,
    pub signal: Option<web_sys::AbortSignal>,
}

/// Issues a call: returns its `ViewSetCall` promise (with `key`) and starts attempt 1.
pub(crate) fn issue(call: NewCall) -> js_sys::Promise {
    let key = call.spec.key.as_str().to_owned();
    let mut slots: Option<(Function, Function)> = None;
    let promise = js_sys::Promise::new(&mut |resolve, reject| slots = Some((resolve, reject)));
    let (resolve, reject) = slots.expect("the Promise executor runs synchronously");
    js::define_read_only(&promise, "key", &JsValue::from_str(&key));
    let NewCall { spec, prepared, route, signal } = call;
    let id = with(|rt| {
        let id = rt.engine.issue(spec, js::now_ms());
        rt.calls.insert(
            id,
            CallState {
                key,
                resolve,
                reject,
                prepared: Rc::new(prepared),
                route,
                inflight: None,
                outcome: None,
                attempts: 0,
                signal: None,
            },
        );
        id
    });
    if let Some(signal) = signal {
        watch_signal(id, signal);
    }
    pump();
    promise
}

fn watch_signal(call: CallId, signal: web_sys::AbortSignal) {
    if signal.aborted() {
        with(|rt| rt.engine.cancel(call, js::now_ms()));
        return;
    }
    let on_abort = Closure::once_into_js(move || {
        with(|rt| rt.engine.cancel(call, js::now_ms()));
        pump();
    })
    .unchecked_into::<Function>();
    let _ = signal.add_event_listener_with_callback("abort", &on_abort);
    with(|rt| {
        if let Some(state) = rt.calls.get_mut(call) {
            state.signal = Some((signal, on_abort));
        }
    });
}

/// Reports how an attempt ended, with what it produced, and lets the engine decide.
pub(crate) fn report(call: CallId, attempt: u32, end: AttemptEnd, outcome: Outcome) {
    with(|rt| {
        if let Some(state) = rt.calls.get_mut(call) {
            if matches!(state.inflight, Some((current, _)) if current == attempt) {
                state.inflight = None;
            }
            state.outcome = Some((attempt, outcome));
        }
        rt.engine.attempt_ended(call, attempt, end, js::now_ms());
    });
    pump();
}

/// Tells the engine that a peer's socket is established (`true`) or lost / going away (`false`).
pub(crate) fn peer_available(peer: viewsets_core::PeerId, available: bool) {
    with(|rt| rt.engine.peer_available(peer, available, js::now_ms()));
    pump();
}

/// Tells the engine that a peer closed for good.
pub(crate) fn peer_closed_for_good(peer: viewsets_core::PeerId) {
    with(|rt| rt.engine.peer_closed_for_good(peer, js::now_ms()));
    pump();
}

/// Drains the engine's actions, performing each with the runtime released.
pub(crate) fn pump() {
    if PUMPING.with(|p| p.replace(true)) {
        return;
    }
    while let Some(action) = with(|rt| rt.engine.poll_action()) {
        perform(action);
    }
    PUMPING.with(|p| p.set(false));
    reschedule_timer();
}

fn perform(action: Action) {
    match action {
        Action::SendAttempt { call, attempt, headers } => send_attempt(call, attempt, headers),
        Action::AbandonAttempt { call, attempt, why } => {
            let inflight = with(|rt| {
                let state = rt.calls.get_mut(call)?;
                match state.inflight.take() {
                    Some((current, handle)) if current == attempt => Some(handle),
                    other => {
                        state.inflight = other;
                        None
                    }
                }
            });
            match inflight {
                Some(Inflight::Fetch(controller)) => controller.abort(),
                Some(Inflight::Stream(peer)) => peer.abandon(call, attempt, why),
                None => {}
            }
        }
        Action::Settle { call, attempt, end } => settle(call, attempt, end),
        Action::ReconnectNow { peer } => super::muxws::reconnect_now(peer),
        Action::Activity(event) => dispatch_activity(&event),
    }
}

fn send_attempt(call: CallId, attempt: u32, carried: Option<Headers>) {
    let Some((prepared, route)) = with(|rt| {
        let state = rt.calls.get_mut(call)?;
        state.attempts = attempt;
        Some((state.prepared.clone(), state.route.clone()))
    }) else {
        return;
    };
    match route {
        Route::Rest => {
            let headers = carried.unwrap_or_else(|| prepared.first_headers.clone());
            with(|rt| rt.engine.attempt_headers(call, attempt, headers.clone()));
            let controller = super::rest::start_attempt(call, attempt, &prepared, &headers);
            with(|rt| {
                if let Some(state) = rt.calls.get_mut(call) {
                    state.inflight = Some((attempt, Inflight::Fetch(controller)));
                }
            });
        }
        Route::Stream(peer) => match peer.open_attempt(call, attempt, &prepared, carried.as_ref()) {
            Ok(sent) => with(|rt| {
                rt.engine.attempt_headers(call, attempt, sent);
                if let Some(state) = rt.calls.get_mut(call) {
                    state.inflight = Some((attempt, Inflight::Stream(peer)));
                }
            }),
            Err((end, error)) => report(call, attempt, end, Outcome::Failure(error)),
        },
    }
}

fn settle(call: CallId, attempt: u32, end: AttemptEnd) {
    let Some(state) = with(|rt| rt.calls.remove(call)) else {
        return;
    };
    if let Some((signal, listener)) = &state.signal {
        let _ = signal.remove_event_listener_with_callback("abort", listener);
    }
    // A cancellation or the attempt's own timeout is the outcome, whatever the abandoned attempt's
    // transport reported on its way out (a stream reset by the abandon, say).
    let outcome = match state.outcome {
        _ if matches!(end, AttemptEnd::Cancelled | AttemptEnd::AttemptTimeout) => None,
        Some((produced_by, outcome)) if produced_by == attempt => Some(outcome),
        _ => None,
    };
    let key = JsValue::from_str(&state.key);
    let attempts = JsValue::from_f64(state.attempts as f64);
    match outcome {
        Some(Outcome::Answer { body, .. }) if end.is_success() => {
            let _ = state.resolve.call1(&JsValue::UNDEFINED, &body);
        }
        Some(Outcome::Answer { status, body, headers }) => {
            let detail = js::get(&body, "detail");
            let detail = detail.as_string().unwrap_or_else(|| format!("HTTP {status}"));
            let message = format!("{} {} answered {status}: {detail}", state.prepared.method, state.prepared.path);
            let props = js::object_from(&[
                ("status", JsValue::from_f64(status as f64)),
                ("body", body),
                ("headers", js::plain_headers(headers)),
                ("key", key),
                ("attempts", attempts),
            ]);
            let _ = state.reject.call1(&JsValue::UNDEFINED, &js::make_error("HttpError", &message, &props));
        }
        Some(Outcome::Failure(error)) => {
            if let Some(error) = error.dyn_ref::<Object>() {
                js::set(error, "key", &key);
                js::set(error, "attempts", &attempts);
            }
            let _ = state.reject.call1(&JsValue::UNDEFINED, &error);
        }
        None => {
            let (class, what) = match end {
                AttemptEnd::AttemptTimeout => ("AttemptTimeoutError", "its attempt timed out"),
                AttemptEnd::StreamTimeout => ("StreamTimeout", "its stream timed out"),
                AttemptEnd::Cancelled => ("CallCancelled", "it was cancelled by the caller"),
                _ => ("NetworkError", "its attempt ended without an answer"),
            };
            let message = format!("{} {} failed: {what}", state.prepared.method, state.prepared.path);
            let props = js::object_from(&[("key", key), ("attempts", attempts)]);
            let _ = state.reject.call1(&JsValue::UNDEFINED, &js::make_error(class, &message, &props));
        }
    }
}

fn transport_name(transport: &Transport) -> &'static str {
    match transport {
        Transport::Rest => "rest",
        Transport::Muxws { .. } => "muxws",
    }
}

fn activity_object(event: &ActivityEvent) -> Object {
    let kind = match &event.kind {
        ActivityKind::Start => "start",
        ActivityKind::Retry { .. } => "retry",
        ActivityKind::Settle { .. } => "settle",
    };
    let object = js::object_from(&[
        ("type", JsValue::from_str(kind)),
        ("key", JsValue::from_str(event.key.as_str())),
        ("method", JsValue::from_str(&event.method)),
        ("path", JsValue::from_str(&event.path)),
        ("transport", JsValue::from_str(transport_name(&event.transport))),
        ("background", JsValue::from_bool(event.background)),
        ("at", JsValue::from_f64(event.at as f64)),
    ]);
    match &event.kind {
        ActivityKind::Start => {}
        ActivityKind::Retry { attempt, ended, delay_ms, waits_for_reconnect } => {
            js::set(&object, "attempt", &JsValue::from_f64(*attempt as f64));
            js::set(&object, "ended", &JsValue::from_str(ended));
            js::set(&object, "delayMs", &JsValue::from_f64(*delay_ms as f64));
            js::set(&object, "waitsForReconnect", &JsValue::from_bool(*waits_for_reconnect));
        }
        ActivityKind::Settle { ok, attempts, ended } => {
            js::set(&object, "ok", &JsValue::from_bool(*ok));
            js::set(&object, "attempts", &JsValue::from_f64(*attempts as f64));
            js::set(&object, "ended", &JsValue::from_str(ended));
        }
    }
    object
}

fn dispatch_activity(event: &ActivityEvent) {
    let listeners: Vec<Function> = with(|rt| rt.listeners.iter().cloned().collect());
    if listeners.is_empty() {
        return;
    }
    let object: JsValue = activity_object(event).into();
    for listener in listeners {
        if let Err(error) = listener.call1(&JsValue::UNDEFINED, &object) {
            js::console_error("an onCallActivity listener threw; the call and the other listeners go on", &error);
        }
    }
}

/// Adds an activity listener; returns the function that removes it.
pub(crate) fn add_listener(listener: Function) -> Function {
    let id = with(|rt| rt.listeners.add(listener));
    Closure::once_into_js(move || {
        with(|rt| rt.listeners.remove(id));
    })
    .unchecked_into()
}

/// Numbers per pending call in [`PendingCallsPacked::numbers`].
pub(crate) const PENDING_CALL_NUMBERS: usize = 4;

/// The unsettled calls, oldest first, packed for one crossing of the wasm boundary (10 000 pending
/// calls as objects made field by field through `Reflect` cost ~80 ms in Chromium): per call four
/// numbers — `issuedAt`, `unansweredAttempts`, `nextAttemptAt` (NaN for none), flags (1 background,
/// 2 waiting for a reconnect, 4 muxws) — and three strings — key, method, path — joined by NUL.
pub(crate) fn pending_calls_packed() -> (Vec<f64>, String) {
    with(|rt| {
        let capacity = rt.engine.live_calls();
        let mut numbers = Vec::with_capacity(capacity * PENDING_CALL_NUMBERS);
        let mut strings = String::with_capacity(capacity * 64);
        rt.engine.visit_pending_calls(|call| {
            let flags = u8::from(call.background)
                | (u8::from(call.waiting_for_reconnect) << 1)
                | (u8::from(matches!(call.transport, Transport::Muxws { .. })) << 2);
            numbers.extend([
                call.issued_at as f64,
                call.unanswered_attempts as f64,
                call.next_attempt_at.map_or(f64::NAN, |at| at as f64),
                flags as f64,
            ]);
            for text in [call.key.as_str(), call.method, call.path] {
                strings.push_str(text);
                strings.push('\0');
            }
        });
        (numbers, strings)
    })
}

/// How many calls have not settled, background calls left out.
pub(crate) fn pending_call_count() -> usize {
    with(|rt| rt.engine.pending_call_count())
}

/// Sends every waiting repeat now.
pub(crate) fn retry_now() {
    with(|rt| rt.engine.retry_now(js::now_ms()));
    pump();
}

/// Counts what the runtime holds, for leak tests: calls, listeners, armed timers.
pub(crate) fn stats() -> Object {
    with(|rt| {
        js::object_from(&[
            ("calls", JsValue::from_f64(rt.calls.len() as f64)),
            ("engineCalls", JsValue::from_f64(rt.engine.live_calls() as f64)),
            ("listeners", JsValue::from_f64(rt.listeners.len() as f64)),
            ("timerArmed", JsValue::from_bool(rt.timer.is_some())),
            ("peers", JsValue::from_f64(super::muxws::live_peers() as f64)),
        ])
    })
}

fn reschedule_timer() {
    let (stale, arm) = with(|rt| {
        let wanted = rt.engine.poll_timeout();
        if rt.timer.as_ref().map(|(at, _)| *at) == wanted {
            return (None, None);
        }
        let stale = rt.timer.take().map(|(_, handle)| handle);
        let handler = wanted.map(|_| {
            rt.timer_handler
                .get_or_insert_with(|| {
                    Closure::<dyn FnMut()>::new(on_timer).into_js_value().unchecked_into::<Function>()
                })
                .clone()
        });
        (stale, wanted.zip(handler))
    });
    if let Some(handle) = stale {
        js::clear_timeout(&handle);
    }
    if let Some((at, handler)) = arm {
        let handle = js::set_timeout(&handler, at.saturating_sub(js::now_ms()));
        with(|rt| rt.timer = Some((at, handle)));
    }
}

fn on_timer() {
    with(|rt| {
        rt.timer = None;
        rt.engine.handle_timeout(js::now_ms());
    });
    pump();
}
