//! The muxws transport: `MuxwsPeerCore` drives a [`muxws_proto::Peer`] (the sans-IO dialer and its
//! reconnect supervisor) with the platform `WebSocket` and timers, and serves two kinds of streams:
//! the attempts of ViewSet calls (reported to the call engine's runtime) and direct `request()`s.
//!
//! Like the runtime, the driver never holds its state borrowed while JavaScript runs: each pump
//! drains the peer's actions and events first, then performs them.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Array, Function, Object, Promise};
use muxws_proto::{
    Action, Event, Headers as WireHeaders, Hello, OpenError, Payload, Peer, PeerOptions, RawJson, ReconnectOptions,
    StreamError, StreamEvent, StreamRef,
};
use viewsets_core::{Abandon, AttemptEnd, CallId, Headers, PeerId};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::{self, type_error};
use super::runtime::{self, Outcome, Prepared, Route, StreamTransport};

/// Who waits for a stream's outcome.
enum Waiter {
    /// Attempt `attempt` of ViewSet call `call`.
    Call { call: CallId, attempt: u32 },
    /// A direct `request()`: its promise functions, whether it resolves with `{headers, payload}`,
    /// and its deadline timer.
    Request { resolve: Function, reject: Function, with_headers: bool, timer: Option<JsValue> },
    /// A stream from `open()`: its JS object's state, told about every event as it happens.
    Stream(Rc<RefCell<StreamCell>>),
}

/// What a stream from `open()` has shown so far, and who waits for the rest (WSM-API-002/025).
#[derive(Default)]
struct StreamCell {
    /// The answering side's first-frame headers; `{}` once the stream ended without any.
    reply_headers: Option<JsValue>,
    header_waiters: Vec<Function>,
    /// The first payload, or the error the stream failed with (memoised).
    outcome: Option<Result<JsValue, JsValue>>,
    result_waiters: Vec<(Function, Function)>,
    closed: bool,
    closed_waiters: Vec<Function>,
}

impl StreamCell {
    /// Applies one event; returns the promise functions to call, and with what, once no state is
    /// borrowed. `true` means the stream is over.
    fn apply(&mut self, event: StreamEvent, stream: StreamRef) -> (Vec<(Function, JsValue)>, bool) {
        let mut calls = Vec::new();
        let mut over = false;
        match event {
            StreamEvent::ReplyHeaders(headers) => {
                let (_, object) = reply_headers(Some(&headers));
                self.show_headers(object.into(), &mut calls);
            }
            StreamEvent::Payload(raw) => {
                if self.outcome.is_none() {
                    self.settle(Ok(js::json_parse(raw.as_str()).unwrap_or(JsValue::NULL)), &mut calls);
                }
            }
            // Fragments are reassembled in the protocol layer here (no `deliver_fragments`).
            StreamEvent::End { .. } | StreamEvent::Fragment { .. } => {}
            StreamEvent::Closed | StreamEvent::Failed(_) => {
                over = true;
                let outcome = match event {
                    StreamEvent::Failed(error) => Err(stream_error(&error, stream)),
                    _ => Err(js::make_error("ProtocolError", "the stream closed without a payload", &Object::new())),
                };
                if self.outcome.is_none() {
                    self.settle(outcome, &mut calls);
                }
                self.show_headers(Object::new().into(), &mut calls);
                self.closed = true;
                calls.extend(self.closed_waiters.drain(..).map(|f| (f, JsValue::UNDEFINED)));
            }
        }
        (calls, over)
    }

    fn show_headers(&mut self, headers: JsValue, calls: &mut Vec<(Function, JsValue)>) {
        if self.reply_headers.is_none() {
            self.reply_headers = Some(headers.clone());
            calls.extend(self.header_waiters.drain(..).map(|f| (f, headers.clone())));
        }
    }

    fn settle(&mut self, outcome: Result<JsValue, JsValue>, calls: &mut Vec<(Function, JsValue)>) {
        for (resolve, reject) in self.result_waiters.drain(..) {
            match &outcome {
                Ok(value) => calls.push((resolve, value.clone())),
                Err(error) => calls.push((reject, error.clone())),
            }
        }
        self.outcome = Some(outcome);
    }
}

struct StreamSlot {
    stream: StreamRef,
    waiter: Waiter,
    headers: Option<WireHeaders>,
    payload: Option<RawJson>,
}

struct Socket {
    id: muxws_proto::SocketId,
    ws: web_sys::WebSocket,
    _handlers: [Closure<dyn FnMut(JsValue)>; 4],
}

/// An attempt waiting for a free stream: its final headers and payload.
struct QueuedCall {
    call: CallId,
    attempt: u32,
    headers: WireHeaders,
    payload: Payload,
}

struct DriverState {
    peer: Peer,
    /// At most this many ViewSet calls have a stream open at once; later ones wait here, unsent,
    /// in order (the fastapi-viewsets server refuses a 101st concurrent stream).
    call_concurrency: usize,
    queued_calls: std::collections::VecDeque<QueuedCall>,
    sockets: Vec<Socket>,
    /// Sockets that closed: their handlers may still be on the stack, so they are dropped in a
    /// later task, never from inside one of them.
    closed_sockets: Vec<Socket>,
    streams: Vec<StreamSlot>,
    timer: Option<(u64, JsValue)>,
    on_close: Vec<(u32, Function)>,
    on_reconnect: Vec<(u32, Function)>,
    interceptors: Vec<(u32, Function)>,
    next_listener: u32,
    connecting: Option<(Function, Function)>,
    closing: Vec<Function>,
    closed_for_good: bool,
    /// The JS object of this peer, handed to `onReconnect` listeners and `connectMuxws()`.
    js_peer: Option<JsValue>,
}

/// One muxws peer: the supervisor, its sockets and the streams waited on.
pub(crate) struct PeerDriver {
    id: PeerId,
    url: String,
    state: RefCell<DriverState>,
    pumping: Cell<bool>,
    timer_handler: RefCell<Option<Function>>,
    me: RefCell<Weak<PeerDriver>>,
}

