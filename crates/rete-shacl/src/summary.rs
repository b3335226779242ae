//! The readable summary: results grouped by source shape and constraint component, with
//! counts and the focus nodes of each group (what the app lists and highlights).

use crate::report::Report;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Results of one shape and one constraint component.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The source shape (N-Triples form: `<iri>` or `_:b`).
    pub shape: String,
    /// The constraint component's IRI.
    pub component: String,
    /// The severity's IRI.
    pub severity: String,
    /// The result path (SPARQL path syntax), when the shape has one.
    pub path: Option<String>,
    /// Number of results.
    pub count: usize,
    /// The distinct focus nodes (N-Triples form), in first-seen order.
    pub focus_nodes: Vec<String>,
    /// The distinct messages.
    pub messages: Vec<String>,
}

/// The summary of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Whether the data conforms.
    pub conforms: bool,
    /// Number of results.
    pub results: usize,
    /// Groups, most results first.
    pub groups: Vec<Group>,
}

fn local(iri: &str) -> &str {
    iri.rsplit(['#', '/']).next().unwrap_or(iri)
}

impl Summary {
    /// Groups the results of `report`.
    pub fn of(report: &Report) -> Self {
        let mut groups: BTreeMap<(String, String, String), Group> = BTreeMap::new();
        // The focus nodes already listed per group: a group may hold millions of results.
        let mut listed: rustc_hash::FxHashSet<(String, String, String, String)> =
            rustc_hash::FxHashSet::default();
        for r in &report.results {
            let shape = r.source_shape.to_string();
            let path = r.path.as_ref().map(ToString::to_string);
            let key = (
                shape.clone(),
                r.component.as_str().to_owned(),
                path.clone().unwrap_or_default(),
            );
            let g = groups.entry(key.clone()).or_insert_with(|| Group {
                shape,
                component: r.component.as_str().to_owned(),
                severity: r.severity.as_str().to_owned(),
                path,
                count: 0,
                focus_nodes: Vec::new(),
                messages: Vec::new(),
            });
            g.count += 1;
            let focus = r.focus.to_string();
            if g.focus_nodes.last() != Some(&focus) {
                let (s, c, p) = key;
                if listed.insert((s, c, p, focus.clone())) {
                    g.focus_nodes.push(focus);
                }
            }
            for m in &r.messages {
                let m = match m {
                    oxrdf::Term::Literal(l) => l.value().to_owned(),
                    other => other.to_string(),
                };
                if !g.messages.contains(&m) {
                    g.messages.push(m);
                }
            }
        }
        let mut groups: Vec<Group> = groups.into_values().collect();
        groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.shape.cmp(&b.shape)));
        Self {
            conforms: report.conforms,
            results: report.results.len(),
            groups,
        }
    }
}

/// How many focus nodes a group shows in the text form.
const SHOWN: usize = 5;

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.conforms {
            return writeln!(f, "conforms: no results");
        }
        writeln!(
            f,
            "does not conform: {} results in {} groups",
            self.results,
            self.groups.len()
        )?;
        for g in &self.groups {
            write!(
                f,
                "\n{} {} {}",
                local(&g.severity),
                g.shape,
                local(&g.component)
            )?;
            if let Some(p) = &g.path {
                write!(f, " path {p}")?;
            }
            writeln!(
                f,
                ": {} results, {} focus nodes",
                g.count,
                g.focus_nodes.len()
            )?;
            for m in &g.messages {
                writeln!(f, "  message: {m}")?;
            }
            for n in g.focus_nodes.iter().take(SHOWN) {
                writeln!(f, "  {n}")?;
            }
            if g.focus_nodes.len() > SHOWN {
                writeln!(f, "  … {} more", g.focus_nodes.len() - SHOWN)?;
            }
        }
        Ok(())
    }
}
