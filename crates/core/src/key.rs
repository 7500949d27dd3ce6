//! The Idempotency-Key of a call.
//!
//! Seed, "Frontend / The key": every call gets a new key, a version 4 UUID; a key the caller passes
//! (`RequestOptions.key`) that is empty or holds a character outside printable ASCII rejects the call
//! before anything is sent. Seed, "The key" (backend): the header carries the key as a Structured Field
//! string (RFC 8941), a quoted string of printable ASCII in which `"` and `\` are escaped with `\`.

use alloc::borrow::ToOwned;
use alloc::string::String;
use core::fmt;

/// The lowest printable ASCII character (space). Seed: "a quoted string of printable ASCII".
const FIRST_PRINTABLE: char = '\u{20}';
/// The highest printable ASCII character (`~`).
const LAST_PRINTABLE: char = '\u{7e}';

/// An idempotency key: a non-empty string of printable ASCII (0x20–0x7E).
///
/// Seed rule: "Every call gets a new key, a version 4 UUID" ([`IdempotencyKey::generate`]) and
/// "A key that is empty or holds a character outside printable ASCII rejects the call"
/// ([`IdempotencyKey::parse`]). The same value is sent with every attempt of one call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

/// Why a string is not an acceptable idempotency key.
///
/// Seed rule: "A key that is empty or holds a character outside printable ASCII rejects the call with a
/// TypeError before anything is sent" — the wasm layer turns this error into that `TypeError`, using
/// its [`Display`](fmt::Display) text as the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// The key is the empty string.
    Empty,
    /// The character `ch` at position `index` (counted in characters, from 0) is outside printable
    /// ASCII 0x20–0x7E.
    NotPrintableAscii {
        /// Position of the offending character, counted in characters from 0.
        index: usize,
        /// The offending character.
        ch: char,
    },
    /// The text is not a Structured Field string: it is not wrapped in double quotes, holds an
    /// unescaped `"`, or a `\` that does not escape `"` or `\`.
    NotStructuredField,
}

