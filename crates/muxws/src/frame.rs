//! The twelve-field envelope and the JSON codec (`SPEC.md` §2.2, §3; WSM-FRM-*, WSM-CDC-001…005).
//!
//! - Payloads and header values stay **raw JSON text** end to end ([`RawJson`]): the wasm layer
//!   turns them into JS values with `JSON.parse` and back with `JSON.stringify`, and this crate
//!   never re-encodes or looks inside a payload (WSM-FRM-006).
//! - An absent `payload` and `"payload": null` are different frames ([`Payload::Absent`] versus
//!   `Payload::Json("null")`, `SPEC.md` §2.2).
//! - Decoding is tolerant of what it does not know (unknown fields are dropped, WSM-FRM-001; an
//!   unknown `type` decodes as [`FrameType::Unknown`], WSM-FRM-002) and strict about what it does:
//!   a known field with the wrong JSON type, a missing `type`, a non-object or an unparsable
//!   message is a [`DecodeError`], which the connection treats as connection-level (WSM-FRM-005).
//! - Encoding is compact, un-escaped non-ASCII, in the canonical key order `type`, `stream`, then
//!   the rest alphabetically, omitting every field at its default (WSM-CDC-005).
//! - The JSON is read by the crate's own strict scanner (`json.rs`, RFC 8259): values are
//!   validated and kept as raw text; only keys, string fields and the envelope integers are
//!   decoded. Values nest at most 128 levels.

use alloc::{borrow::ToOwned, string::String, vec::Vec};
use core::fmt;

use crate::json::{self, JsonError, Members};
use crate::text::{push_i64, push_u64};

/// The decoder (its own file: the largest part of the codec).
mod decode;

pub use decode::{decode, DecodeError, FIELD_NAMES};
pub(crate) use decode::{decode_limited, read_head, MapRules};

/// The only subprotocol this dialer offers and accepts: generation `v1`, codec `json`
/// (WSM-CDC-020, WSM-CON-009, WSM-PKG-005).
pub const SUBPROTOCOL: &str = "muxws.v1.json";

/// The codec name carried in [`SUBPROTOCOL`]; the only codec this crate implements (WSM-CDC-004).
pub const CODEC_NAME: &str = "json";

/// A syntactically valid JSON text, kept verbatim (WSM-FRM-006: muxws never looks inside it).
///
/// Construct it with [`RawJson::parse`], which validates the text once; after that it is only ever
/// copied, never re-encoded.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct RawJson(String);

impl RawJson {
    /// Validate `text` as exactly one JSON value and keep it verbatim (WSM-CDC-004).
    pub fn parse(text: impl Into<String>) -> Result<RawJson, InvalidJson> {
        RawJson::parse_string(text.into())
    }

    fn parse_string(text: String) -> Result<RawJson, InvalidJson> {
        json::validate(&text).map_err(InvalidJson::at)?;
        Ok(RawJson(text))
    }

    /// The JSON `null` — the default payload of `open()` (WSM-API-003).
    pub fn null() -> RawJson {
        RawJson("null".to_owned())
    }

    /// The JSON text, exactly as received or given (WSM-FRM-006).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The JSON text, by value (WSM-FRM-006).
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Text that is not exactly one JSON value (WSM-CDC-004); the message says where the scanner
/// stopped (`byte N`, counted from 0).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InvalidJson(pub String);

impl InvalidJson {
    fn at(error: JsonError) -> InvalidJson {
        let mut at = String::from("byte ");
        push_u64(&mut at, error.0 as u64);
        InvalidJson(at)
    }
}

impl InvalidJson {
    /// Appends [`InvalidJson::message`] to `out`.
    pub fn write_message(&self, out: &mut String) {
        out.push_str("not a JSON value (at ");
        out.push_str(&self.0);
        out.push(')');
    }
}

crate::text::wire_error!(InvalidJson);

/// The `payload` field: absent is "no payload", which is a different frame from a `null` payload
/// (`SPEC.md` §2.2, WSM-CDC-005).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum Payload {
    /// No `payload` key at all (§2.2).
    #[default]
    Absent,
    /// A payload; `null` is one (and counts as a reply, WSM-API-006).
    Json(RawJson),
}

