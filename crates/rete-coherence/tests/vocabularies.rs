//! The multi-vocabulary sample (`samples/vocabularies.nq`, one named graph per vocabulary) with
//! its planted cross-vocabulary clash: one root cause, its derived classes, and the named graph
//! of every step of its explanation.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::build_bytes;
use rete_build::Syntax;
use rete_coherence::{check, report_markdown, Report, Tier};
use rete_core::Rete;
use std::sync::atomic::AtomicBool;

const SAMPLE: &str = include_str!("../../../samples/vocabularies.nq");
const DBO: &str = "http://dbpedia.org/ontology/";

fn run(tier: Tier) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let path = build_bytes(
        dir.path(),
        "vocabularies.nq",
        SAMPLE.as_bytes().to_vec(),
        Syntax::NQuads,
        true,
    );
    let rete = Rete::open_path(path).unwrap();
    check(&rete, tier, &AtomicBool::new(false)).unwrap()
}

#[test]
fn one_root_cause_with_its_derived_classes() {
    let r = run(Tier::Selective);
    let g = &r.groups;
    assert_eq!((g.roots, g.derived, g.instance_findings), (1, 27, 4), "{r}");
    let cause = &g.causes[0];
    let mut roots = cause.classes.clone();
    roots.sort();
    assert_eq!(
        roots,
        [
            "http://dbpedia.org/ontology/Person",
            "http://schema.org/Person",
            "http://xmlns.com/foaf/0.1/Person"
        ]
    );
    // Every unsatisfiable class is a root or derived from it, and JSON keeps every finding.
    let unsat = r
        .findings
        .iter()
        .filter(|f| f.kind == "unsatisfiable-class")
        .count();
    assert_eq!(unsat, 30);
    assert_eq!(cause.derived.len(), 27);
    assert!(cause
        .derived_classes
        .contains(&format!("{DBO}SoccerPlayer")));
    assert!(cause
        .derived_classes
        .contains(&"http://schema.org/Patient".to_owned()));
    for &i in &cause.derived {
        assert_eq!(r.findings[i].kind, "unsatisfiable-class");
    }
    // The people of the data are instances of classes the clash empties.
    let members: Vec<&str> = cause
        .instances
        .iter()
        .map(|&i| r.findings[i].entities[0].as_str())
        .collect();
    assert_eq!(
        members,
        [
            "<http://example.org/people/marie-curie>",
            "<http://example.org/people/pele>"
        ]
    );
    // The two clubs filed as places share one clash.
    assert_eq!(g.clashes.len(), 1);
    assert_eq!(g.clashes[0].findings.len(), 2);
    assert_eq!(
        g.clashes[0].classes,
        [format!("{DBO}Agent"), format!("{DBO}Place")]
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["findings"].as_array().unwrap().len(), r.findings.len());
    assert_eq!(json["groups"]["derived"], 27);
}

#[test]
fn every_step_names_its_graph() {
    let r = run(Tier::Schema);
    let root = &r.findings[r.groups.causes[0].roots[0]];
    let steps: Vec<(&str, &str)> = root
        .explanation
        .iter()
        .map(|s| {
            assert_eq!(s.graphs.len(), 1, "{root}");
            assert!(!s.default_graph);
            (s.text.as_str(), s.graphs[0].as_str())
        })
        .collect();
    // The planted alignment, and the vocabularies' own axioms, each where it was asserted.
    let graph_of = |text: &str| {
        steps
            .iter()
            .find(|s| s.0 == text)
            .unwrap_or_else(|| panic!("no step {text} in {steps:?}"))
            .1
    };
    assert_eq!(
        graph_of("schema:Person rdfs:subClassOf gr:BusinessEntity"),
        "<http://example.org/alignments/schema-goodrelations>"
    );
    assert_eq!(
        graph_of("gr:BusinessEntity rdfs:subClassOf org:FormalOrganization"),
        "<http://purl.org/goodrelations/v1>"
    );
    assert_eq!(
        graph_of("org:FormalOrganization rdfs:subClassOf foaf:Organization"),
        "<http://www.w3.org/ns/org>"
    );
    assert_eq!(
        graph_of("foaf:Person owl:disjointWith foaf:Organization"),
        "<http://xmlns.com/foaf/0.1/>"
    );
    for (text, g) in &steps {
        if text.contains("owl:equivalentClass") {
            assert_eq!(*g, "<http://dbpedia.org/ontology/>", "{text}");
        }
    }
    assert!(r.lookup.done, "{:?}", r.lookup);
    assert_eq!(r.inputs, ["vocabularies.nq"]);
}

#[test]
fn prefixes_are_declared_or_well_known_never_a_bare_colon() {
    let r = run(Tier::Selective);
    // N-Quads declares no prefixes: no `:` stands for a namespace.
    assert!(
        r.prefixes.iter().all(|(p, _)| !p.is_empty()),
        "{:?}",
        r.prefixes
    );
    let names: Vec<&str> = r.prefixes.iter().map(|(p, _)| p.as_str()).collect();
    for p in ["dbo", "foaf", "gr", "org", "owl", "rdf", "rdfs", "schema"] {
        assert!(names.contains(&p), "{p} missing from {names:?}");
    }
    let text = r.to_string();
    assert!(text.starts_with("@prefix "), "{text}");
    assert!(!text.contains(" :"), "{text}");
    assert!(text.contains("Root cause 1:"), "{text}");
    assert!(
        text.contains("27 derived unsatisfiable classes because of it"),
        "{text}"
    );
    assert!(
        text.contains("← <http://example.org/alignments/schema-goodrelations>"),
        "{text}"
    );
    let md = report_markdown("vocabularies.rete", &r);
    assert!(
        md.contains(
            "| Prefix | Namespace |\n|---|---|\n| `dbo:` | `http://dbpedia.org/ontology/` |"
        ),
        "{md}"
    );
    assert!(
        md.contains("**1 root cause · 27 derived unsatisfiable classes · 4 instance findings**"),
        "{md}"
    );
    assert!(
        md.contains("## Root cause 1: unsatisfiable-class — dbo:Person is unsatisfiable"),
        "{md}"
    );
}
