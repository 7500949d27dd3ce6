//! The state of one live stream: who opened it and its two halves, each an explicit state (§4.2).
//!
//! A closed stream is not kept (WSM-STM-001), so neither half has a `Closed` state: when both
//! halves have ended the connection drops the record. Every change of state is one method here;
//! the connection asks these methods and never sets a half itself.

use crate::error::SendError;
use crate::fragment::Assembler;
use crate::frame::{FrameType, Headers};

/// The state of a live stream (§4.2); `idle` is never observable (WSM-STM-011) and `closed`
/// streams are not retained (WSM-STM-001).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamState {
    /// Both directions open (§4.2).
    Open,
    /// This peer sent `end` (WSM-STM-012).
    HalfClosedLocal,
    /// The remote sent `end` (WSM-STM-012).
    HalfClosedRemote,
}

/// Who opened the stream, and whether the application knows it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// This peer opened it (odd id): the application knows it from the start.
    Local,
    /// The remote opened it (a push, even id): the application knows it once its opening payload
    /// was handed over as `ConnEvent::Incoming` (`surfaced`).
    Remote { surfaced: bool },
}

/// What this side sends on the stream.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SendHalf {
    /// Nothing sent yet, so the frame that may carry headers is still to come (a stream the
    /// remote opened, before this side's first answer; WSM-FRM-016).
    Silent,
    /// This side sent its first frame (for a local stream: the open), and no `end`.
    Open,
    /// This side sent `end` (WSM-STM-012).
    Ended,
}

/// What the remote sends on the stream.
enum RecvHalf {
    /// Frames may come; `spoke` once the remote's first frame arrived (its one chance at headers
    /// is spent, WSM-FRM-016). Only a stream this peer opened starts with `spoke: false`.
    Open { spoke: bool },
    /// A fragmented payload is being reassembled, or handed out fragment by fragment
    /// (WSM-FRG-030).
    Assembling(Assembly),
    /// The last fragment of a payload went to the driver, whose verdict is awaited
    /// (fragment delivery).
    AwaitingVerdict(AwaitingVerdict),
    /// The remote sent `end` (WSM-STM-012).
    Ended,
}

/// A fragmented payload being put back together.
pub(super) struct Assembly {
    /// The frame the fragments belong to: a pushed `open`, or `data`.
    pub(super) kind: FrameType,
    pub(super) assembler: Assembler,
    /// The headers of the first fragment (an `open`'s).
    pub(super) headers: Option<Headers>,
    /// Bytes handed out as [`StreamEvent::Fragment`](super::StreamEvent::Fragment)s so far
    /// (fragment delivery).
    pub(super) passed: usize,
}

/// The end of a payload whose fragments went to the driver, held until it says whether the
/// joined text parsed (fragment delivery).
pub(super) struct AwaitingVerdict {
    pub(super) end: bool,
    pub(super) trailers: Option<Headers>,
}

/// What an inbound `data` frame is to the receiving half (see [`StreamRec::take_data`]).
#[derive(Clone, Copy)]
pub(super) enum DataStep {
    /// A stream-level violation: the stream is reset with `PROTOCOL_ERROR` for this reason.
    Violation(&'static str),
    /// The next fragment of the payload being reassembled.
    Continuation,
    /// A payload (whole, or its first fragment) or a bare `end`. `answer`: the remote's first
    /// frame on a stream this peer opened, whose headers are the reply's (WSM-API-025).
    Starts {
        /// The first frame of the answer.
        answer: bool,
    },
}

/// One live stream.
pub(super) struct StreamRec {
    origin: Origin,
    send: SendHalf,
    recv: RecvHalf,
}

impl StreamRec {
    /// A stream this peer opens now; `end` if the open carries it.
    pub(super) fn local(end: bool) -> StreamRec {
        StreamRec {
            origin: Origin::Local,
            send: if end { SendHalf::Ended } else { SendHalf::Open },
            recv: RecvHalf::Open { spoke: false },
        }
    }

