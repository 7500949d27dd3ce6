//! A small, strict JSON scanner (RFC 8259) — all the JSON this crate needs (WSM-CDC-004/005).
//!
//! Payloads and header values are never converted, only **validated** and handed out as the byte
//! range they occupy, so no value tree, number conversion or serializer is needed. What is decoded:
//! object keys and string fields (escapes, surrogate pairs; a lone surrogate is an error, as for
//! any UTF-8 string), and the envelope's integers (`stream`, `code`, `last_stream`).
//!
//! - Whitespace is exactly space, tab, LF and CR; no comments, no trailing commas, no `NaN`, no
//!   leading zeros or `+`, no raw control characters inside strings.
//! - A lone surrogate escape (`"\ud800"`) is *valid JSON* (RFC 8259 §8.2 leaves it to the
//!   receiver; `JSON.parse` accepts it), so [`validate`] accepts it inside payloads; only strings
//!   this crate must turn into Rust `String`s (keys, `reason`, …) reject it.
//! - Arrays and objects may nest at most [`MAX_DEPTH`] levels inside one value (a payload, a header
//!   value); deeper input is an error, never a stack overflow. The scanner recurses once per level.
//! - Nothing here panics on any input.

use alloc::borrow::Cow;
use alloc::string::String;

/// Deepest nesting of arrays/objects accepted inside one value (a payload, a header value).
pub(crate) const MAX_DEPTH: usize = 128;

/// Units of work done by the decoder, counted only in this crate's unit tests: the linearity
/// test (`src/tests/linearity.rs`) compares the count for inputs of n and 16·n bytes. Every loop
/// of the decoder calls [`tick`]; outside tests it compiles to nothing.
#[cfg(test)]
pub(crate) mod work {
    use std::cell::Cell;

    thread_local! {
        static UNITS: Cell<u64> = const { Cell::new(0) };
    }

    pub(crate) fn add(n: u64) {
        UNITS.with(|units| units.set(units.get().saturating_add(n)));
    }

    /// The units counted on this thread since the last call, and reset to zero.
    pub(crate) fn take() -> u64 {
        UNITS.with(|units| units.replace(0))
    }
}

/// Count `n` units of decoder work (tests only; nothing otherwise).
#[inline(always)]
pub(crate) fn tick(n: u64) {
    #[cfg(test)]
    work::add(n);
    let _ = n;
}

/// Where the text stopped being JSON: a byte offset into the scanned text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JsonError(pub usize);

