//! The public API: errors, cancellation, evaluator choice and result writers.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use rete_core::Rete;
use rete_sparql::{
    evaluator_for, parse, query, write_results, Evaluator, QueryOptions, QueryResults,
    ResultFormat, SparqlError,
};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DATA: &str = r#"
@prefix ex: <http://example.org/> .
ex:a ex:knows ex:b , ex:c ; ex:name "Ann" ; ex:age 31 .
ex:b ex:knows ex:c ; ex:name "Bob"@en ; ex:age 25 .
ex:c ex:knows ex:a ; ex:name "Cy" ; ex:age 47 .
"#;

fn rete() -> (tempfile::TempDir, Rete) {
    common::turtle_rete("t", DATA.as_bytes().to_vec())
}

fn text(r: QueryResults, f: ResultFormat) -> String {
    let mut out = Vec::new();
    write_results(r, f, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

const PEOPLE: &str =
    "PREFIX ex: <http://example.org/>\nSELECT ?p ?n WHERE { ?p ex:name ?n } ORDER BY ?n";

#[test]
fn syntax_errors_have_line_and_column() {
    let e = parse("SELECT ?x\nWHERE { ?x ?y }", None).unwrap_err();
    match e {
        SparqlError::Syntax { line, column, .. } => {
            assert_eq!(line, 2);
            assert!(column > 1, "column {column}");
        }
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn service_is_refused_explicitly() {
    let (_d, r) = rete();
    let e = query(
        &r,
        "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
        &QueryOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, SparqlError::Unsupported(_)), "{e}");
}

#[test]
fn cancel_flag_and_deadline_stop_queries() {
    let (_d, r) = rete();
    let cancel = Arc::new(AtomicBool::new(true));
    let opts = QueryOptions {
        cancel: Some(cancel),
        ..QueryOptions::default()
    };
    let e = query(&r, "SELECT * WHERE { ?s ?p ?o }", &opts).unwrap_err();
    assert!(matches!(e, SparqlError::Cancelled), "{e}");
    let opts = QueryOptions {
        deadline: Some(Instant::now() - Duration::from_millis(1)),
        ..QueryOptions::default()
    };
    let e = query(&r, "SELECT * WHERE { ?s ?p ?o }", &opts).unwrap_err();
    assert!(matches!(e, SparqlError::Timeout), "{e}");
}

#[test]
fn native_and_generic_evaluators_are_chosen_per_query() {
    let (_d, r) = rete();
    let q = parse(PEOPLE, None).unwrap();
    assert_eq!(evaluator_for(&r, &q).unwrap(), Evaluator::Native);
    let q = parse("SELECT (MD5(\"x\") AS ?h) WHERE {}", None).unwrap();
    assert!(matches!(
        evaluator_for(&r, &q).unwrap(),
        Evaluator::Generic(_)
    ));
    // Both give the answer.
    let QueryResults::Solutions(s) =
        rete_sparql::evaluate(&r, &q, &QueryOptions::default()).unwrap()
    else {
        panic!("solutions expected");
    };
    assert_eq!(s.count(), 1);
}

#[test]
fn results_in_every_format() {
    let (_d, r) = rete();
    let run = || query(&r, PEOPLE, &QueryOptions::default()).unwrap();
    assert!(text(run(), ResultFormat::Json).contains("\"Bob\""));
    assert!(text(run(), ResultFormat::Xml).contains("<literal xml:lang=\"en\">Bob</literal>"));
    assert!(text(run(), ResultFormat::Csv).starts_with("p,n\r\n"));
    assert!(text(run(), ResultFormat::Tsv).starts_with("?p\t?n\n"));
    let table = text(run(), ResultFormat::Table);
    assert!(table.contains("| ?p "), "{table}");
    assert!(table.trim_end().ends_with("3 rows"), "{table}");
    let ask = query(
        &r,
        "ASK { <http://example.org/a> <http://example.org/knows> <http://example.org/b> }",
        &QueryOptions::default(),
    )
    .unwrap();
    assert_eq!(text(ask, ResultFormat::Table).trim(), "true");
    let g = || {
        query(
            &r,
            "CONSTRUCT { ?b <http://example.org/knownBy> ?a } WHERE { ?a <http://example.org/knows> ?b }",
            &QueryOptions::default(),
        )
        .unwrap()
    };
    assert_eq!(text(g(), ResultFormat::NTriples).lines().count(), 4);
    assert!(text(g(), ResultFormat::Turtle).contains("knownBy"));
    let mut sink = Vec::new();
    assert!(matches!(
        write_results(g(), ResultFormat::Json, &mut sink),
        Err(SparqlError::Format(_))
    ));
}

#[test]
fn format_names() {
    assert_eq!(ResultFormat::from_name("JSON"), Some(ResultFormat::Json));
    assert_eq!(ResultFormat::from_name("nt"), Some(ResultFormat::NTriples));
    assert_eq!(ResultFormat::from_name("table"), Some(ResultFormat::Table));
    assert_eq!(ResultFormat::from_name("yaml"), None);
    for n in ResultFormat::NAMES {
        assert!(ResultFormat::from_name(n).is_some(), "{n}");
    }
}

#[test]
fn aggregates_paths_and_subqueries_natively() {
    let (_d, r) = rete();
    let q = "PREFIX ex: <http://example.org/>
        SELECT ?p (COUNT(?f) AS ?c) (AVG(?a) AS ?avg) WHERE {
          ?p ex:knows+ ?f . ?f ex:age ?a
          { SELECT ?p WHERE { ?p ex:age ?x FILTER(?x > 30) } }
        } GROUP BY ?p ORDER BY ?p";
    let parsed = parse(q, None).unwrap();
    assert_eq!(evaluator_for(&r, &parsed).unwrap(), Evaluator::Native);
    let QueryResults::Solutions(s) = query(&r, q, &QueryOptions::default()).unwrap() else {
        panic!("solutions expected");
    };
    let rows: Vec<_> = s.map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0].get("c").unwrap().to_string(),
        "\"3\"^^<http://www.w3.org/2001/XMLSchema#integer>"
    );
}
