//! [`TimerSet`]: the one timer of each unsettled call, and which of them is due first.

use core::cell::Cell;

use crate::call::CallId;
use crate::slab::IdSlab;

/// What [`TimerSet`] knows of its earliest timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Earliest {
    /// Not known: the next [`TimerSet::next`] finds it with one scan.
    Unknown,
    /// The earliest timer, `(due, call)`; `None` when the set holds no timer.
    Known(Option<(u64, CallId)>),
}

/// At most one timer per call: when it is due (milliseconds on the engine's clock).
///
/// [`TimerSet::next`] is the earliest timer, earliest issued first among equal due times. It is
/// remembered, so that asking again (`poll_timeout` after every entry point) costs O(1):
/// - a timer set earlier than the one remembered takes its place at once;
/// - when the remembered timer itself is cleared or moved later, it is forgotten, and the next
///   [`TimerSet::next`] scans the timers once (linear in their number) to find the new earliest.
///
/// A sorted structure would avoid that scan but costs more code in the wasm module and O(n) (or
/// O(log n) with a heap and its own bookkeeping) on every set; the engine clears its earliest timer
/// at most once per entry point, so a scan now and then is the cheaper trade.
///
/// The timers are kept in an [`IdSlab`] by call id, so their storage never holds more than twice as
/// many slots as timers, and none when no timer is set.
#[derive(Debug)]
pub(crate) struct TimerSet {
    /// The due time of each call that has a timer.
    timers: IdSlab<u64>,
    /// The earliest timer, when known (see the type's documentation).
    earliest: Cell<Earliest>,
}

impl TimerSet {
    /// A set with no timer; allocates nothing.
    pub(crate) const fn new() -> Self {
        TimerSet {
            timers: IdSlab::new(),
            earliest: Cell::new(Earliest::Known(None)),
        }
    }

    /// Sets the timer of `call` to `due`, or clears it with `None`, replacing the one it had.
    pub(crate) fn set(&mut self, call: CallId, due: Option<u64>) {
        let before = match due {
            Some(due) => self.timers.insert(call, due),
            None => self.timers.remove(call),
        };
        if before == due {
            return;
        }
        let entry = due.map(|due| (due, call));
        let known = match self.earliest.get() {
            Earliest::Unknown => return,
            // The set was empty: this timer is the only one.
            Earliest::Known(None) => entry,
            // The earliest timer itself changed: still the earliest only if it came no later.
            Earliest::Known(Some(earliest)) if earliest.1 == call => {
                if self.timers.is_empty() {
                    None
                } else if entry.is_some_and(|entry| entry <= earliest) {
                    entry
                } else {
                    self.earliest.set(Earliest::Unknown);
                    return;
                }
            }
            // Another call's timer changed: it is the earliest now only if it comes first.
            Earliest::Known(Some(earliest)) => match entry {
                Some(entry) if entry < earliest => Some(entry),
                _ => Some(earliest),
            },
        };
        self.earliest.set(Earliest::Known(known));
    }

    /// The due time of the timer of `call`, if it has one.
    #[cfg(test)]
    pub(crate) fn get(&self, call: CallId) -> Option<u64> {
        self.timers.get(call).copied()
    }

    /// The earliest timer, `(due, call)`, earliest issued (lowest id) first among equal due times;
    /// `None` when no timer is set. O(1) unless the earliest timer was cleared or moved later since
    /// the last answer: then one scan of the timers.
    pub(crate) fn next(&self) -> Option<(u64, CallId)> {
        if let Earliest::Known(known) = self.earliest.get() {
            return known;
        }
        let mut found: Option<(u64, CallId)> = None;
        self.timers.iter().for_each(|(call, &due)| {
            // Ids come in increasing order: of equal due times, the first found stays.
            if found.is_none_or(|(earliest, _)| due < earliest) {
                found = Some((due, call));
            }
        });
        self.earliest.set(Earliest::Known(found));
        found
    }

    /// The number of timers set.
    pub(crate) fn len(&self) -> usize {
        self.timers.len()
    }

