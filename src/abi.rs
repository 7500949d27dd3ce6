//! The calls module's side of the boundary (docs/boundary.md): every code and record layout the
//! module and the TS runtime exchange, declared once here (the exports' signatures are declared
//! where they are defined, by `exports!` in `lib.rs`). The TypeScript the runtime reads them
//! through, `pkg-template/src/abi/calls.ts`, is rendered from these declarations; a test fails when
//! the file differs from them (`ABI_WRITE=1 cargo test -p fastapi-viewsets abi` writes it again).

use alloc::vec::Vec;
use viewsets_core::{Abandon, Action, ActivityKind, AttemptEnd, PendingCall, Transport, JITTER_WHOLE};
use wasm_abi::{codes, records};

/// Fields per action record.
pub const ACTION_FIELDS: usize = 8;
/// Fields per pending-call record.
pub const PENDING_FIELDS: usize = 6;

codes! {
    /// How an attempt ended: the runtime's `end` code (the low byte), with flags above it.
    pub mod end: EndCode as END_CODES {
        /// An HTTP answer (REST): `status` is its status.
        HTTP_ANSWER HttpAnswer = 0,
        /// The request failed without an answer (fetch rejected, axios without a response).
        NETWORK_ERROR NetworkError = 1,
        /// The attempt's own timeout (`attemptTimeoutMs`) ended it.
        ATTEMPT_TIMEOUT AttemptTimeout = 2,
        /// The caller's `AbortSignal` ended it (or axios cancelled it).
        CANCELLED Cancelled = 3,
        /// A muxws reply: `status` is its `:status`.
        MUXWS_REPLY MuxwsReply = 4,
        /// The stream failed with `StreamTimeout`.
        STREAM_TIMEOUT StreamTimeout = 5,
        /// The stream failed with `ConnectionLost`.
        CONNECTION_LOST ConnectionLost = 6,
        /// The stream failed with `StreamRefused`.
        STREAM_REFUSED StreamRefused = 7,
        /// `open()` threw `ConnectionClosed`: the peer is between sockets.
        OPEN_CONNECTION_CLOSED OpenConnectionClosed = 8,
        /// `open()` threw `ConnectionGoingAway`: its connection drains after a goaway.
        OPEN_GOING_AWAY OpenGoingAway = 9,
        /// Any other error: it settles the call.
        OTHER Other = 10,
        /// The low byte: the code; the flags are above it.
        MASK Mask = 0xff,
        /// Flag: the body is a JSON object holding `detail`.
        JSON_DETAIL JsonDetail = 0x100,
        /// Flag: the muxws peer has closed for good.
        CLOSED_FOR_GOOD ClosedForGood = 0x200,
    }
}

codes! {
    /// Why the engine abandons an attempt (an abandon record's `why`).
    pub mod abandon: AbandonWhy as ABANDON_WHY {
        /// The attempt's own timeout.
        TIMEOUT Timeout = 0,
        /// A repeat supersedes it.
        SUPERSEDED Superseded = 1,
        /// The caller cancelled the call.
        CANCELLED Cancelled = 2,
    }
}

codes! {
    /// The type of an activity record.
    pub mod activity: ActivityType as ACTIVITY_TYPES {
        /// `start`: the call was issued.
        START Start = 0,
        /// `retry`: an attempt ended without an answer and is repeated.
        RETRY Retry = 1,
        /// `settle`: the call's promise settled.
        SETTLE Settle = 2,
        /// `wait`: why the call waits changed to or from `offline` (the reason in `count`).
        WAIT Wait = 3,
    }
}

codes! {
    /// The flags of a pending-call record.
    pub mod pending_flag: PendingFlag as PENDING_FLAGS {
        /// A background call.
        BACKGROUND Background = 1,
        /// Its repeat waits for its muxws peer to reconnect.
        WAITS_FOR_RECONNECT WaitsForReconnect = 2,
        /// It travels over muxws.
        MUXWS Muxws = 4,
    }
}

