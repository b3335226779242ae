//! The graphs Louvain reads: [`WGraph`] (a compact weighted CSR plus self-loop weights, filled
//! by [`CsrBuilder`]), [`UnitGraph`] (the entity graph, one entry per triple) and the [`Graph`]
//! trait over both.

use crate::PyramidError;

/// An undirected weighted graph. Self-loops live in `loops` (weight counted once), the CSR holds
/// every other edge in both directions. A hand-made CSR rather than petgraph's: it is filled node
/// by node without an intermediate edge list and stores `u32` weights, 8 bytes per entry.
#[derive(Debug, Clone)]
pub(crate) struct WGraph {
    /// Start of each node's entries in `nbr`/`w`, plus the end.
    off: Vec<u64>,
    nbr: Vec<u32>,
    w: Vec<u32>,
    loops: Vec<f64>,
    pub(super) degree: Vec<f64>,
    /// Sum of all degrees: twice the total edge weight.
    pub(super) m2: f64,
}

/// Fills a [`WGraph`] node by node, in index order.
#[derive(Debug, Default)]
pub(crate) struct CsrBuilder {
    off: Vec<u64>,
    nbr: Vec<u32>,
    w: Vec<u32>,
    loops: Vec<f64>,
}

impl CsrBuilder {
    /// A builder expecting `nodes` nodes and up to `entries` directed entries.
    pub(crate) fn with_capacity(nodes: usize, entries: usize) -> Self {
        let mut off = Vec::with_capacity(nodes + 1);
        off.push(0);
        Self {
            off,
            nbr: Vec::with_capacity(entries),
            w: Vec::with_capacity(entries),
            loops: Vec::with_capacity(nodes),
        }
    }

    /// Appends the next node: its self-loop weight and its other neighbours, increasing.
    pub(crate) fn push_node(&mut self, loop_weight: u64, neighbors: &[(u32, u32)]) {
        self.loops.push(loop_weight as f64);
        for &(j, w) in neighbors {
            self.nbr.push(j);
            self.w.push(w);
        }
        self.off.push(self.nbr.len() as u64);
    }

    pub(crate) fn finish(mut self) -> Result<WGraph, PyramidError> {
        let n = self.loops.len();
        if self.nbr.iter().any(|&j| j as usize >= n) {
            return Err(PyramidError::internal("edge endpoint out of range"));
        }
        self.nbr.shrink_to_fit();
        self.w.shrink_to_fit();
        let mut g = WGraph {
            off: self.off,
            nbr: self.nbr,
            w: self.w,
            loops: self.loops,
            degree: Vec::new(),
            m2: 0.0,
        };
        g.degree = (0..n)
            .map(|i| 2.0 * g.loops[i] + g.neighbors(i).map(|(_, w)| w).sum::<f64>())
            .collect();
        g.m2 = g.degree.iter().sum();
        Ok(g)
    }
}

