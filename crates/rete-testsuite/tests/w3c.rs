//! W3C conformance runs. Each test prints `N passed, N failed` per manifest, lists every failure
//! and skip, and fails if the pass count drops below the pinned number.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_testsuite::manifest::{self, Test};
use rete_testsuite::sparql::SparqlSuite;
use rete_testsuite::{manifest_label, rdf, run_grouped, w3c_root, Summary};

/// Prints the summaries and returns (passed, failed, skipped) over all of them.
fn report(title: &str, sums: &[Summary]) -> (usize, usize, usize) {
    println!("== {title}");
    let (mut p, mut f, mut s) = (0, 0, 0);
    for sum in sums {
        println!("{}", sum.line());
        for (id, msg) in &sum.failed {
            let msg: String = msg.chars().take(1500).collect();
            println!("  FAIL {id}: {msg}");
        }
        for (id, why) in &sum.skipped {
            println!("  SKIP {id}: {why}");
        }
        p += sum.passed;
        f += sum.failed.len();
        s += sum.skipped.len();
    }
    println!("{title}: {p} passed, {f} failed");
    (p, f, s)
}

fn sparql_tests(manifest_file: &str, kinds: &[&str]) -> (SparqlSuite, Vec<Test>) {
    let root = w3c_root().join("sparql/sparql11");
    let tests = manifest::load(&root.join(manifest_file)).expect("manifest loads");
    let tests = tests
        .into_iter()
        .filter(|t| kinds.contains(&t.kind.as_str()))
        .collect();
    (SparqlSuite::new(root), tests)
}

#[test]
fn sparql11_query_evaluation() {
    let (suite, tests) = sparql_tests("manifest-sparql11-query.ttl", &["QueryEvaluationTest"]);
    assert_eq!(tests.len(), 225, "the suite has 225 evaluation tests");
    let sums = run_grouped(&tests, manifest_label, |t, d| suite.run(t, d)).expect("runs");
    let (passed, _, skipped) = report("SPARQL 1.1 query evaluation", &sums);
    println!(
        "evaluator: {} native, {} generic",
        suite.native.get(),
        suite.generic.borrow().len()
    );
    for (id, why) in suite.generic.borrow().iter() {
        println!("  generic {id}: {why}");
    }
    assert_eq!(skipped, 0);
    assert!(
        passed >= PINNED_EVAL,
        "{passed} < {PINNED_EVAL} evaluation tests pass"
    );
}

#[test]
fn sparql11_query_syntax() {
    let (suite, tests) = sparql_tests(
        "manifest-sparql11-query.ttl",
        &["PositiveSyntaxTest11", "NegativeSyntaxTest11"],
    );
    let sums = run_grouped(&tests, manifest_label, |t, d| suite.run(t, d)).expect("runs");
    let (passed, failed, _) = report("SPARQL 1.1 query syntax", &sums);
    assert_eq!(failed, 0);
    assert!(passed >= 103);
}

#[test]
fn sparql11_result_formats() {
    let (suite, tests) = sparql_tests(
        "manifest-sparql11-results.ttl",
        &["QueryEvaluationTest", "CSVResultFormatTest"],
    );
    let sums = run_grouped(&tests, manifest_label, |t, d| suite.run(t, d)).expect("runs");
    let (passed, failed, _) = report("SPARQL 1.1 result formats", &sums);
    assert_eq!(failed, 0);
    assert_eq!(passed, 10);
}

fn rdf_suite(dir: &str, pinned: usize) {
    let path = w3c_root().join("rdf/rdf11").join(dir).join("manifest.ttl");
    let tests = manifest::load(&path).expect("manifest loads");
    let sums = run_grouped(&tests, manifest_label, rdf::run).expect("runs");
    let (passed, failed, skipped) = report(dir, &sums);
    assert_eq!(skipped, 0);
    assert_eq!(passed + failed, tests.len());
    assert!(passed >= pinned, "{passed} < {pinned} tests pass");
}

#[test]
fn rdf11_n_triples() {
    rdf_suite("rdf-n-triples", 70);
}

#[test]
fn rdf11_n_quads() {
    rdf_suite("rdf-n-quads", 87);
}

#[test]
fn rdf11_turtle() {
    rdf_suite("rdf-turtle", 313);
}

#[test]
fn rdf11_trig() {
    rdf_suite("rdf-trig", 356);
}

#[test]
fn rdf11_xml() {
    rdf_suite("rdf-xml", 164);
}

/// Evaluation tests that must pass (of 225).
const PINNED_EVAL: usize = 225;
