//! Splitting groups too large to open whole (see docs/semantic-zoom.md).
//!
//! Louvain leaves some communities far larger than a view can show: hubs and stars (thousands
//! of properties around a few classes) have no internal structure modularity can cut. After the
//! levels are found, every community with more than `limit` children (entities at level 0,
//! communities above) is split into pieces of at most `limit` children, and the pieces become a
//! level of their own between the community and its children; a community small enough is one
//! piece, its own copy. The split is structural:
//!
//! 1. Louvain on the community's own links (the subgraph its children induce), recursively on
//!    pieces still too large, a few levels deep;
//! 2. where that cannot cut (a star is one community at any resolution), the children are
//!    sorted by a key of what they share (at level 0: the primary class, then the neighbour
//!    they hang from, the hub; above: the heaviest neighbour) and cut into runs of equal size;
//! 3. pieces below half the limit are packed, in order of their key, into pieces of at most
//!    `limit`: no view of crumbs.
//!
//! Everything is deterministic: children are visited in index order, pieces are numbered in
//! order of their first child, ties break on indices.

use crate::louvain::{self, CsrBuilder, Graph};
use crate::PyramidError;

/// Louvain is re-run on pieces still too large at most this many times.
const MAX_DEPTH: usize = 3;
/// [`Split::key`] of a child without a class or a hub.
pub(crate) const NO_KEY: u32 = u32::MAX;

/// A new level between the children and their parents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    /// Child → piece, labels `0..k`: the pieces of parent 0 first, then of parent 1, …
    pub(crate) part: Vec<u32>,
    /// Piece → parent.
    pub(crate) parent: Vec<u32>,
    /// Number of pieces.
    pub(crate) k: usize,
}

/// The most children any parent in `parent` (child → parent, `k_parent` parents) has.
pub(crate) fn max_children(parent: &[u32], k_parent: usize) -> usize {
    let mut count = vec![0usize; k_parent];
    for &p in parent {
        count[p as usize] += 1;
    }
    count.into_iter().max().unwrap_or(0)
}

/// Splits every parent of more than `limit` children. `graph`: the links among the children
/// (same indices; `None`: by key alone); `key`: what children sort by when links cannot cut;
/// Louvain runs on a subgraph only if its CSR takes at most `budget` bytes. `None` when no
/// parent has more than `limit` children.
pub(crate) fn split_level<G: Graph, K: Fn(u32) -> u64>(
    graph: Option<&G>,
    parent: &[u32],
    k_parent: usize,
    key: K,
    limit: usize,
    budget: u64,
) -> Result<Option<Split>, PyramidError> {
    let limit = limit.max(2);
    if max_children(parent, k_parent) <= limit {
        return Ok(None);
    }
    // Children by parent, in index order (a counting sort).
    let mut start = vec![0usize; k_parent + 1];
    for &p in parent {
        start[p as usize + 1] += 1;
    }
    for p in 0..k_parent {
        start[p + 1] += start[p];
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; parent.len()];
    for (c, &p) in parent.iter().enumerate() {
        members[fill[p as usize]] = c as u32;
        fill[p as usize] += 1;
    }
    drop(fill);
    let mut local = graph.map_or_else(Vec::new, |g| vec![u32::MAX; g.node_count()]);
    let mut part = vec![0u32; parent.len()];
    let mut piece_parent = Vec::with_capacity(k_parent);
    let mut splitter = Splitter {
        graph,
        key: &key,
        limit,
        budget,
        local: &mut local,
    };
    for p in 0..k_parent {
        let m = &members[start[p]..start[p + 1]];
        let pieces = if m.len() <= limit {
            vec![m.to_vec()]
        } else {
            let mut out = Vec::new();
            splitter.pieces(m, 0, &mut out)?;
            if let Some(g) = graph {
                out = merge_by_links(g, out, limit, splitter.local);
            }
            pack(out, &key, limit)
        };
        for piece in pieces {
            let id = piece_parent.len() as u32;
            for &c in &piece {
                part[c as usize] = id;
            }
            piece_parent.push(p as u32);
        }
    }
    let k = piece_parent.len();
    Ok(Some(Split {
        part,
        parent: piece_parent,
        k,
    }))
}

