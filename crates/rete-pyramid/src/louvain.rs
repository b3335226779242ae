//! Weighted undirected graphs (a compact CSR plus self-loop weights) and the Louvain method.
//!
//! Everything here is deterministic: nodes are visited in index order, ties keep the current
//! community or the lowest index, aggregation sorts its edges, and the tables of neighbouring
//! communities are read in order of first appearance, never in hash order. Aggregation runs on
//! rayon's threads in tasks whose rows are appended in order: the same graph on any number of
//! threads. Edge weights are triple counts, so the sums stay exact integers in `f64`.

use crate::PyramidError;
use rayon::prelude::*;

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
    degree: Vec<f64>,
    /// Sum of all degrees: twice the total edge weight.
    m2: f64,
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

    /// The graph whose nodes are the `k` communities of `part`: weights between communities are
    /// summed, weights inside one become its self-loop. Built community by community, without
    /// an intermediate edge list.
    fn aggregate(&self, part: &[u32], k: usize) -> Result<WGraph, PyramidError>
    where
        Self: Sized,
    {
        let n = self.node_count();
        let mut start = vec![0usize; k + 1];
        for &c in &part[..n] {
            start[c as usize + 1] += 1;
        }
        for c in 0..k {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; n];
        for (i, &c) in part[..n].iter().enumerate() {
            members[fill[c as usize]] = i as u32;
            fill[c as usize] += 1;
        }
        drop(fill);
        // Communities are summed in tasks of whole communities on rayon's threads, a window of
        // tasks at a time whose rows wait to be appended in order (about an eighth of the
        // result): the graph is the same on any number of threads.
        let threads = rayon::current_num_threads().max(1);
        let per_task = (n / (threads * 16)).max(1 << 12);
        let mut tasks = Vec::new();
        let mut from = 0;
        for c in 0..k {
            if start[c + 1] - start[from] >= per_task || c + 1 == k {
                tasks.push(from..c + 1);
                from = c + 1;
            }
        }
        let mut b = CsrBuilder::with_capacity(k, 0);
        for window in tasks.chunks(threads * 2) {
            let sums: Vec<Result<Rows, PyramidError>> = window
                .par_iter()
                .map_init(RowTable::new, |table, cs| {
                    sum_rows(self, part, &members, &start, cs.clone(), table)
                })
                .collect();
            for rows in sums {
                let rows = rows?;
                let mut from = 0;
                for (&loop_w, &end) in rows.loops.iter().zip(&rows.ends) {
                    b.push_node(loop_w, &rows.links[from..end]);
                    from = end;
                }
            }
        }
        b.finish()
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

/// The modularity of every level of a nested hierarchy at resolution `gamma`, in one pass over
/// `g`: `part0[i]` is node `i`'s community at level 0, `parents[l][c]` the community at level
/// `l + 1` of community `c` at level `l`, `counts[l]` the communities of level `l` (all used).
/// A link joins one community at the lowest level where its ends' ancestors meet, and the
/// higher levels sum their children, so each link is looked up once instead of once a level.
/// Equal bit for bit to [`Graph::modularity`] of each level's node partition: the weights are
/// integers, so their `f64` sums are exact in any order, and the last sum runs in community order.
pub(crate) fn hierarchy_modularity<G: Graph>(
    g: &G,
    part0: &[u32],
    parents: &[Vec<u32>],
    counts: &[usize],
    gamma: f64,
) -> Vec<f64> {
    let levels = counts.len();
    let m2 = g.m2();
    if m2 <= 0.0 {
        return vec![0.0; levels];
    }
    // Per level: links that first fall inside a community there, and (level 0) degrees.
    let sums = |range: std::ops::Range<usize>| {
        let mut joined: Vec<Vec<f64>> = counts.iter().map(|&k| vec![0.0; k]).collect();
        let mut tot = vec![0.0; counts.first().copied().unwrap_or(0)];
        for i in range {
            let ci = part0[i];
            tot[ci as usize] += g.degree(i);
            joined[0][ci as usize] += g.loop_weight(i);
            for (j, w) in g.neighbors(i) {
                if j <= i {
                    continue;
                }
                let (mut a, mut b) = (ci, part0[j]);
                let mut l = 0;
                while a != b && l + 1 < levels {
                    a = parents[l][a as usize];
                    b = parents[l][b as usize];
                    l += 1;
                }
                if a == b {
                    joined[l][a as usize] += w;
                }
            }
        }
        (joined, tot)
    };
    let add = |(mut ja, mut ta): (Vec<Vec<f64>>, Vec<f64>), (jb, tb): (Vec<Vec<f64>>, Vec<f64>)| {
        for (x, y) in ja.iter_mut().zip(&jb) {
            for (u, v) in x.iter_mut().zip(y) {
                *u += v;
            }
        }
        for (u, v) in ta.iter_mut().zip(&tb) {
            *u += v;
        }
        (ja, ta)
    };
    let n = g.node_count();
    let chunk = n.div_ceil(rayon::current_num_threads().max(1)).max(1 << 16);
    let (joined, tot0) = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| sums(c * chunk..((c + 1) * chunk).min(n)))
        .reduce(|| sums(0..0), add);
    let mut out = Vec::with_capacity(levels);
    let (mut internal, mut tot) = (joined[0].clone(), tot0);
    for l in 0..levels {
        if l > 0 {
            let (mut up_int, mut up_tot) = (joined[l].clone(), vec![0.0; counts[l]]);
            for (c, &p) in parents[l - 1].iter().enumerate() {
                up_int[p as usize] += internal[c];
                up_tot[p as usize] += tot[c];
            }
            (internal, tot) = (up_int, up_tot);
        }
        out.push(
            (0..counts[l])
                .map(|c| 2.0 * internal[c] / m2 - gamma * (tot[c] / m2) * (tot[c] / m2))
                .sum(),
        );
    }
    out
}

