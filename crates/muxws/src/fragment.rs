//! Fragmentation: the send-side splitter and the receive-side assembler (`SPEC.md` §3,
//! WSM-FRG-001…035).
//!
//! Every size is the UTF-8 byte length of the **whole encoded message** (WSM-FRG-001); Rust's
//! `str::len` is already that. The splitter is the reference algorithm, so it cuts where the
//! Python and TypeScript ports cut (WSM-FRG-016):
//!
//! 1. a frame whose encoding fits the cap goes out whole;
//! 2. otherwise the payload's JSON text is sliced: each pass first tries everything left as the
//!    closing fragment (`end`/`trailers`, no `more`) — even when nothing is left (WSM-FRG-020);
//! 3. else a middle slice of `budget = max(1, cap − min(512, cap/2))` bytes (WSM-FRG-013), cut back
//!    to a codepoint boundary (WSM-FRG-012), at least one codepoint;
//! 4. verified and shrunk to the largest codepoint count whose encoded frame fits (WSM-FRG-014) —
//!    the fragment text is JSON-escaped again inside the envelope, so a control character costs six
//!    bytes;
//! 5. `headers` ride the first fragment only (never split, WSM-FRG-021), `end`/`trailers` the last
//!    only, `code`/`reason` every fragment.
//!
//! [`Splitter`] produces fragments lazily, one at a time, so the writer can keep at most one unsent
//! fragment per stream (WSM-FRG-018). [`split_frame`] is the same computation as a pure function
//! (WSM-FRG-015): the reference the test suites hold the splitter to (neither the peer nor the wasm
//! module calls it, so it is not re-exported at the crate's root).
//!
//! The splitter never needs the whole payload at once: it reads the payload's text through a
//! [`PayloadSource`], one window of at most `cap + 1` bytes per fragment, and consumes only the
//! fragment's share of it. A driver whose payloads live elsewhere (the wasm module's are
//! JavaScript strings) hands in its own source, so a payload of any size costs the splitter one
//! window of memory; [`TextSource`] is the source over a `String`, and a [`Payload`] given whole
//! is split through one, so both paths cut in exactly the same places.

use alloc::{borrow::ToOwned, boxed::Box, string::String, vec, vec::Vec};
use core::fmt;

use crate::frame::{
    encode, escaped_width, Envelope, Frame, FrameType, InvalidJson, Payload, RawJson,
};
use crate::text::prefix;

/// The largest encoded message a sender may emit: a protocol constant, never negotiated, announced
/// or configured (WSM-FRG-004).
pub const MAX_FRAME_BYTES: usize = 65_536;

/// Default largest reassembled payload this peer accepts; local, never announced (WSM-FRG-035).
pub const DEFAULT_MAX_PAYLOAD_BYTES: usize = 67_108_864;

/// Smallest test-override cap a [`crate::ConnectionConfig`] accepts (WSM-FRG-005, WSM-FRG-034):
/// room for a fragment envelope plus one escaped codepoint on an early stream. The shared
/// conformance corpus goes as low as 64.
pub const MIN_FRAME_BYTES: usize = 64;

/// Why a frame cannot be cut under a cap (WSM-FRG-021, WSM-FRG-034).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FragmentError {
    /// The frame does not fit and has no payload to fragment: its headers (or other envelope
    /// fields) alone exceed the cap, and headers are never fragmented (WSM-FRG-021).
    EnvelopeTooLarge {
        /// The cap in bytes.
        cap: usize,
    },
    /// Not even one codepoint of payload fits beside the envelope (WSM-FRG-034).
    Floor {
        /// The cap in bytes.
        cap: usize,
    },
    /// The closing fragment does not fit even with no payload: `end`/`trailers` are never split
    /// (WSM-FRG-020, WSM-FRG-034).
    ClosingFloor {
        /// The cap in bytes.
        cap: usize,
    },
}

