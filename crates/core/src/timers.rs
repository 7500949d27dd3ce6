//! [`TimerSet`]: which of the calls' timers is due first, remembered between the engine's entry
//! points.

use core::cell::Cell;

use crate::call::CallId;

/// What [`TimerSet`] knows of its earliest timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Earliest {
    /// Not known: the next [`TimerSet::next`] finds it with one scan.
    Unknown,
    /// The earliest timer, `(due, call)`; `None` when the set holds no timer.
    Known(Option<(u64, CallId)>),
}

/// The earliest of the calls' timers (each call holds at most one: when it is due, in milliseconds
/// on the engine's clock, kept in the call itself), and how many timers there are.
///
/// The engine tells it of every change ([`TimerSet::changed`]) and asks [`TimerSet::next`] for the
/// earliest timer, earliest issued first among equal due times. The answer is remembered, so that
/// asking again (`poll_timeout` after every entry point) costs O(1):
/// - a timer set earlier than the one remembered takes its place at once;
/// - when the remembered timer itself is cleared or moved later, it is forgotten, and the next
///   [`TimerSet::next`] scans the timers once (linear in their number) to find the new earliest.
///
/// A sorted structure would avoid that scan but costs more code in the wasm module and O(n) (or
/// O(log n) with a heap and its own bookkeeping) on every set; the engine clears its earliest timer
/// at most once per entry point, so a scan now and then is the cheaper trade. The timers stay in the
/// calls (no second table keyed by call id): the module then carries one table's code, not two.
#[derive(Debug)]
pub(crate) struct TimerSet {
    /// The remembered earliest timer.
    earliest: Cell<Earliest>,
    /// How many calls have a timer.
    len: usize,
}

impl TimerSet {
    /// No timer.
    pub(crate) const fn new() -> Self {
        TimerSet {
            earliest: Cell::new(Earliest::Known(None)),
            len: 0,
        }
    }

    /// The timer of `call` changed from `before` to `due` (`None`: no timer).
    pub(crate) fn changed(&mut self, call: CallId, before: Option<u64>, due: Option<u64>) {
        if before == due {
            return;
        }
        match (before, due) {
            (None, Some(_)) => self.len += 1,
            (Some(_), None) => self.len -= 1,
            _ => {}
        }
        let entry = due.map(|due| (due, call));
        let known = match self.earliest.get() {
            Earliest::Unknown => return,
            Earliest::Known(None) => entry,
            // The remembered earliest timer changed: it stays the earliest only if it moved earlier
            // (or nothing else is left); moved later or cleared, it is found again by a scan.
            Earliest::Known(Some(earliest)) if earliest.1 == call => {
                if self.len == 0 {
                    None
                } else if entry.is_some_and(|entry| entry <= earliest) {
                    entry
                } else {
                    self.earliest.set(Earliest::Unknown);
                    return;
                }
            }
            Earliest::Known(Some(earliest)) => match entry {
                Some(entry) if entry < earliest => Some(entry),
                _ => Some(earliest),
            },
        };
        self.earliest.set(Earliest::Known(known));
    }

    /// The earliest timer `(due, call)`, `None` when there is none: the one remembered, or found by
    /// one scan of `timers` (every call's `(due, call)`, in the order of the calls' ids) when it was
    /// forgotten.
    pub(crate) fn next<I: Iterator<Item = (u64, CallId)>>(&self, timers: impl FnOnce() -> I) -> Option<(u64, CallId)> {
        if let Earliest::Known(known) = self.earliest.get() {
            return known;
        }
        let mut found: Option<(u64, CallId)> = None;
        timers().for_each(|(due, call)| {
            if found.is_none_or(|(earliest, _)| due < earliest) {
                found = Some((due, call));
            }
        });
        self.earliest.set(Earliest::Known(found));
        found
    }

    /// How many calls have a timer.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The remembered earliest timer, `None` when it is forgotten (tests).
    #[cfg(test)]
    pub(crate) fn remembered(&self) -> Option<Option<(u64, CallId)>> {
        match self.earliest.get() {
            Earliest::Known(known) => Some(known),
            Earliest::Unknown => None,
        }
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

    /// A `TimerSet` with its timers kept in a plain map, as the engine keeps them in its calls.
    struct Timers {
        set: TimerSet,
        stored: BTreeMap<CallId, u64>,
    }

    impl Timers {
        fn new() -> Self {
            Timers { set: TimerSet::new(), stored: BTreeMap::new() }
        }
        fn set(&mut self, call: CallId, due: Option<u64>) {
            let before = match due {
                Some(due) => self.stored.insert(call, due),
                None => self.stored.remove(&call),
            };
            self.set.changed(call, before, due);
        }
        fn next(&self) -> Option<(u64, CallId)> {
            self.set.next(|| self.stored.iter().map(|(&call, &due)| (due, call)))
        }
        fn len(&self) -> usize {
            self.set.len()
        }
        fn get(&self, call: CallId) -> Option<u64> {
            self.stored.get(&call).copied()
        }
    }

    #[test]
    fn the_earliest_follows_sets_and_clears() {
        let mut timers = Timers::new();
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
    }

    #[test]
    fn setting_the_same_timer_again_changes_nothing() {
        let mut timers = Timers::new();
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
            let mut timers = Timers::new();
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
                if let Earliest::Known(known) = timers.set.earliest.get() {
                    prop_assert_eq!(known, min_scan(&model));
                }
                prop_assert_eq!(timers.len(), model.len());
                for (&call, &due) in &model {
                    prop_assert_eq!(timers.get(call), Some(due));
                }
            }
        }
    }
}
