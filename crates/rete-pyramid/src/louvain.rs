//! Weighted undirected graphs (a compact CSR plus self-loop weights) and the Louvain method.
//!
//! Everything here is deterministic: nodes are visited in index order, ties keep the current
//! community or the lowest index, aggregation sorts its edges, and no hash map is iterated. Edge
//! weights are triple counts, so the sums stay exact integers in `f64`.

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
pub(crate) trait Graph {
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
        let mut acc = vec![0u64; k];
        let mut touched: Vec<u32> = Vec::new();
        let mut row: Vec<(u32, u32)> = Vec::new();
        let mut b = CsrBuilder::with_capacity(k, 0);
        for c in 0..k {
            let mut loop_w = 0u64;
            for &i in &members[start[c]..start[c + 1]] {
                let i = i as usize;
                loop_w += self.loop_weight(i) as u64;
                for (j, w) in self.neighbors(i) {
                    let cj = part[j] as usize;
                    if cj == c {
                        if j > i {
                            loop_w += w as u64;
                        }
                    } else {
                        if acc[cj] == 0 {
                            touched.push(cj as u32);
                        }
                        acc[cj] += w as u64;
                    }
                }
            }
            touched.sort_unstable();
            row.clear();
            for &cj in &touched {
                row.push((cj, weight(acc[cj as usize])?));
                acc[cj as usize] = 0;
            }
            touched.clear();
            b.push_node(loop_w, &row);
        }
        b.finish()
    }

    /// Modularity of `part` at resolution `gamma` (networkx's definition: self-loops count once
    /// as internal weight and twice in the degree).
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

    fn heap_bytes(&self) -> usize {
        self.off.len() * 8 + self.nbr.len() * 8 + self.loops.len() * 16
    }
}

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
    let mut map = vec![u32::MAX; part.len()];
    let mut next = 0u32;
    for c in part.iter_mut() {
        let slot = &mut map[*c as usize];
        if *slot == u32::MAX {
            *slot = next;
            next += 1;
        }
        *c = *slot;
    }
    next as usize
}

/// Distinct neighbouring communities kept in [`Mover`]'s short list before it switches to the
/// dense arrays.
const SHORT_LIST: usize = 16;

/// Scratch of local moving: the weight from the node being moved to each neighbouring
/// community, in order of first appearance. Most nodes touch a few communities: those sit in a
/// short list that stays in cache; a node with more switches to arrays indexed by community
/// (random accesses into arrays as long as the graph). Both sum each community's weights in
/// neighbour order, so the partition does not depend on which one served a node.
pub(crate) struct Mover {
    gamma: f64,
    m2: f64,
    /// Distinct communities the short list takes ([`SHORT_LIST`]; 0 in tests: dense only).
    short_cap: usize,
    short: Vec<(u32, f64)>,
    neigh_w: Vec<f64>,
    mark: Vec<bool>,
    touched: Vec<usize>,
}

impl Mover {
    /// Scratch for `communities` labels, at resolution `gamma` on a graph of degree sum `m2`.
    pub(crate) fn new(communities: usize, gamma: f64, m2: f64) -> Self {
        Self {
            gamma,
            m2,
            short_cap: SHORT_LIST,
            short: Vec::with_capacity(SHORT_LIST),
            neigh_w: vec![0.0; communities],
            mark: vec![false; communities],
            touched: Vec::new(),
        }
    }

