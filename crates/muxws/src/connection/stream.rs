//! The state of one live stream.

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
pub(super) struct Assembly {
    pub(super) kind: FrameType,
    pub(super) assembler: Assembler,
    pub(super) headers: Option<Headers>,
    /// Bytes handed out as [`StreamEvent::Fragment`]s so far (fragment delivery).
    pub(super) passed: usize,
}

/// The end of a payload whose fragments went to the driver, held until it says whether the
/// joined text parsed (fragment delivery).
pub(super) struct AwaitingVerdict {
    pub(super) end: bool,
    pub(super) trailers: Option<Headers>,
}

pub(super) struct StreamRec {
    pub(super) local: bool,
    pub(super) local_ended: bool,
    pub(super) remote_ended: bool,
    /// The remote has sent its first frame here; its one chance at headers is spent (WSM-FRM-016).
    pub(super) remote_spoke: bool,
    /// This side has sent its first frame here (for a local stream: the open).
    pub(super) we_spoke: bool,
    /// The application knows the stream (local streams always; incoming ones once surfaced).
    pub(super) surfaced: bool,
    pub(super) assembly: Option<Assembly>,
    pub(super) verdict: Option<AwaitingVerdict>,
}
