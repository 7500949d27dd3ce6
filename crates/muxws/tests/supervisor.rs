//! The reconnect schedule and the supervisor (`SPEC.md` §5.12, WSM-RCN-*): first connect, hello,
//! counter, `Closed` reporting, exhaustion, `close()`, `reconnect_now()`, socket bookkeeping.

mod common;

use common::*;
use muxws_proto::*;
use serde_json::json;

// ======================================================================= the schedule

#[test]
fn the_unjittered_schedule_doubles_from_250_up_to_the_cap() {
    let options = ReconnectOptions::default();
    let delays: Vec<f64> = (0..10).map(|n| unjittered_delay_ms(n, &options)).collect();
    assert_eq!(
        delays,
        [250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0, 16000.0, 30000.0, 30000.0, 30000.0]
    );
    assert_eq!(unjittered_delay_ms(u32::MAX, &options), 30000.0);
    assert_eq!(delay_ms(3, &options, 0.0), 2000.0);
}

#[test]
fn jitter_applies_to_every_delay_including_capped_ones() {
    let options = ReconnectOptions::default();
    assert!((delay_ms(0, &options, -1.0) - 175.0).abs() < 1e-9);
    assert!((delay_ms(0, &options, 1.0) - 325.0).abs() < 1e-9);
    assert!((delay_ms(20, &options, 1.0) - 39000.0).abs() < 1e-9);
    assert!((delay_ms(20, &options, -1.0) - 21000.0).abs() < 1e-9);
    // Draws outside [-1, 1] are clamped, NaN counts as no jitter.
    assert_eq!(delay_ms(0, &options, 7.0), delay_ms(0, &options, 1.0));
    assert_eq!(delay_ms(0, &options, f64::NAN), 250.0);
    // Never negative.
    let full = ReconnectOptions {
        jitter: 1.0,
        ..ReconnectOptions::default()
    };
    assert_eq!(delay_ms(2, &full, -1.0), 0.0);
    // A pure function: same inputs, same output.
    assert_eq!(delay_ms(5, &options, 0.37), delay_ms(5, &options, 0.37));
}

#[test]
fn options_are_validated_where_they_are_written() {
    let bad = [
        ReconnectOptions {
            initial_delay_ms: 0.0,
            ..Default::default()
        },
        ReconnectOptions {
            initial_delay_ms: -5.0,
            ..Default::default()
        },
        ReconnectOptions {
            initial_delay_ms: f64::NAN,
            ..Default::default()
        },
        ReconnectOptions {
            factor: 0.5,
            ..Default::default()
        },
        ReconnectOptions {
            factor: f64::INFINITY,
            ..Default::default()
        },
        ReconnectOptions {
            jitter: 1.5,
            ..Default::default()
        },
        ReconnectOptions {
            jitter: -0.1,
            ..Default::default()
        },
        ReconnectOptions {
            max_delay_ms: f64::NAN,
            ..Default::default()
        },
    ];
    for options in bad {
        assert!(options.validate().is_err(), "{options:?}");
        let peer_options = PeerOptions {
            reconnect: options,
            ..PeerOptions::default()
        };
        assert!(Peer::new(peer_options, Box::new(|| 0.0)).is_err());
    }
    // max_delay below initial just caps; factor 1 is a fixed interval.
    let ok = ReconnectOptions {
        max_delay_ms: 10.0,
        factor: 1.0,
        jitter: 0.0,
        ..Default::default()
    };
    assert!(ok.validate().is_ok());
    assert_eq!(delay_ms(4, &ok, 1.0), 10.0);
    assert!(ReconnectOptions::default().should_retry(u32::MAX - 1));
    let three = ReconnectOptions {
        max_attempts: Some(3),
        ..Default::default()
    };
    assert!(three.should_retry(2) && !three.should_retry(3));
}

#[test]
fn impossible_connection_settings_fail_at_construction() {
    let mut options = PeerOptions::default();
    options.connection.max_frame_bytes = MIN_FRAME_BYTES - 1;
    assert!(Peer::new(options, Box::new(|| 0.0)).is_err());
    let mut options = PeerOptions::default();
    options.connection.max_concurrent_streams = 0;
    assert!(Peer::new(options, Box::new(|| 0.0)).is_err());
    let mut options = PeerOptions::default();
    options.connection.max_frame_bytes = 128;
    options.hello = Some(Hello {
        headers: Some(headers_of(&json!({"x": "y".repeat(300)}))),
        payload: Payload::null(),
    });
    assert!(Peer::new(options, Box::new(|| 0.0)).is_err());
}

