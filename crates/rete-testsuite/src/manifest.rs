//! Reading W3C test manifests (`mf:include`, `mf:entries`, actions and results).

use crate::TestError;
use oxrdf::{Graph, NamedNodeRef, NamedOrBlankNodeRef, Term, TermRef};
use std::path::{Path, PathBuf};

const MF: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const QT: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#";
const RDF_FIRST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first";
const RDF_REST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// One test entry.
#[derive(Debug, Clone, Default)]
pub struct Test {
    /// The test IRI.
    pub id: String,
    /// Local name of its type (`QueryEvaluationTest`, `TestTurtleEval`…).
    pub kind: String,
    /// `mf:name`.
    pub name: String,
    /// The manifest file it comes from.
    pub manifest: PathBuf,
    /// `mf:action` when it is a file.
    pub action: Option<PathBuf>,
    /// `qt:query`.
    pub query: Option<PathBuf>,
    /// `qt:data` files.
    pub data: Vec<PathBuf>,
    /// `qt:graphData` files (each loaded into a graph named by its IRI).
    pub graph_data: Vec<PathBuf>,
    /// `mf:result`.
    pub result: Option<PathBuf>,
}

fn nn(s: &str) -> NamedNodeRef<'_> {
    NamedNodeRef::new_unchecked(s)
}

/// The file behind a `file://` IRI.
pub fn iri_to_path(iri: &str) -> Option<PathBuf> {
    iri.strip_prefix("file://").map(PathBuf::from)
}

/// The `file://` IRI of a path.
pub fn path_to_iri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn parse_manifest(path: &Path) -> Result<Graph, TestError> {
    let text = std::fs::read(path).map_err(|e| TestError::io(path, e))?;
    let mut g = Graph::new();
    let parser = oxttl::TurtleParser::new()
        .with_base_iri(path_to_iri(path))
        .map_err(|e| TestError::Manifest(format!("{}: {e}", path.display())))?;
    for t in parser.for_slice(&text) {
        let t = t.map_err(|e| TestError::Manifest(format!("{}: {e}", path.display())))?;
        g.insert(&t);
    }
    Ok(g)
}

fn object<'a>(g: &'a Graph, s: NamedOrBlankNodeRef<'_>, p: &str) -> Option<TermRef<'a>> {
    g.object_for_subject_predicate(s, nn(p))
}

fn objects<'a>(
    g: &'a Graph,
    s: NamedOrBlankNodeRef<'a>,
    p: &'a str,
) -> impl Iterator<Item = TermRef<'a>> + 'a {
    g.objects_for_subject_predicate(s, nn(p))
}

fn subject_of(t: TermRef<'_>) -> Option<NamedOrBlankNodeRef<'_>> {
    match t {
        TermRef::NamedNode(n) => Some(n.into()),
        TermRef::BlankNode(b) => Some(b.into()),
        _ => None,
    }
}

fn list(g: &Graph, head: TermRef<'_>) -> Vec<Term> {
    let mut out = Vec::new();
    let mut cur = head.into_owned();
    // Bounded to survive a cyclic list.
    for _ in 0..100_000 {
        let Some(s) = subject_of(cur.as_ref()) else {
            break;
        };
        let Some(first) = object(g, s, RDF_FIRST) else {
            break;
        };
        out.push(first.into_owned());
        match object(g, s, RDF_REST) {
            Some(next) => cur = next.into_owned(),
            None => break,
        }
    }
    out
}

fn file(t: TermRef<'_>) -> Option<PathBuf> {
    match t {
        TermRef::NamedNode(n) => iri_to_path(n.as_str()),
        _ => None,
    }
}

/// All tests of a manifest, following `mf:include` recursively, in manifest order.
pub fn load(path: &Path) -> Result<Vec<Test>, TestError> {
    let g = parse_manifest(path)?;
    let me = path_to_iri(path);
    let me = NamedOrBlankNodeRef::from(nn(&me));
    let mut tests = Vec::new();
    if let Some(inc) = object(&g, me, &format!("{MF}include")) {
        for m in list(&g, inc) {
            if let Some(p) = file(m.as_ref()) {
                tests.extend(load(&p)?);
            }
        }
    }
    let Some(entries) = object(&g, me, &format!("{MF}entries")) else {
        return Ok(tests);
    };
    for e in list(&g, entries) {
        let Some(s) = subject_of(e.as_ref()) else {
            continue;
        };
        let kind = match object(&g, s, RDF_TYPE) {
            Some(TermRef::NamedNode(n)) => n
                .as_str()
                .rsplit(['#', '/'])
                .next()
                .unwrap_or_default()
                .to_owned(),
            _ => String::new(),
        };
        let name = match object(&g, s, &format!("{MF}name")) {
            Some(TermRef::Literal(l)) => l.value().to_owned(),
            _ => String::new(),
        };
        let mut t = Test {
            id: e.to_string(),
            kind,
            name,
            manifest: path.to_path_buf(),
            ..Test::default()
        };
        if let Some(a) = object(&g, s, &format!("{MF}action")) {
            match subject_of(a) {
                Some(NamedOrBlankNodeRef::BlankNode(b)) => {
                    let b = NamedOrBlankNodeRef::from(b);
                    t.query = object(&g, b, &format!("{QT}query")).and_then(file);
                    let data = format!("{QT}data");
                    let gd = format!("{QT}graphData");
                    t.data = objects(&g, b, &data).filter_map(file).collect();
                    t.graph_data = objects(&g, b, &gd).filter_map(file).collect();
                    t.data.sort();
                    t.graph_data.sort();
                }
                _ => t.action = file(a),
            }
        }
        t.result = object(&g, s, &format!("{MF}result")).and_then(file);
        tests.push(t);
    }
    Ok(tests)
}