impl Payload {
    /// `Payload::Json(null)` — what `open()` sends when the caller gave no payload (WSM-API-003).
    pub fn null() -> Payload {
        Payload::Json(RawJson::null())
    }

    /// Validate `text` and wrap it as a present payload (WSM-CDC-004).
    pub fn json(text: impl Into<String>) -> Result<Payload, InvalidJson> {
        RawJson::parse_string(text.into()).map(Payload::Json)
    }

    /// True for [`Payload::Absent`] (`SPEC.md` §2.2).
    pub fn is_absent(&self) -> bool {
        matches!(self, Payload::Absent)
    }

    /// The JSON text, if a payload is present (`SPEC.md` §2.2).
    pub fn as_json(&self) -> Option<&RawJson> {
        match self {
            Payload::Absent => None,
            Payload::Json(raw) => Some(raw),
        }
    }
}

/// `headers` / `trailers`: an ordered map from string keys to JSON values, kept as raw JSON text so
/// that `":status": 201` stays an integer and `":query": {…}` keeps its key order. muxws never
/// interprets them (WSM-AUT-002, WSM-FRM-016).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Headers(Vec<(String, RawJson)>);

impl Headers {
    /// An empty map (WSM-API-025: "an empty mapping when there are none").
    pub fn new() -> Headers {
        Headers(Vec::new())
    }

    /// Parse a JSON object; anything else is an error. Duplicate keys: the last one wins, in the
    /// position of the first, as `JSON.parse` does (WSM-FRM-001 strictness on known fields).
    /// Linear in the text's size (duplicates are found with a hash table under the fixed seed, so
    /// keys crafted to collide cost time quadratic in their number: for text this side trusts,
    /// such as the options its application gives).
    pub fn from_json(text: &str) -> Result<Headers, InvalidJson> {
        match Headers::scan(text, usize::MAX, DEFAULT_KEY_HASH_SEED) {
            Ok(headers) => Ok(headers.unwrap_or_default()),
            Err(error) => Err(InvalidJson::at(error)),
        }
    }

    /// The object `text` as headers; `Ok(None)` when it has more than `max_keys` members
    /// (duplicates counted), found without reading past the member over the limit. `seed`
    /// seeds the duplicate-key table (see [`keep_last_of_duplicates`]).
    fn scan(text: &str, max_keys: usize, seed: u64) -> Result<Option<Headers>, JsonError> {
        let mut members = Members::of(text)?;
        let mut entries = Vec::new();
        while let Some((key, value)) = members.next_member()? {
            if entries.len() >= max_keys {
                return Ok(None);
            }
            entries.push((key.into_owned(), RawJson(value.to_owned())));
        }
        keep_last_of_duplicates(&mut entries, seed);
        Ok(Some(Headers(entries)))
    }

    /// Set `key` to `value`, replacing an existing entry in place (WSM-AUT-002: opaque values).
    pub fn insert(&mut self, key: impl Into<String>, value: RawJson) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| {
            json::tick(1);
            *k == key
        }) {
            Some(entry) => entry.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Builder form of [`Headers::insert`] (WSM-AUT-002).
    pub fn with(mut self, key: impl Into<String>, value: RawJson) -> Headers {
        self.insert(key, value);
        self
    }

    /// The raw JSON value of `key` (WSM-AUT-002: the application reads it, muxws does not).
    pub fn get(&self, key: &str) -> Option<&RawJson> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Entries in order (WSM-AUT-002).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawJson)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of entries (WSM-AUT-002).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are no entries (WSM-API-025).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The map as compact JSON object text, values verbatim (WSM-CDC-005).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// Appends [`Headers::to_json`] to `out`.
    pub fn write_json(&self, out: &mut String) {
        out.push('{');
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(out, key);
            out.push(':');
            out.push_str(value.as_str());
        }
        out.push('}');
    }
}

