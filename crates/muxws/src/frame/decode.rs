//! The decoder: a message's text to a [`Frame`], tolerant of what it does not know and strict
//! about what it does (WSM-FRM-001/002/004/005), and the head reader for over-cap messages
//! (WSM-FRG-031).

use alloc::{borrow::ToOwned, string::String};

use super::{set_fresh, Frame, FrameType, Headers, Payload, RawJson, DEFAULT_KEY_HASH_SEED};
use crate::json::{self, Members};
use crate::text::{prefix, push_u64};

/// A message that is not a frame: unparsable, not an object, no `type`, a known field of the wrong
/// type, or `payload` together with `fragment`. Always connection-level (WSM-FRM-004, WSM-FRM-005).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DecodeError(pub String);

crate::text::wire_error!(DecodeError, text);

/// The names of the twelve envelope fields; the decoder keeps a field's value at its index here.
/// Public only so that the integration tests can check their vectors against it; not API.
#[doc(hidden)]
pub const FIELD_NAMES: [&str; 12] = [
    "type",
    "stream",
    "payload",
    "fragment",
    "more",
    "headers",
    "end",
    "trailers",
    "code",
    "reason",
    "nonce",
    "last_stream",
];

fn type_error(name: &str, expected: &str, raw: &str) -> DecodeError {
    let mut message = String::from("envelope field `");
    message.push_str(name);
    message.push_str("` must be ");
    message.push_str(expected);
    message.push_str(", got ");
    let shown = prefix(raw, 40);
    message.push_str(shown);
    if shown.len() < raw.len() {
        message.push('…');
    }
    message.push_str(" (WSM-FRM-005)");
    DecodeError(message)
}

/// A field whose default is absent: `null` counts as absent.
fn present(raw: Option<&str>) -> Option<&str> {
    raw.filter(|raw| *raw != "null")
}

fn field_string(name: &str, raw: Option<&str>) -> Result<Option<String>, DecodeError> {
    match present(raw) {
        None => Ok(None),
        Some(raw) => json::decode_string(raw)
            .map(Some)
            .ok_or_else(|| type_error(name, "a string", raw)),
    }
}

/// Sets `out` (written in place: a `Result<bool, _>` returned costs more code per field).
fn field_bool(name: &str, raw: Option<&str>, out: &mut bool) -> Result<(), DecodeError> {
    *out = match raw {
        None | Some("false") => false,
        Some("true") => true,
        Some(raw) => return Err(type_error(name, "a boolean", raw)),
    };
    Ok(())
}

/// Largest integer a float may carry exactly; `1.0` is accepted as `1`, as the reference does.
const MAX_EXACT_FLOAT: u64 = 9_007_199_254_740_991;

/// A non-negative integer: integer syntax up to `u64::MAX`, or a number with a fraction or an
/// exponent whose exact value is an integer up to 2^53 − 1 (`3.0`, `3e0`, `-0`).
fn field_id(name: &str, raw: Option<&str>) -> Result<Option<u64>, DecodeError> {
    let Some(raw) = present(raw) else {
        return Ok(None);
    };
    match json::integer(raw) {
        Some((_, 0, _)) => Ok(Some(0)),
        Some((false, value, plain)) if plain || value <= MAX_EXACT_FLOAT => Ok(Some(value)),
        _ => Err(type_error(name, "a non-negative integer", raw)),
    }
}

/// An `i64` in integer syntax (no fraction, no exponent; `-0` is not accepted, as before).
fn field_int(name: &str, raw: Option<&str>) -> Result<Option<i64>, DecodeError> {
    let Some(raw) = present(raw) else {
        return Ok(None);
    };
    match json::integer(raw) {
        Some((false, value, true)) if value <= i64::MAX as u64 => Ok(Some(value as i64)),
        Some((true, value, true)) if value != 0 && value <= 1 << 63 => {
            Ok(Some(0i64.wrapping_sub(value as i64)))
        }
        _ => Err(type_error(name, "an integer", raw)),
    }
}

/// How an inbound frame's `headers` and `trailers` are read.
#[derive(Clone, Copy)]
pub(crate) struct MapRules {
    /// Most members a map may have (duplicates counted).
    pub(crate) max_keys: usize,
    /// The duplicate-key table's seed.
    pub(crate) seed: u64,
}

/// `headers`/`trailers`: an object of at most `rules.max_keys` members; over that, `too_many`
/// is set and the field reads as absent.
fn field_map(
    name: &str,
    raw: Option<&str>,
    rules: MapRules,
    too_many: &mut bool,
) -> Result<Option<Headers>, DecodeError> {
    match present(raw) {
        None => Ok(None),
        Some(raw) => match Headers::scan(raw, rules.max_keys, rules.seed) {
            Ok(Some(headers)) => Ok(Some(headers)),
            Ok(None) => {
                *too_many = true;
                Ok(None)
            }
            Err(_) => Err(type_error(name, "an object", raw)),
        },
    }
}

