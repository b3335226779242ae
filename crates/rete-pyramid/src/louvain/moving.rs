//! Local moving: nodes move to the neighbouring community with the best modularity gain.

use super::active::{Ahead, Flags};
use super::table::{RowTable, INDEXED_NODES, SHORT_LIST};
use super::Graph;

/// Below this modularity gain a local-moving phase stops (networkx uses the same threshold).
pub(crate) const THRESHOLD: f64 = 1e-7;
/// Upper bound on local-moving sweeps of one pass (a safeguard; convergence comes much earlier).
pub(crate) const MAX_SWEEPS: usize = 200;

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
    pub(super) active: Flags,
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
    pub(super) fn next_active(&self, from: usize) -> Option<usize> {
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

/// One local-moving phase on `g` from `comm`; returns whether any node moved.
pub(super) fn local_moving<G: Graph>(g: &G, gamma: f64, comm: &mut Vec<u32>) -> bool {
    // A small graph's arrays stay in cache: asking for them ahead would only cost a pass over
    // each row.
    let prefetch = g.node_count() > INDEXED_NODES;
    local_moving_with(g, gamma, comm, SHORT_LIST, true, prefetch)
}

/// [`local_moving`] with `short_cap` communities in the mover's short list, its table indexed
/// by community on small graphs if `indexed`, and the next nodes' data asked for ahead if
/// `prefetch` (see [`Ahead`]).
pub(super) fn local_moving_with<G: Graph>(
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
                ahead.advance(i, &lm.active, &lm.comm, &lm.tot, g);
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
