//! The pyramid map, the schema legend, SPARQL, coherence and remote reading, through the command
//! bodies (`commands::ops`), on files built with a pyramid and a schema block from the
//! deterministic generators (`tests/fixtures`). Set `RETE_FIXTURES` to build them into (or reuse
//! them from) a folder; by default they go to a temporary folder per run.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;
mod fixtures;

use common::open_served;
use fixtures::fixture;
use rete_explore::model::{DocInfo, MapNode, PathFilters, QueryOutcome};
use rete_explore::ops::{self, PathQuery};
use rete_explore::store::Store;
use std::sync::Arc;

const PERSON: &str = "<http://xmlns.com/foaf/0.1/Person>";
const MED: &str = "http://example.org/medical#";

fn open(store: &Store, name: &str) -> DocInfo {
    ops::open_path(store, &fixture(name).display().to_string()).expect("fixture opens")
}

fn centre(n: &MapNode) -> (f32, f32, f32) {
    (n.x.unwrap(), n.y.unwrap(), n.r.unwrap())
}

fn inside(n: &MapNode, (x, y, r): (f32, f32, f32)) -> bool {
    let d = ((n.x.unwrap() - x).powi(2) + (n.y.unwrap() - y).powi(2)).sqrt();
    d <= r * 1.001 + 1e-3
}

#[test]
fn a_file_with_a_pyramid_opens_on_its_top_level() {
    // Every fixture builds (the e2e suite opens them from RETE_FIXTURES).
    for name in fixtures::NAMES {
        assert!(fixture(name).is_file());
    }
    let store = Store::default();
    let small = open(&store, "social-1k.rete");
    assert!(small.has_pyramid && small.has_schema && small.levels >= 1);
    let info = open(&store, "social-20k.rete");
    assert!(info.levels >= 2, "{} levels", info.levels);
    let map = ops::overview(&store, info.doc).unwrap();
    assert_eq!(map.kind, "pyramid");
    assert!(map.nodes.len() > 1);
    let top = info.levels as u32 - 1;
    let total: u64 = map.nodes.iter().map(|n| n.size).sum();
    assert_eq!(total, 20_000, "the top level holds every person once");
    for n in &map.nodes {
        assert_eq!(n.kind, "community");
        assert!(n.key.starts_with(&format!("c{top}:")), "{}", n.key);
        assert_eq!(n.level, Some(top));
        assert!(n.r.is_some_and(|r| r > 0.0));
        assert_eq!(
            n.class.as_deref(),
            Some(PERSON),
            "coloured by dominant class"
        );
        assert!(n.expandable);
        assert_eq!(n.classes[0].nt, PERSON);
    }
    assert!(
        !map.edges.is_empty(),
        "communities are linked by super-edges"
    );
    for e in &map.edges {
        assert!(e.weight > 0);
        assert!(e.label.contains("knows"), "{}", e.label);
        assert!(map.nodes.iter().any(|n| n.key == e.source));
        assert!(map.nodes.iter().any(|n| n.key == e.target));
    }
}

#[test]
fn zooming_opens_communities_down_to_entities_that_locate_back() {
    let store = Store::default();
    let info = open(&store, "social-20k.rete");
    let map = ops::overview(&store, info.doc).unwrap();
    let mut node = map.nodes.iter().max_by_key(|n| n.size).unwrap().clone();
    let mut path = vec![node.key.clone()];
    // Children lie inside their parent's circle, one level down each time.
    while node.level.unwrap() > 0 {
        let (x, y, r) = centre(&node);
        let kids = ops::expand(&store, info.doc, &node.key, x, y, r).unwrap();
        assert_eq!(kids.kind, "children");
        assert!(!kids.nodes.is_empty());
        let level = node.level.unwrap() - 1;
        for k in &kids.nodes {
            assert_eq!(k.level, Some(level));
            assert!(inside(k, (x, y, r)), "{} outside {}", k.key, node.key);
        }
        assert_eq!(kids.nodes.iter().map(|k| k.size).sum::<u64>(), node.size);
        node = kids.nodes.iter().max_by_key(|n| n.size).unwrap().clone();
        path.push(node.key.clone());
    }
    let c = centre(&node);
    let members = ops::expand(&store, info.doc, &node.key, c.0, c.1, c.2).unwrap();
    assert_eq!(members.kind, "members");
    assert_eq!(members.nodes.len() as u64, node.size);
    assert!(members
        .nodes
        .iter()
        .all(|m| m.kind == "entity" && inside(m, c)));
    assert!(members
        .nodes
        .iter()
        .all(|m| m.class.as_deref() == Some(PERSON)));
    assert!(
        !members.edges.is_empty(),
        "people in one community know each other"
    );
    let m = &members.nodes[0];
    assert!(
        !m.label.contains("person/"),
        "labels come from foaf:name: {}",
        m.label
    );
    // Where does this entity live? The same path back.
    let details = ops::entity(&store, info.doc, m.id).unwrap();
    let located = ops::locate(
        &store,
        info.doc,
        &[details.term.nt.clone(), "<http://nowhere.example/x>".into()],
    )
    .unwrap();
    let mut want = path.clone();
    want.push(m.key.clone());
    assert_eq!(located[0].keys, want);
    assert_eq!(located[0].id, Some(m.id));
    assert!(located[1].keys.is_empty() && located[1].id.is_none());
}