type Scan<T> = Result<T, JsonError>;

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    // Out of line: smaller wasm.
    #[inline(never)]
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The current byte; `0` past the end (a raw NUL is never valid where a byte is inspected).
    fn peek(&self) -> u8 {
        tick(1);
        self.bytes().get(self.pos).copied().unwrap_or(0)
    }

    // Out of line: smaller wasm.
    #[inline(never)]
    fn fail<T>(&self) -> Scan<T> {
        Err(JsonError(self.pos))
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Scan<()> {
        if self.peek() != byte {
            return self.fail();
        }
        self.pos += 1;
        Ok(())
    }

    /// One value starting after optional whitespace; `depth` containers already enclose it.
    fn value(&mut self, depth: usize) -> Scan<()> {
        self.skip_ws();
        match self.peek() {
            open @ (b'{' | b'[') => {
                if depth >= MAX_DEPTH {
                    return self.fail();
                }
                let object = open == b'{';
                let close = if object { b'}' } else { b']' };
                self.pos += 1;
                self.skip_ws();
                if self.peek() == close {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    if object {
                        self.skip_ws();
                        self.string(None)?;
                        self.skip_ws();
                        self.eat(b':')?;
                    }
                    self.value(depth + 1)?;
                    self.skip_ws();
                    match self.peek() {
                        b',' => self.pos += 1,
                        c if c == close => {
                            self.pos += 1;
                            return Ok(());
                        }
                        _ => return self.fail(),
                    }
                }
            }
            b'"' => self.string(None).map(drop),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => self.fail(),
        }
    }

    fn word(&mut self, word: &[u8]) -> Scan<()> {
        if !self
            .bytes()
            .get(self.pos..)
            .unwrap_or_default()
            .starts_with(word)
        {
            return self.fail();
        }
        self.pos += word.len();
        Ok(())
    }

    /// A string literal at the cursor; returns whether it contains escapes. With `out`, its
    /// content is also decoded onto `out`, and a lone surrogate escape, which no Rust `String`
    /// can carry, is an error there (the scanner alone accepts it, as JSON does).
    fn string(&mut self, mut out: Option<&mut String>) -> Scan<bool> {
        self.eat(b'"')?;
        let mut escaped = false;
        // Where the current run of literal text started.
        let mut run = self.pos;
        loop {
            let byte = self.peek(); // 0 at the end
            if byte < 0x20 {
                return self.fail();
            }
            let at = self.pos;
            self.pos += 1;
            if byte != b'"' && byte != b'\\' {
                continue;
            }
            // `at` is on a `"` or `\` byte, so on a character boundary.
            if let Some(out) = out.as_deref_mut() {
                out.push_str(self.text.get(run..at).unwrap_or_default());
            }
            if byte == b'"' {
                return Ok(escaped);
            }
            escaped = true;
            let c = match self.peek() {
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                c @ (b'"' | b'\\' | b'/') => char::from(c),
                b'u' => {
                    self.pos += 1;
                    let Some(mut unit) = hex4(self.bytes(), self.pos) else {
                        return self.fail();
                    };
                    // On the last digit: the step past the escape follows.
                    self.pos += 3;
                    if out.is_some() && (0xD800..0xDC00).contains(&unit) {
                        // A high surrogate decodes only with the low one that must follow.
                        let low = match self.bytes().get(self.pos + 1..self.pos + 3) {
                            Some(b"\\u") => hex4(self.bytes(), self.pos + 3),
                            _ => None,
                        };
                        let Some(low) = low.filter(|low| (0xDC00..0xE000).contains(low)) else {
                            return self.fail();
                        };
                        self.pos += 6;
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    }
                    match char::from_u32(unit) {
                        Some(c) => c,
                        None if out.is_none() => '?', // a lone surrogate: valid JSON
                        None => return self.fail(),
                    }
                }
                _ => return self.fail(),
            };
            self.pos += 1;
            if let Some(out) = out.as_deref_mut() {
                out.push(c);
            }
            run = self.pos;
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_ascii_digit() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Scan<()> {
        if self.peek() == b'-' {
            self.pos += 1;
        }
        match self.peek() {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return self.fail(),
        }
        if self.peek() == b'.' {
            self.pos += 1;
            if self.digits() == 0 {
                return self.fail();
            }
        }
        if matches!(self.peek(), b'e' | b'E') {
            self.pos += 1;
            if matches!(self.peek(), b'+' | b'-') {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return self.fail();
            }
        }
        Ok(())
    }

    /// After the value: only whitespace may follow.
    fn end(&mut self) -> Scan<()> {
        self.skip_ws();
        if self.pos != self.text.len() {
            return self.fail();
        }
        Ok(())
    }
}

/// The four hex digits at `at` as a UTF-16 code unit.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let mut unit = 0;
    for &b in digits {
        unit = unit * 16 + char::from(b).to_digit(16)?;
    }
    Some(unit)
}

/// Whether `text` is exactly one JSON value, with optional surrounding whitespace.
pub(crate) fn validate(text: &str) -> Scan<()> {
    let mut cursor = Cursor::new(text);
    cursor.value(0)?;
    cursor.end()
}

/// Whether the first non-whitespace byte of `text` opens an object.
pub(crate) fn looks_like_object(text: &str) -> bool {
    let mut cursor = Cursor::new(text);
    cursor.skip_ws();
    cursor.peek() == b'{'
}

/// The members of the JSON object that makes up the whole of a text, in order: each key decoded,
/// each value as its raw text. Duplicate keys are all reported (callers let the last one win).
pub(crate) struct Members<'a> {
    text: &'a str,
    cursor: Cursor<'a>,
    first: bool,
    done: bool,
}