/// How many ViewSet calls may have a stream open on one peer at once: the default concurrency limit of
/// the muxws acceptor (`max_concurrent_streams=100`), which refuses the next stream.
const DEFAULT_CALL_CONCURRENCY: usize = 100;

thread_local! {
    static PEERS: RefCell<Vec<(PeerId, Weak<PeerDriver>)>> = const { RefCell::new(Vec::new()) };
    static NEXT_PEER: Cell<PeerId> = const { Cell::new(1) };
}

/// The route of a muxws proxy whose `peer` option is `peer` (a `MuxwsPeer` of the facade, or its
/// `MuxwsPeerCore`).
pub(crate) fn route_for(peer: &JsValue) -> Result<(Route, PeerId), JsValue> {
    let core = if js::get(peer, "peerId").is_undefined() { js::get(peer, "core") } else { peer.clone() };
    let id = js::get(&core, "peerId").as_f64().map(|id| id as PeerId);
    let driver = id.and_then(|id| {
        PEERS.with(|peers| peers.borrow().iter().find(|(p, _)| *p == id).and_then(|(_, weak)| weak.upgrade()))
    });
    match driver {
        Some(driver) => {
            let id = driver.id;
            Ok((Route::Stream(driver), id))
        }
        None => Err(type_error("options.peer must be a MuxwsPeer from connectMuxws()")),
    }
}

/// Asks peer `peer` to redial now (`retryNow()` while calls wait for it).
pub(crate) fn reconnect_now(peer: PeerId) {
    let driver = PEERS.with(|peers| peers.borrow().iter().find(|(p, _)| *p == peer).and_then(|(_, w)| w.upgrade()));
    if let Some(driver) = driver {
        driver.with(|state| state.peer.reconnect_now(js::now_ms()));
        driver.pump();
    }
}

/// How many peers are alive (for leak checks).
pub(crate) fn live_peers() -> usize {
    PEERS.with(|peers| peers.borrow().iter().filter(|(_, weak)| weak.strong_count() > 0).count())
}

// ------------------------------------------------------------------------------------- connect

fn number(options: &JsValue, name: &str) -> Result<Option<f64>, JsValue> {
    let value = js::get(options, name);
    if value.is_undefined() {
        return Ok(None);
    }
    value.as_f64().filter(|n| n.is_finite() || *n == f64::INFINITY).map(Some).ok_or_else(|| type_error(&format!("{name} must be a number")))
}

fn wire_headers(value: &JsValue, what: &str) -> Result<Option<WireHeaders>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if !value.is_object() {
        return Err(type_error(&format!("{what} must be an object")));
    }
    let text = js::json_stringify(value)?.unwrap_or_default();
    WireHeaders::from_json(&text).map(Some).map_err(|e| type_error(&format!("{what}: {e}")))
}

fn wire_payload(value: &JsValue) -> Result<Payload, JsValue> {
    match js::json_stringify(value).map_err(|e| type_error(&format!("the payload cannot be sent as JSON: {}", js::js_string(&e))))? {
        None => Ok(Payload::null()),
        Some(text) => Payload::json(text).map_err(|e| type_error(&format!("the payload cannot be sent as JSON: {e}"))),
    }
}

fn peer_options(options: &JsValue) -> Result<PeerOptions, JsValue> {
    let mut peer = PeerOptions::default();
    if options.is_undefined() || options.is_null() {
        return Ok(peer);
    }
    if !options.is_object() {
        return Err(type_error("connectMuxws options must be an object"));
    }
    let subprotocols = js::get(options, "subprotocols");
    if !subprotocols.is_undefined() {
        let list = subprotocols.dyn_ref::<Array>().ok_or_else(|| type_error("subprotocols must be an array of strings"))?;
        peer.subprotocols = list.iter().map(|s| s.as_string().ok_or_else(|| type_error("subprotocols must be an array of strings"))).collect::<Result<_, _>>()?;
    }
    let hello = js::get(options, "hello");
    let hello_headers = wire_headers(&js::get(options, "helloHeaders"), "helloHeaders")?;
    if !hello.is_undefined() || hello_headers.is_some() {
        peer.hello = Some(Hello { headers: hello_headers, payload: wire_payload(&hello)? });
    }
    if let Some(ms) = js::optional_ms(options, "helloTimeoutMs")? {
        peer.hello_timeout_ms = ms;
    }
    if let Some(ms) = js::optional_ms(options, "pingIntervalMs")? {
        peer.connection.ping_interval_ms = ms;
    }
    if let Some(ms) = js::optional_ms(options, "pingTimeoutMs")? {
        peer.connection.ping_timeout_ms = ms;
    }
    if let Some(bytes) = js::optional_ms(options, "maxPayloadBytes")? {
        peer.connection.max_payload_bytes = bytes as usize;
    }
    if let Some(bytes) = js::optional_ms(options, "maxFrameBytes")? {
        peer.connection.max_frame_bytes = bytes as usize;
    }
    let reconnect = js::get(options, "reconnect");
    if reconnect == JsValue::FALSE {
        peer.reconnect.max_attempts = Some(0);
    } else if reconnect.is_object() {
        let defaults = ReconnectOptions::default();
        peer.reconnect = ReconnectOptions {
            initial_delay_ms: number(&reconnect, "initialDelayMs")?.unwrap_or(defaults.initial_delay_ms),
            factor: number(&reconnect, "factor")?.unwrap_or(defaults.factor),
            max_delay_ms: number(&reconnect, "maxDelayMs")?.unwrap_or(defaults.max_delay_ms),
            jitter: number(&reconnect, "jitter")?.unwrap_or(defaults.jitter),
            max_attempts: match number(&reconnect, "maxAttempts")? {
                Some(n) if n.is_finite() => Some(n as u32),
                _ => None,
            },
        };
    }
    Ok(peer)
}