    /// The earliest timer as remembered: `Some` of what [`TimerSet::next`] would answer without a
    /// scan, `None` when it is forgotten.
    #[cfg(test)]
    pub(crate) fn remembered(&self) -> Option<Option<(u64, CallId)>> {
        match self.earliest.get() {
            Earliest::Known(known) => Some(known),
            Earliest::Unknown => None,
        }
    }

    /// The number of slots behind the timers (at most twice [`TimerSet::len`]).
    #[cfg(test)]
    pub(crate) fn slots(&self) -> usize {
        self.timers.slots()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// The earliest timer of `model` by a plain scan: the least `(due, call)`.
    fn min_scan(model: &BTreeMap<CallId, u64>) -> Option<(u64, CallId)> {
        model.iter().map(|(&call, &due)| (due, call)).min()
    }

    #[test]
    fn the_earliest_follows_sets_and_clears() {
        let mut timers = TimerSet::new();
        assert_eq!(timers.next(), None);
        timers.set(1, Some(100));
        timers.set(2, Some(50));
        assert_eq!(timers.next(), Some((50, 2)), "an earlier timer is the earliest at once");
        timers.set(2, Some(200));
        assert_eq!(timers.next(), Some((100, 1)), "the earliest moved later: found again");
        timers.set(3, Some(100));
        assert_eq!(timers.next(), Some((100, 1)), "equal due times: the lowest id first");
        timers.set(1, None);
        assert_eq!(timers.next(), Some((100, 3)));
        timers.set(3, None);
        timers.set(2, None);
        assert_eq!(timers.next(), None);
        assert_eq!(timers.len(), 0);
        assert_eq!(timers.slots(), 0);
    }

    #[test]
    fn setting_the_same_timer_again_changes_nothing() {
        let mut timers = TimerSet::new();
        timers.set(7, Some(10));
        timers.set(7, Some(10));
        timers.set(8, None);
        assert_eq!(timers.len(), 1);
        assert_eq!(timers.get(7), Some(10));
        assert_eq!(timers.get(8), None);
        assert_eq!(timers.next(), Some((10, 7)));
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// Set the timer of a call.
        Set(CallId, u64),
        /// Clear the timer of a call.
        Clear(CallId),
        /// Take every timer due at a time, earliest first, as the engine's `handle_timeout` does.
        Due(u64),
        /// Ask for the earliest timer (which remembers it).
        Next,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..24, 0u64..40).prop_map(|(call, due)| Op::Set(call, due)),
            2 => (0u64..24).prop_map(Op::Clear),
            1 => (0u64..40).prop_map(Op::Due),
            2 => Just(Op::Next),
        ]
    }

    proptest! {
        #[test]
        fn next_is_the_least_timer_of_a_plain_map(ops in prop::collection::vec(op(), 0..200)) {
            let mut timers = TimerSet::new();
            let mut model: BTreeMap<CallId, u64> = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Set(call, due) => {
                        timers.set(call, Some(due));
                        model.insert(call, due);
                    }
                    Op::Clear(call) => {
                        timers.set(call, None);
                        model.remove(&call);
                    }
                    Op::Due(now) => {
                        while let Some((due, call)) = timers.next() {
                            if due > now {
                                break;
                            }
                            prop_assert_eq!(Some((due, call)), min_scan(&model));
                            timers.set(call, None);
                            model.remove(&call);
                        }
                        prop_assert!(min_scan(&model).is_none_or(|(due, _)| due > now));
                    }
                    Op::Next => prop_assert_eq!(timers.next(), min_scan(&model)),
                }
                // A remembered earliest timer is the earliest timer. `next()` is asked only by
                // `Next` and `Due`, so that runs of changes while it is forgotten are tried too.
                if let Earliest::Known(known) = timers.earliest.get() {
                    prop_assert_eq!(known, min_scan(&model));
                }
                prop_assert_eq!(timers.len(), model.len());
                prop_assert!(timers.slots() <= 2 * timers.len());
                for (&call, &due) in &model {
                    prop_assert_eq!(timers.get(call), Some(due));
                }
            }
        }
    }
}