impl KeyError {
    /// The sentence for the JavaScript `TypeError`, built without `core::fmt` (smaller in wasm
    /// than formatting).
    pub fn message(&self) -> String {
        match self {
            KeyError::Empty => "An idempotency key must not be empty.".to_owned(),
            KeyError::NotPrintableAscii { index, ch } => {
                let mut text = String::from(
                    "An idempotency key may hold only printable ASCII characters (U+0020 to \
                     U+007E), but the character at position ",
                );
                push_decimal(&mut text, *index);
                text.push_str(" is ");
                push_quoted(&mut text, *ch);
                text.push_str(" (U+");
                push_hex(&mut text, u32::from(*ch), 4, b"0123456789ABCDEF");
                text.push_str(").");
                text
            }
            KeyError::NotStructuredField => "An Idempotency-Key header must be a Structured Field \
                 string: printable ASCII in double quotes, with \" and \\ escaped by a backslash."
                .to_owned(),
        }
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl core::error::Error for KeyError {}

/// Appends `value` in decimal.
fn push_decimal(text: &mut String, value: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = value;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        text.push(char::from(digit));
    }
}

/// Appends `ch` in single quotes, escaped as `{:?}` escapes it for the characters a key rejects
/// most often: `\0`, `\t`, `\n`, `\r`, and `\u{…}` for the other control characters (C0, DEL, C1)
/// and for common invisible ones (no-break and other spaces, soft hyphen, combining diacritics,
/// zero-width and direction marks, separators, private use, BOM, specials). Any other character is
/// written as itself, where `{:?}` may still escape a rarer one: the message gives the code point
/// anyway.
fn push_quoted(text: &mut String, ch: char) {
    text.push('\'');
    match ch {
        '\0' => text.push_str("\\0"),
        '\t' => text.push_str("\\t"),
        '\n' => text.push_str("\\n"),
        '\r' => text.push_str("\\r"),
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{a0}'
        | '\u{ad}'
        | '\u{300}'..='\u{36f}'
        | '\u{2000}'..='\u{200f}'
        | '\u{2028}'..='\u{202f}'
        | '\u{205f}'..='\u{206f}'
        | '\u{3000}'
        | '\u{e000}'..='\u{f8ff}'
        | '\u{feff}'
        | '\u{fff0}'..='\u{fffb}' => {
            text.push_str("\\u{");
            push_hex(text, u32::from(ch), 1, b"0123456789abcdef");
            text.push('}');
        }
        other => text.push(other),
    }
    text.push('\'');
}

/// Appends `value` in hexadecimal with `digits` (lower or upper case), at least `min_digits` of
/// them: `\u{…}` as `{:?}` writes it, `U+…` as `{:04X}` does.
fn push_hex(text: &mut String, value: u32, min_digits: u32, digits: &[u8; 16]) {
    let count = (32 - value.leading_zeros()).div_ceil(4).max(min_digits);
    for shift in (0..count).rev() {
        text.push(char::from(digits[((value >> (shift * 4)) & 0xf) as usize]));
    }
}

/// The first character of `chars` outside printable ASCII, with its position in characters
/// (`Err`), or how many characters there are when all are printable (`Ok`).
fn first_non_printable(chars: impl IntoIterator<Item = char>) -> Result<usize, (usize, char)> {
    let mut index = 0;
    for ch in chars {
        if !(FIRST_PRINTABLE..=LAST_PRINTABLE).contains(&ch) {
            return Err((index, ch));
        }
        index += 1;
    }
    Ok(index)
}

/// The text of a new key: the version 4 UUID built from 16 random bytes (RFC 9562 §5.4: version
/// nibble 4, variant bits `10`), as 36 ASCII bytes, lower-case and hyphenated. Built by the `uuid`
/// crate without allocating.
pub fn new_key_text(random: [u8; 16]) -> [u8; 36] {
    let mut text = [0u8; 36];
    uuid::Builder::from_random_bytes(random)
        .into_uuid()
        .hyphenated()
        .encode_lower(&mut text);
    text
}

/// The key rule over any sequence of characters, as [`IdempotencyKey::parse`] applies it: not empty,
/// and printable ASCII only.
pub fn check_key(chars: impl IntoIterator<Item = char>) -> Result<(), KeyError> {
    match first_non_printable(chars) {
        Ok(0) => Err(KeyError::Empty),
        Ok(_) => Ok(()),
        Err((index, ch)) => Err(KeyError::NotPrintableAscii { index, ch }),
    }
}

/// Hands the characters of the Structured Field string of a (checked) key to `push`: the key in
/// double quotes, `"` and `\` escaped with `\` (what [`IdempotencyKey::to_structured_field`] returns).
pub fn write_structured_field(key: impl IntoIterator<Item = char>, mut push: impl FnMut(char)) {
    push('"');
    for ch in key {
        if ch == '"' || ch == '\\' {
            push('\\');
        }
        push(ch);
    }
    push('"');
}

impl IdempotencyKey {
    /// A new key: the version 4 UUID built from 16 random bytes, lower-case and hyphenated
    /// (`xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`).
    ///
    /// Seed rule: "Every call gets a new key, a version 4 UUID (crypto.randomUUID(), or the same value
    /// built from crypto.getRandomValues() outside a secure context)". The caller supplies the random
    /// bytes (the core has no source of randomness); the version nibble is set to 4 and the variant
    /// bits to `10` as RFC 9562 §5.4 prescribes.
    pub fn generate(random: [u8; 16]) -> Self {
        IdempotencyKey(new_key_text(random).iter().map(|&byte| char::from(byte)).collect())
    }

    /// Accepts a key given by the caller (`RequestOptions.key`) as it is.
    ///
    /// Seed rule: "A key that is empty or holds a character outside printable ASCII rejects the call
    /// with a TypeError before anything is sent." Any other string is accepted unchanged.
    pub fn parse(candidate: &str) -> Result<Self, KeyError> {
        check_key(candidate.chars())?;
        Ok(IdempotencyKey(candidate.to_owned()))
    }

    /// The key itself, unquoted (the value of `ViewSetCall.key`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key as the value of the `Idempotency-Key` header: a Structured Field string.
    ///
    /// Seed rule: "The key is a Structured Field string (RFC 8941): a quoted string of printable ASCII,
    /// in which `"` and `\` are escaped with `\`."
    pub fn to_structured_field(&self) -> String {
        let mut field = String::with_capacity(self.0.len() + 2);
        write_structured_field(self.0.chars(), |ch| field.push(ch));
        field
    }