#[test]
fn community_details_come_from_the_pyramid() {
    let store = Store::default();
    let info = open(&store, "social-20k.rete");
    let map = ops::overview(&store, info.doc).unwrap();
    let big = map.nodes.iter().max_by_key(|n| n.size).unwrap();
    let g = ops::group(&store, info.doc, &big.key).unwrap();
    assert_eq!(g.size, big.size);
    assert_eq!(g.label, big.label);
    assert_eq!(g.level, big.level);
    assert_eq!(g.classes[0].nt, PERSON);
    assert!(
        !g.children.is_empty(),
        "a top community lists its sub-communities"
    );
    let linked = map
        .edges
        .iter()
        .any(|e| e.source == big.key || e.target == big.key);
    assert_eq!(!g.links.is_empty(), linked);
    for l in &g.links {
        assert!(map
            .nodes
            .iter()
            .any(|n| n.key == l.key && n.label == l.label));
    }
    // A level-0 community lists members (its key read from the locate path of an entity).
    let members = ops::sparql_run(
        &store,
        info.doc,
        1,
        "SELECT ?s WHERE { ?s a <http://xmlns.com/foaf/0.1/Person> } LIMIT 1",
    )
    .unwrap();
    let nt = members.rows[0][0].as_ref().unwrap().nt.clone();
    let keys = &ops::locate(&store, info.doc, &[nt]).unwrap()[0].keys;
    let finest = &keys[keys.len() - 2];
    assert!(finest.starts_with("c0:"));
    let g0 = ops::group(&store, info.doc, finest).unwrap();
    assert!(!g0.sample.is_empty() && g0.children.is_empty());
    assert!(ops::group(&store, info.doc, "c99:0").is_err());
}

#[test]
fn the_schema_legend_is_a_class_tree_with_relations() {
    let store = Store::default();
    let info = open(&store, "medical-1k.rete");
    let legend = ops::legend(&store, info.doc).unwrap();
    assert_eq!(legend.source, "schema");
    let find = |local: &str| {
        legend
            .classes
            .iter()
            .position(|c| c.nt == format!("<{MED}{local}>"))
            .unwrap_or_else(|| panic!("class {local}"))
    };
    let (patient, person) = (find("Patient"), find("Person"));
    assert!(
        legend.classes[patient].parents.contains(&person),
        "Patient ⊑ Person"
    );
    assert!(legend.classes[person].total >= legend.classes[patient].total);
    assert!(legend.classes[patient].total > 0);
    find("Relapsed");
    // Most instances first.
    assert!(legend.classes.windows(2).all(|w| w[0].total >= w[1].total));
    assert!(!legend.relations.is_empty());
    for r in &legend.relations {
        assert!(r.domain.starts_with('<') && r.range.starts_with('<'));
        assert!(r.predicate.count > 0);
    }
    // Files without a schema block keep the card's legend.
    let plain = open(&store, "social-1k-plain.rete");
    assert!(!plain.has_pyramid && !plain.has_schema);
    assert_eq!(ops::legend(&store, plain.doc).unwrap().source, "card");
    assert_eq!(ops::overview(&store, plain.doc).unwrap().kind, "classes");
}

/// [`run`] on `social-1k.rete`, opened in a fresh store: (store, document, outcome).
fn run_on_social(run_id: u32, q: &str) -> (Store, u32, QueryOutcome) {
    let store = Store::default();
    let doc = open(&store, "social-1k.rete").doc;
    let out = run(&store, doc, run_id, q);
    (store, doc, out)
}

fn run(store: &Store, doc: u32, run: u32, q: &str) -> QueryOutcome {
    let out = ops::sparql_run(store, doc, run, q).unwrap();
    assert_eq!(out.status, "ok", "{q}: {:?}", out.error);
    out
}

#[test]
fn select_results_page_link_to_entities_and_export() {
    let (store, doc, out) = run_on_social(7, "PREFIX foaf: <http://xmlns.com/foaf/0.1/>\nSELECT ?person ?name WHERE { ?person foaf:name ?name }");
    assert_eq!(out.kind, "select");
    assert_eq!(out.columns, ["person", "name"]);
    assert_eq!(out.total, 1000);
    assert_eq!(out.rows.len(), ops::FIRST_ROWS);
    let page = ops::sparql_rows(&store, 7, 950, 100).unwrap();
    assert_eq!(page.len(), 50);
    let person = page[0][0].as_ref().unwrap();
    assert_eq!(person.kind, "iri");
    assert!(person.id > 0, "IRIs of the file carry their id");
    let name = page[0][1].as_ref().unwrap();
    assert_eq!((name.kind.as_str(), name.id), ("literal", 0));
    let details = ops::entity(&store, doc, person.id).unwrap();
    assert_eq!(details.term.nt, person.nt);
    assert_eq!(details.term.label, name.label);

    let dir = tempfile::tempdir().unwrap();
    for (fmt, lines) in [("csv", 1001), ("tsv", 1001)] {
        let p = dir.path().join(format!("r.{fmt}"));
        ops::sparql_write(&store, 7, fmt, &p).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text.lines().count(), lines, "{fmt}");
    }
    let p = dir.path().join("r.json");
    ops::sparql_write(&store, 7, "json", &p).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    assert_eq!(json["head"]["vars"], serde_json::json!(["person", "name"]));
    assert_eq!(json["results"]["bindings"].as_array().unwrap().len(), 1000);
    assert!(ops::sparql_write(&store, 7, "xls", &p).is_err());
    assert!(ops::sparql_rows(&store, 999, 0, 10).is_err());
}

#[test]
fn syntax_errors_carry_line_and_column() {
    let store = Store::default();
    let info = open(&store, "social-1k.rete");
    let out = ops::sparql_run(&store, info.doc, 1, "SELECT ?s\nWHERE {\n  ?s ?p ?o ..\n}").unwrap();
    assert_eq!(out.status, "error");
    let e = out.error.unwrap();
    assert!((3..=4).contains(&e.line), "{e:?}");
    assert!(e.column >= 1, "{e:?}");
    let cost = ops::sparql_cost(&store, info.doc, "SELECT WHERE").unwrap();
    assert!(cost.error.is_some_and(|e| e.line == 1));
    let out = ops::sparql_run(
        &store,
        info.doc,
        2,
        "SELECT ?x WHERE { ?x undeclared:p ?y }",
    )
    .unwrap();
    assert_eq!(out.status, "error");
}

#[test]
fn construct_results_come_as_a_graph_and_ask_as_a_boolean() {
    let (store, doc, out) = run_on_social(3, "CONSTRUCT { ?a <http://xmlns.com/foaf/0.1/knows> ?b } WHERE { ?a <http://xmlns.com/foaf/0.1/knows> ?b } LIMIT 50");
    assert_eq!(out.kind, "graph");
    assert_eq!(out.columns, ["subject", "predicate", "object"]);
    assert_eq!(out.total, 50);
    let g = out.graph.unwrap();
    assert!(g.nodes.len() > 1);
    assert!(!g.edges.is_empty() && g.edges.iter().all(|e| e.label.contains("knows")));
    assert!(g.nodes.iter().all(|n| n.key.starts_with("e:") && n.id > 0));
    let ask = run(
        &store,
        doc,
        4,
        "ASK { ?s a <http://xmlns.com/foaf/0.1/Person> }",
    );
    assert_eq!((ask.kind.as_str(), ask.boolean), ("ask", Some(true)));
}

