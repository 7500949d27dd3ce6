//! The module's state and every entry point, as plain Rust (the wasm-bindgen exports in
//! `exports.rs` only forward to these): `muxws_proto::Peer`s by handle, the application's streams
//! by tag, the ViewSet calls waiting for a free stream (`callConcurrency`), and the output record
//! the driver reads after each `poll`.
//!
//! Everything comes in as numbers and as text the driver wrote into the module's input window;
//! everything goes out as one record of numbers plus one text. Unknown handles and tags are
//! ignored, and nothing here panics on any input.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use muxws_proto::{
    ConnectError, ConnectionConfig, ErrorClass, Event, Headers, Hello, Outbound, Payload,
    PayloadSource, Peer, PeerOptions, ReconnectOptions, SendError, StreamEvent,
    StreamRef, TextSource,
};

use crate::abi::{self, class};
use crate::config::{option_names, resolve};
use crate::out::{action_record, stream_record, write_details};
pub use crate::out::Out;
pub use crate::config::PeerConfig;
use crate::source::{PulledText, TextReader};
use vec_fifo::Fifo;
use viewsets_core::Fallback;
use wasm_abi::ms;

/// A stream the application knows: its wire handle and the tag the driver knows it by.
struct Live {
    stream: StreamRef,
    tag: u32,
    /// The attempt of a ViewSet call (counts towards `callConcurrency`).
    call: bool,
    /// When the stream times out (`request()`'s `timeoutMs`, on the driver's clock); `u64::MAX`:
    /// never. Kept here, so the peer's one timer serves it.
    deadline: u64,
}

/// A ViewSet call's stream the module holds: waiting for a free one (its final headers and
/// payload), or, when its turn came and it could not open, the failure to report (a record the
/// module makes itself). One type for both queues, so one queue's code serves both.
struct Held {
    tag: u32,
    headers: Option<Headers>,
    source: Option<Box<dyn PayloadSource>>,
    class: u32,
    message: String,
}

impl Held {
    /// Call `tag` could not open: `class` and `message`.
    // Out of line: smaller wasm.
    #[inline(never)]
    fn failed(tag: u32, (class, message): (u32, String)) -> Held {
        Held {
            tag,
            headers: None,
            source: None,
            class,
            message,
        }
    }
}

struct Slot {
    peer: Peer,
    /// The peer's subprotocol offer as every dial record's text (see [`offer`]), made once.
    offer: String,
    call_concurrency: usize,
    /// The frame cap (`maxFrameBytes`), for the driver's input window.
    frame_cap: u32,
    /// In no particular order: found by stream or by tag, one look at each.
    live: Vec<Live>,
    calls: usize,
    /// When the peer's calls go over REST (off unless the driver turned it on).
    fallback: Fallback,
    /// The socket that opened last: one that closes without having opened was refused.
    opened: f64,
    waiting: Fifo<Held>,
    failed: Fifo<Held>,
}

/// The whole module: peers by handle (never reused, so a late event of a freed peer's socket
/// cannot reach another), the input window, the output record.
pub struct Module<R: TextReader + Clone + 'static> {
    slots: Vec<Option<Slot>>,
    reader: R,
    next_tag: u32,
    /// The output record of the last call.
    pub out: Out,
    input: Vec<u8>,
}

/// `len` bytes of the input window as text (`""` when they are not UTF-8: the message is then
/// undecodable, the headers not JSON).
fn text_of(input: &[u8], len: i32) -> Option<&str> {
    let len = usize::try_from(len).ok()?;
    let bytes = input.get(..len)?;
    Some(core::str::from_utf8(bytes).unwrap_or_default())
}

/// The non-empty entries of a `,`-separated list.
fn subprotocols(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Cut as bytes (far less code than `str::split`): a `,` byte never occurs inside a multi-byte
    // character, so every entry is whole UTF-8 and `from_utf8` cannot fail.
    for entry in list.as_bytes().split(|b| *b == b',') {
        if !entry.is_empty() {
            out.push(core::str::from_utf8(entry).unwrap_or_default().to_owned());
        }
    }
    out
}