/// The seed of the duplicate-key table when none is given: text this side made itself
/// ([`Headers::from_json`], [`decode`]). Inbound frames use their connection's secret seed
/// ([`crate::ConnectionConfig::key_hash_seed`]).
pub(crate) const DEFAULT_KEY_HASH_SEED: u64 = 0;

/// FNV-1a over the key's bytes from a seeded start, folded to 32 bits. Under a secret seed the
/// table slots of given keys cannot be predicted, so collisions cannot be aimed at.
fn key_hash(key: &str, seed: u64) -> u32 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for &b in key.as_bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    json::tick(key.len() as u64);
    (hash ^ (hash >> 32)) as u32
}

/// Of duplicate keys keep one entry, in the first one's position, with the last one's value —
/// `JSON.parse`'s rule — in place. One pass over an open-addressing table of at least twice as
/// many slots as entries, each slot holding a key's hash and its entry: a key is hashed once and
/// compared in full only with keys of the same 32-bit hash, so the pass is linear in the keys'
/// bytes (with a secret seed, also for keys chosen to collide; inbound maps hold at most
/// `MAX_HEADER_KEYS` keys, which bounds even a full collision).
fn keep_last_of_duplicates(entries: &mut Vec<(String, RawJson)>, seed: u64) {
    if entries.len() < 2 {
        return;
    }
    let mask = (entries.len() * 2).next_power_of_two() - 1;
    // (hash, 1 + index of its entry among the kept ones); 0: an empty slot.
    let mut table: Vec<(u32, u32)> = alloc::vec![(0, 0); mask + 1];
    // In place: `entries[..kept]` are the distinct keys met so far, each with its latest value.
    let mut kept = 0;
    for at in 0..entries.len() {
        let Some((key, _)) = entries.get(at) else {
            break;
        };
        let hash = key_hash(key, seed);
        let mut probe = hash as usize;
        loop {
            json::tick(1);
            probe &= mask;
            let Some(slot) = table.get_mut(probe) else {
                break;
            };
            if slot.1 == 0 {
                *slot = (hash, kept as u32 + 1);
                // Moved down to the end of the kept entries (`kept <= at`).
                if let Some((first, rest)) =
                    entries.get_mut(kept..=at).and_then(<[_]>::split_first_mut)
                {
                    if let Some(last) = rest.last_mut() {
                        core::mem::swap(first, last);
                    }
                }
                kept += 1;
                break;
            }
            let earlier = slot.1 as usize - 1;
            if slot.0 == hash && entries.get(earlier).map(|e| &e.0) == entries.get(at).map(|e| &e.0)
            {
                if let Some(value) = entries.get_mut(at).map(|e| core::mem::take(&mut e.1 .0)) {
                    if let Some(first) = entries.get_mut(earlier) {
                        first.1 = RawJson(value);
                    }
                }
                break;
            }
            probe += 1;
        }
    }
    entries.truncate(kept);
}

/// The `type` field. Six types in v1 (`SPEC.md` §2.3); anything else is kept as `Unknown` so the
/// peer can ignore it rather than fail the read loop (WSM-FRM-002).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FrameType {
    /// Opens a stream (WSM-FRM-010).
    Open,
    /// A payload chunk, headers and/or `end` on an open stream (WSM-FRM-011).
    Data,
    /// Terminates a stream in both directions (WSM-FRM-014).
    Reset,
    /// Liveness probe carrying a nonce (WSM-CON-010).
    Ping,
    /// Echo of a ping's nonce (WSM-CON-010).
    Pong,
    /// Graceful shutdown with `last_stream` (WSM-CON-020).
    Goaway,
    /// A type this generation does not know; ignored by the peer (WSM-FRM-002).
    Unknown(String),
}