#[test]
fn queries_can_be_cancelled_before_and_while_running() {
    let store = Arc::new(Store::default());
    let info = open(&store, "social-1k.rete");
    ops::sparql_cancel(&store, 5);
    let out = ops::sparql_run(&store, info.doc, 5, "SELECT * WHERE { ?s ?p ?o }").unwrap();
    assert_eq!(out.status, "cancelled");
    // A query that would run for hours: cancel it from another thread.
    let s2 = store.clone();
    let doc = info.doc;
    let worker = std::thread::spawn(move || {
        ops::sparql_run(
            &s2,
            doc,
            6,
            "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
        )
        .unwrap()
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    ops::sparql_cancel(&store, 6);
    let out = worker.join().unwrap();
    assert_eq!(out.status, "cancelled", "{:?}", out.error);
    // The flag does not leak into the next run with another handle.
    let again = run(&store, info.doc, 8, "ASK { ?s ?p ?o }");
    assert_eq!(again.boolean, Some(true));
}

#[test]
fn the_cost_estimate_bounds_what_a_query_reads() {
    let store = Store::default();
    let info = open(&store, "social-20k.rete");
    let q = "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://xmlns.com/foaf/0.1/knows> ?o }";
    let cost = ops::sparql_cost(&store, info.doc, q).unwrap();
    assert!(cost.error.is_none());
    assert_eq!((cost.patterns, cost.absent), (1, 0));
    assert!(cost.bytes > 0 && cost.requests > 0, "{cost:?}");
    let out = run(&store, info.doc, 1, q);
    assert!(
        out.read.bytes <= cost.bytes,
        "read {} > estimate {}",
        out.read.bytes,
        cost.bytes
    );
    // Reading the pattern's blocks caches them: nothing is left to fetch for it.
    let q2 = "SELECT ?s ?o WHERE { ?s <http://xmlns.com/foaf/0.1/knows> ?o }";
    let out = run(&store, info.doc, 2, q2);
    assert!(out.read.bytes > 0);
    let again = ops::sparql_cost(&store, info.doc, q).unwrap();
    assert!(again.bytes < cost.bytes, "{again:?}");
    // A constant the file does not have: the pattern is free.
    let none = ops::sparql_cost(
        &store,
        info.doc,
        "SELECT * WHERE { ?s <http://nowhere.example/p> ?o }",
    )
    .unwrap();
    assert_eq!((none.patterns, none.absent, none.bytes), (1, 1, 0));
    let path = ops::sparql_cost(
        &store,
        info.doc,
        "SELECT * WHERE { ?s <http://xmlns.com/foaf/0.1/knows>+ ?o }",
    )
    .unwrap();
    assert!(path.partial);
}

#[test]
fn coherence_runs_the_three_tiers_and_finds_the_planted_defects() {
    let store = Store::default();
    let info = open(&store, "medical-1k.rete");
    let mut tiers = Vec::new();
    let out = ops::coherence_run(&store, info.doc, 1, |r| {
        tiers.push((r.tier, r.findings.len()))
    })
    .unwrap();
    assert_eq!(out.status, "ok");
    assert_eq!(tiers.iter().map(|t| t.0).collect::<Vec<_>>(), [0, 1, 2]);
    assert!(tiers.windows(2).all(|w| w[0].1 <= w[1].1), "{tiers:?}");
    let report = out.report.unwrap();
    let unsat = report
        .findings
        .iter()
        .find(|f| f.kind == "unsatisfiable-class")
        .expect("the planted unsatisfiable class");
    assert!(unsat.classes.contains(&format!("{MED}Relapsed")));
    assert!(unsat.explanation.len() >= 3, "{:?}", unsat.explanation);
    let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind.as_str()).collect();
    for k in [
        "disjoint-class-clash",
        "functional-violation",
        "irreflexive-violation",
    ] {
        assert!(kinds.contains(&k), "{k} missing from {kinds:?}");
    }
    // The entities of a finding are located in the pyramid.
    let clash = report
        .findings
        .iter()
        .find(|f| f.kind == "disjoint-class-clash")
        .unwrap();
    let located = ops::locate(&store, info.doc, &clash.entities).unwrap();
    assert!(located.iter().any(|l| l.keys.len() >= 2), "{located:?}");
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("r.md");
    ops::coherence_write(&store, info.doc, "md", &md).unwrap();
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.starts_with("# Coherence report"));
    assert!(text.contains("unsatisfiable-class") && text.contains("Relapsed"));
    let js = dir.path().join("r.json");
    ops::coherence_write(&store, info.doc, "json", &js).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&js).unwrap()).unwrap();
    assert_eq!(
        v["findings"].as_array().unwrap().len(),
        report.findings.len()
    );
    // A cancelled run stops early.
    ops::coherence_cancel(&store, 2);
    let c = ops::coherence_run(&store, info.doc, 2, |_| {}).unwrap();
    assert_eq!(c.status, "cancelled");
}