codes! {
    /// A muxws peer's news (`peer_state`).
    pub mod peer_state: PeerState as PEER_STATES {
        /// Between sockets, or draining after a goaway: its calls' repeats wait.
        UNAVAILABLE Unavailable = 0,
        /// Connected: waiting repeats go.
        AVAILABLE Available = 1,
        /// Closed for good: its calls' waits end.
        CLOSED_FOR_GOOD ClosedForGood = 2,
    }
}

codes! {
    /// What `header_rule` says of a header name (bits).
    pub mod header_rule: HeaderRule as HEADER_RULES {
        /// axios sets it again on every request: the axios transport does not carry it.
        SET_AGAIN_BY_AXIOS SetAgainByAxios = 1,
    }
}

records! {
    layouts ACTIONS;
    /// Send attempt `attempt` of `call`.
    pub mod send: SendAttempt = 1 {
        /// The call's id.
        CALL call: 1 => Num,
        /// The attempt's number (1 for the first).
        ATTEMPT attempt: 2 => Num,
        /// Send it with the headers captured from the first attempt.
        CARRY carry: 3 => Bool,
    }
    /// Abandon attempt `attempt` of `call` (abort its request, cancel its stream).
    pub mod abandon_attempt: AbandonAttempt = 2 {
        /// The call's id.
        CALL call: 1 => Num,
        /// The attempt's number.
        ATTEMPT attempt: 2 => Num,
        /// Why: an `AbandonWhy` code.
        WHY why: 3 => Enum("AbandonWhy"),
    }
    /// Settle `call` with the outcome of its last attempt.
    pub mod settle: Settle = 3 {
        /// The call's id.
        CALL call: 1 => Num,
        /// The last attempt's number.
        ATTEMPT attempt: 2 => Num,
        /// How it ended: an `EndCode` with its flags (the answer's status is the runtime's, kept
        /// with the attempt's outcome).
        END end: 3 => Enum("EndCode"),
        /// The answer succeeded (a status below 400).
        OK ok: 4 => Bool,
    }
    /// Reconnect muxws peer `peer` now (`retryNow()` while calls wait for it).
    pub mod reconnect_now: ReconnectNow = 4 {
        /// The peer's id.
        PEER peer: 1 => Num,
    }
    /// A call-activity event.
    pub mod event: Activity = 5 {
        /// The call's id.
        CALL call: 1 => Num,
        /// The event's `ActivityType`.
        TYPE type: 2 => Enum("ActivityType"),
        /// `retry`: the attempt that ended; `settle`: how many attempts were made; `wait`: the
        /// `WAIT_REASONS` code.
        COUNT count: 3 => Num,
        /// `retry` and `settle`: how the attempt ended, an `ENDED` code.
        ENDED ended: 4 => Num,
        /// `retry`: the delay before the repeat, in ms.
        DELAY_MS delayMs: 5 => Num,
        /// `retry`: the repeat waits for its muxws peer to reconnect (bit 1 of field 6).
        WAITS_FOR_RECONNECT waitsForReconnect: 6 => Bit(1),
        /// `settle`: the call succeeded (bit 2 of field 6).
        OK ok: 6 => Bit(2),
        /// When it happened (ms, the runtime's clock).
        AT at: 7 => Num,
    }
}

records! {
    layouts PENDING;
    /// A call that has not settled, as `pendingCalls()` lists it (a record without a kind: its
    /// fields start at 0).
    pub mod pending: Pending = 0 {
        /// The call's id.
        CALL call: 0 => Num,
        /// When it was issued (ms, the runtime's clock).
        ISSUED_AT issuedAt: 1 => Num,
        /// How many of its attempts went unanswered.
        UNANSWERED unansweredAttempts: 2 => Num,
        /// When its next attempt is due while a repeat waits for its delay; null otherwise.
        NEXT_ATTEMPT_AT nextAttemptAt: 3 => OptNum,
        /// `PendingFlag`s.
        FLAGS flags: 4 => Num,
        /// Why it waits: a `WAIT_REASONS` code.
        REASON reason: 5 => Num,
    }
}

