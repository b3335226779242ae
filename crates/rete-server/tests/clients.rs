//! Real clients against `rete serve`: SPARQLWrapper and rdflib's SPARQLStore (PyPI, run by
//! python3 with tests/clients.py) get the same answers as the engine `rete sparql` runs, over a
//! sample file. Needs `pip install SPARQLWrapper rdflib` (scripts/setup.sh).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use oxrdf::Term;
use rete_server::{Endpoint, ServeOptions, Server};
use rete_sparql::QueryResults;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

const QUERIES: &[&str] = &[
    "PREFIX foaf: <http://xmlns.com/foaf/0.1/>
     SELECT ?p ?name WHERE { ?p foaf:name ?name } ORDER BY ?p LIMIT 25",
    "PREFIX foaf: <http://xmlns.com/foaf/0.1/>
     SELECT ?age (COUNT(?p) AS ?n) WHERE { ?p foaf:age ?age } GROUP BY ?age",
    "PREFIX foaf: <http://xmlns.com/foaf/0.1/>
     SELECT ?p ?friend ?age WHERE { ?p foaf:knows ?friend OPTIONAL { ?friend foaf:age ?age FILTER(?age > 70) } }
     ORDER BY ?p ?friend LIMIT 30",
    "PREFIX foaf: <http://xmlns.com/foaf/0.1/>
     SELECT (COUNT(DISTINCT ?x) AS ?reach) WHERE { <http://example.org/social/person/1> foaf:knows+ ?x }",
    "SELECT ?v WHERE { VALUES ?v { \"chat\"@fr \"5\"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.org/x> \"plain\" } }",
    "PREFIX foaf: <http://xmlns.com/foaf/0.1/> ASK { <http://example.org/social/person/1> foaf:knows ?x }",
    "ASK { <http://example.org/nobody> ?p ?o }",
    "PREFIX foaf: <http://xmlns.com/foaf/0.1/>
     CONSTRUCT { ?p foaf:name ?n } WHERE { ?p foaf:knows <http://example.org/social/person/1> ; foaf:name ?n }",
    "DESCRIBE <http://example.org/social/person/1>",
];

/// A term as clients.py writes it: [kind, value, datatype (not xsd:string), lang].
fn term(t: Option<&Term>) -> Value {
    match t {
        None => Value::Null,
        Some(Term::NamedNode(n)) => json!(["uri", n.as_str(), null, null]),
        Some(Term::BlankNode(_)) => json!(["bnode", null, null, null]),
        Some(Term::Literal(l)) => {
            let dt = l.datatype().as_str();
            let dt = (l.language().is_none() && dt != "http://www.w3.org/2001/XMLSchema#string")
                .then_some(dt);
            json!(["literal", l.value(), dt, l.language()])
        }
        #[allow(unreachable_patterns)]
        Some(other) => panic!("{other}"),
    }
}

fn sorted(mut v: Vec<Value>) -> Value {
    v.sort_by_key(|x| x.to_string());
    Value::Array(v)
}

/// The engine's answer in the same form.
fn expected(rete: &rete_core::Rete, q: &str) -> Value {
    match rete_sparql::query(rete, q, &Default::default()).unwrap() {
        QueryResults::Boolean(b) => json!({ "boolean": b }),
        QueryResults::Solutions(s) => {
            let vars: Vec<String> = s
                .variables()
                .iter()
                .map(|v| v.as_str().to_owned())
                .collect();
            let rows = s
                .map(|row| {
                    let row = row.unwrap();
                    Value::Array(row.values().iter().map(|t| term(t.as_ref())).collect())
                })
                .collect();
            json!({ "vars": vars, "rows": sorted(rows) })
        }
        QueryResults::Graph(t) => {
            let triples = t
                .map(|t| {
                    let t = t.unwrap();
                    json!([
                        term(Some(&t.subject.into())),
                        term(Some(&t.predicate.into())),
                        term(Some(&t.object))
                    ])
                })
                .collect();
            json!({ "graph": sorted(triples) })
        }
    }
}

#[test]
fn sparqlwrapper_and_rdflib_get_the_engines_answers() {
    let probe = Command::new("python3")
        .args(["-c", "import SPARQLWrapper, rdflib"])
        .status()
        .expect("python3 runs");
    assert!(
        probe.success(),
        "this test needs SPARQLWrapper and rdflib: pip install SPARQLWrapper rdflib (scripts/setup.sh)"
    );
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/social-1k.rete");
    let rete = rete_core::Rete::open_path(sample).unwrap();
    let endpoint = Endpoint::new("social", sample, rete.clone()).unwrap();
    let server = Server::start(vec![endpoint], ServeOptions::default(), "127.0.0.1:0").unwrap();
    let url = format!("http://{}/social/sparql", server.addr());

    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients.py");
    let mut child = Command::new("python3")
        .args([script, &url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(QUERIES).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "clients.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (i, q) in QUERIES.iter().enumerate() {
        let want = expected(&rete, q);
        assert_ne!(
            want,
            json!({ "graph": [] }),
            "query {i} should have an answer"
        );
        for client in ["sparqlwrapper", "rdflib"] {
            let mut answer = got[client][i].clone();
            if let Some(rows) = answer.get_mut("rows") {
                *rows = sorted(rows.as_array().unwrap().clone());
            }
            if let Some(graph) = answer.get_mut("graph") {
                *graph = sorted(graph.as_array().unwrap().clone());
            }
            assert_eq!(answer, want, "{client}, query {i}:\n{q}");
        }
    }
    server.stop().unwrap();
}
