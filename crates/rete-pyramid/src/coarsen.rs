//! Coarsening of a community's graph for the coarse-to-fine start of [`crate::force`]: heavy-edge
//! matching (Hendrickson and Leland 1995; Walshaw 2003 for layouts), repeated until the graph is
//! small, each level's nodes merged in pairs into the next one's.
//!
//! A pass matches each node, lightest degree first, with the unmatched neighbour it shares the
//! heaviest link with (weight over the product of the two nodes' members, so that merged nodes
//! stay of like sizes). What a star leaves unmatched (its spokes: their one neighbour, the hub,
//! is taken) is then paired two by two among the nodes whose heaviest neighbour is the same
//! ("two-hop" matching), and members without links are paired among themselves, so that a pass
//! about halves the graph whatever its shape. Everything is in a fixed order (nodes by index,
//! sorts with the index as the last key): the levels are the same on any platform.

/// The coarsening stops at this many nodes or fewer.
pub(crate) const COARSEST: usize = 8;
/// At most this many coarser levels.
const MAX_LEVELS: usize = 16;
/// A pass that keeps more than this share of the nodes ends the coarsening (and is dropped).
const STALL: f64 = 0.85;

/// One coarser level: `parent[i]` is the node of this level that node `i` of the finer level
/// merged into.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Level {
    /// Nodes of this level.
    pub n: usize,
    /// For each node of the finer level, its node here.
    pub parent: Vec<u32>,
    /// Links `(a, b, weight)` between this level's nodes, `a < b`, sorted, each pair once, the
    /// weight the sum of the finer links it stands for.
    pub edges: Vec<(u32, u32, u32)>,
    /// Members of the community each node stands for.
    pub size: Vec<u32>,
}

/// The coarser levels of the graph of `n` nodes with `edges` `(a, b, weight)` (`a != b`), finest
/// first; empty when the graph has at most [`COARSEST`] nodes or does not shrink.
pub(crate) fn levels(n: usize, edges: &[(u32, u32, u32)], coarsest: usize) -> Vec<Level> {
    let mut out: Vec<Level> = Vec::new();
    let mut size = vec![1u32; n];
    let mut cur_n = n;
    let mut cur_edges: Vec<(u32, u32, u32)> = edges.to_vec();
    while cur_n > coarsest && out.len() < MAX_LEVELS {
        let level = coarsen(cur_n, &cur_edges, &size);
        if level.n as f64 > STALL * cur_n as f64 || level.n < 2 {
            break;
        }
        cur_n = level.n;
        cur_edges = level.edges.clone();
        size = level.size.clone();
        out.push(level);
    }
    out
}

