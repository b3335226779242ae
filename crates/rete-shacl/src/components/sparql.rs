//! SHACL-SPARQL at one focus node: a `sh:sparql` SELECT or a component's SELECT validator runs
//! once with `$this`, `$currentShape` and the parameters pre-bound, and each solution is a
//! result (SHACL §5.3.2); an ASK validator runs once per value node with `$value` pre-bound too,
//! and `false` is a result (§6.3.1).

use super::{Check, Context, Focus, Sink};
use crate::error::{Error, Result};
use crate::paths::Path;
use crate::shapes::Constraint;
use crate::sparql::{fill_message, SparqlQuery, ValidatorQuery, CURRENT_SHAPE, THIS};
use oxrdf::{Term, Variable};
use rete_sparql::{QueryOptions, QueryResults};

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) -> Result<()> {
    let shape = v.shapes().get(at.shape);
    let mut bindings = vec![
        (Variable::new_unchecked(THIS), at.node.clone()),
        (Variable::new_unchecked(CURRENT_SHAPE), shape.node.clone()),
    ];
    match c {
        Constraint::Sparql(s) => select(
            v,
            at,
            c,
            &s.select,
            &bindings,
            &s.messages,
            Some(&s.node),
            sink,
        ),
        Constraint::Component(cc) => {
            bindings.extend(cc.parameters.iter().cloned());
            match &cc.validator {
                ValidatorQuery::Select(q) => {
                    select(v, at, c, q, &bindings, &cc.messages, None, sink)
                }
                ValidatorQuery::Ask(q) => {
                    for value in at.values {
                        let mut b = bindings.clone();
                        b.push((Variable::new_unchecked("value"), value.clone()));
                        let ok = match run(v, at, q, &b)? {
                            QueryResults::Boolean(ok) => ok,
                            _ => true,
                        };
                        if !ok {
                            let lookup = |n: &str| lookup(&b, n);
                            v.emit_result(
                                sink,
                                at,
                                c,
                                Some(value.clone()),
                                None,
                                fill(&cc.messages, &lookup),
                                None,
                            );
                            if sink.done() {
                                break;
                            }
                        }
                    }
                    Ok(())
                }
            }
        }
        _ => Ok(()),
    }
}

fn lookup(bindings: &[(Variable, Term)], name: &str) -> Option<Term> {
    bindings
        .iter()
        .find(|(v, _)| v.as_str() == name)
        .map(|(_, t)| t.clone())
}

fn fill(templates: &[Term], bound: &dyn Fn(&str) -> Option<Term>) -> Vec<Term> {
    templates.iter().map(|t| fill_message(t, bound)).collect()
}

fn sparql_error(v: &dyn Context<'_>, at: &Focus<'_>, message: String) -> Error {
    Error::Sparql {
        shape: v.shapes().get(at.shape).node.to_string(),
        message,
    }
}

fn run(
    v: &dyn Context<'_>,
    at: &Focus<'_>,
    q: &SparqlQuery,
    bindings: &[(Variable, Term)],
) -> Result<QueryResults> {
    // SHACL's data graph is the union of the file's graphs.
    let opts = QueryOptions {
        union_default_graph: true,
        ..QueryOptions::default()
    };
    rete_sparql::evaluate_prebound(v.data().rete(), &q.query, &opts, bindings)
        .map_err(|e| sparql_error(v, at, format!("evaluating {}: {e}", q.text)))
}

#[allow(clippy::too_many_arguments, reason = "one result's parts")]
fn select(
    v: &dyn Context<'_>,
    at: &Focus<'_>,
    c: &Constraint,
    q: &SparqlQuery,
    bindings: &[(Variable, Term)],
    templates: &[Term],
    source: Option<&Term>,
    sink: &mut Sink,
) -> Result<()> {
    let QueryResults::Solutions(solutions) = run(v, at, q, bindings)? else {
        return Ok(());
    };
    for s in solutions {
        let s = s.map_err(|e| sparql_error(v, at, format!("evaluating {}: {e}", q.text)))?;
        if matches!(s.get("failure"), Some(Term::Literal(l)) if l.value() == "true") {
            return Err(sparql_error(
                v,
                at,
                format!("the query reported ?failure for focus node {}", at.node),
            ));
        }
        let path = match s.get("path") {
            Some(Term::NamedNode(p)) => Some(Path::Predicate(p.clone())),
            _ => None,
        };
        let value = s.get("value").cloned().unwrap_or_else(|| at.node.clone());
        let messages = match s.get("message") {
            Some(m) => vec![m.clone()],
            None => {
                let bound = |n: &str| s.get(n).cloned().or_else(|| lookup(bindings, n));
                fill(templates, &bound)
            }
        };
        v.emit_result(sink, at, c, Some(value), path, messages, source.cloned());
        if sink.done() {
            break;
        }
    }
    Ok(())
}
