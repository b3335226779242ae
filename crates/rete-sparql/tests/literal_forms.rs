//! Literals keep their lexical form. Every expected answer below is written by hand from the
//! SPARQL 1.1 spec (not from Oxigraph, which canonicalizes numeric literals when it loads them,
//! so it cannot be the oracle for lexical forms). Each query runs on both evaluators — the
//! native one and the generic one (spareval) — which must give the same answer.
//!
//! What the spec fixes: `STR` of a literal is its lexical form (§17.4.2.5), so everything that
//! reads a literal's text through `STR` sees `"01"`, not `"1"`. The string functions take string
//! literals, so applying them to a typed number directly is a type error (unbound). Value
//! comparisons (`=`, `!=`, `<`, `ORDER BY`) compare values (§17.3), while `sameTerm`,
//! `DISTINCT` and `GROUP BY` compare terms (§17.4.1.8, §18.5): `"01"^^xsd:integer = 1` holds but
//! the two are different terms.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use rete_core::Rete;
use rete_sparql::{evaluate, evaluate_generic, parse, QueryOptions, QueryResults};

const DATA: &str = r#"
@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:p "01"^^xsd:integer .
ex:b ex:p "1.0e0"^^xsd:double .
ex:c ex:p "1.0"^^xsd:double .
ex:d ex:p "+7"^^xsd:integer .
ex:e ex:p "-0"^^xsd:integer .
ex:f ex:p "2.50"^^xsd:decimal .
ex:g ex:p "xyz"^^xsd:integer .
ex:h ex:p "abc"^^ex:unknown .
ex:i ex:p "Chat"@EN-us .
ex:j ex:p "1"^^xsd:integer .
ex:k ex:p "0001"^^xsd:boolean .
"#;

const PREFIXES: &str =
    "PREFIX ex: <http://example.org/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n";

const INT: &str = "<http://www.w3.org/2001/XMLSchema#integer>";
const DOUBLE: &str = "<http://www.w3.org/2001/XMLSchema#double>";
const DECIMAL: &str = "<http://www.w3.org/2001/XMLSchema#decimal>";

fn rete() -> (tempfile::TempDir, Rete) {
    common::turtle_rete("l", DATA.as_bytes().to_vec())
}

/// Rows as N-Triples cells (`""` for unbound).
fn rows(r: QueryResults) -> Vec<Vec<String>> {
    let QueryResults::Solutions(s) = r else {
        panic!("not solutions")
    };
    let n = s.variables().len();
    s.map(|row| {
        let row = row.unwrap();
        (0..n)
            .map(|i| row.get(i).map(ToString::to_string).unwrap_or_default())
            .collect()
    })
    .collect()
}

/// Runs `q` on both evaluators; they must agree.
fn both(r: &Rete, q: &str) -> Vec<Vec<String>> {
    let text = format!("{PREFIXES}{q}");
    let parsed = parse(&text, None).unwrap();
    let opts = QueryOptions::default();
    let native = rows(evaluate(r, &parsed, &opts).unwrap());
    let generic = rows(evaluate_generic(r, &parsed, &opts).unwrap());
    assert_eq!(native, generic, "the evaluators differ on\n{q}");
    native
}

/// One column of `q`'s answer.
fn col(r: &Rete, q: &str) -> Vec<String> {
    both(r, q)
        .into_iter()
        .map(|mut row| row.remove(0))
        .collect()
}

fn boolean(b: bool) -> String {
    format!("\"{b}\"^^<http://www.w3.org/2001/XMLSchema#boolean>")
}

fn s(v: &str) -> String {
    format!("\"{v}\"")
}

#[test]
fn str_is_the_lexical_form() {
    let (_d, r) = rete();
    let got = both(
        &r,
        "SELECT ?x (STR(?v) AS ?s) WHERE { ?x ex:p ?v } ORDER BY ?x",
    );
    let want: Vec<Vec<String>> = [
        ("a", "01"),
        ("b", "1.0e0"),
        ("c", "1.0"),
        ("d", "+7"),
        ("e", "-0"),
        ("f", "2.50"),
        ("g", "xyz"),
        ("h", "abc"),
        ("i", "Chat"),
        ("j", "1"),
        ("k", "0001"),
    ]
    .iter()
    .map(|(x, v)| vec![format!("<http://example.org/{x}>"), s(v)])
    .collect();
    assert_eq!(got, want);
    // A constant of the query keeps its spelling too.
    assert_eq!(
        col(&r, "SELECT (STR(\"0010\"^^xsd:integer) AS ?s) {}"),
        [s("0010")]
    );
}