    /// A stream the remote opens now: its open is its first frame, and the application learns
    /// of it only once the open's payload is complete.
    pub(super) fn remote() -> StreamRec {
        StreamRec {
            origin: Origin::Remote { surfaced: false },
            send: SendHalf::Silent,
            recv: RecvHalf::Open { spoke: true },
        }
    }

    /// This peer opened the stream.
    pub(super) fn is_local(&self) -> bool {
        matches!(self.origin, Origin::Local)
    }

    /// The application knows the stream: its events are reported (WSM-ERR-003).
    pub(super) fn is_surfaced(&self) -> bool {
        !matches!(self.origin, Origin::Remote { surfaced: false })
    }

    /// A pushed stream's opening payload was handed to the application.
    pub(super) fn surface(&mut self) {
        if let Origin::Remote { surfaced } = &mut self.origin {
            *surfaced = true;
        }
    }

    /// The §4.2 state, derived from the two halves (only here).
    pub(super) fn state(&self) -> StreamState {
        match (self.send, &self.recv) {
            (SendHalf::Ended, _) => StreamState::HalfClosedLocal,
            (_, RecvHalf::Ended) => StreamState::HalfClosedRemote,
            _ => StreamState::Open,
        }
    }

    /// Both halves ended: the stream closed normally and is to be dropped.
    pub(super) fn both_ended(&self) -> bool {
        matches!((self.send, &self.recv), (SendHalf::Ended, RecvHalf::Ended))
    }

    // ------------------------------------------------------------------------- send half

    /// This side already sent `end`.
    pub(super) fn local_ended(&self) -> bool {
        matches!(self.send, SendHalf::Ended)
    }

    /// Whether this side may send a frame now, `headers` saying whether it carries headers:
    /// nothing after `end` (WSM-FRM-011), headers only on this side's first frame (WSM-FRM-016).
    pub(super) fn check_send(&self, headers: bool) -> Result<(), SendError> {
        match self.send {
            SendHalf::Ended => Err(SendError::AlreadyEnded),
            SendHalf::Open if headers => Err(SendError::HeadersAlreadySent),
            SendHalf::Open | SendHalf::Silent => Ok(()),
        }
    }

    /// This side sent a frame, with `end` or not (after [`StreamRec::check_send`] allowed it).
    pub(super) fn sent(&mut self, end: bool) {
        self.send = if end { SendHalf::Ended } else { SendHalf::Open };
    }

    // ------------------------------------------------------------------------- receive half

    /// The receiving half takes an inbound `data` frame (`fragment`: it carries one; `headers`:
    /// it carries headers) and says what it is. Past the checks the remote has spoken.
    ///
    /// A payload awaiting its verdict is not expected here: every inbound message first settles
    /// the verdicts still awaited. Should one be, the frame is taken as on an open half and the
    /// verdict is dropped.
    pub(super) fn take_data(&mut self, fragment: bool, headers: bool) -> DataStep {
        let spoke = match &self.recv {
            RecvHalf::Ended => {
                return DataStep::Violation("data after the remote's end (WSM-STM-020)")
            }
            RecvHalf::Assembling(assembly) => {
                return if fragment && matches!(assembly.kind, FrameType::Data) {
                    DataStep::Continuation
                } else {
                    DataStep::Violation(
                        "a non-fragment frame arrived during reassembly (WSM-FRG-033)",
                    )
                };
            }
            RecvHalf::Open { spoke } => *spoke,
            RecvHalf::AwaitingVerdict(_) => true,
        };
        if headers && spoke {
            return DataStep::Violation("headers on a later frame (WSM-FRM-016)");
        }
        self.recv = RecvHalf::Open { spoke: true };
        DataStep::Starts {
            answer: !spoke && self.is_local(),
        }
    }

