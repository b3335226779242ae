//! SHACL-SPARQL (SHACL §5–6): SPARQL-based constraints (`sh:sparql`) and SPARQL-based
//! constraint components (`sh:ConstraintComponent` with ASK / SELECT validators), and SHACL-AF's
//! SPARQL-based targets, read from the shapes graph and run on rete-sparql with pre-bound
//! variables.

mod read;
mod restrictions;

pub(crate) use read::{components, sparql_constraint, sparql_target, Component};

use crate::error::{Error, Result};
use oxrdf::{NamedNode, Term, Variable};
use spargebra::Query;

/// A query of a SPARQL constraint, validator or target, parsed with its prefixes and `$PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparqlQuery {
    /// The query as run (with the prefix declarations and `$PATH` substituted).
    pub text: String,
    pub(crate) query: Query,
}

/// `sh:sparql`: a SELECT query whose solutions are violations.
#[derive(Debug, Clone)]
pub struct SparqlConstraint {
    /// The constraint's node (`sh:sourceConstraint`).
    pub node: Term,
    /// Its `sh:select`.
    pub select: SparqlQuery,
    /// Its `sh:message` values (templates with `{?var}` / `{$var}`).
    pub messages: Vec<Term>,
}

/// How a SPARQL-based constraint component validates.
#[derive(Debug, Clone)]
pub enum ValidatorQuery {
    /// `sh:ask`: run per value node; `false` is a violation.
    Ask(SparqlQuery),
    /// `sh:select`: run per focus node; each solution is a violation.
    Select(SparqlQuery),
}

/// A use of a SPARQL-based constraint component by a shape: one combination of parameter
/// values.
#[derive(Debug, Clone)]
pub struct ComponentConstraint {
    /// The component (`sh:sourceConstraintComponent`).
    pub component: NamedNode,
    /// The validator that applies to the shape.
    pub validator: ValidatorQuery,
    /// The parameter variables with the shape's values.
    pub parameters: Vec<(Variable, Term)>,
    /// The validator's `sh:message` values, else the component's.
    pub messages: Vec<Term>,
}

/// Variables SHACL pre-binds in every query.
pub(crate) const THIS: &str = "this";
pub(crate) const CURRENT_SHAPE: &str = "currentShape";
pub(crate) const SHAPES_GRAPH: &str = "shapesGraph";

/// Parses a SHACL-SPARQL query: prefix declarations first, `$PATH` replaced by the shape's path
/// (`None` for node shapes, where `$PATH` is an error), then the pre-binding rules checked for
/// `prebound` (the names of the variables pre-bound for this query).
pub(crate) fn prepare(
    shape: &Term,
    kind: &str,
    prefixes: &str,
    body: &str,
    path: Option<&str>,
    prebound: &[&str],
) -> Result<SparqlQuery> {
    let fail = |message: String| Error::Sparql {
        shape: shape.to_string(),
        message: format!("{kind}: {message}"),
    };
    // Refused rather than left unbound: a query reading the shapes graph would answer wrongly.
    if mentions(body, SHAPES_GRAPH) {
        return Err(fail(
            "$shapesGraph is not supported (the shapes graph is not a graph of the .rete file)"
                .into(),
        ));
    }
    let body = match (mentions(body, "PATH"), path) {
        (false, _) => body.to_owned(),
        (true, Some(p)) => replace_var(body, "PATH", p),
        (true, None) => return Err(fail("$PATH is only allowed in a property shape".into())),
    };
    let text = format!("{prefixes}{body}");
    let query = rete_sparql::parse(&text, None).map_err(|e| fail(e.to_string()))?;
    let used: Vec<Variable> = prebound
        .iter()
        .filter(|v| mentions(&body, v))
        .map(|v| Variable::new_unchecked(*v))
        .collect();
    if let Some(why) = restrictions::violation(&query, &used) {
        return Err(fail(format!("{why} in a query with pre-bound variables")));
    }
    Ok(SparqlQuery { text, query })
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\u{B7}'
}

/// Where `?name` / `$name` occurs as a whole variable in `text` (byte offsets of the sigil). A
/// lexical scan: a variable-like token inside a string counts too, which only makes the
/// nested-SELECT rule stricter.
fn occurrences<'t>(text: &'t str, name: &'t str) -> impl Iterator<Item = usize> + 't {
    text.char_indices().filter_map(move |(i, c)| {
        if c != '?' && c != '$' {
            return None;
        }
        let rest = &text[i + 1..];
        let after = rest.strip_prefix(name)?;
        if after.chars().next().is_some_and(is_name_char) {
            return None;
        }
        Some(i)
    })
}

/// Whether `text` uses the variable `name`.
pub(crate) fn mentions(text: &str, name: &str) -> bool {
    occurrences(text, name).next().is_some()
}

fn replace_var(text: &str, name: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for i in occurrences(text, name).collect::<Vec<_>>() {
        out.push_str(&text[last..i]);
        out.push_str(with);
        last = i + 1 + name.len();
    }
    out.push_str(&text[last..]);
    out
}

/// `sh:message` with `{?var}` / `{$var}` replaced by the values in `bound` (SHACL §5.3.2).
pub(crate) fn fill_message(template: &Term, bound: &dyn Fn(&str) -> Option<Term>) -> Term {
    let Term::Literal(l) = template else {
        return template.clone();
    };
    let s = l.value();
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let name = after
            .strip_prefix('?')
            .or_else(|| after.strip_prefix('$'))
            .and_then(|n| n.find('}').map(|end| &n[..end]));
        match name.and_then(|n| bound(n).map(|t| (n, t))) {
            Some((n, t)) => {
                out.push_str(&display_value(&t));
                rest = &after[1 + n.len() + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    match l.language() {
        Some(lang) => oxrdf::Literal::new_language_tagged_literal_unchecked(out, lang).into(),
        None => oxrdf::Literal::new_simple_literal(out).into(),
    }
}

fn display_value(t: &Term) -> String {
    match t {
        Term::Literal(l) => l.value().to_owned(),
        Term::NamedNode(n) => n.as_str().to_owned(),
        other => other.to_string(),
    }
}