impl FrameType {
    /// The wire name (`SPEC.md` §2.3).
    pub fn as_str(&self) -> &str {
        match self {
            FrameType::Open => "open",
            FrameType::Data => "data",
            FrameType::Reset => "reset",
            FrameType::Ping => "ping",
            FrameType::Pong => "pong",
            FrameType::Goaway => "goaway",
            FrameType::Unknown(name) => name,
        }
    }

    /// Map a wire name; unknown names are preserved as [`FrameType::Unknown`] (WSM-FRM-002).
    pub fn from_name(name: &str) -> FrameType {
        match name {
            "open" => FrameType::Open,
            "data" => FrameType::Data,
            "reset" => FrameType::Reset,
            "ping" => FrameType::Ping,
            "pong" => FrameType::Pong,
            "goaway" => FrameType::Goaway,
            other => FrameType::Unknown(other.to_owned()),
        }
    }

    /// True for `open`, `data` and `reset`, which name a stream (WSM-FRM-015).
    pub fn is_stream_level(&self) -> bool {
        matches!(self, FrameType::Open | FrameType::Data | FrameType::Reset)
    }
}

/// One logical frame: exactly the twelve envelope fields of `SPEC.md` §2.2, with the defaults of
/// the reference ports (`None`/`false`/[`Payload::Absent`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Frame {
    /// `type` (`SPEC.md` §2.3).
    pub kind: FrameType,
    /// `stream`; omitted on connection-level frames (WSM-FRM-015, WSM-SID-003).
    pub stream: Option<u64>,
    /// `payload`; excludes `fragment` (WSM-FRM-004).
    pub payload: Payload,
    /// `fragment`: a slice of the encoded payload (WSM-FRG-011).
    pub fragment: Option<String>,
    /// `more`: true on every fragment but the last (WSM-FRG-020).
    pub more: bool,
    /// `headers`: only on the sender's first frame on a stream (WSM-FRM-016).
    pub headers: Option<Headers>,
    /// `end`: the sender's last frame on the stream (WSM-FRM-012).
    pub end: bool,
    /// `trailers`: only with `end` (WSM-FRM-013).
    pub trailers: Option<Headers>,
    /// `code` on `reset`/`goaway` (`SPEC.md` §2.4).
    pub code: Option<i64>,
    /// `reason`: for logs, never parsed (`SPEC.md` §2.2).
    pub reason: Option<String>,
    /// `nonce` on `ping`/`pong` (WSM-CON-010).
    pub nonce: Option<String>,
    /// `last_stream` on `goaway` (WSM-CON-020).
    pub last_stream: Option<u64>,
}

impl Frame {
    /// A frame of `kind` with every other field at its default (`SPEC.md` §2.2).
    #[inline(never)]
    pub fn new(kind: FrameType) -> Frame {
        Frame {
            kind,
            stream: None,
            payload: Payload::Absent,
            fragment: None,
            more: false,
            headers: None,
            end: false,
            trailers: None,
            code: None,
            reason: None,
            nonce: None,
            last_stream: None,
        }
    }

    /// A stream-level frame of `kind` on `stream` (WSM-FRM-010/011/014).
    pub fn on_stream(kind: FrameType, stream: u64) -> Frame {
        let mut frame = Frame::new(kind);
        frame.stream = Some(stream);
        frame
    }

    /// `reset` with `code` and an optional reason (WSM-FRM-014).
    pub fn reset(stream: u64, code: i64, reason: Option<String>) -> Frame {
        let mut frame = Frame::on_stream(FrameType::Reset, stream);
        frame.code = Some(code);
        set_fresh(&mut frame.reason, reason);
        frame
    }

    /// `goaway` (WSM-CON-020).
    pub fn goaway(code: i64, last_stream: u64, reason: Option<String>) -> Frame {
        let mut frame = Frame::new(FrameType::Goaway);
        frame.code = Some(code);
        frame.last_stream = Some(last_stream);
        set_fresh(&mut frame.reason, reason);
        frame
    }
}

