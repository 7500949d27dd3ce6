//! The inbound path of [`Connection`]: decoding, classification (§4.3), routing by id, and the
//! delivery of frames to live streams.

use alloc::{borrow::ToOwned, string::String};

use super::config::{GOAWAY_CLOSE_FALLBACK_MS, MAX_HEADER_KEYS};
use super::events::{ConnEvent, StreamEvent, Termination};
use super::id_map::StreamId;
use super::stream::{DataStep, StreamRec};
use super::{Connection, Phase};
use crate::error::{code, StreamError};
use crate::fragment::AssemblyError;
use crate::frame::{
    decode_limited, read_head, set_fresh, Frame, FrameType, Headers, MapRules, Payload, RawJson,
};
use crate::text::{around, cat3, prefix, push_u64};

/// Why an inbound stream-level frame is declined before its content is used.
#[derive(Clone, Copy)]
enum Refusal {
    /// The message is over `max_frame_bytes` (WSM-FRG-031).
    OverCap,
    /// `headers` or `trailers` has more than [`MAX_HEADER_KEYS`] members.
    HeaderKeys,
}

/// Where a stream-level frame goes, decided from its id alone.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Route {
    /// An `open` above the remote's high-water mark.
    NewOpen,
    /// A later fragment of a remote open being reassembled.
    OpenContinuation,
    /// A frame for a live stream.
    Live,
    /// At or below the high-water mark and not live: ignored (WSM-STM-002).
    Late,
}
impl Connection {
    /// Handle one inbound text message (WSM-CDC-002: text only). Never panics; every outcome is
    /// an event, a queued frame, a counter, or a [`Termination`].
    ///
    /// Hostile input costs time linear in its size, and a message over `max_frame_bytes` is
    /// refused from its first `max_frame_bytes` bytes without being decoded (WSM-FRG-031, see
    /// [`Connection::receive_over_cap`]).
    pub fn receive(&mut self, text: &str, now: u64) {
        self.take_message(text, false, now);
    }

    /// One inbound message, `text`, or its head when `over_cap` (known to be over the frame
    /// cap): the one path of [`Connection::receive`] and [`Connection::receive_over_cap`].
    #[inline(never)]
    fn take_message(&mut self, text: &str, over_cap: bool, now: u64) {
        if self.is_done() {
            return;
        }
        self.settle_verdicts();
        self.arrived(now);
        let cap = self.cfg.max_frame_bytes;
        let outcome = if over_cap || text.len() > cap {
            self.on_over_cap(prefix(text, cap))
        } else {
            let rules = MapRules {
                max_keys: MAX_HEADER_KEYS,
                seed: self.cfg.key_hash_seed,
            };
            match decode_limited(text, rules) {
                Ok(mut decoded) => {
                    let refusal = decoded.too_many_header_keys.then_some(Refusal::HeaderKeys);
                    self.on_frame(&mut decoded.frame, refusal, now)
                }
                Err(e) => Err(e.0),
            }
        };
        self.finish_input(outcome);
    }

    /// An inbound message known to be over `max_frame_bytes`, of which only `head` — its first
    /// bytes, any prefix (a driver that copies at most the cap + 1 bytes of a message passes what
    /// it copied) — is given. The message is declined as WSM-FRG-031 says: when its head names a
    /// stream-level frame and its stream (canonical encoders put `type` and `stream` first), that
    /// stream is reset with `PAYLOAD_TOO_LARGE` and the connection is kept, after the same id
    /// checks as any frame (an id-space violation stays connection-level); anything else — a
    /// `ping`, `pong` or `goaway` (an over-cap `ping` is never answered with an over-cap `pong`),
    /// an unknown type, a head that names no stream — belongs to no stream, so it is a
    /// connection-level protocol error, as in the reference ports. Cost: linear in `head`, read
    /// up to `max_frame_bytes`.
    pub fn receive_over_cap(&mut self, head: &str, now: u64) {
        self.take_message(head, true, now);
    }

    /// A binary message arrived. The JSON codec is a text codec and the peer never sniffs messages
    /// to pick a decoder, so this is an undecodable message: connection-level (WSM-CDC-002,
    /// WSM-FRM-005).
    pub fn receive_binary(&mut self, now: u64) {
        if self.is_done() {
            return;
        }
        self.arrived(now);
        self.protocol_error("binary message under the json codec (WSM-CDC-002)".to_owned());
    }

