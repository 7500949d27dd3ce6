//! The splitter and the assembler (WSM-FRG-010…035), as pure functions (WSM-FRG-015).

use muxws_proto::fragment::split_frame;
use muxws_proto::*;
use proptest::prelude::*;
use serde_json::json;

fn data_frame(payload: &str) -> Frame {
    Frame {
        payload: Payload::json(payload).unwrap(),
        end: true,
        ..Frame::on_stream(FrameType::Data, 1)
    }
}

fn fragments_of(frame: &Frame, cap: usize) -> Vec<String> {
    split_frame(frame, cap)
        .unwrap()
        .iter()
        .map(|f| f.fragment.clone().expect("fragmented"))
        .collect()
}

/// The invariants every split must hold, whatever the cut points.
fn assert_well_formed(frame: &Frame, fragments: &[Frame], cap: usize) {
    let Payload::Json(payload) = &frame.payload else {
        panic!("payload")
    };
    assert!(fragments.len() > 1);
    let last = fragments.len() - 1;
    let mut joined = String::new();
    for (i, fragment) in fragments.iter().enumerate() {
        let wire = encode(fragment);
        assert!(
            wire.len() <= cap,
            "fragment {i} is {} bytes over cap {cap}: {wire}",
            wire.len()
        );
        assert_eq!(fragment.kind, frame.kind);
        assert_eq!(fragment.stream, frame.stream);
        assert!(
            fragment.payload.is_absent(),
            "payload and fragment are exclusive (WSM-FRM-004)"
        );
        assert_eq!(
            fragment.more,
            i != last,
            "more on all but the last (WSM-FRG-020)"
        );
        assert_eq!(
            fragment.headers.is_some(),
            i == 0 && frame.headers.is_some(),
            "headers first only"
        );
        assert_eq!(
            fragment.headers,
            if i == 0 { frame.headers.clone() } else { None }
        );
        assert_eq!(fragment.end, i == last && frame.end, "end on the last only");
        assert_eq!(
            fragment.trailers,
            if i == last {
                frame.trailers.clone()
            } else {
                None
            }
        );
        assert_eq!(fragment.code, frame.code, "code on every fragment");
        assert_eq!(fragment.reason, frame.reason, "reason on every fragment");
        // Round-trips through the codec.
        assert_eq!(&decode(&wire).unwrap(), fragment);
        joined.push_str(fragment.fragment.as_deref().unwrap());
    }
    assert_eq!(
        joined,
        payload.as_str(),
        "reassembly reproduces the payload exactly"
    );
}