fn listeners(options: &JsValue, name: &str) -> Result<Vec<Function>, JsValue> {
    let value = js::get(options, name);
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    if let Some(function) = value.dyn_ref::<Function>() {
        return Ok(vec![function.clone()]);
    }
    let list = value.dyn_ref::<Array>().ok_or_else(|| type_error(&format!("{name} must be a function or an array of functions")))?;
    list.iter().map(|f| f.dyn_into::<Function>().map_err(|_| type_error(&format!("{name} must hold functions")))).collect()
}

/// `connectMuxws(url, options)`: dials, and resolves with the peer once the first connection is
/// established (subprotocol accepted, hello acknowledged); rejects if that first attempt fails — it
/// never returns a peer that is still trying.
#[wasm_bindgen(js_name = connectMuxwsCore)]
pub fn connect_muxws(url: JsValue, options: JsValue) -> Promise {
    let Some(url) = url.as_string() else {
        return Promise::reject(&type_error("connectMuxws(url): url must be a ws:// or wss:// URL string"));
    };
    match start(url, &options) {
        Ok(promise) => promise,
        Err(error) => Promise::reject(&error),
    }
}

fn start(url: String, options: &JsValue) -> Result<Promise, JsValue> {
    if js::get(&js_sys::global(), "WebSocket").is_undefined() {
        return Err(type_error("WebSocket is not available here (Node 20 needs --experimental-websocket)"));
    }
    if !(url.starts_with("ws://") || url.starts_with("wss://")) {
        return Err(js::make_error("TransportUrlError", &format!("muxws dials ws:// or wss:// URLs, not {url}"), &Object::new()));
    }
    let options_parsed = peer_options(options)?;
    let call_concurrency = match js::optional_ms(options, "callConcurrency")? {
        Some(0) => return Err(type_error("callConcurrency must be at least 1")),
        Some(n) => n as usize,
        None => DEFAULT_CALL_CONCURRENCY,
    };
    let on_close = listeners(options, "onClose")?;
    let on_reconnect = listeners(options, "onReconnect")?;
    let interceptors = listeners(options, "openInterceptors")?;
    let jitter = Box::new(|| js_sys::Math::random() * 2.0 - 1.0);
    let peer = Peer::new(options_parsed, jitter).map_err(|e| js_sys::Error::new(&e.to_string()))?;
    let id = NEXT_PEER.with(|n| n.replace(n.get() + 1));
    let mut next_listener = 1;
    let mut numbered = |list: Vec<Function>| {
        list.into_iter()
            .map(|f| {
                next_listener += 1;
                (next_listener - 1, f)
            })
            .collect::<Vec<_>>()
    };
    let (on_close, on_reconnect, interceptors) = (numbered(on_close), numbered(on_reconnect), numbered(interceptors));
    let driver = Rc::new(PeerDriver {
        id,
        url,
        state: RefCell::new(DriverState {
            peer,
            call_concurrency,
            queued_calls: Default::default(),
            sockets: Vec::new(),
            closed_sockets: Vec::new(),
            streams: Vec::new(),
            timer: None,
            on_close,
            on_reconnect,
            interceptors,
            next_listener,
            connecting: None,
            closing: Vec::new(),
            closed_for_good: false,
            js_peer: None,
        }),
        pumping: Cell::new(false),
        timer_handler: RefCell::new(None),
        me: RefCell::new(Weak::new()),
    });
    *driver.me.borrow_mut() = Rc::downgrade(&driver);
    PEERS.with(|peers| {
        let mut peers = peers.borrow_mut();
        peers.retain(|(_, weak)| weak.strong_count() > 0);
        peers.push((id, Rc::downgrade(&driver)));
    });
    let js_peer: JsValue = MuxwsPeerCore { driver: driver.clone() }.into();
    let mut slots = None;
    let promise = Promise::new(&mut |resolve, reject| slots = Some((resolve, reject)));
    driver.with(|state| {
        state.connecting = slots;
        state.js_peer = Some(js_peer);
    });
    driver.pump();
    Ok(promise)
}

// ------------------------------------------------------------------------------------- driver

impl PeerDriver {
    fn with<R>(&self, f: impl FnOnce(&mut DriverState) -> R) -> R {
        f(&mut self.state.borrow_mut())
    }

    fn rc(&self) -> Option<Rc<PeerDriver>> {
        self.me.borrow().upgrade()
    }

    /// Performs the peer's actions and delivers its events until it has nothing more to say.
    fn pump(&self) {
        if self.pumping.replace(true) {
            return;
        }
        loop {
            let now = js::now_ms();
            let next = self.with(|state| {
                if let Some(action) = state.peer.poll_action(now) {
                    return Some(Err(action));
                }
                state.peer.poll_event().map(Ok)
            });
            match next {
                Some(Err(action)) => self.perform(action),
                Some(Ok(event)) => self.deliver(event),
                None => break,
            }
        }
        self.pumping.set(false);
        self.reschedule();
    }

    fn perform(&self, action: Action) {
        match action {
            Action::Dial { socket, protocols } => self.dial(socket, &protocols),
            Action::Send { socket, text } => {
                let ws = self.with(|state| state.sockets.iter().find(|s| s.id == socket).map(|s| s.ws.clone()));
                if let Some(ws) = ws {
                    let _ = ws.send_with_str(&text);
                }
            }
            Action::Close { socket, code, reason } => {
                let ws = self.with(|state| state.sockets.iter().find(|s| s.id == socket).map(|s| s.ws.clone()));
                if let Some(ws) = ws {
                    let _ = ws.close_with_code_and_reason(code, &reason);
                }
            }
        }
    }

