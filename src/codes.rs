//! The numbers the calls module and the TS runtime exchange, in one place (docs/boundary.md): how an
//! attempt ended, and the actions and pending calls written as records of `f64`.

use alloc::vec::Vec;
use viewsets_core::{Abandon, Action, ActivityKind, AttemptEnd, PendingCall, Transport, JITTER_WHOLE};

/// Fields per action record.
pub const ACTION_FIELDS: usize = 8;
/// Fields per pending-call record.
pub const PENDING_FIELDS: usize = 6;

/// Action record kinds (field 0).
pub mod action {
    /// Send attempt: call, attempt, carry.
    pub const SEND: f64 = 1.0;
    /// Abandon attempt: call, attempt, why.
    pub const ABANDON: f64 = 2.0;
    /// Settle: call, attempt, end code, status, ok.
    pub const SETTLE: f64 = 3.0;
    /// Reconnect now: peer.
    pub const RECONNECT_NOW: f64 = 4.0;
    /// Activity: call, type, attempt(s) (wait: reason), ended label, delay ms, flags, at.
    pub const ACTIVITY: f64 = 5.0;
}

/// Activity `type` codes (field 2 of an activity record).
pub mod activity {
    /// `start`.
    pub const START: f64 = 0.0;
    /// `retry`.
    pub const RETRY: f64 = 1.0;
    /// `settle`.
    pub const SETTLE: f64 = 2.0;
    /// `wait`: the reason (a `WaitReason` code) in field 3.
    pub const WAIT: f64 = 3.0;
}

/// `end` flag: the body is a JSON object holding `detail`.
pub const END_JSON_DETAIL: u32 = 0x100;
/// `end` flag: the muxws peer has closed for good.
pub const END_CLOSED_FOR_GOOD: u32 = 0x200;

/// How an attempt ended, from the runtime's `end` code (low byte, flags above) and `status`.
/// Unknown codes are "other error", which settles the call.
pub fn attempt_end(end: u32, status: u32) -> AttemptEnd {
    let status = status.min(u32::from(u16::MAX)) as u16;
    let closed_for_good = end & END_CLOSED_FOR_GOOD != 0;
    match end & 0xff {
        0 => AttemptEnd::HttpAnswer {
            status,
            json_detail: end & END_JSON_DETAIL != 0,
        },
        1 => AttemptEnd::NetworkError,
        2 => AttemptEnd::AttemptTimeout,
        3 => AttemptEnd::Cancelled,
        4 => AttemptEnd::MuxwsReply { status },
        5 => AttemptEnd::StreamTimeout,
        6 => AttemptEnd::ConnectionLost { closed_for_good },
        7 => AttemptEnd::StreamRefused { closed_for_good },
        8 => AttemptEnd::OpenConnectionClosed { closed_for_good },
        9 => AttemptEnd::OpenGoingAway { closed_for_good },
        _ => AttemptEnd::OtherError,
    }
}

/// The runtime's `end` code of `end` (the inverse of [`attempt_end`], flags included).
pub fn end_code(end: &AttemptEnd) -> u32 {
    let flag = |closed_for_good: bool| if closed_for_good { END_CLOSED_FOR_GOOD } else { 0 };
    match *end {
        AttemptEnd::HttpAnswer { json_detail, .. } => if json_detail { END_JSON_DETAIL } else { 0 },
        AttemptEnd::NetworkError => 1,
        AttemptEnd::AttemptTimeout => 2,
        AttemptEnd::Cancelled => 3,
        AttemptEnd::MuxwsReply { .. } => 4,
        AttemptEnd::StreamTimeout => 5,
        AttemptEnd::ConnectionLost { closed_for_good } => 6 | flag(closed_for_good),
        AttemptEnd::StreamRefused { closed_for_good } => 7 | flag(closed_for_good),
        AttemptEnd::OpenConnectionClosed { closed_for_good } => 8 | flag(closed_for_good),
        AttemptEnd::OpenGoingAway { closed_for_good } => 9 | flag(closed_for_good),
        AttemptEnd::OtherError => 10,
    }
}

/// The code of why an attempt is abandoned: 0 its timeout, 1 superseded by a repeat, 2 cancelled.
fn abandon_code(why: Abandon) -> u8 {
    match why {
        Abandon::Timeout => 0,
        Abandon::Superseded => 1,
        Abandon::Cancelled => 2,
    }
}