// ======================================================================= the first connect

#[test]
fn the_dial_offers_muxws_first_then_the_extra_entries() {
    let mut options = quiet_options();
    options.subprotocols = vec!["bearer.eyJ0".into()];
    let h = Harness::dialing(options);
    assert_eq!(
        h.wire,
        vec![Wire::Dial(
            1,
            vec!["muxws.v1.json".into(), "bearer.eyJ0".into()]
        )]
    );
    assert!(!h.peer.is_open());
}

#[test]
fn a_first_connect_that_never_opens_rejects_with_connection_refused() {
    let mut h = Harness::dialing(quiet_options()); // unlimited retries configured
    h.dial_fails();
    let error = match h.take_events().as_slice() {
        [Event::ConnectFailed(error)] => error.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(error.class_name(), "ConnectionRefused");
    assert_eq!(
        error,
        ConnectError::NotOpened {
            code: 1006,
            reason: String::new()
        }
    );
    let message = error.to_string();
    for needle in [
        "muxws.v1.json",
        "refused the upgrade",
        "could not be reached",
    ] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from {message}"
        );
    }
    // No other package's settings, no class name repeated inside the message.
    for absent in ["MUXWS_CODEC", "CodecMismatch", "ConnectionRefused"] {
        assert!(!message.contains(absent), "{absent:?} in {message}");
    }
    // Never retried, never reported as a close.
    h.take_wire();
    h.advance(600_000);
    assert!(h.take_wire().iter().all(|w| !matches!(w, Wire::Dial(..))));
    assert!(h.closes().is_empty());
    assert!(h.peer.is_closed());
}

