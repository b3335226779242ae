//! The native evaluator: the query algebra compiled to operators over rows of dictionary ids
//! (see [`plan`] for the fragment it covers and [`eval`] for the operators).

mod agg;
mod bgp;
mod compile;
mod compile_expr;
mod ctx;
mod eval;
mod expr;
mod path;
mod plan;

use crate::dataset::Guard;
use crate::{QueryResults, Solutions, SparqlError, Triples};
use compile::Planner;
use ctx::{Active, Ctx, Row, UNBOUND};
use eval::Engine;
use oxrdf::{NamedOrBlankNode, Term, Triple, Variable};
use plan::PlanError;
use rete_core::Rete;
use rustc_hash::FxHashMap;
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;
use std::rc::Rc;
use std::sync::Arc;

/// Why `q` cannot run natively (`None`: it can).
pub(crate) fn unsupported_reason(rete: &Rete, q: &Query) -> Result<Option<String>, SparqlError> {
    let (pattern, select) = match q {
        Query::Select {
            pattern,
            dataset: None,
            ..
        } => (pattern, true),
        Query::Ask {
            pattern,
            dataset: None,
            ..
        }
        | Query::Describe {
            pattern,
            dataset: None,
            ..
        }
        | Query::Construct {
            pattern,
            dataset: None,
            ..
        } => (pattern, false),
        _ => return Ok(Some("FROM / FROM NAMED dataset clauses".into())),
    };
    let ctx = Ctx::new(rete.clone(), Guard::default());
    match Planner::new(&ctx).compile_query(pattern, select) {
        Ok(_) => Ok(None),
        Err(PlanError::Unsupported(u)) => Ok(Some(u.0)),
        Err(PlanError::Error(e)) => Err(e),
    }
}

