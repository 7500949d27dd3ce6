//! Outbound payloads that stay with the driver: a [`PulledText`] is a [`PayloadSource`] over a
//! string the driver holds (a JavaScript string, made once by `JSON.stringify`), read a window at
//! a time through a [`TextReader`] (`TextEncoder.encodeInto` into the window), with the read
//! position kept in UTF-16 code units, as JavaScript indexes strings.

use alloc::vec::Vec;

use muxws_proto::PayloadSource;

/// The driver's strings, as the module sees them: read a window at a time, and released when
/// the module is done with one.
pub trait TextReader {
    /// Writes the UTF-8 of `source`'s text from UTF-16 unit `from` on into `window`: as many whole
    /// code points as fit (`encodeInto` of `text.substring(from, from + window.len())`), and
    /// returns how many bytes it wrote. An unknown source writes nothing.
    fn read(&self, source: u32, from: u32, window: &mut [u8]) -> usize;
    /// The module will not read `source` again: remember it for a `RELEASE` record.
    fn release(&self, source: u32);
    /// The next released source the driver has not been told about (most recent first).
    fn next_released(&self) -> Option<u32>;
}

/// How many UTF-16 code units the UTF-8 text `bytes` holds: one per code point, two for those
/// above U+FFFF (four-byte sequences).
pub fn utf16_units(bytes: &[u8]) -> u32 {
    let mut units = 0u32;
    for &b in bytes {
        if b & 0xC0 != 0x80 {
            units += 1 + u32::from(b >= 0xF0);
        }
    }
    units
}

/// A payload the driver holds as a string of `units` UTF-16 code units under handle `handle`.
pub struct PulledText<R: TextReader> {
    reader: R,
    handle: u32,
    units: u32,
    position: u32,
    /// The last window read; freed as soon as the splitter has moved past it, so a long upload
    /// costs one window while a fragment is cut, not one per stream.
    window: Vec<u8>,
    filled: usize,
}

impl<R: TextReader> PulledText<R> {
    /// The source of string `handle`, `units` UTF-16 code units long; released through `reader`
    /// when dropped.
    pub fn new(reader: R, handle: u32, units: u32) -> PulledText<R> {
        PulledText {
            reader,
            handle,
            units,
            position: 0,
            window: Vec::new(),
            filled: 0,
        }
    }
}

impl<R: TextReader> PayloadSource for PulledText<R> {
    fn peek(&mut self, max: usize) -> (&[u8], bool) {
        let left = self.units.saturating_sub(self.position) as usize;
        // A UTF-16 code unit is at most three UTF-8 bytes: a short text needs a short window.
        let size = max.min(left.saturating_mul(3));
        self.window.clear();
        self.window.resize(size, 0);
        let written = self
            .reader
            .read(self.handle, self.position, &mut self.window)
            .min(size);
        self.filled = written;
        let window = self.window.get(..written).unwrap_or_default();
        let read = utf16_units(window);
        let all = self.position.saturating_add(read) >= self.units;
        (window, all)
    }

    fn advance(&mut self, bytes: usize) {
        let taken = bytes.min(self.filled);
        self.position = self
            .position
            .saturating_add(utf16_units(self.window.get(..taken).unwrap_or_default()));
        self.window = Vec::new();
        self.filled = 0;
    }
}