impl FragmentError {
    /// Appends [`FragmentError::message`] to `out`.
    pub fn write_message(&self, out: &mut String) {
        let (head, cap, tail) = match self {
            FragmentError::EnvelopeTooLarge { cap } => (
                "frame exceeds the ",
                cap,
                "-byte cap but carries no payload to fragment; headers are never fragmented (WSM-FRG-021)",
            ),
            FragmentError::Floor { cap } => (
                "a frame cap of ",
                cap,
                " bytes cannot hold this frame's envelope plus one indivisible unit of payload (WSM-FRG-034)",
            ),
            FragmentError::ClosingFloor { cap } => (
                "a frame cap of ",
                cap,
                " bytes cannot hold this frame's closing envelope; trailers are never fragmented (WSM-FRG-020/034)",
            ),
        };
        out.push_str(head);
        crate::text::push_u64(out, *cap as u64);
        out.push_str(tail);
    }
}

crate::text::wire_error!(FragmentError);

fn reservation(cap: usize) -> usize {
    (cap / 2).min(512)
}

/// Encoded length of `frame` without building the payload-carrying string twice (WSM-FRG-001).
pub fn encoded_len(frame: &Frame) -> usize {
    match &frame.payload {
        Payload::Absent => encode(frame).len(),
        // `,"payload":` is 11 bytes; the payload text is inserted verbatim.
        Payload::Json(raw) => bare_len(frame) + 11 + raw.as_str().len(),
    }
}

/// Encoded length of `frame` without its payload.
fn bare_len(frame: &Frame) -> usize {
    Envelope::bare(frame).encode().len()
}

/// One fragment of `source` as a [`Frame`] (what [`Envelope::fragment`] encodes).
fn fragment_frame(source: &Frame, chunk: &str, first: bool, last: bool) -> Frame {
    Frame {
        kind: source.kind.clone(),
        stream: source.stream,
        payload: Payload::Absent,
        fragment: Some(chunk.to_owned()),
        more: !last,
        headers: if first { source.headers.clone() } else { None },
        end: last && source.end,
        trailers: if last { source.trailers.clone() } else { None },
        code: source.code,
        reason: source.reason.clone(),
        nonce: source.nonce.clone(),
        last_stream: source.last_stream,
    }
}

/// Envelope bytes of a fragment frame whose fragment is empty; a fragment of escaped width `w`
/// makes the message exactly `w` bytes longer.
fn fragment_base(source: &Frame, first: bool, last: bool) -> usize {
    Envelope::fragment(source, "", first, last).encode().len()
}

fn escaped_len(s: &str) -> usize {
    s.bytes().map(escaped_width).sum()
}

/// The UTF-8 width of the character whose first byte is `lead` (text that is UTF-8: a
/// continuation byte is never a first byte).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0x80..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// Check at enqueue time that `frame` can be sent under `cap` — whole or fragmented — so that an
/// unsendable frame is a synchronous error at the call site rather than a stall (WSM-FRG-021/034).
pub fn check_sendable(frame: &Frame, cap: usize) -> Result<(), FragmentError> {
    if encoded_len(frame) <= cap {
        return Ok(());
    }
    if frame.payload.is_absent() {
        return Err(FragmentError::EnvelopeTooLarge { cap });
    }
    // A middle fragment always makes progress if one worst-case codepoint (six escaped bytes) fits
    // beside the first fragment's envelope (which carries the headers); the sequence always ends
    // if the closing envelope fits with nothing in it.
    if fragment_base(frame, true, false) + 6 > cap {
        return Err(FragmentError::Floor { cap });
    }
    if fragment_base(frame, false, true) > cap {
        return Err(FragmentError::ClosingFloor { cap });
    }
    Ok(())
}

