//! Louvain's first pass over a graph whose edges do not fit the memory budget: local moving and
//! aggregation stream every node's links from the file ([`EntityGraph::for_each_node`]) with only
//! per-node arrays in memory, sweep after sweep until the aggregated (coarse) graph fits the
//! budget or local moving converges. Louvain then continues in memory on the coarse graph, as it
//! would after its first pass. Deterministic: nodes are visited in index order, as in memory.

use crate::graph::EntityGraph;
use crate::louvain::{relabel, CsrBuilder, Mover, WGraph, MAX_SWEEPS, THRESHOLD};
use crate::tally::Tally;
use crate::PyramidError;
use rete_core::Rete;

/// Bytes per distinct directed pair while the coarse graph is being summed (key and weight,
/// plus the sort buffer).
const PAIR_BYTES: u64 = 24;

/// The result of the streamed first pass.
pub(crate) struct Coarse {
    /// The aggregated graph: one node per community of the first pass.
    pub(crate) graph: WGraph,
    /// Node → coarse node.
    pub(crate) base_of: Vec<u32>,
    /// Local-moving sweeps streamed from the file.
    pub(crate) sweeps: usize,
}

/// Streams local-moving sweeps at resolution `gamma` and aggregates; `budget` bounds the bytes
/// of the coarse graph being summed (beyond it, one more sweep shrinks it first). Sets the
/// entity graph's edge count (counted during the first sweep).
pub(crate) fn coarsen(
    rete: &Rete,
    eg: &mut EntityGraph,
    gamma: f64,
    budget: u64,
) -> Result<Coarse, PyramidError> {
    let n = eg.node_count();
    let m2 = eg.degree.iter().sum::<u64>() as f64;
    let mut comm: Vec<u32> = (0..n as u32).collect();
    let mut tot: Vec<f64> = eg.degree.iter().map(|&d| d as f64).collect();
    let mut mover = Mover::new(n, gamma, m2);
    let mut edges = 0u64;
    let mut sweeps = 0;
    let cap = (budget / PAIR_BYTES) as usize;
    loop {
        let (mut moves, mut gain_sum) = (0usize, 0.0f64);
        if m2 > 0.0 {
            let first = sweeps == 0;
            eg.for_each_node(rete, |links| {
                let i = links.node;
                if first {
                    let above = links.neighbors.partition_point(|&(j, _)| (j as usize) < i);
                    edges +=
                        (links.neighbors.len() - above) as u64 + u64::from(links.loop_weight > 0);
                }
                let nb = links
                    .neighbors
                    .iter()
                    .map(|&(j, w)| (j as usize, f64::from(w)));
                if let Some(g) = mover.step(i, eg.degree[i] as f64, nb, &mut comm, &mut tot) {
                    moves += 1;
                    gain_sum += g / (m2 / 2.0);
                }
                Ok(true)
            })?;
        }
        sweeps += 1;
        let converged = moves == 0 || gain_sum < THRESHOLD || sweeps >= MAX_SWEEPS;
        let mut base_of = comm.clone();
        let k = relabel(&mut base_of);
        let limit = if converged { usize::MAX } else { cap };
        if let Some(graph) = aggregate(rete, eg, &base_of, k, limit)? {
            eg.set_edge_count(edges);
            return Ok(Coarse {
                graph,
                base_of,
                sweeps,
            });
        }
    }
}

/// The graph of the `k` communities of `part`, summed while streaming; `None` when it grows
/// beyond `limit` distinct directed pairs.
fn aggregate(
    rete: &Rete,
    eg: &EntityGraph,
    part: &[u32],
    k: usize,
    limit: usize,
) -> Result<Option<WGraph>, PyramidError> {
    let mut loops = vec![0u64; k];
    let mut pairs: Tally<(u32, u32)> = Tally::new();
    let mut over = false;
    eg.for_each_node(rete, |links| {
        let i = links.node;
        let c = part[i];
        loops[c as usize] += links.loop_weight;
        for &(j, w) in links.neighbors {
            let cj = part[j as usize];
            if cj == c {
                if j as usize > i {
                    loops[c as usize] += u64::from(w);
                }
            } else {
                pairs.add((c, cj), u64::from(w));
            }
        }
        over = pairs.len() > limit;
        Ok(!over)
    })?;
    if over {
        return Ok(None);
    }
    let pairs = pairs.finish();
    let mut b = CsrBuilder::with_capacity(k, pairs.len());
    let mut row: Vec<(u32, u32)> = Vec::new();
    let mut at = 0;
    for (c, &l) in loops.iter().enumerate() {
        row.clear();
        while at < pairs.len() && pairs[at].0 .0 as usize == c {
            let ((_, cj), w) = pairs[at];
            let w = u32::try_from(w)
                .map_err(|_| PyramidError::TooLarge(format!("an edge weight of {w} triples")))?;
            row.push((cj, w));
            at += 1;
        }
        b.push_node(l, &row);
    }
    Ok(Some(b.finish()?))
}