    fn dial(&self, socket: muxws_proto::SocketId, protocols: &[String]) {
        let offer: Array = protocols.iter().map(|p| JsValue::from_str(p)).collect();
        let Some(me) = self.rc() else { return };
        let ws = match web_sys::WebSocket::new_with_str_sequence(&self.url, &offer) {
            Ok(ws) => ws,
            Err(_) => {
                // A URL the platform refuses: reported as a socket that never opened.
                self.with(|state| state.peer.socket_closed(socket, 1006, "the WebSocket could not be created", false, js::now_ms()));
                return;
            }
        };
        let weak = Rc::downgrade(&me);
        let on_open = Closure::<dyn FnMut(JsValue)>::new({
            let weak = weak.clone();
            let ws = ws.clone();
            move |_| {
                if let Some(driver) = weak.upgrade() {
                    let protocol = ws.protocol();
                    driver.with(|state| state.peer.socket_opened(socket, &protocol, js::now_ms()));
                    driver.pump();
                }
            }
        });
        let on_message = Closure::<dyn FnMut(JsValue)>::new({
            let weak = weak.clone();
            move |event: JsValue| {
                if let Some(driver) = weak.upgrade() {
                    let data = js::get(&event, "data");
                    // The JSON codec is text only; a binary message cannot be decoded (WSM-CDC-002).
                    let now = js::now_ms();
                    match data.as_string() {
                        Some(text) => driver.with(|state| state.peer.socket_message(socket, &text, now)),
                        None => driver.with(|state| state.peer.socket_binary_message(socket, now)),
                    }
                    driver.pump();
                }
            }
        });
        // Node 20's WebSocket reports a refused handshake with `error` and no `close`; browsers send
        // both. An error ends the socket either way: the supervisor ignores a second report.
        let on_error = Closure::<dyn FnMut(JsValue)>::new({
            let weak = weak.clone();
            move |_| {
                if let Some(driver) = weak.upgrade() {
                    driver.socket_ended(socket, 1006, "", false);
                }
            }
        });
        let on_close = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            if let Some(driver) = weak.upgrade() {
                let code = js::get(&event, "code").as_f64().unwrap_or(1006.0) as u16;
                let reason = js::get(&event, "reason").as_string().unwrap_or_default();
                driver.socket_ended(socket, code, &reason, js::get(&event, "wasClean").is_truthy());
            }
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        ws.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.with(|state| state.sockets.push(Socket { id: socket, ws, _handlers: [on_open, on_message, on_close, on_error] }));
    }

    /// The socket closed (or failed): tells the supervisor, and retires the socket's handlers, which
    /// may be on the stack right now, so they are dropped in a later task.
    fn socket_ended(&self, socket: muxws_proto::SocketId, code: u16, reason: &str, clean: bool) {
        self.with(|state| {
            state.peer.socket_closed(socket, code, reason, clean, js::now_ms());
            if let Some(index) = state.sockets.iter().position(|s| s.id == socket) {
                let closed = state.sockets.swap_remove(index);
                state.closed_sockets.push(closed);
            }
        });
        let weak = self.me.borrow().clone();
        let sweep = Closure::once_into_js(move || {
            if let Some(driver) = weak.upgrade() {
                let swept = driver.with(|state| std::mem::take(&mut state.closed_sockets));
                drop(swept);
            }
        });
        js::set_timeout(sweep.unchecked_ref(), 0);
        self.pump();
    }

    fn deliver(&self, event: Event) {
        match event {
            Event::Established => {
                let (connecting, peer) = self.with(|state| (state.connecting.take(), state.js_peer.clone()));
                if let (Some((resolve, _)), Some(peer)) = (connecting, peer) {
                    let _ = resolve.call1(&JsValue::UNDEFINED, &peer);
                }
                runtime::peer_available(self.id, true);
                self.drain_queue();
            }
            Event::ConnectFailed(error) => {
                let connecting = self.with(|state| {
                    state.closed_for_good = true;
                    state.js_peer = None;
                    state.connecting.take()
                });
                let props = js::object_from(&[("code", JsValue::from_f64(1006.0))]);
                let error = js::make_error(error.class_name(), &error.to_string(), &props);
                if let Some((_, reject)) = connecting {
                    let _ = reject.call1(&JsValue::UNDEFINED, &error);
                }
            }
            Event::Reconnected { attempt } => {
                runtime::peer_available(self.id, true);
                self.drain_queue();
                let (listeners, peer) = self.with(|state| (state.on_reconnect.clone(), state.js_peer.clone()));
                for (_, listener) in listeners {
                    let result = listener.call2(&JsValue::UNDEFINED, &JsValue::from_f64(attempt as f64), &peer.clone().unwrap_or_default());
                    if let Err(error) = result {
                        js::console_error("a muxws onReconnect listener threw", &error);
                    }
                }
            }
            Event::Closed(reason) => {
                let for_good = !reason.will_retry;
                let (listeners, closing) = self.with(|state| {
                    if for_good {
                        state.closed_for_good = true;
                    }
                    (state.on_close.clone(), if for_good { std::mem::take(&mut state.closing) } else { Vec::new() })
                });
                let object: JsValue = js::object_from(&[
                    ("code", JsValue::from_f64(reason.code as f64)),
                    ("reason", JsValue::from_str(&reason.reason)),
                    ("wasClean", JsValue::from_bool(reason.was_clean)),
                    ("willRetry", JsValue::from_bool(reason.will_retry)),
                ])
                .into();
                for (_, listener) in listeners {
                    if let Err(error) = listener.call1(&JsValue::UNDEFINED, &object) {
                        js::console_error("a muxws onClose listener threw", &error);
                    }
                }
                for resolve in closing {
                    let _ = resolve.call0(&JsValue::UNDEFINED);
                }
                if for_good {
                    self.fail_queue();
                    runtime::peer_closed_for_good(self.id);
                    self.with(|state| state.js_peer = None);
                } else {
                    runtime::peer_available(self.id, false);
                }
            }
            Event::GoAway { .. } => runtime::peer_available(self.id, false),
            // No push handler is registered, so the protocol layer refuses incoming streams.
            Event::Incoming { .. } => {}
            Event::Stream { stream, event } => self.stream_event(stream, event),
        }
    }