/// How an attempt ended, from the runtime's `end` code (an [`end`] code, flags above it) and
/// `status`. Unknown codes are "other error", which settles the call.
pub fn attempt_end(code: u32, status: u32) -> AttemptEnd {
    let status = status.min(u32::from(u16::MAX)) as u16;
    let closed_for_good = code & end::CLOSED_FOR_GOOD != 0;
    match code & end::MASK {
        end::HTTP_ANSWER => AttemptEnd::HttpAnswer {
            status,
            json_detail: code & end::JSON_DETAIL != 0,
        },
        end::NETWORK_ERROR => AttemptEnd::NetworkError,
        end::ATTEMPT_TIMEOUT => AttemptEnd::AttemptTimeout,
        end::CANCELLED => AttemptEnd::Cancelled,
        end::MUXWS_REPLY => AttemptEnd::MuxwsReply { status },
        end::STREAM_TIMEOUT => AttemptEnd::StreamTimeout,
        end::CONNECTION_LOST => AttemptEnd::ConnectionLost { closed_for_good },
        end::STREAM_REFUSED => AttemptEnd::StreamRefused { closed_for_good },
        end::OPEN_CONNECTION_CLOSED => AttemptEnd::OpenConnectionClosed { closed_for_good },
        end::OPEN_GOING_AWAY => AttemptEnd::OpenGoingAway { closed_for_good },
        _ => AttemptEnd::OtherError,
    }
}

/// The runtime's `end` code of `ended` (the inverse of [`attempt_end`], flags included).
pub fn end_code(ended: &AttemptEnd) -> u32 {
    let flag = |closed_for_good: bool| if closed_for_good { end::CLOSED_FOR_GOOD } else { 0 };
    match *ended {
        AttemptEnd::HttpAnswer { json_detail, .. } => if json_detail { end::JSON_DETAIL } else { end::HTTP_ANSWER },
        AttemptEnd::NetworkError => end::NETWORK_ERROR,
        AttemptEnd::AttemptTimeout => end::ATTEMPT_TIMEOUT,
        AttemptEnd::Cancelled => end::CANCELLED,
        AttemptEnd::MuxwsReply { .. } => end::MUXWS_REPLY,
        AttemptEnd::StreamTimeout => end::STREAM_TIMEOUT,
        AttemptEnd::ConnectionLost { closed_for_good } => end::CONNECTION_LOST | flag(closed_for_good),
        AttemptEnd::StreamRefused { closed_for_good } => end::STREAM_REFUSED | flag(closed_for_good),
        AttemptEnd::OpenConnectionClosed { closed_for_good } => end::OPEN_CONNECTION_CLOSED | flag(closed_for_good),
        AttemptEnd::OpenGoingAway { closed_for_good } => end::OPEN_GOING_AWAY | flag(closed_for_good),
        AttemptEnd::OtherError => end::OTHER,
    }
}

/// The [`abandon`] code of why an attempt is abandoned.
fn abandon_code(why: Abandon) -> u32 {
    match why {
        Abandon::Timeout => abandon::TIMEOUT,
        Abandon::Superseded => abandon::SUPERSEDED,
        Abandon::Cancelled => abandon::CANCELLED,
    }
}

