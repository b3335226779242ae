//! The W3C validation report (`sh:ValidationReport`): its results, and its RDF form written as
//! Turtle or JSON-LD by the oxttl / oxjsonld serializers.

use crate::paths::Path;
use crate::vocab::*;
use oxrdf::{BlankNode, Literal, NamedNode, Term, Triple};
use std::io::{self, Write};

/// One `sh:ValidationResult`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationResult {
    /// `sh:focusNode`.
    pub focus: Term,
    /// `sh:resultPath` (the shape's path, or the predicate for `sh:closed`).
    pub path: Option<Path>,
    /// `sh:value`.
    pub value: Option<Term>,
    /// `sh:resultSeverity`.
    pub severity: NamedNode,
    /// `sh:sourceShape`.
    pub source_shape: Term,
    /// `sh:sourceConstraintComponent`.
    pub component: NamedNode,
    /// `sh:sourceConstraint`: the `sh:sparql` constraint node of a SPARQL-based result.
    pub source_constraint: Option<Term>,
    /// `sh:resultMessage` (the shape's `sh:message`).
    pub messages: Vec<Term>,
}

/// A validation report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// `sh:conforms`: no result at all (of any severity).
    pub conforms: bool,
    /// The results.
    pub results: Vec<ValidationResult>,
}

const PREFIXES: [(&str, &str); 4] = [
    ("sh", SH),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
];

impl Report {
    /// The report as RDF triples.
    pub fn to_triples(&self) -> Vec<Triple> {
        let mut out = Vec::new();
        let report = BlankNode::default();
        out.push(Triple::new(report.clone(), RDF_TYPE, VALIDATION_REPORT));
        out.push(Triple::new(
            report.clone(),
            CONFORMS,
            Literal::from(self.conforms),
        ));
        // The report's own triples first, so Turtle writes it as one block.
        let nodes: Vec<BlankNode> = self.results.iter().map(|_| BlankNode::default()).collect();
        for node in &nodes {
            out.push(Triple::new(report.clone(), RESULT, node.clone()));
        }
        for (r, node) in self.results.iter().zip(nodes) {
            out.push(Triple::new(node.clone(), RDF_TYPE, VALIDATION_RESULT));
            out.push(Triple::new(node.clone(), FOCUS_NODE, r.focus.clone()));
            if let Some(p) = &r.path {
                let path = p.to_rdf(&mut out);
                out.push(Triple::new(node.clone(), RESULT_PATH, path));
            }
            if let Some(v) = &r.value {
                out.push(Triple::new(node.clone(), VALUE, v.clone()));
            }
            out.push(Triple::new(
                node.clone(),
                RESULT_SEVERITY,
                r.severity.clone(),
            ));
            out.push(Triple::new(
                node.clone(),
                SOURCE_SHAPE,
                r.source_shape.clone(),
            ));
            out.push(Triple::new(
                node.clone(),
                SOURCE_CONSTRAINT_COMPONENT,
                r.component.clone(),
            ));
            if let Some(c) = &r.source_constraint {
                out.push(Triple::new(node.clone(), SOURCE_CONSTRAINT, c.clone()));
            }
            for m in &r.messages {
                out.push(Triple::new(node.clone(), RESULT_MESSAGE, m.clone()));
            }
        }
        out
    }

    /// Writes the report as Turtle.
    pub fn write_turtle<W: Write>(&self, w: W) -> io::Result<W> {
        let mut s = oxttl::TurtleSerializer::new();
        for (name, iri) in PREFIXES {
            s = s.with_prefix(name, iri).map_err(io::Error::other)?;
        }
        let mut s = s.for_writer(w);
        for t in self.to_triples() {
            s.serialize_triple(&t)?;
        }
        s.finish()
    }

    /// Writes the report as JSON-LD.
    pub fn write_jsonld<W: Write>(&self, w: W) -> io::Result<W> {
        let mut s = oxjsonld::JsonLdSerializer::new();
        for (name, iri) in PREFIXES {
            s = s.with_prefix(name, iri).map_err(io::Error::other)?;
        }
        let mut s = s.for_writer(w);
        for t in self.to_triples() {
            s.serialize_quad(t.as_ref().in_graph(oxrdf::GraphNameRef::DefaultGraph))?;
        }
        s.finish()
    }
}
