//! The native evaluator's fast paths give the answers of the general ones: booleans and numbers
//! computed without decoded values (`&&`, `||`, `!`, `=`, `<`, arithmetic, `STRLEN`, `REGEX`),
//! SUM / AVG on numbers, GROUP BY on id keys, and CONSTRUCT deduplicated on id triples. Every
//! query runs natively and on the generic evaluator (spareval), which must agree; the edge
//! cases (NaN, overflow, booleans against numbers, ill-typed and unknown literals, unbound
//! variables, mixed types) are the ones a shortcut could get wrong.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::canon;

use rete_core::Rete;
use rete_sparql::{evaluate, evaluate_generic, evaluator_for, parse, Evaluator, QueryOptions};

const DATA: &str = r#"
@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:v 1 ; ex:n "Ada" ; ex:g ex:x .
ex:b ex:v "01"^^xsd:integer ; ex:n "Ada"@en ; ex:g ex:x .
ex:c ex:v 2.5 ; ex:n "Grace Hopper" ; ex:g ex:y .
ex:d ex:v 1.0e0 ; ex:n "Ada"^^xsd:string ; ex:g ex:y .
ex:e ex:v "NaN"^^xsd:double ; ex:n "x"^^ex:unknown ; ex:g ex:z .
ex:f ex:v "INF"^^xsd:double ; ex:n 7 .
ex:g ex:v true ; ex:n "" .
ex:h ex:v "xyz"^^xsd:integer ; ex:n ex:iri .
ex:i ex:v 9223372036854775807 ; ex:n "émile"@FR .
ex:j ex:v "2"^^xsd:float ; ex:n "tab\there" .
ex:k ex:v "abc" .
ex:l ex:v ex:iri .
ex:m ex:v "0"^^xsd:boolean .
ex:n ex:v -3 .
ex:o ex:v 3 .
"#;

const PREFIXES: &str =
    "PREFIX ex: <http://example.org/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n";

fn rete() -> (tempfile::TempDir, Rete) {
    common::turtle_rete("f", DATA.as_bytes().to_vec())
}

/// Runs `q` natively (asserting it does run natively) and generically; returns the answer.
fn both(r: &Rete, q: &str) -> Vec<String> {
    let text = format!("{PREFIXES}{q}");
    let parsed = parse(&text, None).unwrap();
    assert_eq!(evaluator_for(r, &parsed).unwrap(), Evaluator::Native, "{q}");
    let opts = QueryOptions::default();
    let native = canon(evaluate(r, &parsed, &opts).unwrap());
    let generic = canon(evaluate_generic(r, &parsed, &opts).unwrap());
    assert_eq!(native, generic, "the evaluators differ on\n{q}");
    native
}

fn filter(r: &Rete, cond: &str) -> Vec<String> {
    both(
        r,
        &format!("SELECT ?x WHERE {{ ?x ex:v ?v OPTIONAL {{ ?x ex:n ?n }} FILTER({cond}) }}"),
    )
}

fn bind(r: &Rete, e: &str) -> Vec<String> {
    both(
        r,
        &format!("SELECT ?x ?r WHERE {{ ?x ex:v ?v OPTIONAL {{ ?x ex:n ?n }} BIND({e} AS ?r) }}"),
    )
}

