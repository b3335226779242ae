//! The closure rete-reason computes must equal the one of the `owlrl` Python package (an
//! RDFLib-based RDFS / OWL 2 RL reasoner), restricted to the rules rete-reason implements, on
//! randomly generated small ontologies with data.
//!
//! Needs Python 3 with `owlrl` (`pip install owlrl`); the test fails, not skips, without it.
//! `PYTHON` selects the interpreter (default `python3`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use oxrdf::Triple;
use oxttl::NTriplesParser;
use rete_datagen::Rng;
use rete_reason::{materialize, MaterializeOptions};
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const OWL: &str = "http://www.w3.org/2002/07/owl#";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
const EX: &str = "http://example.org/";

/// A random ontology and data set using only vocabulary rete-reason reasons about (plus class
/// and property declarations, whose OWL 2 RL consequences are all filtered below). Literals only
/// appear as values of datatype properties, which take part in no inverse, symmetric, transitive
/// or subproperty axiom: those would need generalized (literal-subject) intermediate triples.
fn generate(seed: u64, with_same_as: bool) -> String {
    let mut r = Rng::new(seed);
    let (nc, np, nd, ni) = (10 + r.index(6), 8 + r.index(5), 3, 25 + r.index(15));
    let c = |i: usize| format!("<{EX}C{i}>");
    let p = |i: usize| format!("<{EX}p{i}>");
    let d = |i: usize| format!("<{EX}d{i}>");
    let ind = |i: usize| format!("<{EX}i{i}>");
    let (ty, sco, spo) = (
        format!("<{RDF}type>"),
        format!("<{RDFS}subClassOf>"),
        format!("<{RDFS}subPropertyOf>"),
    );
    let mut nt = String::new();
    let mut t = |s: &str, pr: &str, o: &str| {
        let _ = writeln!(nt, "{s} {pr} {o} .");
    };
    for i in 0..nc {
        if r.chance(0.40) {
            t(&c(i), &ty, &format!("<{OWL}Class>"));
        }
    }
    for _ in 0..nc + r.index(nc) {
        // Mostly downward edges, some upward ones: cycles happen.
        let a = r.index(nc);
        let b = if r.chance(0.85) {
            a + 1 + r.index(3)
        } else {
            r.index(nc)
        };
        t(&c(a), &sco, &c(b % nc));
    }
    for _ in 0..1 + r.index(2) {
        t(
            &c(r.index(nc)),
            &format!("<{OWL}equivalentClass>"),
            &c(r.index(nc)),
        );
    }
    for i in 0..np {
        if r.chance(0.40) {
            t(&p(i), &ty, &format!("<{OWL}ObjectProperty>"));
        }
    }
    for _ in 0..np / 2 + r.index(np) {
        let a = r.index(np);
        t(&p(a), &spo, &p((a + 1 + r.index(3)) % np));
    }
    t(
        &p(r.index(np)),
        &format!("<{OWL}equivalentProperty>"),
        &p(r.index(np)),
    );
    for i in 0..np {
        if r.chance(0.35) {
            t(&p(i), &format!("<{RDFS}domain>"), &c(r.index(nc)));
        }
        if r.chance(0.35) {
            t(&p(i), &format!("<{RDFS}range>"), &c(r.index(nc)));
        }
    }
    for _ in 0..1 + r.index(2) {
        t(
            &p(r.index(np)),
            &format!("<{OWL}inverseOf>"),
            &p(r.index(np)),
        );
    }
    for _ in 0..1 + r.index(2) {
        t(&p(r.index(np)), &ty, &format!("<{OWL}SymmetricProperty>"));
    }
    for _ in 0..1 + r.index(2) {
        t(&p(r.index(np)), &ty, &format!("<{OWL}TransitiveProperty>"));
    }
    for i in 0..nd {
        t(&d(i), &ty, &format!("<{OWL}DatatypeProperty>"));
        t(&d(i), &format!("<{RDFS}domain>"), &c(r.index(nc)));
        if r.chance(0.30) {
            t(&d(i), &format!("<{RDFS}range>"), &format!("<{XSD}string>"));
        }
    }
    for i in 0..ni {
        if r.chance(0.60) {
            t(&ind(i), &ty, &c(r.index(nc)));
        }
    }
    for _ in 0..ni * 3 / 2 {
        let a = r.index(ni);
        // Many edges stay near each other so transitive chains form.
        let b = if r.chance(0.70) {
            (a + 1 + r.index(3)) % ni
        } else {
            r.index(ni)
        };
        t(&ind(a), &p(r.index(np)), &ind(b));
    }
    for k in 0..ni / 3 {
        t(
            &ind(r.index(ni)),
            &d(r.index(nd)),
            &format!("\"value {k}\""),
        );
    }
    if with_same_as {
        for _ in 0..2 + r.index(3) {
            let a = r.index(ni);
            t(
                &ind(a),
                &format!("<{OWL}sameAs>"),
                &ind((a + 1 + r.index(ni - 1)) % ni),
            );
        }
    }
    nt
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Fails (never skips) when the oracle is unavailable, saying how to install it.
fn require_owlrl() {
    let ok = Command::new(python())
        .args(["-c", "import owlrl, rdflib"])
        .output()
        .map(|o| o.status.success());
    match ok {
        Ok(true) => {}
        _ => panic!(
            "the owlrl oracle needs Python 3 with the `owlrl` package: install it with \
             `pip install owlrl` (or point PYTHON at an interpreter that has it)"
        ),
    }
}

fn parse_nt(text: &str) -> HashSet<Triple> {
    NTriplesParser::new()
        .for_slice(text.as_bytes())
        .map(|t| t.expect("valid N-Triples"))
        .collect()
}

/// owlrl's closure of `input` and of the empty graph.
fn owlrl(mode: &str, dir: &Path, input: &Path) -> (HashSet<Triple>, HashSet<Triple>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/owlrl_oracle.py");
    let (out, bg) = (dir.join("closure.nt"), dir.join("background.nt"));
    let o = Command::new(python())
        .arg(&script)
        .arg(mode)
        .arg(input)
        .arg(&out)
        .arg(&bg)
        .output()
        .expect("run python");
    assert!(
        o.status.success(),
        "owlrl failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let read = |p: &Path| parse_nt(&std::fs::read_to_string(p).expect("read owlrl output"));
    (read(&out), read(&bg))
}

/// Drops what owlrl derives through rules rete-reason does not implement. Every line names
/// the rules it stands for.
fn keep(t: &Triple, background: &HashSet<Triple>) -> bool {
    let (s, p, o) = (
        t.subject.to_string(),
        t.predicate.as_str(),
        t.object.to_string(),
    );
    // Axiomatic output, present whatever the input (cls-thing, cls-nothing1, prp-ap, dt-type1).
    if background.contains(t) {
        return false;
    }
    // Reflexive statements: eq-ref, scm-cls, scm-op, scm-dp (OWL 2 RL); rdfs6, rdfs10 (RDFS);
    // rdfs5/rdfs11 and eq-rep on cycles.
    let reflexive = [
        format!("{OWL}sameAs"),
        format!("{RDFS}subClassOf"),
        format!("{RDFS}subPropertyOf"),
        format!("{OWL}equivalentClass"),
        format!("{OWL}equivalentProperty"),
    ];
    if s == o && reflexive.iter().any(|r| r == p) {
        return false;
    }
    // owl:Thing / owl:Nothing: scm-cls, and what cax-sco, scm-sco, scm-dom1, scm-rng1 build on it.
    // rdfs:Resource: rdfs4a, rdfs4b, rdfs8.
    for v in [
        format!("<{OWL}Thing>"),
        format!("<{OWL}Nothing>"),
        format!("<{RDFS}Resource>"),
    ] {
        if s == v || o == v {
            return false;
        }
    }
    // rdf1 (`p a rdf:Property`), rdfs13 / dt-type (`a rdfs:Datatype`, `rdfs:subClassOf rdfs:Literal`).
    if p == format!("{RDF}type")
        && (o == format!("<{RDF}Property>") || o == format!("<{RDFS}Datatype>"))
    {
        return false;
    }
    if p == format!("{RDFS}subClassOf") && o == format!("<{RDFS}Literal>") {
        return false;
    }
    // Datatype reasoning on XSD types (dt-type, dt-diff disjointness of used datatypes).
    if s.starts_with(&format!("<{XSD}")) {
        return false;
    }
    true
}

fn check(seed: u64, mode: &str, with_same_as: bool) {
    let nt = generate(seed, with_same_as);
    let dir = tempfile::tempdir().expect("tempdir");
    let input_path = dir.path().join("input.nt");
    std::fs::write(&input_path, &nt).expect("write input");
    let rete = common::rete_from_nt(dir.path(), "input", &nt);
    let opts = match mode {
        "rdfs" => MaterializeOptions::rdfs(),
        _ => MaterializeOptions {
            // Our random cliques are tiny; the bounds never bite here.
            same_as: with_same_as,
            ..MaterializeOptions::owl_rl()
        },
    };
    let m = materialize(&rete, &opts).expect("materialize");
    let input = parse_nt(&nt);
    let mut ours = input.clone();
    for q in &m.quads {
        assert!(q.graph_name.is_default_graph());
        assert!(
            ours.insert(Triple::new(
                q.subject.clone(),
                q.predicate.clone(),
                q.object.clone()
            )),
            "inferred an input triple: {q}"
        );
    }
    let (theirs, background) = owlrl(mode, dir.path(), &input_path);
    // Soundness, unfiltered: everything we derive, owlrl derives.
    let unsound: BTreeSet<String> = ours.difference(&theirs).map(ToString::to_string).collect();
    assert!(
        unsound.is_empty(),
        "seed {seed} {mode}: derived but not entailed by owlrl: {unsound:#?}\ninput:\n{nt}"
    );
    // Completeness for the rules we implement.
    let filtered = |set: &HashSet<Triple>| -> BTreeSet<String> {
        set.iter()
            .filter(|t| keep(t, &background))
            .map(ToString::to_string)
            .collect()
    };
    let (ours_f, theirs_f) = (filtered(&ours), filtered(&theirs));
    let missing: BTreeSet<&String> = theirs_f.difference(&ours_f).collect();
    assert!(
        missing.is_empty(),
        "seed {seed} {mode}: owlrl derives what we miss: {missing:#?}\ninput:\n{nt}"
    );
    assert_eq!(ours_f, theirs_f);
    eprintln!(
        "seed {seed} {mode}: {} input, {} inferred, owlrl closure {}, {} compared",
        input.len(),
        m.report.inferred,
        theirs.len(),
        ours_f.len()
    );
    // The generated data must exercise the rules, or the comparison proves little.
    assert!(
        m.report.inferred > 20,
        "seed {seed}: only {} inferred",
        m.report.inferred
    );
}

#[test]
fn rdfs_matches_owlrl_rdfs_semantics() {
    require_owlrl();
    for seed in 1..=5 {
        check(seed, "rdfs", false);
    }
}

#[test]
fn owl_rl_subset_matches_owlrl() {
    require_owlrl();
    for seed in 1..=5 {
        check(seed, "owlrl", false);
    }
}

#[test]
fn owl_rl_with_same_as_matches_owlrl() {
    require_owlrl();
    for seed in 101..=105 {
        check(seed, "owlrl", true);
    }
}
