//! The active nodes of local moving: a flag each, and the queue of the next ones whose data is
//! asked for from memory ahead.

use super::Graph;

/// Active nodes between the stages of local moving's requests to memory (see [`Ahead`]).
const STAGE: usize = 3;

/// One flag a node, a bit each: at 12.7 M nodes (100 M triples) they take 1.6 MB, which the cache
/// holds, where a byte each (12.7 MB) made waking a moved node's neighbours write at random
/// beyond it. Late sweeps wake a few hundred nodes of millions: [`Flags::next`] skips 64 at a
/// time.
pub(super) struct Flags {
    words: Vec<u64>,
    n: usize,
}

impl Flags {
    /// `n` flags, all set.
    pub(super) fn all(n: usize) -> Self {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if n % 64 != 0 {
            if let Some(last) = words.last_mut() {
                *last = (1u64 << (n % 64)) - 1;
            }
        }
        Self { words, n }
    }

    pub(super) fn get(&self, i: usize) -> bool {
        (self.words[i >> 6] >> (i & 63)) & 1 == 1
    }

    pub(super) fn set(&mut self, i: usize, on: bool) {
        debug_assert!(i < self.n);
        let (w, bit) = (&mut self.words[i >> 6], 1u64 << (i & 63));
        if on {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }

    /// The first set flag from `from` on.
    pub(super) fn next(&self, from: usize) -> Option<usize> {
        if from >= self.n {
            return None;
        }
        let mut w = from >> 6;
        let mut bits = self.words[w] & (u64::MAX << (from & 63));
        loop {
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            w += 1;
            bits = *self.words.get(w)?;
        }
    }
}

/// The active nodes local moving visits next, each asked for from memory in stages as it comes
/// closer: where its row starts, its row, its neighbours' communities, their degree sums, each
/// [`STAGE`] active nodes apart. A stage reads only what the one before asked for, so its loads
/// hit the cache. Nodes woken after they were queued are simply not asked for: hints only, the
/// visits follow the flags. On the 100 M-triple graph, whose arrays outgrow the cache, level 0's
/// sweeps took 15.4–19.0 s instead of 17.7–21.9 s with one stage two nodes ahead; no more, as a
/// visit makes some twenty requests to memory, more than a core keeps in flight.
#[derive(Default)]
pub(super) struct Ahead {
    queue: std::collections::VecDeque<usize>,
    /// The flags were scanned to the end in this sweep: not again for every late visit.
    at_end: bool,
}

impl Ahead {
    /// Forgets the queue for a new sweep.
    pub(super) fn restart(&mut self) {
        self.queue.clear();
        self.at_end = false;
    }

    /// Before visiting `i`: queues the next nodes set in `active` and sends each stage's
    /// requests for their data in `g`, local moving's communities `comm` and their degree sums
    /// `tot`.
    pub(super) fn advance<G: Graph>(
        &mut self,
        i: usize,
        active: &Flags,
        comm: &[u32],
        tot: &[f64],
        g: &G,
    ) {
        while self.queue.front().is_some_and(|&x| x <= i) {
            self.queue.pop_front();
        }
        while self.queue.len() < 4 * STAGE && !self.at_end {
            let from = self.queue.back().map_or(i + 1, |&b| b + 1);
            match active.next(from) {
                Some(x) => self.queue.push_back(x),
                None => self.at_end = true,
            }
        }
        if let Some(&x) = self.queue.get(STAGE - 1) {
            g.prefetch_community_degrees(x, comm, tot);
        }
        if let Some(&x) = self.queue.get(2 * STAGE - 1) {
            g.prefetch_communities(x, comm);
        }
        if let Some(&x) = self.queue.get(3 * STAGE - 1) {
            g.prefetch_row(x);
        }
        if let Some(&x) = self.queue.get(4 * STAGE - 1) {
            g.prefetch_offset(x);
        }
    }
}
