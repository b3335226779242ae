//! Malformed shapes give typed errors (never a panic or a hang); the report's RDF forms parse
//! back; the summary groups; cancellation stops the run; shapes are found in the dataset.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_shacl::{
    dataset_graph, parse_graph, validate, Error, RdfFormat, Report, Shapes, Summary,
    ValidateOptions,
};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

const PREFIXES: &str =
    "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n";

const DATA: &str = "ex:alice a ex:Person ; ex:name \"Alice\" ; ex:knows ex:bob ; ex:age 30 .
ex:bob a ex:Person ; ex:knows ex:carol ; ex:age \"old\" .
ex:carol a ex:Person ; ex:name \"Carol\" , \"Caroline\" ; ex:knows ex:alice .";

fn rete(dir: &std::path::Path, ttl: &str) -> rete_core::Rete {
    let path = dir.join("data.rete");
    let bytes = format!("{PREFIXES}{ttl}").into_bytes();
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "data.ttl",
                bytes,
                rete_build::Syntax::Turtle,
            )],
            zstd_level: 1,
            ..rete_build::BuildOptions::default()
        },
        &path,
    )
    .unwrap();
    rete_core::Rete::open_path(&path).unwrap()
}

fn shapes(ttl: &str) -> Result<Shapes, Error> {
    let g = parse_graph(
        format!("{PREFIXES}{ttl}").as_bytes(),
        RdfFormat::Turtle,
        "shapes.ttl",
    )?;
    Shapes::from_graph(&g)
}

fn run(ttl: &str) -> Result<Report, Error> {
    let dir = tempfile::tempdir().unwrap();
    let r = rete(dir.path(), DATA);
    validate(&r, &shapes(ttl)?, &ValidateOptions::default())
}

#[test]
fn malformed_shapes_are_errors() {
    // An unknown constraint (a misspelt parameter).
    let e = shapes("ex:S a sh:NodeShape ; sh:targetClass ex:Person ; sh:minCont 1 .").unwrap_err();
    assert!(matches!(e, Error::UnknownParameter { .. }), "{e}");
    assert!(e.to_string().contains("minCont"), "{e}");
    // An invalid regular expression.
    let e =
        shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:pattern \"([a-z\" .").unwrap_err();
    assert!(matches!(e, Error::Pattern { .. }), "{e}");
    // An unknown flag.
    let e =
        shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:pattern \"a\" ; sh:flags \"z\" .")
            .unwrap_err();
    assert!(matches!(e, Error::Pattern { .. }), "{e}");
    // SHACL-JS, and SHACL-AF targets of a target type, are refused, not skipped (their nodes
    // would be left out without a word); a SPARQL target must select ?this.
    let e =
        shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:js [ sh:jsFunctionName \"f\" ] .")
            .unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    let e = shapes("ex:S a sh:NodeShape ; sh:target [ a ex:PeopleOfType ; ex:type ex:Person ] .")
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    let e = shapes("ex:S a sh:NodeShape ; sh:target [ a sh:SPARQLTarget ; sh:select \"SELECT ?x { ?x ?p ?o }\" ] .")
        .unwrap_err();
    assert!(matches!(e, Error::Malformed { .. }), "{e}");
    // Malformed SPARQL names the shape, the query and where the syntax breaks.
    let e = shapes(
        "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:sparql ex:Q .
         ex:Q sh:select \"SELECT $this WHERE { $this ex:p }\" .",
    )
    .unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, Error::Sparql { .. }), "{m}");
    assert!(
        m.contains("<http://example.org/S>") && m.contains("sh:select of <http://example.org/Q>"),
        "{m}"
    );
    assert!(m.contains("syntax error at 1:28"), "{m}");
    // An ASK where a SELECT is required, and $PATH in a node shape.
    let e =
        shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:sparql [ sh:select \"ASK {}\" ] .")
            .unwrap_err();
    assert!(matches!(e, Error::Malformed { .. }), "{e}");
    let e = shapes(
        "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:sparql [ sh:select \"SELECT $this { $this $PATH ?v }\" ] .",
    )
    .unwrap_err();
    assert!(e.to_string().contains("$PATH"), "{e}");
    // A malformed list and a malformed path.
    let e = shapes("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:in ex:notAList .").unwrap_err();
    assert!(matches!(e, Error::Malformed { .. }), "{e}");
    let e = shapes("ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path [ ex:x ex:y ] .")
        .unwrap_err();
    assert!(matches!(e, Error::Malformed { .. }), "{e}");
    let e = shapes(
        "ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path ex:p ; sh:minCount \"many\" .",
    )
    .unwrap_err();
    assert!(matches!(e, Error::Malformed { .. }), "{e}");
}