/// [`check_sendable`] for a frame whose payload a [`PayloadSource`] gives (`frame.payload` is
/// ignored). The source is only peeked at, and only when the envelope alone decides nothing.
pub fn check_sendable_source(
    frame: &Frame,
    source: &mut dyn PayloadSource,
    cap: usize,
) -> Result<(), FragmentError> {
    // A fragment's envelope leaves `frame.payload` out.
    let middle = fragment_base(frame, true, false) + 6 <= cap;
    let closing = fragment_base(frame, false, true) <= cap;
    if middle && closing {
        return Ok(());
    }
    let (window, all) = source.peek(cap.saturating_add(1));
    if all && bare_len(frame) + 11 + window.len() <= cap {
        return Ok(());
    }
    Err(if middle {
        FragmentError::ClosingFloor { cap }
    } else {
        FragmentError::Floor { cap }
    })
}

/// Where the JSON text of an outbound payload comes from, a window at a time (WSM-FRG-018).
///
/// The splitter asks for a window of at most `max` bytes (`max` ≥ 4), cuts the next fragment from
/// its start, and moves the read position past what that fragment took; the rest of the window
/// is asked for again with the next fragment. The text must be the payload's JSON, in UTF-8.
pub trait PayloadSource {
    /// The longest run of whole code points from the read position on that fits in `max` bytes
    /// (the splitter's cut points depend on the window being that full), and whether it is all
    /// that is left.
    fn peek(&mut self, max: usize) -> (&[u8], bool);
    /// Moves the read position `bytes` bytes on: a prefix of the last [`peek`](Self::peek)'s
    /// window that ends on a code point boundary.
    fn advance(&mut self, bytes: usize);
}

/// A [`PayloadSource`] over text held whole (WSM-FRG-015).
#[derive(Debug)]
pub struct TextSource {
    text: String,
    position: usize,
}

impl TextSource {
    /// The source of `text`, read from its start.
    pub fn new(text: String) -> TextSource {
        TextSource { text, position: 0 }
    }
}

impl PayloadSource for TextSource {
    fn peek(&mut self, max: usize) -> (&[u8], bool) {
        // `a..b` ranges only: each range type of `str::get` is its own function in the module.
        let rest = self
            .text
            .get(self.position..self.text.len())
            .unwrap_or_default();
        let window = prefix(rest, max);
        (window.as_bytes(), window.len() == rest.len())
    }

    fn advance(&mut self, bytes: usize) {
        self.position = self.position.saturating_add(bytes).min(self.text.len());
    }
}

/// The result of starting to send a frame under a cap (WSM-FRG-010).
#[derive(Debug)]
pub enum Split {
    /// The frame fits as it is (WSM-FRG-004).
    Whole(Frame),
    /// The frame must be fragmented; pull the fragments one by one (WSM-FRG-018).
    Fragments(Splitter),
}

/// Lazy fragment producer for one frame (WSM-FRG-011…021); see the module doc for the algorithm.
pub struct Splitter {
    /// The frame being cut, its payload absent: the text comes from `text`.
    source: Frame,
    text: Box<dyn PayloadSource>,
    emitted: usize,
    cap: usize,
    done: bool,
}

impl fmt::Debug for Splitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Splitter")
            .field("source", &self.source)
            .field("emitted", &self.emitted)
            .field("cap", &self.cap)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// The longest prefix of `bytes` that is UTF-8 (a window from a source is; a broken source's is
/// cut where it stops being so, and the cut counts as "more follows").
fn utf8_prefix(mut bytes: &[u8]) -> (&str, bool) {
    // One call of `from_utf8`: a second round reads the valid prefix, which always passes.
    let mut whole = true;
    loop {
        match core::str::from_utf8(bytes) {
            Ok(text) => return (text, whole),
            Err(error) => {
                bytes = bytes.get(..error.valid_up_to()).unwrap_or_default();
                whole = false;
            }
        }
    }
}