#[test]
fn sparql_context_offers_prefixes_vocabulary_and_examples() {
    let store = Store::default();
    let info = open(&store, "medical-1k.rete");
    let ctx = ops::sparql_context(&store, info.doc).unwrap();
    assert!(
        ctx.prefixes.iter().any(|(p, ns)| p.is_empty() && ns == MED)
            || ctx.prefixes.iter().any(|(_, ns)| ns == MED),
        "{:?}",
        ctx.prefixes
    );
    assert!(ctx.prefixes.iter().any(|(p, _)| p == "rdfs"));
    assert!(ctx
        .classes
        .iter()
        .any(|c| c.iri == format!("{MED}Patient") && c.count > 0));
    assert!(ctx.predicates.len() > 3);
    assert!(ctx.examples.len() >= 4);
    // Every example runs (prefixes it uses are declared by the UI; here, by hand).
    let decl: String = ctx
        .prefixes
        .iter()
        .map(|(p, ns)| format!("PREFIX {p}: <{ns}>\n"))
        .collect();
    for (i, ex) in ctx.examples.iter().enumerate() {
        if ex.title == "All triples" {
            continue;
        }
        let out = ops::sparql_run(
            &store,
            info.doc,
            100 + i as u32,
            &format!("{decl}{}", ex.query),
        )
        .unwrap();
        assert_eq!(out.status, "ok", "{}: {:?}", ex.title, out.error);
        assert!(
            out.total > 0 || out.boolean.is_some(),
            "{} is empty",
            ex.title
        );
    }
}

#[test]
fn remote_files_count_bytes_and_requests() {
    let store = Store::default();
    let (_, info) = open_served(&store, &fixture("social-1k.rete"), 500);
    assert!(info.remote && info.has_pyramid);
    let first = ops::read_stats(&store, info.doc).unwrap();
    assert!(first.remote && first.requests >= 1 && first.bytes > 0);
    let map = ops::overview(&store, info.doc).unwrap();
    assert_eq!(map.kind, "pyramid");
    let q = "SELECT ?o WHERE { ?s <http://xmlns.com/foaf/0.1/knows> ?o }";
    let cost = ops::sparql_cost(&store, info.doc, q).unwrap();
    assert!(cost.requests >= 1 && cost.bytes > 0, "{cost:?}");
    let out = run(&store, info.doc, 1, q);
    assert!(out.read.remote && out.read.requests >= 1);
    let after = ops::read_stats(&store, info.doc).unwrap();
    assert!(after.bytes > first.bytes && after.requests > first.requests);
    let local = open(&store, "social-1k.rete");
    assert!(!ops::read_stats(&store, local.doc).unwrap().remote);
}

/// Over HTTP the document opens its search index with the map's first reads (one batch), so the
/// first keystroke starts at the postings: on the 20k-people file, whose postings, first
/// document blocks and dictionary all come with that batch, it reads nothing more; the open
/// itself takes two requests, and the hits are those of the file read from the disk. nginx
/// answers several ranges at once, as the batches need.
#[test]
fn the_first_search_over_http_starts_at_the_postings() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("social-20k.rete"), dir.path().join("s.rete")).unwrap();
    let (_nginx, base) = rete_http::serve_dir::serve_dir_nginx(dir.path(), work.path()).unwrap();
    let store = Store::default();
    let info = ops::open_url(&store, &format!("{base}/s.rete")).unwrap();
    // The header, then one batch: the index's, the pyramid's and the dictionary's small sections
    // and the first document blocks.
    let opened = ops::read_stats(&store, info.doc).unwrap();
    assert!(opened.requests <= 2, "{opened:?}");
    let local = open(&store, "social-20k.rete");
    for (i, text) in ["ada", "ada l", "radia go"].into_iter().enumerate() {
        let req = rete_explore::engine::SearchRequest {
            text: text.to_owned(),
            limit: 10,
            ..Default::default()
        };
        let before = ops::read_stats(&store, info.doc).unwrap().requests;
        let hits = ops::search(&store, info.doc, i as u32, &req).unwrap().hits;
        let requests = ops::read_stats(&store, info.doc).unwrap().requests - before;
        assert!(!hits.is_empty(), "{text}");
        // The sample's whole dictionary and its first document blocks (the documents ranked
        // first, these hits among them) came with the open: nothing more is read.
        assert_eq!(requests, 0, "{text}");
        let from_disk = ops::search(&store, local.doc, 10 + i as u32, &req)
            .unwrap()
            .hits;
        let terms = |h: &[rete_explore::model::SearchHit]| -> Vec<String> {
            h.iter().map(|h| h.nt.clone()).collect()
        };
        assert_eq!(terms(&hits), terms(&from_disk), "{text}");
    }
    // All the matches' communities: the same over HTTP as from the disk.
    let req = rete_explore::engine::SearchRequest {
        text: "ada".into(),
        ..Default::default()
    };
    let remote = ops::search_spread(&store, info.doc, 20, &req).unwrap();
    assert!(remote.placed > 10, "{}", remote.placed);
    assert_eq!(
        remote,
        ops::search_spread(&store, local.doc, 21, &req).unwrap()
    );
}

/// A level-0 community read over HTTP, where the links among its members are fetched ahead in
/// batches (`Rete::prefetch`, spans on parallel connections), is the one read from the disk.
#[test]
fn a_community_opens_over_http_as_from_the_disk() {
    let store = Store::default();
    let local = open(&store, "social-1k.rete");
    let (_, remote) = open_served(&store, &fixture("social-1k.rete"), 500);
    assert!(remote.remote);
    let mut views = Vec::new();
    for doc in [local.doc, remote.doc] {
        let map = ops::overview(&store, doc).unwrap();
        let mut node = map.nodes.iter().max_by_key(|n| n.size).unwrap().clone();
        while node.level.unwrap() > 0 {
            let (x, y, r) = centre(&node);
            let kids = ops::expand(&store, doc, &node.key, x, y, r).unwrap();
            node = kids.nodes.iter().max_by_key(|n| n.size).unwrap().clone();
        }
        let (x, y, r) = centre(&node);
        let members = ops::expand(&store, doc, &node.key, x, y, r).unwrap();
        assert_eq!(members.kind, "members");
        assert!(!members.edges.is_empty());
        views.push(serde_json::to_value(&members).unwrap());
    }
    assert_eq!(views[0], views[1]);
    // Only the remote document keeps fetched ranges, within their bound.
    let m = ops::memory_use(&store);
    let of = |doc: u32| *m.docs.iter().find(|d| d.doc == doc).unwrap();
    assert_eq!(
        (of(local.doc).range_bytes, of(local.doc).max_range_bytes),
        (0, 0)
    );
    let r = of(remote.doc);
    assert!(
        r.range_bytes > 0 && r.range_bytes <= r.max_range_bytes,
        "{r:?}"
    );
}