/// Sets a field of a frame fresh from [`Frame::new`], which holds `None` or
/// [`Payload::Absent`] there: the value replaced owns nothing, so it is forgotten rather than
/// dropped (no drop code per field).
pub(crate) fn set_fresh<T>(field: &mut T, value: T) {
    core::mem::forget(core::mem::replace(field, value));
}

/// Encode a frame as compact JSON in canonical key order — `type`, `stream`, then the rest
/// alphabetically — omitting every field at its default; payload and header values are inserted
/// verbatim (WSM-CDC-004/005, `SPEC.md` §3).
pub fn encode(frame: &Frame) -> String {
    Envelope::of(frame).encode()
}

/// What goes on the wire for a frame, borrowed from it: the frame itself, the frame without its
/// payload, or one fragment of it (the source's envelope with the fragment's own `fragment`,
/// `more`, `headers`, `end` and `trailers`), so none of them is built as a [`Frame`] of its own.
pub(crate) struct Envelope<'a> {
    frame: &'a Frame,
    payload: Option<&'a RawJson>,
    fragment: Option<&'a str>,
    more: bool,
    headers: Option<&'a Headers>,
    end: bool,
    trailers: Option<&'a Headers>,
}

impl<'a> Envelope<'a> {
    /// The frame as it is.
    pub(crate) fn of(frame: &'a Frame) -> Envelope<'a> {
        Envelope {
            payload: frame.payload.as_json(),
            fragment: frame.fragment.as_deref(),
            more: frame.more,
            headers: frame.headers.as_ref(),
            end: frame.end,
            trailers: frame.trailers.as_ref(),
            frame,
        }
    }

    /// The frame without its payload.
    pub(crate) fn bare(frame: &'a Frame) -> Envelope<'a> {
        let mut envelope = Envelope::of(frame);
        envelope.payload = None;
        envelope
    }

    /// One fragment of `source`: `headers` only when `first`, `end`/`trailers` only when `last`,
    /// `more` on all but the last, `code`/`reason`/`nonce`/`last_stream` always (WSM-FRG-020/021).
    pub(crate) fn fragment(
        source: &'a Frame,
        chunk: &'a str,
        first: bool,
        last: bool,
    ) -> Envelope<'a> {
        Envelope {
            frame: source,
            payload: None,
            fragment: Some(chunk),
            more: !last,
            headers: source.headers.as_ref().filter(|_| first),
            end: last && source.end,
            trailers: source.trailers.as_ref().filter(|_| last),
        }
    }

    /// The encoded message (see [`encode`]).
    pub(crate) fn encode(&self) -> String {
        let frame = self.frame;
        let mut out = String::with_capacity(
            64 + self.payload.map_or(0, |p| p.as_str().len())
                + self.fragment.map_or(0, |s| s.len() + s.len() / 8),
        );
        out.push_str("{\"type\":");
        push_json_string(&mut out, frame.kind.as_str());
        if let Some(stream) = frame.stream {
            out.push_str(",\"stream\":");
            push_u64(&mut out, stream);
        }
        if let Some(code) = frame.code {
            out.push_str(",\"code\":");
            push_i64(&mut out, code);
        }
        if self.end {
            out.push_str(",\"end\":true");
        }
        if let Some(fragment) = self.fragment {
            out.push_str(",\"fragment\":");
            push_json_string(&mut out, fragment);
        }
        if let Some(headers) = self.headers {
            out.push_str(",\"headers\":");
            headers.write_json(&mut out);
        }
        if let Some(last) = frame.last_stream {
            out.push_str(",\"last_stream\":");
            push_u64(&mut out, last);
        }
        if self.more {
            out.push_str(",\"more\":true");
        }
        if let Some(nonce) = &frame.nonce {
            out.push_str(",\"nonce\":");
            push_json_string(&mut out, nonce);
        }
        if let Some(payload) = self.payload {
            out.push_str(",\"payload\":");
            out.push_str(payload.as_str());
        }
        if let Some(reason) = &frame.reason {
            out.push_str(",\"reason\":");
            push_json_string(&mut out, reason);
        }
        if let Some(trailers) = self.trailers {
            out.push_str(",\"trailers\":");
            trailers.write_json(&mut out);
        }
        out.push('}');
        out
    }
}

/// Bytes the UTF-8 byte `b` of a text occupies inside a JSON string literal, as Python's
/// `json.dumps(ensure_ascii=False)`, `JSON.stringify` and `serde_json` write it: `"`/`\\` and the
/// five short control escapes take 2, other control characters 6 (`\u00XX`), every other byte 1
/// (non-ASCII is written as it is, so a character's bytes add up to its UTF-8 width)
/// (WSM-FRG-001). By bytes rather than `char`s: no UTF-8 decoding on the splitter's per-byte path.
pub(crate) fn escaped_width(b: u8) -> usize {
    match b {
        b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
        0x00..=0x1f => 6,
        _ => 1,
    }
}

/// Append `s` as a JSON string literal (lowercase `\u00xx` for other control characters, no
/// escaping of non-ASCII or of `/`), byte-identical to the reference ports (`SPEC.md` §3).
pub(crate) fn push_json_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        // The letter after the backslash; 0: `\u00XX`.
        let short = match b {
            b'"' | b'\\' => b,
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            0x00..=0x1f => 0,
            _ => continue,
        };
        out.push_str(s.get(start..i).unwrap_or_default());
        out.push('\\');
        if short == 0 {
            out.push_str("u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push(char::from(short));
        }
        start = i + 1;
    }
    // `a..b`, as every `str::get` here (one instance of it in the module).
    out.push_str(s.get(start..s.len()).unwrap_or_default());
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_aimed_at_one_slot_cost_bounded_work_and_a_secret_seed_scatters_them() {
        // 256 distinct keys (MAX_HEADER_KEYS) and a duplicate: a table of 1 024 slots, and every
        // key starts in the same one under seed 0.
        let mask = 1023;
        let keys: Vec<String> = (0u32..)
            .map(|i| format!("k{i}"))
            .filter(|k| key_hash(k, 0) as usize & mask == 7)
            .take(256)
            .collect();
        let bytes: u64 = keys.iter().map(|k| k.len() as u64).sum();
        let entries = || -> Vec<(String, RawJson)> {
            let mut entries: Vec<_> = keys.iter().map(|k| (k.clone(), RawJson::null())).collect();
            entries.push((keys[3].clone(), RawJson::parse("1").unwrap()));
            entries
        };
        let run = |seed: u64| {
            let mut map = entries();
            json::work::take();
            keep_last_of_duplicates(&mut map, seed);
            let work = json::work::take();
            // Distinct keys kept in order, the duplicate's last value in the first's place.
            assert_eq!(map.len(), 256);
            assert!(map.iter().zip(&keys).all(|((k, _), key)| k == key));
            assert_eq!(map[3].1.as_str(), "1");
            work
        };
        let aimed = run(0);
        let n = keys.len() as u64 + 1;
        assert!(aimed >= n * (n - 1) / 2, "the keys were aimed: {aimed}");
        assert!(aimed <= n * n + bytes, "bounded by the key cap: {aimed}");
        let scattered = run(0x9e37_79b9_7f4a_7c15);
        assert!(scattered <= 8 * n + bytes, "another seed: {scattered}");
    }

    #[test]
    fn escaping_matches_serde_json_for_every_ascii_control_and_specials() {
        let mut all = String::new();
        for c in 0u8..0x80 {
            all.push(char::from(c));
        }
        all.push_str("č🛰\u{2028}/");
        let mut ours = String::new();
        push_json_string(&mut ours, &all);
        assert_eq!(ours, serde_json::to_string(&all).unwrap());
        let widths: usize = all.bytes().map(escaped_width).sum();
        assert_eq!(widths + 2, ours.len());
    }
}
