//! Runaway work: LIMIT / OFFSET arithmetic that cannot overflow, a memory bound in bytes on both
//! evaluators, and CONSTRUCT results that are sets.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use rete_core::Rete;
use rete_sparql::{
    evaluate, evaluate_generic, evaluator_for, parse, query, Evaluator, QueryOptions, QueryResults,
    SparqlError,
};

fn rete() -> (tempfile::TempDir, Rete) {
    let mut data = String::from("@prefix ex: <http://example.org/> .\n");
    for i in 0..2000 {
        data.push_str(&format!(
            "ex:s{i} ex:p ex:o{} ; ex:name \"name number {i}\" ; ex:n {i} .\n",
            i % 7
        ));
    }
    common::turtle_rete("m", data.into_bytes())
}

fn count(r: Result<QueryResults, SparqlError>) -> Result<usize, SparqlError> {
    match r? {
        QueryResults::Solutions(s) => s
            .map(|x| x.map(|_| ()))
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.len()),
        QueryResults::Graph(t) => t
            .map(|x| x.map(|_| ()))
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.len()),
        QueryResults::Boolean(_) => Ok(1),
    }
}

const EX: &str = "PREFIX ex: <http://example.org/>\n";

#[test]
fn huge_offset_and_limit_do_not_overflow() {
    let (_d, r) = rete();
    for q in [
        "SELECT ?s WHERE { ?s ex:p ?o } OFFSET 18446744073709551615",
        "SELECT ?s WHERE { ?s ex:p ?o } ORDER BY ?s OFFSET 18446744073709551615 LIMIT 10",
        "SELECT ?s WHERE { ?s ex:p ?o } ORDER BY ?s LIMIT 18446744073709551615",
        "SELECT ?s WHERE { ?s ex:p ?o } ORDER BY ?s OFFSET 18446744073709551615 LIMIT 18446744073709551615",
        "SELECT ?s WHERE { { SELECT ?s WHERE { ?s ex:p ?o } ORDER BY ?s OFFSET 18446744073709551615 LIMIT 18446744073709551615 } }",
    ] {
        let parsed = parse(&format!("{EX}{q}"), None).unwrap();
        let opts = QueryOptions::default();
        let want = if q.contains("OFFSET") { 0 } else { 2000 };
        assert_eq!(count(evaluate(&r, &parsed, &opts)).unwrap(), want, "{q}");
        assert_eq!(
            count(evaluate_generic(&r, &parsed, &opts)).unwrap(),
            want,
            "{q}"
        );
    }
}

/// A query that must hold every row (a sort of all names) fails under a small memory limit on
/// both evaluators with a clear error, and succeeds under the default one.
#[test]
fn memory_limit_counts_bytes_on_both_evaluators() {
    let (_d, r) = rete();
    let shapes = [
        // Sort keys and rows.
        "SELECT ?s ?n WHERE { ?s ex:name ?n } ORDER BY ?n",
        // Group state.
        "SELECT ?s (COUNT(*) AS ?c) WHERE { ?s ?p ?o } GROUP BY ?s",
        // DISTINCT rows.
        "SELECT DISTINCT ?s ?n WHERE { ?s ex:name ?n }",
        // Computed strings kept for a sort.
        "SELECT ?s WHERE { ?s ex:name ?n } ORDER BY (CONCAT(?n, ?n, ?n))",
    ];
    for q in shapes {
        let parsed = parse(&format!("{EX}{q}"), None).unwrap();
        assert_eq!(
            evaluator_for(&r, &parsed).unwrap(),
            Evaluator::Native,
            "{q}"
        );
        let small = QueryOptions {
            memory_limit: Some(16 * 1024),
            ..QueryOptions::default()
        };
        for (name, result) in [
            ("native", evaluate(&r, &parsed, &small)),
            ("generic", evaluate_generic(&r, &parsed, &small)),
        ] {
            match count(result) {
                Err(SparqlError::TooLarge(m)) => {
                    assert!(m.contains("memory limit of 16.0 KiB"), "{name}: {m}");
                }
                other => panic!("{name} on {q}: expected TooLarge, got {other:?}"),
            }
        }
        assert!(count(evaluate(&r, &parsed, &QueryOptions::default())).unwrap() > 0);
        assert!(count(evaluate_generic(&r, &parsed, &QueryOptions::default())).unwrap() > 0);
    }
    // Streaming work holds one row at a time: a large scan passes a small limit natively.
    let scan = parse(&format!("{EX}SELECT * WHERE {{ ?s ?p ?o }}"), None).unwrap();
    let small = QueryOptions {
        memory_limit: Some(16 * 1024),
        ..QueryOptions::default()
    };
    assert_eq!(count(evaluate(&r, &scan, &small)).unwrap(), 6000);
}