/// What local moving, aggregation and modularity read of a graph: [`WGraph`] (weighted, the
/// communities of a level) or [`UnitGraph`] (the entity graph, one entry per triple).
pub(crate) trait Graph: Sync {
    fn node_count(&self) -> usize;
    /// Weighted degree of `i` (self-loops count twice).
    fn degree(&self, i: usize) -> f64;
    /// Self-loop weight of `i`.
    fn loop_weight(&self, i: usize) -> f64;
    /// Sum of all degrees: twice the total edge weight.
    fn m2(&self) -> f64;
    /// Neighbours of `i` (never `i` itself) with weights, in increasing index order; a
    /// neighbour may come several times in a row (its weights then add up).
    fn neighbors(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + Clone + '_;
    /// Bytes held (for reports).
    fn heap_bytes(&self) -> usize;
    /// Asks the cache for `comm`'s entries of `i`'s neighbours, which local moving reads when it
    /// visits `i`: a hint, no effect on the result.
    fn prefetch_communities(&self, i: usize, comm: &[u32]) {
        for (j, _) in self.neighbors(i) {
            prefetch_index::prefetch_index(comm, j);
        }
    }

    /// Asks the cache for where `i`'s row starts: a hint.
    fn prefetch_offset(&self, i: usize);
    /// Asks the cache for `i`'s row (its start asked for earlier): a hint.
    fn prefetch_row(&self, i: usize);

    /// Asks the cache for `tot`'s entries of the communities of `i`'s neighbours (their
    /// entries of `comm` asked for earlier): a hint, no effect on the result.
    fn prefetch_community_degrees(&self, i: usize, comm: &[u32], tot: &[f64]) {
        for (j, _) in self.neighbors(i) {
            prefetch_index::prefetch_index(tot, comm[j] as usize);
        }
    }

    /// Modularity of `part` at resolution `gamma` (networkx's definition: self-loops count once
    /// as internal weight and twice in the degree). The builder uses [`hierarchy_modularity`],
    /// which tests hold to this one.
    #[cfg(test)]
    fn modularity(&self, part: &[u32], gamma: f64) -> f64 {
        if self.m2() <= 0.0 {
            return 0.0;
        }
        let k = part.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut internal = vec![0.0; k];
        let mut tot = vec![0.0; k];
        for i in 0..self.node_count() {
            let ci = part[i] as usize;
            tot[ci] += self.degree(i);
            internal[ci] += self.loop_weight(i);
            for (j, w) in self.neighbors(i) {
                if j > i && part[j] as usize == ci {
                    internal[ci] += w;
                }
            }
        }
        let m2 = self.m2();
        (0..k)
            .map(|c| 2.0 * internal[c] / m2 - gamma * (tot[c] / m2) * (tot[c] / m2))
            .sum()
    }
}

/// The entity graph as Louvain's first pass reads it: one `u32` entry per triple and direction,
/// repeated when several triples link a pair, so no weights are stored (4 bytes an entry instead
/// of 8, and no per-node degree: it is the row length). Self-loops are rare: a sorted sparse
/// list. Sums of unit weights are the exact integers a weighted CSR gives, and repeated entries
/// are adjacent, so communities appear in the same order: Louvain's result is the same.
#[derive(Debug, Clone)]
pub(crate) struct UnitGraph {
    /// Start of each node's entries in `nbr`, plus the end (entries fit `u32`: checked when
    /// built).
    off: Vec<u32>,
    nbr: Vec<u32>,
    /// `(node, self-loop triples)`, sorted by node.
    loops: Vec<(u32, u32)>,
    m2: f64,
}

impl UnitGraph {
    /// A graph from row offsets (`n + 1`, the last one `nbr.len()`), rows of neighbours sorted
    /// increasing without the node itself, and sorted self-loop counts.
    pub(crate) fn new(
        off: Vec<u32>,
        nbr: Vec<u32>,
        loops: Vec<(u32, u32)>,
    ) -> Result<Self, PyramidError> {
        let n = off.len().saturating_sub(1);
        let bad = |what: &str| Err(PyramidError::internal(format!("unit graph: {what}")));
        if off.first().is_some_and(|&o| o != 0)
            || off.last().map_or(0, |&o| o as usize) != nbr.len()
        {
            return bad("offsets do not cover the entries");
        }
        if off.windows(2).any(|w| w[0] > w[1]) {
            return bad("decreasing offsets");
        }
        if nbr.iter().any(|&j| j as usize >= n) {
            return bad("edge endpoint out of range");
        }
        if loops.windows(2).any(|w| w[0].0 >= w[1].0) || loops.iter().any(|l| l.0 as usize >= n) {
            return bad("self-loops out of order");
        }
        let m2 = nbr.len() as f64 + 2.0 * loops.iter().map(|l| f64::from(l.1)).sum::<f64>();
        Ok(Self {
            off,
            nbr,
            loops,
            m2,
        })
    }

    /// The entries of `i`, each neighbour repeated once per triple.
    pub(crate) fn row(&self, i: usize) -> &[u32] {
        &self.nbr[self.off[i] as usize..self.off[i + 1] as usize]
    }

    /// Distinct undirected pairs, self-loops included.
    pub(crate) fn undirected_edges(&self) -> usize {
        let distinct: usize = (0..self.node_count())
            .map(|i| {
                let row = self.row(i);
                row.iter()
                    .zip(row.iter().skip(1))
                    .filter(|(a, b)| a != b)
                    .count()
                    + usize::from(!row.is_empty())
            })
            .sum();
        distinct / 2 + self.loops.len()
    }
}

impl Graph for UnitGraph {
    fn node_count(&self) -> usize {
        self.off.len().saturating_sub(1)
    }

    fn degree(&self, i: usize) -> f64 {
        f64::from(self.off[i + 1] - self.off[i]) + 2.0 * self.loop_weight(i)
    }