/// Evaluates `q` natively, or returns `None` when it uses something outside the native
/// fragment (the caller then uses the generic evaluator).
pub(crate) fn try_evaluate(
    rete: &Rete,
    q: &Query,
    guard: &Guard,
) -> Result<Option<QueryResults>, SparqlError> {
    let (pattern, select) = match q {
        Query::Select {
            pattern,
            dataset: None,
            ..
        } => (pattern, true),
        Query::Ask {
            pattern,
            dataset: None,
            ..
        }
        | Query::Describe {
            pattern,
            dataset: None,
            ..
        }
        | Query::Construct {
            pattern,
            dataset: None,
            ..
        } => (pattern, false),
        _ => return Ok(None),
    };
    let ctx = Rc::new(Ctx::new(rete.clone(), guard.clone()));
    let compiled = match Planner::new(&ctx).compile_query(pattern, select) {
        Ok(c) => c,
        Err(PlanError::Unsupported(_)) => return Ok(None),
        Err(PlanError::Error(e)) => return Err(e),
    };
    if select {
        mark_free_slots(&ctx, &compiled.root, compiled.slots);
    }
    let engine = Engine {
        ctx: ctx.clone(),
        width: compiled.slots,
        substitute: false,
    };
    let rows = engine.eval(&compiled.root, engine.empty_row(), Active::Default);
    Ok(Some(match q {
        Query::Select { .. } => {
            let variables: Arc<[Variable]> =
                compiled.projection.iter().map(|(v, _)| v.clone()).collect();
            let slots: Vec<usize> = compiled.projection.iter().map(|(_, s)| *s).collect();
            let vars = variables.clone();
            let mut rows = rows;
            let mut done = false;
            QueryResults::Solutions(Solutions {
                variables,
                iter: Box::new(std::iter::from_fn(move || {
                    if done {
                        return None;
                    }
                    match rows.next()? {
                        Ok(r) => match eval::decode(&ctx, &r, &slots) {
                            Ok(values) => Some(Ok((vars.clone(), values).into())),
                            Err(e) => {
                                done = true;
                                Some(Err(e))
                            }
                        },
                        Err(e) => {
                            done = true;
                            Some(Err(e))
                        }
                    }
                })),
            })
        }
        Query::Ask { .. } => {
            let mut rows = rows;
            QueryResults::Boolean(match rows.next() {
                Some(Ok(_)) => true,
                Some(Err(e)) => return Err(e),
                None => false,
            })
        }
        Query::Construct { template, .. } => {
            let template = Rc::new(template.clone());
            let top = Rc::new(compiled.top);
            let mut rows = rows;
            let mut pending: Vec<Triple> = Vec::new();
            let mut done = false;
            QueryResults::Graph(Triples {
                iter: Box::new(std::iter::from_fn(move || loop {
                    if let Some(t) = pending.pop() {
                        return Some(Ok(t));
                    }
                    if done {
                        return None;
                    }
                    match rows.next() {
                        None => return None,
                        Some(Err(e)) => {
                            done = true;
                            return Some(Err(e));
                        }
                        Some(Ok(r)) => match instantiate(&ctx, &template, &top, &r) {
                            Ok(mut ts) => {
                                ts.reverse();
                                pending = ts;
                            }
                            Err(e) => {
                                done = true;
                                return Some(Err(e));
                            }
                        },
                    }
                })),
            })
        }
        Query::Describe { .. } => {
            let mut rows = rows;
            let mut described: rustc_hash::FxHashSet<u64> = rustc_hash::FxHashSet::default();
            let mut todo: Vec<u64> = Vec::new();
            let mut pending: Vec<Triple> = Vec::new();
            let mut done = false;
            QueryResults::Graph(Triples {
                iter: Box::new(std::iter::from_fn(move || loop {
                    if let Some(t) = pending.pop() {
                        return Some(Ok(t));
                    }
                    if done {
                        return None;
                    }
                    if let Some(node) = todo.pop() {
                        match describe(&ctx, node, &mut described, &mut todo) {
                            Ok(mut ts) => {
                                ts.reverse();
                                pending = ts;
                            }
                            Err(e) => {
                                done = true;
                                return Some(Err(e));
                            }
                        }
                        continue;
                    }
                    match rows.next() {
                        None => return None,
                        Some(Err(e)) => {
                            done = true;
                            return Some(Err(e));
                        }
                        Some(Ok(r)) => {
                            for v in r.into_iter().filter(|&v| v != UNBOUND) {
                                if described.insert(v) {
                                    todo.push(v);
                                }
                            }
                            todo.reverse();
                        }
                    }
                })),
            })
        }
    }))
}

/// The triples of the default graph about `node`; blank-node objects are queued to be
/// described too (a concise bounded description, as spareval and Oxigraph give).
fn describe(
    ctx: &Ctx,
    node: u64,
    described: &mut rustc_hash::FxHashSet<u64>,
    todo: &mut Vec<u64>,
) -> Result<Vec<Triple>, SparqlError> {
    let mut out = Vec::new();
    if !ctx.in_dict(node) {
        return Ok(out);
    }
    let pat =
        rete_core::Pattern::new(Some(node), None, None).in_graph(rete_core::GraphMatch::Default);
    for q in ctx.rete.quads(&pat)? {
        let [s, p, o, _] = q?;
        ctx.check()?;
        let (Term::NamedNode(p), object) = (ctx.term(p)?, ctx.term(o)?) else {
            continue;
        };
        let s = match ctx.term(s)? {
            Term::NamedNode(n) => NamedOrBlankNode::from(n),
            Term::BlankNode(b) => b.into(),
            _ => continue,
        };
        if object.is_blank_node() && described.insert(o) {
            todo.push(o);
        }
        out.push(Triple::new(s, p, object));
    }
    Ok(out)
}

