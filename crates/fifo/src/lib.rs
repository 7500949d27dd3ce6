//! A first-in, first-out queue in far less wasm than `VecDeque`, whose ring-buffer code (wrapping
//! growth, two-slice drops, truncation) is instantiated once per element type. One crate, so that
//! the muxws protocol layer and the muxws module share one queue.

#![no_std]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(test)]
extern crate std;

use alloc::vec::Vec;

/// A queue kept as a `Vec` and the index of its front: taken entries are left behind as `None`
/// and dropped in one go when the queue empties, or when they make up half of a long `Vec`
/// (each entry is then moved at most once more: pushing and taking stay amortized O(1)).
#[derive(Debug)]
pub struct Fifo<T> {
    items: Vec<Option<T>>,
    front: usize,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo::new()
    }
}

/// How many taken entries a queue that never empties keeps before it moves the rest down.
const COMPACT_AFTER: usize = 32;

impl<T> Fifo<T> {
    /// An empty queue.
    pub const fn new() -> Fifo<T> {
        Fifo {
            items: Vec::new(),
            front: 0,
        }
    }

    /// Adds `item` at the back.
    pub fn push_back(&mut self, item: T) {
        self.items.push(Some(item));
    }

    /// Takes the item at the front. Out of line: inlined into each caller it costs more.
    #[inline(never)]
    pub fn pop_front(&mut self) -> Option<T> {
        let item = self.items.get_mut(self.front)?.take();
        self.front += 1;
        if self.front >= self.items.len() {
            self.clear();
        } else if self.front >= COMPACT_AFTER && self.front * 2 >= self.items.len() {
            self.items = self.items.split_off(self.front);
            self.front = 0;
        }
        item
    }

    /// The item at the front.
    pub fn front(&self) -> Option<&T> {
        self.items.get(self.front)?.as_ref()
    }

    /// How many items are queued.
    pub fn len(&self) -> usize {
        self.items.len().saturating_sub(self.front)
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps the first `len` items, dropping the rest.
    pub fn truncate(&mut self, len: usize) {
        if len == 0 {
            self.clear();
        } else {
            self.items.truncate(self.front.saturating_add(len));
        }
    }

    /// Drops every item.
    pub fn clear(&mut self) {
        self.items.clear();
        self.front = 0;
    }
}

impl<T: PartialEq> Fifo<T> {
    /// True when `item` is queued.
    pub fn contains(&self, item: &T) -> bool {
        self.items
            .get(self.front..)
            .unwrap_or_default()
            .iter()
            .any(|queued| queued.as_ref() == Some(item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_as_a_vec_deque() {
        let mut fifo = Fifo::new();
        let mut model = VecDeque::new();
        let mut state = 7u32;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            match state % 7 {
                0..=2 => {
                    fifo.push_back(state);
                    model.push_back(state);
                }
                3..=4 => {
                    assert_eq!(fifo.pop_front(), model.pop_front());
                    // Taken entries never pile up.
                    assert!(fifo.items.len() <= 2 * model.len() + COMPACT_AFTER);
                }
                5 => {
                    let keep = (state as usize >> 8) % 4;
                    fifo.truncate(keep);
                    model.truncate(keep);
                }
                _ => assert_eq!(fifo.contains(&(state % 3)), model.contains(&(state % 3))),
            }
            assert_eq!(fifo.len(), model.len());
            assert_eq!(fifo.is_empty(), model.is_empty());
            assert_eq!(fifo.front(), model.front());
        }
        fifo.clear();
        assert_eq!(fifo.pop_front(), None);
    }

    #[test]
    fn taking_the_last_item_empties_the_storage() {
        let mut fifo = Fifo::new();
        fifo.push_back(1);
        fifo.push_back(2);
        assert_eq!(fifo.pop_front(), Some(1));
        fifo.push_back(3);
        assert_eq!(fifo.pop_front(), Some(2));
        assert_eq!(fifo.pop_front(), Some(3));
        assert!(fifo.items.is_empty() && fifo.front == 0, "storage left behind");
        assert_eq!(fifo.pop_front(), None);
        assert!(fifo.items.is_empty() && fifo.front == 0);
    }

    #[test]
    fn a_queue_that_never_empties_stays_small() {
        let mut fifo = Fifo::new();
        fifo.push_back(0u64);
        fifo.push_back(1);
        for i in 2..100_000u64 {
            assert_eq!(fifo.pop_front(), Some(i - 2));
            fifo.push_back(i);
            assert!(fifo.items.len() <= 2 + 2 * COMPACT_AFTER);
        }
    }
}