    /// Something arrived: the remote is alive (the heartbeat's clock, see [`Connection`]).
    fn arrived(&mut self, now: u64) {
        self.last_arrival = self.last_arrival.max(now);
    }

    fn finish_input(&mut self, outcome: Result<(), String>) {
        if let Err(reason) = outcome {
            self.protocol_error(reason);
        }
        self.check_drained();
    }

    // Out of line: smaller wasm.
    #[inline(never)]
    fn on_over_cap(&mut self, head: &str) -> Result<(), String> {
        let head = read_head(head);
        let kind = match head.kind {
            Some(kind) if kind.is_stream_level() && head.stream.is_some() => kind,
            other => {
                let mut reason = match &other {
                    Some(kind) => cat3("a `", kind.as_str(), "` message"),
                    None => "a message".to_owned(),
                };
                reason.push_str(" over the ");
                push_u64(&mut reason, self.cfg.max_frame_bytes as u64);
                reason.push_str("-byte frame cap names no stream in its head (WSM-FRG-031)");
                return Err(reason);
            }
        };
        let mut frame = Frame::new(kind);
        frame.stream = head.stream;
        set_fresh(&mut frame.fragment, head.fragment.then(String::new));
        self.on_stream_frame(&mut frame, Some(Refusal::OverCap))
    }

    /// A connection-level error: `goaway(PROTOCOL_ERROR)` replaces everything queued, every live
    /// stream fails `ConnectionLost`, and the owner closes the socket after the flush
    /// (WSM-STM-023, WSM-FRM-005).
    fn protocol_error(&mut self, reason: String) {
        self.writer.clear_all();
        self.push_fitted(
            0,
            Frame::goaway(
                code::PROTOCOL_ERROR,
                self.highest_remote_open,
                Some(reason.clone()),
            ),
        );
        self.goaway_sent = true;
        self.lose_all();
        self.phase = Phase::Done;
        self.termination = Some(Termination::ProtocolError { reason });
    }

    // Out of line: smaller wasm.
    #[inline(never)]
    fn on_frame(
        &mut self,
        frame: &mut Frame,
        refusal: Option<Refusal>,
        now: u64,
    ) -> Result<(), String> {
        if refusal.is_some() && !frame.kind.is_stream_level() {
            return Err(cat3(
                "`",
                frame.kind.as_str(),
                "` frame with a header map over MAX_HEADER_KEYS",
            ));
        }
        match frame.kind {
            FrameType::Unknown(_) => {
                self.unknown_frames += 1;
                Ok(())
            }
            FrameType::Ping => {
                self.push_nonce(FrameType::Pong, frame.nonce.take());
                Ok(())
            }
            FrameType::Pong => {
                if self.ping.is_some()
                    && frame.nonce.as_deref() == Some(crate::text::hex16(self.ping_count).as_str())
                {
                    self.ping = None;
                    // A clock that went back measures 0, never a wrapped figure.
                    self.round_trip = Some(now.saturating_sub(self.ping_sent_at));
                }
                Ok(())
            }
            FrameType::Goaway => {
                self.on_goaway(frame, now);
                Ok(())
            }
            FrameType::Open | FrameType::Data | FrameType::Reset => {
                self.on_stream_frame(frame, refusal)
            }
        }
    }

    fn on_goaway(&mut self, frame: &mut Frame, now: u64) {
        let announced = frame.last_stream.unwrap_or(0);
        let last = self
            .goaway_received
            .map_or(announced, |prev| prev.min(announced));
        self.goaway_received = Some(last);
        if self.goaway_deadline.is_none() {
            self.goaway_deadline = Some(now.saturating_add(GOAWAY_CLOSE_FALLBACK_MS));
        }
        self.events.push_back(ConnEvent::GoAway {
            code: frame.code.unwrap_or(code::NO_ERROR),
            reason: frame.reason.take(),
            last_stream: last,
        });
        // Our streams above `last`, in ascending id order: from the first id above it on.
        let mut at = self.streams.index(last).map_or_else(|at| at, |at| at + 1);
        while let Some((id, rec)) = self.streams.0.get(at) {
            let id = *id;
            if !rec.is_local() {
                at += 1;
                continue;
            }
            self.streams.remove(&id);
            self.writer.drop_lane(id);
            self.stream_event(id, StreamEvent::Failed(StreamError::Refused));
        }
    }

