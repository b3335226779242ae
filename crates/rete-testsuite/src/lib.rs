#![doc = include_str!("../README.md")]

pub mod compare;
pub mod jsonld;
pub mod manifest;
pub mod rdf;
pub mod sparql;

use compare::{Answer, Table};
use manifest::Test;
use oxrdf::{GraphName, NamedNode, Quad, Term, Variable};
use rete_core::{Pattern, Rete};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Errors of the harness itself (unreadable manifests) or of a test (its failure message).
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    /// A file could not be read ([`rete_core::Error::Io`]: the path and why).
    #[error(transparent)]
    Io(rete_core::Error),
    /// A manifest or expected-result file is malformed.
    #[error("{0}")]
    Manifest(String),
    /// The engine gave a wrong answer or an unexpected error.
    #[error("{0}")]
    Failed(String),
}

impl TestError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io(rete_core::Error::io(path.display(), source))
    }
}

/// What happened to one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It passed.
    Pass,
    /// It failed, with a message.
    Fail(String),
    /// It was not run, with the reason.
    Skip(String),
}

/// Counts of one manifest.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Manifest label (its folder name).
    pub name: String,
    /// Passed tests.
    pub passed: usize,
    /// Failed tests with their messages.
    pub failed: Vec<(String, String)>,
    /// Skipped tests with their reasons.
    pub skipped: Vec<(String, String)>,
}

impl Summary {
    /// `name: N passed, N failed` (and skips).
    pub fn line(&self) -> String {
        let mut s = format!(
            "{}: {} passed, {} failed",
            self.name,
            self.passed,
            self.failed.len()
        );
        if !self.skipped.is_empty() {
            s.push_str(&format!(", {} skipped", self.skipped.len()));
        }
        s
    }
}

/// Runs `tests` with `run`, grouped by manifest (in first-seen order), each test in a fresh
/// temporary directory.
pub fn run_grouped(
    tests: &[Test],
    label: impl Fn(&Test) -> String,
    run: impl Fn(&Test, &Path) -> Outcome,
) -> Result<Vec<Summary>, TestError> {
    let mut order: Vec<String> = Vec::new();
    let mut by: BTreeMap<String, Summary> = BTreeMap::new();
    for t in tests {
        let name = label(t);
        if !by.contains_key(&name) {
            order.push(name.clone());
        }
        let s = by.entry(name.clone()).or_insert_with(|| Summary {
            name,
            ..Summary::default()
        });
        let dir = tempfile::tempdir().map_err(|e| TestError::io(Path::new("tempdir"), e))?;
        match run(t, dir.path()) {
            Outcome::Pass => s.passed += 1,
            Outcome::Fail(m) => s.failed.push((t.id.clone(), m)),
            Outcome::Skip(r) => s.skipped.push((t.id.clone(), r)),
        }
    }
    Ok(order.into_iter().filter_map(|n| by.remove(&n)).collect())
}

/// The name of the folder holding a test's manifest.
pub fn manifest_label(t: &Test) -> String {
    t.manifest
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The W3C rdf-tests suites vendored in this crate (`w3c/rdf-tests`, see its SOURCE and LICENSE),
/// so a clone tests on its own.
pub fn w3c_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("w3c/rdf-tests")
}

/// The W3C JSON-LD 1.1 toRdf suite vendored in this crate (`w3c/jsonld-tests`).
pub fn jsonld_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("w3c/jsonld-tests")
}