    /// The first fragment of a payload arrived: reassembly of a `kind` frame that carried
    /// `headers` begins.
    pub(super) fn begin_assembly(&mut self, kind: FrameType, headers: Option<Headers>) {
        self.recv = RecvHalf::Assembling(Assembly {
            kind,
            assembler: Assembler::new(),
            headers,
            passed: 0,
        });
    }

    /// The payload being reassembled, if one is.
    pub(super) fn assembly_mut(&mut self) -> Option<&mut Assembly> {
        match &mut self.recv {
            RecvHalf::Assembling(assembly) => Some(assembly),
            _ => None,
        }
    }

    /// A pushed `open` is being reassembled: its later fragments are expected.
    pub(super) fn assembling_open(&self) -> bool {
        matches!(&self.recv, RecvHalf::Assembling(a) if matches!(a.kind, FrameType::Open))
    }

    /// The payload being reassembled is complete: it leaves the half, which is open again until
    /// the frame's `end` (if any) takes effect.
    pub(super) fn finish_assembly(&mut self) -> Option<Assembly> {
        match core::mem::replace(&mut self.recv, RecvHalf::Open { spoke: true }) {
            RecvHalf::Assembling(assembly) => Some(assembly),
            other => {
                self.recv = other;
                None
            }
        }
    }

    /// The last fragment went to the driver: the frame's `end` and `trailers` wait for its
    /// verdict (WSM-FRG-030).
    pub(super) fn await_verdict(&mut self, end: bool, trailers: Option<Headers>) {
        self.recv = RecvHalf::AwaitingVerdict(AwaitingVerdict { end, trailers });
    }

    /// A payload waits for the driver's verdict.
    pub(super) fn awaits_verdict(&self) -> bool {
        matches!(self.recv, RecvHalf::AwaitingVerdict(_))
    }

    /// The driver's verdict came: the awaited end of the payload, if one was awaited; the half is
    /// open again until that `end` (if any) takes effect.
    pub(super) fn take_verdict(&mut self) -> Option<AwaitingVerdict> {
        match core::mem::replace(&mut self.recv, RecvHalf::Open { spoke: true }) {
            RecvHalf::AwaitingVerdict(awaited) => Some(awaited),
            other => {
                self.recv = other;
                None
            }
        }
    }

    /// The remote's `end` took effect (WSM-STM-012).
    pub(super) fn recv_ended(&mut self) {
        self.recv = RecvHalf::Ended;
    }
}

/// Each transition on its own, below the connection that drives them (the suites in `tests/`
/// drive them through frames).
#[cfg(test)]
mod tests {
    use super::*;

    fn violation(step: DataStep, rule: &str) -> bool {
        matches!(step, DataStep::Violation(reason) if reason.contains(rule))
    }

    #[test]
    fn a_local_stream_starts_surfaced_with_its_send_half_as_the_open_left_it() {
        let rec = StreamRec::local(false);
        assert!(rec.is_local() && rec.is_surfaced() && !rec.local_ended());
        assert_eq!(rec.state(), StreamState::Open);
        assert_eq!(rec.check_send(true), Err(SendError::HeadersAlreadySent));
        assert_eq!(rec.check_send(false), Ok(()));
        let ended = StreamRec::local(true);
        assert!(ended.local_ended() && !ended.both_ended());
        assert_eq!(ended.state(), StreamState::HalfClosedLocal);
        assert_eq!(ended.check_send(false), Err(SendError::AlreadyEnded));
    }

    #[test]
    fn a_pushed_stream_is_surfaced_once_and_may_answer_with_headers_once() {
        let mut rec = StreamRec::remote();
        assert!(!rec.is_local() && !rec.is_surfaced() && !rec.local_ended());
        rec.surface();
        assert!(rec.is_surfaced());
        assert_eq!(rec.check_send(true), Ok(()));
        rec.sent(false);
        assert_eq!(rec.check_send(true), Err(SendError::HeadersAlreadySent));
        assert_eq!(rec.check_send(false), Ok(()));
        rec.sent(true);
        assert!(rec.local_ended());
        assert_eq!(rec.check_send(false), Err(SendError::AlreadyEnded));
        assert_eq!(rec.state(), StreamState::HalfClosedLocal);
    }