#[test]
fn the_shell_resolves_prefixes_and_explains_syntax_errors() {
    let store = Store::default();
    let info = open(&store, "social-1k.rete");
    // Well-known prefixes need no PREFIX line (the same definition as the CLI's).
    let out = ops::sparql_run(
        &store,
        info.doc,
        1,
        "SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }",
    )
    .unwrap();
    assert_eq!(out.status, "ok", "{:?}", out.error);
    let out = ops::sparql_run(&store, info.doc, 2, "SELECT ?x WHERE { ?x ex:p ?y }").unwrap();
    let e = out.error.unwrap();
    assert_eq!((e.line, e.column), (1, 22), "{e:?}");
    assert_eq!(
        e.message,
        "unknown prefix \"ex:\" — declare it with PREFIX ex: <namespace IRI>"
    );
    let cost = ops::sparql_cost(&store, info.doc, "SELECT * WHERE { ?s ?p ?o ").unwrap();
    let e = cost.error.unwrap();
    assert!(e.message.contains("group opened at 1:16"), "{e:?}");
}

/// What an exploration fills is reported with each cache's bound, and stays within it.
#[test]
fn memory_use_reports_each_cache_within_its_bound() {
    let store = Store::default();
    let info = open(&store, "social-20k.rete");
    let fresh = ops::memory_use(&store);
    assert_eq!(fresh.docs.len(), 1);
    assert_eq!(fresh.docs[0].doc, info.doc);
    assert_eq!((fresh.kept_results, fresh.max_kept_results), (0, 3));
    // Every community down to the members of each level-0 one, with their details.
    let mut open_now = ops::overview(&store, info.doc).unwrap().nodes;
    let mut entities = Vec::new();
    while let Some(n) = open_now.pop() {
        ops::group(&store, info.doc, &n.key).unwrap();
        let (x, y, r) = centre(&n);
        let view = ops::expand(&store, info.doc, &n.key, x, y, r).unwrap();
        if view.kind == "members" {
            entities.push(view.nodes[0].id);
        } else {
            open_now.extend(view.nodes);
        }
    }
    for id in entities.iter().take(50) {
        ops::entity(&store, info.doc, *id).unwrap();
    }
    for run_id in 1..=5 {
        run(
            &store,
            info.doc,
            run_id,
            &format!("SELECT ?o WHERE {{ <http://example.org/social/person/{run_id}> ?p ?o }}"),
        );
    }
    let m = ops::memory_use(&store);
    assert_eq!((m.kept_results, m.max_kept_results), (3, 3));
    assert!(m.kept_result_bytes > 0 && m.kept_result_bytes <= m.max_kept_result_bytes);
    let d = m.docs[0];
    assert!(d.blocks > 0 && d.block_bytes > 0, "{d:?}");
    assert!(d.block_bytes <= d.max_block_bytes, "{d:?}");
    assert!(d.directory_bytes > 0, "{d:?}");
    assert!(
        d.pyramid_blocks > 0 && d.pyramid_blocks <= d.max_pyramid_blocks,
        "{d:?}"
    );
    assert!(d.pyramid_bytes > 0, "{d:?}");
    assert!(
        d.seen_items > 0 && d.seen_items <= d.max_seen_items,
        "{d:?}"
    );
    // Each kept item holds at least its record.
    assert!(d.seen_bytes > d.seen_items * 16, "{d:?}");
    store.close(info.doc);
    assert!(ops::memory_use(&store).docs.is_empty());
}

#[test]
fn a_file_in_named_graphs_answers_over_all_graphs_and_says_why_when_it_does_not() {
    // Published vocabularies, one named graph each, nothing in the default graph: the map shows
    // them all; the query pane answers over all graphs when asked to, and an empty answer over
    // the default graph alone says why.
    let store = Store::default();
    let info = open(&store, "vocabularies.rete");
    assert!(info.graphs >= 5, "{} named graphs", info.graphs);
    // N-Quads declare no prefix: classes and predicates go by the well-known ones, not by local
    // names alone (`owl:Class` and `rdfs:Class` would both be "Class").
    let classes: Vec<&str> = info.classes.iter().map(|c| c.label.as_str()).collect();
    assert!(classes.contains(&"owl:Class"), "{classes:?}");
    let predicates: Vec<&str> = info
        .top_predicates
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    assert!(predicates.contains(&"rdfs:label"), "{predicates:?}");
    let q = "SELECT ?c WHERE { ?c a owl:Class }";
    let run = |run, all_graphs| {
        ops::sparql_run_with(
            &store,
            info.doc,
            run,
            q,
            ops::RunOptions {
                timeout_ms: None,
                all_graphs,
                ..ops::RunOptions::default()
            },
        )
        .unwrap()
    };
    let all = run(1, true);
    assert_eq!(all.status, "ok", "{:?}", all.error);
    assert!(all.total > 0);
    assert_eq!(all.hint, None);
    let strict = run(2, false);
    assert_eq!((strict.status.as_str(), strict.total), ("ok", 0));
    let hint = strict
        .hint
        .expect("an empty answer over the empty default graph says why");
    assert!(hint.contains("default graph is empty"), "{hint}");
    assert!(
        hint.contains(&format!("{} named graphs", info.graphs)),
        "{hint}"
    );
    assert!(hint.contains("switch to all graphs"), "{hint}");
    // The cost preview follows the switch: over the empty default graph nothing is read.
    let none = ops::sparql_cost_with(&store, info.doc, q, false).unwrap();
    let some = ops::sparql_cost_with(&store, info.doc, q, true).unwrap();
    assert_eq!(none.error, None);
    assert!(some.bytes >= none.bytes);
    // The protocol's own dataset still wins: FROM names the graph read.
    let from = ops::sparql_run_with(
        &store,
        info.doc,
        3,
        "SELECT ?c FROM <http://xmlns.com/foaf/0.1/> WHERE { ?c a owl:Class }",
        ops::RunOptions {
            timeout_ms: None,
            all_graphs: true,
            ..ops::RunOptions::default()
        },
    )
    .unwrap();
    assert!(
        from.total > 0 && from.total < all.total,
        "{} of {}",
        from.total,
        all.total
    );
}