#[test]
fn string_functions_read_the_lexical_form() {
    let (_d, r) = rete();
    let one = |f: &str, x: &str| -> String {
        let q = format!("SELECT ({f} AS ?r) WHERE {{ ex:{x} ex:p ?v }}");
        col(&r, &q).remove(0)
    };
    assert_eq!(one("STRLEN(STR(?v))", "a"), format!("\"2\"^^{INT}"));
    assert_eq!(one("STRLEN(STR(?v))", "b"), format!("\"5\"^^{INT}"));
    assert_eq!(one("SUBSTR(STR(?v), 2)", "f"), s(".50"));
    assert_eq!(one("CONCAT(STR(?v), \"|\", STR(?v))", "d"), s("+7|+7"));
    assert_eq!(one("REGEX(STR(?v), \"^0\")", "a"), boolean(true));
    assert_eq!(one("REGEX(STR(?v), \"^0\")", "j"), boolean(false));
    assert_eq!(one("CONTAINS(STR(?v), \"e\")", "b"), boolean(true));
    assert_eq!(one("STRSTARTS(STR(?v), \"+\")", "d"), boolean(true));
    assert_eq!(one("STRENDS(STR(?v), \"0\")", "f"), boolean(true));
    assert_eq!(one("UCASE(STR(?v))", "b"), s("1.0E0"));
    assert_eq!(one("LCASE(STR(?v))", "i"), s("chat"));
    assert_eq!(one("ENCODE_FOR_URI(STR(?v))", "d"), s("%2B7"));
    // MD5 and SHA1 run on the generic evaluator: md5("01"), sha1("-0").
    assert_eq!(
        one("MD5(STR(?v))", "a"),
        s("96a3be3cf272e017046d1b2674a52bd3")
    );
    assert_eq!(
        one("SHA1(STR(?v))", "e"),
        s("0fefd27cad4915946049f0352bedc0fa59d601e2")
    );
    assert_eq!(one("STRDT(STR(?v), xsd:string)", "c"), s("1.0"));
    assert_eq!(one("STRBEFORE(STR(?v), \".\")", "c"), s("1"));
    assert_eq!(one("STRAFTER(STR(?v), \".\")", "f"), s("50"));
    // The string functions take string literals: a typed number is a type error (unbound).
    assert_eq!(one("STRLEN(?v)", "a"), "");
    assert_eq!(one("CONCAT(?v, \"x\")", "a"), "");
    // BIND keeps the term itself, and STR of the bound copy is still the lexical form.
    assert_eq!(
        col(
            &r,
            "SELECT (STR(?w) AS ?s) WHERE { ex:a ex:p ?v BIND(?v AS ?w) }"
        ),
        [s("01")]
    );
}

#[test]
fn group_concat_of_str_and_min_max_keep_terms() {
    let (_d, r) = rete();
    assert_eq!(
        col(
            &r,
            "SELECT (GROUP_CONCAT(STR(?v); SEPARATOR=\",\") AS ?g) WHERE { VALUES ?x { ex:a ex:d ex:f } ?x ex:p ?v }"
        ),
        [s("01,+7,2.50")]
    );
    // MIN / MAX are value operations (§18.5.1.4): they answer with the value, whose spelling
    // is canonical.
    assert_eq!(
        col(
            &r,
            "SELECT (MAX(?v) AS ?m) WHERE { VALUES ?x { ex:a ex:d ex:f } ?x ex:p ?v }"
        ),
        [format!("\"7\"^^{INT}")]
    );
    assert_eq!(
        col(
            &r,
            "SELECT (MIN(?v) AS ?m) WHERE { VALUES ?x { ex:a ex:d ex:f } ?x ex:p ?v }"
        ),
        [format!("\"1\"^^{INT}")]
    );
}

