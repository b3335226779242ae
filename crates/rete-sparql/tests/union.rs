//! The union default graph (`QueryOptions::union_default_graph`): the merge of every graph, a
//! triple stated in two graphs matched once, on both evaluators; the query's own dataset wins;
//! `GRAPH` unchanged; the hint after an empty answer; the cost estimate.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::canon;
use rete_core::Rete;
use rete_sparql::{
    empty_answer_hint, estimate_query_cost, estimate_query_cost_with, evaluate, evaluate_generic,
    evaluator_for, parse, EmptyAnswerHint, Evaluator, QueryOptions,
};

/// Three named graphs, nothing in the default graph; `ex:shared a rdf:Property` and
/// `ex:a ex:knows ex:b` are stated in both `ex:g1` and `ex:g2`.
const TRIG: &str = r#"
@prefix ex: <http://example.org/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:g1 {
  ex:p1 a rdf:Property ; rdfs:label "p one" .
  ex:shared a rdf:Property .
  ex:a ex:knows ex:b . ex:b ex:knows ex:c .
  ex:a ex:age 30 .
}
ex:g2 {
  ex:shared a rdf:Property ; rdfs:label "shared" .
  ex:p2 a rdf:Property .
  ex:c ex:knows ex:d . ex:a ex:knows ex:b .
  ex:b ex:age 40 .
}
ex:g3 { ex:d ex:knows ex:a . ex:c ex:age 25 . }
"#;

const PREFIXES: &str = "PREFIX ex: <http://example.org/>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
";

fn build(stem: &str, data: &str) -> (tempfile::TempDir, Rete) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(format!("{stem}.rete"));
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                format!("{stem}.trig"),
                data.as_bytes().to_vec(),
                rete_build::Syntax::TriG,
            )],
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    let r = Rete::open_path(&out).unwrap();
    (dir, r)
}

fn union() -> QueryOptions {
    QueryOptions {
        union_default_graph: true,
        ..QueryOptions::default()
    }
}

/// The answer of both evaluators (which must agree) under `opts`.
fn both(r: &Rete, q: &str, opts: &QueryOptions) -> Vec<String> {
    let parsed = parse(&format!("{PREFIXES}{q}"), None).unwrap();
    let native = canon(evaluate(r, &parsed, opts).unwrap());
    let generic = canon(evaluate_generic(r, &parsed, opts).unwrap());
    assert_eq!(native, generic, "the evaluators differ on\n{q}");
    native
}

const EX: &str = "http://example.org/";

fn iri(local: &str) -> String {
    format!("<{EX}{local}>")
}