    /// Reads a key back from an `Idempotency-Key` header value.
    ///
    /// Seed rule: "A header that is not a single, non-empty Structured Field string is rejected."
    /// Leading and trailing spaces around the quoted string are discarded, as RFC 8941 §4.2 parses a
    /// field value; anything else outside the quotes, an unescaped `"`, a `\` that escapes neither `"`
    /// nor `\` ([`KeyError::NotStructuredField`]), a character outside printable ASCII
    /// ([`KeyError::NotPrintableAscii`], positioned in `sf`) or `""` ([`KeyError::Empty`]) is
    /// rejected.
    pub fn from_structured_field(sf: &str) -> Result<Self, KeyError> {
        if let Err((index, ch)) = first_non_printable(sf.chars()) {
            return Err(KeyError::NotPrintableAscii { index, ch });
        }
        let trimmed = sf.trim_matches(' ');
        let inner = trimmed
            .strip_prefix('"')
            .and_then(|rest| rest.strip_suffix('"'))
            .ok_or(KeyError::NotStructuredField)?;
        let mut key = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(ch) = chars.next() {
            match ch {
                '\\' => match chars.next() {
                    Some(escaped @ ('"' | '\\')) => key.push(escaped),
                    _ => return Err(KeyError::NotStructuredField),
                },
                '"' => return Err(KeyError::NotStructuredField),
                other => key.push(other),
            }
        }
        if key.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(IdempotencyKey(key))
    }
}

impl fmt::Display for IdempotencyKey {
    /// Writes the key unquoted, as [`IdempotencyKey::as_str`] returns it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generate_sets_version_and_variant() {
        let key = IdempotencyKey::generate([0xff; 16]);
        assert_eq!(key.as_str(), "ffffffff-ffff-4fff-bfff-ffffffffffff");
        let key = IdempotencyKey::generate([0x00; 16]);
        assert_eq!(key.as_str(), "00000000-0000-4000-8000-000000000000");
    }

    #[test]
    fn generate_matches_the_seed_example_layout() {
        let bytes = [
            0x8e, 0x03, 0x97, 0x8e, 0x40, 0xd5, 0x43, 0xe8, 0xbc, 0x93, 0x68, 0x94, 0xa5, 0x7f,
            0x93, 0x24,
        ];
        let key = IdempotencyKey::generate(bytes);
        assert_eq!(key.as_str(), "8e03978e-40d5-43e8-bc93-6894a57f9324");
        assert_eq!(
            key.to_structured_field(),
            "\"8e03978e-40d5-43e8-bc93-6894a57f9324\""
        );
    }

    #[test]
    fn parse_rejects_empty_and_non_printable() {
        assert_eq!(IdempotencyKey::parse(""), Err(KeyError::Empty));
        assert_eq!(
            IdempotencyKey::parse("ab\tc"),
            Err(KeyError::NotPrintableAscii { index: 2, ch: '\t' })
        );
        assert_eq!(
            IdempotencyKey::parse("é"),
            Err(KeyError::NotPrintableAscii { index: 0, ch: 'é' })
        );
        assert_eq!(
            IdempotencyKey::parse("a\u{7f}"),
            Err(KeyError::NotPrintableAscii {
                index: 1,
                ch: '\u{7f}'
            })
        );
        assert_eq!(IdempotencyKey::parse(" ~").unwrap().as_str(), " ~");
    }