#[test]
fn a_wrong_negotiated_subprotocol_closes_the_socket_and_rejects() {
    let mut h = Harness::dialing(quiet_options());
    h.take_wire();
    h.peer.socket_opened(1, "", h.now);
    h.flush();
    assert!(matches!(
        h.take_wire().as_slice(),
        [Wire::Close(1, CLOSE_CODEC_MISMATCH, _)]
    ));
    match h.take_events().as_slice() {
        [Event::ConnectFailed(error @ ConnectError::CodecMismatch { selected })] => {
            assert_eq!(selected, "");
            assert!(error.message().contains("selected no subprotocol"));
        }
        other => panic!("{other:?}"),
    }
    // Late events of that socket change nothing.
    h.peer.socket_message(1, r#"{"type":"ping"}"#, h.now);
    h.peer.socket_closed(1, 4008, "", true, h.now);
    h.flush();
    assert!(h.take_wire().is_empty() && h.take_events().is_empty());
}

#[test]
fn close_before_the_first_connection_rejects_connect() {
    let mut h = Harness::dialing(quiet_options());
    h.take_wire();
    h.peer.close(0, None, 10_000, h.now);
    h.flush();
    assert!(matches!(
        h.take_wire().as_slice(),
        [Wire::Close(1, 1000, _)]
    ));
    let events = h.take_events();
    assert_eq!(events, vec![Event::ConnectFailed(ConnectError::Closed)]);
    assert_eq!(ConnectError::Closed.class_name(), "ConnectionClosed");
    h.peer.socket_opened(1, SUBPROTOCOL, h.now);
    h.flush();
    assert!(h.take_events().is_empty());
}

// ======================================================================= hello

fn hello_options() -> PeerOptions {
    let mut options = quiet_options();
    options.hello = Some(Hello {
        headers: Some(headers_of(&json!({"v": 1, "client": "docs"}))),
        payload: json_payload(&json!({"tab": "t-1", "rooms": ["general"]})),
    });
    options
}

/// Open the pending socket and acknowledge its hello.
fn open_and_ack(h: &mut Harness) {
    h.open_socket();
    h.recv(json!({"type": "data", "stream": 1, "end": true}));
}

#[test]
fn the_hello_goes_out_first_and_establishes_only_when_its_stream_closes() {
    let mut h = Harness::dialing(hello_options());
    h.take_wire();
    h.open_socket();
    assert_eq!(
        h.take_sent(),
        vec![
            json!({"type": "open", "stream": 1, "end": true, "headers": {"v": 1, "client": "docs"}, "payload": {"tab": "t-1", "rooms": ["general"]}})
        ]
    );
    // The hello window: not open, opens fail synchronously, nothing is queued.
    assert!(!h.peer.is_open());
    assert_eq!(
        h.peer.open(None, Payload::null(), true, h.now),
        Err(OpenError::ConnectionLost)
    );
    assert!(h.take_events().is_empty());
    // A payload or headers on the hello stream is not the acknowledgement.
    h.recv(json!({"type": "data", "stream": 1, "headers": {":status": 200}, "payload": {"welcome": true}}));
    assert!(h.take_events().is_empty());
    assert!(!h.peer.is_open());
    // Pings still flow in the hello window.
    h.recv(json!({"type": "ping", "nonce": "a"}));
    assert_eq!(h.take_sent(), vec![json!({"type": "pong", "nonce": "a"})]);
    h.recv(json!({"type": "data", "stream": 1, "end": true}));
    assert_eq!(h.take_events(), vec![Event::Established]);
    assert!(h.peer.is_open());
    assert_eq!(h.open(json!({}), true).id, 3);
}

#[test]
fn a_reset_hello_on_the_first_connect_rejects_with_the_reset() {
    let mut h = Harness::dialing(hello_options());
    h.open_socket();
    h.take_wire();
    h.recv(json!({"type": "reset", "stream": 1, "code": 4, "reason": "who are you"}));
    let events = h.take_events();
    let [Event::ConnectFailed(ConnectError::Hello(error))] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!((error.class_name(), error.code()), ("StreamRefused", 4));
    assert!(matches!(
        h.take_wire().as_slice(),
        [Wire::Close(1, 1000, _)]
    ));
    assert!(h.closes().is_empty());
    assert!(h.peer.is_closed());
}

#[test]
fn a_hello_timeout_on_the_first_connect_resets_it_then_rejects_with_stream_timeout() {
    let mut h = Harness::dialing(hello_options());
    h.open_socket();
    h.take_wire();
    h.advance(DEFAULT_HELLO_TIMEOUT_MS - 1);
    assert!(h.take_events().is_empty());
    h.advance(1);
    let wire = h.take_wire();
    assert!(
        matches!(wire.as_slice(), [Wire::Sent(1, reset), Wire::Close(1, 1000, _)] if matches(reset, &json!({"type": "reset", "stream": 1, "code": 6}))),
        "{wire:?}"
    );
    let events = h.take_events();
    let [Event::ConnectFailed(error)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(error.class_name(), "StreamTimeout");
}

#[test]
fn a_socket_lost_during_the_first_hello_rejects_with_connection_lost() {
    let mut h = Harness::dialing(hello_options());
    h.open_socket();
    h.server_closes(1011, "");
    let events = h.take_events();
    let [Event::ConnectFailed(error)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(error.class_name(), "ConnectionLost");
    assert!(h.peer.is_closed());
}

#[test]
fn the_hello_is_replayed_byte_identically_and_reconnected_fires_after_each_ack() {
    let mut h = Harness::dialing(hello_options());
    open_and_ack(&mut h);
    assert_eq!(h.take_events(), vec![Event::Established]);
    for round in 1..=3u32 {
        h.server_closes(1012, "restart");
        h.advance(250);
        h.open_socket();
        // Not before the acknowledgement.
        assert!(!h
            .events
            .iter()
            .any(|e| matches!(e, Event::Reconnected { .. })));
        h.recv(json!({"type": "data", "stream": 1, "payload": null, "end": true}));
        let events = h.take_events();
        assert_eq!(events.last(), Some(&Event::Reconnected { attempt: round }));
    }
    let hellos: Vec<&String> = h.raw_sent.iter().map(|(_, text)| text).collect();
    assert_eq!(hellos.len(), 4, "one hello per socket and nothing else");
    assert!(
        hellos.windows(2).all(|w| w[0] == w[1]),
        "byte-identical: {hellos:?}"
    );
    let sockets: Vec<SocketId> = h.raw_sent.iter().map(|(s, _)| *s).collect();
    assert_eq!(sockets, [1, 2, 3, 4]);
}

#[test]
fn the_attempt_counter_resets_only_after_the_hello_acknowledgement() {
    let mut h = Harness::dialing(hello_options());
    open_and_ack(&mut h);
    h.take_events();
    h.server_closes(1006, "");
    h.take_wire();
    assert_eq!(h.peer.attempts(), 0);
    // 250 ms to the first redial.
    h.advance(249);
    assert!(h.take_wire().is_empty());
    h.advance(1);
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(2, _)]));
    // The socket opens but the hello is never acknowledged: the socket opening did not reset
    // anything, and the failed hello counts.
    h.open_socket();
    h.advance(DEFAULT_HELLO_TIMEOUT_MS);
    assert_eq!(h.peer.attempts(), 1);
    let closes = h.closes();
    assert_eq!(closes.len(), 2);
    assert!(closes[1].will_retry && closes[1].reason.starts_with("hello failed"));
    h.take_wire();
    // 500 ms, not 250, before the next redial.
    h.advance(499);
    assert!(h.take_wire().is_empty());
    h.advance(1);
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(3, _)]));
    // Two socketless failures climb further: 1000, then 2000.
    h.dial_fails();
    assert_eq!(h.peer.attempts(), 2);
    h.advance(1000);
    h.dial_fails();
    assert_eq!(h.peer.attempts(), 3);
    h.take_wire();
    h.advance(1999);
    assert!(h.take_wire().is_empty());
    h.advance(1);
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(5, _)]));
    open_and_ack(&mut h);
    assert_eq!(h.peer.attempts(), 0);
    assert!(h.events.contains(&Event::Reconnected { attempt: 1 }));
    assert_eq!(
        h.closes().len(),
        2,
        "socketless dial failures are never reported as closes"
    );
}