struct Splitter<'a, G, K> {
    graph: Option<&'a G>,
    key: &'a K,
    limit: usize,
    budget: u64,
    /// Child → index in the subgraph being built (`u32::MAX` elsewhere; reset after each use).
    local: &'a mut Vec<u32>,
}

impl<G: Graph, K: Fn(u32) -> u64> Splitter<'_, G, K> {
    /// Pieces of the children `m` (sorted), each at most `limit`.
    fn pieces(
        &mut self,
        m: &[u32],
        depth: usize,
        out: &mut Vec<Vec<u32>>,
    ) -> Result<(), PyramidError> {
        if m.len() <= self.limit {
            out.push(m.to_vec());
            return Ok(());
        }
        if depth < MAX_DEPTH {
            if let Some(parts) = self.louvain_parts(m)? {
                if parts.len() > 1 {
                    for p in parts {
                        self.pieces(&p, depth + 1, out)?;
                    }
                    return Ok(());
                }
            }
        }
        chunk_by_key(m, self.key, self.limit, out);
        Ok(())
    }

    /// Louvain's communities of the subgraph `m` induces, each sorted, in order of first child;
    /// `None` without a graph or when the subgraph would outgrow the budget.
    fn louvain_parts(&mut self, m: &[u32]) -> Result<Option<Vec<Vec<u32>>>, PyramidError> {
        let Some(g) = self.graph else {
            return Ok(None);
        };
        // 8 bytes an entry of the subgraph's CSR, at most a degree's worth per child.
        let entries: f64 = m.iter().map(|&c| g.degree(c as usize)).sum();
        if entries * 8.0 > self.budget as f64 {
            return Ok(None);
        }
        for (i, &c) in m.iter().enumerate() {
            self.local[c as usize] = i as u32;
        }
        let mut b = CsrBuilder::with_capacity(m.len(), 0);
        let mut row: Vec<(u32, u32)> = Vec::new();
        let mut built = Ok(());
        for &c in m {
            row.clear();
            // Neighbours come in increasing order, repeats adjacent; local indices follow the
            // same order because `m` is sorted.
            for (j, w) in g.neighbors(c as usize) {
                let lj = self.local[j];
                if lj == u32::MAX {
                    continue;
                }
                let w = w as u64;
                match row.last_mut() {
                    Some((last, sum)) if *last == lj => match u32::try_from(u64::from(*sum) + w) {
                        Ok(s) => *sum = s,
                        Err(_) => built = Err(PyramidError::TooLarge("an edge weight".into())),
                    },
                    _ => row.push((lj, u32::try_from(w).unwrap_or(u32::MAX))),
                }
            }
            b.push_node(g.loop_weight(c as usize) as u64, &row);
        }
        for &c in m {
            self.local[c as usize] = u32::MAX;
        }
        built?;
        let sub = b.finish()?;
        let found = louvain::louvain_keep(&sub, 1.0, None, 0)?;
        let mut parts: Vec<Vec<u32>> = vec![Vec::new(); found.k];
        for (i, &p) in found.part.iter().enumerate() {
            parts[p as usize].push(m[i]);
        }
        Ok(Some(parts))
    }
}