/// Appends `action` to `records` as one record of [`ACTION_FIELDS`] numbers.
pub fn write_action(records: &mut Vec<f64>, action: &Action) {
    // The fields an action does not use stay 0.
    let mut record = [0.0; ACTION_FIELDS];
    match action {
        Action::SendAttempt { call, attempt, carry } => {
            record[0] = action::SEND;
            record[1] = *call as f64;
            record[2] = f64::from(*attempt);
            record[3] = f64::from(u8::from(*carry));
        }
        Action::AbandonAttempt { call, attempt, why } => {
            record[0] = action::ABANDON;
            record[1] = *call as f64;
            record[2] = f64::from(*attempt);
            record[3] = f64::from(abandon_code(*why));
        }
        Action::Settle { call, attempt, end } => {
            record[0] = action::SETTLE;
            record[1] = *call as f64;
            record[2] = f64::from(*attempt);
            record[3] = f64::from(end_code(end));
            // The status of an answer and whether it succeeded: `AttemptEnd::is_success` from one
            // look at the end (a test holds the two equal); 0 and 0 for the other ends, which never
            // succeed.
            if let AttemptEnd::HttpAnswer { status, .. } | AttemptEnd::MuxwsReply { status } = *end {
                record[4] = f64::from(status);
                record[5] = f64::from(u8::from(status < 400));
            }
        }
        Action::ReconnectNow { peer } => {
            record[0] = action::RECONNECT_NOW;
            record[1] = *peer as f64;
        }
        Action::Activity(event) => {
            record[0] = action::ACTIVITY;
            record[1] = event.call as f64;
            record[7] = event.at as f64;
            match &event.kind {
                ActivityKind::Start => record[2] = activity::START,
                ActivityKind::Retry { attempt, ended, delay_ms, waits_for_reconnect } => {
                    record[2] = activity::RETRY;
                    record[3] = f64::from(*attempt);
                    record[4] = f64::from(*ended as u8);
                    record[5] = *delay_ms as f64;
                    record[6] = f64::from(u8::from(*waits_for_reconnect));
                }
                ActivityKind::Settle { ok, attempts, ended } => {
                    record[2] = activity::SETTLE;
                    record[3] = f64::from(*attempts);
                    record[4] = f64::from(*ended as u8);
                    record[6] = f64::from(u8::from(*ok) * 2);
                }
                ActivityKind::Wait { reason } => {
                    record[2] = activity::WAIT;
                    record[3] = f64::from(*reason as u8);
                }
            }
        }
    }
    records.extend_from_slice(&record);
}

/// Appends `call` to `records` as one record of [`PENDING_FIELDS`] numbers: call, issued at,
/// unanswered attempts, next attempt at (NaN: none), flags (1 background, 2 waits for a reconnect,
/// 4 muxws), why it waits (a `WaitReason` code).
pub fn write_pending(records: &mut Vec<f64>, call: &PendingCall) {
    let flags = u8::from(call.background)
        | (u8::from(call.waiting_for_reconnect) << 1)
        | (u8::from(matches!(call.transport, Transport::Muxws { .. })) << 2);
    records.extend_from_slice(&[
        call.call as f64,
        call.issued_at as f64,
        f64::from(call.unanswered_attempts),
        call.next_attempt_at.map_or(f64::NAN, |at| at as f64),
        f64::from(flags),
        f64::from(call.reason as u8),
    ]);
}

/// Milliseconds from JavaScript as the engine's `u64`: negative and NaN are 0, fractions dropped,
/// anything beyond the clock's range saturates.
pub fn ms(value: f64) -> u64 {
    value as u64
}

/// Optional milliseconds from JavaScript: negative and NaN (`undefined` too) are none, the rest as
/// [`ms`].
pub fn optional_ms(value: f64) -> Option<u64> {
    (value >= 0.0).then(|| ms(value))
}