/// One pass: the next coarser level of the graph of `n` nodes (`size[i]` members each).
pub(crate) fn coarsen(n: usize, edges: &[(u32, u32, u32)], size: &[u32]) -> Level {
    // Adjacency in CSR form, each node's neighbours in the order of `edges`.
    let mut start = vec![0u32; n + 1];
    for &(a, b, _) in edges {
        start[a as usize + 1] += 1;
        start[b as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut adj = vec![(0u32, 0u32); start[n] as usize];
    let mut next: Vec<u32> = start[..n].to_vec();
    for &(a, b, w) in edges {
        adj[next[a as usize] as usize] = (b, w);
        next[a as usize] += 1;
        adj[next[b as usize] as usize] = (a, w);
        next[b as usize] += 1;
    }
    let row = |i: usize| &adj[start[i] as usize..start[i + 1] as usize];
    const NONE: u32 = u32::MAX;
    let mut mate = vec![NONE; n];
    // Heavy-edge matching, the nodes of fewest links first (a leaf then takes its only
    // neighbour before a hub takes one of its many).
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| (start[i as usize + 1] - start[i as usize], i));
    for &u in &order {
        let u = u as usize;
        if mate[u] != NONE {
            continue;
        }
        let mut best: Option<(f64, u32)> = None;
        for &(v, w) in row(u) {
            if mate[v as usize] != NONE || v as usize == u {
                continue;
            }
            let rating = f64::from(w) / (f64::from(size[u]) * f64::from(size[v as usize]));
            // The heaviest, the lowest index on ties.
            if best.is_none_or(|(r, b)| rating > r || (rating == r && v < b)) {
                best = Some((rating, v));
            }
        }
        if let Some((_, v)) = best {
            mate[u] = v;
            mate[v as usize] = u as u32;
        }
    }
    // Two-hop: the unmatched paired by their heaviest neighbour (the lowest index on ties),
    // those without links among themselves.
    let mut left: Vec<(u32, u32)> = (0..n)
        .filter(|&u| mate[u] == NONE)
        .map(|u| {
            let mut best: Option<(u32, u32)> = None;
            for &(v, w) in row(u) {
                if best.is_none_or(|(bw, b)| w > bw || (w == bw && v < b)) {
                    best = Some((w, v));
                }
            }
            (best.map_or(NONE, |b| b.1), u as u32)
        })
        .collect();
    left.sort_unstable();
    for pair in left.chunk_by(|a, b| a.0 == b.0) {
        for two in pair.chunks_exact(2) {
            mate[two[0].1 as usize] = two[1].1;
            mate[two[1].1 as usize] = two[0].1;
        }
    }
    // Coarse ids in the order of each pair's first node.
    let mut parent = vec![NONE; n];
    let mut csize: Vec<u32> = Vec::new();
    for u in 0..n {
        if parent[u] != NONE {
            continue;
        }
        let id = csize.len() as u32;
        parent[u] = id;
        let mut s = size[u];
        if mate[u] != NONE {
            parent[mate[u] as usize] = id;
            s = s.saturating_add(size[mate[u] as usize]);
        }
        csize.push(s);
    }
    let mut cedges: Vec<(u32, u32, u32)> = edges
        .iter()
        .filter_map(|&(a, b, w)| {
            let (ca, cb) = (parent[a as usize], parent[b as usize]);
            (ca != cb).then(|| (ca.min(cb), ca.max(cb), w))
        })
        .collect();
    cedges.sort_unstable();
    let mut merged: Vec<(u32, u32, u32)> = Vec::with_capacity(cedges.len());
    for e in cedges {
        match merged.last_mut() {
            Some(last) if (last.0, last.1) == (e.0, e.1) => last.2 = last.2.saturating_add(e.2),
            _ => merged.push(e),
        }
    }
    Level {
        n: csize.len(),
        parent,
        edges: merged,
        size: csize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::force::tests::ring;

    fn check(n: usize, edges: &[(u32, u32, u32)], levels: &[Level]) {
        let (mut fine_n, mut fine_edges) = (n, edges.to_vec());
        let mut members = n as u64;
        for l in levels {
            // Every node mapped, to a node of the level, each of which has one or two.
            assert_eq!(l.parent.len(), fine_n);
            let mut count = vec![0u32; l.n];
            for &p in &l.parent {
                count[p as usize] += 1;
            }
            assert!(count.iter().all(|&c| c == 1 || c == 2), "{count:?}");
            assert_eq!(l.size.iter().map(|&s| u64::from(s)).sum::<u64>(), members);
            members = l.size.iter().map(|&s| u64::from(s)).sum();
            // The links are the finer ones between different nodes, weights summed.
            let total: u64 = fine_edges
                .iter()
                .filter(|e| l.parent[e.0 as usize] != l.parent[e.1 as usize])
                .map(|e| u64::from(e.2))
                .sum();
            assert_eq!(total, l.edges.iter().map(|e| u64::from(e.2)).sum::<u64>());
            assert!(l
                .edges
                .windows(2)
                .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
            assert!(l.edges.iter().all(|e| e.0 < e.1 && (e.1 as usize) < l.n));
            assert!(l.n as f64 <= STALL * fine_n as f64);
            (fine_n, fine_edges) = (l.n, l.edges.clone());
        }
    }

    #[test]
    fn every_node_mapped_and_deterministic() {
        let (n, edges) = ring(12, 20);
        let lv = levels(n, &edges, COARSEST);
        assert!(!lv.is_empty());
        assert!(lv.last().unwrap().n <= COARSEST, "{}", lv.last().unwrap().n);
        check(n, &edges, &lv);
        assert_eq!(lv, levels(n, &edges, COARSEST));
        // A clique's members merge with one another, never across the ring's single links at
        // the first pass.
        for (i, &p) in lv[0].parent.iter().enumerate() {
            let mates: Vec<usize> = (0..n).filter(|&j| lv[0].parent[j] == p).collect();
            assert!(mates.iter().all(|&j| j / 20 == i / 20), "{mates:?}");
        }
    }

    #[test]
    fn a_star_and_loose_members_halve() {
        // A star of 1,000 spokes, and 50 members without links: matching alone would take
        // one spoke a pass.
        let mut edges: Vec<(u32, u32, u32)> = (1..1001).map(|i| (0, i, 1)).collect();
        edges.push((3, 4, 2));
        let n = 1051;
        let lv = levels(n, &edges, COARSEST);
        check(n, &edges, &lv);
        assert!(lv[0].n <= n / 2 + 2, "{}", lv[0].n);
        assert!(lv.last().unwrap().n <= COARSEST);
        // Small graphs are not coarsened.
        assert!(levels(COARSEST, &ring(4, 4).1, COARSEST).is_empty());
        assert!(levels(0, &[], COARSEST).is_empty());
    }
}