#[test]
fn the_union_is_the_merge_of_all_graphs() {
    let (_d, r) = build("u", TRIG);
    let strict = QueryOptions::default();
    // The query pane's first example: nothing in the default graph, every property over the
    // union, ex:shared once though two graphs state it.
    let first = "SELECT ?s ?label WHERE { ?s a rdf:Property . OPTIONAL { ?s rdfs:label ?label } }";
    let parsed = parse(&format!("{PREFIXES}{first}"), None).unwrap();
    assert_eq!(evaluator_for(&r, &parsed).unwrap(), Evaluator::Native);
    assert!(both(&r, first, &strict).is_empty());
    assert_eq!(
        both(&r, first, &union()),
        [
            format!("{} | \"p one\"", iri("p1")),
            format!("{} | ", iri("p2")),
            format!("{} | \"shared\"", iri("shared")),
        ]
    );
    let count = "SELECT (COUNT(*) AS ?n) WHERE { ?s a rdf:Property }";
    assert_eq!(
        both(&r, count, &union()),
        ["\"3\"^^<http://www.w3.org/2001/XMLSchema#integer>"]
    );
    assert_eq!(
        both(&r, count, &strict),
        ["\"0\"^^<http://www.w3.org/2001/XMLSchema#integer>"]
    );
    // The triple in two graphs is one triple: one row, one join partner.
    assert_eq!(
        both(&r, "SELECT ?x WHERE { ex:a ex:knows ?x }", &union()),
        [iri("b")]
    );
    assert_eq!(
        both(
            &r,
            "SELECT ?x ?y WHERE { ex:a ex:knows ?x . ?x ex:knows ?y }",
            &union()
        ),
        [format!("{} | {}", iri("b"), iri("c"))]
    );
    // Property paths walk the union; each pair once.
    assert_eq!(
        both(&r, "SELECT ?x WHERE { ex:a ex:knows+ ?x }", &union()),
        [iri("a"), iri("b"), iri("c"), iri("d")]
    );
    assert_eq!(
        both(
            &r,
            "SELECT ?x WHERE { ex:a ex:knows/ex:knows ?x }",
            &union()
        ),
        [iri("c")]
    );
    assert_eq!(both(&r, "ASK { ex:d ex:knows ex:a }", &union()), ["true"]);
    assert_eq!(both(&r, "ASK { ex:d ex:knows ex:a }", &strict), ["false"]);
    // Aggregates, FILTER.
    assert_eq!(
        both(
            &r,
            "SELECT (SUM(?a) AS ?t) WHERE { ?p ex:age ?a FILTER(?a > 26) }",
            &union()
        ),
        ["\"70\"^^<http://www.w3.org/2001/XMLSchema#integer>"]
    );
    // DESCRIBE and CONSTRUCT read the union too.
    assert_eq!(
        both(&r, "DESCRIBE ex:shared", &union()),
        [
            format!(
                "{} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property>",
                iri("shared")
            ),
            format!("{} <http://www.w3.org/2000/01/rdf-schema#label> \"shared\"", iri("shared")),
        ]
    );
    assert_eq!(
        both(
            &r,
            "CONSTRUCT { ?b ex:knownBy ?a } WHERE { ?a ex:knows ?b }",
            &union()
        )
        .len(),
        4
    );
}

#[test]
fn the_query_dataset_wins_and_graph_is_unchanged() {
    let (_d, r) = build("u", TRIG);
    // FROM: the default graph is g2 alone, with or without the option.
    let from = "SELECT ?s FROM ex:g2 WHERE { ?s a rdf:Property }";
    let g2 = [iri("p2"), iri("shared")];
    assert_eq!(both(&r, from, &union()), g2);
    assert_eq!(both(&r, from, &QueryOptions::default()), g2);
    // FROM NAMED alone: the default graph is empty.
    let named = "SELECT * FROM NAMED ex:g1 WHERE { ?s a rdf:Property }";
    assert!(both(&r, named, &union()).is_empty());
    // GRAPH ?g: each graph on its own, ex:shared once per graph stating it.
    let graph = "SELECT ?g ?s WHERE { GRAPH ?g { ?s a rdf:Property } }";
    let per_graph = both(&r, graph, &QueryOptions::default());
    assert_eq!(per_graph.len(), 4);
    assert_eq!(both(&r, graph, &union()), per_graph);
    // Mixed: the outer pattern over the union, the inner one per graph.
    assert_eq!(
        both(
            &r,
            "SELECT ?g WHERE { ex:a ex:knows ?x GRAPH ?g { ?x ex:knows ?y } }",
            &union()
        ),
        [iri("g1")]
    );
}

#[test]
fn union_counts_from_blocks_only_when_no_triple_is_in_two_graphs() {
    let data = "@prefix ex: <http://example.org/> .
        ex:g { ex:a ex:knows ex:b , ex:c . ex:b ex:knows ex:c . ex:c ex:name \"c\" . }";
    let (_d, r) = build("one", data);
    let count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ex:knows ?o }";
    let three = ["\"3\"^^<http://www.w3.org/2001/XMLSchema#integer>"];
    assert_eq!(both(&r, count, &union()), three);
    // Several graphs, no triple in two of them: the card says so, and counts stay exact.
    let data = "@prefix ex: <http://example.org/> .
        ex:g1 { ex:a ex:knows ex:b , ex:c . } ex:g2 { ex:b ex:knows ex:c . } ex:c ex:name \"c\" .";
    let (_d2, r2) = build("two", data);
    assert_eq!(r2.card().unwrap().distinct_triples, Some(4));
    assert_eq!(both(&r2, count, &union()), three);
    // The fixture states two triples twice.
    let (_d3, r3) = build("u", TRIG);
    assert_eq!(
        r3.card().unwrap().distinct_triples,
        Some(r3.quad_count() - 2)
    );
    assert_eq!(
        both(&r3, count, &union()),
        ["\"4\"^^<http://www.w3.org/2001/XMLSchema#integer>"]
    );
}

