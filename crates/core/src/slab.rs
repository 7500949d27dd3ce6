//! [`IdSlab`]: a small map from ids that are issued in increasing order (such as
//! [`CallId`](crate::CallId)s) to values, for registries of unsettled calls.
//!
//! It exists to keep the wasm module small: a `BTreeMap` or `HashMap` instantiates node or table
//! code for every key/value pair it is used with, while the slab is a sorted `Vec` of
//! `(id, Option<value>)` slots with a binary search. The engine keeps its calls in one, and the wasm
//! layer can keep its per-call JavaScript state in another.

use alloc::vec::Vec;

/// A map from `u64` ids to values, for ids that are mostly inserted in increasing order.
///
/// Kept as a `Vec` of `(id, Option<T>)` slots sorted by id. Removing a value leaves a hole (`None`)
/// behind; holes at the end are dropped at once, the rest when they outnumber the values, so the
/// storage never holds more than twice as many slots as values, and none when the slab is empty —
/// also when one value stays for long while many ids after it come and go.
///
/// Costs, with `n` values:
/// - [`insert`](IdSlab::insert): O(1) amortized for an id above every id present (the normal case:
///   ids are issued in increasing order); O(n) for one below the highest (it is still accepted);
/// - [`push`](IdSlab::push): the first case of `insert` alone (an id not above the highest is handed
///   back);
/// - [`get`](IdSlab::get), [`get_mut`](IdSlab::get_mut), [`contains_key`](IdSlab::contains_key):
///   O(1) while no hole lies before the id (ids issued one by one and removed mostly oldest first),
///   O(log n) otherwise;
/// - [`remove`](IdSlab::remove): as `get`, plus an O(n) compaction now and then (O(1) amortized);
/// - [`len`](IdSlab::len): O(1); [`iter`](IdSlab::iter): in increasing id order, linear.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdSlab<T> {
    /// Sorted by id, ids unique; `None` marks a removed value. The last slot, if any, holds a value.
    slots: Vec<(u64, Option<T>)>,
    /// The number of slots that hold a value.
    len: usize,
}

impl<T> Default for IdSlab<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> IdSlab<T> {
    /// An empty slab; allocates nothing.
    pub const fn new() -> Self {
        IdSlab {
            slots: Vec::new(),
            len: 0,
        }
    }

    /// The number of values held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No value is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of slots kept for values and holes: at least [`len`](IdSlab::len), at most twice
    /// it (0 when the slab is empty). For leak checks.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Sets the value of `id` and returns the one it replaces, if any.
    pub fn insert(&mut self, id: u64, value: T) -> Option<T> {
        let Err(value) = self.push(id, value) else {
            return None;
        };
        let index = match self.position(id) {
            Ok(index) => {
                let (_, slot) = self.slots.get_mut(index)?;
                let old = slot.replace(value);
                if old.is_none() {
                    self.len += 1;
                }
                return old;
            }
            Err(index) => index,
        };
        insert_at(&mut self.slots, index, (id, Some(value)));
        self.len += 1;
        None
    }

    /// Adds `value` under `id` when `id` is above every id present (as [`insert`](IdSlab::insert)
    /// does then, in O(1) amortized); otherwise changes nothing and hands `value` back. For a
    /// registry that issues its ids in increasing order, without the code of the other case.
    pub fn push(&mut self, id: u64, value: T) -> Result<(), T> {
        if self.slots.last().is_some_and(|&(last, _)| last >= id) {
            return Err(value);
        }
        self.slots.push((id, Some(value)));
        self.len += 1;
        Ok(())
    }

    /// The value of `id`.
    pub fn get(&self, id: u64) -> Option<&T> {
        let index = self.position(id).ok()?;
        self.slots.get(index)?.1.as_ref()
    }