#[test]
fn a_heartbeat_death_in_the_hello_window_is_a_failed_attempt() {
    let mut options = hello_options();
    options.connection.ping_interval_ms = 1_000;
    options.connection.ping_timeout_ms = 1_000;
    options.hello_timeout_ms = 60_000;
    let mut h = Harness::dialing(options);
    open_and_ack(&mut h);
    h.recv(json!({"type": "pong", "nonce": "x"}));
    h.server_closes(1006, "");
    h.advance(250);
    h.open_socket();
    h.advance(2_000);
    assert_eq!(h.peer.attempts(), 1);
    assert_eq!(h.closes().last().unwrap().code, 1006);
}

// ======================================================================= losses and reporting

#[test]
fn every_stream_fails_connection_lost_before_the_single_close_report() {
    let mut h = Harness::default_connected();
    let a = h.open(json!({}), true);
    let b = h.open(json!({}), false);
    let pushed = StreamRef {
        socket: h.socket,
        id: 2,
    };
    h.recv(json!({"type": "open", "stream": 2}));
    h.take_events();
    h.server_closes(1001, "bye");
    let events = h.take_events();
    assert_eq!(events.len(), 4, "{events:?}");
    for (i, s) in [a, pushed, b].iter().enumerate() {
        assert_eq!(
            events[i],
            Event::Stream {
                stream: *s,
                event: StreamEvent::Failed(StreamError::ConnectionLost)
            }
        );
    }
    assert_eq!(
        events[3],
        Event::Closed(CloseReason {
            code: 1001,
            reason: "bye".into(),
            was_clean: false,
            will_retry: true
        })
    );
    assert_eq!(StreamError::ConnectionLost.class_name(), "ConnectionLost");
    assert_eq!(StreamError::ConnectionLost.code(), 9);
}

#[test]
fn between_sockets_nothing_is_buffered_and_ids_restart_at_one() {
    let mut h = Harness::default_connected();
    let old = h.open(json!({"before": true}), false);
    h.server_closes(1006, "");
    h.take_events();
    assert_eq!(
        h.peer.open(None, Payload::null(), true, h.now),
        Err(OpenError::ConnectionLost)
    );
    assert_eq!(OpenError::ConnectionLost.class_name(), "ConnectionLost");
    assert_eq!(
        h.peer.send(old, Outbound::data(Payload::null())),
        Err(SendError::NotLive)
    );
    assert!(
        !h.peer.cancel(old, None),
        "cancel is a no-op after socket death"
    );
    assert!(!h.peer.timeout(old));
    h.take_wire();
    h.advance(250);
    h.open_socket();
    assert_eq!(h.take_events(), vec![Event::Reconnected { attempt: 1 }]);
    assert!(
        h.take_sent().is_empty(),
        "nothing from the old socket or the gap reaches the new one"
    );
    let new = h.open(json!({"after": true}), true);
    assert_eq!(new.id, 1);
    assert_ne!(new, old);
    assert_eq!(
        h.peer.send(old, Outbound::data(Payload::null())),
        Err(SendError::NotLive),
        "an old handle never reaches the new stream 1"
    );
}

