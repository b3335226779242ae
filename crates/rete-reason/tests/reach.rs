//! Batch reachability against Oxigraph's `P+` / `P*` property paths on generated graphs, and
//! serial == parallel.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use oxigraph::model::{GraphName, NamedNode, Quad, Term};
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use rete_core::{GraphMatch, Rete};
use rete_datagen::Rng;
use rete_reason::{reach, Adjacency, Collect, Direction, ReachOptions};
use std::collections::BTreeSet;
use std::fmt::Write as _;

const EX: &str = "http://example.org/";

fn node(i: u64) -> NamedNode {
    NamedNode::new_unchecked(format!("{EX}n{i}"))
}

/// A random graph: `:link` edges (clustered, with cycles and self-loops), noise edges of another
/// predicate, and some `:link` edges in a named graph (duplicating or not default-graph ones).
fn generate(seed: u64, n: u64, edges: u64) -> Vec<Quad> {
    let mut r = Rng::new(seed);
    let link = NamedNode::new_unchecked(format!("{EX}link"));
    let other = NamedNode::new_unchecked(format!("{EX}other"));
    let g = GraphName::NamedNode(NamedNode::new_unchecked(format!("{EX}g")));
    let mut out = Vec::new();
    for _ in 0..edges {
        let a = r.below(n);
        let b = if r.below(10) < 8 {
            (a + r.below(4)) % n
        } else {
            r.below(n)
        };
        let graph = if r.below(10) == 0 {
            g.clone()
        } else {
            GraphName::DefaultGraph
        };
        out.push(Quad::new(node(a), link.clone(), node(b), graph));
        if r.below(3) == 0 {
            out.push(Quad::new(
                node(b),
                other.clone(),
                node(a),
                GraphName::DefaultGraph,
            ));
        }
    }
    // A literal object: reachable, not expandable.
    out.push(Quad::new(
        node(0),
        link.clone(),
        oxigraph::model::Literal::new_simple_literal("end"),
        GraphName::DefaultGraph,
    ));
    out
}

