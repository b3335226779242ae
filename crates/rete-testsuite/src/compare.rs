//! Result comparison up to blank-node renaming: solution multisets and graphs are turned into
//! RDF datasets and canonicalized, so equality of canonical forms is isomorphism.

use oxrdf::{
    dataset::CanonicalizationAlgorithm, BlankNode, Dataset, GraphName, Literal, NamedNode, Quad,
    Term, Triple, Variable,
};
use std::collections::BTreeSet;
use std::str::FromStr;

/// A solution sequence: variables and rows (`None` = unbound), in result order.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column variables.
    pub variables: Vec<Variable>,
    /// Rows, aligned with `variables`.
    pub rows: Vec<Vec<Option<Term>>>,
}

impl Table {
    /// A solution sequence read to its end (either engine's: both give `sparesults` solutions).
    pub fn from_solutions<E>(
        variables: Vec<Variable>,
        solutions: impl IntoIterator<Item = Result<sparesults::QuerySolution, E>>,
    ) -> Result<Self, E> {
        let mut rows = Vec::new();
        for sol in solutions {
            let sol = sol?;
            rows.push(variables.iter().map(|v| sol.get(v).cloned()).collect());
        }
        Ok(Self { variables, rows })
    }
}

/// A query answer in comparable form.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Solutions.
    Table(Table),
    /// ASK.
    Boolean(bool),
    /// CONSTRUCT / DESCRIBE.
    Graph(Vec<Triple>),
}

fn var_iri(v: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("urn:rete-test:var:{v}"))
}

/// The multiset of solutions as a dataset: one fresh blank node per row (plus a marker so empty
/// rows count), one triple per binding.
fn table_dataset(t: &Table) -> Dataset {
    let mut d = Dataset::new();
    let marker = NamedNode::new_unchecked("urn:rete-test:row");
    for (i, row) in t.rows.iter().enumerate() {
        let r = BlankNode::new_unchecked(format!("rowx{i}x"));
        d.insert(&Quad::new(
            r.clone(),
            marker.clone(),
            marker.clone(),
            GraphName::DefaultGraph,
        ));
        for (v, val) in t.variables.iter().zip(row) {
            if let Some(val) = val {
                d.insert(&Quad::new(
                    r.clone(),
                    var_iri(v.as_str()),
                    val.clone(),
                    GraphName::DefaultGraph,
                ));
            }
        }
    }
    d
}

/// Numeric literals in a canonical lexical form, so `"3.0E4"^^xsd:double` equals
/// `"30000"^^xsd:double`: the spec fixes the value and datatype of computed numbers, not
/// their spelling.
pub fn normalize(t: &Term) -> Term {
    const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
    let Term::Literal(l) = t else {
        return t.clone();
    };
    let Some(local) = l.datatype().as_str().strip_prefix(XSD) else {
        return t.clone();
    };
    let v = l.value();
    let canon = match local {
        "double" => oxsdatatypes::Double::from_str(v)
            .ok()
            .map(|x| x.to_string()),
        "float" => oxsdatatypes::Float::from_str(v).ok().map(|x| x.to_string()),
        "decimal" => oxsdatatypes::Decimal::from_str(v)
            .ok()
            .map(|x| x.to_string()),
        "integer" => oxsdatatypes::Integer::from_str(v)
            .ok()
            .map(|x| x.to_string()),
        _ => None,
    };
    match canon {
        Some(c) => Literal::new_typed_literal(c, l.datatype().into_owned()).into(),
        None => t.clone(),
    }
}

/// Renames row blank nodes of the expected side so they cannot clash with result labels, and
/// normalizes numbers.
fn relabel(t: &Table) -> Table {
    let rename = |x: &Option<Term>| match x {
        Some(Term::BlankNode(b)) => Some(Term::BlankNode(BlankNode::new_unchecked(format!(
            "v{}",
            b.as_str()
        )))),
        Some(other) => Some(normalize(other)),
        None => None,
    };
    Table {
        variables: t.variables.clone(),
        rows: t
            .rows
            .iter()
            .map(|r| r.iter().map(rename).collect())
            .collect(),
    }
}

/// Reorders the columns of `t` to `vars` (unknown columns unbound).
fn align(t: &Table, vars: &[Variable]) -> Table {
    let idx: Vec<Option<usize>> = vars
        .iter()
        .map(|v| t.variables.iter().position(|x| x == v))
        .collect();
    Table {
        variables: vars.to_vec(),
        rows: t
            .rows
            .iter()
            .map(|r| {
                idx.iter()
                    .map(|i| i.and_then(|i| r.get(i).cloned().flatten()))
                    .collect()
            })
            .collect(),
    }
}