#[test]
fn events_of_an_old_socket_are_ignored() {
    let mut h = Harness::default_connected();
    let old = h.socket;
    h.server_closes(1006, "");
    h.advance(250);
    h.open_socket();
    h.take_events();
    h.take_wire();
    h.peer
        .socket_message(old, r#"{"type":"data","stream":1,"payload":1}"#, h.now);
    h.peer.socket_closed(old, 1006, "", false, h.now);
    h.peer.socket_opened(old, SUBPROTOCOL, h.now);
    h.flush();
    assert!(h.take_events().is_empty());
    assert!(h.take_wire().is_empty());
    assert!(h.peer.is_open());
}

#[test]
fn max_attempts_exhaustion_reports_will_retry_false_once_and_never_dials_again() {
    let mut options = quiet_options();
    options.reconnect.max_attempts = Some(2);
    let mut h = Harness::connected(options);
    h.server_closes(1006, "");
    assert_eq!(
        h.closes(),
        vec![CloseReason {
            code: 1006,
            reason: String::new(),
            was_clean: false,
            will_retry: true
        }]
    );
    h.advance(250);
    h.dial_fails();
    h.advance(500);
    h.dial_fails();
    let closes = h.closes();
    assert_eq!(closes.len(), 2);
    assert_eq!(
        closes[1],
        CloseReason {
            code: 1006,
            reason: "gave up reconnecting after 2 attempts".into(),
            was_clean: false,
            will_retry: false
        }
    );
    h.take_wire();
    h.advance(3_600_000);
    assert!(h.take_wire().is_empty());
    assert!(h.peer.is_closed());
}

#[test]
fn max_attempts_zero_gives_up_at_the_first_loss() {
    let mut options = quiet_options();
    options.reconnect.max_attempts = Some(0);
    let mut h = Harness::connected(options);
    h.server_closes(1006, "");
    assert_eq!(
        h.closes(),
        vec![CloseReason {
            code: 1006,
            reason: String::new(),
            was_clean: false,
            will_retry: false
        }]
    );
    h.take_wire();
    h.advance(60_000);
    assert!(h.take_wire().is_empty());
    assert!(h.peer.is_closed());
}

#[test]
fn a_failed_hello_that_exhausts_the_attempts_is_the_only_will_retry_false() {
    let mut options = hello_options();
    options.reconnect.max_attempts = Some(1);
    let mut h = Harness::dialing(options);
    open_and_ack(&mut h);
    h.server_closes(1006, "");
    h.advance(250);
    h.open_socket();
    h.recv(json!({"type": "reset", "stream": 1, "code": 3}));
    h.advance(60_000);
    let closes = h.closes();
    assert_eq!(closes.len(), 2);
    assert!(closes[0].will_retry);
    assert!(!closes[1].will_retry);
    assert!(h.peer.is_closed());
}

#[test]
fn close_mid_backoff_stops_the_supervisor_and_reports_once() {
    let mut h = Harness::default_connected();
    h.server_closes(1006, "");
    h.advance(100);
    h.peer.close(0, Some("logout".into()), 10_000, h.now);
    h.flush();
    assert_eq!(
        h.closes(),
        vec![
            CloseReason {
                code: 1006,
                reason: String::new(),
                was_clean: false,
                will_retry: true
            },
            CloseReason {
                code: 1000,
                reason: "logout".into(),
                was_clean: true,
                will_retry: false
            },
        ]
    );
    h.take_wire();
    h.advance(60_000);
    assert!(h.take_wire().is_empty());
    h.peer.close(0, None, 0, h.now); // idempotent
    h.flush();
    assert_eq!(h.closes().len(), 2);
    assert!(!h.peer.reconnect_now(h.now));
}

#[test]
fn close_while_redialling_aborts_the_dial() {
    let mut h = Harness::default_connected();
    h.server_closes(1006, "");
    h.advance(250);
    let pending = h.last_dial().unwrap();
    h.take_wire();
    h.peer.close(0, None, 10_000, h.now);
    h.flush();
    assert!(matches!(h.take_wire().as_slice(), [Wire::Close(s, 1000, _)] if *s == pending));
    assert_eq!(h.closes().len(), 2);
    assert!(!h.closes()[1].will_retry);
    h.take_events();
    h.peer.socket_opened(pending, SUBPROTOCOL, h.now);
    h.flush();
    assert!(h.take_events().is_empty() && h.take_wire().is_empty());
}

#[test]
fn close_in_the_hello_window_closes_the_socket() {
    let mut h = Harness::dialing(hello_options());
    open_and_ack(&mut h);
    h.server_closes(1006, "");
    h.advance(250);
    h.open_socket();
    h.take_wire();
    h.peer.close(0, None, 10_000, h.now);
    h.flush();
    assert!(matches!(
        h.take_wire().as_slice(),
        [Wire::Close(_, 1000, _)]
    ));
    assert_eq!(h.closes().len(), 2);
    assert!(!h.closes()[1].will_retry);
}

#[test]
fn reconnect_now_skips_the_backoff_sleep_without_resetting_the_counter() {
    let mut options = quiet_options();
    options.reconnect.initial_delay_ms = 5_000.0;
    let mut h = Harness::connected(options);
    assert!(
        !h.peer.reconnect_now(h.now),
        "nothing pending while connected"
    );
    h.server_closes(1006, "");
    h.take_wire();
    assert!(h.peer.reconnect_now(h.now));
    h.flush();
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(2, _)]));
    h.dial_fails();
    assert_eq!(h.peer.attempts(), 1);
    assert!(h.peer.reconnect_now(h.now));
    h.flush();
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(3, _)]));
    assert_eq!(h.peer.attempts(), 1);
    h.open_socket();
    assert_eq!(h.peer.attempts(), 0);
    assert!(h.events.contains(&Event::Reconnected { attempt: 1 }));
}