#[test]
fn comparisons_and_arithmetic_agree() {
    let (_d, r) = rete();
    for cond in [
        "?v = 1",
        "?v != 1",
        "?v = ?v",
        "?v != ?v",
        "?v < 2",
        "?v >= 1",
        "?v > \"NaN\"^^xsd:double",
        "?v * 2 > 3 && ?v != 2.5 || ?v = 1",
        "?v + 1 > ?v",
        "?v - 1 < 0",
        "?v / 2 = 0.5",
        "-?v < 0",
        "?v * 2 > 0",
        "?v = true",
        "?v = false || ?v",
        "!?v",
        "!(?v > 1)",
        "?v",
        "?v && true",
        "?v || false",
        "?undef || ?v > 1",
        "?undef && ?v > 1",
        "!bound(?n) || ?v > 1",
        "?v = \"abc\"",
        "?v != ex:iri",
        "?v = ?n",
        "?v < ?n",
        "?n = \"Ada\"",
        "?n != \"Ada\"",
        "STRLEN(?n) * 2 > 6 && ?n != \"Ada\" || ?n = \"Ada\"",
        "STRLEN(?n) > 3",
        "STRLEN(?n) = 0",
        "REGEX(?n, \"^ad\", \"i\")",
        "REGEX(?n, \"e\") && ?v > 1",
        "STRLEN(?v) > 0",
    ] {
        filter(&r, cond);
    }
}

#[test]
fn computed_values_agree() {
    let (_d, r) = rete();
    for e in [
        "?v * 2",
        "?v + ?v",
        "?v - 1.5",
        "?v / 0",
        "?v / 0.0e0",
        "?v * 9223372036854775807",
        "-?v",
        "?v > 1",
        "?v = 1 || ?v = 2",
        "!(?v = 1)",
        "STRLEN(?n) + 1",
        "(?v > 1) = true",
    ] {
        bind(&r, e);
    }
    // Computed numbers and booleans get the id of the same stored term: they join with it and
    // group with it.
    let joined = both(
        &r,
        "SELECT ?x ?y WHERE { ?x ex:n ?n BIND(STRLEN(?n) AS ?l) ?y ex:v ?l }",
    );
    assert!(joined.contains(&"<http://example.org/a> | <http://example.org/o>".to_owned()));
    both(
        &r,
        "SELECT ?l (COUNT(*) AS ?c) WHERE { ?x ex:n ?n BIND(STRLEN(?n) AS ?l) } GROUP BY ?l",
    );
    both(
        &r,
        "SELECT ?b (COUNT(*) AS ?c) WHERE { ?x ex:v ?v BIND(?v > 1 AS ?b) } GROUP BY ?b",
    );
    both(
        &r,
        "SELECT ?x ?y WHERE { ?x ex:v ?v BIND(?v = 1 AS ?b) ?y ex:v ?b }",
    );
    // Overflow is an error: the value is unbound.
    let got = both(&r, "SELECT ?r WHERE { ex:i ex:v ?v BIND(?v + 1 AS ?r) }");
    assert_eq!(got, [""]);
    // NaN is not equal to itself.
    assert!(both(&r, "SELECT ?x WHERE { ?x ex:v ?v FILTER(?v = ?v) }")
        .iter()
        .all(|x| x != "<http://example.org/e>"));
}

