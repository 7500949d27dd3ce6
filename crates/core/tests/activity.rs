//! Call activity: the order and content of events, and the listener registry.

mod common;

use common::Harness;
use viewsets_core::{ActivityEvent, ActivityKind, AttemptEnd, Listeners, Transport};

#[test]
fn events_of_a_call_go_start_retries_settle_with_one_key() {
    let mut h = Harness::new();
    let t0 = h.now;
    let mut spec = h.muxws_spec(2);
    spec.method = "PATCH".into();
    spec.path = "/items/3".into();
    spec.background = true;
    let key = spec.key.clone();
    let call = h.issue(spec);
    let other = h.rest();
    h.advance(30_000); // both time out: stream timeout (at once) and REST timeout (at once)
    h.peer_available(2, false);
    h.end(
        call,
        2,
        AttemptEnd::ConnectionLost {
            closed_for_good: false,
        },
    );
    h.end(
        other,
        2,
        AttemptEnd::HttpAnswer {
            status: 200,
            json_detail: false,
        },
    );
    h.advance(1_000);
    h.peer_available(2, true);
    h.end(call, 3, AttemptEnd::MuxwsReply { status: 409 });

    let events = h.events(call);
    let kinds: Vec<ActivityKind> = events.iter().map(|e| e.kind.clone()).collect();
    assert_eq!(
        kinds,
        vec![
            ActivityKind::Start,
            ActivityKind::Retry {
                attempt: 1,
                ended: "stream-timeout",
                delay_ms: 0,
                waits_for_reconnect: false
            },
            ActivityKind::Retry {
                attempt: 2,
                ended: "connection-lost",
                delay_ms: 1_000,
                waits_for_reconnect: true
            },
            ActivityKind::Settle {
                ok: false,
                attempts: 3,
                ended: "answered"
            },
        ]
    );
    assert_eq!(
        events
            .iter()
            .map(|e| e.kind.type_name())
            .collect::<Vec<_>>(),
        ["start", "retry", "retry", "settle"]
    );
    assert_eq!(
        events.iter().map(|e| e.at).collect::<Vec<_>>(),
        [t0, t0 + 30_000, t0 + 30_000, t0 + 31_000]
    );
    for event in &events {
        assert_eq!(event.key, key);
        assert_eq!(event.call, call);
        assert_eq!(event.method, "PATCH");
        assert_eq!(event.path, "/items/3");
        assert_eq!(event.transport, Transport::Muxws { peer: 2 });
        assert!(event.background);
    }
    let other_kinds: Vec<&'static str> =
        h.events(other).iter().map(|e| e.kind.type_name()).collect();
    assert_eq!(other_kinds, ["start", "retry", "settle"]);
    assert!(h
        .events(other)
        .iter()
        .all(|e| !e.background && e.key != key));
}

#[test]
fn start_precedes_the_first_send_and_settle_follows_the_settle_action() {
    let mut h = Harness::new();
    let call = h.rest();
    h.end(
        call,
        1,
        AttemptEnd::HttpAnswer {
            status: 204,
            json_detail: false,
        },
    );
    let shape: Vec<String> = h
        .seen
        .iter()
        .map(|s| match s {
            common::Seen::Event(e) => e.kind.type_name().to_owned(),
            common::Seen::Send { .. } => "send".to_owned(),
            common::Seen::Settle { .. } => "settle-action".to_owned(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(shape, ["start", "send", "settle-action", "settle"]);
    let last = h.events(call).pop().unwrap();
    assert_eq!(
        last.kind,
        ActivityKind::Settle {
            ok: true,
            attempts: 1,
            ended: "answered"
        }
    );
}

type Listener = Box<dyn Fn(&ActivityEvent) -> Result<(), String>>;

fn some_event() -> ActivityEvent {
    let mut h = Harness::new();
    h.rest();
    h.events(1).remove(0)
}

#[test]
fn a_failing_listener_does_not_stop_the_others() {
    use std::cell::RefCell;
    use std::rc::Rc;

    let calls = Rc::new(RefCell::new(Vec::new()));
    let mut listeners: Listeners<Listener> = Listeners::new();
    for name in ["first", "broken", "third"] {
        let calls = Rc::clone(&calls);
        listeners.add(Box::new(move |event: &ActivityEvent| {
            calls
                .borrow_mut()
                .push(format!("{name} {}", event.kind.type_name()));
            if name == "broken" {
                Err(format!("{name} failed"))
            } else {
                Ok(())
            }
        }));
    }
    let errors = listeners.dispatch(&some_event(), |listener, event| listener(event));
    assert_eq!(errors, vec!["broken failed".to_owned()]);
    assert_eq!(
        *calls.borrow(),
        ["first start", "broken start", "third start"]
    );
}

#[test]
fn listeners_are_kept_in_registration_order_and_removed_once() {
    let mut listeners: Listeners<&'static str> = Listeners::default();
    assert!(listeners.is_empty());
    let a = listeners.add("a");
    let b = listeners.add("b");
    let c = listeners.add("c");
    assert_eq!(listeners.len(), 3);
    assert_eq!(
        listeners.iter().copied().collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert!(listeners.remove(b));
    assert!(!listeners.remove(b), "removed twice");
    let d = listeners.add("b");
    assert_ne!(d, b, "ids are not reused");
    assert_eq!(
        listeners.iter().copied().collect::<Vec<_>>(),
        ["a", "c", "b"]
    );
    assert!(listeners.remove(a) && listeners.remove(c) && listeners.remove(d));
    assert_eq!(listeners.len(), 0);
    let errors: Vec<()> = listeners.dispatch(&some_event(), |_, _| Err(()));
    assert!(errors.is_empty());
}
