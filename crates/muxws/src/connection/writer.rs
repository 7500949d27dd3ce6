//! The outbound side: what a send carries, and the round-robin writer over per-stream lanes.

use alloc::{boxed::Box, string::String};

use super::id_map::{IdMap, StreamId};
use crate::fragment::{
    check_sendable, check_sendable_source, FragmentError, PayloadSource, Split, Splitter,
};
use crate::frame::{encode, Frame, FrameType, Headers, Payload};
use vec_fifo::Fifo;

/// What one `send` on a stream carries (WSM-FRM-011/012/013/016).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Outbound {
    /// The payload; [`Payload::Absent`] for a payload-less frame (`SPEC.md` §2.2, WSM-FRM-011).
    pub payload: Payload,
    /// Leading headers — only on this side's first frame of a stream it did not open
    /// (WSM-FRM-016, WSM-API-024).
    pub headers: Option<Headers>,
    /// Trailers — only together with `end` (WSM-FRM-013).
    pub trailers: Option<Headers>,
    /// This side's last frame (WSM-FRM-012).
    pub end: bool,
}

impl Outbound {
    /// A `data` frame carrying `payload` (WSM-FRM-011).
    pub fn data(payload: Payload) -> Outbound {
        Outbound {
            payload,
            ..Outbound::default()
        }
    }

    /// A `data` frame carrying `payload` and `end` — `Payload::Absent` for a bare end
    /// (WSM-FRM-012).
    pub fn end(payload: Payload) -> Outbound {
        Outbound {
            payload,
            end: true,
            ..Outbound::default()
        }
    }

    /// Add leading headers (WSM-API-024).
    pub fn with_headers(mut self, headers: Headers) -> Outbound {
        self.headers = Some(headers);
        self
    }

    /// Add trailers (WSM-FRM-013).
    pub fn with_trailers(mut self, trailers: Headers) -> Outbound {
        self.trailers = Some(trailers);
        self
    }
}
/// An `open` or `data` frame this side sends on stream `id`, its payload still absent. Every
/// field is written here (no default frame whose fields are then replaced and dropped).
#[inline(never)]
pub(crate) fn outbound_frame(
    kind: FrameType,
    id: StreamId,
    headers: Option<Headers>,
    trailers: Option<Headers>,
    end: bool,
) -> Frame {
    Frame {
        kind,
        stream: Some(id),
        payload: Payload::Absent,
        fragment: None,
        more: false,
        headers,
        end,
        trailers,
        code: None,
        reason: None,
        nonce: None,
        last_stream: None,
    }
}
/// A frame waiting in a lane: whole, or with a payload a [`PayloadSource`] gives.
pub(super) struct Queued {
    frame: Frame,
    /// Where the payload comes from when `frame` does not carry it.
    source: Option<Box<dyn PayloadSource>>,
}

impl Queued {
    /// `frame` as it is.
    pub(super) fn whole(frame: Frame) -> Queued {
        Queued {
            frame,
            source: None,
        }
    }
}

/// An outbound payload as the application gave it.
pub(super) enum Body {
    Whole(Payload),
    Pulled(Box<dyn PayloadSource>),
}

impl Body {
    /// `frame` (payload absent) with this payload, checked sendable under `cap` (WSM-FRG-021/034).
    pub(super) fn queue(self, mut frame: Frame, cap: usize) -> Result<Queued, FragmentError> {
        match self {
            Body::Whole(payload) => {
                frame.payload = payload;
                check_sendable(&frame, cap)?;
                Ok(Queued::whole(frame))
            }
            Body::Pulled(mut source) => {
                check_sendable_source(&frame, source.as_mut(), cap)?;
                Ok(Queued {
                    frame,
                    source: Some(source),
                })
            }
        }
    }
}

#[derive(Default)]
struct Lane {
    queue: Fifo<Queued>,
    split: Option<Splitter>,
}

impl Lane {
    pub(super) fn has_work(&self) -> bool {
        self.split.is_some() || !self.queue.is_empty()
    }
}

/// Round-robin writer over per-stream lanes plus the connection lane `0` (WSM-FRG-017/018/019).
#[derive(Default)]
pub(super) struct Writer {
    lanes: IdMap<Lane>,
    /// Connection-level frames (always whole: one queue type for every lane).
    control: Fifo<Queued>,
    ring: Fifo<StreamId>,
}

