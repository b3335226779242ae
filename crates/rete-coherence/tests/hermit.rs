//! The HermiT reasoner (through owlready2) as an oracle for Tier 0: on generated ontologies
//! within the supported constructs, the unsatisfiable classes must be the same.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::build_bytes;
use rete_build::Syntax;
use rete_coherence::{check, Tier};
use rete_core::Rete;
use rete_datagen::medical::{write_tbox, MedicalParams, UNSATISFIABLE};
use rete_datagen::Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

const INSTALL: &str = "the HermiT oracle needs Python 3 with owlready2 and a Java runtime (17+): \
    `pip install owlready2` and `apt-get install openjdk-17-jre-headless` \
    (set RETE_PYTHON to choose the Python interpreter)";

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const OWL: &str = "http://www.w3.org/2002/07/owl#";
const SUB: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
const NS: &str = "http://oracle.example/o";

fn python() -> String {
    std::env::var("RETE_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Fails (never skips) when the oracle's tools are missing.
fn require_tools() {
    let py = Command::new(python())
        .args(["-c", "import owlready2"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {INSTALL}", python()));
    assert!(
        py.status.success(),
        "owlready2 is not importable: {}; {INSTALL}",
        String::from_utf8_lossy(&py.stderr)
    );
    let java = Command::new("java")
        .arg("-version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run java: {e}; {INSTALL}"));
    assert!(java.status.success(), "java -version failed; {INSTALL}");
}

const SCRIPT: &str = r#"
import json, sys
from owlready2 import World, sync_reasoner, OwlReadyInconsistentOntologyError
out = {}
for path in sys.argv[1:]:
    w = World()
    w.get_ontology("file://" + path).load(format="ntriples")
    try:
        sync_reasoner(w, infer_property_values=False, debug=0)
        out[path] = sorted(c.iri for c in w.inconsistent_classes()
                           if c.iri != "http://www.w3.org/2002/07/owl#Nothing")
    except OwlReadyInconsistentOntologyError:
        out[path] = "INCONSISTENT"
print("RESULT " + json.dumps(out))
"#;

/// HermiT's answer per file: the unsatisfiable classes, or `None` for an inconsistent ontology.
fn hermit(files: &[PathBuf]) -> BTreeMap<PathBuf, Option<BTreeSet<String>>> {
    let out = Command::new(python())
        .arg("-c")
        .arg(SCRIPT)
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {INSTALL}", python()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .unwrap_or_else(|| {
            panic!(
                "HermiT run failed: {}\n{}\n{INSTALL}",
                stdout,
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    files
        .iter()
        .map(|f| {
            let r = &v[f.to_str().unwrap()];
            let set = r.as_array().map(|a| {
                a.iter()
                    .map(|x| x.as_str().unwrap().to_owned())
                    .collect::<BTreeSet<_>>()
            });
            (f.clone(), set)
        })
        .collect()
}

/// Ours: the unsatisfiable classes, or `None` when the ontology is inconsistent.
fn ours(path: &Path) -> Option<BTreeSet<String>> {
    let rete = Rete::open_path(path).unwrap();
    let r = check(&rete, Tier::Schema, &AtomicBool::new(false)).unwrap();
    if r.findings.iter().any(|f| f.kind == "inconsistent-ontology") {
        return None;
    }
    Some(
        r.findings
            .iter()
            .filter(|f| f.kind == "unsatisfiable-class")
            .map(|f| f.classes[0].clone())
            .collect(),
    )
}

fn nt(s: &str, p: &str, o: &str) -> String {
    let term = |t: &str| {
        if t.starts_with("_:") {
            t.to_owned()
        } else {
            format!("<{t}>")
        }
    };
    format!("{} {} {} .\n", term(s), term(p), term(o))
}

/// A random T-Box over `n` classes with subclass edges (a DAG plus a few edges that may close
/// cycles), equivalences, disjointness (pairs and groups), complements (named and anonymous)
/// and the odd subclass of `owl:Nothing`.
fn random_tbox(seed: u64, n: u64) -> String {
    let mut rng = Rng::new(seed);
    let c = |i: u64| format!("{NS}#C{i}");
    let mut out = nt(NS, RDF_TYPE, &format!("{OWL}Ontology"));
    for i in 0..n {
        out += &nt(&c(i), RDF_TYPE, &format!("{OWL}Class"));
        if i > 0 {
            for _ in 0..1 + rng.below(2) {
                out += &nt(&c(i), SUB, &c(rng.below(i)));
            }
        }
        if rng.chance(0.04) {
            out += &nt(&c(i), SUB, &c(rng.below(n)));
        }
    }
    // Distinct pairs: HermiT rejects `C owl:disjointWith C` (a one-class DisjointClasses).
    let pair = |rng: &mut Rng| loop {
        let (a, b) = (rng.below(n), rng.below(n));
        if a != b {
            break (a, b);
        }
    };
    for _ in 0..rng.below(3) {
        let (a, b) = pair(&mut rng);
        out += &nt(&c(a), &format!("{OWL}equivalentClass"), &c(b));
    }
    for _ in 0..2 + rng.below(6) {
        let (a, b) = pair(&mut rng);
        out += &nt(&c(a), &format!("{OWL}disjointWith"), &c(b));
    }
    for g in 0..rng.below(2) {
        let k = 3 + rng.below(2);
        let node = format!("_:g{g}");
        out += &nt(&node, RDF_TYPE, &format!("{OWL}AllDisjointClasses"));
        out += &nt(&node, &format!("{OWL}members"), &format!("_:g{g}l0"));
        let mut members: Vec<u64> = Vec::new();
        while (members.len() as u64) < k {
            let m = rng.below(n);
            if !members.contains(&m) {
                members.push(m);
            }
        }
        for (j, m) in members.iter().enumerate() {
            let cell = format!("_:g{g}l{j}");
            out += &nt(
                &cell,
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#first",
                &c(*m),
            );
            let next = if j + 1 == members.len() {
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil".to_owned()
            } else {
                format!("_:g{g}l{}", j + 1)
            };
            out += &nt(
                &cell,
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest",
                &next,
            );
        }
    }
    if seed % 2 == 0 {
        for k in 0..1 + rng.below(2) {
            let (a, b) = pair(&mut rng);
            if k == 0 {
                out += &nt(&c(a), &format!("{OWL}complementOf"), &c(b));
            } else {
                let x = format!("_:x{k}");
                out += &nt(&c(a), &format!("{OWL}equivalentClass"), &x);
                out += &nt(&x, RDF_TYPE, &format!("{OWL}Class"));
                out += &nt(&x, &format!("{OWL}complementOf"), &c(b));
            }
        }
    }
    if rng.chance(0.3) {
        out += &nt(&c(rng.below(n)), SUB, &format!("{OWL}Nothing"));
    }
    out
}

fn turtle_to_ntriples(ttl: &[u8]) -> String {
    let mut out = String::new();
    for t in oxttl::TurtleParser::new().for_slice(ttl) {
        out += &format!("{} .\n", t.unwrap());
    }
    out
}

#[test]
fn unsatisfiable_classes_match_hermit() {
    require_tools();
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    // RETE_HERMIT_ONTOLOGIES raises the number of random ontologies for a longer sweep.
    let count: u64 = std::env::var("RETE_HERMIT_ONTOLOGIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(14);
    for seed in 0..count {
        let text = random_tbox(seed, 24 + (seed % 20) * 3);
        let path = dir.path().join(format!("random-{seed}.nt"));
        std::fs::write(&path, &text).unwrap();
        files.push((path, text));
    }
    let mut tbox = Vec::new();
    write_tbox(
        &MedicalParams {
            taxonomy: 150,
            ..MedicalParams::default()
        },
        &mut tbox,
    )
    .unwrap();
    let medical = dir.path().join("medical-tbox.nt");
    // HermiT knows only the OWL 2 datatype map, which lacks xsd:date.
    let medical_nt = turtle_to_ntriples(&tbox).replace("XMLSchema#date>", "XMLSchema#dateTime>");
    std::fs::write(&medical, &medical_nt).unwrap();
    files.push((medical.clone(), medical_nt));

    // The multi-vocabulary sample's T-Box (with its data HermiT would call the ontology
    // inconsistent: the data has members of the classes the planted clash empties).
    let mut vocab_nt = String::new();
    let sample = include_str!("../../../samples/vocabularies.nq");
    for q in oxttl::NQuadsParser::new().for_slice(sample.as_bytes()) {
        let t = oxrdf::Triple::from(q.unwrap());
        if !t
            .subject
            .to_string()
            .starts_with("<http://example.org/people/")
        {
            vocab_nt += &format!("{t} .\n");
        }
    }
    let vocabularies = dir.path().join("vocabularies.nt");
    std::fs::write(&vocabularies, &vocab_nt).unwrap();
    files.push((vocabularies.clone(), vocab_nt));

    let paths: Vec<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
    let oracle = hermit(&paths);
    let (mut unsat_total, mut inconsistent) = (0, 0);
    for (i, (path, text)) in files.into_iter().enumerate() {
        let built = build_bytes(
            dir.path(),
            &format!("o{i}.nt"),
            text.into_bytes(),
            Syntax::NTriples,
            true,
        );
        let mine = ours(&built);
        let theirs = &oracle[&path];
        assert_eq!(
            &mine,
            theirs,
            "{}:\n{}",
            path.display(),
            std::fs::read_to_string(&path).unwrap_or_default()
        );
        match theirs {
            Some(s) => unsat_total += s.len(),
            None => inconsistent += 1,
        }
    }
    assert_eq!(
        oracle[&medical],
        Some(BTreeSet::from([UNSATISFIABLE.to_owned()]))
    );
    // The planted cross-vocabulary clash: dbo:Person ≡ foaf:Person ≡ schema:Person and the 27
    // classes below them.
    assert_eq!(oracle[&vocabularies].as_ref().map(BTreeSet::len), Some(30));
    // The generated ontologies exercise the interesting cases, not just coherent ones.
    assert!(
        unsat_total >= 10,
        "only {unsat_total} unsatisfiable classes"
    );
    eprintln!("{unsat_total} unsatisfiable classes, {inconsistent} inconsistent ontologies");
}