fn canonical(mut d: Dataset) -> Dataset {
    d.canonicalize(CanonicalizationAlgorithm::Unstable);
    d
}

/// Compares two solution sequences as multisets up to blank-node renaming; with `ordered`
/// columns, also requires the same sequence of values in those columns (ties in `ORDER BY` keys
/// may come in any order, so only the keys are compared position by position).
pub fn compare_tables(
    expected: &Table,
    actual: &Table,
    ordered: &[Variable],
) -> Result<(), String> {
    let ev: BTreeSet<_> = expected.variables.iter().collect();
    let av: BTreeSet<_> = actual.variables.iter().collect();
    if ev != av {
        return Err(format!(
            "variables differ: expected {:?}, got {:?}",
            expected.variables, actual.variables
        ));
    }
    if expected.rows.len() != actual.rows.len() {
        return Err(format!(
            "expected {} rows, got {}\nexpected: {}\nactual:   {}",
            expected.rows.len(),
            actual.rows.len(),
            show(expected),
            show(actual)
        ));
    }
    let actual = align(actual, &expected.variables);
    if canonical(table_dataset(&relabel(expected))) != canonical(table_dataset(&relabel(&actual))) {
        return Err(format!(
            "solutions differ\nexpected: {}\nactual:   {}",
            show(expected),
            show(&actual)
        ));
    }
    let cols: Vec<usize> = ordered
        .iter()
        .filter_map(|v| expected.variables.iter().position(|x| x == v))
        .collect();
    for (i, (e, a)) in expected.rows.iter().zip(&actual.rows).enumerate() {
        for &c in &cols {
            let (x, y) = (&e[c].as_ref().map(normalize), &a[c].as_ref().map(normalize));
            let bnodes =
                matches!(x, Some(Term::BlankNode(_))) && matches!(y, Some(Term::BlankNode(_)));
            if x != y && !bnodes {
                return Err(format!(
                    "order differs at row {i}, column {}: expected {x:?}, got {y:?}",
                    expected.variables[c]
                ));
            }
        }
    }
    Ok(())
}

fn show(t: &Table) -> String {
    let mut s = String::new();
    for r in t.rows.iter().take(30) {
        s.push_str("\n  ");
        for (v, x) in t.variables.iter().zip(r) {
            if let Some(x) = x {
                s.push_str(&format!("{v}={x} "));
            }
        }
    }
    if t.rows.len() > 30 {
        s.push_str(&format!("\n  … {} more", t.rows.len() - 30));
    }
    s
}

/// Whether two graphs are isomorphic.
pub fn isomorphic_graphs(a: &[Triple], b: &[Triple]) -> bool {
    let to_ds = |ts: &[Triple]| {
        let mut d = Dataset::new();
        for t in ts {
            d.insert(&Quad::new(
                t.subject.clone(),
                t.predicate.clone(),
                t.object.clone(),
                GraphName::DefaultGraph,
            ));
        }
        canonical(d)
    };
    to_ds(a) == to_ds(b)
}

/// Whether two datasets are isomorphic.
pub fn isomorphic_datasets(a: &[Quad], b: &[Quad]) -> bool {
    let to_ds = |qs: &[Quad]| canonical(qs.iter().collect::<Dataset>());
    to_ds(a) == to_ds(b)
}

/// Compares answers of any kind.
pub fn compare_answers(
    expected: &Answer,
    actual: &Answer,
    ordered: &[Variable],
) -> Result<(), String> {
    match (expected, actual) {
        (Answer::Boolean(a), Answer::Boolean(b)) if a == b => Ok(()),
        (Answer::Boolean(a), Answer::Boolean(b)) => Err(format!("expected {a}, got {b}")),
        (Answer::Table(a), Answer::Table(b)) => compare_tables(a, b, ordered),
        (Answer::Graph(a), Answer::Graph(b)) => {
            if isomorphic_graphs(a, b) {
                Ok(())
            } else {
                let show = |g: &[Triple]| {
                    let mut v: Vec<String> = g.iter().map(|t| format!("\n  {t}")).collect();
                    v.sort();
                    v.concat()
                };
                Err(format!(
                    "graphs differ\nexpected:{}\nactual:{}",
                    show(a),
                    show(b)
                ))
            }
        }
        _ => Err(format!(
            "expected a {} result, got a {} result",
            kind(expected),
            kind(actual)
        )),
    }
}

fn kind(a: &Answer) -> &'static str {
    match a {
        Answer::Table(_) => "solutions",
        Answer::Boolean(_) => "boolean",
        Answer::Graph(_) => "graph",
    }
}
