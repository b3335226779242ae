//! The union default graph against Oxigraph: social data spread over the default graph and
//! named graphs, some triples stated in two graphs. rete's union is the RDF merge (each triple
//! once); Oxigraph's `set_default_graph_as_union` gives a triple once per graph stating it, so
//! Oxigraph is asked over the same data with those per-graph duplicates removed (each triple
//! left in its first graph), where both semantics give the same answers.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use oxigraph::io::RdfFormat;
use oxigraph::sparql::{QueryResults as OxResults, SparqlEvaluator};
use oxigraph::store::Store;
use rete_datagen::social::{write_ntriples, SocialParams};
use rete_datagen::Rng;
use rete_testsuite::compare::{compare_answers, Answer, Table};
use rete_testsuite::sparql::collect;
use std::collections::HashSet;

const PREFIXES: &str = "PREFIX foaf: <http://xmlns.com/foaf/0.1/>\n\
    PREFIX ex: <http://example.org/social/>\n";

/// The social data as N-Quads over four named graphs and the default graph, one triple in six
/// also stated in a second graph; and the same with those second statements removed.
fn data() -> (String, String) {
    let mut nt = Vec::new();
    write_ntriples(
        &SocialParams {
            people: 150,
            community_size: 25,
            seed: 3,
            ..SocialParams::default()
        },
        &mut nt,
    )
    .unwrap();
    let graph = |g: u64| match g {
        0 => String::new(),
        g => format!(" <http://example.org/graph/{g}>"),
    };
    let mut rng = Rng::new(8);
    let (mut all, mut once) = (String::new(), String::new());
    for line in String::from_utf8(nt).unwrap().lines() {
        let Some(triple) = line.trim_end().strip_suffix('.') else {
            continue;
        };
        let triple = triple.trim_end();
        let first = rng.below(5);
        let q = format!("{triple}{} .\n", graph(first));
        all.push_str(&q);
        once.push_str(&q);
        if rng.chance(1.0 / 6.0) {
            all.push_str(&format!("{triple}{} .\n", graph((first + 1) % 5)));
        }
    }
    (all, once)
}

const QUERIES: &[&str] = &[
    // BGP joins
    "SELECT ?x ?y WHERE { ?x foaf:knows ?y . ?y foaf:knows ?x }",
    "SELECT ?x ?n ?a WHERE { ?x a foaf:Person ; foaf:name ?n ; foaf:age ?a }",
    "SELECT * WHERE { ?s ?p ?o }",
    // OPTIONAL, FILTER, MINUS, NOT EXISTS
    "SELECT ?x ?y WHERE { ?x a foaf:Person OPTIONAL { ?x foaf:knows ?y . ?y foaf:age ?a FILTER(?a < 30) } }",
    "SELECT ?x ?n WHERE { ?x foaf:name ?n ; foaf:age ?a FILTER(?a > 40 && REGEX(?n, \"a\", \"i\")) }",
    "SELECT ?x WHERE { ?x a foaf:Person MINUS { ?x foaf:age ?a FILTER(?a >= 50) } }",
    "SELECT ?x WHERE { ?x a foaf:Person FILTER NOT EXISTS { ?x foaf:knows ?y . ?y foaf:age ?a FILTER(?a < 25) } }",
    // property paths
    "SELECT ?y WHERE { <http://example.org/social/person/1> foaf:knows+ ?y }",
    "SELECT ?y WHERE { <http://example.org/social/person/2> foaf:knows/foaf:knows ?y }",
    "SELECT ?y WHERE { <http://example.org/social/person/3> (foaf:knows|^foaf:knows)* ?y }",
    "SELECT ?x ?y WHERE { ?x foaf:knows/foaf:name ?y }",
    // aggregates
    "SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "SELECT ?x (COUNT(?f) AS ?c) WHERE { ?x foaf:knows ?f } GROUP BY ?x HAVING (COUNT(?f) > 2)",
    "SELECT (AVG(?a) AS ?avg) (SUM(?a) AS ?sum) (COUNT(DISTINCT ?a) AS ?d) WHERE { ?x foaf:age ?a }",
    "SELECT ?a (COUNT(?x) AS ?c) WHERE { ?x foaf:age ?a } GROUP BY ?a ORDER BY DESC(?c) ?a",
    // other forms, and the generic evaluator's share (MD5 is not native)
    "ASK { <http://example.org/social/person/1> foaf:knows/foaf:knows ?z }",
    "CONSTRUCT { ?y foaf:knows ?x } WHERE { ?x foaf:knows ?y }",
    "SELECT ?x (MD5(?n) AS ?h) WHERE { ?x foaf:name ?n }",
];

