//! The levels of the pyramid: Louvain's partition of the entity graph (held in memory or
//! streamed), the coarser levels above it, groups too large split by structure (`crate::split`),
//! and the hierarchy renumbered top-down so a community's children have consecutive ids.

use super::*;

/// Level 0 is the converged Louvain partition; each coarser level re-runs Louvain on the
/// super-graph at a lower resolution and, if that does not shrink it enough, merges further
/// (see [`louvain::forced_merge`]) until the top has at most `max_top` communities. This one
/// runs on the entity graph `g` held in memory.
pub(super) fn held_partition(
    g: UnitGraph,
    eg: &EntityGraph,
    primary: &[u32],
    opts: &PyramidOptions,
) -> Result<Partitions, PyramidError> {
    let found = louvain::louvain_keep(&g, opts.resolution, None, level0_floor(eg, opts))?;
    let mut p0 = found.part;
    // The graph of Louvain's communities, with each entity's community in it: level 0's graph
    // is summed from it (its communities, isolated entities grouped) rather than from the
    // entity graph again.
    let last = found.graph.map(|lg| (lg, p0.clone()));
    group_isolated(eg, primary, &mut p0, opts.isolated_group);
    levels(Base::Held(g), p0, last, 0, opts)
}

/// The number of communities of linked entities level 0 aims at: see
/// [`PyramidOptions::mean_members`].
pub(super) fn level0_floor(eg: &EntityGraph, opts: &PyramidOptions) -> usize {
    let linked = eg.degree.iter().filter(|&&d| d > 0).count();
    linked.div_ceil(opts.mean_members)
}

/// [`held_partition`] when the entity graph does not fit the budget: the first pass streams
/// the links from the file (see [`crate::stream`]).
pub(super) fn streamed_partition(
    base: &Rete,
    eg: &mut EntityGraph,
    primary: &[u32],
    opts: &PyramidOptions,
) -> Result<Partitions, PyramidError> {
    let c = crate::stream::coarsen(
        base,
        eg,
        opts.resolution,
        opts.memory_budget / 4,
        opts.temp_dir.as_deref(),
    )?;
    // The rest of Louvain as the in-memory path runs it after its first pass.
    let n = eg.node_count();
    let pg = if !c.moved || c.k >= n {
        (0..c.k as u32).collect()
    } else {
        let ident: Vec<u32> = (0..c.k as u32).collect();
        let floor = level0_floor(eg, opts);
        louvain::louvain_rest(&c.graph, ident, c.k, opts.resolution, None, floor)?.0
    };
    let mut p0: Vec<u32> = c.base_of.iter().map(|&b| pg[b as usize]).collect();
    group_isolated(eg, primary, &mut p0, opts.isolated_group);
    levels(Base::Coarse(c.graph, c.base_of), p0, None, c.sweeps, opts)
}

/// The levels above level 0's partition `p0` of `g0`. `last` is a coarser graph every
/// community of `p0` is a union of nodes of, with each entity's node in it.
pub(super) fn levels(
    g0: Base,
    p0: Vec<u32>,
    last: Option<(WGraph, Vec<u32>)>,
    streamed_sweeps: usize,
    opts: &PyramidOptions,
) -> Result<Partitions, PyramidError> {
    let mut p0 = p0;
    let k0 = louvain::relabel(&mut p0);
    let mut cur = match last {
        Some((lg, node_of)) => {
            let pc = Base::coarse_part(&p0, &node_of, lg.node_count());
            // No isolated entities were grouped and the labels are Louvain's: its graph is
            // level 0's as it is (at 100 M triples, 0.2 s of summing 3.7 M links spared).
            if k0 == lg.node_count() && pc.iter().enumerate().all(|(i, &c)| c as usize == i) {
                lg
            } else {
                lg.aggregate(&pc, k0)?
            }
        }
        None => g0.aggregate(&p0, k0)?,
    };
    let mut parts = vec![p0];
    let mut counts = vec![k0];
    let mut methods = vec!["louvain"];
    let mut resolutions = vec![opts.resolution];
    let mut k = k0;
    while k > opts.max_top {
        let l = parts.len();
        let remaining = opts.max_levels.saturating_sub(l).max(1);
        let target = level_target(k, opts.max_top, opts.branching, remaining);
        let gamma = opts.resolution * opts.coarsening.powi(l as i32);
        let found = louvain::louvain_keep(&cur, gamma, Some(target), 0)?;
        let (mut p, mut nk) = (found.part, found.k);
        // The graph of Louvain's communities: kept from its last pass, or summed here.
        let mut sup = found.graph;
        let mut method = "louvain";
        let mut formed_at = gamma;
        // At a low resolution one pass can merge a whole level into a few communities (at
        // γ = 0.0625, 241 into one): the forced merge alone then brings it to its target, at
        // level 0's resolution. At γ it let the largest community take a neighbour each round
        // (its links outweigh a penalty scaled by γ): 31 communities became 8 at modularity
        // 0.27 where level 0's resolution gives 0.78.
        if nk.saturating_mul(opts.branching) < target {
            let (p2, k2) = louvain::forced_merge(&cur, opts.resolution, target)?;
            (p, nk, sup, method, formed_at) = (p2, k2, None, "merge", opts.resolution);
        }
        if nk > target {
            let merged_by_louvain = nk < k;
            let base = match sup.take() {
                Some(g) => g,
                None => cur.aggregate(&p, nk)?,
            };
            let (p2, k2) = louvain::forced_merge(&base, gamma, target)?;
            for x in p.iter_mut() {
                *x = p2[*x as usize];
            }
            nk = k2;
            method = if merged_by_louvain {
                "louvain+merge"
            } else {
                "merge"
            };
            if nk < k {
                sup = Some(base.aggregate(&p2, nk)?);
            }
        }
        if nk >= k {
            break;
        }
        cur = match sup {
            Some(g) => g,
            None => cur.aggregate(&p, nk)?,
        };
        parts.push(p);
        counts.push(nk);
        methods.push(method);
        resolutions.push(formed_at);
        k = nk;
    }
    Ok(Partitions {
        g0,
        streamed_sweeps,
        parts,
        counts,
        methods,
        resolutions,
    })
}

