//! The modularity of every level of a nested hierarchy, in one pass over the graph.

use super::Graph;
use rayon::prelude::*;

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
