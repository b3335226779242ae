//! The table of a node's neighbouring communities that local moving and aggregation sum
//! weights in.

/// Distinct neighbouring communities kept in [`Mover`](super::moving::Mover)'s short list before
/// it switches to its table.
pub(super) const SHORT_LIST: usize = 16;

/// A free slot of [`RowTable`].
pub(super) const FREE: u32 = u32::MAX;

/// Graphs of at most this many nodes index [`RowTable`]'s entries by community (4 bytes a
/// node: 256 KiB, within a core's L2 cache).
pub(super) const INDEXED_NODES: usize = 1 << 16;

/// The weights from one node to its neighbouring communities once they outgrow the short list:
/// an open-addressing table sized to the node's row over a list in order of first appearance.
/// It stays in cache, where arrays indexed by community cost a miss per entry once the graph's
/// arrays outgrow the cache: on level 1 of the 100 M-triple social graph (775 k nodes) the
/// sweeps took 13.5 s with those arrays, 9.1 s with this table.
pub(super) struct RowTable {
    /// `(community, position in entries)`, `FREE` when empty; a power of two long.
    pub(super) slots: Vec<(u32, u32)>,
    /// Instead of the slots, on a graph of at most [`INDEXED_NODES`] nodes: position in
    /// entries plus one by community, 0 when absent. On the small dense graphs near the top
    /// (10 k nodes with rows of 1,000 at 100 M triples) it fits the core's cache, and a row costs
    /// no hashing or probing.
    pub(super) index: Vec<u32>,
    /// `(community, weight, slot)`, in order of first appearance.
    pub(super) entries: Vec<(u32, f64, u32)>,
    /// `32 - log2(slots.len())`: the hash keeps the top bits.
    shift: u32,
}

impl RowTable {
    const MIN_SLOTS: usize = 4 * SHORT_LIST;

    pub(super) fn new() -> Self {
        Self {
            slots: vec![(FREE, 0); Self::MIN_SLOTS],
            index: Vec::new(),
            entries: Vec::new(),
            shift: 32 - Self::MIN_SLOTS.trailing_zeros(),
        }
    }

    /// A table for communities `0..n` kept in an index by community.
    pub(super) fn indexed(n: usize) -> Self {
        Self {
            slots: Vec::new(),
            index: vec![0; n],
            entries: Vec::new(),
            shift: 0,
        }
    }

    /// The first slot to probe for `c` (Fibonacci hashing).
    fn home(&self, c: u32) -> usize {
        (c.wrapping_mul(0x9E37_79B9) >> self.shift) as usize
    }

    /// Adds `w` to community `c`.
    pub(super) fn add(&mut self, c: u32, w: f64) {
        if !self.index.is_empty() {
            let at = &mut self.index[c as usize];
            if *at == 0 {
                self.entries.push((c, w, 0));
                *at = self.entries.len() as u32;
            } else {
                self.entries[*at as usize - 1].1 += w;
            }
            return;
        }
        let mask = self.slots.len() - 1;
        let mut s = self.home(c);
        loop {
            let (k, e) = self.slots[s];
            if k == c {
                self.entries[e as usize].1 += w;
                return;
            }
            if k == FREE {
                break;
            }
            s = (s + 1) & mask;
        }
        self.slots[s] = (c, self.entries.len() as u32);
        self.entries.push((c, w, s as u32));
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
    }

    /// Doubles the slots and places every entry again.
    fn grow(&mut self) {
        let len = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(len, (FREE, 0));
        self.shift -= 1;
        let mask = len - 1;
        for e in 0..self.entries.len() {
            let c = self.entries[e].0;
            let mut s = self.home(c);
            while self.slots[s].0 != FREE {
                s = (s + 1) & mask;
            }
            self.slots[s] = (c, e as u32);
            self.entries[e].2 = s as u32;
        }
    }

    /// The weight to `c` (0 when no neighbour is in it).
    pub(super) fn get(&self, c: u32) -> f64 {
        if !self.index.is_empty() {
            return match self.index[c as usize] {
                0 => 0.0,
                at => self.entries[at as usize - 1].1,
            };
        }
        let mask = self.slots.len() - 1;
        let mut s = self.home(c);
        loop {
            let (k, e) = self.slots[s];
            if k == c {
                return self.entries[e as usize].1;
            }
            if k == FREE {
                return 0.0;
            }
            s = (s + 1) & mask;
        }
    }

    /// Readies the empty table for a row of `len` entries (at most that many communities): sized
    /// once, so a long row does not grow it step by step.
    pub(super) fn size_for(&mut self, len: usize) {
        if !self.index.is_empty() {
            return;
        }
        let want = (2 * len).next_power_of_two().max(Self::MIN_SLOTS);
        if want != self.slots.len() {
            self.slots.clear();
            self.slots.resize(want, (FREE, 0));
            self.shift = 32 - want.trailing_zeros();
        }
    }

    /// Empties the table for the next node.
    pub(super) fn clear(&mut self) {
        if self.index.is_empty() {
            for &(_, _, s) in &self.entries {
                self.slots[s as usize].0 = FREE;
            }
        } else {
            for &(c, _, _) in &self.entries {
                self.index[c as usize] = 0;
            }
        }
        self.entries.clear();
    }
}
