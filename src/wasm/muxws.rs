//! The muxws transport: `MuxwsPeer` over the platform `WebSocket`, driven by `muxws-proto`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use viewsets_core::PeerId;
use wasm_bindgen::prelude::*;

use super::js::type_error;
use super::runtime::Route;

thread_local! {
    static RECONNECT_HOOKS: RefCell<HashMap<PeerId, Rc<dyn Fn()>>> = RefCell::new(HashMap::new());
}

/// The route of a muxws proxy whose `peer` option is `peer`.
pub(crate) fn route_for(_peer: &JsValue) -> Result<(Route, PeerId), JsValue> {
    Err(type_error("options.peer must be a MuxwsPeer from connectMuxws()"))
}

/// Asks peer `peer` to reconnect now (`retryNow()` while calls wait for it).
pub(crate) fn reconnect_now(peer: PeerId) {
    let hook = RECONNECT_HOOKS.with(|hooks| hooks.borrow().get(&peer).cloned());
    if let Some(hook) = hook {
        hook();
    }
}