impl Splitter {
    /// Decide whether `frame` goes out whole or fragmented under `cap` (WSM-FRG-010).
    pub fn start(frame: Frame, cap: usize) -> Result<Split, FragmentError> {
        if encoded_len(&frame) <= cap {
            return Ok(Split::Whole(frame));
        }
        let mut source = frame;
        let text = match core::mem::take(&mut source.payload) {
            Payload::Absent => return Err(FragmentError::EnvelopeTooLarge { cap }),
            Payload::Json(raw) => raw.into_string(),
        };
        Ok(Split::Fragments(Splitter::over(
            source,
            Box::new(TextSource::new(text)),
            cap,
        )))
    }

    /// [`Splitter::start`] for `frame` carrying the payload `text` gives (`frame.payload` is
    /// ignored). A payload that fits whole is read once into the frame; a longer one is never held
    /// whole: each fragment reads one window (WSM-FRG-018).
    pub fn start_with_source(
        mut frame: Frame,
        mut text: Box<dyn PayloadSource>,
        cap: usize,
    ) -> Result<Split, FragmentError> {
        frame.payload = Payload::Absent;
        let (window, all) = text.peek(cap.saturating_add(1));
        if all && encode(&frame).len() + 11 + window.len() <= cap {
            // Text that is not JSON would break the envelope it is inserted into; sent as a
            // fragment it reaches the remote as the undecodable payload it is.
            if let (text, true) = utf8_prefix(window) {
                if let Ok(payload) = Payload::json(text) {
                    frame.payload = payload;
                    return Ok(Split::Whole(frame));
                }
            }
        }
        Ok(Split::Fragments(Splitter::over(frame, text, cap)))
    }

    // Out of line: smaller wasm.
    #[inline(never)]
    fn over(source: Frame, text: Box<dyn PayloadSource>, cap: usize) -> Splitter {
        Splitter {
            source,
            text,
            emitted: 0,
            cap,
            done: false,
        }
    }

    /// The frame type being fragmented (WSM-FRG-017).
    pub fn kind(&self) -> &FrameType {
        &self.source.kind
    }

    /// True once the closing fragment was produced (WSM-FRG-020).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The next fragment, or `Ok(None)` after the closing one (WSM-FRG-012/013/014/020).
    pub fn next_fragment(&mut self) -> Result<Option<Frame>, FragmentError> {
        self.next_with(fragment_frame)
    }

    /// [`Splitter::next_fragment`], encoded (what the writer sends), built without a [`Frame`].
    pub(crate) fn next_fragment_text(&mut self) -> Result<Option<String>, FragmentError> {
        self.next_with(|source, chunk, first, last| {
            Envelope::fragment(source, chunk, first, last).encode()
        })
    }

