//! Stream ids and the map keyed by them.

use alloc::vec::Vec;

use crate::list::{put_at, take_at};

/// A stream id on one socket. Ids restart at 1 on every socket (WSM-RCN-031).
pub type StreamId = u64;

/// The largest stream id; taking it starts the exhaustion shutdown (WSM-SID-007).
pub const MAX_STREAM_ID: StreamId = (1 << 31) - 1;
/// A map from stream id to `V`, kept as a sorted vector: live streams are few, and this is far
/// smaller in wasm than a `BTreeMap` per value type.
pub(super) struct IdMap<V>(pub(super) Vec<(StreamId, V)>);

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap(Vec::new())
    }
}

impl<V> IdMap<V> {
    pub(super) fn index(&self, id: StreamId) -> Result<usize, usize> {
        self.0.binary_search_by_key(&id, |(k, _)| *k)
    }
    // Out of line: smaller wasm.
    #[inline(never)]
    pub(super) fn get(&self, id: &StreamId) -> Option<&V> {
        let i = self.index(*id).ok()?;
        self.0.get(i).map(|(_, v)| v)
    }
    pub(super) fn get_mut(&mut self, id: &StreamId) -> Option<&mut V> {
        let i = self.index(*id).ok()?;
        self.0.get_mut(i).map(|(_, v)| v)
    }
    // Out of line: smaller wasm.
    #[inline(never)]
    pub(super) fn contains_key(&self, id: &StreamId) -> bool {
        self.index(*id).is_ok()
    }
    // Entries move with `list`'s helpers, which have no panicking path (a binary search's
    // answer is always a valid place).
    pub(super) fn insert(&mut self, id: StreamId, value: V) {
        match self.index(id) {
            Ok(i) => {
                if let Some(entry) = self.0.get_mut(i) {
                    entry.1 = value;
                }
            }
            Err(i) => put_at(&mut self.0, i, (id, value)),
        }
    }
    pub(super) fn remove(&mut self, id: &StreamId) -> Option<V> {
        let i = self.index(*id).ok()?;
        take_at(&mut self.0, i).map(|(_, v)| v)
    }
    pub(super) fn entry_or_default(&mut self, id: StreamId) -> Option<&mut V>
    where
        V: Default,
    {
        let i = match self.index(id) {
            Ok(i) => i,
            Err(i) => {
                put_at(&mut self.0, i, (id, V::default()));
                i
            }
        };
        self.0.get_mut(i).map(|(_, v)| v)
    }
    pub(super) fn keys(&self) -> impl Iterator<Item = StreamId> + '_ {
        self.0.iter().map(|(k, _)| *k)
    }
    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
}