    fn stream_event(&self, stream: StreamRef, event: StreamEvent) {
        let cell = self.with(|state| {
            state.streams.iter().find(|slot| slot.stream == stream).and_then(|slot| match &slot.waiter {
                Waiter::Stream(cell) => Some(cell.clone()),
                _ => None,
            })
        });
        if let Some(cell) = cell {
            let (calls, over) = cell.borrow_mut().apply(event, stream);
            if over {
                self.with(|state| state.streams.retain(|slot| slot.stream != stream));
            }
            for (function, value) in calls {
                let _ = function.call1(&JsValue::UNDEFINED, &value);
            }
            return;
        }
        let finished = self.with(|state| {
            let index = state.streams.iter().position(|slot| slot.stream == stream)?;
            let slot = &mut state.streams[index];
            match event {
                StreamEvent::ReplyHeaders(headers) => {
                    slot.headers = Some(headers);
                    None
                }
                StreamEvent::Payload(payload) => {
                    slot.payload.get_or_insert(payload);
                    None
                }
                StreamEvent::End { .. } | StreamEvent::Fragment { .. } => None,
                StreamEvent::Closed => Some((state.streams.swap_remove(index), None)),
                StreamEvent::Failed(error) => Some((state.streams.swap_remove(index), Some(error))),
            }
        });
        if let Some((slot, error)) = finished {
            self.finish(slot, error);
            self.drain_queue();
        }
    }

    fn call_streams(state: &DriverState) -> usize {
        state.streams.iter().filter(|slot| matches!(slot.waiter, Waiter::Call { .. })).count()
    }

    /// Opens queued calls while streams are free and the connection is up.
    fn drain_queue(&self) {
        loop {
            let next = self.with(|state| {
                if !state.peer.is_open() || Self::call_streams(state) >= state.call_concurrency {
                    return None;
                }
                state.queued_calls.pop_front()
            });
            let Some(queued) = next else { return };
            let QueuedCall { call, attempt, headers, payload } = queued;
            if let Err((error, _)) = self.open_stream(Some(headers), payload, true, Waiter::Call { call, attempt }) {
                let (end, error) = open_failure(&error);
                runtime::report(call, attempt, end, Outcome::Failure(error));
            }
        }
    }

    /// A peer closed for good: the calls still queued fail as their `open()` would.
    fn fail_queue(&self) {
        let queued = self.with(|state| std::mem::take(&mut state.queued_calls));
        for QueuedCall { call, attempt, .. } in queued {
            let error = closed_for_good_error();
            runtime::report(call, attempt, AttemptEnd::OpenConnectionClosed { closed_for_good: true }, Outcome::Failure(error));
        }
    }

    fn finish(&self, slot: StreamSlot, error: Option<StreamError>) {
        let closed_for_good = self.with(|state| state.closed_for_good || state.peer.is_closed());
        match (slot.waiter, error) {
            (Waiter::Call { call, attempt }, None) => {
                let (status, headers) = reply_headers(slot.headers.as_ref());
                let body = slot.payload.map_or(JsValue::NULL, |raw| js::json_parse(raw.as_str()).unwrap_or(JsValue::NULL));
                runtime::report(call, attempt, AttemptEnd::MuxwsReply { status }, Outcome::Answer { status, body, headers: headers.into() });
            }
            (Waiter::Call { call, attempt }, Some(error)) => {
                let end = match error.class_name() {
                    "StreamTimeout" => AttemptEnd::StreamTimeout,
                    "ConnectionLost" => AttemptEnd::ConnectionLost { closed_for_good },
                    "StreamRefused" => AttemptEnd::StreamRefused { closed_for_good },
                    _ => AttemptEnd::OtherError,
                };
                runtime::report(call, attempt, end, Outcome::Failure(stream_error(&error, slot.stream)));
            }
            (Waiter::Stream(_), _) => {}
            (Waiter::Request { resolve, reject, with_headers, timer }, outcome) => {
                if let Some(timer) = timer {
                    js::clear_timeout(&timer);
                }
                match outcome {
                    None => {
                        let payload = slot.payload.map_or(JsValue::NULL, |raw| js::json_parse(raw.as_str()).unwrap_or(JsValue::NULL));
                        let value = if with_headers {
                            let (_, headers) = reply_headers(slot.headers.as_ref());
                            js::object_from(&[("headers", headers.into()), ("payload", payload)]).into()
                        } else {
                            payload
                        };
                        let _ = resolve.call1(&JsValue::UNDEFINED, &value);
                    }
                    Some(error) => {
                        let _ = reject.call1(&JsValue::UNDEFINED, &stream_error(&error, slot.stream));
                    }
                }
            }
        }
    }

    fn reschedule(&self) {
        let wanted = self.with(|state| state.peer.poll_timeout());
        let (stale, arm) = self.with(|state| {
            if state.timer.as_ref().map(|(at, _)| *at) == wanted {
                return (None, None);
            }
            (state.timer.take().map(|(_, handle)| handle), wanted)
        });
        if let Some(handle) = stale {
            js::clear_timeout(&handle);
        }
        let Some(at) = arm else { return };
        let handler = self
            .timer_handler
            .borrow_mut()
            .get_or_insert_with(|| {
                let weak = self.me.borrow().clone();
                Closure::<dyn FnMut()>::new(move || {
                    if let Some(driver) = weak.upgrade() {
                        driver.with(|state| {
                            state.timer = None;
                            state.peer.handle_timeout(js::now_ms());
                        });
                        driver.pump();
                    }
                })
                .into_js_value()
                .unchecked_into()
            })
            .clone();
        let handle = js::set_timeout(&handler, at.saturating_sub(js::now_ms()));
        self.with(|state| state.timer = Some((at, handle)));
    }

    /// Runs the open interceptors on a copy of `headers` (a JS object) and returns what they left.
    fn intercept(&self, headers: &JsValue, payload: &JsValue) -> Result<(), JsValue> {
        let interceptors = self.with(|state| state.interceptors.clone());
        for (_, interceptor) in interceptors {
            let returned = interceptor.call2(&JsValue::UNDEFINED, headers, payload)?;
            if returned.is_instance_of::<Promise>() || js::get(&returned, "then").is_function() {
                return Err(type_error("an open interceptor must be synchronous; it returned a promise"));
            }
        }
        Ok(())
    }