fn setup(seed: u64, n: u64, edges: u64) -> (tempfile::TempDir, Rete, Store) {
    let quads = generate(seed, n, edges);
    let mut nq = String::new();
    for q in &quads {
        let _ = writeln!(nq, "{q} .");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("g.rete");
    let opts = rete_build::BuildOptions {
        inputs: vec![rete_build::Input::bytes(
            "g.nq",
            nq.into_bytes(),
            rete_build::Syntax::NQuads,
        )],
        zstd_level: 1,
        perm_block_quads: 64,
        ..Default::default()
    };
    rete_build::build(&opts, &out).expect("build");
    let rete = Rete::open_path(&out).expect("open");
    let store = Store::new().expect("store");
    for q in &quads {
        store.insert(q).expect("insert");
    }
    (dir, rete, store)
}

fn oxigraph_reach(
    store: &Store,
    path: &str,
    seed: &Term,
    backward: bool,
    union: bool,
) -> BTreeSet<String> {
    let q = if backward {
        format!("SELECT DISTINCT ?x WHERE {{ ?x {path} {seed} }}")
    } else {
        format!("SELECT DISTINCT ?x WHERE {{ {seed} {path} ?x }}")
    };
    let mut prepared = SparqlEvaluator::new().parse_query(&q).expect("query");
    if union {
        prepared.dataset_mut().set_default_graph_as_union();
    }
    let QueryResults::Solutions(sol) = prepared.on_store(store).execute().expect("execute") else {
        panic!("not a SELECT")
    };
    sol.map(|s| s.expect("solution").get("x").expect("bound").to_string())
        .collect()
}

fn is_node(store: &Store, t: &Term, union: bool) -> bool {
    let q = format!("ASK {{ {{ {t} ?p ?o }} UNION {{ ?s ?p {t} }} }}");
    let mut prepared = SparqlEvaluator::new().parse_query(&q).expect("query");
    if union {
        prepared.dataset_mut().set_default_graph_as_union();
    }
    match prepared.on_store(store).execute().expect("execute") {
        QueryResults::Boolean(b) => b,
        _ => panic!("not an ASK"),
    }
}

fn seeds(n: u64) -> Vec<Term> {
    let mut v: Vec<Term> = (0..n).step_by(7).map(|i| node(i).into()).collect();
    // Not a node of the graph, and not in the file at all.
    v.push(NamedNode::new_unchecked(format!("{EX}other")).into());
    v.push(NamedNode::new_unchecked(format!("{EX}absent")).into());
    v
}

fn ours(rete: &Rete, seeds: &[Term], opts: &ReachOptions) -> Vec<BTreeSet<String>> {
    let link = NamedNode::new_unchecked(format!("{EX}link"));
    let r = reach(rete, link.as_ref(), seeds, opts).expect("reach");
    assert_eq!(r.seeds.len(), seeds.len());
    r.seeds
        .into_iter()
        .map(|s| {
            let terms = s.terms.expect("terms collected");
            assert_eq!(terms.len() as u64, s.count);
            terms.into_iter().collect()
        })
        .collect()
}

#[test]
fn matches_oxigraph_property_paths() {
    for (seed, n, edges) in [(1, 60, 90), (2, 200, 260), (3, 400, 900)] {
        let (_dir, rete, store) = setup(seed, n, edges);
        let seeds = seeds(n);
        let link = format!("<{EX}link>");
        for (direction, backward) in [(Direction::Forward, false), (Direction::Backward, true)] {
            for include_seeds in [false, true] {
                for (graph, union) in [(GraphMatch::Default, false), (GraphMatch::Any, true)] {
                    let opts = ReachOptions {
                        direction,
                        include_seeds,
                        graph,
                        collect: Collect::Terms,
                        ..Default::default()
                    };
                    let got = ours(&rete, &seeds, &opts);
                    // One search per seed gives the same as one per component.
                    let unshared = ReachOptions {
                        share_components: false,
                        ..opts.clone()
                    };
                    assert_eq!(got, ours(&rete, &seeds, &unshared));
                    let path = format!("{link}{}", if include_seeds { "*" } else { "+" });
                    for (s, got) in seeds.iter().zip(&got) {
                        let mut want = oxigraph_reach(&store, &path, s, backward, union);
                        // Oxigraph evaluates the zero-length path only for nodes of the active
                        // graph; our P* counts every seed as reaching itself.
                        if include_seeds && !is_node(&store, s, union) {
                            want.insert(s.to_string());
                        }
                        assert_eq!(
                            got, &want,
                            "graph {seed}, seed {s}, {direction:?}, include_seeds {include_seeds}, union {union}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn max_depth_matches_bounded_paths() {
    let (_dir, rete, store) = setup(4, 150, 200);
    let seeds = seeds(150);
    let link = format!("<{EX}link>");
    for depth in 1..=3u32 {
        // p | p/p | p/p/p …
        let path = (1..=depth)
            .map(|k| format!("({})", vec![link.as_str(); k as usize].join("/")))
            .collect::<Vec<_>>()
            .join("|");
        for (direction, backward) in [(Direction::Forward, false), (Direction::Backward, true)] {
            let opts = ReachOptions {
                direction,
                max_depth: Some(depth),
                graph: GraphMatch::Default,
                collect: Collect::Terms,
                ..Default::default()
            };
            let got = ours(&rete, &seeds, &opts);
            for (s, got) in seeds.iter().zip(&got) {
                assert_eq!(
                    got,
                    &oxigraph_reach(&store, &path, s, backward, false),
                    "depth {depth} seed {s}"
                );
            }
        }
    }
    // Depth 0 reaches nothing (P+), or the seed alone (P*).
    let opts = ReachOptions {
        max_depth: Some(0),
        include_seeds: true,
        collect: Collect::Terms,
        ..Default::default()
    };
    for (s, got) in seeds.iter().zip(ours(&rete, &seeds, &opts)) {
        assert_eq!(got, BTreeSet::from([s.to_string()]));
    }
}

#[test]
fn serial_equals_parallel() {
    let (_dir, rete, _store) = setup(5, 3000, 9000);
    let link = NamedNode::new_unchecked(format!("{EX}link"));
    let seeds: Vec<Term> = (0..3000).step_by(11).map(|i| node(i).into()).collect();
    for collect in [Collect::Count, Collect::Ids, Collect::Terms] {
        for direction in [Direction::Forward, Direction::Backward] {
            for max_depth in [None, Some(2)] {
                let base = ReachOptions {
                    direction,
                    max_depth,
                    collect,
                    share_components: false,
                    ..Default::default()
                };
                let serial = reach(&rete, link.as_ref(), &seeds, &base).expect("serial");
                assert!(serial.total > 0);
                assert_eq!(serial.searches, seeds.len() as u64);
                for (parallel, share) in [(true, false), (false, true), (true, true)] {
                    let opts = ReachOptions {
                        parallel,
                        share_components: share,
                        ..base.clone()
                    };
                    let other = reach(&rete, link.as_ref(), &seeds, &opts).expect("reach");
                    assert_eq!(
                        serial.seeds, other.seeds,
                        "parallel {parallel} share {share}"
                    );
                    assert_eq!(serial.total, other.total);
                    if share && max_depth.is_none() {
                        assert!(other.searches < seeds.len() as u64, "{}", other.searches);
                    }
                }
            }
        }
    }
}

#[test]
fn adjacency_from_edges() {
    // 1→2→3→1 cycle, 3→4, 5 isolated source.
    let adj = Adjacency::from_edges(vec![(1, 2), (2, 3), (3, 1), (3, 4), (3, 4), (5, 1)])
        .expect("adjacency");
    assert_eq!(adj.node_count(), 5);
    assert_eq!(adj.edge_count(), 5);
    let opts = ReachOptions {
        collect: Collect::Ids,
        ..Default::default()
    };
    let r = adj.reach_ids(&[1, 4, 5, 99], &opts);
    assert_eq!(r[0].ids.as_deref(), Some(&[1, 2, 3, 4][..]));
    assert_eq!(r[1].count, 0);
    assert_eq!(r[2].ids.as_deref(), Some(&[1, 2, 3, 4][..]));
    assert_eq!(r[3].count, 0);
    let opts = ReachOptions {
        collect: Collect::Ids,
        include_seeds: true,
        max_depth: Some(1),
        ..Default::default()
    };
    let r = adj.reach_ids(&[3, 99], &opts);
    assert_eq!(r[0].ids.as_deref(), Some(&[1, 3, 4][..]));
    assert_eq!(r[1].ids.as_deref(), Some(&[99][..]));
}

#[test]
fn report_serializes() {
    let (_dir, rete, _store) = setup(6, 50, 60);
    let link = NamedNode::new_unchecked(format!("{EX}link"));
    let r = reach(&rete, link.as_ref(), &seeds(50), &ReachOptions::default()).expect("reach");
    let json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["direction"], "forward");
    assert_eq!(json["seeds"][0]["seed"], format!("<{EX}n0>"));
    assert!(json["seeds"][0].get("terms").is_none());
    assert_eq!(r.total, r.seeds.iter().map(|s| s.count).sum::<u64>());
    // An absent predicate reaches nothing.
    let none = reach(
        &rete,
        NamedNode::new_unchecked(format!("{EX}nope")).as_ref(),
        &seeds(50),
        &ReachOptions::default(),
    )
    .expect("reach");
    assert_eq!((none.edges, none.total), (0, 0));
}