/// Appends `action` to `records` as one record of [`ACTION_FIELDS`] numbers, laid out as
/// [`ACTIONS`] declares.
pub fn write_action(records: &mut Vec<f64>, action: &Action) {
    // The fields an action does not use stay 0.
    let mut record = [0.0; ACTION_FIELDS];
    let kind = |record: &mut [f64; ACTION_FIELDS], kind: u32| record[0] = f64::from(kind);
    match action {
        Action::SendAttempt { call, attempt, carry } => {
            kind(&mut record, send::KIND);
            record[send::CALL] = *call as f64;
            record[send::ATTEMPT] = f64::from(*attempt);
            record[send::CARRY] = f64::from(u8::from(*carry));
        }
        Action::AbandonAttempt { call, attempt, why } => {
            kind(&mut record, abandon_attempt::KIND);
            record[abandon_attempt::CALL] = *call as f64;
            record[abandon_attempt::ATTEMPT] = f64::from(*attempt);
            record[abandon_attempt::WHY] = f64::from(abandon_code(*why));
        }
        Action::Settle { call, attempt, end } => {
            kind(&mut record, settle::KIND);
            record[settle::CALL] = *call as f64;
            record[settle::ATTEMPT] = f64::from(*attempt);
            record[settle::END] = f64::from(end_code(end));
            record[settle::OK] = f64::from(u8::from(end.is_success()));
        }
        Action::ReconnectNow { peer } => {
            kind(&mut record, reconnect_now::KIND);
            record[reconnect_now::PEER] = *peer as f64;
        }
        Action::Activity(activity_event) => {
            kind(&mut record, event::KIND);
            record[event::CALL] = activity_event.call as f64;
            record[event::AT] = activity_event.at as f64;
            let (type_, count) = match &activity_event.kind {
                ActivityKind::Start => (activity::START, 0),
                ActivityKind::Retry { attempt, ended, delay_ms, waits_for_reconnect } => {
                    record[event::ENDED] = f64::from(*ended as u8);
                    record[event::DELAY_MS] = *delay_ms as f64;
                    record[event::WAITS_FOR_RECONNECT] = f64::from(u8::from(*waits_for_reconnect));
                    (activity::RETRY, *attempt)
                }
                ActivityKind::Settle { ok, attempts, ended } => {
                    record[event::ENDED] = f64::from(*ended as u8);
                    record[event::OK] = f64::from(u8::from(*ok) * 2);
                    (activity::SETTLE, *attempts)
                }
                ActivityKind::Wait { reason } => (activity::WAIT, u32::from(*reason as u8)),
            };
            record[event::TYPE] = f64::from(type_);
            record[event::COUNT] = f64::from(count);
        }
    }
    records.extend_from_slice(&record);
}

/// Appends `call` to `records` as one record of [`PENDING_FIELDS`] numbers, laid out as
/// [`PENDING`] declares.
pub fn write_pending(records: &mut Vec<f64>, call: &PendingCall) {
    let flags = if call.background { pending_flag::BACKGROUND } else { 0 }
        | if call.waiting_for_reconnect { pending_flag::WAITS_FOR_RECONNECT } else { 0 }
        | if matches!(call.transport, Transport::Muxws { .. }) { pending_flag::MUXWS } else { 0 };
    let mut record = [0.0; PENDING_FIELDS];
    record[pending::CALL] = call.call as f64;
    record[pending::ISSUED_AT] = call.issued_at as f64;
    record[pending::UNANSWERED] = f64::from(call.unanswered_attempts);
    record[pending::NEXT_ATTEMPT_AT] = call.next_attempt_at.map_or(f64::NAN, |at| at as f64);
    record[pending::FLAGS] = f64::from(flags);
    record[pending::REASON] = f64::from(call.reason as u8);
    records.extend_from_slice(&record);
}