    fn loop_weight(&self, i: usize) -> f64 {
        if self.loops.is_empty() {
            return 0.0;
        }
        match self.loops.binary_search_by_key(&(i as u32), |l| l.0) {
            Ok(k) => f64::from(self.loops[k].1),
            Err(_) => 0.0,
        }
    }

    fn m2(&self) -> f64 {
        self.m2
    }

    fn neighbors(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + Clone + '_ {
        self.row(i).iter().map(|&j| (j as usize, 1.0))
    }

    fn prefetch_offset(&self, i: usize) {
        prefetch_index::prefetch_index(&self.off, i);
    }

    fn prefetch_row(&self, i: usize) {
        prefetch_lines(&self.nbr, self.off[i] as usize, self.off[i + 1] as usize);
    }

    fn heap_bytes(&self) -> usize {
        self.off.len() * 4 + self.nbr.len() * 4 + self.loops.len() * 8
    }
}

impl Graph for WGraph {
    fn node_count(&self) -> usize {
        self.loops.len()
    }

    fn degree(&self, i: usize) -> f64 {
        self.degree[i]
    }

    fn loop_weight(&self, i: usize) -> f64 {
        self.loops[i]
    }

    fn m2(&self) -> f64 {
        self.m2
    }

    fn neighbors(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + Clone + '_ {
        let (s, e) = (self.off[i] as usize, self.off[i + 1] as usize);
        self.nbr[s..e]
            .iter()
            .zip(&self.w[s..e])
            .map(|(&j, &w)| (j as usize, f64::from(w)))
    }

    fn prefetch_offset(&self, i: usize) {
        prefetch_index::prefetch_index(&self.off, i);
    }

    fn prefetch_row(&self, i: usize) {
        let (s, e) = (self.off[i] as usize, self.off[i + 1] as usize);
        prefetch_lines(&self.nbr, s, e);
        prefetch_lines(&self.w, s, e);
    }

    fn heap_bytes(&self) -> usize {
        self.off.len() * 8 + self.nbr.len() * 8 + self.loops.len() * 16
    }
}

/// Asks the cache for the lines of `v[from..to]`, at most [`ROW_LINES`] of them.
fn prefetch_lines(v: &[u32], from: usize, to: usize) {
    let to = to.min(from + ROW_LINES * 16);
    for k in (from..to).step_by(16) {
        prefetch_index::prefetch_index(v, k);
    }
}

/// Cache lines of a row asked for ahead (the longer rows of the coarse graphs are read
/// sequentially, which the hardware prefetcher follows).
const ROW_LINES: usize = 4;

/// A `u32` weight, or an error when a sum of triple counts outgrows it.
pub(super) fn weight(w: u64) -> Result<u32, PyramidError> {
    u32::try_from(w).map_err(|_| PyramidError::TooLarge(format!("an edge weight of {w} triples")))
}

impl WGraph {
    /// A graph on `n` nodes from undirected edges `(a, b, w)` with integer weights; duplicates
    /// are summed, `a == b` is a self-loop.
    #[cfg(test)]
    pub(crate) fn from_edges(n: usize, edges: &[(u32, u32, f64)]) -> Result<Self, PyramidError> {
        let mut loops = vec![0u64; n];
        let mut dir = Vec::with_capacity(edges.len() * 2);
        for &(a, b, w) in edges {
            if a as usize >= n || b as usize >= n {
                return Err(PyramidError::internal("edge endpoint out of range"));
            }
            if a == b {
                loops[a as usize] += w as u64;
            } else {
                dir.push((a, b, w as u64));
                dir.push((b, a, w as u64));
            }
        }
        dir.sort_unstable_by_key(|x| (x.0, x.1));
        let mut b = CsrBuilder::with_capacity(n, dir.len());
        let mut row: Vec<(u32, u32)> = Vec::new();
        let mut k = 0;
        for (i, &l) in loops.iter().enumerate() {
            row.clear();
            let mut acc: Option<(u32, u64)> = None;
            while k < dir.len() && dir[k].0 as usize == i {
                match acc {
                    Some((j, ref mut s)) if j == dir[k].1 => *s += dir[k].2,
                    _ => {
                        if let Some((j, s)) = acc {
                            row.push((j, weight(s)?));
                        }
                        acc = Some((dir[k].1, dir[k].2));
                    }
                }
                k += 1;
            }
            if let Some((j, s)) = acc {
                row.push((j, weight(s)?));
            }
            b.push_node(l, &row);
        }
        b.finish()
    }
}