    /// The value of `id`, to change it.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        let index = self.position(id).ok()?;
        self.slots.get_mut(index)?.1.as_mut()
    }

    /// A value is held for `id`.
    pub fn contains_key(&self, id: u64) -> bool {
        self.get(id).is_some()
    }

    /// Removes the value of `id` and returns it.
    pub fn remove(&mut self, id: u64) -> Option<T> {
        let index = self.position(id).ok()?;
        let value = self.slots.get_mut(index)?.1.take()?;
        self.len -= 1;
        if self.slots.len() > 2 * self.len {
            self.slots.retain(|(_, slot)| slot.is_some());
        } else {
            while matches!(self.slots.last(), Some((_, None))) {
                self.slots.pop();
            }
        }
        Some(value)
    }

    /// The ids and values, in increasing id order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> + '_ {
        self.slots
            .iter()
            .filter_map(|(id, slot)| slot.as_ref().map(|value| (*id, value)))
    }

    /// The values, in increasing id order.
    pub fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.slots.iter().filter_map(|(_, slot)| slot.as_ref())
    }

    /// Removes every value (and frees the storage).
    pub fn clear(&mut self) {
        self.slots = Vec::new();
        self.len = 0;
    }

    /// The index of the slot of `id` (`Ok`), or where it would go (`Err`). Ids are unique and
    /// sorted, so `id` lies at most `id - first id` slots in: exactly there while no hole precedes
    /// it, which is tried first.
    fn position(&self, id: u64) -> Result<usize, usize> {
        let first = match self.slots.first() {
            Some(&(first, _)) if first <= id => first,
            _ => return Err(0),
        };
        // A guess cut short by the cast is only a wrong guess: the slot's id is checked.
        let guess = (id - first) as usize;
        if matches!(self.slots.get(guess), Some(&(at_guess, _)) if at_guess == id) {
            return Ok(guess);
        }
        self.slots.binary_search_by(|(slot_id, _)| slot_id.cmp(&id))
    }
}