    /// Adds `w` to community `c` in the dense arrays.
    fn add_dense(&mut self, c: usize, w: f64) {
        if !self.mark[c] {
            self.mark[c] = true;
            self.touched.push(c);
        }
        self.neigh_w[c] += w;
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
        let mut dense = false;
        for (j, w) in neighbors {
            let cj = comm[j];
            if !dense {
                // Repeated neighbours are adjacent: the last entry first.
                if let Some(e) = self.short.iter_mut().rev().find(|e| e.0 == cj) {
                    e.1 += w;
                    continue;
                }
                if self.short.len() < self.short_cap {
                    self.short.push((cj, w));
                    continue;
                }
                dense = true;
                for k in 0..self.short.len() {
                    let (c, sw) = self.short[k];
                    self.add_dense(c as usize, sw);
                }
            }
            self.add_dense(cj as usize, w);
        }
        tot[ci] -= ki;
        let to_ci = if dense {
            self.neigh_w[ci]
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
        if dense {
            for &c in &self.touched {
                consider(c, self.neigh_w[c]);
            }
            for &c in &self.touched {
                self.neigh_w[c] = 0.0;
                self.mark[c] = false;
            }
            self.touched.clear();
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
    active: Vec<bool>,
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
        Self {
            comm,
            tot,
            mover: Mover::new(n, gamma, m2),
            active: vec![true; n],
            m2,
            moves: 0,
            gain_sum: 0.0,
            sweeps: 0,
            moved_any: false,
        }
    }

    /// Whether `i` is visited in this sweep.
    pub(crate) fn is_active(&self, i: usize) -> bool {
        self.active[i]
    }

    /// Visits node `i` (degree `ki`) if it is active: moves it, and wakes its neighbours when it
    /// moved.
    pub(crate) fn visit<I>(&mut self, i: usize, ki: f64, neighbors: I)
    where
        I: Iterator<Item = (usize, f64)> + Clone,
    {
        if !self.active[i] {
            return;
        }
        self.active[i] = false;
        let moved = self
            .mover
            .step(i, ki, neighbors.clone(), &mut self.comm, &mut self.tot);
        if let Some(gain) = moved {
            self.moves += 1;
            self.gain_sum += gain / (self.m2 / 2.0);
            for (j, _) in neighbors {
                self.active[j] = true;
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

/// One local-moving phase on `g` from `comm`; returns whether any node moved.
fn local_moving<G: Graph>(g: &G, gamma: f64, comm: &mut Vec<u32>) -> bool {
    local_moving_with(g, gamma, comm, SHORT_LIST)
}

/// [`local_moving`] with `short_cap` communities in the mover's short list.
fn local_moving_with<G: Graph>(g: &G, gamma: f64, comm: &mut Vec<u32>, short_cap: usize) -> bool {
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
    loop {
        for i in 0..n {
            if lm.is_active(i) {
                lm.visit(i, g.degree(i), g.neighbors(i));
            }
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
pub(crate) fn louvain<G: Graph>(
    g: &G,
    gamma: f64,
    stop_at: Option<usize>,
) -> Result<(Vec<u32>, usize), PyramidError> {
    let n = g.node_count();
    let mut comm: Vec<u32> = (0..n as u32).collect();
    if !local_moving(g, gamma, &mut comm) {
        return Ok((comm, n));
    }
    let mut part = comm;
    let k = relabel(&mut part);
    louvain_from(g, part, k, n, gamma, stop_at)
}

/// Louvain after its first pass found `part` (labels `0..k`) on `g`'s `n` nodes: aggregates and
/// continues on the community graph, as [`louvain`] would.
pub(crate) fn louvain_from<G: Graph>(
    g: &G,
    mut part: Vec<u32>,
    k: usize,
    n: usize,
    gamma: f64,
    stop_at: Option<usize>,
) -> Result<(Vec<u32>, usize), PyramidError> {
    if k >= n || stop_at.is_some_and(|t| k <= t) {
        relabel(&mut part);
        return Ok((part, k));
    }
    let agg = g.aggregate(&part, k)?;
    louvain_rest(&agg, part, k, gamma, stop_at)
}

/// Louvain's later passes from `first`, the graph of the `k` communities of `part` found by a
/// first pass that made progress.
pub(crate) fn louvain_rest(
    first: &WGraph,
    mut part: Vec<u32>,
    mut k: usize,
    gamma: f64,
    stop_at: Option<usize>,
) -> Result<(Vec<u32>, usize), PyramidError> {
    let mut owned: Option<WGraph> = None;
    loop {
        let cur = owned.as_ref().unwrap_or(first);
        let mut comm: Vec<u32> = (0..cur.node_count() as u32).collect();
        if !local_moving(cur, gamma, &mut comm) {
            break;
        }
        let nk = relabel(&mut comm);
        for p in part.iter_mut() {
            *p = comm[*p as usize];
        }
        let progressed = nk < k;
        k = nk;
        if !progressed || stop_at.is_some_and(|t| k <= t) {
            break;
        }
        owned = Some(cur.aggregate(&comm, k)?);
    }
    relabel(&mut part);
    Ok((part, k))
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
    fn short_list_and_dense_arrays_agree() {
        // Hubs linked to many communities take the dense arrays, the other nodes the short
        // list; with the short list off every node takes the arrays: the same partition.
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
            let moved_a = local_moving_with(&g, gamma, &mut a, SHORT_LIST);
            let moved_b = local_moving_with(&g, gamma, &mut b, 0);
            assert!(moved_a && moved_b);
            assert_eq!(a, b, "gamma {gamma}");
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