/// Some communities' rows of an aggregated graph: each one's self-loop weight, and its links to
/// the other communities (increasing, weights summed) end to end in `links`.
struct Rows {
    loops: Vec<u64>,
    /// End of each community's links in `links`.
    ends: Vec<usize>,
    links: Vec<(u32, u32)>,
}

/// The rows of communities `cs` for [`Graph::aggregate`], summed in `table` (its `f64` sums of
/// integer weights are exact).
fn sum_rows<G: Graph>(
    g: &G,
    part: &[u32],
    members: &[u32],
    start: &[usize],
    cs: std::ops::Range<usize>,
    table: &mut RowTable,
) -> Result<Rows, PyramidError> {
    let mut rows = Rows {
        loops: Vec::with_capacity(cs.len()),
        ends: Vec::with_capacity(cs.len()),
        links: Vec::new(),
    };
    // On a graph whose arrays outgrow the cache, a community's members lie anywhere: each
    // member's row start, row and neighbours' communities are asked for a few members ahead,
    // in that order (level 0 of the 100 M-triple graph: 1.8 → 1.3 s).
    let prefetch = g.node_count() > INDEXED_NODES;
    let a = AGG_AHEAD;
    for c in cs {
        let mut loop_w = 0u64;
        table.size_for(0);
        for x in start[c]..start[c + 1] {
            if prefetch {
                if let Some(&f) = members.get(x + 3 * a) {
                    g.prefetch_offset(f as usize);
                }
                if let Some(&f) = members.get(x + 2 * a) {
                    g.prefetch_row(f as usize);
                }
                if let Some(&f) = members.get(x + a) {
                    g.prefetch_communities(f as usize, part);
                }
            }
            let i = members[x] as usize;
            loop_w += g.loop_weight(i) as u64;
            for (j, w) in g.neighbors(i) {
                let cj = part[j];
                if cj as usize == c {
                    if j > i {
                        loop_w += w as u64;
                    }
                } else {
                    table.add(cj, w);
                }
            }
        }
        // Each entry keeps its slot: the table still clears after the sort.
        table.entries.sort_unstable_by_key(|e| e.0);
        for &(cj, w, _) in &table.entries {
            rows.links.push((cj, weight(w as u64)?));
        }
        table.clear();
        rows.loops.push(loop_w);
        rows.ends.push(rows.links.len());
    }
    Ok(rows)
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

/// Members between the stages of aggregation's requests to memory (see [`sum_rows`]).
const AGG_AHEAD: usize = 2;
/// Active nodes between the stages of local moving's requests to memory (see [`Ahead`]).
const STAGE: usize = 3;

/// Below this modularity gain a local-moving phase stops (networkx uses the same threshold).
pub(crate) const THRESHOLD: f64 = 1e-7;
/// Upper bound on local-moving sweeps of one pass (a safeguard; convergence comes much earlier).
pub(crate) const MAX_SWEEPS: usize = 200;

/// A `u32` weight, or an error when a sum of triple counts outgrows it.
fn weight(w: u64) -> Result<u32, PyramidError> {
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

/// Renumbers community labels `0..k` in order of first appearance; returns `k`.
pub(crate) fn relabel(part: &mut [u32]) -> usize {
    renumber(part).0
}

/// [`relabel`]; whether every label stayed as it was.
fn relabel_same(part: &mut [u32]) -> bool {
    renumber(part).1
}

/// Renumbers labels in order of first appearance: how many, and whether none changed.
fn renumber(part: &mut [u32]) -> (usize, bool) {
    let mut map = vec![u32::MAX; part.len()];
    let mut next = 0u32;
    let mut same = true;
    for c in part.iter_mut() {
        let slot = &mut map[*c as usize];
        if *slot == u32::MAX {
            *slot = next;
            next += 1;
        }
        same &= *c == *slot;
        *c = *slot;
    }
    (next as usize, same)
}

/// Distinct neighbouring communities kept in [`Mover`]'s short list before it switches to its
/// table.
const SHORT_LIST: usize = 16;

/// A free slot of [`RowTable`].
const FREE: u32 = u32::MAX;

/// Graphs of at most this many nodes index [`RowTable`]'s entries by community (4 bytes a
/// node: 256 KiB, within a core's L2 cache).
const INDEXED_NODES: usize = 1 << 16;

/// The weights from one node to its neighbouring communities once they outgrow the short list:
/// an open-addressing table sized to the node's row over a list in order of first appearance.
/// It stays in cache, where arrays indexed by community cost a miss per entry once the graph's
/// arrays outgrow the cache: on level 1 of the 100 M-triple social graph (775 k nodes) the
/// sweeps took 13.5 s with those arrays, 9.1 s with this table.
struct RowTable {
    /// `(community, position in entries)`, `FREE` when empty; a power of two long.
    slots: Vec<(u32, u32)>,
    /// Instead of the slots, on a graph of at most [`INDEXED_NODES`] nodes: position in
    /// entries plus one by community, 0 when absent. On the small dense graphs near the top
    /// (10 k nodes with rows of 1,000 at 100 M triples) it fits the core's cache, and a row costs
    /// no hashing or probing.
    index: Vec<u32>,
    /// `(community, weight, slot)`, in order of first appearance.
    entries: Vec<(u32, f64, u32)>,
    /// `32 - log2(slots.len())`: the hash keeps the top bits.
    shift: u32,
}

impl RowTable {
    const MIN_SLOTS: usize = 4 * SHORT_LIST;

    fn new() -> Self {
        Self {
            slots: vec![(FREE, 0); Self::MIN_SLOTS],
            index: Vec::new(),
            entries: Vec::new(),
            shift: 32 - Self::MIN_SLOTS.trailing_zeros(),
        }
    }

    /// A table for communities `0..n` kept in an index by community.
    fn indexed(n: usize) -> Self {
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
    fn add(&mut self, c: u32, w: f64) {
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
    fn get(&self, c: u32) -> f64 {
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
    fn size_for(&mut self, len: usize) {
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
    fn clear(&mut self) {
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

/// Scratch of local moving: the weight from the node being moved to each neighbouring
/// community, in order of first appearance. Most nodes touch a few communities: those sit in a
/// short list; a node with more switches to a [`RowTable`]. Both sum each community's weights in
/// neighbour order and list communities in order of first appearance, so the partition does not
/// depend on which one served a node.
pub(crate) struct Mover {
    gamma: f64,
    m2: f64,
    /// Distinct communities the short list takes ([`SHORT_LIST`]; 0 in tests: table only).
    short_cap: usize,
    short: Vec<(u32, f64)>,
    table: RowTable,
    /// The node's neighbours as `(community, weight)`.
    row: Vec<(u32, f64)>,
}

impl Mover {
    /// Scratch at resolution `gamma` on a graph of degree sum `m2`.
    pub(crate) fn new(gamma: f64, m2: f64) -> Self {
        Self {
            gamma,
            m2,
            short_cap: SHORT_LIST,
            short: Vec::with_capacity(SHORT_LIST),
            table: RowTable::new(),
            row: Vec::new(),
        }
    }

    /// Moves node `i` (degree `ki`) to the neighbouring community with the best modularity gain,
    /// updating `comm` and `tot`; returns the gain over staying (0 when it stays).
    pub(crate) fn step(
        &mut self,
        i: usize,
        ki: f64,
        neighbors: impl Iterator<Item = (usize, f64)>,
        comm: &mut [u32],
        tot: &mut [f64],
    ) -> Option<f64> {
        let (gamma, m2) = (self.gamma, self.m2);
        let ci = comm[i] as usize;
        self.short.clear();
        let mut big = false;
        // The neighbours' communities first, in a loop of independent loads: on a graph whose
        // arrays outgrow the cache their misses then overlap, where the summing below waited
        // for each (level 1 of the 100 M-triple graph: 9.1 → 6.3 s).
        self.row.clear();
        self.row.extend(neighbors.map(|(j, w)| (comm[j], w)));
        // The candidates' degree sums are read once the weights are summed: asked for now,
        // unless the graph is small enough for its arrays to stay in cache (its table is then
        // indexed by community).
        if self.table.index.is_empty() {
            for &(c, _) in &self.row {
                prefetch_index::prefetch_index(&*tot, c as usize);
            }
        }
        let row_len = self.row.len();
        for k in 0..row_len {
            let (cj, w) = self.row[k];
            if !big {
                // Repeated neighbours are adjacent: the last entry first.
                if let Some(e) = self.short.iter_mut().rev().find(|e| e.0 == cj) {
                    e.1 += w;
                    continue;
                }
                if self.short.len() < self.short_cap {
                    self.short.push((cj, w));
                    continue;
                }
                big = true;
                self.table.size_for(row_len);
                for &(c, sw) in &self.short {
                    self.table.add(c, sw);
                }
            }
            self.table.add(cj, w);
        }
        tot[ci] -= ki;
        let to_ci = if big {
            self.table.get(ci as u32)
        } else {
            self.short
                .iter()
                .find(|e| e.0 as usize == ci)
                .map_or(0.0, |e| e.1)
        };
        let stay = to_ci - gamma * tot[ci] * ki / m2;
        let (mut best, mut best_gain) = (ci, stay);
        let mut consider = |c: usize, w: f64| {
            let gain = w - gamma * tot[c] * ki / m2;
            // Strictly better only, with a relative tolerance against rounding ping-pong.
            if gain > best_gain + 1e-12 * ki.max(1.0) {
                best = c;
                best_gain = gain;
            }
        };
        if big {
            for &(c, w, _) in &self.table.entries {
                consider(c as usize, w);
            }
            self.table.clear();
        } else {
            for &(c, w) in &self.short {
                consider(c as usize, w);
            }
        }
        tot[best] += ki;
        (best != ci).then(|| {
            comm[i] = best as u32;
            best_gain - stay
        })
    }
}

/// The state of one local-moving phase: nodes move, in index order, to the neighbouring
/// community with the best modularity gain until a sweep gains less than [`THRESHOLD`]. Shared by
/// the in-memory phase and the streamed one ([`crate::stream`]), which therefore find the same
/// partition.
pub(crate) struct LocalMoving {
    pub(crate) comm: Vec<u32>,
    tot: Vec<f64>,
    mover: Mover,
    /// A node is revisited only after a neighbour moved (the usual "fast local move" pruning):
    /// late sweeps then cost a few nodes instead of the whole graph.
    active: Flags,
    m2: f64,
    moves: usize,
    gain_sum: f64,
    /// Sweeps ended so far.
    pub(crate) sweeps: usize,
    /// Whether any node moved.
    pub(crate) moved_any: bool,
}

impl LocalMoving {
    /// Starts from `comm` on a graph with these node degrees and degree sum `m2`.
    pub(crate) fn new(
        comm: Vec<u32>,
        degree: impl Iterator<Item = f64>,
        gamma: f64,
        m2: f64,
    ) -> Self {
        let n = comm.len();
        let mut tot = vec![0.0; n];
        for (i, d) in degree.enumerate() {
            tot[comm[i] as usize] += d;
        }
        let mut mover = Mover::new(gamma, m2);
        if n <= INDEXED_NODES {
            mover.table = RowTable::indexed(n);
        }
        Self {
            comm,
            tot,
            mover,
            active: Flags::all(n),
            m2,
            moves: 0,
            gain_sum: 0.0,
            sweeps: 0,
            moved_any: false,
        }
    }

    /// Whether `i` is visited in this sweep.
    pub(crate) fn is_active(&self, i: usize) -> bool {
        self.active.get(i)
    }

    /// The first active node from `from` on.
    fn next_active(&self, from: usize) -> Option<usize> {
        self.active.next(from)
    }

    /// Visits node `i` (degree `ki`) if it is active: moves it, and wakes its neighbours when it
    /// moved.
    pub(crate) fn visit<I>(&mut self, i: usize, ki: f64, neighbors: I)
    where
        I: Iterator<Item = (usize, f64)> + Clone,
    {
        if !self.active.get(i) {
            return;
        }
        self.active.set(i, false);
        let moved = self
            .mover
            .step(i, ki, neighbors.clone(), &mut self.comm, &mut self.tot);
        if let Some(gain) = moved {
            self.moves += 1;
            self.gain_sum += gain / (self.m2 / 2.0);
            // Only neighbours outside the community `i` joined are woken (the pruning of Ozaki
            // et al., as in Leiden's fast local move): one inside it has one more reason to
            // stay. On the entity graph it spares a fifth of the visits; on long aggregated rows,
            // waking them all sent waves of visits through the late sweeps.
            let to = self.comm[i];
            for (j, _) in neighbors {
                if self.comm[j] != to {
                    self.active.set(j, true);
                }
            }
        }
    }

    /// Ends a sweep; returns whether local moving has converged.
    pub(crate) fn end_sweep(&mut self) -> bool {
        self.sweeps += 1;
        if self.moves > 0 {
            self.moved_any = true;
        }
        let done = self.moves == 0 || self.gain_sum < THRESHOLD || self.sweeps >= MAX_SWEEPS;
        self.moves = 0;
        self.gain_sum = 0.0;
        done
    }
}

/// One flag a node, a bit each: at 12.7 M nodes (100 M triples) they take 1.6 MB, which the cache
/// holds, where a byte each (12.7 MB) made waking a moved node's neighbours write at random
/// beyond it. Late sweeps wake a few hundred nodes of millions: [`Flags::next`] skips 64 at a
/// time.
struct Flags {
    words: Vec<u64>,
    n: usize,
}

impl Flags {
    /// `n` flags, all set.
    fn all(n: usize) -> Self {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if n % 64 != 0 {
            if let Some(last) = words.last_mut() {
                *last = (1u64 << (n % 64)) - 1;
            }
        }
        Self { words, n }
    }

    fn get(&self, i: usize) -> bool {
        (self.words[i >> 6] >> (i & 63)) & 1 == 1
    }

    fn set(&mut self, i: usize, on: bool) {
        debug_assert!(i < self.n);
        let (w, bit) = (&mut self.words[i >> 6], 1u64 << (i & 63));
        if on {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }

    /// The first set flag from `from` on.
    fn next(&self, from: usize) -> Option<usize> {
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
struct Ahead {
    queue: std::collections::VecDeque<usize>,
    /// The flags were scanned to the end in this sweep: not again for every late visit.
    at_end: bool,
}

impl Ahead {
    /// Forgets the queue for a new sweep.
    fn restart(&mut self) {
        self.queue.clear();
        self.at_end = false;
    }

    /// Before visiting `i`: queues the next active nodes and sends each stage's requests.
    fn advance<G: Graph>(&mut self, i: usize, lm: &LocalMoving, g: &G) {
        while self.queue.front().is_some_and(|&x| x <= i) {
            self.queue.pop_front();
        }
        while self.queue.len() < 4 * STAGE && !self.at_end {
            let from = self.queue.back().map_or(i + 1, |&b| b + 1);
            match lm.next_active(from) {
                Some(x) => self.queue.push_back(x),
                None => self.at_end = true,
            }
        }
        if let Some(&x) = self.queue.get(STAGE - 1) {
            g.prefetch_community_degrees(x, &lm.comm, &lm.tot);
        }
        if let Some(&x) = self.queue.get(2 * STAGE - 1) {
            g.prefetch_communities(x, &lm.comm);
        }
        if let Some(&x) = self.queue.get(3 * STAGE - 1) {
            g.prefetch_row(x);
        }
        if let Some(&x) = self.queue.get(4 * STAGE - 1) {
            g.prefetch_offset(x);
        }
    }
}

/// One local-moving phase on `g` from `comm`; returns whether any node moved.
fn local_moving<G: Graph>(g: &G, gamma: f64, comm: &mut Vec<u32>) -> bool {
    // A small graph's arrays stay in cache: asking for them ahead would only cost a pass over
    // each row.
    let prefetch = g.node_count() > INDEXED_NODES;
    local_moving_with(g, gamma, comm, SHORT_LIST, true, prefetch)
}

/// [`local_moving`] with `short_cap` communities in the mover's short list, its table indexed
/// by community on small graphs if `indexed`, and the next nodes' data asked for ahead if
/// `prefetch` (see [`Ahead`]).
fn local_moving_with<G: Graph>(
    g: &G,
    gamma: f64,
    comm: &mut Vec<u32>,
    short_cap: usize,
    indexed: bool,
    prefetch: bool,
) -> bool {
    let n = g.node_count();
    if g.m2() <= 0.0 {
        return false;
    }
    let mut lm = LocalMoving::new(
        std::mem::take(comm),
        (0..n).map(|i| g.degree(i)),
        gamma,
        g.m2(),
    );
    lm.mover.short_cap = short_cap;
    if !indexed {
        lm.mover.table = RowTable::new();
    }
    let mut ahead = Ahead::default();
    loop {
        ahead.restart();
        let mut next = lm.next_active(0);
        while let Some(i) = next {
            // What the next nodes read is asked for while this one moves: once the arrays
            // outgrow the cache (12.7 M nodes at 100 M triples, against 1.3 M at 10 M), each of
            // those reads would otherwise wait for memory.
            if prefetch {
                ahead.advance(i, &lm, g);
            }
            lm.visit(i, g.degree(i), g.neighbors(i));
            next = lm.next_active(i + 1);
        }
        if lm.end_sweep() {
            break;
        }
    }
    *comm = lm.comm;
    lm.moved_any
}

/// The Louvain method at resolution `gamma`: local moving, aggregation, repeated until a pass
/// moves no node. With `stop_at`, stops after the first pass that leaves at most that many
/// communities. Returns the partition of `g`'s nodes (labels `0..k`) and `k`.
#[cfg(test)]
pub(crate) fn louvain<G: Graph>(
    g: &G,
    gamma: f64,
    stop_at: Option<usize>,
) -> Result<(Vec<u32>, usize), PyramidError> {
    louvain_keep(g, gamma, stop_at, 0).map(|l| (l.part, l.k))
}

/// What [`louvain_keep`] found: the partition and, when its last pass left it, the graph of its
/// communities.
pub(crate) struct Found {
    /// Node → community, labels `0..k` in order of first appearance.
    pub(crate) part: Vec<u32>,
    pub(crate) k: usize,
    /// `g.aggregate(&part, k)`, when Louvain ended on that graph (its last pass moved no node):
    /// a caller that needs it does not sum the whole graph again (at 100 M triples, 1.7 s over
    /// 61 M entries).
    pub(crate) graph: Option<WGraph>,
}

/// [`louvain`], keeping the graph of the communities found when the last pass ran on it. A pass
/// after the first that would leave fewer than `floor` communities ends Louvain, and is taken
/// only if its mean community size is nearer the bound, in ratio, than the one before it (0: no
/// floor).
pub(crate) fn louvain_keep<G: Graph>(
    g: &G,
    gamma: f64,
    stop_at: Option<usize>,
    floor: usize,
) -> Result<Found, PyramidError> {
    let n = g.node_count();
    let mut comm: Vec<u32> = (0..n as u32).collect();
    if !local_moving(g, gamma, &mut comm) {
        return Ok(Found {
            part: comm,
            k: n,
            graph: None,
        });
    }
    let mut part = comm;
    let k = relabel(&mut part);
    if k >= n || stop_at.is_some_and(|t| k <= t) {
        return Ok(Found {
            part,
            k,
            graph: None,
        });
    }
    let agg = g.aggregate(&part, k)?;
    let (part, k, last) = louvain_rest_keep(&agg, part, k, gamma, stop_at, floor)?;
    let graph = match last {
        Last::First => Some(agg),
        Last::Owned(g) => Some(g),
        Last::None => None,
    };
    Ok(Found { part, k, graph })
}

/// Louvain's later passes from `first`, the graph of the `k` communities of `part` found by a
/// first pass that made progress; `floor` as in [`louvain_keep`].
pub(crate) fn louvain_rest(
    first: &WGraph,
    part: Vec<u32>,
    k: usize,
    gamma: f64,
    stop_at: Option<usize>,
    floor: usize,
) -> Result<(Vec<u32>, usize), PyramidError> {
    louvain_rest_keep(first, part, k, gamma, stop_at, floor).map(|(p, k, _)| (p, k))
}

/// Which graph the final partition's communities are the nodes of, if any.
enum Last {
    First,
    Owned(WGraph),
    None,
}

/// [`louvain_rest`], telling which graph, if any, has the final communities as its nodes.
fn louvain_rest_keep(
    first: &WGraph,
    mut part: Vec<u32>,
    mut k: usize,
    gamma: f64,
    stop_at: Option<usize>,
    floor: usize,
) -> Result<(Vec<u32>, usize, Last), PyramidError> {
    let mut owned: Option<WGraph> = None;
    // Whether the last graph's nodes are `part`'s labels: not once a pass moved nodes without
    // its communities being summed into a graph.
    let mut on_graph = true;
    loop {
        let cur = owned.as_ref().unwrap_or(first);
        let mut comm: Vec<u32> = (0..cur.node_count() as u32).collect();
        if !local_moving(cur, gamma, &mut comm) {
            break;
        }
        let nk = relabel(&mut comm);
        if nk < floor {
            // The pass jumps below the floor. Of the two partitions either side of it keep the
            // one whose mean community size is nearer the bound in ratio (`floor / nk` against
            // `k / floor`): refusing it outright left LUBM's level 0 at its first pass, 96 times
            // finer than the bound. Either way Louvain stops here.
            if (floor as u128).pow(2) < k as u128 * nk as u128 {
                for p in part.iter_mut() {
                    *p = comm[*p as usize];
                }
                k = nk;
                on_graph = false;
            } // else `part` stays the communities of `cur`'s nodes.
            break;
        }
        for p in part.iter_mut() {
            *p = comm[*p as usize];
        }
        let progressed = nk < k;
        k = nk;
        if !progressed || stop_at.is_some_and(|t| k <= t) {
            on_graph = false;
            break;
        }
        owned = Some(cur.aggregate(&comm, k)?);
    }
    // Every pass numbers communities in order of first appearance, so this changes nothing when
    // the passes started from such labels; the graph is kept only if so.
    let same = relabel_same(&mut part);
    let last = match owned {
        _ if !on_graph || !same => Last::None,
        Some(g) => Last::Owned(g),
        None => Last::First,
    };
    Ok((part, k, last))
}

/// Deterministic agglomeration down to at most `target` communities, for when Louvain stops
/// merging before the top is small enough. Each round every node proposes the neighbour with the
/// best modularity gain `w_ij - gamma * k_i * k_j / 2m` (often negative: the merge is forced);
/// nodes without any neighbour propose pairing with the next such node (gain 0). Proposals are
/// taken best first as a matching, then the graph is aggregated and the next round starts.
pub(crate) fn forced_merge(
    g: &WGraph,
    gamma: f64,
    target: usize,
) -> Result<(Vec<u32>, usize), PyramidError> {
    let target = target.max(1);
    let mut part: Vec<u32> = (0..g.node_count() as u32).collect();
    let mut k = g.node_count();
    let mut owned: Option<WGraph> = None;
    while k > target {
        let cur = owned.as_ref().unwrap_or(g);
        let n = cur.node_count();
        let m2 = cur.m2.max(1.0);
        let mut proposals: Vec<(f64, u32, u32)> = Vec::new();
        let mut lonely: Vec<u32> = Vec::new();
        for i in 0..n {
            let ki = cur.degree[i];
            let mut best: Option<(f64, usize)> = None;
            for (j, w) in cur.neighbors(i) {
                let s = w - gamma * ki * cur.degree[j] / m2;
                if best.is_none_or(|(bs, _)| s > bs) {
                    best = Some((s, j));
                }
            }
            match best {
                Some((s, j)) => proposals.push((s, i.min(j) as u32, i.max(j) as u32)),
                None => lonely.push(i as u32),
            }
        }
        for pair in lonely.chunks_exact(2) {
            proposals.push((0.0, pair[0], pair[1]));
        }
        proposals.sort_unstable_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| (a.1, a.2).cmp(&(b.1, b.2)))
        });
        proposals.dedup_by(|a, b| a.1 == b.1 && a.2 == b.2);
        let needed = k - target;
        let mut matched = vec![false; n];
        let mut comm: Vec<u32> = (0..n as u32).collect();
        let mut merges = 0;
        for &(_, a, b) in &proposals {
            if merges == needed {
                break;
            }
            if !matched[a as usize] && !matched[b as usize] {
                matched[a as usize] = true;
                matched[b as usize] = true;
                comm[b as usize] = a;
                merges += 1;
            }
        }
        if merges == 0 {
            // Only possible with a single node left; nothing more to merge.
            break;
        }
        let nk = relabel(&mut comm);
        for p in part.iter_mut() {
            *p = comm[*p as usize];
        }
        k = nk;
        if k > target {
            owned = Some(cur.aggregate(&comm, k)?);
        }
    }
    relabel(&mut part);
    Ok((part, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cliques` cliques of `size` nodes, consecutive cliques joined by one edge (a ring).
    fn ring_of_cliques(cliques: u32, size: u32) -> WGraph {
        let mut edges = Vec::new();
        for c in 0..cliques {
            let base = c * size;
            for a in 0..size {
                for b in a + 1..size {
                    edges.push((base + a, base + b, 1.0));
                }
            }
            let next = ((c + 1) % cliques) * size;
            edges.push((base, next + 1, 1.0));
        }
        WGraph::from_edges((cliques * size) as usize, &edges).unwrap()
    }

    #[test]
    fn finds_cliques() {
        let g = ring_of_cliques(12, 6);
        let (part, k) = louvain(&g, 1.0, None).unwrap();
        assert_eq!(k, 12);
        for c in 0..12 {
            let base = (c * 6) as usize;
            assert!(part[base..base + 6].iter().all(|&x| x == part[base]));
        }
        let q = g.modularity(&part, 1.0);
        assert!(q > 0.8, "modularity {q}");
    }

    #[test]
    fn two_triangles_known_modularity() {
        // Two triangles joined by one edge: the optimum splits them, Q = 5/14.
        let edges = [
            (0, 1, 1.0),
            (1, 2, 1.0),
            (0, 2, 1.0),
            (3, 4, 1.0),
            (4, 5, 1.0),
            (3, 5, 1.0),
            (2, 3, 1.0),
        ];
        let g = WGraph::from_edges(6, &edges).unwrap();
        let (part, k) = louvain(&g, 1.0, None).unwrap();
        assert_eq!(k, 2);
        assert_eq!(part, vec![0, 0, 0, 1, 1, 1]);
        assert!((g.modularity(&part, 1.0) - 5.0 / 14.0).abs() < 1e-12);
    }

    #[test]
    fn deterministic() {
        let g = ring_of_cliques(30, 5);
        let a = louvain(&g, 1.0, None).unwrap();
        let b = louvain(&g.clone(), 1.0, None).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn short_list_and_table_agree() {
        // Hubs linked to many communities take the table, the other nodes the short list; with
        // the short list off every node takes the table: the same partition.
        let mut edges = Vec::new();
        let mut x = 12345u64;
        let mut next = |m: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % u64::from(m)) as u32
        };
        let n = 600u32;
        for _ in 0..3000 {
            let (a, b) = (next(n), next(n));
            if a != b {
                edges.push((a, b, f64::from(1 + next(3))));
            }
        }
        for hub in 0..6u32 {
            for k in 0..80u32 {
                edges.push((hub, 6 + (hub * 97 + k * 7) % (n - 6), 1.0));
            }
        }
        let g = WGraph::from_edges(n as usize, &edges).unwrap();
        for gamma in [0.5, 1.0, 2.0] {
            let mut a: Vec<u32> = (0..n).collect();
            let mut b = a.clone();
            let moved_a = local_moving_with(&g, gamma, &mut a, SHORT_LIST, true, false);
            let moved_b = local_moving_with(&g, gamma, &mut b, 0, true, false);
            assert!(moved_a && moved_b);
            assert_eq!(a, b, "gamma {gamma}");
            // The table hashed instead of indexed by community: the same partition.
            for short in [SHORT_LIST, 0] {
                let mut c: Vec<u32> = (0..g.node_count() as u32).collect();
                assert!(local_moving_with(&g, gamma, &mut c, short, false, false));
                assert_eq!(a, c, "gamma {gamma}, hashed, short list {short}");
            }
        }
    }

    #[test]
    fn row_table_sums_in_order_of_first_appearance() {
        let mut t = RowTable::new();
        for round in 0..3u32 {
            // Enough communities to grow the table several times, each seen three times.
            let n = 40 + 300 * round;
            // Sized for fewer than it gets: it grows.
            t.size_for(n as usize / 4);
            for k in 0..3 * n {
                t.add((k % n) * 7919 + round, f64::from(k % 5 + 1));
            }
            assert_eq!(t.entries.len(), n as usize);
            for (e, &(c, w, _)) in t.entries.iter().enumerate() {
                assert_eq!(c, e as u32 * 7919 + round);
                let expect: u32 = (0..3).map(|r| (r * n + e as u32) % 5 + 1).sum();
                assert_eq!(w, f64::from(expect));
                assert_eq!(t.get(c), w);
            }
            assert_eq!(t.get(5), 0.0);
            t.clear();
            assert!(t.entries.is_empty() && t.slots.iter().all(|s| s.0 == FREE));
        }
    }

    #[test]
    fn hierarchy_modularity_is_each_levels_modularity_bit_for_bit() {
        // Cliques of uneven sizes with links between them, a self-loop, and three levels.
        let mut edges = Vec::new();
        for c in 0..24u32 {
            let size = 3 + c % 4;
            let base = c * 8;
            for a in 0..size {
                for b in a + 1..size {
                    edges.push((base + a, base + b, 1.0));
                }
            }
            edges.push((base, ((c * 5 + 3) % 24) * 8 + 1, 1.0));
            edges.push((base + 1, ((c * 7 + 2) % 24) * 8 + 2, 2.0));
        }
        edges.push((5, 5, 3.0));
        let g = WGraph::from_edges(24 * 8, &edges).unwrap();
        let (part0, k0) = louvain(&g, 1.0, None).unwrap();
        let parents = vec![
            (0..k0 as u32).map(|c| c / 2).collect::<Vec<_>>(),
            (0..k0.div_ceil(2) as u32)
                .map(|c| c % 3)
                .collect::<Vec<_>>(),
        ];
        let counts = vec![k0, k0.div_ceil(2), 3];
        let mut node_comm = vec![part0.clone()];
        for p in &parents {
            let last = node_comm.last().unwrap();
            node_comm.push(last.iter().map(|&c| p[c as usize]).collect());
        }
        for gamma in [1.0, 0.5] {
            let q = hierarchy_modularity(&g, &part0, &parents, &counts, gamma);
            let want: Vec<f64> = node_comm.iter().map(|p| g.modularity(p, gamma)).collect();
            assert_eq!(
                q.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "{q:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn aggregation_preserves_modularity() {
        let g = ring_of_cliques(8, 4);
        let (part, k) = louvain(&g, 1.0, None).unwrap();
        let h = g.aggregate(&part, k).unwrap();
        let ident: Vec<u32> = (0..k as u32).collect();
        assert!((g.modularity(&part, 1.0) - h.modularity(&ident, 1.0)).abs() < 1e-12);
        assert_eq!(g.m2, h.m2);
    }

    #[test]
    fn next_active_finds_what_a_plain_scan_finds() {
        // Flags sparse and dense, across and at the edges of the 64-flag words.
        let mut x = 99u64;
        for n in [0usize, 1, 63, 64, 65, 200, 1000] {
            // At the start every node is active, none beyond.
            let lm = LocalMoving::new(vec![0; n], std::iter::repeat_n(1.0, n), 1.0, 1.0);
            let mut all = Vec::new();
            let mut next = lm.next_active(0);
            while let Some(i) = next {
                all.push(i);
                next = lm.next_active(i + 1);
            }
            assert_eq!(all, (0..n).collect::<Vec<_>>(), "n {n}");
            for density in [0u64, 1, 10, 100] {
                let mut lm = LocalMoving::new(vec![0; n], std::iter::repeat_n(1.0, n), 1.0, 1.0);
                for i in 0..n {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    lm.active.set(i, x % 100 < density);
                }
                let plain: Vec<usize> = (0..n).filter(|&i| lm.is_active(i)).collect();
                let mut skipped = Vec::new();
                let mut next = lm.next_active(0);
                while let Some(i) = next {
                    skipped.push(i);
                    next = lm.next_active(i + 1);
                }
                assert_eq!(skipped, plain, "n {n}, density {density}");
            }
        }
    }

    /// A node's row (neighbours and weights), self-loop weight and degree.
    type Row = (Vec<(usize, f64)>, f64, f64);

    /// Rows, weights, self-loops and degrees of `g`, for comparing graphs.
    fn rows(g: &WGraph) -> Vec<Row> {
        (0..g.node_count())
            .map(|i| (g.neighbors(i).collect(), g.loop_weight(i), g.degree(i)))
            .collect()
    }

    #[test]
    fn kept_graph_is_the_aggregate_of_the_partition() {
        // Graphs whose Louvain ends on a summed graph, with and without a stop, on weighted
        // (aggregated) and unit inputs.
        let mut kept = 0;
        for (g, stop) in [
            (ring_of_cliques(30, 6), None),
            (ring_of_cliques(200, 5), None),
            (ring_of_cliques(200, 5), Some(20)),
            (ring_of_cliques(500, 4), Some(300)),
        ] {
            let f = louvain_keep(&g, 1.0, stop, 0).unwrap();
            assert_eq!(
                (f.part.clone(), f.k),
                louvain(&g, 1.0, stop).unwrap(),
                "the same partition as Louvain's"
            );
            if let Some(h) = f.graph {
                kept += 1;
                let fresh = g.aggregate(&f.part, f.k).unwrap();
                assert_eq!(rows(&h), rows(&fresh));
                assert_eq!(h.m2(), fresh.m2());
                // Summing a summed graph by the identity gives it back (the builder keeps it
                // instead when level 0 merged nothing more).
                let ident: Vec<u32> = (0..f.k as u32).collect();
                assert_eq!(rows(&h.aggregate(&ident, f.k).unwrap()), rows(&h));
            }
        }
        assert!(kept >= 2, "only {kept} runs kept their graph");
    }

    #[test]
    fn aggregation_is_the_same_on_any_number_of_threads() {
        // Enough nodes for several aggregation tasks and windows, and for the requests to
        // memory ahead of large graphs (`INDEXED_NODES`); communities of uneven sizes.
        let g = ring_of_cliques(14_000, 5);
        assert!(g.node_count() > INDEXED_NODES);
        let n = g.node_count();
        let part: Vec<u32> = (0..n as u32).map(|i| (i / 7) ^ (i % 3)).collect();
        let mut part = part;
        let k = relabel(&mut part);
        // The reference: every link summed in a map, self-loops inside a community.
        let mut sums = std::collections::BTreeMap::new();
        let mut loops = vec![0u64; k];
        for i in 0..n {
            loops[part[i] as usize] += g.loop_weight(i) as u64;
            for (j, w) in g.neighbors(i) {
                let (a, b) = (part[i], part[j]);
                if a == b {
                    if j > i {
                        loops[a as usize] += w as u64;
                    }
                } else {
                    *sums.entry((a, b)).or_insert(0u64) += w as u64;
                }
            }
        }
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| g.aggregate(&part, k).unwrap())
        };
        for threads in [1, 2, 5] {
            let h = on(threads);
            assert_eq!(h.node_count(), k);
            let got: Vec<((u32, u32), u64)> = (0..k)
                .flat_map(|c| {
                    h.neighbors(c)
                        .map(move |(d, w)| ((c as u32, d as u32), w as u64))
                })
                .collect();
            let want: Vec<((u32, u32), u64)> = sums.iter().map(|(&p, &w)| (p, w)).collect();
            assert_eq!(got, want, "{threads} threads");
            let got_loops: Vec<u64> = (0..k).map(|c| h.loop_weight(c) as u64).collect();
            assert_eq!(got_loops, loops, "{threads} threads");
            assert_eq!(h.m2, g.m2);
        }
    }

    #[test]
    fn asking_for_memory_ahead_changes_nothing() {
        // Large enough for the requests ahead (`INDEXED_NODES`), on a weighted graph and on the
        // unit graph of the same links; with fewer active nodes in the late sweeps than the
        // queue holds.
        let g = ring_of_cliques(14_000, 5);
        assert!(g.node_count() > INDEXED_NODES);
        let n = g.node_count();
        let mut off = vec![0u32];
        let mut nbr = Vec::new();
        for i in 0..n {
            for (j, w) in g.neighbors(i) {
                nbr.extend(std::iter::repeat_n(j as u32, w as usize));
            }
            off.push(nbr.len() as u32);
        }
        let u = UnitGraph::new(off, nbr, Vec::new()).unwrap();
        let run = |prefetch: bool, unit: bool| {
            let mut comm: Vec<u32> = (0..n as u32).collect();
            let moved = if unit {
                local_moving_with(&u, 1.0, &mut comm, SHORT_LIST, true, prefetch)
            } else {
                local_moving_with(&g, 1.0, &mut comm, SHORT_LIST, true, prefetch)
            };
            assert!(moved);
            comm
        };
        let plain = run(false, false);
        assert_eq!(run(true, false), plain);
        assert_eq!(run(true, true), plain);
        assert_eq!(run(false, true), plain);
    }

    /// [`rete_datagen::cliques`]: Louvain's first pass finds cliques, its second the groups, a
    /// jump like LUBM's.
    fn groups_of_cliques(groups: u32, cliques: u32) -> WGraph {
        let edges: Vec<(u32, u32, f64)> = rete_datagen::cliques::links(groups, cliques)
            .into_iter()
            .map(|(a, b)| (a, b, 1.0))
            .collect();
        WGraph::from_edges((groups * cliques * 4) as usize, &edges).unwrap()
    }

    #[test]
    fn a_pass_below_the_floor_is_taken_when_nearer_the_bound() {
        let g = groups_of_cliques(20, 10);
        // Louvain's first two passes by hand.
        let mut p1: Vec<u32> = (0..g.node_count() as u32).collect();
        assert!(local_moving(&g, 1.0, &mut p1));
        let c1 = relabel(&mut p1);
        let h = g.aggregate(&p1, c1).unwrap();
        let mut p2: Vec<u32> = (0..c1 as u32).collect();
        assert!(local_moving(&h, 1.0, &mut p2));
        let c2 = relabel(&mut p2);
        assert!(c1 >= 8 * c2, "passes {c1} → {c2}");
        let two: Vec<u32> = p1.iter().map(|&c| p2[c as usize]).collect();
        // A floor just above the second pass: its mean is nearer (c2 · floor < c1 · c2), so it
        // is level 0 and Louvain stops there.
        let f = louvain_keep(&g, 1.0, None, c2 + 1).unwrap();
        assert_eq!((f.k, &f.part), (c2, &two));
        assert!(f.graph.is_none(), "no graph summed for the pass taken");
        // A floor just under the first pass: the first pass is nearer.
        let f = louvain_keep(&g, 1.0, None, c1 - 1).unwrap();
        assert_eq!((f.k, &f.part), (c1, &p1));
        let agg = f.graph.expect("the first pass's graph");
        assert_eq!(rows(&agg), rows(&h));
        // Between them, the geometric mean decides.
        let mid = ((c1 * c2) as f64).sqrt();
        let below = louvain_keep(&g, 1.0, None, mid.floor() as usize - 1).unwrap();
        let above = louvain_keep(&g, 1.0, None, mid.ceil() as usize + 1).unwrap();
        assert_eq!((below.k, above.k), (c2, c1));
    }

    #[test]
    fn forced_merge_reaches_target() {
        let g = ring_of_cliques(40, 3);
        let (part, k) = louvain(&g, 1.0, None).unwrap();
        let h = g.aggregate(&part, k).unwrap();
        let (p2, k2) = forced_merge(&h, 1.0, 7).unwrap();
        assert!(k2 <= 7, "{k2}");
        assert_eq!(p2.len(), k);
        // Isolated nodes merge among themselves.
        let iso = WGraph::from_edges(10, &[]).unwrap();
        let (p3, k3) = forced_merge(&iso, 1.0, 3).unwrap();
        assert!(k3 <= 3);
        assert_eq!(p3.len(), 10);
    }

    #[test]
    fn empty_and_self_loops() {
        let g = WGraph::from_edges(0, &[]).unwrap();
        assert_eq!(louvain(&g, 1.0, None).unwrap(), (vec![], 0));
        let g = WGraph::from_edges(2, &[(0, 0, 3.0), (1, 1, 1.0)]).unwrap();
        let (part, k) = louvain(&g, 1.0, None).unwrap();
        assert_eq!(k, 2);
        assert!(g.modularity(&part, 1.0) > 0.0);
    }
}