impl<'a> Members<'a> {
    /// Start reading `text`, which must be an object (after optional whitespace).
    pub(crate) fn of(text: &'a str) -> Scan<Members<'a>> {
        let mut cursor = Cursor::new(text);
        cursor.skip_ws();
        cursor.eat(b'{')?;
        Ok(Members {
            text,
            cursor,
            first: true,
            done: false,
        })
    }

    /// The next member, `None` after the closing brace (and nothing but whitespace after it).
    /// After an error the text is not JSON; stop reading.
    pub(crate) fn next_member(&mut self) -> Scan<Option<(Cow<'a, str>, &'a str)>> {
        match self.next_key()? {
            None => Ok(None),
            Some(key) => Ok(Some((key, self.next_value()?))),
        }
    }

    /// The next member's key (decoded), the cursor left at its value; `None` after the closing
    /// brace. Call [`Members::next_value`] next.
    pub(crate) fn next_key(&mut self) -> Scan<Option<Cow<'a, str>>> {
        if self.done {
            return Ok(None);
        }
        let c = &mut self.cursor;
        c.skip_ws();
        let closing = c.peek() == b'}';
        if !self.first && !closing {
            c.eat(b',')?;
            c.skip_ws();
        }
        if closing {
            c.pos += 1;
            c.end()?;
            self.done = true;
            return Ok(None);
        }
        self.first = false;
        let key_start = c.pos;
        let escaped = c.string(None)?;
        let key = self.text.get(key_start..c.pos).unwrap_or_default();
        c.skip_ws();
        c.eat(b':')?;
        Ok(Some(if escaped {
            Cow::Owned(decode_string(key).ok_or(JsonError(key_start))?)
        } else {
            Cow::Borrowed(key.get(1..key.len().saturating_sub(1)).unwrap_or_default())
        }))
    }

    /// The value of the member whose key [`Members::next_key`] just read, as raw text.
    pub(crate) fn next_value(&mut self) -> Scan<&'a str> {
        let c = &mut self.cursor;
        c.skip_ws();
        let value_start = c.pos;
        c.value(0)?;
        Ok(self.text.get(value_start..c.pos).unwrap_or_default())
    }
}

/// Decode a string literal (quotes included), the whole of `literal`. `None` if it is not one
/// or holds a lone surrogate, which no Rust `String` can carry.
pub(crate) fn decode_string(literal: &str) -> Option<String> {
    let mut out = String::with_capacity(literal.len());
    let mut cursor = Cursor::new(literal);
    cursor.string(Some(&mut out)).ok()?;
    (cursor.pos == literal.len()).then_some(out)
}

/// `n · 10`, `None` when it overflows: `checked_mul(10)` without the 128-bit multiplication that
/// detects its overflow in wasm.
fn times_ten(n: u64) -> Option<u64> {
    (n <= u64::MAX / 10).then(|| n * 10)
}