/// Parses an RDF file (syntax from its extension) with `base`, putting triples in `graph`.
pub fn read_rdf(path: &Path, base: &str, graph: &GraphName) -> Result<Vec<Quad>, TestError> {
    let bytes = std::fs::read(path).map_err(|e| TestError::io(path, e))?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    let bad = |e: &dyn std::fmt::Display| TestError::Manifest(format!("{}: {e}", path.display()));
    let with_graph = |t: oxrdf::Triple| Quad::new(t.subject, t.predicate, t.object, graph.clone());
    let mut out = Vec::new();
    match ext {
        "nt" => {
            for t in oxttl::NTriplesParser::new().for_slice(&bytes) {
                out.push(with_graph(t.map_err(|e| bad(&e))?));
            }
        }
        "nq" => {
            for q in oxttl::NQuadsParser::new().for_slice(&bytes) {
                out.push(q.map_err(|e| bad(&e))?);
            }
        }
        "trig" => {
            let p = oxttl::TriGParser::new()
                .with_base_iri(base)
                .map_err(|e| bad(&e))?;
            for q in p.for_slice(&bytes) {
                out.push(q.map_err(|e| bad(&e))?);
            }
        }
        "rdf" | "xml" | "owl" => {
            let p = oxrdfxml::RdfXmlParser::new()
                .with_base_iri(base)
                .map_err(|e| bad(&e))?;
            for t in p.for_slice(&bytes) {
                out.push(with_graph(t.map_err(|e| bad(&e))?));
            }
        }
        _ => {
            let p = oxttl::TurtleParser::new()
                .with_base_iri(base)
                .map_err(|e| bad(&e))?;
            for t in p.for_slice(&bytes) {
                out.push(with_graph(t.map_err(|e| bad(&e))?));
            }
        }
    }
    Ok(out)
}

/// Quads as N-Quads text.
pub fn nquads(quads: &[Quad]) -> String {
    let mut s = String::new();
    for q in quads {
        s.push_str(&q.to_string());
        s.push_str(" .\n");
    }
    s
}

/// Every quad of a `.rete`, decoded.
pub fn export(rete: &Rete) -> Result<Vec<Quad>, TestError> {
    let fail = |e: rete_core::Error| TestError::Failed(format!("export: {e}"));
    let mut out = Vec::new();
    for q in rete.quads(&Pattern::default()).map_err(fail)? {
        out.push(rete.decode_quad(&q.map_err(fail)?).map_err(fail)?);
    }
    Ok(out)
}

/// Reads the DAWG result-set vocabulary (`rs:ResultSet`) some tests use for expected results.
pub fn rdf_result_set(quads: &[Quad]) -> Option<Answer> {
    const RS: &str = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#";
    let p = |local: &str| NamedNode::new_unchecked(format!("{RS}{local}"));
    let objects = |s: &Term, pred: &NamedNode| -> Vec<Term> {
        quads
            .iter()
            .filter(|q| &Term::from(q.subject.clone()) == s && &q.predicate == pred)
            .map(|q| q.object.clone())
            .collect()
    };
    let rdf_type = NamedNode::new_unchecked("http://www.w3.org/1999/02/22-rdf-syntax-ns#type");
    let set: Term = quads
        .iter()
        .find(|q| q.predicate == rdf_type && q.object == Term::from(p("ResultSet")))?
        .subject
        .clone()
        .into();
    if let Some(Term::Literal(b)) = objects(&set, &p("boolean")).first() {
        return Some(Answer::Boolean(b.value() == "true"));
    }
    let lit = |t: &Term| match t {
        Term::Literal(l) => Some(l.value().to_owned()),
        _ => None,
    };
    let mut variables: Vec<Variable> = objects(&set, &p("resultVariable"))
        .iter()
        .filter_map(lit)
        .filter_map(|v| Variable::new(v).ok())
        .collect();
    variables.sort();
    let mut rows: Vec<(i64, Vec<Option<Term>>)> = Vec::new();
    for sol in objects(&set, &p("solution")) {
        let mut row = vec![None; variables.len()];
        for b in objects(&sol, &p("binding")) {
            let name = objects(&b, &p("variable")).first().and_then(lit);
            let value = objects(&b, &p("value")).into_iter().next();
            if let (Some(name), Some(value)) = (name, value) {
                if let Some(i) = variables.iter().position(|v| v.as_str() == name) {
                    row[i] = Some(value);
                }
            }
        }
        let index = objects(&sol, &p("index"))
            .first()
            .and_then(lit)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        rows.push((index, row));
    }
    rows.sort_by_key(|(i, _)| *i);
    Some(Answer::Table(Table {
        variables,
        rows: rows.into_iter().map(|(_, r)| r).collect(),
    }))
}