/// `repeat.jitter` (a fraction 0…1) in the engine's units of `1 / JITTER_WHOLE`: negative and NaN
/// are 0, above 1 is 1.
pub fn jitter(fraction: f64) -> u32 {
    ((fraction * f64::from(JITTER_WHOLE)) as u32).min(JITTER_WHOLE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_end_round_trips_through_its_code() {
        let ends = [
            AttemptEnd::HttpAnswer { status: 503, json_detail: true },
            AttemptEnd::HttpAnswer { status: 200, json_detail: false },
            AttemptEnd::NetworkError,
            AttemptEnd::AttemptTimeout,
            AttemptEnd::Cancelled,
            AttemptEnd::MuxwsReply { status: 409 },
            AttemptEnd::StreamTimeout,
            AttemptEnd::ConnectionLost { closed_for_good: true },
            AttemptEnd::StreamRefused { closed_for_good: false },
            AttemptEnd::OpenConnectionClosed { closed_for_good: true },
            AttemptEnd::OpenGoingAway { closed_for_good: false },
            AttemptEnd::OtherError,
        ];
        for end in ends {
            let status = match end {
                AttemptEnd::HttpAnswer { status, .. } | AttemptEnd::MuxwsReply { status } => u32::from(status),
                _ => 0,
            };
            assert_eq!(attempt_end(end_code(&end), status), end);
        }
        assert_eq!(attempt_end(0xfe, 0), AttemptEnd::OtherError);
        assert_eq!(attempt_end(0, 70_000), AttemptEnd::HttpAnswer { status: u16::MAX, json_detail: false });
    }

    /// The TS runtime turns an `ended` code back into its name with its own list: it must hold
    /// the names of `Ended` in the order of their codes.
    #[test]
    fn the_runtime_names_every_ended_code_in_order() {
        use viewsets_core::Ended;
        let runtime = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/src/runtime.ts")).unwrap();
        let list = runtime.split("const ENDED = [").nth(1).and_then(|rest| rest.split("];").next()).expect("ENDED in runtime.ts");
        let names: Vec<&str> = list.split(',').map(|item| item.trim().trim_matches('\'')).filter(|item| !item.is_empty()).collect();
        let all = [
            Ended::Answered,
            Ended::GatewayStatus,
            Ended::NetworkError,
            Ended::Timeout,
            Ended::Cancelled,
            Ended::StreamTimeout,
            Ended::ConnectionLost,
            Ended::StreamRefused,
            Ended::ConnectionClosed,
            Ended::GoingAway,
            Ended::Error,
        ];
        assert_eq!(names.len(), all.len());
        for ended in all {
            assert_eq!(names[ended as usize], ended.as_str());
        }
    }

    #[test]
    fn optional_ms_and_jitter_never_panic() {
        assert_eq!(optional_ms(-1.0), None);
        assert_eq!(optional_ms(f64::NAN), None);
        assert_eq!(optional_ms(0.0), Some(0));
        assert_eq!(optional_ms(2_500.7), Some(2_500));
        assert_eq!(optional_ms(f64::INFINITY), Some(u64::MAX));
        assert_eq!(jitter(0.0), 0);
        assert_eq!(jitter(0.5), JITTER_WHOLE / 2);
        assert_eq!(jitter(1.0), JITTER_WHOLE);
        assert_eq!(jitter(7.0), JITTER_WHOLE);
        assert_eq!(jitter(-0.5), 0);
        assert_eq!(jitter(f64::NAN), 0);
        assert_eq!(jitter(f64::INFINITY), JITTER_WHOLE);
    }

    /// The records the runtime reads: a wait event's reason, a pending call's reason.
    #[test]
    fn wait_reasons_reach_the_records() {
        use viewsets_core::{ActivityEvent, WaitReason};
        let mut records = Vec::new();
        let event = ActivityEvent {
            kind: ActivityKind::Wait { reason: WaitReason::Offline },
            call: 4,
            transport: Transport::Rest,
            background: false,
            at: 77,
        };
        write_action(&mut records, &Action::Activity(event));
        assert_eq!(records, [action::ACTIVITY, 4.0, activity::WAIT, 3.0, 0.0, 0.0, 0.0, 77.0]);
        let codes = [WaitReason::InFlight, WaitReason::Delay, WaitReason::Reconnect, WaitReason::Offline].map(|r| r as u8);
        assert_eq!(codes, [0, 1, 2, 3]);
        records.clear();
        let pending = PendingCall {
            call: 9,
            transport: Transport::Muxws { peer: 2 },
            issued_at: 5,
            unanswered_attempts: 1,
            background: false,
            next_attempt_at: None,
            waiting_for_reconnect: true,
            reason: WaitReason::Reconnect,
        };
        write_pending(&mut records, &pending);
        assert_eq!(records[..3], [9.0, 5.0, 1.0]);
        assert!(records[3].is_nan());
        assert_eq!(records[4..], [6.0, 2.0]);
    }

    /// The TS runtime names the reasons a call waits with its own list, in the order of their codes.
    #[test]
    fn the_runtime_names_every_wait_reason_in_order() {
        use viewsets_core::WaitReason;
        let runtime = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/src/runtime.ts")).unwrap();
        let list = runtime.split("const REASONS = [").nth(1).and_then(|rest| rest.split("]").next()).expect("REASONS in runtime.ts");
        let names: Vec<&str> = list.split(',').map(|item| item.trim().trim_matches('\'')).filter(|item| !item.is_empty()).collect();
        let all = [WaitReason::InFlight, WaitReason::Delay, WaitReason::Reconnect, WaitReason::Offline];
        assert_eq!(names.len(), all.len());
        for reason in all {
            assert_eq!(names[reason as usize], reason.as_str());
        }
    }

    /// Every kind of action record, field by field (docs/boundary.md).
    #[test]
    fn every_action_record_is_written_field_by_field() {
        use viewsets_core::{ActivityEvent, Ended, WaitReason};
        let event = |kind| Action::Activity(ActivityEvent { kind, call: 6, transport: Transport::Muxws { peer: 3 }, background: true, at: 1_234 });
        let cases = [
            (Action::SendAttempt { call: 7, attempt: 2, carry: true }, [1.0, 7.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
            (Action::SendAttempt { call: 7, attempt: 1, carry: false }, [1.0, 7.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (Action::AbandonAttempt { call: 8, attempt: 3, why: Abandon::Timeout }, [2.0, 8.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (Action::AbandonAttempt { call: 8, attempt: 3, why: Abandon::Superseded }, [2.0, 8.0, 3.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
            (Action::AbandonAttempt { call: 8, attempt: 3, why: Abandon::Cancelled }, [2.0, 8.0, 3.0, 2.0, 0.0, 0.0, 0.0, 0.0]),
            (
                Action::Settle { call: 9, attempt: 4, end: AttemptEnd::HttpAnswer { status: 201, json_detail: false } },
                [3.0, 9.0, 4.0, 0.0, 201.0, 1.0, 0.0, 0.0],
            ),
            (
                Action::Settle { call: 9, attempt: 4, end: AttemptEnd::HttpAnswer { status: 404, json_detail: true } },
                [3.0, 9.0, 4.0, 256.0, 404.0, 0.0, 0.0, 0.0],
            ),
            (
                Action::Settle { call: 9, attempt: 1, end: AttemptEnd::ConnectionLost { closed_for_good: true } },
                [3.0, 9.0, 1.0, 518.0, 0.0, 0.0, 0.0, 0.0],
            ),
            (Action::Settle { call: 9, attempt: 2, end: AttemptEnd::MuxwsReply { status: 200 } }, [3.0, 9.0, 2.0, 4.0, 200.0, 1.0, 0.0, 0.0]),
            (Action::ReconnectNow { peer: 5 }, [4.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            (event(ActivityKind::Start), [5.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1_234.0]),
            (
                event(ActivityKind::Retry { attempt: 2, ended: Ended::ConnectionLost, delay_ms: 1_500, waits_for_reconnect: true }),
                [5.0, 6.0, 1.0, 2.0, f64::from(Ended::ConnectionLost as u8), 1_500.0, 1.0, 1_234.0],
            ),
            (
                event(ActivityKind::Retry { attempt: 1, ended: Ended::Timeout, delay_ms: 0, waits_for_reconnect: false }),
                [5.0, 6.0, 1.0, 1.0, f64::from(Ended::Timeout as u8), 0.0, 0.0, 1_234.0],
            ),
            (
                event(ActivityKind::Settle { ok: true, attempts: 3, ended: Ended::Answered }),
                [5.0, 6.0, 2.0, 3.0, f64::from(Ended::Answered as u8), 0.0, 2.0, 1_234.0],
            ),
            (
                event(ActivityKind::Settle { ok: false, attempts: 1, ended: Ended::Error }),
                [5.0, 6.0, 2.0, 1.0, f64::from(Ended::Error as u8), 0.0, 0.0, 1_234.0],
            ),
            (event(ActivityKind::Wait { reason: WaitReason::Reconnect }), [5.0, 6.0, 3.0, 2.0, 0.0, 0.0, 0.0, 1_234.0]),
        ];
        let mut records = vec![-1.0];
        for (action, expected) in cases {
            records.truncate(1);
            write_action(&mut records, &action);
            assert_eq!(records[1..], expected, "{action:?}");
        }
    }

    /// A settle record's `ok` field is `AttemptEnd::is_success`, and its status the answer's, for
    /// every status of both kinds of answer and for the other ends.
    #[test]
    fn settle_records_succeed_as_is_success_says() {
        let mut records = Vec::new();
        let mut check = |end: AttemptEnd, status: f64| {
            records.clear();
            let ok = f64::from(u8::from(end.is_success()));
            write_action(&mut records, &Action::Settle { call: 1, attempt: 1, end });
            assert_eq!(records[4..6], [status, ok]);
        };
        for status in 0..=u16::MAX {
            check(AttemptEnd::HttpAnswer { status, json_detail: status % 2 == 0 }, f64::from(status));
            check(AttemptEnd::MuxwsReply { status }, f64::from(status));
        }
        check(AttemptEnd::NetworkError, 0.0);
        check(AttemptEnd::OpenGoingAway { closed_for_good: true }, 0.0);
        check(AttemptEnd::OtherError, 0.0);
    }

    #[test]
    fn ms_never_panics() {
        assert_eq!(ms(f64::NAN), 0);
        assert_eq!(ms(-5.0), 0);
        assert_eq!(ms(1.9), 1);
        assert_eq!(ms(f64::INFINITY), u64::MAX);
    }
}