#[test]
fn comparisons_are_by_value_and_same_term_by_term() {
    let (_d, r) = rete();
    let subjects = |filter: &str| -> Vec<String> {
        col(
            &r,
            &format!("SELECT ?x WHERE {{ ?x ex:p ?v FILTER({filter}) }} ORDER BY ?x"),
        )
        .into_iter()
        .map(|x| {
            x.trim_start_matches("<http://example.org/")
                .trim_end_matches('>')
                .to_owned()
        })
        .collect()
    };
    // By value: 01, 1.0e0, 1.0 and 1 are all the number one.
    assert_eq!(subjects("?v = 1"), ["a", "b", "c", "j"]);
    assert_eq!(subjects("?v = 1.0"), ["a", "b", "c", "j"]);
    assert_eq!(subjects("?v = 0"), ["e"]);
    // `!=` on numbers: the other numbers (ill-typed and unknown-typed literals are errors).
    assert_eq!(subjects("isNumeric(?v) && ?v != 1"), ["d", "e", "f"]);
    assert_eq!(subjects("?v > 1"), ["d", "f"]);
    // By lexical form: only the literal spelled "1".
    assert_eq!(subjects("STR(?v) = \"1\""), ["j"]);
    // By term.
    assert_eq!(subjects("sameTerm(?v, 1)"), ["j"]);
    assert_eq!(subjects("sameTerm(?v, \"01\"^^xsd:integer)"), ["a"]);
    assert_eq!(subjects("sameTerm(?v, \"1.0\"^^xsd:double)"), ["c"]);
    // An ill-typed literal equals itself (same term) and nothing else.
    assert_eq!(subjects("?v = \"xyz\"^^xsd:integer"), ["g"]);
    assert_eq!(subjects("sameTerm(?v, \"abc\"^^ex:unknown)"), ["h"]);
    // Language tags compare without case (the file stores them lower-cased).
    assert_eq!(subjects("?v = \"Chat\"@en-US"), ["i"]);
    assert_eq!(subjects("LANGMATCHES(LANG(?v), \"EN\")"), ["i"]);
    assert_eq!(
        col(&r, "SELECT (LANG(?v) AS ?l) WHERE { ex:i ex:p ?v }"),
        [s("en-us")]
    );
}

#[test]
fn distinct_keeps_terms_and_order_by_sorts_values() {
    let (_d, r) = rete();
    // Four different terms with the same value: DISTINCT keeps them all.
    let mut got = col(&r, "SELECT DISTINCT ?v WHERE { ?x ex:p ?v FILTER(?v = 1) }");
    got.sort();
    let mut want = [
        format!("\"01\"^^{INT}"),
        format!("\"1.0\"^^{DOUBLE}"),
        format!("\"1.0e0\"^^{DOUBLE}"),
        format!("\"1\"^^{INT}"),
    ];
    want.sort();
    assert_eq!(got, want);
    // ORDER BY sorts by value (ties broken by the subject), and the terms keep their spelling.
    assert_eq!(
        col(
            &r,
            "SELECT ?v WHERE { ?x ex:p ?v FILTER(isNumeric(?v)) } ORDER BY ?v ?x"
        ),
        [
            format!("\"-0\"^^{INT}"),
            format!("\"01\"^^{INT}"),
            format!("\"1.0e0\"^^{DOUBLE}"),
            format!("\"1.0\"^^{DOUBLE}"),
            format!("\"1\"^^{INT}"),
            format!("\"2.50\"^^{DECIMAL}"),
            format!("\"+7\"^^{INT}"),
        ]
    );
    // GROUP BY groups terms: four groups for the number one.
    assert_eq!(
        both(
            &r,
            "SELECT ?v (COUNT(*) AS ?n) WHERE { ?x ex:p ?v FILTER(?v = 1) } GROUP BY ?v ORDER BY STR(?v)"
        )
        .len(),
        4
    );
}

