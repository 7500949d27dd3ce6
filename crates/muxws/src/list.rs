//! `Vec` edits that cannot panic: `Vec::insert` and `Vec::remove` check their index and panic
//! with a formatted message and a source location, which the wasm module would carry as code and
//! text even where the index is known to be valid. These move entries with swaps instead (the
//! same O(n) work as `insert`/`remove`'s shift).

use alloc::vec::Vec;

/// Removes and returns the entry at `at`, moving the later ones down one place (as
/// `Vec::remove`); `None` when `at` is past the end.
pub(crate) fn take_at<T>(items: &mut Vec<T>, at: usize) -> Option<T> {
    if at >= items.len() {
        return None;
    }
    // Bubble the entry to the end, then pop it.
    let mut k = at;
    while let Some([a, b, ..]) = items.get_mut(k..) {
        core::mem::swap(a, b);
        k += 1;
    }
    items.pop()
}

/// Inserts `item` at `at` (at most the length: else it goes at the end), moving the later ones
/// up one place (as `Vec::insert`).
pub(crate) fn put_at<T>(items: &mut Vec<T>, at: usize, item: T) {
    items.push(item);
    let mut k = items.len() - 1;
    while k > at {
        if let Some([a, b, ..]) = items.get_mut(k - 1..) {
            core::mem::swap(a, b);
        }
        k -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_vec_insert_and_remove() {
        for len in 0..6usize {
            for at in 0..=len + 1 {
                let base: Vec<usize> = (0..len).collect();
                let mut ours = base.clone();
                let mut theirs = base.clone();
                let taken = take_at(&mut ours, at);
                let expected = (at < len).then(|| theirs.remove(at));
                assert_eq!(taken, expected);
                assert_eq!(ours, theirs);
                if at <= len {
                    let mut ours = base.clone();
                    let mut theirs = base.clone();
                    put_at(&mut ours, at, 99);
                    theirs.insert(at, 99);
                    assert_eq!(ours, theirs);
                }
            }
        }
    }
}
