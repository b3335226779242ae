//! Quality against a reference: the finest level's modularity must be within 5 % of networkx's
//! Louvain on the social graph. Needs Python 3 with networkx (`pip install networkx`); without it
//! the test fails with that instruction (it is never skipped).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{pyramid_of, social_nt};
use rete_pyramid::{EntityGraph, PyramidOptions};
use std::io::Write;
use std::process::Command;

const INSTALL: &str = "this test needs Python 3 with networkx: `pip install networkx` \
     (set PYTHON to choose the interpreter)";

#[test]
fn finest_level_modularity_within_5_percent_of_networkx() {
    let dir = tempfile::tempdir().unwrap();
    // The benchmark's social graph at its default size.
    let nt = social_nt(dir.path(), 20_000);
    let options = PyramidOptions::default();
    let (rete, p) = pyramid_of(&nt, &dir.path().join("s.rete"), options.clone());

    let edges = dir.path().join("edges.tsv");
    let graph = EntityGraph::from_rete(&rete).unwrap();
    assert_eq!(graph.node_count() as u64, p.entity_count());
    graph
        .write_edge_list(std::io::BufWriter::new(
            std::fs::File::create(&edges).unwrap(),
        ))
        .unwrap();
    let partition = dir.path().join("partition.tsv");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&partition).unwrap());
    let level0 = p.level(0).unwrap();
    for c in &level0.communities {
        for m in p.members(c.id).unwrap() {
            writeln!(out, "{}\t{}", m.id, c.id).unwrap();
        }
    }
    drop(out);

    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/networkx_louvain.py");
    let run = Command::new(&python)
        .arg(script)
        .arg(&edges)
        .arg(&partition)
        .arg(options.resolution.to_string())
        .arg("42")
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{python}` ({e}); {INSTALL}"));
    let stderr = String::from_utf8_lossy(&run.stderr);
    if run.status.code() == Some(3) {
        panic!("networkx is missing; {INSTALL}\n{stderr}");
    }
    assert!(
        run.status.success(),
        "reference script failed: {stderr}; {INSTALL}"
    );
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let reference = v["reference"].as_f64().unwrap();
    let ours_by_networkx = v["ours"].as_f64().unwrap();
    let ours = p.level_info()[0].modularity;
    eprintln!(
        "networkx {}: reference Louvain Q = {reference:.4} ({} communities); \
         ours Q = {ours:.4} ({} communities), networkx computes {ours_by_networkx:.4} for ours",
        v["networkx_version"],
        v["reference_communities"],
        level0.communities.len()
    );
    // Our modularity is computed the way networkx computes it.
    assert!(
        (ours - ours_by_networkx).abs() < 1e-9,
        "stored modularity {ours} vs networkx's {ours_by_networkx} for the same partition"
    );
    assert!(
        ours >= reference * 0.95,
        "finest level Q = {ours} is more than 5 % below networkx's {reference}"
    );
}