#[test]
fn construct_returns_a_set() {
    let (_d, r) = rete();
    // Every solution makes the same two triples: the graph holds them once.
    let q = format!("{EX}CONSTRUCT {{ ex:a ex:b ex:c . ?o ex:seen true }} WHERE {{ ?s ex:p ?o }}");
    let parsed = parse(&q, None).unwrap();
    for r in [
        evaluate(&r, &parsed, &QueryOptions::default()),
        evaluate_generic(&r, &parsed, &QueryOptions::default()),
    ] {
        assert_eq!(count(r).unwrap(), 1 + 7);
    }
    assert_eq!(count(query(&r, &q, &QueryOptions::default())).unwrap(), 8);
}

/// A three-way product under a filter that hashes every row: no solution ever passes, so
/// nothing reaches the result stream, and the work is all inside spareval's joins. The deadline,
/// the cancel flag and the memory limit must each stop it with their own error.
#[test]
fn runaway_products_stop_on_the_generic_evaluator() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::{Duration, Instant};
    let (_d, r) = rete();
    let product = format!(
        "{EX}SELECT * WHERE {{ ?a ex:n ?x . ?b ex:n ?y . ?c ex:n ?z \
         FILTER(SHA256(CONCAT(STR(?x), STR(?y), STR(?z))) = \"no\") }}"
    );
    let q = parse(&product, None).unwrap();
    assert!(matches!(
        evaluator_for(&r, &q).unwrap(),
        Evaluator::Generic(_)
    ));
    let opts = QueryOptions {
        deadline: Some(Instant::now() + Duration::from_millis(300)),
        ..QueryOptions::default()
    };
    let e = count(evaluate_generic(&r, &q, &opts)).unwrap_err();
    assert!(matches!(e, SparqlError::Timeout), "{e}");
    // The cancel flag raised by another thread while the query runs.
    let cancel = Arc::new(AtomicBool::new(false));
    let raise = {
        let c = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            c.store(true, std::sync::atomic::Ordering::Relaxed);
        })
    };
    let opts = QueryOptions {
        cancel: Some(cancel),
        deadline: Some(Instant::now() + Duration::from_secs(120)),
        ..QueryOptions::default()
    };
    let e = count(evaluate_generic(&r, &q, &opts)).unwrap_err();
    raise.join().unwrap();
    assert!(matches!(e, SparqlError::Cancelled), "{e}");
    // DISTINCT over a product keeps every row in spareval: the resident growth is what counts.
    let distinct = format!("{EX}SELECT DISTINCT ?a ?b WHERE {{ ?a ex:n ?x . ?b ex:n ?y }}");
    let q = parse(&distinct, None).unwrap();
    let opts = QueryOptions {
        memory_limit: Some(16 << 20),
        deadline: Some(Instant::now() + Duration::from_secs(120)),
        ..QueryOptions::default()
    };
    let e = count(evaluate_generic(&r, &q, &opts)).unwrap_err();
    assert!(matches!(e, SparqlError::TooLarge(_)), "{e}");
}