#[test]
fn aggregates_agree() {
    let (_d, r) = rete();
    for q in [
        "SELECT (SUM(?v) AS ?s) WHERE { ?x ex:v ?v FILTER(isNumeric(?v)) }",
        "SELECT (SUM(?v) AS ?s) WHERE { ?x ex:v ?v }",
        "SELECT (AVG(?v) AS ?s) WHERE { ?x ex:v ?v FILTER(isNumeric(?v) && ?v < 10) }",
        "SELECT ?g (SUM(?v) AS ?s) (AVG(?v) AS ?a) (COUNT(*) AS ?c) WHERE { ?x ex:v ?v ; ex:g ?g } GROUP BY ?g",
        "SELECT ?g (COUNT(DISTINCT ?v) AS ?c) WHERE { ?x ex:v ?v OPTIONAL { ?x ex:g ?g } } GROUP BY ?g",
        "SELECT ?g ?n (COUNT(*) AS ?c) WHERE { ?x ex:v ?v OPTIONAL { ?x ex:g ?g } OPTIONAL { ?x ex:n ?n } } GROUP BY ?g ?n",
        "SELECT (SUM(?v) AS ?s) (AVG(?v) AS ?a) WHERE { ?x ex:v ?v FILTER(false) }",
        "SELECT (SUM(DISTINCT ?v) AS ?s) WHERE { ?x ex:v ?v FILTER(isNumeric(?v) && ?v < 10 && ?x != ex:b) }",
        "SELECT (AVG(?v) AS ?a) WHERE { ?x ex:v ?v FILTER(?v = true || ?v = 1) }",
        "SELECT ?g (COUNT(?x) AS ?c) WHERE { ?x ex:g ?g } GROUP BY ?g HAVING (COUNT(?x) >= 2)",
        "SELECT (MIN(?v) AS ?a) (MAX(?v) AS ?b) WHERE { ?x ex:v ?v }",
        "SELECT (MIN(?v) AS ?a) (MAX(?v) AS ?b) WHERE { ?x ex:v ?v FILTER(isNumeric(?v)) }",
        "SELECT (MIN(?v) AS ?a) (MAX(?v) AS ?b) WHERE { ?x ex:v ?v FILTER(isNumeric(?v) && ?x != ex:e) }",
        "SELECT ?g (MIN(?v) AS ?a) (MAX(?v) AS ?b) WHERE { ?x ex:v ?v OPTIONAL { ?x ex:g ?g } } GROUP BY ?g",
        "SELECT (MIN(?l) AS ?a) (MAX(?l) AS ?b) (SUM(?l) AS ?s) WHERE { ?x ex:n ?n BIND(STRLEN(?n) AS ?l) }",
    ] {
        both(&r, q);
    }
    assert_eq!(
        both(
            &r,
            "SELECT ?g (COUNT(*) AS ?c) WHERE { ?x ex:g ?g } GROUP BY ?g"
        ),
        [
            "<http://example.org/x> | \"2\"^^<http://www.w3.org/2001/XMLSchema#integer>",
            "<http://example.org/y> | \"2\"^^<http://www.w3.org/2001/XMLSchema#integer>",
            "<http://example.org/z> | \"1\"^^<http://www.w3.org/2001/XMLSchema#integer>",
        ]
    );
}

#[test]
fn construct_is_a_set_by_id() {
    let (_d, r) = rete();
    // The constant ex:x and ?g bound to ex:x are the same term: one triple.
    let got = both(
        &r,
        "CONSTRUCT { ex:s ex:p ex:x . ex:s ex:p ?g } WHERE { ?x ex:g ?g }",
    );
    assert_eq!(
        got,
        [
            "<http://example.org/s> <http://example.org/p> <http://example.org/x>",
            "<http://example.org/s> <http://example.org/p> <http://example.org/y>",
            "<http://example.org/s> <http://example.org/p> <http://example.org/z>",
        ]
    );
    // A literal in the subject position is left out, not kept as a key.
    assert_eq!(
        both(
            &r,
            "CONSTRUCT { ?v ex:p ex:o } WHERE { ?x ex:v ?v FILTER(?x = ex:l || ?x = ex:a) }"
        ),
        ["<http://example.org/iri> <http://example.org/p> <http://example.org/o>"]
    );
    // Template blank nodes are fresh per solution: never merged across solutions, while the
    // same triple written twice in the template is given once.
    let q = format!(
        "{PREFIXES}CONSTRUCT {{ _:b ex:p ?g . _:b ex:p ?g . _:c ex:q ?g }} WHERE {{ ?x ex:g ?g }}"
    );
    let parsed = parse(&q, None).unwrap();
    let n = canon(evaluate(&r, &parsed, &QueryOptions::default()).unwrap()).len();
    assert_eq!(n, 10);
    // Query-local literals (not in the file) compare by their local ids.
    assert_eq!(
        both(
            &r,
            "CONSTRUCT { ex:s ex:p \"new\" . ?x ex:p \"new\" } WHERE { ?x ex:g ex:z }"
        ),
        [
            "<http://example.org/e> <http://example.org/p> \"new\"",
            "<http://example.org/s> <http://example.org/p> \"new\"",
        ]
    );
}