/// Inserts `item` into `items` at `index` (at the end when `index` is past it), moving the items from
/// there on up by one: `Vec::insert` without its bounds check, whose panic (a message with numbers)
/// kept its text and core's integer formatting in the wasm module. O(n) after `index`.
pub(crate) fn insert_at<T>(items: &mut Vec<T>, index: usize, mut item: T) {
    for slot in items.get_mut(index..).unwrap_or_default() {
        core::mem::swap(slot, &mut item);
    }
    items.push(item);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn increasing_ids_hold_their_values() {
        let mut slab = IdSlab::new();
        assert!(slab.is_empty());
        for id in 1..=5u64 {
            assert_eq!(slab.insert(id, id * 10), None);
        }
        assert_eq!(slab.len(), 5);
        assert_eq!(slab.get(3), Some(&30));
        assert_eq!(slab.get(0), None);
        assert_eq!(slab.get(6), None);
        *slab.get_mut(4).unwrap() += 1;
        assert_eq!(slab.get(4), Some(&41));
        assert_eq!(
            slab.iter().collect::<Vec<_>>(),
            vec![(1, &10), (2, &20), (3, &30), (4, &41), (5, &50)]
        );
    }

    #[test]
    fn removing_leaves_holes_that_are_skipped_and_compacted() {
        let mut slab = IdSlab::new();
        for id in 1..=8u64 {
            slab.insert(id, id);
        }
        assert_eq!(slab.remove(3), Some(3));
        assert_eq!(slab.remove(3), None);
        assert_eq!(slab.get(3), None);
        assert!(!slab.contains_key(3));
        assert_eq!(slab.slots(), 8, "one hole is kept");
        assert_eq!(slab.get(5), Some(&5), "found past a hole");
        assert_eq!(slab.remove(8), Some(8));
        assert_eq!(slab.slots(), 7, "a hole at the end is dropped at once");
        for id in [1, 2, 4] {
            slab.remove(id);
        }
        // 3 values (5, 6, 7) in 7 slots: the holes outnumber the values.
        assert_eq!(slab.len(), 3);
        assert_eq!(slab.slots(), 3);
        assert_eq!(slab.values().copied().collect::<Vec<_>>(), vec![5, 6, 7]);
        assert_eq!(slab.get(6), Some(&6), "found after compaction");
        for id in [5, 6, 7] {
            slab.remove(id);
        }
        assert!(slab.is_empty());
        assert_eq!(slab.slots(), 0, "nothing left behind");
    }

    #[test]
    fn one_long_lived_value_keeps_the_storage_bounded() {
        let mut slab = IdSlab::new();
        slab.insert(1, ());
        for id in 2..10_000u64 {
            slab.insert(id, ());
            if id > 2 {
                slab.remove(id - 1);
            }
            assert!(slab.slots() <= 4, "{} slots", slab.slots());
        }
        assert!(slab.contains_key(1));
        assert_eq!(slab.len(), 2);
    }

    #[test]
    fn ids_below_the_highest_are_accepted() {
        let mut slab = IdSlab::new();
        slab.insert(10, "ten");
        slab.insert(30, "thirty");
        assert_eq!(slab.insert(20, "twenty"), None);
        assert_eq!(slab.insert(5, "five"), None);
        assert_eq!(slab.insert(20, "TWENTY"), Some("twenty"));
        assert_eq!(
            slab.iter().collect::<Vec<_>>(),
            vec![(5, &"five"), (10, &"ten"), (20, &"TWENTY"), (30, &"thirty")]
        );
        slab.remove(10);
        assert_eq!(slab.insert(10, "again"), None, "a hole is refilled");
        assert_eq!(slab.len(), 4);
        assert_eq!(slab.get(u64::MAX), None);
        slab.insert(u64::MAX, "max");
        assert_eq!(slab.get(u64::MAX), Some(&"max"));
        slab.clear();
        assert!(slab.is_empty());
        assert_eq!(slab.slots(), 0);
    }

    #[test]
    fn push_takes_only_ids_above_the_highest() {
        let mut slab = IdSlab::new();
        assert_eq!(slab.push(3, "three"), Ok(()));
        assert_eq!(slab.push(3, "again"), Err("again"));
        assert_eq!(slab.push(2, "two"), Err("two"));
        assert_eq!(slab.push(7, "seven"), Ok(()));
        assert_eq!(slab.iter().collect::<Vec<_>>(), vec![(3, &"three"), (7, &"seven")]);
        slab.remove(7);
        assert_eq!(slab.push(5, "five"), Ok(()), "the highest id held counts, not the highest ever");
        assert_eq!(slab.len(), 2);
    }

    #[test]
    fn insert_at_moves_the_rest_up() {
        let mut items = vec![1, 2, 4, 5];
        insert_at(&mut items, 2, 3);
        assert_eq!(items, [1, 2, 3, 4, 5]);
        insert_at(&mut items, 0, 0);
        insert_at(&mut items, 6, 6);
        insert_at(&mut items, 99, 7);
        assert_eq!(items, [0, 1, 2, 3, 4, 5, 6, 7]);
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u64),
        Remove(u64),
        Get(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u64..64).prop_map(Op::Insert),
            3 => (0u64..64).prop_map(Op::Remove),
            2 => (0u64..64).prop_map(Op::Get),
        ]
    }

    proptest! {
        #[test]
        fn behaves_as_an_ordered_map(ops in prop::collection::vec(op(), 0..200), increasing in any::<bool>()) {
            let mut slab = IdSlab::new();
            let mut model = BTreeMap::new();
            let mut next = 0u64;
            for (step, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(id) => {
                        // Mostly increasing ids, as a call registry sees them, or any id.
                        let id = if increasing { next += 1 + id % 3; next } else { id };
                        prop_assert_eq!(slab.insert(id, step), model.insert(id, step));
                    }
                    Op::Remove(id) => {
                        let id = if increasing { next.saturating_sub(id) } else { id };
                        prop_assert_eq!(slab.remove(id), model.remove(&id));
                    }
                    Op::Get(id) => {
                        prop_assert_eq!(slab.get(id), model.get(&id));
                        prop_assert_eq!(slab.get_mut(id).map(|v| *v), model.get(&id).copied());
                    }
                }
                prop_assert_eq!(slab.len(), model.len());
                prop_assert_eq!(slab.is_empty(), model.is_empty());
                prop_assert!(slab.slots() <= 2 * slab.len());
                prop_assert!(!matches!(slab.slots.last(), Some((_, None))));
                prop_assert!(slab.slots.windows(2).all(|w| w[0].0 < w[1].0));
                prop_assert!(slab.iter().map(|(id, v)| (id, *v)).eq(model.iter().map(|(id, v)| (*id, *v))));
            }
        }
    }
}
