use super::moving::local_moving_with;
use super::table::{RowTable, FREE, INDEXED_NODES, SHORT_LIST};
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
