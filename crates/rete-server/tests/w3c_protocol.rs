//! The W3C SPARQL 1.1 Protocol tests (rete-testsuite's vendored `sparql11/protocol`), each
//! request of each test sent to a real `rete serve` on 127.0.0.1. The manifest is read as RDF;
//! its graph data (`ut:graphData`) becomes the named graphs of the served file. Every test
//! passes or is pinned with its reason; the list is printed in every run.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::*;
use oxrdf::{Graph, NamedNodeRef, NamedOrBlankNodeRef, TermRef};
use rete_build::Syntax;
use rete_server::ServeOptions;
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};
use std::collections::BTreeMap;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rete-testsuite/w3c/rdf-tests/sparql/sparql11/protocol"
);

/// Tests this read-only server answers differently from the manifest on purpose.
const PINNED: &[(&str, &str)] = &[
    (
        "update_dataset_default_graph",
        "SPARQL Update: rete serve is read-only (403)",
    ),
    (
        "update_dataset_default_graphs",
        "SPARQL Update: rete serve is read-only (403)",
    ),
    (
        "update_dataset_named_graphs",
        "SPARQL Update: rete serve is read-only (403)",
    ),
    (
        "update_dataset_full",
        "SPARQL Update: rete serve is read-only (403)",
    ),
    (
        "update_post_form",
        "SPARQL Update: rete serve is read-only (403)",
    ),
    (
        "update_post_direct",
        "SPARQL Update: rete serve is read-only (403)",
    ),
    (
        "update_base_uri",
        "SPARQL Update: rete serve is read-only (403)",
    ),
];

const MF: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
const HT: &str = "http://www.w3.org/2011/http#";
const UT: &str = "http://www.w3.org/2009/sparql/tests/test-update#";
const CNT: &str = "http://www.w3.org/2011/content#";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";

struct Manifest {
    graph: Graph,
}

impl Manifest {
    fn objects<'a>(
        &'a self,
        s: NamedOrBlankNodeRef<'a>,
        ns: &str,
        local: &str,
    ) -> Vec<TermRef<'a>> {
        let p = format!("{ns}{local}");
        self.graph
            .objects_for_subject_predicate(s, NamedNodeRef::new(&p).unwrap())
            .collect()
    }

    fn one<'a>(&'a self, s: NamedOrBlankNodeRef<'a>, ns: &str, local: &str) -> Option<TermRef<'a>> {
        self.objects(s, ns, local).into_iter().next()
    }

    fn text<'a>(&'a self, s: NamedOrBlankNodeRef<'a>, ns: &str, local: &str) -> Option<String> {
        match self.one(s, ns, local)? {
            TermRef::Literal(l) => Some(l.value().to_owned()),
            TermRef::NamedNode(n) => Some(n.as_str().to_owned()),
            _ => None,
        }
    }

    fn list<'a>(&'a self, mut node: TermRef<'a>) -> Vec<TermRef<'a>> {
        let mut items = Vec::new();
        while let Some(s) = as_subject(node) {
            let Some(first) = self.one(s, RDF, "first") else {
                break;
            };
            items.push(first);
            node = self.one(s, RDF, "rest").unwrap();
        }
        items
    }
}