#[test]
fn the_injected_draw_jitters_the_backoff() {
    let draws = std::cell::Cell::new(0);
    let mut h = Harness::dialing_with_jitter(
        quiet_options(),
        Box::new(move || {
            draws.set(draws.get() + 1);
            1.0
        }),
    );
    h.open_socket();
    h.server_closes(1006, "");
    h.take_wire();
    h.advance(324);
    assert!(h.take_wire().is_empty());
    h.advance(1);
    assert!(matches!(h.take_wire().as_slice(), [Wire::Dial(..)]));
}

#[test]
fn a_protocol_error_is_a_loss_with_retry() {
    let mut h = Harness::default_connected();
    h.recv_raw("not json at all");
    let closes = h.closes();
    assert_eq!(closes.len(), 1);
    assert_eq!(closes[0].code, CLOSE_PROTOCOL_ERROR);
    assert!(closes[0].will_retry);
    h.advance(250);
    h.open_socket();
    assert!(h.peer.is_open());
}

#[test]
fn the_attempt_in_reconnected_counts_re_establishments_not_failures() {
    let mut h = Harness::default_connected();
    h.server_closes(1006, "");
    h.advance(250);
    h.dial_fails();
    h.advance(500);
    h.dial_fails();
    h.advance(1000);
    h.open_socket();
    h.server_closes(1006, "");
    h.advance(250);
    h.open_socket();
    let reconnects: Vec<u32> = h
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Reconnected { attempt } => Some(*attempt),
            _ => None,
        })
        .collect();
    assert_eq!(reconnects, [1, 2]);
}

#[test]
fn resetting_the_hello_from_the_application_fails_the_attempt() {
    let mut h = Harness::dialing(hello_options());
    h.open_socket();
    let hello = StreamRef {
        socket: h.socket,
        id: 1,
    };
    assert!(h.peer.cancel(hello, None));
    h.flush();
    let events = h.take_events();
    assert!(
        matches!(
            events.as_slice(),
            [Event::ConnectFailed(ConnectError::Hello(
                StreamError::LocalReset { code: 1, .. }
            ))]
        ),
        "{events:?}"
    );
}
