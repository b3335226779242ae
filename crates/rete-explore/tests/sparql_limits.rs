//! The SPARQL pane's runaway limits through the command bodies: a query stopped by its time
//! limit says so, CONSTRUCT results are sets, and graph results export as triples.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_explore::ops;
use rete_explore::store::Store;

fn small(dir: &std::path::Path) -> String {
    let mut data = String::from("@prefix ex: <http://example.org/> .\n");
    for i in 0..300 {
        data.push_str(&format!("ex:s{i} ex:p ex:o{} ; ex:n {i} .\n", i % 5));
    }
    let out = dir.join("s.rete");
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "s.ttl",
                data.into_bytes(),
                rete_build::Syntax::Turtle,
            )],
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    out.display().to_string()
}

/// A fresh store with [`small`] open in it: (folder guard, store, document).
fn open_small() -> (tempfile::TempDir, Store, u32) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::default();
    let info = ops::open_path(&store, &small(dir.path())).unwrap();
    (dir, store, info.doc)
}

#[test]
fn the_time_limit_stops_a_query_and_says_so() {
    let (_dir, store, doc) = open_small();
    // 600³ rows: far beyond 50 ms on any machine.
    let q = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }";
    let out = ops::sparql_run_within(&store, doc, 1, q, Some(50)).unwrap();
    assert_eq!(out.status, "timeout", "{:?}", out.error);
    let message = out.error.unwrap().message;
    assert!(message.contains("time limit of 0.05 s"), "{message}");
    // A quick query under the same limit runs.
    let ok = ops::sparql_run_within(&store, doc, 2, "ASK { ?s ?p ?o }", Some(60_000)).unwrap();
    assert_eq!((ok.status.as_str(), ok.boolean), ("ok", Some(true)));
}

#[test]
fn construct_results_are_sets_in_the_view_and_the_export() {
    let (dir, store, doc) = open_small();
    let q = "PREFIX ex: <http://example.org/>\nCONSTRUCT { ?o ex:hasSubject ex:any } WHERE { ?s ex:p ?o }";
    let out = ops::sparql_run(&store, doc, 3, q).unwrap();
    assert_eq!(out.status, "ok");
    assert_eq!(out.total, 5, "one triple per object, not per solution");
    let path = dir.path().join("g.nt");
    ops::sparql_write(&store, 3, "ntriples", &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 5, "{text}");
    let csv = dir.path().join("g.csv");
    ops::sparql_write(&store, 3, "csv", &csv).unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("subject,predicate,object"), "{text}");
    assert_eq!(text.lines().count(), 6);
}