/// SPARQL 1.1 §17.4.3.14: `STRDT` "constructs a literal with lexical form and type as specified
/// by the arguments", so `STRDT("2.50", xsd:decimal)` is the term `"2.50"^^xsd:decimal` (whose
/// value is 2.5: value comparisons still see 2.5), not the canonical `"2.5"`.
#[test]
fn strdt_keeps_the_lexical_form() {
    let (_d, r) = rete();
    let dec = |v: &str| format!("\"{v}\"^^{DECIMAL}");
    assert_eq!(
        col(&r, "SELECT (STRDT(\"2.50\", xsd:decimal) AS ?x) {}"),
        [dec("2.50")]
    );
    assert_eq!(
        col(
            &r,
            "SELECT ?x WHERE { BIND(STRDT(\"007\", xsd:integer) AS ?x) }"
        ),
        [format!("\"007\"^^{INT}")]
    );
    // From a term of the file: STR reads "2.50", STRDT keeps it.
    assert_eq!(
        col(
            &r,
            "SELECT (STRDT(STR(?v), xsd:decimal) AS ?x) WHERE { ex:f ex:p ?v }"
        ),
        [dec("2.50")]
    );
    // A literal the file holds comes back as that term too.
    assert_eq!(
        col(
            &r,
            "SELECT ?x WHERE { BIND(STRDT(\"01\", xsd:integer) AS ?x) ?s ex:p ?x }"
        ),
        [format!("\"01\"^^{INT}")]
    );
    // Value comparisons see the value.
    assert_eq!(
        col(
            &r,
            "SELECT ?x WHERE { BIND(STRDT(\"2.50\", xsd:decimal) AS ?x) FILTER(?x = 2.5) }"
        ),
        [dec("2.50")]
    );
    // Not a simple literal, or not an IRI: STRDT fails, the variable stays unbound.
    assert_eq!(
        col(&r, "SELECT (STRDT(\"2.50\"@en, xsd:decimal) AS ?x) {}"),
        [""]
    );
    assert_eq!(col(&r, "SELECT (STRDT(\"2.50\", \"x\") AS ?x) {}"), [""]);
    assert_eq!(
        col(
            &r,
            "SELECT (STRDT(?v, xsd:decimal) AS ?x) WHERE { ex:f ex:p ?v }"
        ),
        [""]
    );
}

/// CONCAT reads terms' text in place (its pieces: terms, STR and SUBSTR of terms): language
/// tags, lexical forms and type errors as through values.
#[test]
fn concat_of_terms_in_place() {
    let (_d, r) = rete();
    let one = |f: &str, x: &str| -> String {
        let q = format!("SELECT ({f} AS ?r) WHERE {{ BIND(ex:{x} AS ?x) ?x ex:p ?v }}");
        col(&r, &q).remove(0)
    };
    assert_eq!(one("CONCAT(?v, ?v)", "i"), "\"ChatChat\"@en-us");
    assert_eq!(one("CONCAT(?v, \"!\")", "i"), s("Chat!"));
    assert_eq!(one("CONCAT(SUBSTR(?v, 2, 2))", "i"), "\"ha\"@en-us");
    assert_eq!(one("CONCAT(SUBSTR(?v, 2), \"|\", ?v)", "i"), s("hat|Chat"));
    assert_eq!(one("CONCAT(SUBSTR(?v, 2), ?v)", "i"), "\"hatChat\"@en-us");
    assert_eq!(
        one("CONCAT(STR(?v), \"|\", STR(?x))", "a"),
        s("01|http://example.org/a")
    );
    assert_eq!(one("CONCAT(SUBSTR(STR(?v), 2), \"|\")", "f"), s(".50|"));
    // Not strings: a typed number, an IRI, a non-numeric SUBSTR start.
    assert_eq!(one("CONCAT(?v, \"x\")", "j"), "");
    assert_eq!(one("CONCAT(?x, \"x\")", "a"), "");
    assert_eq!(one("CONCAT(SUBSTR(?v, \"a\"))", "i"), "");
    // STRLEN and REGEX read a term's text in place too.
    assert_eq!(one("STRLEN(?v)", "i"), format!("\"4\"^^{INT}"));
    assert_eq!(one("REGEX(?v, \"^ch\", \"i\")", "i"), boolean(true));
    assert_eq!(one("STRLEN(?x)", "a"), "");
    assert_eq!(one("REGEX(?x, \"a\")", "a"), "");
    assert_eq!(one("REGEX(?v, \"1\")", "j"), "");
}