    /// Opens one stream with final `headers` (the interceptors already ran).
    fn open_stream(&self, headers: Option<WireHeaders>, payload: Payload, end: bool, waiter: Waiter) -> Result<StreamRef, (OpenError, Waiter)> {
        let opened = self.with(|state| state.peer.open(headers, payload, end, js::now_ms()));
        match opened {
            Ok(stream) => {
                self.with(|state| state.streams.push(StreamSlot { stream, waiter, headers: None, payload: None }));
                self.pump();
                Ok(stream)
            }
            Err(error) => Err((error, waiter)),
        }
    }
}

/// `:status` (missing means 200) and the reply headers as a plain object.
fn reply_headers(headers: Option<&WireHeaders>) -> (u16, Object) {
    let text = headers.map_or_else(|| "{}".to_owned(), |h| h.to_json());
    let object: Object = js::json_parse(&text).ok().and_then(|v| v.dyn_into().ok()).unwrap_or_default();
    let status = headers
        .and_then(|h| h.get(":status"))
        .and_then(|raw| raw.as_str().trim_matches('"').parse::<u16>().ok())
        .unwrap_or(200);
    (status, object)
}

fn stream_error(error: &StreamError, stream: StreamRef) -> JsValue {
    let payload = match error {
        StreamError::RemoteReset { payload: Payload::Json(raw), .. } => js::json_parse(raw.as_str()).unwrap_or(JsValue::NULL),
        _ => JsValue::NULL,
    };
    let props = js::object_from(&[
        ("code", JsValue::from_f64(error.code() as f64)),
        ("reason", error.reason().map_or(JsValue::UNDEFINED, JsValue::from_str)),
        ("streamId", JsValue::from_f64(stream.id as f64)),
        ("payload", payload),
    ]);
    js::make_error(error.class_name(), &error.to_string(), &props)
}

/// The error `open()` throws on a live peer: `ConnectionGoingAway`, `ConnectionLost` or `ProtocolError`.
fn open_error(error: &OpenError) -> JsValue {
    let props = js::object_from(&[("code", JsValue::from_f64(9.0))]);
    js::make_error(error.class_name(), &error.to_string(), &props)
}

/// The error `open()` throws once the peer closed for good (seed: the call rejects with it).
fn closed_for_good_error() -> JsValue {
    let props = js::object_from(&[("code", JsValue::from_f64(1000.0)), ("wasClean", JsValue::TRUE)]);
    js::make_error("ConnectionClosed", "the muxws peer is closed for good", &props)
}

/// A header value as the JSON string muxws carries (the server reads every value with `str()`).
fn string_value(text: &str) -> RawJson {
    let quoted = js::json_stringify(&JsValue::from_str(text)).ok().flatten().unwrap_or_else(|| "\"\"".to_owned());
    RawJson::parse(quoted).unwrap_or_else(|_| RawJson::null())
}

impl StreamTransport for PeerDriver {
    fn open_attempt(&self, call: CallId, attempt: u32, prepared: &Prepared, carried: Option<&Headers>) -> Result<Headers, (AttemptEnd, JsValue)> {
        let closed_for_good = self.with(|state| state.closed_for_good || state.peer.is_closed());
        if closed_for_good {
            let error = closed_for_good_error();
            return Err((AttemptEnd::OpenConnectionClosed { closed_for_good: true }, error));
        }
        let sent: Headers = match carried {
            Some(headers) => headers.clone(),
            None => {
                let mut first = vec![(":method".to_owned(), prepared.method.clone()), (":path".to_owned(), prepared.path.clone())];
                if !prepared.query.is_empty() {
                    first.push((":query".to_owned(), prepared.query.clone()));
                }
                first.extend(prepared.first_headers.iter().cloned());
                let object = js::headers_object(&first);
                let payload = prepared.body.as_deref().map_or(JsValue::NULL, |b| js::json_parse(b).unwrap_or(JsValue::NULL));
                if let Err(error) = self.intercept(&object, &payload) {
                    return Err((AttemptEnd::OtherError, error));
                }
                let intercepted = js::stream_headers_from(&object.into(), "the headers an open interceptor set").map_err(|e| (AttemptEnd::OtherError, e))?;
                viewsets_core::with_key(intercepted, &prepared.key)
            }
        };
        let mut wire = WireHeaders::new();
        for (name, value) in &sent {
            wire.insert(name.to_ascii_lowercase(), string_value(value));
        }
        let payload = match &prepared.body {
            Some(body) => Payload::json(body.clone()).unwrap_or_else(|_| Payload::null()),
            None => Payload::null(),
        };
        let full = self.with(|state| {
            let full = Self::call_streams(state) >= state.call_concurrency || !state.queued_calls.is_empty();
            if full && state.peer.is_open() {
                state.queued_calls.push_back(QueuedCall { call, attempt, headers: wire.clone(), payload: payload.clone() });
            }
            full && state.peer.is_open()
        });
        if full {
            return Ok(sent);
        }
        match self.open_stream(Some(wire), payload, true, Waiter::Call { call, attempt }) {
            Ok(_) => Ok(sent),
            Err((error, _)) => Err(open_failure(&error)),
        }
    }

    fn abandon(&self, call: CallId, attempt: u32, why: Abandon) {
        let stream = self.with(|state| {
            state.queued_calls.retain(|queued| !(queued.call == call && queued.attempt == attempt));
            state
                .streams
                .iter()
                .find(|slot| matches!(slot.waiter, Waiter::Call { call: c, attempt: a } if c == call && a == attempt))
                .map(|slot| slot.stream)
        });
        let Some(stream) = stream else { return };
        self.with(|state| match why {
            Abandon::Timeout => {
                state.peer.timeout(stream);
            }
            Abandon::Superseded | Abandon::Cancelled => {
                state.peer.cancel(stream, Some("abandoned by the caller".to_owned()));
            }
        });
        self.pump();
    }
}