/// The template's triples for one solution (fresh blank nodes per solution; triples with an
/// unbound or ill-placed term are left out).
fn instantiate(
    ctx: &Ctx,
    template: &[TriplePattern],
    top: &FxHashMap<String, usize>,
    r: &Row,
) -> Result<Vec<Triple>, SparqlError> {
    let mut bnodes: FxHashMap<String, oxrdf::BlankNode> = FxHashMap::default();
    let mut term = |t: &TermPattern| -> Result<Option<Term>, SparqlError> {
        Ok(match t {
            TermPattern::NamedNode(n) => Some(n.clone().into()),
            TermPattern::Literal(l) => Some(l.clone().into()),
            TermPattern::BlankNode(b) => Some(
                bnodes
                    .entry(b.as_str().to_owned())
                    .or_insert_with(|| ctx.fresh_bnode())
                    .clone()
                    .into(),
            ),
            TermPattern::Variable(v) => match top.get(v.as_str()) {
                Some(&s) if r[s] != UNBOUND => Some(ctx.term(r[s])?),
                _ => None,
            },
            #[allow(unreachable_patterns)]
            _ => None,
        })
    };
    let mut out = Vec::with_capacity(template.len());
    for tp in template {
        let s = term(&tp.subject)?;
        let p = match &tp.predicate {
            NamedNodePattern::NamedNode(n) => Some(Term::from(n.clone())),
            NamedNodePattern::Variable(v) => match top.get(v.as_str()) {
                Some(&s) if r[s] != UNBOUND => Some(ctx.term(r[s])?),
                _ => None,
            },
        };
        let o = term(&tp.object)?;
        let (Some(s), Some(Term::NamedNode(p)), Some(o)) = (s, p, o) else {
            continue;
        };
        let s = match s {
            Term::NamedNode(n) => NamedOrBlankNode::from(n),
            Term::BlankNode(b) => b.into(),
            _ => continue,
        };
        out.push(Triple::new(s, p, o));
    }
    Ok(out)
}

/// Marks the targets of the top-level BIND / SELECT expressions that nothing but the final
/// projection reads (a chain of LIMIT / projection / extension above the rest of the plan), so
/// their computed terms are not looked up in the dictionary.
fn mark_free_slots(ctx: &Ctx, root: &Rc<plan::Plan>, width: usize) {
    let mut free = vec![false; width];
    let mut node = root;
    loop {
        match &**node {
            plan::Plan::Slice { inner, .. } | plan::Plan::Project { inner, .. } => node = inner,
            plan::Plan::Extend { inner, binds, .. } => {
                let used = plan::all_slots(inner);
                let mut read = Vec::new();
                let mut same_term = false;
                for (_, e) in binds {
                    plan::ex_slots(e, &mut read);
                    same_term |= uses_same_term(e);
                }
                if !same_term {
                    for (slot, _) in binds {
                        let twice = binds.iter().filter(|(s, _)| s == slot).count() > 1;
                        if !used.contains(slot) && !read.contains(slot) && !twice {
                            free[*slot] = true;
                        }
                    }
                }
                break;
            }
            _ => break,
        }
    }
    *ctx.free.borrow_mut() = free;
}

fn uses_same_term(e: &plan::Ex) -> bool {
    use plan::Ex;
    match e {
        Ex::SameTerm(..) | Ex::Exists(_) => true,
        Ex::Const(_) | Ex::Var(_) | Ex::Bound(_) | Ex::BNode(None) => false,
        Ex::Or(a, b)
        | Ex::And(a, b)
        | Ex::Equal(a, b)
        | Ex::Cmp(a, b, _)
        | Ex::Arith(_, a, b)
        | Ex::Replace(a, _, b) => uses_same_term(a) || uses_same_term(b),
        Ex::Not(a) | Ex::Neg(a) | Ex::Plus(a) | Ex::Regex(a, _) | Ex::BNode(Some(a)) => {
            uses_same_term(a)
        }
        Ex::In(a, l) => uses_same_term(a) || l.iter().any(uses_same_term),
        Ex::If(a, b, c) => uses_same_term(a) || uses_same_term(b) || uses_same_term(c),
        Ex::Coalesce(l) | Ex::Call(_, l) => l.iter().any(uses_same_term),
    }
}