/// Decode one text message into a [`Frame`] (WSM-CDC-001, WSM-FRM-001/002/004/005).
///
/// Unknown keys are dropped; an unknown `type` survives as [`FrameType::Unknown`]. Fields whose
/// default is `null` accept `null`; `more`/`end` must be booleans; `stream`/`last_stream` must be
/// non-negative integers (an integral float such as `1.0` is accepted); `code` an integer;
/// `headers`/`trailers` objects; `reason`/`nonce`/`fragment` strings. `payload` is kept verbatim.
/// Keys are compared after unescaping; of duplicate keys the last wins.
///
/// The cost is linear in the text's size for every shape of input (many or duplicate keys,
/// nesting, escapes, long numbers) but one: header keys crafted to collide under the fixed
/// duplicate-key seed cost time quadratic in their number. This function applies no size or key
/// limit of its own and is for text this side trusts; the connection decodes inbound frames under
/// its secret `key_hash_seed` and `MAX_HEADER_KEYS`, and refuses an over-cap message before
/// decoding it (WSM-FRG-031).
pub fn decode(text: &str) -> Result<Frame, DecodeError> {
    let rules = MapRules {
        max_keys: usize::MAX,
        seed: DEFAULT_KEY_HASH_SEED,
    };
    decode_limited(text, rules).map(|decoded| decoded.frame)
}

/// A decoded inbound frame and whether a header map broke the connection's key limit.
pub(crate) struct Decoded {
    /// The frame; `headers`/`trailers` read as absent when over the limit.
    pub(crate) frame: Frame,
    /// `headers` or `trailers` held more than the allowed number of members.
    pub(crate) too_many_header_keys: bool,
}

/// [`decode`] with a limit on the members of `headers` and of `trailers`: a map over it is not
/// built (the members past the limit are never copied).
pub(crate) fn decode_limited(text: &str, rules: MapRules) -> Result<Decoded, DecodeError> {
    let mut f: [Option<&str>; 12] = [None; 12];
    let scanned = Members::of(text).and_then(|mut members| {
        while let Some((key, value)) = members.next_member()? {
            if let Some(index) = FIELD_NAMES.iter().position(|name| *name == key) {
                f[index] = Some(value);
            }
        }
        Ok(())
    });
    if let Err(error) = scanned {
        let mut message = String::from(if json::looks_like_object(text) {
            "the json codec could not decode the message (at byte "
        } else {
            "the message is not a JSON object (at byte "
        });
        push_u64(&mut message, error.0 as u64);
        message.push_str(") (WSM-FRM-005)");
        return Err(DecodeError(message));
    }
    let kind = match f[0] {
        None => {
            return Err(DecodeError(
                "frame is missing the required `type` field (WSM-FRM-005)".to_owned(),
            ))
        }
        Some(raw) => json::decode_string(raw).ok_or_else(|| type_error("type", "a string", raw))?,
    };
    if f[2].is_some() && f[3].is_some() {
        return Err(DecodeError(
            "frame carries both `payload` and `fragment` (WSM-FRM-004)".to_owned(),
        ));
    }
    let mut decoded = Decoded {
        frame: Frame::new(FrameType::from_name(&kind)),
        too_many_header_keys: false,
    };
    fill(&mut decoded, &f, rules)?;
    Ok(decoded)
}

/// The fields after `type`, filled in place: an early return drops one `Frame` in `decode`
/// rather than a different set of finished fields at every `?`.
fn fill(decoded: &mut Decoded, f: &[Option<&str>; 12], rules: MapRules) -> Result<(), DecodeError> {
    let too_many = &mut decoded.too_many_header_keys;
    let frame = &mut decoded.frame;
    frame.stream = field_id("stream", f[1])?;
    if let Some(raw) = f[2] {
        set_fresh(&mut frame.payload, Payload::Json(RawJson(raw.to_owned())));
    }
    set_fresh(&mut frame.fragment, field_string("fragment", f[3])?);
    field_bool("more", f[4], &mut frame.more)?;
    set_fresh(
        &mut frame.headers,
        field_map("headers", f[5], rules, too_many)?,
    );
    field_bool("end", f[6], &mut frame.end)?;
    set_fresh(
        &mut frame.trailers,
        field_map("trailers", f[7], rules, too_many)?,
    );
    frame.code = field_int("code", f[8])?;
    set_fresh(&mut frame.reason, field_string("reason", f[9])?);
    set_fresh(&mut frame.nonce, field_string("nonce", f[10])?);
    frame.last_stream = field_id("last_stream", f[11])?;
    Ok(())
}

/// What the first bytes of a message over the frame cap say about it (WSM-FRG-031): read from
/// the envelope members that lie wholly inside the head, never past it.
pub(crate) struct Head {
    /// `type`, if the head holds it.
    pub(crate) kind: Option<FrameType>,
    /// `stream`, if the head holds a valid one.
    pub(crate) stream: Option<u64>,
    /// Whether the head holds a `fragment` key (a later fragment of an open continues it).
    pub(crate) fragment: bool,
}

/// Read the envelope members of `head`, the first bytes of a message (any prefix of it), up to
/// the first member that is cut off or not JSON. Cost: linear in `head`, which the caller bounds.
pub(crate) fn read_head(head: &str) -> Head {
    let mut out = Head {
        kind: None,
        stream: None,
        fragment: false,
    };
    let Ok(mut members) = Members::of(head) else {
        return out;
    };
    while let Ok(Some(key)) = members.next_key() {
        // The fragment itself is what makes the message big: its key is enough.
        out.fragment |= key == "fragment";
        let Ok(value) = members.next_value() else {
            break;
        };
        // A number that runs to the end of the head may be cut short (`12` read as `1`): a value
        // counts only when its separator is inside the head too.
        let end = value.as_ptr() as usize - head.as_ptr() as usize + value.len();
        let next = head
            .as_bytes()
            .get(end..)
            .unwrap_or_default()
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        if !matches!(next, Some(b',' | b'}')) {
            break;
        }
        match &*key {
            "type" => out.kind = json::decode_string(value).map(|n| FrameType::from_name(&n)),
            "stream" => out.stream = field_id("stream", Some(value)).ok().flatten(),
            _ => {}
        }
    }
    out
}