#[test]
fn an_empty_answer_says_when_the_data_is_in_named_graphs() {
    let (_d, r) = build("u", TRIG);
    let hint = |q: &str, opts: &QueryOptions| {
        let parsed = parse(&format!("{PREFIXES}{q}"), None).unwrap();
        empty_answer_hint(&r, &parsed, opts).unwrap()
    };
    let q = "SELECT ?s WHERE { ?s a rdf:Property }";
    let Some(EmptyAnswerHint::EmptyDefaultGraph {
        named_graphs,
        named_quads,
    }) = hint(q, &QueryOptions::default())
    else {
        panic!("expected the empty default graph");
    };
    assert_eq!((named_graphs, named_quads), (3, r.quad_count()));
    // Nothing to say with the option on, with FROM, or with GRAPH alone.
    assert_eq!(hint(q, &union()), None);
    assert_eq!(
        hint(
            "SELECT ?s FROM ex:g1 WHERE { ?s a ex:Nothing }",
            &QueryOptions::default()
        ),
        None
    );
    assert_eq!(
        hint(
            "SELECT ?s WHERE { GRAPH ?g { ?s a ex:Nothing } }",
            &QueryOptions::default()
        ),
        None
    );

    // A default graph with other data: the pattern found only in named graphs is named.
    let mixed = format!("{}\nex:x ex:name \"x\" .", TRIG);
    let (_d2, r2) = build("m", &mixed);
    let parsed = parse(&format!("{PREFIXES}{q}"), None).unwrap();
    assert!(canon(evaluate(&r2, &parsed, &QueryOptions::default()).unwrap()).is_empty());
    let hint2 = empty_answer_hint(&r2, &parsed, &QueryOptions::default()).unwrap();
    assert_eq!(
        hint2,
        Some(EmptyAnswerHint::OnlyInNamedGraphs {
            pattern: "?s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property>".into(),
            named_graphs: 3,
        })
    );
    // The triples of a `text:query` and of its argument list are the search's, not the data's:
    // the pattern named is the one the data lacks, even where named graphs hold lists.
    let listed = format!("{mixed}\nex:g4 {{ ex:u ex:members ( ex:a ex:b ) }}");
    let (_d3, r3) = build("l", &listed);
    let q3 = format!(
        "{PREFIXES}PREFIX text: <http://jena.apache.org/text#>\n\
         SELECT ?s ?l WHERE {{ ?s text:query (rdfs:label 'shared' 5) . ?s rdfs:label ?l }}"
    );
    let parsed = parse(&q3, None).unwrap();
    assert!(canon(evaluate(&r3, &parsed, &QueryOptions::default()).unwrap()).is_empty());
    assert_eq!(
        empty_answer_hint(&r3, &parsed, &QueryOptions::default()).unwrap(),
        Some(EmptyAnswerHint::OnlyInNamedGraphs {
            pattern: "?s <http://www.w3.org/2000/01/rdf-schema#label> ?l".into(),
            named_graphs: 4,
        })
    );
    // A pattern matching in the default graph, or nowhere, is not to blame.
    for q in [
        "SELECT ?s WHERE { ?s ex:name \"nobody\" }",
        "SELECT ?s WHERE { ?s ex:unknown ?o }",
    ] {
        let parsed = parse(&format!("{PREFIXES}{q}"), None).unwrap();
        assert_eq!(
            empty_answer_hint(&r2, &parsed, &QueryOptions::default()).unwrap(),
            None,
            "{q}"
        );
    }
}

