//! Property tests of the key: generated keys are v4 UUIDs that survive the Structured Field round
//! trip, and caller keys are accepted exactly when they are non-empty printable ASCII.

use proptest::prelude::*;
use viewsets_core::{IdempotencyKey, KeyError};

fn is_printable_ascii(s: &str) -> bool {
    s.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// Strings from every corner: arbitrary Unicode, printable ASCII (with `"` and `\` often), any
/// ASCII, and printable ASCII with one foreign character somewhere.
fn candidates() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,40}",
        "[\"\\\\a ~]{0,12}",
        "[\\x00-\\x7f]{0,24}",
        ("[ -~]{0,10}", any::<char>(), "[ -~]{0,10}").prop_map(|(a, c, b)| format!("{a}{c}{b}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn generated_keys_are_v4_uuids_and_round_trip(bytes in any::<[u8; 16]>()) {
        let key = IdempotencyKey::generate(bytes);
        let text = key.as_str();
        prop_assert_eq!(text.len(), 36);
        for (index, ch) in text.char_indices() {
            if matches!(index, 8 | 13 | 18 | 23) {
                prop_assert_eq!(ch, '-');
            } else {
                prop_assert!(ch.is_ascii_digit() || ('a'..='f').contains(&ch), "{}", text);
            }
        }
        prop_assert_eq!(&text[14..15], "4");
        prop_assert!(matches!(&text[19..20], "8" | "9" | "a" | "b"), "{}", text);
        // Every bit but the version and variant bits comes from the random bytes.
        let hex: String = text.chars().filter(|c| *c != '-').collect();
        let decoded: Vec<u8> = (0..16).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
        for (i, (out, inp)) in decoded.iter().zip(bytes.iter()).enumerate() {
            let mask = match i { 6 => 0x0f, 8 => 0x3f, _ => 0xff };
            prop_assert_eq!(out & mask, inp & mask);
        }
        prop_assert_eq!(IdempotencyKey::parse(text), Ok(key.clone()));
        prop_assert_eq!(IdempotencyKey::from_structured_field(&key.to_structured_field()), Ok(key));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn keys_are_accepted_iff_non_empty_printable_ascii(candidate in candidates()) {
        let accepted = IdempotencyKey::parse(&candidate);
        let valid = !candidate.is_empty() && is_printable_ascii(&candidate);
        match accepted {
            Ok(key) => {
                prop_assert!(valid, "accepted {:?}", candidate);
                prop_assert_eq!(key.as_str(), candidate.as_str());
                let sf = key.to_structured_field();
                prop_assert!(sf.starts_with('"') && sf.ends_with('"') && is_printable_ascii(&sf));
                prop_assert_eq!(IdempotencyKey::from_structured_field(&sf), Ok(key));
            }
            Err(KeyError::Empty) => prop_assert!(candidate.is_empty()),
            Err(KeyError::NotPrintableAscii { index, ch }) => {
                prop_assert!(!valid);
                let first_bad = candidate.chars().enumerate().find(|(_, c)| !(' '..='~').contains(c));
                prop_assert_eq!(first_bad, Some((index, ch)));
            }
            Err(KeyError::NotStructuredField) => prop_assert!(false, "parse never asks for SF"),
        }
    }

    #[test]
    fn structured_field_parsing_never_accepts_what_it_would_not_write(candidate in candidates()) {
        if let Ok(key) = IdempotencyKey::from_structured_field(&candidate) {
            // What was accepted is, up to surrounding spaces, exactly the canonical form.
            prop_assert_eq!(key.to_structured_field(), candidate.trim_matches(' '));
        }
    }
}
