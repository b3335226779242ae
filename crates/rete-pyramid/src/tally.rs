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

    /// Distinct keys so far (after the last merge) plus buffered ones: an upper bound.
    pub(crate) fn len(&self) -> usize {
        self.acc.len() + self.buf.len()
    }

    fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        self.buf.sort_unstable_by_key(|e| e.0);
        let mut merged: Vec<(K, u64)> = Vec::with_capacity(self.acc.len() + self.buf.len());
        let (mut a, mut b) = (
            std::mem::take(&mut self.acc).into_iter().peekable(),
            self.buf.drain(..).peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.0 <= y.0 => a.next(),
                (_, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            if let Some((k, w)) = next {
                match merged.last_mut() {
                    Some(last) if last.0 == k => last.1 += w,
                    _ => merged.push((k, w)),
                }
            }
        }
        drop(a);
        drop(b);
        merged.shrink_to_fit();
        self.acc = merged;
        // Keep merges amortised: the buffer grows with the distinct keys (a quarter of them).
        self.chunk = MIN_CHUNK.max(self.acc.len() / 4);
    }

    /// The distinct keys, sorted, with their summed weights.
    pub(crate) fn finish(mut self) -> Vec<(K, u64)> {
        self.flush();
        self.acc
    }
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
}
