//! Weighted undirected graphs (a compact CSR plus self-loop weights) and the Louvain method.
//!
//! Everything here is deterministic: nodes are visited in index order, ties keep the current
//! community or the lowest index, aggregation sorts its edges, and the tables of neighbouring
//! communities are read in order of first appearance, never in hash order. Aggregation runs on
//! rayon's threads in tasks whose rows are appended in order: the same graph on any number of
//! threads. Edge weights are triple counts, so the sums stay exact integers in `f64`.
//!
//! The graphs are in `graph`, aggregation in `aggregate`, the modularity of a hierarchy in
//! `modularity`, local moving in `moving` (its table of neighbouring communities in `table`, its
//! active nodes in `active`), forced merging in `forced`; the passes of Louvain are here.

mod active;
mod aggregate;
mod forced;
mod graph;
mod modularity;
mod moving;
mod table;
#[cfg(test)]
mod tests;

use crate::PyramidError;
pub(crate) use aggregate::Aggregate;
pub(crate) use forced::forced_merge;
pub(crate) use graph::{CsrBuilder, Graph, UnitGraph, WGraph};
pub(crate) use modularity::hierarchy_modularity;
use moving::local_moving;
pub(crate) use moving::LocalMoving;

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