#[test]
fn a_frame_that_fits_goes_out_whole() {
    let frame = data_frame(r#"{"a":1}"#);
    assert_eq!(
        split_frame(&frame, MAX_FRAME_BYTES).unwrap(),
        vec![frame.clone()]
    );
    let exact = encode(&frame).len();
    assert_eq!(split_frame(&frame, exact).unwrap(), vec![frame.clone()]);
    assert!(split_frame(&frame, exact - 1).unwrap().len() > 1);
}

#[test]
fn ascii_cut_points_follow_the_budget_and_the_verify_step() {
    // cap 96: envelope of a middle fragment is 52 bytes, leaving 44 escaped bytes; the first
    // fragment's three quotes cost one extra byte each.
    let payload = json!({ "body": "x".repeat(120) }).to_string();
    let frame = data_frame(&payload);
    let cuts = fragments_of(&frame, 96);
    assert_eq!(
        cuts,
        vec![
            format!("{{\"body\":\"{}", "x".repeat(32)),
            "x".repeat(44),
            "x".repeat(44),
            "\"}".to_owned(),
        ]
    );
    assert_well_formed(&frame, &split_frame(&frame, 96).unwrap(), 96);
}

#[test]
fn astral_plane_at_a_tight_cap_never_splits_a_codepoint() {
    // cap 64 leaves 12 escaped bytes per fragment: exactly `{"body":"` first, then three 4-byte
    // codepoints per fragment.
    let payload = json!({ "body": "🚀".repeat(30) }).to_string();
    let frame = data_frame(&payload);
    let cuts = fragments_of(&frame, 64);
    assert_eq!(cuts[0], r#"{"body":""#);
    for middle in &cuts[1..cuts.len() - 1] {
        assert_eq!(middle, &"🚀".repeat(3));
    }
    assert_eq!(cuts.last().unwrap(), "\"}");
    assert_eq!(cuts.len(), 12);
    assert_well_formed(&frame, &split_frame(&frame, 64).unwrap(), 64);
}

#[test]
fn multibyte_text_moves_cuts_back_to_codepoint_boundaries() {
    for (body, cap) in [
        ("čćžšđ ".repeat(40), 96),
        ("—⚡中文 ".repeat(40), 96),
        ("𝕏🌍𝔸 ".repeat(30), 96),
        ("aé🌍".repeat(50), 70),
    ] {
        let frame = data_frame(&json!({ "body": body }).to_string());
        let fragments = split_frame(&frame, cap).unwrap();
        assert_well_formed(&frame, &fragments, cap);
    }
}

#[test]
fn control_characters_cost_six_bytes_and_are_re_split_under_the_cap() {
    let body: String = (1u8..32).map(char::from).cycle().take(93).collect();
    let payload = json!({ "body": body }).to_string();
    assert!(payload.contains("\\u0001"));
    let frame = data_frame(&payload);
    let fragments = split_frame(&frame, 128).unwrap();
    assert_well_formed(&frame, &fragments, 128);
    // The payload text is escaped once; inside the envelope it is escaped again, so a `\u0001`
    // (6 bytes) costs 7 on the wire. A slice of the raw budget (128 - 64 bytes) would therefore
    // not fit: the verify step had to re-split every middle fragment.
    let naive = Frame {
        payload: Payload::Absent,
        fragment: Some(payload[..64].to_owned()),
        more: true,
        end: false,
        ..frame.clone()
    };
    assert!(encode(&naive).len() > 128);
    let middles = &fragments[1..fragments.len() - 1];
    assert!(middles
        .iter()
        .any(|f| f.fragment.as_ref().unwrap().len() < 64));
    assert!(middles
        .iter()
        .all(|f| f.fragment.as_ref().unwrap().len() <= 64));
}

#[test]
fn bare_strings_and_lists_split_too() {
    for payload in [
        json!("y".repeat(400)).to_string(),
        json!((0..90).collect::<Vec<_>>()).to_string(),
    ] {
        let frame = data_frame(&payload);
        assert_well_formed(&frame, &split_frame(&frame, 96).unwrap(), 96);
    }
}

#[test]
fn headers_ride_the_first_fragment_and_trailers_the_last() {
    let frame = Frame {
        kind: FrameType::Open,
        headers: Some(Headers::from_json(r#"{":method":"POST",":path":"/music"}"#).unwrap()),
        trailers: Some(Headers::from_json(r#"{"sum":"cafe"}"#).unwrap()),
        ..data_frame(&json!({ "title": "z".repeat(700) }).to_string())
    };
    let fragments = split_frame(&frame, 200).unwrap();
    assert_well_formed(&frame, &fragments, 200);
}

#[test]
fn a_reset_repeats_code_and_reason_on_every_fragment() {
    let frame = Frame {
        payload: Payload::json(
            json!({ "type": "ValueError", "message": "m".repeat(500) }).to_string(),
        )
        .unwrap(),
        ..Frame::reset(9, 2, Some("handler raised".into()))
    };
    let fragments = split_frame(&frame, 128).unwrap();
    assert!(fragments.len() > 3);
    assert_well_formed(&frame, &fragments, 128);
}

#[test]
fn the_sequence_ends_with_a_fragment_without_more_even_when_it_is_empty() {
    // Trailers so large that the closing fragment can carry nothing else.
    let trailers = Headers::from_json(&json!({ "t": "q".repeat(60) }).to_string()).unwrap();
    let frame = Frame {
        trailers: Some(trailers),
        ..data_frame(&json!("w".repeat(300)).to_string())
    };
    let base = encode(&Frame {
        fragment: Some(String::new()),
        payload: Payload::Absent,
        ..frame.clone()
    })
    .len();
    let fragments = split_frame(&frame, base).unwrap();
    let last = fragments.last().unwrap();
    assert_eq!(last.fragment.as_deref(), Some(""));
    assert!(!last.more && last.end && last.trailers.is_some());
    assert_well_formed(&frame, &fragments, base);
}

#[test]
fn impossible_caps_are_errors_not_loops() {
    let big_headers = Headers::from_json(&json!({ "h": "v".repeat(200) }).to_string()).unwrap();
    // Headers alone over the cap and no payload to fragment (WSM-FRG-021).
    let frame = Frame {
        headers: Some(big_headers.clone()),
        ..Frame::on_stream(FrameType::Open, 1)
    };
    assert_eq!(
        split_frame(&frame, 128),
        Err(FragmentError::EnvelopeTooLarge { cap: 128 })
    );
    assert_eq!(
        check_sendable(&frame, 128),
        Err(FragmentError::EnvelopeTooLarge { cap: 128 })
    );
    // Headers plus one codepoint do not fit beside the envelope (WSM-FRG-034).
    let frame = Frame {
        headers: Some(big_headers.clone()),
        ..data_frame(&json!("p".repeat(400)).to_string())
    };
    assert_eq!(
        split_frame(&frame, 200),
        Err(FragmentError::Floor { cap: 200 })
    );
    assert_eq!(
        check_sendable(&frame, 200),
        Err(FragmentError::Floor { cap: 200 })
    );
    // The closing envelope with its trailers does not fit at all.
    let frame = Frame {
        trailers: Some(big_headers),
        ..data_frame(&json!("p".repeat(400)).to_string())
    };
    assert!(matches!(
        split_frame(&frame, 200),
        Err(FragmentError::ClosingFloor { .. })
    ));
    assert_eq!(
        check_sendable(&frame, 200),
        Err(FragmentError::ClosingFloor { cap: 200 })
    );
}

#[test]
fn the_splitter_is_pure() {
    let frame = data_frame(&json!({ "body": "é".repeat(300) }).to_string());
    let before = frame.clone();
    let a = split_frame(&frame, 100).unwrap();
    let b = split_frame(&frame, 100).unwrap();
    assert_eq!(a, b);
    assert_eq!(frame, before);
}

#[test]
fn the_assembler_enforces_max_payload_bytes_on_the_crossing_fragment() {
    let mut assembler = Assembler::new();
    assert_eq!(assembler.feed("[1,", true, 8), Ok(None));
    assert_eq!(assembler.feed("2,3", true, 8), Ok(None));
    assert_eq!(assembler.len(), 6);
    // 6 + 3 > 8: rejected before the final fragment, the buffer released.
    assert_eq!(assembler.feed(",4,", true, 8), Err(AssemblyError::TooLarge));
    assert!(assembler.is_empty());
}

#[test]
fn the_assembler_joins_and_validates() {
    let mut assembler = Assembler::new();
    assert_eq!(assembler.feed("{\"a\":", true, 100), Ok(None));
    assert_eq!(assembler.feed("", true, 100), Ok(None));
    assert_eq!(
        assembler.feed("[1]}", false, 100),
        Ok(Some(RawJson::parse("{\"a\":[1]}").unwrap()))
    );
    assert!(assembler.is_empty());
    assert!(matches!(
        assembler.feed("{\"a\"", false, 100),
        Err(AssemblyError::Undecodable(_))
    ));
}

fn arbitrary_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => any::<char>(),
            2 => prop::char::range('\u{0}', '\u{1f}'),
            2 => Just('"'),
            1 => Just('\\'),
            2 => prop::char::range('\u{1f300}', '\u{1f6ff}'),
            2 => prop::char::range('a', 'z'),
        ],
        0..600,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_fragment_fits_and_reassembles_exactly(
        text in arbitrary_text(),
        cap in 64usize..400,
        with_headers in any::<bool>(),
        with_trailers in any::<bool>(),
        stream in prop_oneof![Just(1u64), 1u64..100_000],
        kind in prop_oneof![Just(FrameType::Open), Just(FrameType::Data)],
    ) {
        let payload = serde_json::to_string(&json!({ "t": text, "n": [1, 2] })).unwrap();
        let frame = Frame {
            kind,
            stream: Some(stream),
            payload: Payload::json(payload.clone()).unwrap(),
            end: true,
            headers: with_headers.then(|| Headers::from_json(r#"{":path":"/p"}"#).unwrap()),
            trailers: with_trailers.then(|| Headers::from_json(r#"{"s":1}"#).unwrap()),
            ..Frame::new(FrameType::Data)
        };
        // Whenever the enqueue-time check accepts a frame, the splitter must succeed.
        if check_sendable(&frame, cap).is_ok() {
            let fragments = split_frame(&frame, cap).unwrap();
            if fragments.len() == 1 {
                prop_assert_eq!(&fragments[0], &frame);
                prop_assert!(encode(&frame).len() <= cap);
            } else {
                assert_well_formed(&frame, &fragments, cap);
            }
            // The receive side reassembles it.
            let mut assembler = Assembler::new();
            let mut out = None;
            for fragment in &fragments {
                if let Some(text) = &fragment.fragment {
                    out = assembler.feed(text, fragment.more, usize::MAX).unwrap();
                } else {
                    out = fragment.payload.as_json().cloned();
                }
            }
            let out = out.unwrap();
            prop_assert_eq!(out.as_str(), payload.as_str());
        }
    }

    #[test]
    fn lazy_and_eager_splitting_agree(text in arbitrary_text(), cap in 64usize..300) {
        let frame = data_frame(&serde_json::to_string(&text).unwrap());
        let eager = split_frame(&frame, cap);
        let lazy = match Splitter::start(frame.clone(), cap) {
            Ok(Split::Whole(f)) => Ok(vec![f]),
            Ok(Split::Fragments(mut s)) => {
                let mut v = Vec::new();
                loop {
                    match s.next_fragment() {
                        Ok(Some(f)) => v.push(f),
                        Ok(None) => break Ok(v),
                        Err(e) => break Err(e),
                    }
                }
            }
            Err(e) => Err(e),
        };
        prop_assert_eq!(eager, lazy);
    }
}
