//! Counting keys in bounded memory: keys are buffered, then sorted and merged into a sorted list
//! of distinct keys with their summed weights. Memory is the distinct keys plus one buffer, never
//! one entry per occurrence.

/// Sorted distinct keys with summed weights, filled in any order.
#[derive(Debug)]
pub(crate) struct Tally<K> {
    buf: Vec<(K, u64)>,
    acc: Vec<(K, u64)>,
    chunk: usize,
}

/// Smallest buffer, in entries.
const MIN_CHUNK: usize = 1 << 16;

impl<K: Ord + Copy> Tally<K> {
    pub(crate) fn new() -> Self {
        Self {
            buf: Vec::new(),
            acc: Vec::new(),
            chunk: MIN_CHUNK,
        }
    }

    pub(crate) fn add(&mut self, key: K, weight: u64) {
        self.buf.push((key, weight));
        if self.buf.len() >= self.chunk {
            self.flush();
        }
    }

    /// Merges the buffer into the sorted keys in place: the buffer is sorted and combined, the
    /// keys grow by its length (a `realloc`, which moves pages rather than copying large
    /// blocks), and the two are merged from the back. A merge into a new vector would hold the
    /// keys twice at the largest flush.
    fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        self.buf.sort_unstable_by_key(|e| e.0);
        combine(&mut self.buf);
        let (old, add) = (self.acc.len(), self.buf.len());
        self.acc.reserve_exact(add);
        let filler = self.buf[0];
        self.acc.resize(old + add, filler);
        // Backward merge: `out` is the next free slot from the end; equal keys are summed.
        let (mut i, mut j, mut out) = (old, add, old + add);
        while j > 0 {
            let take_acc = i > 0 && self.acc[i - 1].0 > self.buf[j - 1].0;
            let next = if take_acc {
                i -= 1;
                self.acc[i]
            } else {
                j -= 1;
                self.buf[j]
            };
            if out < old + add && self.acc[out].0 == next.0 {
                self.acc[out].1 += next.1;
            } else {
                out -= 1;
                self.acc[out] = next;
            }
        }
        // The rest of the old keys: one of them may equal the smallest merged key.
        while i > 0 {
            i -= 1;
            let next = self.acc[i];
            if out < old + add && self.acc[out].0 == next.0 {
                self.acc[out].1 += next.1;
            } else {
                out -= 1;
                self.acc[out] = next;
            }
        }
        // `out` slots at the front are unused.
        self.acc.drain(..out);
        self.buf.clear();
        // Keep merges amortised: the buffer grows with the distinct keys (a quarter of them).
        self.chunk = MIN_CHUNK.max(self.acc.len() / 4);
    }

    /// The distinct keys, sorted, with their summed weights.
    pub(crate) fn finish(mut self) -> Vec<(K, u64)> {
        self.flush();
        self.acc
    }
}

/// Sums the weights of equal adjacent keys, in place.
fn combine<K: Ord + Copy>(v: &mut Vec<(K, u64)>) {
    let mut w = 0;
    for r in 0..v.len() {
        if w > 0 && v[w - 1].0 == v[r].0 {
            v[w - 1].1 += v[r].1;
        } else {
            v[w] = v[r];
            w += 1;
        }
    }
    v.truncate(w);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_like_a_sort() {
        let keys: Vec<(u64, u64)> = (0..300_000u64)
            .map(|i| ((i * 7919) % 1013, (i * 104_729) % 17))
            .collect();
        let mut t = Tally::new();
        for &k in &keys {
            t.add(k, 2);
        }
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        let mut expect: Vec<((u64, u64), u64)> = Vec::new();
        for k in sorted {
            match expect.last_mut() {
                Some(e) if e.0 == k => e.1 += 2,
                _ => expect.push((k, 2)),
            }
        }
        assert_eq!(t.finish(), expect);
    }

    #[test]
    fn in_place_merges_sum_like_a_map() {
        // Many distinct keys (the sorted keys outgrow the buffer), repeated across flushes.
        let mut t = Tally::new();
        let mut expect = std::collections::BTreeMap::new();
        for i in 0..700_000u64 {
            let k = (i.wrapping_mul(2_654_435_761) % 200_003, i % 3);
            let w = i % 5 + 1;
            t.add(k, w);
            *expect.entry(k).or_insert(0) += w;
        }
        assert_eq!(t.finish(), expect.into_iter().collect::<Vec<_>>());
    }
}