/// Gives every community at most [`PyramidOptions::max_children`] children: where one has more,
/// a level of pieces is inserted below it (see [`crate::split`]), bottom-up, so that the level
/// of pieces is checked in turn. Parents small enough become one piece each, their own copy
/// (the app opens such a single child through).
pub(super) fn split_oversized(
    parts: &mut Partitions,
    primary: &[u32],
    opts: &PyramidOptions,
) -> Result<(), PyramidError> {
    let limit = opts.max_children;
    if limit == usize::MAX {
        return Ok(());
    }
    // A subgraph's CSR may take a quarter of the budget: the entity graph took at most half.
    let budget = opts.memory_budget / 4;
    let mut b = 0;
    while b < parts.parts.len() {
        let (k_parent, parent) = (parts.counts[b], &parts.parts[b]);
        if split::max_children(parent, k_parent) <= limit {
            b += 1;
            continue;
        }
        let found = if b == 0 {
            // Children are entities: keyed by primary class, then the hub they hang from.
            let class = |c: u32| u64::from(primary[c as usize]) << 32;
            match &parts.g0 {
                Base::Held(g) => {
                    let key = |c: u32| {
                        class(c) | u64::from(split::hub(g, c as usize, |j, _| g.degree(j)))
                    };
                    split::split_level(Some(g), parent, k_parent, key, limit, budget)?
                }
                Base::Coarse(_, base_of) => {
                    // The entity graph is not held: by class, then the first pass's community.
                    let key = |c: u32| class(c) | u64::from(base_of[c as usize]);
                    split::split_level::<WGraph, _>(None, parent, k_parent, key, limit, budget)?
                }
            }
        } else {
            // Children are the communities of level b - 1: the graph of them, keyed by hub.
            let mut node_part = parts.parts[0].clone();
            for up in &parts.parts[1..b] {
                for x in node_part.iter_mut() {
                    *x = up[*x as usize];
                }
            }
            let g = parts.g0.aggregate(&node_part, parts.counts[b - 1])?;
            drop(node_part);
            let key = |c: u32| u64::from(split::hub(&g, c as usize, |_, w| w));
            split::split_level(Some(&g), parent, k_parent, key, limit, budget)?
        };
        let Some(found) = found else {
            b += 1;
            continue;
        };
        // Level b becomes the pieces; the old level b moves up, the pieces' parent.
        parts.parts[b] = found.part;
        parts.parts.insert(b + 1, found.parent);
        parts.counts.insert(b, found.k);
        parts.methods.insert(b, "split");
        let res = parts.resolutions[b];
        parts.resolutions.insert(b, res);
        b += 1;
    }
    Ok(())
}

/// How many communities the next level should have at most: spreads the remaining shrinkage
/// evenly over the levels still needed, each level shrinking by at most about `branching`.
pub(super) fn level_target(k: usize, max_top: usize, branching: usize, remaining: usize) -> usize {
    let ratio = k as f64 / max_top as f64;
    let steps = ((ratio.ln() / (branching as f64).ln()).ceil() as usize).clamp(1, remaining);
    let factor = ratio.powf(1.0 / steps as f64);
    let t = (k as f64 / factor).ceil() as usize;
    t.clamp(max_top, k.saturating_sub(1).max(max_top))
}