    #[test]
    fn only_the_first_frame_on_a_local_stream_is_the_answer_and_carries_headers() {
        let mut rec = StreamRec::local(false);
        assert!(matches!(
            rec.take_data(false, true),
            DataStep::Starts { answer: true }
        ));
        assert!(matches!(
            rec.take_data(false, false),
            DataStep::Starts { answer: false }
        ));
        assert!(violation(rec.take_data(false, true), "WSM-FRM-016"));
        // A pushed stream's first frame was its open.
        let mut push = StreamRec::remote();
        assert!(matches!(
            push.take_data(false, false),
            DataStep::Starts { answer: false }
        ));
        assert!(violation(push.take_data(false, true), "WSM-FRM-016"));
    }

    #[test]
    fn a_data_payload_is_assembled_then_the_half_is_open_again() {
        let mut rec = StreamRec::local(false);
        assert!(rec.assembly_mut().is_none() && rec.finish_assembly().is_none());
        assert!(matches!(
            rec.take_data(true, true),
            DataStep::Starts { answer: true }
        ));
        rec.begin_assembly(FrameType::Data, None);
        assert!(!rec.assembling_open());
        assert_eq!(
            rec.assembly_mut().map(|a| a.kind.clone()),
            Some(FrameType::Data)
        );
        assert!(matches!(rec.take_data(true, false), DataStep::Continuation));
        assert!(violation(rec.take_data(false, false), "WSM-FRG-033"));
        let assembly = rec.finish_assembly();
        assert_eq!(assembly.map(|a| a.kind), Some(FrameType::Data));
        assert!(rec.assembly_mut().is_none() && rec.finish_assembly().is_none());
        assert_eq!(rec.state(), StreamState::Open);
        assert!(matches!(
            rec.take_data(false, false),
            DataStep::Starts { answer: false }
        ));
    }

    #[test]
    fn a_pushed_open_being_assembled_takes_no_data() {
        let mut rec = StreamRec::remote();
        rec.begin_assembly(FrameType::Open, Some(Headers::default()));
        assert!(rec.assembling_open());
        assert!(violation(rec.take_data(true, false), "WSM-FRG-033"));
        let assembly = rec.finish_assembly();
        assert!(assembly.is_some_and(|a| a.headers.is_some()));
        assert!(!rec.assembling_open());
    }

    #[test]
    fn a_handed_out_payload_waits_for_its_verdict_once() {
        let mut rec = StreamRec::local(false);
        assert!(!rec.awaits_verdict() && rec.take_verdict().is_none());
        rec.begin_assembly(FrameType::Data, None);
        rec.await_verdict(true, Some(Headers::default()));
        assert!(rec.awaits_verdict() && rec.assembly_mut().is_none());
        let awaited = rec.take_verdict();
        assert!(awaited.is_some_and(|a| a.end && a.trailers.is_some()));
        assert!(!rec.awaits_verdict() && rec.take_verdict().is_none());
        assert_eq!(rec.state(), StreamState::Open);
    }

    #[test]
    fn the_remote_end_closes_the_receiving_half_and_both_ends_close_the_stream() {
        let mut rec = StreamRec::local(false);
        rec.recv_ended();
        assert_eq!(rec.state(), StreamState::HalfClosedRemote);
        assert!(!rec.both_ended() && !rec.local_ended());
        assert!(violation(rec.take_data(false, false), "WSM-STM-020"));
        assert!(violation(rec.take_data(true, false), "WSM-STM-020"));
        rec.sent(true);
        assert!(rec.both_ended());
        assert_eq!(rec.state(), StreamState::HalfClosedLocal);
    }
}
