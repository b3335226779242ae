//! What the server says about itself: the HTML index at `/` and each endpoint's SPARQL 1.1
//! Service Description.

use crate::Endpoint;
use oxrdf::{BlankNode, Literal, NamedNode, NamedOrBlankNode, Term, Triple};
use std::fmt::Write;

const SD: &str = "http://www.w3.org/ns/sparql-service-description#";
const FORMATS: &str = "http://www.w3.org/ns/formats/";
const VOID_TRIPLES: &str = "http://rdfs.org/ns/void#triples";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// The prefixes the service description is written with (Turtle, TriG).
pub(crate) const PREFIXES: &[(&str, &str)] = &[
    ("sd", SD),
    ("formats", FORMATS),
    ("void", "http://rdfs.org/ns/void#"),
];

fn iri(s: &str) -> NamedNode {
    NamedNode::new_unchecked(s)
}

/// The service description of `endpoint` reached at `url`: the language, the result formats,
/// and the dataset (the default graph and each named graph with their sizes, from the card).
pub(crate) fn description(endpoint: &Endpoint, url: &str) -> Vec<Triple> {
    let mut out = Vec::new();
    let mut add = |s: NamedOrBlankNode, p: &str, o: Term| out.push(Triple::new(s, iri(p), o));
    let sd = |local: &str| iri(&format!("{SD}{local}"));
    let service: NamedOrBlankNode = NamedNode::new(url)
        .unwrap_or_else(|_| iri("urn:rete:endpoint"))
        .into();
    add(service.clone(), RDF_TYPE, sd("Service").into());
    add(
        service.clone(),
        &format!("{SD}endpoint"),
        Term::from(NamedNode::new(url).unwrap_or_else(|_| iri("urn:rete:endpoint"))),
    );
    add(
        service.clone(),
        &format!("{SD}supportedLanguage"),
        sd("SPARQL11Query").into(),
    );
    for f in [
        "SPARQL_Results_JSON",
        "SPARQL_Results_XML",
        "SPARQL_Results_CSV",
        "SPARQL_Results_TSV",
        "Turtle",
        "N-Triples",
        "RDF_XML",
        "JSON-LD",
        "N-Quads",
        "TriG",
    ] {
        add(
            service.clone(),
            &format!("{SD}resultFormat"),
            iri(&format!("{FORMATS}{f}")).into(),
        );
    }
    let dataset: NamedOrBlankNode = BlankNode::default().into();
    add(
        service,
        &format!("{SD}defaultDataset"),
        Term::from(match &dataset {
            NamedOrBlankNode::BlankNode(b) => b.clone(),
            _ => BlankNode::default(),
        }),
    );
    add(dataset.clone(), RDF_TYPE, sd("Dataset").into());
    let card = endpoint.rete.card().ok();
    let default_graph = BlankNode::default();
    add(
        dataset.clone(),
        &format!("{SD}defaultGraph"),
        default_graph.clone().into(),
    );
    add(default_graph.clone().into(), RDF_TYPE, sd("Graph").into());
    if let Some(card) = card {
        add(
            default_graph.into(),
            VOID_TRIPLES,
            Literal::from(card.default_graph_quads).into(),
        );
        for g in &card.graphs {
            let Some(name) = g.term.strip_prefix('<').and_then(|t| t.strip_suffix('>')) else {
                continue; // a blank-node graph name has no IRI to give
            };
            let Ok(name) = NamedNode::new(name) else {
                continue;
            };
            let named = BlankNode::default();
            let graph = BlankNode::default();
            add(
                dataset.clone(),
                &format!("{SD}namedGraph"),
                named.clone().into(),
            );
            add(named.clone().into(), RDF_TYPE, sd("NamedGraph").into());
            add(named.clone().into(), &format!("{SD}name"), name.into());
            add(named.into(), &format!("{SD}graph"), graph.clone().into());
            add(graph.clone().into(), RDF_TYPE, sd("Graph").into());
            add(graph.into(), VOID_TRIPLES, Literal::from(g.count).into());
        }
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A plain page listing the endpoints, each with its URL, source and size.
pub(crate) fn index<'a>(endpoints: impl Iterator<Item = &'a Endpoint>, base: &str) -> String {
    let mut page = String::from(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>rete serve</title></head>\n<body>\n<h1>SPARQL endpoints</h1>\n<table>\n<tr><th>endpoint</th><th>file</th><th>quads</th><th>graph store</th></tr>\n",
    );
    let mut first = None;
    for ep in endpoints {
        let url = format!("{base}/{}/sparql", ep.name);
        first.get_or_insert_with(|| url.clone());
        let _ = writeln!(
            page,
            "<tr><td><a href=\"{u}\">{u}</a></td><td>{src}</td><td>{n}</td><td><a href=\"{base}/{name}/store\">{base}/{name}/store</a></td></tr>",
            u = escape(&url),
            src = escape(&ep.source),
            n = ep.rete.quad_count(),
            base = escape(base),
            name = escape(&ep.name),
        );
    }
    page.push_str("</table>\n<p>Each endpoint speaks the SPARQL 1.1 Protocol (GET <code>?query=</code>, POST form or <code>application/sparql-query</code>); without a query it returns its service description. The graph store gives <code>?default</code>, <code>?graph=IRI</code> or the whole dataset. Read-only.</p>\n");
    if let Some(url) = first {
        let _ = writeln!(
            page,
            "<pre>curl -H 'Accept: text/csv' --data-urlencode 'query=SELECT * WHERE {{ ?s ?p ?o }} LIMIT 10' {}</pre>",
            escape(&url)
        );
    }
    page.push_str("</body></html>\n");
    page
}