fn oxigraph_union(store: &Store, q: &str) -> Answer {
    let mut prepared = SparqlEvaluator::new().parse_query(q).unwrap();
    prepared.dataset_mut().set_default_graph_as_union();
    match prepared.on_store(store).execute().unwrap() {
        OxResults::Boolean(b) => Answer::Boolean(b),
        OxResults::Solutions(s) => {
            let variables = s.variables().to_vec();
            let rows = s
                .map(|sol| {
                    let sol = sol.unwrap();
                    variables.iter().map(|v| sol.get(v).cloned()).collect()
                })
                .collect();
            Answer::Table(Table { variables, rows })
        }
        OxResults::Graph(g) => Answer::Graph(g.collect::<Result<Vec<_>, _>>().unwrap()),
    }
}

#[test]
fn the_union_default_graph_matches_oxigraph_without_its_per_graph_duplicates() {
    let (all, once) = data();
    let dir = tempfile::tempdir().unwrap();
    let (raw, rete) = common::oxigraph_and_rete(all, dir.path(), "u");
    let deduplicated = Store::new().unwrap();
    deduplicated
        .load_from_reader(RdfFormat::NQuads, once.as_bytes())
        .unwrap();
    let union = rete_sparql::QueryOptions {
        union_default_graph: true,
        ..rete_sparql::QueryOptions::default()
    };
    let mut failed = Vec::new();
    for q in QUERIES {
        let q = format!("{PREFIXES}{q}");
        let expected = oxigraph_union(&deduplicated, &q);
        let parsed = rete_sparql::parse(&q, None).unwrap();
        let ordered = match (&expected, q.contains("ORDER BY")) {
            (Answer::Table(t), true) => t.variables.clone(),
            _ => Vec::new(),
        };
        for (name, got) in [
            ("automatic", rete_sparql::evaluate(&rete, &parsed, &union)),
            (
                "generic",
                rete_sparql::evaluate_generic(&rete, &parsed, &union),
            ),
        ] {
            if let Err(e) = got
                .and_then(collect)
                .map_err(|e| e.to_string())
                .and_then(|a| compare_answers(&expected, &a, &ordered))
            {
                let e: String = e.chars().take(1500).collect();
                failed.push(format!("{name} on\n{q}\n{e}"));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));

    // The choice made: Oxigraph over the data as stated counts a triple in two graphs twice,
    // rete once, as the merge does.
    let count = format!("{PREFIXES}SELECT (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o }}");
    let n = |a: Answer| match a {
        Answer::Table(t) => t.rows[0][0].clone().unwrap().to_string(),
        _ => panic!("a table"),
    };
    let parsed = rete_sparql::parse(&count, None).unwrap();
    let ours = n(collect(rete_sparql::evaluate(&rete, &parsed, &union).unwrap()).unwrap());
    let triples: HashSet<&str> = common_triples(&once);
    assert_eq!(
        ours,
        format!(
            "\"{}\"^^<http://www.w3.org/2001/XMLSchema#integer>",
            triples.len()
        )
    );
    assert_ne!(n(oxigraph_union(&raw, &count)), ours);
    // Without the option both engines read the default graph alone.
    let strict = collect(
        rete_sparql::evaluate(&rete, &parsed, &rete_sparql::QueryOptions::default()).unwrap(),
    )
    .unwrap();
    assert_eq!(n(strict), n(common::oxigraph_answer(&raw, &count)));
}

/// The distinct triples of an N-Quads text written by [`data`] (subject, predicate and object
/// with the graph cut off).
fn common_triples(nq: &str) -> HashSet<&str> {
    nq.lines()
        .map(|l| {
            let l = l.trim_end_matches(" .");
            match l.rfind(" <http://example.org/graph/") {
                Some(i) => &l[..i],
                None => l,
            }
        })
        .collect()
}