/// Merges pieces along their heaviest links first, as long as the union stays within `limit`
/// (Kruskal's order with a capacity): pieces Louvain cut finer than needed come back together
/// where they are linked, so the split cuts as few links as it can. `local` is all `u32::MAX`
/// and is left so.
fn merge_by_links<G: Graph>(
    g: &G,
    pieces: Vec<Vec<u32>>,
    limit: usize,
    local: &mut [u32],
) -> Vec<Vec<u32>> {
    for (i, p) in pieces.iter().enumerate() {
        for &c in p {
            local[c as usize] = i as u32;
        }
    }
    let mut links: std::collections::HashMap<(u32, u32), f64> = std::collections::HashMap::new();
    for (i, p) in pieces.iter().enumerate() {
        for &c in p {
            for (j, w) in g.neighbors(c as usize) {
                let pj = local[j];
                if pj != u32::MAX && (i as u32) < pj {
                    *links.entry((i as u32, pj)).or_default() += w;
                }
            }
        }
    }
    for p in &pieces {
        for &c in p {
            local[c as usize] = u32::MAX;
        }
    }
    // Weights are sums of integer triple counts: exact, so the order is the same on any run.
    let mut order: Vec<(u64, u32, u32)> = links
        .into_iter()
        .map(|((a, b), w)| (w as u64, a, b))
        .collect();
    order.sort_unstable_by(|x, y| y.0.cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    let mut root: Vec<u32> = (0..pieces.len() as u32).collect();
    let mut size: Vec<usize> = pieces.iter().map(Vec::len).collect();
    fn find(root: &mut [u32], mut x: u32) -> u32 {
        while root[x as usize] != x {
            root[x as usize] = root[root[x as usize] as usize];
            x = root[x as usize];
        }
        x
    }
    for (_, a, b) in order {
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        if ra != rb && size[ra as usize] + size[rb as usize] <= limit {
            let (keep, gone) = (ra.min(rb), ra.max(rb));
            root[gone as usize] = keep;
            size[keep as usize] += size[gone as usize];
        }
    }
    let mut merged: Vec<Vec<u32>> = vec![Vec::new(); pieces.len()];
    for (i, p) in pieces.into_iter().enumerate() {
        let r = find(&mut root, i as u32) as usize;
        merged[r].extend(p);
    }
    merged.retain(|p| !p.is_empty());
    for p in merged.iter_mut() {
        p.sort_unstable();
    }
    merged
}

/// Cuts `m` into runs of at most `limit` after sorting by `(key, index)`: each run of one key
/// into equal parts.
fn chunk_by_key(m: &[u32], key: &impl Fn(u32) -> u64, limit: usize, out: &mut Vec<Vec<u32>>) {
    let mut sorted: Vec<(u64, u32)> = m.iter().map(|&c| (key(c), c)).collect();
    sorted.sort_unstable();
    let mut i = 0;
    while i < sorted.len() {
        let k = sorted[i].0;
        let mut j = i;
        while j < sorted.len() && sorted[j].0 == k {
            j += 1;
        }
        let run: Vec<u32> = sorted[i..j].iter().map(|x| x.1).collect();
        let parts = run.len().div_ceil(limit);
        let size = run.len().div_ceil(parts);
        for chunk in run.chunks(size) {
            let mut piece = chunk.to_vec();
            piece.sort_unstable();
            out.push(piece);
        }
        i = j;
    }
}

/// Pieces of at least half the limit as they are; the smaller ones, in order of their most
/// frequent key, packed into pieces of at most `limit`. Returned in order of first child.
fn pack(pieces: Vec<Vec<u32>>, key: &impl Fn(u32) -> u64, limit: usize) -> Vec<Vec<u32>> {
    let (mut out, mut small): (Vec<Vec<u32>>, Vec<Vec<u32>>) =
        pieces.into_iter().partition(|p| p.len() * 2 >= limit);
    let mut keyed: Vec<(u64, u32, Vec<u32>)> = small
        .drain(..)
        .map(|p| (dominant_key(&p, key), p[0], p))
        .collect();
    keyed.sort_unstable_by_key(|x| (x.0, x.1));
    let mut bin: Vec<u32> = Vec::new();
    for (_, _, p) in keyed {
        if bin.len() + p.len() > limit {
            out.push(std::mem::take(&mut bin));
        }
        bin.extend_from_slice(&p);
    }
    if !bin.is_empty() {
        out.push(bin);
    }
    for p in out.iter_mut() {
        p.sort_unstable();
    }
    out.sort_unstable_by_key(|p| p[0]);
    out
}

/// The most frequent key of `p`'s children (the smallest of equals).
fn dominant_key(p: &[u32], key: &impl Fn(u32) -> u64) -> u64 {
    let mut ks: Vec<u64> = p.iter().map(|&c| key(c)).collect();
    ks.sort_unstable();
    let (mut best, mut best_n) = (ks[0], 0usize);
    let mut i = 0;
    while i < ks.len() {
        let mut j = i;
        while j < ks.len() && ks[j] == ks[i] {
            j += 1;
        }
        if j - i > best_n {
            (best, best_n) = (ks[i], j - i);
        }
        i = j;
    }
    best
}

/// `i`'s strongest neighbour by `strength(neighbour, weight)` (ties: the lowest index),
/// [`NO_KEY`] for none: the hub it hangs from.
pub(crate) fn hub<G: Graph>(g: &G, i: usize, strength: impl Fn(usize, f64) -> f64) -> u32 {
    let mut best: Option<(f64, usize)> = None;
    for (j, w) in g.neighbors(i) {
        let s = strength(j, w);
        if best.is_none_or(|(bs, bj)| s > bs || (s == bs && j < bj)) {
            best = Some((s, j));
        }
    }
    best.map_or(NO_KEY, |(_, j)| j as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::louvain::WGraph;

    /// A star: node 0 the hub, `n` spokes; spokes of two classes.
    fn star(n: u32) -> WGraph {
        let edges: Vec<(u32, u32, f64)> = (1..=n).map(|i| (0, i, 1.0)).collect();
        WGraph::from_edges(n as usize + 1, &edges).unwrap()
    }

    fn check(split: &Split, n: usize, k_parent: usize, limit: usize) {
        assert_eq!(split.part.len(), n);
        let mut size = vec![0usize; split.k];
        for &p in &split.part {
            size[p as usize] += 1;
        }
        assert!(size.iter().all(|&s| s >= 1 && s <= limit), "{size:?}");
        assert!(max_children(&split.parent, k_parent) <= limit);
    }

    #[test]
    fn a_star_is_cut_by_key() {
        let g = star(5000);
        let key: Vec<u64> = (0..5001u64).map(|i| i % 3).collect();
        let parent = vec![0u32; 5001];
        let s = split_level(Some(&g), &parent, 1, |c| key[c as usize], 1000, u64::MAX)
            .unwrap()
            .unwrap();
        check(&s, 5001, 1, 1000);
        // Each piece holds one key: runs of 1,667 are cut in two, not mixed.
        for p in 0..s.k as u32 {
            let keys: std::collections::BTreeSet<u64> = (0..5001)
                .filter(|&i| s.part[i] == p)
                .map(|i| key[i])
                .collect();
            assert_eq!(keys.len(), 1);
        }
        assert_eq!(s.k, 6);
        let again = split_level(Some(&g), &parent, 1, |c| key[c as usize], 1000, u64::MAX)
            .unwrap()
            .unwrap();
        assert_eq!(s, again);
    }

    #[test]
    fn small_parents_stay_whole_and_cliques_split_by_links() {
        // Parent 0: 30 cliques of 100 (3,000 children, linked in a ring); parent 1: 10 children.
        let mut edges = Vec::new();
        for q in 0..30u32 {
            for a in 0..100u32 {
                for b in a + 1..100 {
                    edges.push((q * 100 + a, q * 100 + b, 1.0));
                }
            }
            edges.push((q * 100, ((q + 1) % 30) * 100 + 1, 1.0));
        }
        let g = WGraph::from_edges(3010, &edges).unwrap();
        let mut parent = vec![0u32; 3000];
        parent.extend(std::iter::repeat_n(1u32, 10));
        let key = vec![0u64; 3010];
        let s = split_level(Some(&g), &parent, 2, |c| key[c as usize], 1000, u64::MAX)
            .unwrap()
            .unwrap();
        check(&s, 3010, 2, 1000);
        // No clique is cut.
        for q in 0..30usize {
            let p = s.part[q * 100];
            assert!((q * 100..q * 100 + 100).all(|i| s.part[i] == p));
        }
        // Parent 1's ten children are one piece, the last.
        let last = s.k as u32 - 1;
        assert!((3000..3010).all(|i| s.part[i] == last));
        assert_eq!(s.parent[last as usize], 1);
        assert!(s.parent[..s.k - 1].iter().all(|&p| p == 0));
    }

    #[test]
    fn nothing_to_split() {
        let g = star(10);
        let s = split_level(Some(&g), &[0; 11], 1, |_| 0, 1000, u64::MAX).unwrap();
        assert!(s.is_none());
    }

    #[test]
    fn without_links_by_key() {
        let key: Vec<u64> = (0..2500u64).map(|i| i / 700).collect();
        let s = split_level::<WGraph, _>(None, &[0; 2500], 1, |c| key[c as usize], 1000, 0)
            .unwrap()
            .unwrap();
        check(&s, 2500, 1, 1000);
    }
}
