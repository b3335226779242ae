//! Forced merging, for when Louvain stops above the number of communities wanted.

use super::{relabel, Aggregate, Graph, WGraph};
use crate::PyramidError;

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