impl<R: TextReader> Drop for PulledText<R> {
    fn drop(&mut self) {
        self.reader.release(self.handle);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use muxws_proto::fragment::split_frame;
    use muxws_proto::{Frame, FrameType, Payload, Split, Splitter};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Strings by handle, read as `TextEncoder.encodeInto(text.substring(from, from + n), window)`
    /// does: whole code points only, a lone surrogate (a pair cut by `substring`) as U+FFFD.
    type Strings = Vec<(u32, Vec<u16>)>;

    /// The strings, and the handles released but not yet polled.
    #[derive(Clone, Default)]
    pub struct FakeStrings(pub Rc<RefCell<Strings>>, Rc<RefCell<Vec<u32>>>);

    impl FakeStrings {
        pub fn put(&self, handle: u32, text: &str) -> u32 {
            let units: Vec<u16> = text.encode_utf16().collect();
            let len = units.len() as u32;
            self.0.borrow_mut().push((handle, units));
            len
        }
        pub fn forget(&self, handle: u32) {
            self.0.borrow_mut().retain(|(h, _)| *h != handle);
        }
        pub fn count(&self) -> usize {
            self.0.borrow().len()
        }
    }

    impl TextReader for FakeStrings {
        fn release(&self, source: u32) {
            self.1.borrow_mut().push(source);
        }

        fn next_released(&self) -> Option<u32> {
            self.1.borrow_mut().pop()
        }

        fn read(&self, source: u32, from: u32, window: &mut [u8]) -> usize {
            let strings = self.0.borrow();
            let Some((_, units)) = strings.iter().find(|(h, _)| *h == source) else {
                return 0;
            };
            let from = (from as usize).min(units.len());
            let to = from.saturating_add(window.len()).min(units.len());
            let mut written = 0;
            for c in char::decode_utf16(units[from..to].iter().copied()) {
                let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
                if written + c.len_utf8() > window.len() {
                    break;
                }
                c.encode_utf8(&mut window[written..]);
                written += c.len_utf8();
            }
            written
        }
    }

    fn fragments(text: &str, cap: usize) -> Vec<Frame> {
        let strings = FakeStrings::default();
        let units = strings.put(7, text);
        let source = PulledText::new(strings.clone(), 7, units);
        let frame = Frame {
            end: true,
            ..Frame::on_stream(FrameType::Data, 1)
        };
        let out = match Splitter::start_with_source(frame, Box::new(source), cap).unwrap() {
            Split::Whole(frame) => vec![frame],
            Split::Fragments(mut splitter) => {
                std::iter::from_fn(|| splitter.next_fragment().unwrap()).collect()
            }
        };
        assert_eq!(strings.next_released(), Some(7), "released once, when done");
        assert_eq!(strings.next_released(), None);
        out
    }

    #[test]
    fn utf16_units_count_code_points_and_pairs() {
        assert_eq!(utf16_units(b""), 0);
        assert_eq!(utf16_units("aé€🌍".as_bytes()), 5);
        assert_eq!("aé€🌍".encode_utf16().count(), 5);
    }

    #[test]
    fn a_string_read_through_utf16_windows_splits_as_the_text_does() {
        for text in [
            "\"plain\"".to_owned(),
            serde_like(&"🌍é\u{1}\"x".repeat(400)),
            serde_like(&"ab🛰".repeat(5_000)),
            serde_like(&"\u{ffff}\u{10000}".repeat(3_000)),
        ] {
            for cap in [64, 65, 97, 200, 4096, 65_536] {
                let frame = Frame {
                    payload: Payload::json(text.clone()).unwrap(),
                    end: true,
                    ..Frame::on_stream(FrameType::Data, 1)
                };
                assert_eq!(
                    fragments(&text, cap),
                    split_frame(&frame, cap).unwrap(),
                    "cap {cap}"
                );
            }
        }
    }

    /// JSON string literal of `s` (as `JSON.stringify` writes it for these characters).
    fn serde_like(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\u{1}' => out.push_str("\\u0001"),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn an_unknown_source_reads_as_nothing_and_never_loops() {
        let source = PulledText::new(FakeStrings::default(), 3, 100_000);
        let frame = Frame::on_stream(FrameType::Data, 1);
        match Splitter::start_with_source(frame, Box::new(source), 1024).unwrap() {
            Split::Fragments(mut splitter) => assert!(splitter.next_fragment().is_err()),
            Split::Whole(_) => panic!("nothing to send whole"),
        }
    }
}