#[test]
fn the_search_box_finds_an_entity_with_the_communities_to_open_down_to_it() {
    let store = Store::default();
    let info = open(&store, "social-1k.rete");
    let people = ops::sparql_run(
        &store,
        info.doc,
        1,
        "SELECT ?p ?name WHERE { ?p foaf:name ?name } ORDER BY ?name LIMIT 1",
    )
    .unwrap();
    let name = people.rows[0][1].as_ref().unwrap().label.clone();
    let nt = people.rows[0][0].as_ref().unwrap().nt.clone();
    let req = |text: &str| rete_explore::engine::SearchRequest {
        text: text.to_owned(),
        limit: 10,
        ..Default::default()
    };
    // Lower case, the words' starts, in any order.
    let words: Vec<&str> = name.split_whitespace().collect();
    let typed = words
        .iter()
        .rev()
        .map(|w| w.to_lowercase()[..w.len().min(3)].to_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let found = ops::search(&store, info.doc, 1, &req(&typed)).unwrap();
    assert!(found.indexed, "the fixture has a search index");
    let hit = found
        .hits
        .iter()
        .find(|h| h.nt == nt)
        .unwrap_or_else(|| panic!("{typed:?} does not find {name}: {:?}", found.hits));
    assert_eq!(hit.kind, "entity");
    assert!(hit.id > 0);
    assert_eq!(hit.path.len(), info.levels, "{:?}", hit.path);
    // The path opens from the top: each community holds the next, down to the entity.
    let located = ops::locate(&store, info.doc, std::slice::from_ref(&nt)).unwrap();
    let mut from_top = located[0].keys.clone();
    from_top.retain(|k| k.starts_with('c'));
    assert_eq!(hit.path, from_top);
    // A file without an index answers too, by scanning its labels.
    let plain = open(&store, "social-1k-plain.rete");
    let scanned = ops::search(&store, plain.doc, 2, &req(&name)).unwrap();
    assert!(!scanned.indexed);
    assert!(
        scanned.hits.iter().any(|h| h.nt == nt),
        "{:?}",
        scanned.hits
    );
    // Bad input: an empty query, punctuation, a huge query, a key that is not a community.
    assert!(ops::search(&store, info.doc, 3, &req(""))
        .unwrap()
        .hits
        .is_empty());
    assert!(ops::search(&store, info.doc, 4, &req("?!…"))
        .unwrap()
        .hits
        .is_empty());
    assert!(ops::search(&store, info.doc, 5, &req(&"a".repeat(10_000))).is_ok());
    let within = rete_explore::engine::SearchRequest {
        within: Some("e:1".into()),
        ..req(&typed)
    };
    let err = ops::search(&store, info.doc, 6, &within).unwrap_err();
    assert!(err.to_string().contains("not a community"), "{err}");
    // Show all matches: the communities holding them on every level, keyed as the map keys
    // them, the top level's among the overview's nodes, the entity found among them.
    let spread = ops::search_spread(&store, info.doc, 7, &req(&words[0][..2])).unwrap();
    assert!(spread.complete && spread.entities >= spread.placed && spread.placed >= 1);
    let top = format!("c{}:", info.levels - 1);
    let tops: Vec<_> = spread
        .communities
        .iter()
        .filter(|c| c.key.starts_with(&top))
        .collect();
    assert_eq!(tops.iter().map(|c| c.count).sum::<u64>(), spread.placed);
    assert!(tops.windows(2).all(|w| w[0].count >= w[1].count));
    let overview = ops::overview(&store, info.doc).unwrap();
    for c in &tops {
        assert!(overview.nodes.iter().any(|n| n.key == c.key), "{}", c.key);
    }
    let held = ops::search_spread(&store, info.doc, 8, &req(&typed)).unwrap();
    for key in &hit.path {
        assert!(held.communities.iter().any(|c| &c.key == key), "{key}");
    }
    assert!(held.entity_keys.contains(&format!("e:{}", hit.id)));
    // A file without an index: a clear error the app shows with its offer to add one.
    let err = ops::search_spread(&store, plain.doc, 9, &req(&name)).unwrap_err();
    assert_eq!(err.kind(), rete_explore::engine::ErrorKind::Invalid);
    assert!(err.to_string().contains("no search index"), "{err}");
}

#[test]
fn connect_lists_the_shortest_paths_between_two_people() {
    let store = Store::default();
    let info = open(&store, "social-1k.rete");
    let knows = ops::sparql_run(
        &store,
        info.doc,
        1,
        "SELECT ?a ?c WHERE { ?a foaf:knows ?b . ?b foaf:knows ?c FILTER(?a != ?c) \
         FILTER NOT EXISTS { ?a foaf:knows ?c } FILTER NOT EXISTS { ?c foaf:knows ?a } } LIMIT 1",
    )
    .unwrap();
    let a = knows.rows[0][0].as_ref().unwrap().id;
    let c = knows.rows[0][1].as_ref().unwrap().id;
    let found = ops::paths(&store, info.doc, 1, &PathQuery::new(a, c, 5, 6)).unwrap();
    assert!(!found.paths.is_empty(), "{}", found.reason);
    let first = &found.paths[0];
    assert_eq!(first.hops, 2, "friends of a friend are two links apart");
    assert_eq!(first.nodes.first().unwrap().id, a);
    assert_eq!(first.nodes.last().unwrap().id, c);
    assert_eq!(first.steps.len(), first.hops);
    assert!(found.paths.windows(2).all(|w| w[0].hops <= w[1].hops));
    assert!(first.steps[0].links[0].predicate.nt.contains("knows"));
    assert!(first.nodes.iter().all(|n| !n.label.is_empty()));
    // Bad input and a cancelled search are answers, never a panic.
    let err = ops::paths(&store, info.doc, 2, &PathQuery::new(a, a, 5, 6)).unwrap_err();
    assert!(err.to_string().contains("two different entities"), "{err}");
    let err = ops::paths(&store, info.doc, 3, &PathQuery::new(a, c, 0, 6)).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
    ops::paths_cancel(&store, 4);
    let cancelled = ops::paths(&store, info.doc, 4, &PathQuery::new(a, c, 5, 6)).unwrap();
    assert_eq!(cancelled.stop, "cancelled");
    // Filters: without foaf:knows the two are not connected within the limit; a bad IRI is said.
    let without = PathFilters {
        without: vec!["<http://xmlns.com/foaf/0.1/knows>".into()],
        ..PathFilters::default()
    };
    let none = ops::paths(
        &store,
        info.doc,
        5,
        &PathQuery {
            filters: without.clone(),
            ..PathQuery::new(a, c, 5, 6)
        },
    )
    .unwrap();
    assert!(none.paths.iter().all(|p| p
        .steps
        .iter()
        .all(|s| s.links.iter().all(|l| !l.predicate.nt.contains("knows")))));
    let via = PathFilters {
        via: vec!["<http://xmlns.com/foaf/0.1/knows>".into()],
        ..PathFilters::default()
    };
    assert_eq!(
        ops::paths(
            &store,
            info.doc,
            6,
            &PathQuery {
                filters: via.clone(),
                ..PathQuery::new(a, c, 5, 6)
            }
        )
        .unwrap()
        .paths[0]
            .hops,
        2
    );
    let bad = PathFilters {
        via: vec!["knows".into()],
        ..PathFilters::default()
    };
    let err = ops::paths(
        &store,
        info.doc,
        7,
        &PathQuery {
            filters: bad.clone(),
            ..PathQuery::new(a, c, 5, 6)
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("knows: not a predicate IRI"),
        "{err}"
    );
}

#[test]
fn shapes_validate_the_data_grouped_by_shape_and_constraint_and_stop_when_cancelled() {
    let store = Store::default();
    let info = ops::open_path(&store, &samples("vocabularies.rete")).unwrap();
    let shapes = std::path::PathBuf::from(samples("vocabularies-shapes.ttl"));
    let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
    let h = Arc::clone(&heard);
    let out = ops::shapes_run(&store, info.doc, 1, Some(&shapes), move |p| {
        h.lock().unwrap().push(p);
    })
    .unwrap();
    assert_eq!(out.status, "ok");
    // Progress after each shape with targets, ending with all of them and every result.
    let heard = heard.lock().unwrap();
    let last = heard.last().expect("progress was reported");
    assert_eq!((last.run, last.shapes_done), (1, last.shapes_total));
    assert_eq!(last.results, out.results);
    assert!(heard
        .windows(2)
        .all(|w| w[0].focus_nodes_done <= w[1].focus_nodes_done));
    assert_eq!(out.conforms, Some(out.results == 0));
    assert!(out.results > 0, "the sample's shapes find results: {out:?}");
    assert_eq!(out.groups.iter().map(|g| g.count).sum::<u64>(), out.results);
    assert!(out.groups.windows(2).all(|w| w[0].count >= w[1].count));
    for g in &out.groups {
        assert!(
            g.component.starts_with("http://www.w3.org/ns/shacl#"),
            "{g:?}"
        );
        assert!(!g.focus_nodes.is_empty() && g.focus_nodes.len() as u64 <= g.focus_count);
    }
    // Its focus nodes are found on the map, as a finding's entities are.
    let located = ops::locate(&store, info.doc, &out.groups[0].focus_nodes).unwrap();
    assert!(located.iter().any(|l| !l.keys.is_empty()), "{located:?}");

    // Malformed shapes: the reason, not a panic.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ttl");
    std::fs::write(
        &bad,
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n<s> a sh:NodeShape ; sh:pattern \"(\" ;",
    )
    .unwrap();
    let err = ops::shapes_run(&store, info.doc, 2, Some(&bad), |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad.ttl"), "{err}");

    // Cancelled before it starts: a cancelled outcome.
    let flag = store.flag("s3");
    flag.store(true, std::sync::atomic::Ordering::SeqCst);
    let out = ops::shapes_run(&store, info.doc, 3, Some(&shapes), |_| {}).unwrap();
    assert_eq!(out.status, "cancelled");
    assert_eq!(out.conforms, None);
}

/// The e2e suite's slow validation ([`fixtures::SLOW_SHAPES`]): its shapes parse, progress comes
/// while it runs, and a cancel from the first report stops it before the last shape.
#[test]
fn a_slow_validation_reports_progress_and_stops_when_cancelled() {
    let store = Arc::new(Store::default());
    let info = ops::open_path(&store, &samples("vocabularies.rete")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shapes = fixtures::write_slow_shapes(dir.path()).unwrap();
    let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (h, s) = (Arc::clone(&heard), Arc::clone(&store));
    let out = ops::shapes_run(&store, info.doc, 7, Some(&shapes), move |p| {
        h.lock().unwrap().push(p);
        ops::shapes_cancel(&s, 7);
    })
    .unwrap();
    assert_eq!(out.status, "cancelled");
    assert_eq!((out.conforms, out.results, out.groups.len()), (None, 0, 0));
    let heard = heard.lock().unwrap();
    let first = heard.first().expect("progress while it ran");
    assert_eq!(first.run, 7);
    assert_eq!(first.shapes_total, fixtures::SLOW_SHAPE_COUNT as u64);
    assert!(
        first.shape_focus_nodes_done > 0 && first.results > 0,
        "{first:?}"
    );
    // It stopped at the next focus node, well before the last shape.
    assert!(heard.last().unwrap().shapes_done < 2, "{heard:?}");
}

fn samples(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
        .display()
        .to_string()
}

/// Every group of a hub-heavy file opens whole: from the top, each community opens into at most
/// 1,000 children or members, never truncated, and together they hold every entity.
#[test]
fn every_group_of_a_hub_opens_whole() {
    let store = Store::default();
    let info = open(&store, "hub-star.rete");
    let map = ops::overview(&store, info.doc).unwrap();
    let entities: u64 = map.nodes.iter().map(|n| n.size).sum();
    let mut todo: Vec<String> = map.nodes.iter().map(|n| n.key.clone()).collect();
    let (mut members, mut largest) = (0u64, 0usize);
    while let Some(key) = todo.pop() {
        let view = ops::expand(&store, info.doc, &key, 0.0, 0.0, 1.0).unwrap();
        assert!(!view.truncated, "{}", view.note);
        assert!(view.nodes.len() <= 1000, "{} nodes", view.nodes.len());
        assert!(!view.nodes.is_empty());
        largest = largest.max(view.nodes.len());
        for n in &view.nodes {
            match n.level {
                Some(_) => todo.push(n.key.clone()),
                None => members += 1,
            }
        }
    }
    assert_eq!(members, entities, "every entity once");
    assert!(largest >= 500, "the hub's pieces are large: {largest}");
}

/// Two classes with the same label are told apart by their prefixed names in the legend, in
/// search and in the details panel.
#[test]
fn classes_with_one_label_are_told_apart_in_the_legend_search_and_details() {
    let store = Store::default();
    let info = open(&store, "hub-star.rete");
    let legend = ops::legend(&store, info.doc).unwrap();
    let labels: Vec<&str> = legend.classes.iter().map(|c| c.label.as_str()).collect();
    assert!(labels.contains(&"Person (foaf:Person)"), "{labels:?}");
    assert!(labels.contains(&"Person (schema:Person)"), "{labels:?}");
    let req = rete_explore::engine::SearchRequest {
        text: "person".to_owned(),
        limit: 10,
        ..Default::default()
    };
    let found = ops::search(&store, info.doc, 1, &req).unwrap();
    for (nt, told) in [
        ("<http://xmlns.com/foaf/0.1/Person>", "Person (foaf:Person)"),
        ("<http://schema.org/Person>", "Person (schema:Person)"),
    ] {
        let hit = found
            .hits
            .iter()
            .find(|h| h.nt == nt)
            .unwrap_or_else(|| panic!("{nt} not found: {:?}", found.hits));
        assert_eq!(hit.label, told);
        let details = ops::entity(&store, info.doc, hit.id).unwrap();
        assert_eq!(details.term.label, told);
    }
    // A label no other class shares stays as it is.
    let other = ops::search(
        &store,
        info.doc,
        2,
        &rete_explore::engine::SearchRequest {
            text: "property 12".to_owned(),
            limit: 3,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        other.hits.iter().any(|h| h.label == "property 12"),
        "{:?}",
        other.hits
    );
}

/// A class told apart from another of its label is shown by the label it was found by, in that
/// label's language, with what tells it apart: `puesto (org:Post)` tagged `es` for "pues", not
/// the English `Post (org:Post)` tagged `es`, which does not say why it matched.
#[test]
fn a_class_told_apart_shows_the_label_it_was_found_by() {
    let dir = tempfile::tempdir().unwrap();
    let data = r#"@prefix org: <http://www.w3.org/ns/org#> .
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
org:Post a rdfs:Class ; rdfs:label "Post"@en, "puesto"@es .
ex:Post a rdfs:Class ; rdfs:label "Post"@en .
ex:a a org:Post ; rdfs:label "a" .
ex:b a ex:Post ; rdfs:label "b" .
"#;
    let out = dir.path().join("posts.rete");
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "posts.ttl",
                data.as_bytes().to_vec(),
                rete_build::Syntax::Turtle,
            )],
            extensions: vec![
                Arc::new(rete_schema::SchemaExtension),
                Arc::new(rete_search::SearchExtension::default()),
            ],
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    let store = Store::default();
    let info = ops::open_path(&store, &out.display().to_string()).unwrap();
    let legend = ops::legend(&store, info.doc).unwrap();
    let labels: Vec<&str> = legend.classes.iter().map(|c| c.label.as_str()).collect();
    assert!(labels.contains(&"Post (org:Post)"), "{labels:?}");
    let search = |text: &str| {
        let req = rete_explore::engine::SearchRequest {
            text: text.to_owned(),
            limit: 10,
            ..Default::default()
        };
        let found = ops::search(&store, info.doc, 1, &req).unwrap();
        let hit = found
            .hits
            .into_iter()
            .find(|h| h.nt == "<http://www.w3.org/ns/org#Post>")
            .unwrap_or_else(|| panic!("org:Post not found for {text}"));
        (hit.label, hit.lang)
    };
    assert_eq!(
        search("pues"),
        ("puesto (org:Post)".to_owned(), Some("es".to_owned()))
    );
    assert_eq!(
        search("post"),
        ("Post (org:Post)".to_owned(), Some("en".to_owned()))
    );
}

#[test]
fn service_calls_only_the_hosts_the_user_allowed() {
    use std::io::{Read, Write};
    // A SPARQL endpoint on loopback answering two names (a plain HTTP/1.1 server: the protocol's
    // JSON results over a real socket).
    let body = r#"{"head":{"vars":["name"]},"results":{"bindings":[{"name":{"type":"literal","value":"Ada"}},{"name":{"type":"literal","value":"Alan"}}]}}"#;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/sparql", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut buf = [0u8; 8192];
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\ncontent-type: application/sparql-results+json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let (store, doc, _) = run_on_social(1, "ASK {}");
    let q =
        format!("SELECT ?name WHERE {{ SERVICE <{url}> {{ ?s foaf:name ?name }} }} ORDER BY ?name");
    assert_eq!(
        ops::sparql_services(&store, doc, &q).unwrap(),
        [url.as_str()]
    );
    assert!(ops::sparql_services(&store, doc, "SELECT * {")
        .unwrap()
        .is_empty());
    let with = |run, hosts: &[&str]| {
        ops::sparql_run_with(
            &store,
            doc,
            run,
            &q,
            ops::RunOptions {
                allow_service: hosts.iter().map(|h| (*h).to_owned()).collect(),
                ..ops::RunOptions::default()
            },
        )
        .unwrap()
    };
    let allowed = with(2, &["127.0.0.1"]);
    assert_eq!(allowed.status, "ok", "{:?}", allowed.error);
    assert_eq!(allowed.total, 2);
    let refused = with(3, &[]);
    assert_eq!(refused.status, "error");
    assert!(
        refused
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("SERVICE <"),
        "{:?}",
        refused.error
    );
    let elsewhere = with(4, &["example.org"]);
    assert!(
        elsewhere
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("calls to 127.0.0.1 are not allowed"),
        "{:?}",
        elsewhere.error
    );
}