/// `peer`'s subprotocol offer ([`Peer::protocols`]) as a dial record's text: `,`-separated.
fn offer(peer: &Peer) -> String {
    let mut out = String::new();
    for protocol in peer.protocols() {
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(protocol);
    }
    out
}

fn slot_of(slots: &mut [Option<Slot>], peer: u32) -> Option<&mut Slot> {
    let index = usize::try_from(peer).ok()?.checked_sub(1)?;
    slots.get_mut(index)?.as_mut()
}

fn stream_of(slot: &Slot, tag: u32) -> Option<StreamRef> {
    slot.live.iter().find(|l| l.tag == tag).map(|l| l.stream)
}

fn add_live(slot: &mut Slot, stream: StreamRef, tag: u32, call: bool) {
    slot.live.push(Live { stream, tag, call, deadline: u64::MAX });
    slot.calls += usize::from(call);
}

fn open_now(
    slot: &mut Slot,
    headers: Option<Headers>,
    source: Option<Box<dyn PayloadSource>>,
    end: bool,
    now: u64,
) -> Result<StreamRef, (u32, String)> {
    if slot.peer.is_closed() {
        return Err(closed_for_good());
    }
    // No payload given: `null`, as `open()` sends (WSM-API-003), read from a source like any
    // other payload, so that one of the protocol layer's two open paths is linked in. Checked and
    // cut as `Payload::null()` would be: the same frame, the same errors.
    let source = source.unwrap_or_else(|| Box::new(TextSource::new("null".to_owned())));
    slot.peer
        .open_with_source(headers, source, end, now)
        .map_err(|e| (e.class() as u32, e.message()))
}

fn closed_for_good() -> (u32, String) {
    (
        ErrorClass::ConnectionClosed as u32,
        "the muxws peer is closed for good".to_owned(),
    )
}

/// Opens waiting calls while the connection is up and streams are free.
fn drain_waiting(slot: &mut Slot, now: u64) {
    while slot.peer.is_open() && slot.calls < slot.call_concurrency {
        let Some(waiting) = slot.waiting.pop_front() else {
            return;
        };
        match open_now(slot, waiting.headers, waiting.source, true, now) {
            Ok(stream) => add_live(slot, stream, waiting.tag, true),
            Err(error) => slot.failed.push_back(Held::failed(waiting.tag, error)),
        }
    }
}

/// Drops the waiting call `tag`, unsent: the others are queued again in their order (as
/// a queue's `retain` would, in less code).
fn drop_waiting(slot: &mut Slot, tag: u32) {
    let mut waiting = core::mem::take(&mut slot.waiting);
    while let Some(call) = waiting.pop_front() {
        if call.tag != tag {
            slot.waiting.push_back(call);
        }
    }
}

/// The peer is closed for good: the calls still waiting fail as their open would.
fn fail_waiting(slot: &mut Slot) {
    while let Some(waiting) = slot.waiting.pop_front() {
        slot.failed
            .push_back(Held::failed(waiting.tag, closed_for_good()));
    }
}

/// A small xorshift generator for the backoff jitter, in `[-1, 1]`.
fn jitter(seed: f64) -> Box<dyn FnMut() -> f64> {
    let mut state = (seed.abs() * 4_294_967_296.0) as u32 | 1;
    Box::new(move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        f64::from(state) / f64::from(u32::MAX) * 2.0 - 1.0
    })
}

