//! Message text without `core::fmt`: the few numbers that appear in messages are written with
//! these helpers, so no format machinery or argument tables are generated per message.

use alloc::string::String;

/// Append `n` in decimal.
pub(crate) fn push_u64(out: &mut String, n: u64) {
    if n >= 10 {
        push_u64(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// Append `n` in decimal, with a leading `-` when negative.
pub(crate) fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, n.unsigned_abs());
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(crate) fn prefix(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    // `a..b`, as every `str::get` of the crate (one instance of it in the wasm module).
    s.get(0..end).unwrap_or_default()
}

/// `n` as 16 lowercase hex digits (the heartbeat nonce).
pub(crate) fn hex16(n: u64) -> String {
    let mut out = String::with_capacity(16);
    let mut shift = 64;
    while shift > 0 {
        shift -= 4;
        let digit = ((n >> shift) & 0xf) as u8;
        out.push(char::from(if digit < 10 {
            b'0' + digit
        } else {
            b'a' - 10 + digit
        }));
    }
    out
}

/// `n` in decimal.
pub(crate) fn udecimal(n: u64) -> String {
    around("", n, "")
}

/// The text `write` appends to an empty string (an error's message from its `write_message`).
pub(crate) fn written(write: impl FnOnce(&mut String)) -> String {
    let mut out = String::new();
    write(&mut out);
    out
}

/// `a`, `b` and `c`, concatenated (without the generic `[&str]::concat`).
pub(crate) fn cat3(a: &str, b: &str, c: &str) -> String {
    let mut out = String::with_capacity(a.len() + b.len() + c.len());
    out.push_str(a);
    out.push_str(b);
    out.push_str(c);
    out
}

/// `head`, then `n` in decimal, then `tail`.
pub(crate) fn around(head: &str, n: u64, tail: &str) -> String {
    let mut out = String::with_capacity(head.len() + 20 + tail.len());
    out.push_str(head);
    push_u64(&mut out, n);
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_display() {
        for n in [0u64, 1, 9, 10, 99, 100, 12_345, u64::MAX] {
            let mut s = String::new();
            push_u64(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        for n in [0i64, -1, 7, -10, i64::MAX, i64::MIN] {
            let mut s = String::new();
            push_i64(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        assert_eq!(udecimal(u64::MAX), u64::MAX.to_string());
        assert_eq!(around("a ", 42, " b"), "a 42 b");
        assert_eq!(cat3("a", "", "bc"), "abc");
        assert_eq!(prefix("aččx", 4), "ač");
        assert_eq!(prefix("aččx", 5), "ačč");
        assert_eq!(prefix("ab", 9), "ab");
        assert_eq!(prefix("🛰", 3), "");
        for n in [0u64, 1, 0xab, u64::MAX, 0x0123_4567_89ab_cdef] {
            assert_eq!(hex16(n), format!("{n:016x}"));
        }
    }
}

/// The pieces every error type of the crate repeats, written once. The message is built by
/// pushing text onto a `String` (`write_message`), never by `core::fmt` formatting, whose
/// machinery the wasm module leaves out; `Display` only writes that text.
/// - `wire_error!(T)`, for a `T` with its own `write_message(&self, &mut String)`: `message()`,
///   `Display` and `Error`;
/// - `wire_error!(T, classed)`, for such a `T` that also has `class() -> ErrorClass`: the same,
///   plus `class_name()`;
/// - `wire_error!(T, text)`, for a `T(String)` holding its message: `Display` and `Error`.
macro_rules! wire_error {
    ($ty:ident) => {
        impl $ty {
            #[doc = concat!("The error's message (what `Display` writes), built without `core::fmt`; see [`", stringify!($ty), "::write_message`].")]
            pub fn message(&self) -> alloc::string::String {
                $crate::text::written(|out| self.write_message(out))
            }
        }

        impl core::fmt::Display for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(&self.message())
            }
        }

        impl core::error::Error for $ty {}
    };
    ($ty:ident, classed) => {
        $crate::text::wire_error!($ty);

        impl $ty {
            #[doc = concat!("The JS class `name` (WSM-ERR-004): [`", stringify!($ty), "::class`]'s.")]
            pub fn class_name(&self) -> &'static str {
                self.class().name()
            }
        }
    };
    ($ty:ident, text) => {
        impl core::fmt::Display for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl core::error::Error for $ty {}
    };
}
pub(crate) use wire_error;