    fn on_stream_frame(
        &mut self,
        frame: &mut Frame,
        refusal: Option<Refusal>,
    ) -> Result<(), String> {
        let (id, route) = self.route(&frame.kind, frame.stream, frame.fragment.is_some())?;
        match route {
            Route::Late => {
                self.ignored_frames += 1;
                return Ok(());
            }
            Route::NewOpen => self.highest_remote_open = id,
            Route::OpenContinuation | Route::Live => {}
        }
        if let Some(refusal) = refusal {
            self.refuse(id, route, refusal);
            return Ok(());
        }
        match route {
            Route::NewOpen => self.on_remote_open(id, frame),
            Route::OpenContinuation => self.on_continuation(id, frame),
            _ if matches!(frame.kind, FrameType::Reset) => self.on_reset(id, frame),
            _ => self.on_data(id, frame),
        }
        Ok(())
    }

    /// Where a stream-level frame goes, by its id alone (WSM-SID-005, WSM-STM-002/003,
    /// WSM-FRM-015); `Err` is a connection-level error.
    fn route(
        &self,
        kind: &FrameType,
        stream: Option<StreamId>,
        fragment: bool,
    ) -> Result<(StreamId, Route), String> {
        let id = match stream {
            Some(id) if id > 0 => id,
            _ => {
                return Err(cat3(
                    "`",
                    kind.as_str(),
                    "` frame without a stream id (WSM-FRM-015)",
                ))
            }
        };
        let remote_parity = id % 2 == 0;
        if matches!(kind, FrameType::Open) {
            if !remote_parity {
                return Err(around(
                    "open for stream ",
                    id,
                    ": the acceptor must open even ids (WSM-SID-005)",
                ));
            }
            if id > self.highest_remote_open {
                return Ok((id, Route::NewOpen));
            }
            if fragment {
                match self.streams.get(&id) {
                    // A later fragment of an open being reassembled (only an accepted push is).
                    Some(rec) if cfg!(feature = "incoming") && rec.assembling_open() => {
                        return Ok((id, Route::OpenContinuation));
                    }
                    // A later fragment of an open already refused or reset: a late frame.
                    None => return Ok((id, Route::Late)),
                    Some(_) => {}
                }
            }
            let mut reason = around(
                "open for stream ",
                id,
                " is not above the remote's previous highest open ",
            );
            push_u64(&mut reason, self.highest_remote_open);
            reason.push_str(" (WSM-SID-005)");
            return Err(reason);
        }
        let mark = if remote_parity {
            self.highest_remote_open
        } else {
            self.highest_local_open
        };
        if id > mark {
            let mut reason = cat3("`", kind.as_str(), "` for stream ");
            push_u64(&mut reason, id);
            reason.push_str(", above the high-water mark ");
            push_u64(&mut reason, mark);
            reason.push_str(" (WSM-STM-003)");
            return Err(reason);
        }
        if !self.streams.contains_key(&id) {
            return Ok((id, Route::Late));
        }
        Ok((id, Route::Live))
    }

    /// Decline a frame the receiver's limits refuse: `reset(PAYLOAD_TOO_LARGE)` on its stream, the
    /// connection kept (WSM-FRG-031, WSM-STM-020/021). A new remote open is never recorded.
    fn refuse(&mut self, id: StreamId, route: Route, refusal: Refusal) {
        let reason = match refusal {
            Refusal::OverCap => around(
                "message over the ",
                self.cfg.max_frame_bytes as u64,
                "-byte frame cap (WSM-FRG-031)",
            ),
            Refusal::HeaderKeys => around(
                "header map over ",
                MAX_HEADER_KEYS as u64,
                " keys (MAX_HEADER_KEYS)",
            ),
        };
        if route == Route::NewOpen {
            self.push_fitted(id, Frame::reset(id, code::PAYLOAD_TOO_LARGE, Some(reason)));
        } else {
            self.stream_error(id, code::PAYLOAD_TOO_LARGE, reason);
        }
    }

    fn stream_error(&mut self, id: StreamId, reset_code: i64, reason: String) {
        self.local_reset(id, reset_code, Some(reason), Payload::Absent);
    }

    fn payload_too_large(&mut self, id: StreamId) {
        let reason = around(
            "payload over max_payload_bytes ",
            self.cfg.max_payload_bytes as u64,
            " (WSM-FRG-032)",
        );
        self.stream_error(id, code::PAYLOAD_TOO_LARGE, reason);
    }

