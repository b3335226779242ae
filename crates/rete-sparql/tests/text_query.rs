//! Jena's `text:query` property function: the label search answers it first, its hits join the
//! rest of the group, on files with and without a search index.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_core::Rete;
use rete_sparql::{query, write_results, QueryOptions, ResultFormat, SparqlError};
use std::sync::Arc;

const DATA: &str = r#"
@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
ex:einstein rdfs:label "Albert Einstein"@en ; foaf:name "A. Einstein" ; ex:born 1879 .
ex:bohr rdfs:label "Niels Bohr"@en ; ex:born 1885 .
ex:alba rdfs:label "Alba Einarsdottir" ; ex:born 1990 .
ex:dusseldorf rdfs:label "Düsseldorf"@de .
"#;

fn build(search: bool) -> (tempfile::TempDir, Rete) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rete");
    let extensions: Vec<Arc<dyn rete_build::Extension>> = if search {
        vec![Arc::new(rete_search::SearchExtension::default())]
    } else {
        Vec::new()
    };
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "t.ttl",
                DATA.as_bytes().to_vec(),
                rete_build::Syntax::Turtle,
            )],
            extensions,
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    let r = Rete::open_path(&out).unwrap();
    (dir, r)
}

fn csv(r: &Rete, q: &str) -> String {
    let mut out = Vec::new();
    write_results(
        query(r, q, &QueryOptions::default()).unwrap(),
        ResultFormat::Csv,
        &mut out,
    )
    .unwrap();
    String::from_utf8(out).unwrap().replace("\r\n", "\n")
}

const P: &str = "PREFIX text: <http://jena.apache.org/text#>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nPREFIX foaf: <http://xmlns.com/foaf/0.1/>\nPREFIX ex: <http://example.org/>\n";

#[test]
fn text_query_forms_with_and_without_index() {
    for search in [true, false] {
        let (_d, r) = build(search);
        // Jena's forms; the hits join the rest of the group.
        let q = format!("{P}SELECT ?s ?y WHERE {{ ?s text:query (rdfs:label 'alb ein' 10) . ?s ex:born ?y }} ORDER BY ?y");
        assert_eq!(
            csv(&r, &q),
            "s,y\nhttp://example.org/einstein,1879\nhttp://example.org/alba,1990\n"
        );
        let q = format!("{P}SELECT ?s WHERE {{ ?s text:query 'dusseldorf' }}");
        assert_eq!(csv(&r, &q), "s\nhttp://example.org/dusseldorf\n");
        let q = format!("{P}SELECT ?s WHERE {{ ?s text:query ('alb ein' 1) }}");
        assert_eq!(csv(&r, &q).lines().count(), 2);
        // Only the labels of the given property.
        let q = format!("{P}SELECT ?s WHERE {{ ?s text:query (foaf:name 'einstein') }}");
        assert_eq!(csv(&r, &q), "s\nhttp://example.org/einstein\n");
        let q = format!("{P}SELECT ?s WHERE {{ ?s text:query (foaf:name 'bohr') }}");
        assert_eq!(csv(&r, &q), "s\n");
        // Inside OPTIONAL and with a FILTER, counted.
        let q = format!(
            "{P}SELECT (COUNT(*) AS ?n) WHERE {{ ?s text:query 'e' FILTER(?s != ex:bohr) }}"
        );
        assert_eq!(csv(&r, &q), "n\n2\n");
        // Bad arguments: a clear error.
        for bad in [
            "?s text:query (rdfs:label 42)",
            "?s text:query ('x' 'y')",
            "ex:a text:query 'x'",
            "?s text:query ('a' 1 2)",
        ] {
            let q = format!("{P}SELECT * WHERE {{ {bad} }}");
            match query(&r, &q, &QueryOptions::default()) {
                Err(SparqlError::Unsupported(m)) => assert!(m.starts_with("text:query:"), "{m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