impl<R: TextReader + Clone + 'static> Module<R> {
    /// An empty module reading payloads through `reader`.
    pub const fn new(reader: R) -> Module<R> {
        Module {
            slots: Vec::new(),
            reader,
            next_tag: 0,
            out: Out::new(),
            input: Vec::new(),
        }
    }

    /// The input window, grown to at least `size` bytes: the driver writes text here
    /// (`encodeInto`) before the call that reads it.
    pub fn input(&mut self, size: usize) -> &mut [u8] {
        if self.input.len() < size {
            self.input.resize(size, 0);
        }
        &mut self.input
    }

    fn source(&self, handle: u32, units: u32) -> Option<Box<dyn PayloadSource>> {
        (handle != 0).then(|| {
            Box::new(PulledText::new(self.reader.clone(), handle, units)) as Box<dyn PayloadSource>
        })
    }

    fn tag(&mut self) -> u32 {
        self.next_tag = self.next_tag.wrapping_add(1).max(1);
        self.next_tag
    }

    // ------------------------------------------------------------------------------ peers

    /// A new peer, dialling at once. The input window holds the subprotocols (`,`-separated,
    /// `protocols_len` bytes), then the hello's headers JSON (`hello_headers_len` bytes, -1: none)
    /// and the hello's payload JSON (`hello_payload_len`, -1: none). `config`'s defaults and range
    /// checks are applied here (see [`PeerConfig`]); a bad value is refused with class `CONFIG`.
    /// Returns its handle, or 0 with the error in the output record.
    pub fn peer_new(
        &mut self,
        config: &PeerConfig,
        protocols_len: i32,
        hello_headers_len: i32,
        hello_payload_len: i32,
    ) -> u32 {
        self.out.clear();
        let config = match resolve(config) {
            Ok(config) => config,
            Err(message) => return self.out.error(class::CONFIG, message.to_owned()),
        };
        // The input window: the subprotocols, then the hello's headers and payload. The hello
        // is read first, so that its errors return before anything else is built.
        let input = &self.input;
        let protocols = text_of(input, protocols_len).unwrap_or_default();
        let mut at = protocols.len();
        let mut next = |len: i32| {
            let text = text_of(input.get(at..).unwrap_or_default(), len);
            at += text.map_or(0, str::len);
            text
        };
        let (hello_headers, hello_payload) = (next(hello_headers_len), next(hello_payload_len));
        let mut hello = None;
        if hello_headers.is_some() || hello_payload.is_some() {
            let headers = match hello_headers.map(Headers::from_json).transpose() {
                Ok(headers) => headers,
                Err(e) => {
                    e.write_message(&mut self.out.text);
                    return self.out.failed(class::CONFIG);
                }
            };
            let payload = match hello_payload.map(Payload::json).transpose() {
                Ok(payload) => payload.unwrap_or_else(Payload::null),
                Err(e) => {
                    e.write_message(&mut self.out.text);
                    return self.out.failed(class::CONFIG);
                }
            };
            hello = Some(Hello { headers, payload });
        }
        let options = PeerOptions {
            subprotocols: subprotocols(protocols),
            hello,
            hello_timeout_ms: ms(config.hello_timeout_ms),
            reconnect: ReconnectOptions {
                initial_delay_ms: config.initial_delay_ms,
                factor: config.factor,
                max_delay_ms: config.max_delay_ms,
                jitter: config.jitter,
                max_attempts: (config.max_attempts >= 0.0 && config.max_attempts.is_finite())
                    .then_some(config.max_attempts as u32),
            },
            connection: ConnectionConfig {
                ping_interval_ms: ms(config.ping_interval_ms),
                ping_timeout_ms: ms(config.ping_timeout_ms),
                max_frame_bytes: ms(config.max_frame_bytes) as usize,
                max_payload_bytes: ms(config.max_payload_bytes) as usize,
                deliver_fragments: true,
                // All 53 random bits of the seed (the jitter generator takes its top 32).
                key_hash_seed: (config.seed.abs() * 9_007_199_254_740_992.0) as u64,
                ..ConnectionConfig::default()
            },
            retry_first_connect: config.lazy,
        };
        let peer = match Peer::new(options, jitter(config.seed)) {
            Ok(peer) => peer,
            Err(e) => return self.out.error(class::CONFIG, option_names(e.0)),
        };
        self.slots.push(Some(Slot {
            offer: offer(&peer),
            peer,
            call_concurrency: ms(config.call_concurrency) as usize,
            frame_cap: ms(config.max_frame_bytes) as u32,
            live: Vec::new(),
            calls: 0,
            fallback: Fallback::off(),
            opened: -1.0,
            waiting: Fifo::new(),
            failed: Fifo::new(),
        }));
        self.slots.len() as u32
    }

    /// Forgets a peer (after it closed for good and its last records were read).
    pub fn peer_free(&mut self, peer: u32) {
        if let Some(index) = (peer as usize).checked_sub(1) {
            if let Some(slot) = self.slots.get_mut(index) {
                *slot = None;
            }
        }
    }

    // ------------------------------------------------------------------------------ socket events

    /// The socket opened with subprotocol `ws.protocol` (input window, `protocol_len` bytes).
    pub fn socket_opened(&mut self, peer: u32, socket: f64, protocol_len: i32, now: f64) {
        let protocol = text_of(&self.input, protocol_len).unwrap_or_default();
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            slot.opened = socket;
            slot.peer.socket_opened(socket as u64, protocol, ms(now));
        }
    }

    /// A text message: its first `len` bytes are in the input window; `complete` is false when
    /// the message did not fit the window (the frame cap + 1 bytes), which refuses it unparsed.
    pub fn socket_message(&mut self, peer: u32, socket: f64, len: i32, complete: bool, now: f64) {
        let text = text_of(&self.input, len).unwrap_or_default();
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            if complete {
                slot.peer.socket_message(socket as u64, text, ms(now));
            } else {
                slot.peer
                    .socket_message_over_cap(socket as u64, text, ms(now));
            }
        }
    }

    /// A binary message (a protocol error under the JSON codec).
    pub fn socket_binary(&mut self, peer: u32, socket: f64, now: f64) {
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            slot.peer.socket_binary_message(socket as u64, ms(now));
        }
    }

    /// The socket closed, or failed before it opened; `reason_len` bytes of what the platform
    /// said are in the input window.
    pub fn socket_closed(
        &mut self,
        peer: u32,
        socket: f64,
        code: u32,
        reason_len: i32,
        clean: bool,
        now: f64,
    ) {
        let reason = text_of(&self.input, reason_len).unwrap_or_default();
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            let code = u16::try_from(code).unwrap_or(muxws_proto::CLOSE_ABNORMAL);
            if slot.opened != socket {
                // A dial that produced no socket: the upgrade was refused, or nothing answered.
                slot.fallback.refused(ms(now));
            }
            slot.peer
                .socket_closed(socket as u64, code, reason, clean, ms(now));
        }
    }

    /// The peer's timer fired: the peer's own timers, then every stream whose deadline is due
    /// times out (`reset(TIMEOUT)`, the stream fails with `StreamTimeout`).
    pub fn timer(&mut self, peer: u32, now: f64) {
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            let now = ms(now);
            slot.peer.handle_timeout(now);
            slot.fallback.handle_timeout(now);
            for live in &mut slot.live {
                if live.deadline <= now {
                    live.deadline = u64::MAX;
                    slot.peer.timeout(live.stream);
                }
            }
        }
    }

    /// When the peer's timer should fire next (the peer's own timers and the streams'
    /// deadlines); -1 for never.
    pub fn next_timeout(&mut self, peer: u32) -> f64 {
        let Some(slot) = slot_of(&mut self.slots, peer) else {
            return -1.0;
        };
        let mut at = slot.peer.poll_timeout().unwrap_or(u64::MAX);
        at = at.min(slot.fallback.poll_timeout().unwrap_or(u64::MAX));
        for live in &slot.live {
            at = at.min(live.deadline);
        }
        if at == u64::MAX {
            -1.0
        } else {
            at as f64
        }
    }

    /// Stream `tag` times out at `at` (the driver's clock) unless it is over by then
    /// (`request()`'s `timeoutMs`). Unknown tags are ignored.
    pub fn set_deadline(&mut self, peer: u32, tag: u32, at: f64) {
        if let Some(live) = slot_of(&mut self.slots, peer).and_then(|slot| slot.live.iter_mut().find(|l| l.tag == tag)) {
            live.deadline = ms(at);
        }
    }

    // ------------------------------------------------------------------------------ application calls

    /// Opens a stream. Headers: `headers_len` bytes of JSON in the input window (-1: none).
    /// Payload: the driver's string `source` (`units` UTF-16 units long; 0: `null`). A ViewSet
    /// call's stream (`call`) waits here, unsent, while `callConcurrency` calls have a stream.
    /// Returns the stream's tag, or 0 with the error in the output record: the class
    /// (`ConnectionLost` between sockets, `ConnectionGoingAway`, `ConnectionClosed` once closed
    /// for good, `ProtocolError` for headers over the frame cap) and the message.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        &mut self,
        peer: u32,
        headers_len: i32,
        source: u32,
        units: u32,
        end: bool,
        call: bool,
        now: f64,
    ) -> u32 {
        self.out.clear();
        let source = self.source(source, units);
        let headers = match text_of(&self.input, headers_len).map(Headers::from_json) {
            None => None,
            Some(Ok(headers)) => Some(headers),
            Some(Err(e)) => {
                let text = &mut self.out.text;
                text.push_str("the stream's headers are not a JSON object: ");
                e.write_message(text);
                return self.out.failed(ErrorClass::ProtocolError as u32);
            }
        };
        let tag = self.tag();
        let Some(slot) = slot_of(&mut self.slots, peer) else {
            let (class, message) = closed_for_good();
            return self.out.error(class, message);
        };
        let busy = slot.calls >= slot.call_concurrency || !slot.waiting.is_empty();
        if call && busy && slot.peer.is_open() {
            slot.waiting.push_back(Held {
                tag,
                headers,
                source,
                class: 0,
                message: String::new(),
            });
            return tag;
        }
        match open_now(slot, headers, source, end, ms(now)) {
            Ok(stream) => {
                add_live(slot, stream, tag, call);
                tag
            }
            Err((class, message)) => self.out.error(class, message),
        }
    }

    /// Sends a payload (`source`, 0: none) on stream `tag`, ending this side when `end`.
    /// Returns 0, or the error class with the message in the output record (`StreamClosed` when
    /// the stream is no longer live or this side ended).
    pub fn send(&mut self, peer: u32, tag: u32, source: u32, units: u32, end: bool) -> u32 {
        self.out.clear();
        let source = self.source(source, units);
        let live = slot_of(&mut self.slots, peer)
            .and_then(|slot| stream_of(slot, tag).map(|stream| (slot, stream)));
        let Some((slot, stream)) = live else {
            // The protocol layer's own refusal of a stream that is not live (its class and message):
            // the class is returned, as for any refusal (the output record's error returns 0).
            let refused = SendError::NotLive;
            let class = refused.class() as u32;
            refused.write_message(&mut self.out.text);
            self.out.failed(class);
            return class;
        };
        let sent = match source {
            Some(source) => slot.peer.send_with_source(stream, source, end),
            None => slot.peer.send(
                stream,
                Outbound {
                    end,
                    ..Outbound::default()
                },
            ),
        };
        match sent {
            Ok(()) => 0,
            Err(e) => {
                let class = e.class() as u32;
                e.write_message(&mut self.out.text);
                self.out.failed(class);
                class
            }
        }
    }

    /// Cancels stream `tag` (`reset(CANCELLED)`, `reason_len` bytes of reason in the input
    /// window, -1: none); a waiting call is dropped unsent.
    pub fn cancel(&mut self, peer: u32, tag: u32, reason_len: i32) {
        let reason = text_of(&self.input, reason_len).map(str::to_owned);
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            drop_waiting(slot, tag);
            if let Some(stream) = stream_of(slot, tag) {
                slot.peer.cancel(stream, reason);
            }
        }
    }

    /// Stream `tag`'s deadline passed: `reset(TIMEOUT)`, then `StreamTimeout`; a waiting call is
    /// dropped unsent.
    pub fn expire(&mut self, peer: u32, tag: u32) {
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            drop_waiting(slot, tag);
            if let Some(stream) = stream_of(slot, tag) {
                slot.peer.timeout(stream);
            }
        }
    }

    /// The driver joined stream `tag`'s fragments: `valid` says whether they parsed as JSON.
    pub fn checked(&mut self, peer: u32, tag: u32, valid: bool) {
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            if let Some(stream) = stream_of(slot, tag) {
                slot.peer.payload_checked(stream, valid);
            }
        }
    }

    /// `close({code, reason, drainMs})`; `reason_len` bytes of reason in the input window.
    pub fn close(&mut self, peer: u32, code: f64, reason_len: i32, drain_ms: f64, now: f64) {
        let reason = text_of(&self.input, reason_len).map(str::to_owned);
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            slot.peer.close(code as i64, reason, ms(drain_ms), ms(now));
        }
    }

    /// Registers (`accept`) or unregisters the driver's push handler: with it, a stream the server
    /// opens comes out as a `PUSH` record; without it the protocol layer refuses it (`reset(4)`,
    /// WSM-STM-033). Set before the first connection opens, no push that follows it is refused.
    pub fn accept_pushes(&mut self, peer: u32, accept: bool) {
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            slot.peer.set_accept_incoming(accept);
        }
    }

    /// The push handler of stream `tag` returned: the implicit end (a bare `data(end)` unless this
    /// side ended already, WSM-STM-035).
    pub fn finish(&mut self, peer: u32, tag: u32) {
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            if let Some(stream) = stream_of(slot, tag) {
                slot.peer.finish(stream);
            }
        }
    }

    /// Skips a pending backoff: dials now. False when none was pending.
    pub fn reconnect_now(&mut self, peer: u32, now: f64) -> bool {
        slot_of(&mut self.slots, peer).is_some_and(|slot| slot.peer.reconnect_now(ms(now)))
    }

    /// True while a connection is established.
    pub fn is_open(&mut self, peer: u32) -> bool {
        slot_of(&mut self.slots, peer).is_some_and(|slot| slot.peer.is_open())
    }

    /// True once the peer will never dial again (an unknown handle is closed).
    pub fn is_closed(&mut self, peer: u32) -> bool {
        slot_of(&mut self.slots, peer).is_none_or(|slot| slot.peer.is_closed())
    }

    /// The wire id of stream `tag` on its socket (`stream.id`); 0 while it waits for a free
    /// stream, or once it is over.
    pub fn stream_id(&mut self, peer: u32, tag: u32) -> f64 {
        slot_of(&mut self.slots, peer)
            .and_then(|slot| stream_of(slot, tag))
            .map_or(0.0, |stream| stream.id as f64)
    }

    /// The frame cap of `peer` (0 for an unknown handle): the driver sizes its input window by it.
    pub fn frame_cap(&mut self, peer: u32) -> u32 {
        slot_of(&mut self.slots, peer).map_or(0, |slot| slot.frame_cap)
    }

    /// Streams the application waits on, waiting calls included.
    pub fn stream_count(&mut self, peer: u32) -> u32 {
        slot_of(&mut self.slots, peer)
            .map_or(0, |slot| (slot.live.len() + slot.waiting.len()) as u32)
    }

    // ------------------------------------------------------------------------------ outputs

    /// The next output record of `peer` (its kind; 0 when there is nothing more): released
    /// sources first, then the module's own records, then — when `sends` — the peer's socket
    /// actions, then its events. With `sends` false the socket actions wait for a later poll.
    pub fn poll(&mut self, peer: u32, now: f64, sends: bool) -> u32 {
        self.out.clear();
        if let Some(handle) = self.reader.next_released() {
            return self.out.set(abi::release::KIND, &[f64::from(handle)]);
        }
        let now = ms(now);
        let Module {
            slots, out, next_tag, ..
        } = self;
        let Some(slot) = slot_of(slots, peer) else {
            return 0;
        };
        if let Some(failed) = slot.failed.pop_front() {
            return out.put(
                abi::open_failed::KIND,
                &[f64::from(failed.tag), f64::from(failed.class)],
                failed.message,
            );
        }
        if sends {
            if let Some(action) = slot.peer.poll_action(now) {
                return action_record(out, action, &slot.offer);
            }
        }
        while let Some(event) = slot.peer.poll_event() {
            let kind = event_record(slot, out, next_tag, event, now);
            if kind != 0 {
                return kind;
            }
        }
        if let Some(ms) = slot.peer.poll_round_trip() {
            return out.set(abi::round_trip::KIND, &[ms as f64]);
        }
        // After the events that changed it, so the driver hears of the loss first.
        match slot.fallback.poll_change() {
            Some(on) => out.set(abi::fallback::KIND, &[f64::from(u8::from(on))]),
            None => 0,
        }
    }

    /// Turns on the peer's REST fallback: its calls go over REST once it has been away for
    /// `after_ms` (counted from `now` while it has never connected), at once when a dial produced
    /// no socket or it closed for good (`viewsets_core::Fallback`).
    pub fn fallback(&mut self, peer: u32, after_ms: f64, now: f64) {
        if let Some(slot) = slot_of(&mut self.slots, peer) {
            slot.fallback = Fallback::new(ms(after_ms), ms(now));
            if slot.peer.is_open() {
                slot.fallback.connected();
            }
        }
    }
}

