//! Turning axioms and triples into explanation steps, and reports into text.

use crate::logic::Axiom;
use crate::{Finding, Report, Step};
use oxrdf::Term;
use rete_core::human::{self, plural};
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
    let class = schema.classes.get(c as usize);
    iri_name(schema, class.map_or("urn:rete:unknown-class", |x| &x.iri))
}

pub(crate) fn property(schema: &Schema, p: u32) -> Name {
    let property = schema.properties.get(p as usize);
    iri_name(
        schema,
        property.map_or("urn:rete:unknown-property", |x| &x.iri),
    )
}

/// A step that is one triple.
pub(crate) fn triple(s: &Name, p: &Name, o: &Name) -> Step {
    Step {
        text: format!("{} {} {}", s.text, p.text, o.text),
        triple: Some([s.nt.clone(), p.nt.clone(), o.nt.clone()]),
        graphs: Vec::new(),
        default_graph: false,
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
            graphs: Vec::new(),
            default_graph: false,
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
                graphs: Vec::new(),
                default_graph: false,
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

/// [`compact_with`] of each of `iris`.
pub(crate) fn compact_all(prefixes: &[(String, String)], iris: &[String]) -> Vec<String> {
    iris.iter().map(|i| compact_with(prefixes, i)).collect()
}

/// `iri` with the longest matching prefix of `prefixes` (the earliest among equals), else
/// `<iri>` ([`rete_core::vocab::compact_iri`] with any local part).
pub fn compact_with(prefixes: &[(String, String)], iri: &str) -> String {
    let namespaces = prefixes.iter().map(|(p, ns)| (p.as_str(), ns.as_str()));
    rete_core::vocab::compact_or_bracketed(namespaces, iri, |_| true)
}

/// At most this many derived classes are named in the text report (the JSON has all).
const DERIVED_LISTED: usize = 20;

impl Report {
    /// Indices of the findings that no group holds, in order.
    pub fn ungrouped(&self) -> Vec<usize> {
        let mut grouped = vec![false; self.findings.len()];
        let groups = self
            .groups
            .causes
            .iter()
            .flat_map(|c| c.roots.iter().chain(&c.derived).chain(&c.instances));
        for &i in groups.chain(self.groups.clashes.iter().flat_map(|c| &c.findings)) {
            if let Some(g) = grouped.get_mut(i) {
                *g = true;
            }
        }
        (0..self.findings.len()).filter(|&i| !grouped[i]).collect()
    }

    /// "1 root cause · 40 derived unsatisfiable classes · 3 instance findings".
    pub fn summary(&self) -> String {
        let g = &self.groups;
        format!(
            "{} · {} · {}",
            plural(g.roots, "root cause", "root causes"),
            plural(
                g.derived,
                "derived unsatisfiable class",
                "derived unsatisfiable classes"
            ),
            plural(g.instance_findings, "instance finding", "instance findings"),
        )
    }

    /// Where steps come from, for people: the inputs and what the file records.
    pub fn provenance_note(&self) -> Option<String> {
        match self.inputs.len() {
            0 => None,
            1 => Some(format!("Built from {}.", self.inputs[0])),
            n => Some(format!(
                "Built from {n} inputs ({}); the file does not record which input a triple came from: the named graph shown with a step is its source.",
                self.inputs.join(", ")
            )),
        }
    }

    /// The derived classes of cause `k`, compactly, at most `max` and "… and N more".
    pub fn derived_names(&self, k: usize, max: usize) -> String {
        let Some(c) = self.groups.causes.get(k) else {
            return String::new();
        };
        let mut v: Vec<String> = c
            .derived_classes
            .iter()
            .take(max)
            .map(|i| compact_with(&self.prefixes, i))
            .collect();
        if c.derived_classes.len() > max {
            v.push(format!("… and {} more", c.derived_classes.len() - max));
        }
        v.join(", ")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (p, ns) in &self.prefixes {
            writeln!(f, "@prefix {p}: <{ns}> .")?;
        }
        if !self.prefixes.is_empty() {
            writeln!(f)?;
        }
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
                    human::bytes(p.bytes_read),
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
            return Ok(());
        }
        writeln!(f, "{}", self.summary())?;
        if let Some(note) = self.provenance_note() {
            writeln!(f, "{note}")?;
        }
        for (k, c) in self.groups.causes.iter().enumerate() {
            writeln!(f)?;
            write!(f, "Root cause {}: ", k + 1)?;
            if let Some(x) = c.roots.first().and_then(|&i| self.findings.get(i)) {
                write!(f, "{x}")?;
            }
            if c.roots.len() > 1 {
                let names = compact_all(&self.prefixes, &c.classes);
                writeln!(f, "    (equivalent, also root: {})", names[1..].join(", "))?;
            }
            if !c.derived.is_empty() {
                writeln!(
                    f,
                    "    ⇒ {} because of it: {}",
                    plural(
                        c.derived.len(),
                        "derived unsatisfiable class",
                        "derived unsatisfiable classes"
                    ),
                    self.derived_names(k, DERIVED_LISTED)
                )?;
            }
            for &i in &c.instances {
                if let Some(x) = self.findings.get(i) {
                    write!(f, "  ⇒ {x}")?;
                }
            }
        }
        for c in &self.groups.clashes {
            writeln!(f)?;
            let names = compact_all(&self.prefixes, &c.classes);
            writeln!(
                f,
                "Clash of {} ({}):",
                names.join(" and "),
                plural(c.findings.len(), "finding", "findings")
            )?;
            for &i in &c.findings {
                if let Some(x) = self.findings.get(i) {
                    write!(f, "  {x}")?;
                }
            }
        }
        for i in self.ungrouped() {
            writeln!(f)?;
            write!(f, "{}", self.findings[i])?;
        }
        Ok(())
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} [{}] {}", self.severity, self.kind, self.message)?;
        for s in &self.explanation {
            if s.graphs.is_empty() {
                writeln!(f, "    {}", s.text)?;
            } else {
                writeln!(f, "    {}    ← {}", s.text, s.graphs.join(", "))?;
            }
        }
        Ok(())
    }
}