/// How an attempt whose `open()` threw ended, and the error it threw.
fn open_failure(error: &OpenError) -> (AttemptEnd, JsValue) {
    let end = match error {
        OpenError::GoingAway => AttemptEnd::OpenGoingAway { closed_for_good: false },
        OpenError::ConnectionLost => AttemptEnd::ConnectionLost { closed_for_good: false },
        OpenError::Unsendable(_) => AttemptEnd::OtherError,
    };
    (end, open_error(error))
}

// ------------------------------------------------------------------------------------- exports

/// A muxws peer (dialer side) over one WebSocket at a time, reconnecting by itself. Made by
/// `connectMuxws()`; the facade's `MuxwsPeer` wraps it.
#[wasm_bindgen]
pub struct MuxwsPeerCore {
    driver: Rc<PeerDriver>,
}

#[wasm_bindgen]
impl MuxwsPeerCore {
    /// The peer's number in this module (what a muxws proxy refers to).
    #[wasm_bindgen(getter, js_name = peerId)]
    pub fn peer_id(&self) -> f64 {
        self.driver.id as f64
    }

    /// True while a connection is established (false between sockets, in the hello window, while
    /// draining, and once closed).
    #[wasm_bindgen(getter, js_name = isOpen)]
    pub fn is_open(&self) -> bool {
        self.driver.with(|state| state.peer.is_open())
    }

    /// True once the peer will never dial again.
    #[wasm_bindgen(getter, js_name = isClosed)]
    pub fn is_closed(&self) -> bool {
        self.driver.with(|state| state.closed_for_good || state.peer.is_closed())
    }

    /// How many streams are waited on, queued calls included (for leak checks).
    #[wasm_bindgen(getter, js_name = streamCount)]
    pub fn stream_count(&self) -> u32 {
        self.driver.with(|state| (state.streams.len() + state.queued_calls.len()) as u32)
    }

    /// A unary request: `open(payload, {headers, end: true})` and its reply. Resolves with the
    /// payload, or with `{headers, payload}` when `options.withHeaders`. `options.timeoutMs` sends
    /// `reset(TIMEOUT)` and rejects with `StreamTimeout` when it passes. Throws-by-rejection
    /// exactly `ConnectionLost` (between sockets), `ConnectionGoingAway` or `ConnectionClosed`.
    pub fn request(&self, payload: JsValue, options: JsValue) -> Promise {
        match self.try_request(payload, &options) {
            Ok(promise) => promise,
            Err(error) => Promise::reject(&error),
        }
    }

    /// The final headers of a direct open: the caller's, through the open interceptors.
    fn direct_headers(&self, payload: &JsValue, options: &JsValue) -> Result<Option<WireHeaders>, JsValue> {
        if self.driver.with(|state| state.closed_for_good) {
            return Err(closed_for_good_error());
        }
        let headers = js::get(options, "headers");
        let had_headers = !(headers.is_undefined() || headers.is_null());
        let headers_copy: JsValue = if had_headers {
            Object::assign(&Object::new(), headers.dyn_ref::<Object>().ok_or_else(|| type_error("options.headers must be an object"))?).into()
        } else {
            Object::new().into()
        };
        self.driver.intercept(&headers_copy, payload)?;
        if had_headers || Object::keys(headers_copy.unchecked_ref::<Object>()).length() > 0 {
            wire_headers(&headers_copy, "options.headers")
        } else {
            Ok(None)
        }
    }

    fn try_request(&self, payload: JsValue, options: &JsValue) -> Result<Promise, JsValue> {
        let wire = self.direct_headers(&payload, options)?;
        let payload = wire_payload(&payload)?;
        let timeout = js::optional_ms(options, "timeoutMs")?;
        let with_headers = js::get(options, "withHeaders").is_truthy();
        let mut slots = None;
        let promise = Promise::new(&mut |resolve, reject| slots = Some((resolve, reject)));
        let (resolve, reject) = slots.expect("the executor runs synchronously");
        let waiter = Waiter::Request { resolve, reject, with_headers, timer: None };
        let stream = self.driver.open_stream(wire, payload, true, waiter).map_err(|(error, _)| open_error(&error))?;
        if let Some(ms) = timeout.filter(|ms| *ms > 0) {
            let weak = Rc::downgrade(&self.driver);
            let fire = Closure::once_into_js(move || {
                if let Some(driver) = weak.upgrade() {
                    driver.with(|state| state.peer.timeout(stream));
                    driver.pump();
                }
            });
            let handle = js::set_timeout(fire.unchecked_ref(), ms);
            self.driver.with(|state| {
                if let Some(slot) = state.streams.iter_mut().find(|slot| slot.stream == stream) {
                    if let Waiter::Request { timer, .. } = &mut slot.waiter {
                        *timer = Some(handle);
                        return;
                    }
                }
                js::clear_timeout(&handle);
            });
        }
        Ok(promise)
    }

    /// `open(payload, {headers, end = true})`: opens a stream synchronously and returns it; throws
    /// exactly `ConnectionLost` (between sockets), `ConnectionGoingAway` (after a goaway) or
    /// `ConnectionClosed` (closed for good), nothing sent (WSM-API-001/003/004).
    pub fn open(&self, payload: JsValue, options: JsValue) -> Result<MuxwsStreamCore, JsValue> {
        let wire = self.direct_headers(&payload, &options)?;
        let payload = wire_payload(&payload)?;
        let end = js::get(&options, "end") != JsValue::FALSE;
        let cell = Rc::new(RefCell::new(StreamCell::default()));
        let stream = self
            .driver
            .open_stream(wire, payload, end, Waiter::Stream(cell.clone()))
            .map_err(|(error, _)| open_error(&error))?;
        Ok(MuxwsStreamCore { driver: self.driver.clone(), stream, cell })
    }