    #[test]
    fn structured_field_escapes_quote_and_backslash() {
        let key = IdempotencyKey::parse(r#"a"b\c"#).unwrap();
        assert_eq!(key.to_structured_field(), r#""a\"b\\c""#);
        assert_eq!(
            IdempotencyKey::from_structured_field(&key.to_structured_field()),
            Ok(key)
        );
    }

    #[test]
    fn from_structured_field_rejects_malformed_values() {
        for bad in [
            "abc", "\"abc", "abc\"", "\"a\"b\"", "\"a\\b\"", "\"a\\\"", "x\"a\"", "\"",
        ] {
            assert_eq!(
                IdempotencyKey::from_structured_field(bad),
                Err(KeyError::NotStructuredField),
                "{bad:?}"
            );
        }
        assert_eq!(
            IdempotencyKey::from_structured_field("\"\""),
            Err(KeyError::Empty)
        );
        assert_eq!(
            IdempotencyKey::from_structured_field("\"a\u{1}\""),
            Err(KeyError::NotPrintableAscii {
                index: 2,
                ch: '\u{1}'
            })
        );
        assert_eq!(
            IdempotencyKey::from_structured_field("  \"k\" ")
                .unwrap()
                .as_str(),
            "k"
        );
    }

    /// The message as `{ch:?}` and `{:04X}` wrote it before they were written out by hand (to keep
    /// core's Unicode tables out of the wasm module).
    fn message_with_debug(index: usize, ch: char) -> String {
        format!(
            "An idempotency key may hold only printable ASCII characters (U+0020 to U+007E), \
             but the character at position {index} is {ch:?} (U+{:04X}).",
            u32::from(ch)
        )
    }

    #[test]
    fn not_printable_message_names_the_character() {
        assert_eq!(
            KeyError::NotPrintableAscii { index: 2, ch: '\t' }.to_string(),
            "An idempotency key may hold only printable ASCII characters (U+0020 to U+007E), \
             but the character at position 2 is '\\t' (U+0009)."
        );
        assert_eq!(
            KeyError::NotPrintableAscii { index: 0, ch: 'é' }.to_string(),
            "An idempotency key may hold only printable ASCII characters (U+0020 to U+007E), \
             but the character at position 0 is 'é' (U+00E9)."
        );
        assert_eq!(
            KeyError::NotPrintableAscii {
                index: 12345,
                ch: '\u{10ffff}'
            }
            .to_string(),
            "An idempotency key may hold only printable ASCII characters (U+0020 to U+007E), \
             but the character at position 12345 is '\u{10ffff}' (U+10FFFF)."
        );
    }

    #[test]
    fn not_printable_message_matches_debug_formatting() {
        // Every character the hand-written quoting escapes is escaped the same way by `{:?}`.
        let mut escaped = 0;
        for ch in ('\0'..='\u{ffff}').filter(|ch| !(FIRST_PRINTABLE..=LAST_PRINTABLE).contains(ch))
        {
            let text = KeyError::NotPrintableAscii { index: 7, ch }.to_string();
            if text.contains("is '\\") {
                escaped += 1;
                assert_eq!(text, message_with_debug(7, ch), "U+{:04X}", u32::from(ch));
            }
        }
        assert!(escaped > 200, "{escaped}");
        // Characters written as themselves, as `{:?}` writes them too.
        for ch in ['é', 'ß', 'Ω', 'ж', '中', '€', '😀', 'ü'] {
            let text = KeyError::NotPrintableAscii { index: 0, ch }.to_string();
            assert_eq!(text, message_with_debug(0, ch), "U+{:04X}", u32::from(ch));
        }
    }

    #[test]
    fn errors_read_as_sentences() {
        for error in [
            KeyError::Empty,
            KeyError::NotPrintableAscii { index: 3, ch: '\n' },
            KeyError::NotStructuredField,
        ] {
            let text = error.to_string();
            assert!(text.ends_with('.'), "{text}");
            assert!(text.starts_with(|c: char| c.is_uppercase()), "{text}");
        }
    }

    /// The calls module checks the ASCII characters JavaScript wrote, then the first other one.
    #[test]
    fn check_key_positions_a_character_after_the_ascii_ones() {
        assert_eq!(check_key("ab".chars().chain(Some('é'))), Err(KeyError::NotPrintableAscii { index: 2, ch: 'é' }));
        assert_eq!(check_key("a\u{7f}b".chars().chain(Some('é'))), Err(KeyError::NotPrintableAscii { index: 1, ch: '\u{7f}' }));
        assert_eq!(check_key("".chars().chain(Some('é'))), Err(KeyError::NotPrintableAscii { index: 0, ch: 'é' }));
        assert_eq!(check_key("".chars().chain(None)), Err(KeyError::Empty));
        assert_eq!(check_key(" ~".chars().chain(None)), Ok(()));
    }
}