    fn on_remote_open(&mut self, id: StreamId, frame: &mut Frame) {
        let live_remote = self.streams.values().filter(|rec| !rec.is_local()).count();
        let refusal = if !matches!(self.phase, Phase::Open) || self.goaway_sent {
            Some("going away (WSM-CON-021)")
        } else if !(cfg!(feature = "incoming") && self.cfg.accept_incoming) {
            // Without the `incoming` feature this is constant, and what accepts a push is not
            // compiled in (the wasm module registers no push handler).
            Some("no incoming-stream handler (WSM-STM-033)")
        } else if live_remote >= self.cfg.max_concurrent_streams {
            Some("too many streams in flight (WSM-STM-036)")
        } else {
            None
        };
        if let Some(reason) = refusal {
            self.push_fitted(id, Frame::reset(id, code::REFUSED, Some(reason.to_owned())));
            return;
        }
        self.streams.insert(id, StreamRec::remote());
        match frame.fragment.take() {
            Some(fragment) => {
                self.begin_assembly(id, FrameType::Open, frame.headers.take());
                self.feed(id, fragment, frame.more, frame.end, frame.trailers.take());
            }
            None => self.deliver(
                id,
                FrameType::Open,
                frame.headers.take(),
                core::mem::take(&mut frame.payload),
                frame.end,
                None,
            ),
        }
    }