    /// `close({code, reason, drainMs})`: stops reconnecting (even mid-backoff), sends `goaway`,
    /// drains, closes with 1000; resolves once `onClose` has reported `willRetry: false`.
    pub fn close(&self, options: JsValue) -> Promise {
        let code = js::get(&options, "code").as_f64().unwrap_or(0.0) as i64;
        let reason = js::get(&options, "reason").as_string();
        let drain = js::optional_ms(&options, "drainMs").ok().flatten().unwrap_or(muxws_proto::DEFAULT_DRAIN_MS);
        if self.is_closed() {
            return Promise::resolve(&JsValue::UNDEFINED);
        }
        let mut slot = None;
        let promise = Promise::new(&mut |resolve, _| slot = Some(resolve));
        self.driver.with(|state| {
            state.closing.extend(slot);
            state.peer.close(code, reason, drain, js::now_ms());
        });
        self.driver.pump();
        promise
    }

    /// Adds an `onClose({code, reason, wasClean, willRetry})` listener; returns its remover.
    #[wasm_bindgen(js_name = onClose)]
    pub fn on_close(&self, listener: Function) -> Function {
        self.add_listener(listener, |state| &mut state.on_close)
    }

    /// Adds an `onReconnect(attempt, peer)` listener; returns its remover.
    #[wasm_bindgen(js_name = onReconnect)]
    pub fn on_reconnect(&self, listener: Function) -> Function {
        self.add_listener(listener, |state| &mut state.on_reconnect)
    }

    /// Adds an open interceptor `(headers, payload) => void`: runs synchronously on every
    /// application open (not the hello) and may change `headers` in place; a ViewSet call's repeats
    /// carry what it set on the call's first stream. Returns its remover.
    #[wasm_bindgen(js_name = interceptOpen)]
    pub fn intercept_open(&self, interceptor: Function) -> Function {
        self.add_listener(interceptor, |state| &mut state.interceptors)
    }

    /// Skips a pending reconnect backoff and dials now.
    #[wasm_bindgen(js_name = reconnectNow)]
    pub fn reconnect_now(&self) {
        reconnect_now(self.driver.id);
    }

    fn add_listener(&self, listener: Function, list: fn(&mut DriverState) -> &mut Vec<(u32, Function)>) -> Function {
        let id = self.driver.with(|state| {
            let id = state.next_listener;
            state.next_listener += 1;
            list(state).push((id, listener));
            id
        });
        let weak = Rc::downgrade(&self.driver);
        Closure::once_into_js(move || {
            if let Some(driver) = weak.upgrade() {
                driver.with(|state| list(state).retain(|(i, _)| *i != id));
            }
        })
        .unchecked_into()
    }
}

/// A stream opened with `MuxwsPeerCore.open()`; the facade's `MuxwsStream` wraps it.
#[wasm_bindgen]
pub struct MuxwsStreamCore {
    driver: Rc<PeerDriver>,
    stream: StreamRef,
    cell: Rc<RefCell<StreamCell>>,
}

#[wasm_bindgen]
impl MuxwsStreamCore {
    /// The stream id, known as soon as `open()` returned (WSM-SID-008).
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> f64 {
        self.stream.id as f64
    }

    /// Resolves with the answering side's first-frame headers (`:status` from fastapi-viewsets),
    /// or `{}` if the stream ends without them; never rejects (WSM-API-025).
    #[wasm_bindgen(js_name = replyHeaders)]
    pub fn reply_headers(&self) -> Promise {
        let mut cell = self.cell.borrow_mut();
        match &cell.reply_headers {
            Some(headers) => Promise::resolve(headers),
            None => Promise::new(&mut |resolve, _| cell.header_waiters.push(resolve)),
        }
    }

    /// Resolves with the stream's first payload (memoised), or rejects with the error the stream
    /// failed with (`StreamReset`, `StreamTimeout`, `ConnectionLost`, …) (WSM-API-002).
    pub fn result(&self) -> Promise {
        let mut cell = self.cell.borrow_mut();
        match &cell.outcome {
            Some(Ok(value)) => Promise::resolve(value),
            Some(Err(error)) => Promise::reject(error),
            None => Promise::new(&mut |resolve, reject| cell.result_waiters.push((resolve, reject))),
        }
    }

    /// Resolves once the stream is over, however it ended; never rejects (WSM-API-023).
    pub fn closed(&self) -> Promise {
        let mut cell = self.cell.borrow_mut();
        if cell.closed {
            return Promise::resolve(&JsValue::UNDEFINED);
        }
        Promise::new(&mut |resolve, _| cell.closed_waiters.push(resolve))
    }

    /// Sends a `data` frame (with `end` when `end` is true) on a stream opened with `end: false`.
    /// Throws `StreamClosed` once this side ended or the stream closed normally, the stream's own
    /// error once it failed (WSM-FRM-011, WSM-ERR-009).
    pub fn send(&self, payload: JsValue, end: bool) -> Result<(), JsValue> {
        let payload = if payload.is_undefined() { Payload::Absent } else { wire_payload(&payload)? };
        let out = if end { muxws_proto::Outbound::end(payload) } else { muxws_proto::Outbound::data(payload) };
        let sent = self.driver.with(|state| state.peer.send(self.stream, out));
        match sent {
            Ok(()) => {
                self.driver.pump();
                Ok(())
            }
            Err(error) => Err(match (&error, &self.cell.borrow().outcome) {
                (muxws_proto::SendError::NotLive, Some(Err(failure))) => failure.clone(),
                (muxws_proto::SendError::NotLive | muxws_proto::SendError::AlreadyEnded, _) => {
                    js::make_error("StreamClosed", &error.to_string(), &Object::new())
                }
                _ => js::make_error(error.class_name(), &error.to_string(), &Object::new()),
            }),
        }
    }

    /// `reset(CANCELLED)` with `reason`, closed locally at once (WSM-ERR-012); a no-op once over.
    pub fn cancel(&self, reason: Option<String>) {
        self.driver.with(|state| state.peer.cancel(self.stream, reason));
        self.driver.pump();
    }
}
