//! The exports: plain `extern "C"` functions of numbers, each forwarding to [`Module`] (one per
//! module instance), called by the driver on the instance; no glue at all (no wasm-bindgen): the
//! driver instantiates the module itself, with its payload reader as the one import. Each export's
//! name, parameters and result are declared once, here, by `wasm_abi::exports!`: the functions
//! (wasm32 only) and [`EXPORTS`], the table `MuxwsExports` in `pkg-template/src/abi/muxws.ts` is
//! rendered from (on every target, for the drift test in `abi.rs`).
//!
//! The module's state is only ever borrowed for the length of one call. The driver's payload
//! reader is the only JavaScript the module calls; it runs platform code alone and never throws
//! (the driver catches), so no JavaScript can run while the module is borrowed. Should a call
//! still arrive while it is (it cannot), it is ignored rather than panicking.

#[cfg(target_arch = "wasm32")]
use host::with;
#[cfg(target_arch = "wasm32")]
use crate::abi::BOUNDARY_VERSION;
#[cfg(target_arch = "wasm32")]
use crate::module::PeerConfig;

/// The module's one-thread state and the driver's payload reader, the one import (wasm32 only).
#[cfg(target_arch = "wasm32")]
mod host {
    use alloc::vec::Vec;
    use core::cell::{Cell, RefCell};

    use crate::module::Module;
    use crate::source::TextReader;

    #[link(wasm_import_module = "muxws")]
    extern "C" {
        /// The driver's payload reader (import `muxws.read`): writes the UTF-8 of string `source`
        /// from UTF-16 unit `from` on into `length` bytes of memory at `pointer`
        /// (`TextEncoder.encodeInto`) and returns how many it wrote; 0 for an unknown source. It
        /// never throws, and writes nowhere else.
        fn read(source: u32, from: u32, pointer: u32, length: u32) -> u32;
    }

    // `OneThread`, the allocator and the panic handler, as the calls module has them.
    wasm_abi::one_thread_module!();

    /// Sources released and not yet reported (see [`TextReader::release`]).
    static RELEASED: OneThread<Cell<Vec<u32>>> = OneThread(Cell::new(Vec::new()));
    static MODULE: OneThread<RefCell<Module<JsReader>>> =
        OneThread(RefCell::new(Module::new(JsReader)));

    /// Reads payloads through the driver's reader (the import [`read`]).
    #[derive(Clone)]
    pub(super) struct JsReader;

    impl TextReader for JsReader {
        fn read(&self, source: u32, from: u32, window: &mut [u8]) -> usize {
            // SAFETY: the import writes at most `window.len()` bytes at `window`'s address, which
            // `window` borrows mutably for the call.
            unsafe {
                read(
                    source,
                    from,
                    window.as_mut_ptr() as u32,
                    window.len() as u32,
                ) as usize
            }
        }

        fn release(&self, source: u32) {
            let mut released = RELEASED.0.take();
            released.push(source);
            put_back(released);
        }

        fn next_released(&self) -> Option<u32> {
            let mut released = RELEASED.0.take();
            let next = released.pop();
            put_back(released);
            next
        }
    }

    /// Puts the released sources back. What it replaces is the empty `Vec` their `take` left (no
    /// code runs in between), which owns no memory: forgetting it skips the drop code.
    fn put_back(released: Vec<u32>) {
        core::mem::forget(RELEASED.0.replace(released));
    }

    pub(super) fn with<T: Default>(f: impl FnOnce(&mut Module<JsReader>) -> T) -> T {
        match MODULE.0.try_borrow_mut() {
            Ok(mut module) => f(&mut module),
            Err(_) => T::default(),
        }
    }
}