#[test]
fn recursion_is_an_error_not_a_hang() {
    // A cyclic sh:node chain.
    let e = run("ex:A a sh:NodeShape ; sh:targetClass ex:Person ; sh:node ex:B . ex:B a sh:NodeShape ; sh:node ex:A .")
        .unwrap_err();
    assert!(matches!(e, Error::Recursion { .. }), "{e}");
    // A recursive shape meeting a cycle in the data (alice → bob → carol → alice).
    let e = run("ex:P a sh:NodeShape ; sh:targetNode ex:alice ;
        sh:property [ sh:path ex:knows ; sh:node ex:P ] .")
    .unwrap_err();
    assert!(matches!(e, Error::Recursion { .. }), "{e}");
    assert!(e.to_string().contains("recursive shape"), "{e}");
    // The same recursive shape over acyclic data is fine.
    let dir = tempfile::tempdir().unwrap();
    let r = rete(dir.path(), "ex:a ex:knows ex:b . ex:b ex:knows ex:c .");
    let s = shapes("ex:P a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:knows ; sh:node ex:P ] .")
        .unwrap();
    assert!(
        validate(&r, &s, &ValidateOptions::default())
            .unwrap()
            .conforms
    );
}

const PERSON: &str = "ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
  sh:property [ sh:path ex:name ; sh:minCount 1 ; sh:maxCount 1 ; sh:message \"one name\" ] ;
  sh:property [ sh:path ex:age ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path ( ex:knows ex:name ) ; sh:minCount 1 ] .";

#[test]
fn report_forms_and_summary() {
    let report = run(PERSON).unwrap();
    assert!(!report.conforms);
    // bob: no name (minCount) and "old" (datatype); carol: two names (maxCount); alice: the
    // people she knows have no name (the sequence path's minCount).
    let summary = Summary::of(&report);
    let by: Vec<(String, usize)> = summary
        .groups
        .iter()
        .map(|g| (g.component.rsplit('#').next().unwrap().to_owned(), g.count))
        .collect();
    assert_eq!(report.results.len(), 4, "{by:?}");
    assert!(
        by.contains(&("DatatypeConstraintComponent".into(), 1)),
        "{by:?}"
    );
    assert!(
        by.contains(&("MaxCountConstraintComponent".into(), 1)),
        "{by:?}"
    );
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["results"], 4);
    let min = summary
        .groups
        .iter()
        .find(|g| {
            g.path.as_deref() == Some("<http://example.org/name>")
                && g.component.ends_with("MinCountConstraintComponent")
        })
        .unwrap();
    assert_eq!(min.focus_nodes, ["<http://example.org/bob>"]);
    assert_eq!(min.messages, ["one name"]);
    let text = summary.to_string();
    assert!(text.starts_with("does not conform: 4 results"), "{text}");

    // Turtle and JSON-LD parse back to the same number of results, with the sequence path.
    let ttl = report.write_turtle(Vec::new()).unwrap();
    let g = parse_graph(&ttl[..], RdfFormat::Turtle, "report.ttl").unwrap();
    let results = |g: &oxrdf::Graph| g.triples_for_predicate(rete_shacl::vocab::RESULT).count();
    assert_eq!(results(&g), 4);
    let text = String::from_utf8(ttl).unwrap();
    assert!(text.contains("sh:conforms false"), "{text}");
    let jsonld = report.write_jsonld(Vec::new()).unwrap();
    let g2 = parse_graph(
        &jsonld[..],
        RdfFormat::JsonLd {
            profile: Default::default(),
        },
        "report.jsonld",
    )
    .unwrap();
    assert_eq!(results(&g2), 4);
    assert_eq!(g.len(), g2.len());
}

#[test]
fn cancel_and_progress() {
    let dir = tempfile::tempdir().unwrap();
    let r = rete(dir.path(), DATA);
    let s = shapes(PERSON).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let opts = ValidateOptions {
        cancel: Some(Arc::new(AtomicBool::new(false))),
        progress: Some(Arc::new(move |p: &rete_shacl::Progress| {
            assert_eq!(p.shapes_total, 1);
            seen.fetch_add(1, Ordering::Relaxed);
        })),
        ..ValidateOptions::default()
    };
    validate(&r, &s, &opts).unwrap();
    // At least the shape's report (more only if a focus node outlasted the default interval).
    assert!(calls.load(Ordering::Relaxed) >= 1);
    // With no interval, each focus node reports too, with where it is within the shape.
    let reports = Arc::new(std::sync::Mutex::new(Vec::new()));
    let heard = reports.clone();
    let every = ValidateOptions {
        progress: Some(Arc::new(move |p: &rete_shacl::Progress| {
            heard.lock().unwrap().push(*p);
        })),
        progress_interval: std::time::Duration::ZERO,
        ..ValidateOptions::default()
    };
    validate(&r, &s, &every).unwrap();
    let reports = reports.lock().unwrap();
    let within: Vec<_> = reports
        .iter()
        .map(|p| (p.shapes_done, p.shape_focus_nodes_done, p.shape_focus_nodes))
        .collect();
    assert_eq!(within, [(0, 1, 3), (0, 2, 3), (0, 3, 3), (1, 3, 3)]);
    assert!(reports.windows(2).all(|w| w[0].results <= w[1].results));
    assert_eq!(reports.last().unwrap().results, 4);
    let cancelled = ValidateOptions {
        cancel: Some(Arc::new(AtomicBool::new(true))),
        ..ValidateOptions::default()
    };
    assert!(matches!(
        validate(&r, &s, &cancelled),
        Err(Error::Cancelled)
    ));
}

#[test]
fn shapes_found_in_the_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let r = rete(dir.path(), &format!("{DATA}\n{PERSON}"));
    let g = dataset_graph(&r).unwrap();
    let s = Shapes::from_graph(&g).unwrap();
    // The node shape and its three property shapes, with the sequence path's list.
    assert_eq!(s.len(), 4);
    let report = validate(&r, &s, &ValidateOptions::default()).unwrap();
    assert_eq!(report.results.len(), 4);
}