/// The exact integer a JSON number denotes, if it denotes one: `(negative, magnitude, plain)`,
/// where `plain` means integer syntax (no fraction, no exponent). `1.0`, `10e-1` and `0.1e1` are
/// the integer 1 (not plain); `1.5` and `1e-1` are not integers; `-0` is `(true, 0, true)`.
/// `None` also when the magnitude exceeds `u64::MAX`.
pub(crate) fn integer(number: &str) -> Option<(bool, u64, bool)> {
    let bytes = number.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let mut i = usize::from(negative);
    // value = significand · 10^(zeros + scale); trailing zeros are held back in `zeros` so that
    // `1.000…0` never overflows.
    let mut significand: u64 = 0;
    let mut zeros: i64 = 0;
    let mut scale: i64 = 0;
    let mut plain = true;
    let mut seen_digit = false;
    let mut fraction = false;
    while let Some(&b) = bytes.get(i) {
        tick(1);
        if b.is_ascii_digit() {
            seen_digit = true;
            if fraction {
                scale -= 1;
            }
            if b == b'0' {
                zeros += 1;
            } else {
                tick(zeros as u64);
                for _ in 0..zeros {
                    significand = times_ten(significand)?;
                }
                zeros = 0;
                significand = times_ten(significand)?.checked_add(u64::from(b - b'0'))?;
            }
        } else if b == b'.' && !fraction {
            fraction = true;
            plain = false;
        } else {
            break;
        }
        i += 1;
    }
    if !seen_digit {
        return None;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        plain = false;
        i += 1;
        let sign = match bytes.get(i) {
            Some(b'-') => {
                i += 1;
                -1
            }
            Some(b'+') => {
                i += 1;
                1
            }
            _ => 1,
        };
        let mut exponent: i64 = 0;
        while let Some(b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
            tick(1);
            exponent = (exponent * 10 + i64::from(b - b'0')).min(1 << 40);
            i += 1;
        }
        scale += sign * exponent;
    }
    if i != bytes.len() {
        return None;
    }
    if significand == 0 {
        return Some((negative, 0, plain));
    }
    let power = zeros + scale;
    if power < 0 {
        return None;
    }
    for _ in 0..power.min(20) {
        significand = times_ten(significand)?;
    }
    Some((negative, significand, plain))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(text: &str) -> Scan<Vec<(String, String)>> {
        let mut members = Members::of(text)?;
        let mut out = Vec::new();
        while let Some((key, value)) = members.next_member()? {
            out.push((key.into_owned(), value.to_owned()));
        }
        Ok(out)
    }

    #[test]
    fn validates_the_grammar() {
        for good in [
            "0",
            "-0",
            "-0.0e+0",
            "1E5",
            "12.5e-3",
            " \t\r\n[ ] ",
            "{}",
            r#"{"a":[1,{"b":null}],"c":"\u00e9\ud83d\ude80\ud800"}"#,
            "\"\u{7f}č🛰\"",
            "true",
            "false",
            "null",
            r#""\"\\\/\b\f\n\r\t""#,
        ] {
            assert_eq!(validate(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            " ",
            "01",
            "-",
            "+1",
            "1.",
            ".5",
            "1e",
            "1e+",
            "NaN",
            "Infinity",
            "tru",
            "nul",
            "nulll",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":}",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"a\u{1}\"",
            "\"abc",
            "[",
            "{",
            "1 2",
            "\u{feff}1",
            "[1]]",
            "{\"a\":1}}",
            "'a'",
        ] {
            assert!(validate(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn nesting_is_bounded_without_recursion_trouble() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(validate(&ok), Ok(()));
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(validate(&deep), Err(JsonError(MAX_DEPTH)));
        let hostile = "[{\"a\":".repeat(200_000);
        assert!(validate(&hostile).is_err());
        // Inside an object's member the count starts again at the member value.
        let member = format!("{{\"k\":{ok}}}");
        assert_eq!(members(&member).unwrap(), [("k".to_owned(), ok.clone())]);
        assert!(members(&format!("{{\"k\":{deep}}}")).is_err());
    }

    #[test]
    fn members_report_keys_decoded_and_values_raw() {
        let text = " {\"a\" : [1, 2] ,\"b\\u0062\":{\"x\":\"y\"},\"a\":\"\\n\" } ";
        assert_eq!(
            members(text).unwrap(),
            [
                ("a".to_owned(), "[1, 2]".to_owned()),
                ("bb".to_owned(), r#"{"x":"y"}"#.to_owned()),
                ("a".to_owned(), r#""\n""#.to_owned()),
            ]
        );
        assert_eq!(members("{}").unwrap(), []);
        for bad in [
            "[]",
            "{",
            "{\"a\":1",
            "{\"a\":1,}",
            "{,}",
            "{\"a\":1} x",
            "{\"\\ud800\":1}",
            "{\"a\":1 \"b\":2}",
            "{\"a\":[1,}",
        ] {
            assert!(members(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn decodes_strings() {
        let d = |s: &str| decode_string(s);
        assert_eq!(d(r#""plain""#).as_deref(), Some("plain"));
        assert_eq!(
            d(r#""\"\\\/\b\f\n\r\t""#).as_deref(),
            Some("\"\\/\u{8}\u{c}\n\r\t")
        );
        assert_eq!(d(r#""\u00e9\u2028č""#).as_deref(), Some("é\u{2028}č"));
        assert_eq!(d(r#""x\uD83D\uDE80y""#).as_deref(), Some("x🚀y"));
        assert_eq!(d(r#""\u0000""#).as_deref(), Some("\u{0}"));
        for lone in [
            r#""\ud800""#,
            r#""\ud800x""#,
            r#""\ud800\n""#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800""#,
            r#""\udc00""#,
            r#""\udc00\ud800""#,
        ] {
            assert_eq!(d(lone), None, "{lone}");
        }
        assert_eq!(d("1"), None);
    }

    #[test]
    fn decoding_agrees_with_serde_json() {
        // Literals built from pieces that exercise every escape, surrogate pairs, lone and
        // misordered surrogates and multi-byte text.
        let pieces = [
            "a",
            "é",
            "🛰",
            "\\n",
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\r",
            "\\t",
            "\\u0041",
            "\\u00e9",
            "\\ud83d",
            "\\ude80",
            "\\uD83D\\uDE80",
            "\\ud800\\u0041",
            "\\udbff\\udfff",
            "\\u0000",
            "x",
        ];
        let mut state = 12345u32;
        for _ in 0..20_000 {
            let mut literal = String::from("\"");
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            for k in 0..(state % 6) {
                literal.push_str(pieces[(state >> (4 * k + 3)) as usize % pieces.len()]);
            }
            literal.push('"');
            assert_eq!(validate(&literal), Ok(()), "{literal}");
            let expected = serde_json::from_str::<String>(&literal).ok();
            assert_eq!(decode_string(&literal), expected, "{literal}");
        }
    }

    #[test]
    fn times_ten_is_checked_mul() {
        let edge = u64::MAX / 10;
        for n in [0, 1, 7, edge - 1, edge, edge + 1, u64::MAX / 2, u64::MAX] {
            assert_eq!(times_ten(n), n.checked_mul(10), "{n}");
        }
    }

    #[test]
    fn integers_are_exact() {
        let i = integer;
        assert_eq!(i("0"), Some((false, 0, true)));
        assert_eq!(i("-0"), Some((true, 0, true)));
        assert_eq!(i("7"), Some((false, 7, true)));
        assert_eq!(i("-7"), Some((true, 7, true)));
        assert_eq!(i("18446744073709551615"), Some((false, u64::MAX, true)));
        assert_eq!(i("18446744073709551616"), None);
        assert_eq!(i("1.0"), Some((false, 1, false)));
        assert_eq!(
            i("1.000000000000000000000000000000"),
            Some((false, 1, false))
        );
        assert_eq!(i("10e-1"), Some((false, 1, false)));
        assert_eq!(i("0.1e1"), Some((false, 1, false)));
        assert_eq!(i("3E+2"), Some((false, 300, false)));
        assert_eq!(i("100"), Some((false, 100, true)));
        assert_eq!(i("-0.0e5"), Some((true, 0, false)));
        assert_eq!(i("0e99999999999999999999999"), Some((false, 0, false)));
        assert_eq!(i("1.5"), None);
        assert_eq!(i("1e-1"), None);
        assert_eq!(i("1.0000000000000000000001"), None);
        assert_eq!(i("1e20"), None);
        assert_eq!(i("1e99999999999999999999999"), None);
        assert_eq!(
            i("9007199254740991.0"),
            Some((false, 9_007_199_254_740_991, false))
        );
        assert_eq!(i("true"), None);
        assert_eq!(i("\"1\""), None);
        assert_eq!(i(""), None);
        assert_eq!(i("-"), None);
    }
}
