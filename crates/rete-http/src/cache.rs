//! A byte-bounded LRU cache of fetched file ranges.
//!
//! Pieces never overlap, so a lookup splits a wanted range into the cached pieces that cover
//! part of it and the gaps that must be fetched.

use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug)]
struct Piece {
    data: Arc<[u8]>,
    tick: u64,
}

/// Cached pieces keyed by start offset, with a recency index for eviction.
#[derive(Debug)]
pub(crate) struct RangeCache {
    pieces: BTreeMap<u64, Piece>,
    recency: BTreeMap<u64, u64>,
    bytes: usize,
    cap: usize,
    tick: u64,
}

/// What a lookup found: cached pieces (start, bytes) overlapping the range and the missing gaps
/// `[start, end)`, both in offset order.
#[derive(Debug, Default)]
pub(crate) struct Lookup {
    pub hits: Vec<(u64, Arc<[u8]>)>,
    pub gaps: Vec<(u64, u64)>,
}

impl RangeCache {
    pub fn new(cap: usize) -> Self {
        Self {
            pieces: BTreeMap::new(),
            recency: BTreeMap::new(),
            bytes: 0,
            cap,
            tick: 0,
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The bound on [`RangeCache::bytes`].
    pub fn cap(&self) -> usize {
        self.cap
    }

    fn touch(&mut self, start: u64) {
        self.tick += 1;
        if let Some(p) = self.pieces.get_mut(&start) {
            self.recency.remove(&p.tick);
            p.tick = self.tick;
            self.recency.insert(self.tick, start);
        }
    }

    /// Starts of the pieces overlapping `[start, end)`, in order.
    fn overlapping(&self, start: u64, end: u64) -> Vec<u64> {
        let before = self
            .pieces
            .range(..start)
            .next_back()
            .filter(|(s, p)| *s + p.data.len() as u64 > start)
            .map(|(s, _)| *s);
        before
            .into_iter()
            .chain(self.pieces.range(start..end).map(|(s, _)| *s))
            .collect()
    }

    /// Splits `[start, end)` into cached pieces (marked as recently used) and gaps.
    pub fn lookup(&mut self, start: u64, end: u64) -> Lookup {
        let mut out = Lookup::default();
        let mut pos = start;
        for s in self.overlapping(start, end) {
            self.touch(s);
            let Some(p) = self.pieces.get(&s) else {
                continue;
            };
            if s > pos {
                out.gaps.push((pos, s));
            }
            pos = pos.max(s + p.data.len() as u64);
            out.hits.push((s, p.data.clone()));
        }
        if pos < end {
            out.gaps.push((pos, end));
        }
        out
    }

    /// Stores `data` fetched at `start`. Cached pieces inside it are replaced; pieces sticking
    /// out of it are kept and the new piece is trimmed instead, so pieces never overlap.
    pub fn insert(&mut self, start: u64, data: Arc<[u8]>) {
        let mut lo = start;
        let mut hi = start + data.len() as u64;
        for s in self.overlapping(lo, hi) {
            let Some(p) = self.pieces.get(&s) else {
                continue;
            };
            let e = s + p.data.len() as u64;
            if s <= lo && e >= hi {
                // Already fully cached.
                self.touch(s);
                return;
            }
            if s < lo {
                lo = e;
            } else if e > hi {
                hi = s;
            } else {
                self.remove(s);
            }
        }
        if lo >= hi || (hi - lo) as usize > self.cap {
            return;
        }
        let data = if lo == start && hi - start == data.len() as u64 {
            data
        } else {
            Arc::from(&data[(lo - start) as usize..(hi - start) as usize])
        };
        self.tick += 1;
        self.bytes += data.len();
        self.recency.insert(self.tick, lo);
        self.pieces.insert(
            lo,
            Piece {
                data,
                tick: self.tick,
            },
        );
        while self.bytes > self.cap {
            let Some((_, oldest)) = self.recency.pop_first() else {
                break;
            };
            if let Some(p) = self.pieces.remove(&oldest) {
                self.bytes -= p.data.len();
            }
        }
    }

    fn remove(&mut self, start: u64) {
        if let Some(p) = self.pieces.remove(&start) {
            self.recency.remove(&p.tick);
            self.bytes -= p.data.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(start: u64, len: usize) -> Arc<[u8]> {
        (start..start + len as u64).map(|i| i as u8).collect()
    }

    #[test]
    fn lookup_splits_hits_and_gaps() {
        let mut c = RangeCache::new(1 << 20);
        c.insert(10, bytes(10, 10));
        c.insert(30, bytes(30, 5));
        let l = c.lookup(0, 40);
        assert_eq!(l.gaps, vec![(0, 10), (20, 30), (35, 40)]);
        assert_eq!(l.hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![10, 30]);
        let l = c.lookup(12, 18);
        assert!(l.gaps.is_empty());
        assert_eq!(l.hits.len(), 1);
    }

    #[test]
    fn insert_never_overlaps() {
        let mut c = RangeCache::new(1 << 20);
        c.insert(10, bytes(10, 10));
        c.insert(0, bytes(0, 40)); // swallows [10, 20)
        assert_eq!(c.bytes(), 40);
        c.insert(30, bytes(30, 20)); // sticks out: trimmed to [40, 50)
        assert_eq!(c.bytes(), 50);
        c.insert(5, bytes(5, 10)); // fully cached already
        assert_eq!(c.bytes(), 50);
        let l = c.lookup(0, 50);
        assert!(l.gaps.is_empty());
        for (s, d) in &l.hits {
            assert_eq!(&d[..], &bytes(*s, d.len())[..]);
        }
    }

    #[test]
    fn evicts_least_recently_used() {
        let mut c = RangeCache::new(100);
        c.insert(0, bytes(0, 40));
        c.insert(100, bytes(100, 40));
        c.lookup(0, 10); // [0, 40) is now the most recent
        c.insert(200, bytes(200, 40));
        assert_eq!(c.bytes(), 80);
        assert!(c.lookup(0, 40).gaps.is_empty());
        assert_eq!(c.lookup(100, 140).gaps, vec![(100, 140)]);
        c.insert(300, bytes(300, 500)); // larger than the cache: not kept
        assert_eq!(c.bytes(), 80);
    }
}