#[test]
fn sparql_constraints_and_components() {
    let dir = tempfile::tempdir().unwrap();
    // A blank-node focus node and a named one: pre-binding must reach both.
    let r = rete(
        dir.path(),
        "ex:alice a ex:Person ; ex:name \"Alice\"@en ; ex:knows [ a ex:Person ; ex:name \"Anon\" ] .",
    );
    let s = shapes(
        "ex:Lang a sh:NodeShape ; sh:targetClass ex:Person ; sh:sparql ex:LangQ .
         ex:LangQ sh:message \"{$this} has the untagged name {?value}\" ;
           sh:select \"SELECT $this ?value WHERE { $this <http://example.org/name> ?value . FILTER (lang(?value) = '') }\" .
         ex:Off a sh:NodeShape ; sh:targetClass ex:Person ;
           sh:sparql [ sh:deactivated true ; sh:select \"SELECT $this WHERE { }\" ] .
         ex:LangIn a sh:ConstraintComponent ;
           sh:parameter [ sh:path ex:lang ] ;
           sh:validator [ sh:message \"not in {$lang}\" ;
             sh:ask \"ASK { FILTER (langMatches(lang($value), $lang)) }\" ] .
         ex:Names a sh:PropertyShape ; sh:targetClass ex:Person ; sh:path ex:name ; ex:lang \"en\" .",
    )
    .unwrap();
    let report = validate(&r, &s, &ValidateOptions::default()).unwrap();
    let mut got: Vec<(String, String, String)> = report
        .results
        .iter()
        .map(|x| {
            assert!(x.focus.is_blank_node(), "{x:?}");
            (
                x.component.as_str().to_owned(),
                x.value.as_ref().unwrap().to_string(),
                x.messages
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (
                "http://example.org/LangIn".to_owned(),
                "\"Anon\"".to_owned(),
                "\"not in en\"".to_owned()
            ),
            (
                "http://www.w3.org/ns/shacl#SPARQLConstraintComponent".to_owned(),
                "\"Anon\"".to_owned(),
                format!("\"{} has the untagged name Anon\"", report.results[0].focus)
            ),
        ]
    );
    let sparql = report
        .results
        .iter()
        .find(|x| x.source_constraint.is_some())
        .unwrap();
    assert_eq!(
        sparql.source_constraint.as_ref().unwrap().to_string(),
        "<http://example.org/LangQ>"
    );
    let mut ttl = Vec::new();
    report.write_turtle(&mut ttl).unwrap();
    assert!(String::from_utf8(ttl)
        .unwrap()
        .contains("sh:sourceConstraint <http://example.org/LangQ>"));
}

/// SHACL-AF as Brick (PyPI brickschema) uses it: SPARQL-based targets with their prefixes
/// declared on the ontology node, rules (counted, not run: the data is validated as given), and
/// classes that are their own shapes, typed `owl:Class` (an implicit class target, as pyshacl
/// reads it); from a shapes file and from the shapes the dataset holds.
#[test]
fn sparql_targets_rules_and_owl_classes() {
    const AF: &str = "@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:Ontology sh:declare [ sh:prefix \"ex\" ; sh:namespace \"http://example.org/\"^^xsd:anyURI ] .
ex:Named a sh:NodeShape ;
  sh:target [ a sh:SPARQLTarget ; sh:prefixes ex:Ontology ;
              sh:select \"SELECT ?this WHERE { ?this ex:knows ex:carol }\" ] ;
  sh:property [ sh:path ex:name ; sh:minCount 1 ] .
ex:Person a owl:Class, sh:NodeShape ;
  sh:property [ sh:path ex:age ; sh:datatype xsd:integer ] ;
  sh:rule [ a sh:TripleRule ; sh:subject sh:this ; sh:predicate ex:seen ; sh:object true ] .";
    let dir = tempfile::tempdir().unwrap();
    let from_file = shapes(AF).unwrap();
    let r = rete(dir.path(), &format!("{DATA}\n{AF}"));
    let from_data = Shapes::from_graph(&dataset_graph(&r).unwrap()).unwrap();
    for s in [from_file, from_data] {
        assert_eq!(s.rules_not_run(), 1);
        let report = validate(&r, &s, &ValidateOptions::default()).unwrap();
        let mut found: Vec<(String, String)> = report
            .results
            .iter()
            .map(|x| {
                (
                    x.focus.to_string(),
                    x.component.as_str().rsplit('#').next().unwrap().to_owned(),
                )
            })
            .collect();
        found.sort();
        // Bob knows Carol and has no name; his age is "old".
        assert_eq!(
            found,
            [
                (
                    "<http://example.org/bob>".to_owned(),
                    "DatatypeConstraintComponent".to_owned()
                ),
                (
                    "<http://example.org/bob>".to_owned(),
                    "MinCountConstraintComponent".to_owned()
                ),
            ]
        );
    }
}