    /// The next fragment as `make(source, chunk, first, last)` makes it.
    fn next_with<T>(
        &mut self,
        make: impl FnOnce(&Frame, &str, bool, bool) -> T,
    ) -> Result<Option<T>, FragmentError> {
        if self.done {
            return Ok(None);
        }
        let cap = self.cap;
        let first = self.emitted == 0;
        // A window of `cap + 1` bytes: if it does not hold the whole rest, the rest is longer
        // than the cap, and it always holds a middle fragment's `budget` bytes plus one code
        // point.
        let (window, all) = self.text.peek(cap.saturating_add(1));
        let (rest, whole) = utf8_prefix(window);
        let all = all && whole;

        // Everything left, as the closing fragment? Escaping never shrinks text, so a remainder
        // longer than the cap cannot fit and need not be encoded to find that out.
        if all
            && rest.len() <= cap
            && fragment_base(&self.source, first, true) + escaped_len(rest) <= cap
        {
            let frame = make(&self.source, rest, first, true);
            let taken = rest.len();
            self.text.advance(taken);
            self.done = true;
            return Ok(Some(frame));
        }
        if rest.is_empty() {
            return Err(if all {
                FragmentError::ClosingFloor { cap }
            } else {
                FragmentError::Floor { cap }
            });
        }

        // A middle fragment: at most `budget` raw bytes (at least one codepoint), shrunk to the
        // largest codepoint count whose encoded frame fits. Escaped width grows with every
        // codepoint, so the largest fitting prefix is found in one pass; it is the same count the
        // reference's binary search settles on.
        let budget = cap.saturating_sub(reservation(cap)).max(1);
        let room = cap.saturating_sub(fragment_base(&self.source, first, false));
        let (mut raw, mut escaped, mut count) = (0usize, 0usize, 0usize);
        // Character by character, read from their first bytes (`raw` is always on one).
        while let Some(&lead) = rest.as_bytes().get(raw) {
            let width = utf8_width(lead);
            if count >= 1 && raw + width > budget {
                break;
            }
            // Escaped, a multi-byte character keeps its width.
            let cost = if width == 1 {
                escaped_width(lead)
            } else {
                width
            };
            if escaped + cost > room {
                break;
            }
            raw += width;
            escaped += cost;
            count += 1;
            if raw > budget {
                break;
            }
        }
        if count == 0 {
            return Err(FragmentError::Floor { cap });
        }
        let frame = make(
            &self.source,
            // `a..b`, as every `str::get` here (one instance of it in the module).
            rest.get(0..raw).unwrap_or_default(),
            first,
            false,
        );
        self.text.advance(raw);
        self.emitted += 1;
        Ok(Some(frame))
    }
}

/// Every fragment of `frame` at `cap` at once — `[frame]` itself when it fits. A pure function
/// (WSM-FRG-015); the writer uses [`Splitter`] and cuts in exactly the same places. Only the
/// tests call it (the conformance corpus, the splitter's own suites): the peer never holds a
/// payload's fragments at once.
pub fn split_frame(frame: &Frame, cap: usize) -> Result<Vec<Frame>, FragmentError> {
    match Splitter::start(frame.clone(), cap)? {
        Split::Whole(frame) => Ok(vec![frame]),
        Split::Fragments(mut splitter) => {
            let mut out = Vec::new();
            while let Some(fragment) = splitter.next_fragment()? {
                out.push(fragment);
            }
            Ok(out)
        }
    }
}

/// Why reassembly of one stream's payload failed; both are stream-level (WSM-FRG-032, §4.3).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AssemblyError {
    /// The accumulated fragments crossed `max_payload_bytes` → `reset(PAYLOAD_TOO_LARGE)`
    /// (WSM-FRG-032, WSM-INV-017).
    TooLarge,
    /// The joined text is not a JSON value → `reset(PROTOCOL_ERROR)` (WSM-FRG-030).
    Undecodable(InvalidJson),
}

/// Receive-side reassembly for one stream: concatenates `fragment` strings and validates the
/// joined JSON when a fragment arrives without `more` (WSM-FRG-030…033).
#[derive(Debug, Default)]
pub struct Assembler {
    buffer: String,
}

impl Assembler {
    /// An empty assembler (WSM-FRG-030).
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// Bytes accumulated so far (WSM-FRG-032).
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    /// True when nothing has been accumulated (WSM-FRG-030).
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// Add one fragment, enforcing `max_payload_bytes` **as it arrives** (WSM-FRG-032,
    /// WSM-INV-017). Returns the payload once `more` is false, `None` while more are expected.
    pub fn feed(
        &mut self,
        fragment: &str,
        more: bool,
        max_payload_bytes: usize,
    ) -> Result<Option<RawJson>, AssemblyError> {
        if self.buffer.len() + fragment.len() > max_payload_bytes {
            self.buffer = String::new();
            return Err(AssemblyError::TooLarge);
        }
        self.buffer.push_str(fragment);
        if more {
            return Ok(None);
        }
        let joined = core::mem::take(&mut self.buffer);
        RawJson::parse(joined)
            .map(Some)
            .map_err(AssemblyError::Undecodable)
    }
}