impl Writer {
    pub(super) fn has_work(&self, lane: StreamId) -> bool {
        if lane == 0 {
            !self.control.is_empty()
        } else {
            self.lanes.get(&lane).is_some_and(Lane::has_work)
        }
    }

    pub(super) fn push(&mut self, lane: StreamId, frame: Frame) {
        if lane == 0 {
            let was_idle = self.control.is_empty();
            self.control.push_back(Queued::whole(frame));
            if was_idle && !self.ring.contains(&0) {
                self.ring.push_back(0);
            }
        } else {
            self.push_queued(lane, Queued::whole(frame));
        }
    }

    pub(super) fn push_queued(&mut self, lane: StreamId, item: Queued) {
        let was_idle = !self.has_work(lane);
        if let Some(entry) = self.lanes.entry_or_default(lane) {
            entry.queue.push_back(item);
        }
        if was_idle && !self.ring.contains(&lane) {
            self.ring.push_back(lane);
        }
    }

    /// The next message, never over `cap`: stream lanes are cut under it by the splitter, and a
    /// control frame that would not fit (only a `pong` could, echoing a hostile nonce) is dropped
    /// rather than sent (WSM-FRG-004: the cap binds every frame this side emits).
    pub(super) fn poll(&mut self, cap: usize) -> Option<String> {
        while let Some(lane) = self.ring.pop_front() {
            let produced = self.produce(lane, cap);
            if self.has_work(lane) {
                self.ring.push_back(lane);
            } else if lane != 0 {
                self.lanes.remove(&lane);
            }
            if let Some(text) = produced.filter(|text| text.len() <= cap) {
                return Some(text);
            }
        }
        None
    }

    pub(super) fn produce(&mut self, lane: StreamId, cap: usize) -> Option<String> {
        if lane == 0 {
            return Some(encode(&self.control.pop_front()?.frame));
        }
        let lane = self.lanes.get_mut(&lane)?;
        loop {
            if let Some(splitter) = &mut lane.split {
                match splitter.next_fragment_text() {
                    Ok(Some(fragment)) => {
                        if splitter.is_done() {
                            lane.split = None;
                        }
                        return Some(fragment);
                    }
                    // Unreachable after `check_sendable`; drop the rest rather than stall.
                    Ok(None) | Err(_) => lane.split = None,
                }
                continue;
            }
            let Queued { frame, source } = lane.queue.pop_front()?;
            let started = match source {
                None => Splitter::start(frame, cap),
                Some(source) => Splitter::start_with_source(frame, source, cap),
            };
            match started {
                Ok(Split::Whole(frame)) => return Some(encode(&frame)),
                Ok(Split::Fragments(splitter)) => lane.split = Some(splitter),
                Err(_) => {} // unsendable frames are refused at enqueue time
            }
        }
    }

    /// Before queueing a reset: drop the stream's unsent frames, except an `open` that has not
    /// (completely) reached the wire — a reset for an id the remote never saw opened is a
    /// connection-level error there (WSM-STM-003). A data payload cut mid-sequence is simply
    /// ended by the reset.
    pub(super) fn discard_for_reset(&mut self, lane: StreamId) {
        if let Some(lane) = self.lanes.get_mut(&lane) {
            if let Some(splitter) = &lane.split {
                if matches!(splitter.kind(), FrameType::Open) {
                    lane.queue.clear();
                    return;
                }
                lane.split = None;
            }
            let keep = usize::from(
                lane.queue
                    .front()
                    .is_some_and(|q| matches!(q.frame.kind, FrameType::Open)),
            );
            lane.queue.truncate(keep);
        }
    }

    pub(super) fn drop_lane(&mut self, lane: StreamId) {
        self.lanes.remove(&lane);
    }

    pub(super) fn clear_all(&mut self) {
        self.lanes.clear();
        self.control.clear();
        self.ring.clear();
    }

    pub(super) fn is_idle(&self) -> bool {
        self.control.is_empty() && !self.lanes.0.iter().any(|(_, lane)| lane.has_work())
    }
}