wasm_abi::exports! {
    table EXPORTS; cfg(target_arch = "wasm32");
    /// [`BOUNDARY_VERSION`].
    fn boundary_version() -> u32 {
        BOUNDARY_VERSION
    }

    /// The input window, at least `size` bytes: its address (valid until the next call).
    fn input(size: u32) -> u32 {
        with(|m| m.input(size as usize).as_mut_ptr() as u32)
    }

    /// The address of the output record: `OUT_FIELDS` `f64`, its kinds and fields declared in
    /// `abi.rs`; it does not move.
    fn out() -> u32 {
        with(|m| m.out.fields.as_ptr() as u32)
    }

    /// A new peer (see [`Module::peer_new`]); its handle, or 0 with the error in the record.
    @named fn peer_new(
        ping_interval_ms: f64,
        ping_timeout_ms: f64,
        hello_timeout_ms: f64,
        max_frame_bytes: f64,
        max_payload_bytes: f64,
        initial_delay_ms: f64,
        factor: f64,
        max_delay_ms: f64,
        jitter: f64,
        max_attempts: f64,
        call_concurrency: f64,
        lazy: u32,
        seed: f64,
        protocols_len: i32,
        hello_headers_len: i32,
        hello_payload_len: i32,
    ) -> u32 {
        let config = PeerConfig {
            ping_interval_ms,
            ping_timeout_ms,
            hello_timeout_ms,
            max_frame_bytes,
            max_payload_bytes,
            initial_delay_ms,
            factor,
            max_delay_ms,
            jitter,
            max_attempts,
            call_concurrency,
            lazy: lazy != 0,
            seed,
        };
        with(|m| m.peer_new(&config, protocols_len, hello_headers_len, hello_payload_len))
    }

    /// [`Module::peer_free`].
    fn peer_free(peer: u32) {
        with(|m| m.peer_free(peer))
    }

    /// [`Module::socket_opened`].
    fn socket_opened(peer: u32, socket: f64, protocol_len: i32, now: f64) {
        with(|m| m.socket_opened(peer, socket, protocol_len, now))
    }

    /// [`Module::socket_message`].
    fn socket_message(peer: u32, socket: f64, len: i32, complete: u32, now: f64) {
        with(|m| m.socket_message(peer, socket, len, complete != 0, now))
    }

    /// [`Module::socket_binary`].
    fn socket_binary(peer: u32, socket: f64, now: f64) {
        with(|m| m.socket_binary(peer, socket, now))
    }

    /// [`Module::socket_closed`].
    fn socket_closed(
        peer: u32,
        socket: f64,
        code: u32,
        reason_len: i32,
        clean: u32,
        now: f64,
    ) {
        with(|m| m.socket_closed(peer, socket, code, reason_len, clean != 0, now))
    }

    /// [`Module::fallback`].
    fn fallback(peer: u32, after_ms: f64, now: f64) {
        with(|m| m.fallback(peer, after_ms, now))
    }

    /// [`Module::timer`].
    fn timer(peer: u32, now: f64) {
        with(|m| m.timer(peer, now))
    }

    /// [`Module::next_timeout`] (-1: none).
    fn next_timeout(peer: u32) -> f64 {
        with(|m| m.next_timeout(peer))
    }

    /// [`Module::open`]: the stream's tag, or 0 with the error in the record.
    fn open(
        peer: u32,
        headers_len: i32,
        source: u32,
        units: u32,
        end: u32,
        call: u32,
        now: f64,
    ) -> u32 {
        with(|m| m.open(peer, headers_len, source, units, end != 0, call != 0, now))
    }

    /// [`Module::send`]: 0, or the error class with the message in the record.
    fn send(peer: u32, tag: u32, source: u32, units: u32, end: u32) -> u32 {
        with(|m| m.send(peer, tag, source, units, end != 0))
    }

    /// [`Module::cancel`].
    fn cancel(peer: u32, tag: u32, reason_len: i32) {
        with(|m| m.cancel(peer, tag, reason_len))
    }

    /// [`Module::expire`].
    fn expire(peer: u32, tag: u32) {
        with(|m| m.expire(peer, tag))
    }

    /// [`Module::set_deadline`].
    fn set_deadline(peer: u32, tag: u32, at: f64) {
        with(|m| m.set_deadline(peer, tag, at))
    }

    /// [`Module::checked`].
    fn checked(peer: u32, tag: u32, valid: u32) {
        with(|m| m.checked(peer, tag, valid != 0))
    }

    /// [`Module::close`].
    fn close(peer: u32, code: f64, reason_len: i32, drain_ms: f64, now: f64) {
        with(|m| m.close(peer, code, reason_len, drain_ms, now))
    }

    /// [`Module::accept_pushes`]: `accept` 1 registers the push handler, 0 unregisters it.
    fn accept_pushes(peer: u32, accept: u32) {
        with(|m| m.accept_pushes(peer, accept != 0))
    }

    /// [`Module::finish`].
    fn finish(peer: u32, tag: u32) {
        with(|m| m.finish(peer, tag))
    }

    /// [`Module::reconnect_now`].
    fn reconnect_now(peer: u32, now: f64) -> u32 {
        with(|m| u32::from(m.reconnect_now(peer, now)))
    }

    /// [`Module::is_open`].
    fn is_open(peer: u32) -> u32 {
        with(|m| u32::from(m.is_open(peer)))
    }

    /// [`Module::is_closed`].
    fn is_closed(peer: u32) -> u32 {
        with(|m| u32::from(m.is_closed(peer)))
    }

    /// [`Module::stream_id`].
    fn stream_id(peer: u32, tag: u32) -> f64 {
        with(|m| m.stream_id(peer, tag))
    }

    /// [`Module::frame_cap`].
    fn frame_cap(peer: u32) -> u32 {
        with(|m| m.frame_cap(peer))
    }

    /// [`Module::stream_count`].
    fn stream_count(peer: u32) -> u32 {
        with(|m| m.stream_count(peer))
    }

    /// [`Module::poll`]: the next record's kind, 0 when there is none.
    fn poll(peer: u32, now: f64, sends: u32) -> u32 {
        with(|m| m.poll(peer, now, sends != 0))
    }
}
