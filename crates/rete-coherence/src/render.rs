//! Turning axioms and triples into explanation steps, and reports into text.

use crate::logic::Axiom;
use crate::{Finding, Report, Step};
use oxrdf::Term;
use rete_schema::vocab::{OWL, RDFS, RDF_TYPE};
use rete_schema::Schema;
use std::fmt;

/// A term in both renderings.
#[derive(Debug, Clone)]
pub(crate) struct Name {
    /// N-Triples.
    pub(crate) nt: String,
    /// Compact (`:patient7`, `"1990-01-01"^^xsd:date`).
    pub(crate) text: String,
}

pub(crate) fn iri_name(schema: &Schema, iri: &str) -> Name {
    Name {
        nt: format!("<{iri}>"),
        text: schema.compact(iri),
    }
}

pub(crate) fn term_name(schema: &Schema, t: &Term) -> Name {
    match t {
        Term::NamedNode(n) => iri_name(schema, n.as_str()),
        Term::Literal(l) if l.language().is_none() => {
            let dt = l.datatype().as_str();
            let nt = t.to_string();
            let text = if dt == "http://www.w3.org/2001/XMLSchema#string" {
                nt.clone()
            } else {
                let quoted = Term::from(oxrdf::Literal::new_simple_literal(l.value())).to_string();
                format!("{quoted}^^{}", schema.compact(dt))
            };
            Name { nt, text }
        }
        _ => Name {
            nt: t.to_string(),
            text: t.to_string(),
        },
    }
}

pub(crate) fn class(schema: &Schema, c: u32) -> Name {
    let iri = schema
        .classes
        .get(c as usize)
        .map_or("urn:rete:unknown-class", |x| x.iri.as_str());
    iri_name(schema, iri)
}

pub(crate) fn property(schema: &Schema, p: u32) -> Name {
    let iri = schema
        .properties
        .get(p as usize)
        .map_or("urn:rete:unknown-property", |x| x.iri.as_str());
    iri_name(schema, iri)
}

/// A step that is one triple.
pub(crate) fn triple(s: &Name, p: &Name, o: &Name) -> Step {
    Step {
        text: format!("{} {} {}", s.text, p.text, o.text),
        triple: Some([s.nt.clone(), p.nt.clone(), o.nt.clone()]),
    }
}

pub(crate) fn vocab(schema: &Schema, iri: &str) -> Name {
    iri_name(schema, iri)
}

pub(crate) fn type_step(schema: &Schema, x: &Name, c: u32) -> Step {
    triple(x, &vocab(schema, RDF_TYPE), &class(schema, c))
}

/// The step for a class axiom.
pub(crate) fn axiom(schema: &Schema, ax: Axiom) -> Step {
    let pair = |a: u32, pred: &str, b: u32| {
        triple(
            &class(schema, a),
            &vocab(
                schema,
                &format!("{}{pred}", if pred == "subClassOf" { RDFS } else { OWL }),
            ),
            &class(schema, b),
        )
    };
    match ax {
        Axiom::SubClass(a, b) => pair(a, "subClassOf", b),
        Axiom::Equivalent(a, b) => pair(a, "equivalentClass", b),
        Axiom::Disjoint(a, b) => pair(a, "disjointWith", b),
        Axiom::Complement(a, b) if schema.anonymous_complement.contains(&(a, b)) => Step {
            text: format!(
                "{} owl:equivalentClass [ owl:complementOf {} ]",
                class(schema, a).text,
                class(schema, b).text
            ),
            triple: None,
        },
        Axiom::Complement(a, b) => pair(a, "complementOf", b),
        Axiom::Group(g) => {
            let members: Vec<String> = schema
                .disjoint_groups
                .get(g as usize)
                .map(|m| m.iter().map(|&c| class(schema, c).text).collect())
                .unwrap_or_default();
            Step {
                text: format!(
                    "[] a owl:AllDisjointClasses ; owl:members ( {} )",
                    members.join(" ")
                ),
                triple: None,
            }
        }
    }
}

pub(crate) fn finding(
    kind: &str,
    severity: &str,
    message: String,
    classes: Vec<String>,
    entities: Vec<String>,
    explanation: Vec<Step>,
) -> Finding {
    Finding {
        kind: kind.to_owned(),
        severity: severity.to_owned(),
        message,
        classes,
        entities,
        explanation,
    }
}

fn human_bytes(b: u64) -> String {
    if b < 1024 {
        format!("{b} B")
    } else if b < 1 << 20 {
        format!("{:.1} KB", b as f64 / 1024.0)
    } else {
        format!("{:.1} MB", b as f64 / (1u64 << 20) as f64)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.phases {
            write!(
                f,
                "Tier {}: {} finding{}",
                p.tier,
                p.findings,
                if p.findings == 1 { "" } else { "s" }
            )?;
            if self.measured {
                write!(
                    f,
                    " · {} · {} request{}",
                    human_bytes(p.bytes_read),
                    p.requests,
                    if p.requests == 1 { "" } else { "s" }
                )?;
            }
            writeln!(f, " · {:.2} ms", p.elapsed_ms)?;
        }
        if self.schema_source != "block" {
            writeln!(
                f,
                "(no schema block in this file: the schema was read from its axiom triples)"
            )?;
        }
        if self.findings.is_empty() {
            writeln!(f, "No findings: coherent at tier {}.", self.tier)?;
        }
        for x in &self.findings {
            writeln!(f)?;
            write!(f, "{x}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} [{}] {}", self.severity, self.kind, self.message)?;
        for s in &self.explanation {
            writeln!(f, "    {}", s.text)?;
        }
        Ok(())
    }
}