/// Louvain leaves entities without links as singletons; merging them changes no modularity, so
/// they are grouped by their primary class into communities of at most `chunk` entities.
pub(super) fn group_isolated(eg: &EntityGraph, primary: &[u32], part: &mut [u32], chunk: usize) {
    let mut iso: Vec<(u32, u32)> = (0..eg.node_count())
        .filter(|&i| eg.degree[i] == 0)
        .map(|i| (primary[i], i as u32))
        .collect();
    iso.sort_unstable();
    let mut run: Option<(u32, u32, usize)> = None; // (class, label, length)
    for (class, i) in iso {
        let label = match run {
            Some((c, label, len)) if c == class && len < chunk => {
                run = Some((c, label, len + 1));
                label
            }
            _ => {
                // The group takes the (unique) singleton label of its first entity.
                let label = part[i as usize];
                run = Some((class, label, 1));
                label
            }
        };
        part[i as usize] = label;
    }
}

/// [`primary_classes`] of an entity without a class.
pub(super) const NO_CLASS: u32 = u32::MAX;

/// Each entity's primary class: of its classes, the one with most instances overall
/// ([`NO_CLASS`] for none; 4 bytes an entity).
pub(super) fn primary_classes(eg: &EntityGraph) -> Vec<u32> {
    let mut count = vec![0u64; eg.classes.len()];
    for &(_, c) in &eg.node_classes {
        count[c as usize] += 1;
    }
    let mut out = vec![NO_CLASS; eg.node_count()];
    for &(node, c) in &eg.node_classes {
        let slot = &mut out[node as usize];
        if *slot == NO_CLASS || count[*slot as usize] < count[c as usize] {
            *slot = c;
        }
    }
    out
}

pub(super) fn renumber(p: &Partitions, n: usize) -> Hierarchy {
    let levels = p.parts.len();
    let top = levels - 1;
    let mut size_old: Vec<Vec<u64>> = Vec::with_capacity(levels);
    let mut s0 = vec![0u64; p.counts[0]];
    for &c in &p.parts[0] {
        s0[c as usize] += 1;
    }
    size_old.push(s0);
    for l in 1..levels {
        let mut s = vec![0u64; p.counts[l]];
        for (child, &c) in p.parts[l].iter().enumerate() {
            s[c as usize] += size_old[l - 1][child];
        }
        size_old.push(s);
    }
    let mut new_id: Vec<Vec<u32>> = vec![Vec::new(); levels];
    let rank = |order: Vec<usize>, k: usize| {
        let mut ids = vec![0u32; k];
        for (r, c) in order.into_iter().enumerate() {
            ids[c] = r as u32;
        }
        ids
    };
    let mut order: Vec<usize> = (0..p.counts[top]).collect();
    order.sort_by_key(|&c| (std::cmp::Reverse(size_old[top][c]), c));
    new_id[top] = rank(order, p.counts[top]);
    for l in (0..top).rev() {
        let mut order: Vec<usize> = (0..p.counts[l]).collect();
        order.sort_by_key(|&c| {
            (
                new_id[l + 1][p.parts[l + 1][c] as usize],
                std::cmp::Reverse(size_old[l][c]),
                c,
            )
        });
        new_id[l] = rank(order, p.counts[l]);
    }
    let mut node_comm = vec![vec![0u32; n]; levels];
    for (node, &c0) in p.parts[0].iter().enumerate().take(n) {
        let mut old = c0 as usize;
        for (l, comm) in node_comm.iter_mut().enumerate() {
            if l > 0 {
                old = p.parts[l][old] as usize;
            }
            comm[node] = new_id[l][old];
        }
    }
    let mut parent = Vec::with_capacity(top);
    let mut sizes = Vec::with_capacity(levels);
    for l in 0..levels {
        let mut s = vec![0u64; p.counts[l]];
        for c in 0..p.counts[l] {
            s[new_id[l][c] as usize] = size_old[l][c];
        }
        sizes.push(s);
        if l < top {
            let mut par = vec![0u32; p.counts[l]];
            for c in 0..p.counts[l] {
                par[new_id[l][c] as usize] = new_id[l + 1][p.parts[l + 1][c] as usize];
            }
            parent.push(par);
        }
    }
    Hierarchy {
        counts: p.counts.clone(),
        node_comm,
        parent,
        sizes,
    }
}