/// Optional milliseconds from JavaScript: negative and NaN (`undefined` too) are none, the rest as
/// [`wasm_abi::ms`].
pub fn optional_ms(value: f64) -> Option<u64> {
    (value >= 0.0).then(|| wasm_abi::ms(value))
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
        assert_eq!(records, [5.0, 4.0, 3.0, 3.0, 0.0, 0.0, 0.0, 77.0]);
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
                [3.0, 9.0, 4.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            ),
            (
                Action::Settle { call: 9, attempt: 4, end: AttemptEnd::HttpAnswer { status: 404, json_detail: true } },
                [3.0, 9.0, 4.0, 256.0, 0.0, 0.0, 0.0, 0.0],
            ),
            (
                Action::Settle { call: 9, attempt: 1, end: AttemptEnd::ConnectionLost { closed_for_good: true } },
                [3.0, 9.0, 1.0, 518.0, 0.0, 0.0, 0.0, 0.0],
            ),
            (Action::Settle { call: 9, attempt: 2, end: AttemptEnd::MuxwsReply { status: 200 } }, [3.0, 9.0, 2.0, 4.0, 1.0, 0.0, 0.0, 0.0]),
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

    /// A settle record's `ok` field says an answer below 400, for every status of both kinds of
    /// answer, and never for the other ends.
    #[test]
    fn settle_records_succeed_on_an_answer_below_400() {
        let mut records = Vec::new();
        let mut check = |end: AttemptEnd, ok: bool| {
            records.clear();
            write_action(&mut records, &Action::Settle { call: 1, attempt: 1, end });
            assert_eq!(records[settle::OK], f64::from(u8::from(ok)));
        };
        for status in 0..=u16::MAX {
            check(AttemptEnd::HttpAnswer { status, json_detail: status % 2 == 0 }, status < 400);
            check(AttemptEnd::MuxwsReply { status }, status < 400);
        }
        check(AttemptEnd::NetworkError, false);
        check(AttemptEnd::OpenGoingAway { closed_for_good: true }, false);
        check(AttemptEnd::OtherError, false);
    }


    /// Every `Ended`, in the order of its code; a new variant fails to compile in `listed`.
    const ENDED: [viewsets_core::Ended; 11] = {
        use viewsets_core::Ended::*;
        [Answered, GatewayStatus, NetworkError, Timeout, Cancelled, StreamTimeout, ConnectionLost, StreamRefused, ConnectionClosed, GoingAway, Error]
    };
    /// Every `WaitReason`, in the order of its code.
    const REASONS: [viewsets_core::WaitReason; 4] = {
        use viewsets_core::WaitReason::*;
        [InFlight, Delay, Reconnect, Offline]
    };

    #[test]
    fn the_label_lists_hold_every_code_in_order() {
        use viewsets_core::{Ended, WaitReason};
        fn listed(ended: Ended) -> bool {
            match ended {
                Ended::Answered | Ended::GatewayStatus | Ended::NetworkError | Ended::Timeout | Ended::Cancelled | Ended::StreamTimeout => true,
                Ended::ConnectionLost | Ended::StreamRefused | Ended::ConnectionClosed | Ended::GoingAway | Ended::Error => true,
            }
        }
        fn reason_listed(reason: WaitReason) -> bool {
            match reason {
                WaitReason::InFlight | WaitReason::Delay | WaitReason::Reconnect | WaitReason::Offline => true,
            }
        }
        for (code, ended) in ENDED.into_iter().enumerate() {
            assert!(listed(ended));
            assert_eq!(ended as usize, code);
        }
        for (code, reason) in REASONS.into_iter().enumerate() {
            assert!(reason_listed(reason));
            assert_eq!(reason as usize, code);
        }
    }

    /// Names by code from a code table's names: `Superseded` is `'superseded'`.
    fn lower_names(table: &wasm_abi::CodeTable) -> Vec<&'static str> {
        let names: Vec<String> = table.codes.iter().map(|code| code.name[..1].to_lowercase() + &code.name[1..]).collect();
        names.into_iter().map(|name| &*Box::leak(name.into_boxed_str())).collect()
    }

    /// What `pkg-template/src/abi/calls.ts` holds: the tables above, rendered.
    fn typescript() -> String {
        use viewsets_core::{DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_DELAY_MS, DEFAULT_WITHIN_MS, MAX_DELAY_MS};
        use wasm_abi::{typescript as ts, Constant, ExportTable, Labels, RecordTable};
        let mut out = ts::header("src/abi.rs and src/lib.rs", "cargo test -p fastapi-viewsets abi");
        ts::export_table(
            &mut out,
            &ExportTable { name: "CallsExports", doc: "The calls module's exports (`exports!` in `src/lib.rs`): functions of numbers, called on the instance.\n", exports: crate::EXPORTS },
        );
        let constant = |name, value: f64, doc| Constant { name, value, doc };
        ts::constants(
            &mut out,
            "Layout",
            "How many `f64` fields a record of the calls module has.\n",
            &[
                constant("ActionFields", ACTION_FIELDS as f64, "An action record (`drain_actions`).\n"),
                constant("PendingFields", PENDING_FIELDS as f64, "A pending-call record (`pending_fill`).\n"),
            ],
        );
        ts::constants(
            &mut out,
            "Defaults",
            "The defaults of the seed's option table, in ms (the engine's own).\n",
            &[
                constant("WithinMs", DEFAULT_WITHIN_MS as f64, "`repeat.withinMs`.\n"),
                constant("DelayMs", DEFAULT_DELAY_MS as f64, "`repeat.delayMs`.\n"),
                constant("MaxDelayMs", MAX_DELAY_MS as f64, "The longest delay before a repeat.\n"),
                constant("AttemptTimeoutMs", DEFAULT_ATTEMPT_TIMEOUT_MS as f64, "`attemptTimeoutMs`.\n"),
            ],
        );
        for table in [END_CODES, ABANDON_WHY, ACTIVITY_TYPES, PENDING_FLAGS, HEADER_RULES, PEER_STATES] {
            ts::code_table(&mut out, &table);
        }
        let labels = [
            Labels { name: "ABANDON_WHY", doc: "`AbandonWhy` codes by name, as a transport's `abandon(why)` takes them.\n", labels: lower_names(&ABANDON_WHY) },
            Labels { name: "ACTIVITY_TYPES", doc: "`ActivityType` codes by name, as activity events' `type`.\n", labels: lower_names(&ACTIVITY_TYPES) },
            Labels { name: "ENDED", doc: "How an attempt ended, by code, as activity events' `ended` name it.\n", labels: ENDED.iter().map(|e| e.as_str()).collect() },
            Labels {
                name: "WAIT_REASONS",
                doc: "Why a call waits, by code, as `pendingCalls()` and `wait` events name it.\n",
                labels: REASONS.iter().map(|r| r.as_str()).collect(),
            },
        ];
        for list in &labels {
            ts::labels(&mut out, list);
        }
        let actions = RecordTable {
            name: "EngineAction",
            doc: "What the engine asks the runtime to do (`drain_actions`), one record each.\n",
            fields: ACTION_FIELDS,
            text: None,
            records: ACTIONS,
        };
        ts::record_table(&mut out, &actions);
        ts::plain_record(&mut out, &PENDING[0]);
        out
    }

    /// The drift test: the TypeScript side is what the tables above render. `ABI_WRITE=1` writes it.
    #[test]
    fn the_typescript_tables_are_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/src/abi/calls.ts");
        let want = typescript();
        if std::env::var_os("ABI_WRITE").is_some() {
            std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "pkg-template/src/abi/calls.ts is not what the tables in src/abi.rs render: run `ABI_WRITE=1 cargo test -p fastapi-viewsets abi`, then review the diff"
        );
    }

    /// Every action record the engine writes reads back, through the declared layout, as the
    /// fields the action holds (the layout the TypeScript decoder is rendered from is the one
    /// `write_action` follows).
    #[test]
    fn records_read_back_through_the_declared_layouts() {
        let mut records = Vec::new();
        write_action(&mut records, &Action::Settle { call: 9, attempt: 4, end: AttemptEnd::HttpAnswer { status: 201, json_detail: true } });
        let layout = ACTIONS.iter().find(|layout| f64::from(layout.kind) == records[0]).unwrap();
        let named: Vec<(&str, f64)> = layout.fields.iter().map(|field| (field.name, records[field.at])).collect();
        assert_eq!(named, [("call", 9.0), ("attempt", 4.0), ("end", 256.0), ("ok", 1.0)]);
        for layout in ACTIONS {
            assert!(layout.fields.iter().all(|field| field.at > 0 && field.at < ACTION_FIELDS), "{}", layout.name);
        }
        assert!(PENDING[0].fields.iter().all(|field| field.at < PENDING_FIELDS));
    }
}