fn as_subject(t: TermRef<'_>) -> Option<NamedOrBlankNodeRef<'_>> {
    match t {
        TermRef::NamedNode(n) => Some(n.into()),
        TermRef::BlankNode(b) => Some(b.into()),
        _ => None,
    }
}

/// What a test expects of one response.
struct Expected {
    statuses: Vec<u16>,
    boolean: Option<bool>,
    format: Option<String>,
}

fn check(a: &Answer, e: &Expected) -> Result<(), String> {
    let class = a.status / 100;
    if !e.statuses.contains(&class) {
        return Err(format!(
            "status {} (expected {:?}xx): {}",
            a.status,
            e.statuses,
            a.body.trim()
        ));
    }
    let media = a.content_type.split(';').next().unwrap_or("").trim();
    match e.format.as_deref() {
        Some("boolean") | Some("tabular") => {
            let ok: &[&str] = if e.format.as_deref() == Some("boolean") {
                &[
                    "application/sparql-results+json",
                    "application/sparql-results+xml",
                ]
            } else {
                &[
                    "application/sparql-results+json",
                    "application/sparql-results+xml",
                    "text/csv",
                    "text/tab-separated-values",
                ]
            };
            if !ok.contains(&media) {
                return Err(format!("content type {media}, expected one of {ok:?}"));
            }
        }
        Some("RDF") => {
            let ok = [
                "application/rdf+xml",
                "text/turtle",
                "application/n-triples",
            ];
            if !ok.contains(&media) {
                return Err(format!("content type {media}, expected one of {ok:?}"));
            }
        }
        Some(other) => return Err(format!("unknown expected format {other}")),
        None => {}
    }
    if let Some(want) = e.boolean {
        let format = QueryResultsFormat::from_media_type(media).ok_or("no results format")?;
        match QueryResultsParser::from_format(format).for_slice(a.body.as_bytes()) {
            Ok(SliceQueryResultsParserOutput::Boolean(b)) if b == want => {}
            _ => return Err(format!("expected the boolean {want}, got {}", a.body)),
        }
    }
    Ok(())
}

#[test]
fn w3c_sparql11_protocol() {
    let path = format!("{DIR}/manifest.ttl");
    let base = "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/protocol/manifest.ttl";
    let text = std::fs::read(&path).unwrap();
    let graph: Graph = oxttl::TurtleParser::new()
        .with_base_iri(base)
        .unwrap()
        .for_slice(&text)
        .map(|t| t.unwrap())
        .collect();
    let m = Manifest { graph };
    let root = NamedNodeRef::new(base).unwrap();
    let entries = m.list(m.one(root.into(), MF, "entries").unwrap());
    assert_eq!(entries.len(), 34);

    // Every test's graph data, each file a named graph called by its label.
    let mut named: BTreeMap<String, String> = BTreeMap::new();
    for e in &entries {
        for d in m.objects(as_subject(*e).unwrap(), UT, "graphData") {
            let d = as_subject(d).unwrap();
            let file = m.text(d, UT, "graph").unwrap();
            let label = m.text(d, RDFS, "label").unwrap();
            let file = file.rsplit('/').next().unwrap().to_owned();
            let prev = named.insert(label.clone(), file.clone());
            assert!(prev.is_none_or(|p| p == file), "{label} is two files");
        }
    }
    let mut nquads = String::new();
    for (label, file) in &named {
        let nt = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
        for line in nt.lines().filter(|l| !l.trim().is_empty()) {
            let line = line.trim().trim_end_matches('.').trim_end();
            nquads += &format!("{line} <{label}> .\n");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let data = rete(dir.path(), "w3c", &nquads, Syntax::NQuads);
    let server = start(vec![("w3c", data)], ServeOptions::default());
    let prefix = format!("http://{}/w3c/sparql", server.addr());

    let mut passed = 0;
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for e in &entries {
        let test = as_subject(*e).unwrap();
        let TermRef::NamedNode(iri) = *e else {
            panic!()
        };
        let id = iri.as_str().rsplit('#').next().unwrap();
        let action = as_subject(m.one(test, MF, "action").unwrap()).unwrap();
        let requests = m.list(m.one(action, HT, "requests").unwrap());
        let mut outcome = Ok(());
        for r in requests {
            let r = as_subject(r).unwrap();
            let path = m.text(r, HT, "absolutePath").unwrap();
            let url = format!("{prefix}{}", path.strip_prefix("/sparql/").unwrap());
            let method = m.text(r, HT, "methodName").unwrap();
            let mut headers = Vec::new();
            if let Some(h) = m.one(r, HT, "headers") {
                for h in m.list(h) {
                    let h = as_subject(h).unwrap();
                    headers.push((
                        m.text(h, HT, "fieldName").unwrap(),
                        m.text(h, HT, "fieldValue").unwrap(),
                    ));
                }
            }
            let body: Option<Vec<u8>> = m.one(r, HT, "body").map(|b| {
                let b = as_subject(b).unwrap();
                let chars = m.text(b, CNT, "chars").unwrap();
                match m.text(b, CNT, "characterEncoding").as_deref() {
                    Some("UTF-16") => [0xFE, 0xFF]
                        .into_iter()
                        .chain(chars.encode_utf16().flat_map(u16::to_be_bytes))
                        .collect(),
                    _ => chars.into_bytes(),
                }
            });
            let resp = as_subject(m.one(r, HT, "resp").unwrap()).unwrap();
            let expected = Expected {
                statuses: m
                    .objects(resp, MF, "expectedStatus")
                    .iter()
                    .map(|s| {
                        let TermRef::NamedNode(s) = s else { panic!() };
                        s.as_str()
                            .trim_end_matches("xx")
                            .chars()
                            .last()
                            .unwrap()
                            .to_digit(10)
                            .unwrap() as u16
                    })
                    .collect(),
                boolean: m.text(resp, MF, "expectedBoolean").map(|b| b == "true"),
                format: m.text(resp, MF, "expectedFormat"),
            };
            let agent = agent();
            let body = body.unwrap_or_default();
            let answer = match method.as_str() {
                "GET" => {
                    let mut req = agent.get(&url);
                    for (k, v) in &headers {
                        req = req.header(k, v);
                    }
                    answer(req.call())
                }
                "POST" | "PUT" => {
                    let mut req = if method == "POST" {
                        agent.post(&url)
                    } else {
                        agent.put(&url)
                    };
                    for (k, v) in &headers {
                        req = req.header(k, v);
                    }
                    answer(req.send(&body[..]))
                }
                other => panic!("{id}: method {other}"),
            };
            outcome = check(&answer, &expected);
            if outcome.is_err() {
                break;
            }
        }
        let pin = PINNED.iter().find(|(p, _)| *p == id).map(|(_, why)| *why);
        match (outcome, pin) {
            (Ok(()), None) => passed += 1,
            (Err(_), Some(why)) => report.push(format!("pinned  {id}: {why}")),
            (Ok(()), Some(_)) => failures.push(format!("{id} passes: remove its pin")),
            (Err(e), None) => failures.push(format!("{id}: {e}")),
        }
    }
    println!(
        "W3C SPARQL 1.1 Protocol: {passed} passed, {} pinned, {} failed of {}",
        report.len(),
        failures.len(),
        entries.len()
    );
    for line in &report {
        println!("  {line}");
    }
    server.stop().unwrap();
    assert!(failures.is_empty(), "{failures:#?}");
}