/// The record of one peer event (0: none for the driver, e.g. an event of a stream it does not
/// know), after the module's own bookkeeping.
fn event_record(slot: &mut Slot, out: &mut Out, next_tag: &mut u32, event: Event, now: u64) -> u32 {
    match event {
        Event::Established => {
            slot.fallback.connected();
            drain_waiting(slot, now);
            out.set(abi::established::KIND, &[])
        }
        Event::Reconnected { attempt } => {
            slot.fallback.connected();
            drain_waiting(slot, now);
            out.set(abi::reconnected::KIND, &[f64::from(attempt)])
        }
        Event::ConnectFailed(error) => {
            slot.fallback.closed_for_good();
            fail_waiting(slot);
            error.write_message(&mut out.text);
            // Laid out as STREAM_FAILED (no stream): a failed hello is its stream error, unwrapped
            // (WSM-RCN-026), with its code, reason and payload; a socket that never opened, the
            // close code the platform reported.
            let (code, (reason_at, payload_at)) = match &error {
                ConnectError::Hello(e) => (e.code() as f64, write_details(&mut out.text, e)),
                ConnectError::NotOpened { code, .. } => (f64::from(*code), (-1.0, -1.0)),
                _ => (f64::from(muxws_proto::CLOSE_ABNORMAL), (-1.0, -1.0)),
            };
            out.set(
                abi::connect_failed::KIND,
                &[0.0, f64::from(error.class() as u32), code, reason_at, payload_at],
            )
        }
        Event::Closed(reason) => {
            if reason.will_retry {
                slot.fallback.lost(now);
            } else {
                slot.fallback.closed_for_good();
                fail_waiting(slot);
            }
            out.put(
                abi::closed::KIND,
                &[
                    f64::from(reason.code),
                    f64::from(u8::from(reason.was_clean)),
                    f64::from(u8::from(reason.will_retry)),
                ],
                reason.reason,
            )
        }
        Event::GoAway {
            code,
            reason,
            last_stream,
        } => out.put(
            abi::goaway::KIND,
            &[code as f64, last_stream as f64],
            reason.unwrap_or_default(),
        ),
        // A push (only once the driver registered a handler: without one the protocol layer
        // refuses it): the stream is live under a new tag until the driver finishes or cancels it.
        Event::Incoming {
            stream,
            headers,
            payload,
            end,
        } => {
            *next_tag = next_tag.wrapping_add(1).max(1);
            add_live(slot, stream, *next_tag, false);
            match headers {
                Some(headers) => headers.write_json(&mut out.text),
                None => out.text.push_str("{}"),
            }
            let payload_at = match payload {
                Payload::Json(raw) => {
                    let at = out.text.len() as f64;
                    out.text.push_str(raw.as_str());
                    at
                }
                Payload::Absent => -1.0,
            };
            out.set(
                abi::push::KIND,
                &[f64::from(*next_tag), stream.id as f64, f64::from(u8::from(end)), payload_at],
            )
        }
        Event::Stream { stream, event } => {
            let Some(at) = slot.live.iter().position(|l| l.stream == stream) else {
                return 0;
            };
            let Some(live) = slot.live.get(at) else {
                return 0;
            };
            let tag = f64::from(live.tag);
            let over = matches!(event, StreamEvent::Closed | StreamEvent::Failed(_));
            let kind = stream_record(out, tag, event);
            // Removed by moving the last entry into its place (the order does not matter).
            if let Some(gone) = over.then(|| slot.live.pop()).flatten() {
                let gone = match slot.live.get_mut(at) {
                    Some(entry) => core::mem::replace(entry, gone),
                    None => gone,
                };
                if gone.call {
                    slot.calls -= 1;
                    drain_waiting(slot, now);
                }
            }
            kind
        }
    }
}