#[test]
fn the_cost_follows_the_option() {
    let (_d, r) = build("u", TRIG);
    let q = parse(
        &format!("{PREFIXES}SELECT ?s WHERE {{ ?s a rdf:Property }}"),
        None,
    )
    .unwrap();
    // The empty default graph is not read; the union reads the pattern's range.
    let strict = estimate_query_cost(&r, &q).unwrap();
    assert_eq!((strict.bytes, strict.blocks), (0, 0));
    // (A file this small is read whole at open: its blocks cost no more bytes.)
    let u = estimate_query_cost_with(&r, &q, &union()).unwrap();
    assert_eq!(u.blocks, 1, "{u:?}");
    assert_eq!(u.patterns.len(), 1);
}

/// `Rete::triples`, which the union scans with: each triple once, whatever graphs state it,
/// also when a triple's copies straddle a block boundary (blocks of 16 quads here).
#[test]
fn the_merged_scan_gives_each_triple_once_across_blocks() {
    use rete_core::{Pattern, DEFAULT_GRAPH};
    use std::collections::BTreeSet;
    let mut trig = String::from("@prefix ex: <http://example.org/> .\n");
    let mut graphs: [String; 4] = Default::default();
    for i in 0..120 {
        let t = format!("ex:s{} ex:p{} ex:o{} .\n", i % 17, i % 3, i % 11);
        let mut placed = false;
        for (g, m) in [(1, 2), (2, 3), (3, 5)] {
            if i % m == 0 {
                graphs[g].push_str(&t);
                placed = true;
            }
        }
        if !placed || i % 7 == 0 {
            graphs[0].push_str(&t);
        }
    }
    trig.push_str(&graphs[0]);
    for (g, body) in graphs.iter().enumerate().skip(1) {
        trig.push_str(&format!("ex:g{g} {{\n{body}}}\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("blocks.rete");
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "blocks.trig",
                trig.into_bytes(),
                rete_build::Syntax::TriG,
            )],
            perm_block_quads: 16,
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    let r = Rete::open_path(&out).unwrap();
    let all: Vec<[u64; 4]> = r
        .quads(&Pattern::default())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let distinct: BTreeSet<[u64; 3]> = all.iter().map(|q| [q[0], q[1], q[2]]).collect();
    assert!(
        distinct.len() < all.len(),
        "some triples are in several graphs"
    );
    let mut patterns = vec![(None, None, None)];
    for t in &distinct {
        patterns.push((Some(t[0]), None, None));
        patterns.push((None, Some(t[1]), None));
        patterns.push((None, None, Some(t[2])));
        patterns.push((Some(t[0]), Some(t[1]), None));
        patterns.push((None, Some(t[1]), Some(t[2])));
        patterns.push((Some(t[0]), None, Some(t[2])));
        patterns.push((Some(t[0]), Some(t[1]), Some(t[2])));
    }
    for (s, p, o) in patterns {
        let pattern = Pattern::new(s, p, o);
        let expected: BTreeSet<[u64; 3]> = distinct
            .iter()
            .filter(|t| {
                s.is_none_or(|v| v == t[0])
                    && p.is_none_or(|v| v == t[1])
                    && o.is_none_or(|v| v == t[2])
            })
            .copied()
            .collect();
        let got: Vec<[u64; 4]> = r.triples(s, p, o).unwrap().map(Result::unwrap).collect();
        assert!(got.iter().all(|q| q[3] == DEFAULT_GRAPH));
        let set: BTreeSet<[u64; 3]> = got.iter().map(|q| [q[0], q[1], q[2]]).collect();
        assert_eq!(got.len(), set.len(), "a triple given twice for {pattern:?}");
        assert_eq!(set, expected, "{pattern:?}");
    }
}