    fn on_continuation(&mut self, id: StreamId, frame: &mut Frame) {
        if frame.headers.is_some() {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "headers on a later frame (WSM-FRM-016)".to_owned(),
            );
            return;
        }
        if let Some(fragment) = frame.fragment.take() {
            self.feed(id, fragment, frame.more, frame.end, frame.trailers.take());
        }
    }

    fn on_data(&mut self, id: StreamId, frame: &mut Frame) {
        let Some(rec) = self.streams.get_mut(&id) else {
            return;
        };
        let first_answer = match rec.take_data(frame.fragment.is_some(), frame.headers.is_some()) {
            DataStep::Violation(reason) => {
                self.stream_error(id, code::PROTOCOL_ERROR, reason.to_owned());
                return;
            }
            DataStep::Continuation => {
                self.on_continuation(id, frame);
                return;
            }
            DataStep::Starts { answer } => answer,
        };
        if first_answer {
            self.stream_event(
                id,
                StreamEvent::ReplyHeaders(frame.headers.take().unwrap_or_default()),
            );
        }
        match frame.fragment.take() {
            Some(fragment) => {
                self.begin_assembly(id, FrameType::Data, None);
                self.feed(id, fragment, frame.more, frame.end, frame.trailers.take());
            }
            None => self.deliver(
                id,
                FrameType::Data,
                None,
                core::mem::take(&mut frame.payload),
                frame.end,
                frame.trailers.take(),
            ),
        }
    }

    /// The first fragment of a fragmented `kind` payload (a pushed `open`, or `data`) that carried
    /// `headers` arrived on stream `id`: its reassembly begins ([`Connection::feed`] takes the
    /// fragments, the first one included).
    fn begin_assembly(&mut self, id: StreamId, kind: FrameType, headers: Option<Headers>) {
        if let Some(rec) = self.streams.get_mut(&id) {
            rec.begin_assembly(kind, headers);
        }
    }

    fn feed(
        &mut self,
        id: StreamId,
        fragment: String,
        more: bool,
        end: bool,
        trailers: Option<Headers>,
    ) {
        if more && end {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "end on a fragment that is not the last (WSM-FRG-020)".to_owned(),
            );
            return;
        }
        let limit = self.cfg.max_payload_bytes;
        let handed_out = self.cfg.deliver_fragments;
        let Some(assembly) = self.streams.get_mut(&id).and_then(StreamRec::assembly_mut) else {
            return;
        };
        if handed_out && matches!(assembly.kind, FrameType::Data) {
            if assembly.passed + fragment.len() > limit {
                self.payload_too_large(id);
                return;
            }
            assembly.passed += fragment.len();
            self.stream_event(
                id,
                StreamEvent::Fragment {
                    text: fragment,
                    more,
                },
            );
            if !more {
                if let Some(rec) = self.streams.get_mut(&id) {
                    rec.await_verdict(end, trailers);
                    self.verdicts_awaited += 1;
                }
            }
            return;
        }
        match assembly.assembler.feed(&fragment, more, limit) {
            Ok(None) => {}
            Ok(Some(payload)) => {
                let (kind, headers) = match self
                    .streams
                    .get_mut(&id)
                    .and_then(StreamRec::finish_assembly)
                {
                    Some(a) => (a.kind, a.headers),
                    None => return,
                };
                self.deliver(id, kind, headers, Payload::Json(payload), end, trailers);
            }
            Err(AssemblyError::TooLarge) => self.payload_too_large(id),
            Err(AssemblyError::Undecodable(e)) => self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                cat3("reassembled payload is not JSON (at ", &e.0, ")"),
            ),
        }
    }

    /// With [`ConnectionConfig::deliver_fragments`](super::ConnectionConfig::deliver_fragments): the driver joined the fragments of the
    /// stream's payload and `valid` says whether the text parsed as JSON. Parsed: the frame that
    /// carried the last fragment takes effect (its `end`, its trailers). Not parsed: the stream is
    /// reset with `PROTOCOL_ERROR` and fails (WSM-FRG-030). Ignored when no verdict is awaited.
    pub fn payload_checked(&mut self, id: StreamId, valid: bool) {
        let Some(awaited) = self.streams.get_mut(&id).and_then(StreamRec::take_verdict) else {
            return;
        };
        self.verdicts_awaited = self.verdicts_awaited.saturating_sub(1);
        if valid {
            self.deliver(
                id,
                FrameType::Data,
                None,
                Payload::Absent,
                awaited.end,
                awaited.trailers,
            );
        } else {
            self.stream_error(
                id,
                code::PROTOCOL_ERROR,
                "reassembled payload is not JSON (WSM-FRG-030)".to_owned(),
            );
        }
        self.check_drained();
    }

    /// Input arrived while payloads still wait for the driver's verdict: they count as parsed,
    /// so that a driver that never reports cannot stall its streams.
    fn settle_verdicts(&mut self) {
        // In ascending id order, each stream looked at once (the count never falls below the
        // streams that still wait: it is only lowered when a verdict is taken).
        let mut next = 0;
        while self.verdicts_awaited > 0 {
            let from = self.streams.index(next).unwrap_or_else(|at| at);
            let waiting = self.streams.0.get(from..).unwrap_or_default();
            let Some(&(id, _)) = waiting.iter().find(|(_, rec)| rec.awaits_verdict()) else {
                break;
            };
            self.payload_checked(id, true);
            next = id.saturating_add(1);
        }
        self.verdicts_awaited = 0;
    }

    /// A complete frame's worth of content arrived on a live stream.
    fn deliver(
        &mut self,
        id: StreamId,
        kind: FrameType,
        headers: Option<Headers>,
        payload: Payload,
        end: bool,
        trailers: Option<Headers>,
    ) {
        if let Payload::Json(raw) = &payload {
            if raw.as_str().len() > self.cfg.max_payload_bytes {
                self.payload_too_large(id);
                return;
            }
        }
        let Some(rec) = self.streams.get_mut(&id) else {
            return;
        };
        if end {
            rec.recv_ended();
        }
        // Only an accepted push delivers an open.
        if cfg!(feature = "incoming") && matches!(kind, FrameType::Open) {
            rec.surface();
            self.events.push_back(ConnEvent::Incoming {
                id,
                headers,
                payload,
                end,
            });
            return;
        }
        let closed = rec.both_ended();
        if let Payload::Json(raw) = payload {
            self.stream_event(id, StreamEvent::Payload(raw));
        }
        if end {
            self.stream_event(id, StreamEvent::End { trailers });
        }
        if closed {
            self.close_normally(id);
        }
    }

    fn on_reset(&mut self, id: StreamId, frame: &mut Frame) {
        let Some(rec) = self.streams.remove(&id) else {
            return;
        };
        // The remote killed the stream in both directions: nothing more goes out for it, and no
        // reset is sent back (WSM-FRM-014).
        self.writer.drop_lane(id);
        // A fragmented reset closes the stream on its first fragment; its later fragments are
        // then late frames (WSM-STM-002).
        let payload = match (frame.fragment.take(), frame.more) {
            (Some(fragment), false) => RawJson::parse(fragment)
                .map(Payload::Json)
                .unwrap_or_default(),
            (Some(_), true) => Payload::Absent,
            (None, _) => core::mem::take(&mut frame.payload),
        };
        if rec.is_surfaced() {
            self.stream_event(
                id,
                StreamEvent::Failed(StreamError::RemoteReset {
                    code: frame.code.unwrap_or(code::PROTOCOL_ERROR),
                    reason: frame.reason.take(),
                    payload,
                }),
            );
        }
    }
}
