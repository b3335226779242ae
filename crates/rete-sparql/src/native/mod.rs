//! The native evaluator: the query algebra compiled to operators over rows of dictionary ids
//! (see [`plan`] for the fragment it covers and [`eval`] for the operators).

mod adjacency;
mod agg;
mod bgp;
mod compile;
mod compile_expr;
mod ctx;
mod eval;
mod expr;
mod interp;
mod path;
mod plan;
mod pushdown;
mod row;
mod scalar;

use crate::dataset::Guard;
use crate::{QueryResults, Solutions, SparqlError, Triples};
use compile::Planner;
use ctx::Ctx;
use eval::Engine;
use oxrdf::{NamedOrBlankNode, Term, Triple, Variable};
use plan::PlanError;
use rete_core::Rete;
use row::{Active, Row, UNBOUND};
use rustc_hash::FxHashMap;
use spargebra::algebra::GraphPattern;
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;
use std::rc::Rc;
use std::sync::Arc;

/// The pattern of a query without dataset clauses (FROM / FROM NAMED), and whether it is a
/// SELECT.
fn query_pattern(q: &Query) -> Option<(&GraphPattern, bool)> {
    Some(match q {
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
        _ => return None,
    })
}

/// Why `q` cannot run natively (`None`: it can).
pub(crate) fn unsupported_reason(rete: &Rete, q: &Query) -> Result<Option<String>, SparqlError> {
    let Some((pattern, select)) = query_pattern(q) else {
        return Ok(Some("FROM / FROM NAMED dataset clauses".into()));
    };
    let ctx = Ctx::new(rete.clone(), Guard::default());
    match Planner::new(&ctx).compile_query(pattern, select) {
        Ok(_) => Ok(None),
        Err(PlanError::Unsupported(u)) => Ok(Some(u.0)),
        Err(PlanError::Error(e)) => Err(e),
    }
}

/// Evaluates `q` natively, or returns `None` when it uses something outside the native
/// fragment (the caller then uses the generic evaluator). With `union`, the default graph is
/// the merge of every graph of the file.
pub(crate) fn try_evaluate(
    rete: &Rete,
    q: &Query,
    guard: &Guard,
    union: bool,
) -> Result<Option<QueryResults>, SparqlError> {
    let Some((pattern, select)) = query_pattern(q) else {
        return Ok(None);
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
    let default = if union {
        Active::Union
    } else {
        Active::Default
    };
    let rows = engine.eval(&compiled.root, engine.empty_row(), default);
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
            let template = Template::new(&ctx, template, &compiled.top)?;
            let mut rows = rows;
            let mut seen: rustc_hash::FxHashSet<[u64; 3]> = rustc_hash::FxHashSet::default();
            QueryResults::Graph(Triples {
                iter: Box::new(triples_in_batches(move || {
                    let row = rows.next()?;
                    Some(row.and_then(|r| template.instantiate(&ctx, &r, &mut seen)))
                })),
            })
        }
        Query::Describe { .. } => {
            let mut rows = rows;
            let mut described: rustc_hash::FxHashSet<u64> = rustc_hash::FxHashSet::default();
            let mut todo: Vec<u64> = Vec::new();
            QueryResults::Graph(Triples {
                iter: Box::new(triples_in_batches(move || loop {
                    if let Some(node) = todo.pop() {
                        return Some(describe(&ctx, node, default, &mut described, &mut todo));
                    }
                    match rows.next()? {
                        Err(e) => return Some(Err(e)),
                        Ok(r) => {
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

/// The triples of a CONSTRUCT or DESCRIBE one at a time, from `next_batch` (the triples of one
/// row or one described node; `None` once there are no more); an error ends the stream.
fn triples_in_batches(
    mut next_batch: impl FnMut() -> Option<Result<Vec<Triple>, SparqlError>>,
) -> impl Iterator<Item = Result<Triple, SparqlError>> {
    let mut pending: Vec<Triple> = Vec::new();
    let mut done = false;
    std::iter::from_fn(move || loop {
        if let Some(t) = pending.pop() {
            return Some(Ok(t));
        }
        if done {
            return None;
        }
        match next_batch()? {
            Ok(mut batch) => {
                batch.reverse();
                pending = batch;
            }
            Err(e) => {
                done = true;
                return Some(Err(e));
            }
        }
    })
}

/// The triples of the default graph about `node`; blank-node objects are queued to be
/// described too (a concise bounded description, as spareval and Oxigraph give).
fn describe(
    ctx: &Ctx,
    node: u64,
    default: Active,
    described: &mut rustc_hash::FxHashSet<u64>,
    todo: &mut Vec<u64>,
) -> Result<Vec<Triple>, SparqlError> {
    let mut out = Vec::new();
    if !ctx.in_dict(node) {
        return Ok(out);
    }
    // Every triple has the same subject: decoded once.
    let subject = match ctx.term(node)? {
        Term::NamedNode(n) => NamedOrBlankNode::from(n),
        Term::BlankNode(b) => b.into(),
        _ => return Ok(out),
    };
    for q in ctx.scan(Some(node), None, None, default)? {
        let [_, p, o, _] = q?;
        ctx.check()?;
        let (Term::NamedNode(p), object) = (ctx.term(p)?, ctx.term(o)?) else {
            continue;
        };
        let s = subject.clone();
        if object.is_blank_node() && described.insert(o) {
            todo.push(o);
        }
        out.push(Triple::new(s, p, object));
    }
    Ok(out)
}

/// Key of a template blank node in the CONSTRUCT dedup set: above every term id (dictionary
/// and query-local ids stay far below 2^62), below [`ctx::ONCE`].
const FRESH: u64 = 1 << 62;

/// One position of a CONSTRUCT template, resolved once per query.
enum Slot3 {
    /// A constant, with its id (dictionary or query-local: id equality is term equality).
    Const(u64, Term),
    /// A variable's row slot (`None`: not bound by the pattern).
    Var(Option<usize>),
    /// A template blank node (its index among the template's labels).
    Fresh(usize),
}

/// A CONSTRUCT template compiled to ids, so that the result stays a set by comparing id
/// triples, before anything is decoded (a duplicate is never decoded at all).
struct Template {
    triples: Vec<[Slot3; 3]>,
    labels: usize,
    /// Fresh blank nodes handed out so far (their keys are `FRESH | n`).
    fresh: std::cell::Cell<u64>,
}

impl Template {
    fn new(
        ctx: &Ctx,
        template: &[TriplePattern],
        top: &FxHashMap<String, usize>,
    ) -> Result<Self, SparqlError> {
        let mut labels: Vec<String> = Vec::new();
        let mut term = |t: &TermPattern| -> Result<Slot3, SparqlError> {
            Ok(match t {
                TermPattern::NamedNode(n) => {
                    let t = Term::from(n.clone());
                    Slot3::Const(ctx.intern(t.clone())?, t)
                }
                TermPattern::Literal(l) => {
                    let t = Term::from(l.clone());
                    Slot3::Const(ctx.intern(t.clone())?, t)
                }
                TermPattern::BlankNode(b) => {
                    Slot3::Fresh(match labels.iter().position(|x| x == b.as_str()) {
                        Some(i) => i,
                        None => {
                            labels.push(b.as_str().to_owned());
                            labels.len() - 1
                        }
                    })
                }
                TermPattern::Variable(v) => Slot3::Var(top.get(v.as_str()).copied()),
                #[allow(unreachable_patterns)]
                _ => Slot3::Var(None),
            })
        };
        let mut triples = Vec::with_capacity(template.len());
        for tp in template {
            let s = term(&tp.subject)?;
            let p = match &tp.predicate {
                NamedNodePattern::NamedNode(n) => term(&TermPattern::NamedNode(n.clone()))?,
                NamedNodePattern::Variable(v) => term(&TermPattern::Variable(v.clone()))?,
            };
            let o = term(&tp.object)?;
            triples.push([s, p, o]);
        }
        Ok(Self {
            triples,
            labels: labels.len(),
            fresh: std::cell::Cell::new(0),
        })
    }

    /// The template's triples for one solution that are not in `seen` yet (fresh blank nodes
    /// per solution; triples with an unbound or ill-placed term are left out).
    fn instantiate(
        &self,
        ctx: &Ctx,
        r: &Row,
        seen: &mut rustc_hash::FxHashSet<[u64; 3]>,
    ) -> Result<Vec<Triple>, SparqlError> {
        let base = self.fresh.get();
        if self.labels > 0 {
            self.fresh.set(base + self.labels as u64);
        }
        let mut bnodes: Vec<Option<oxrdf::BlankNode>> = Vec::new();
        let key = |x: &Slot3| -> Option<u64> {
            match x {
                Slot3::Const(id, _) => Some(*id),
                Slot3::Var(Some(s)) if r[*s] != UNBOUND => Some(r[*s]),
                Slot3::Var(_) => None,
                Slot3::Fresh(i) => Some(FRESH | (base + *i as u64)),
            }
        };
        let mut out = Vec::with_capacity(self.triples.len());
        for t in &self.triples {
            let (Some(ks), Some(kp), Some(ko)) = (key(&t[0]), key(&t[1]), key(&t[2])) else {
                continue;
            };
            let k = [ks, kp, ko];
            if seen.contains(&k) {
                continue;
            }
            let mut term = |x: &Slot3, id: u64| -> Result<Term, SparqlError> {
                Ok(match x {
                    Slot3::Const(_, t) => t.clone(),
                    Slot3::Fresh(i) => {
                        if bnodes.len() <= *i {
                            bnodes.resize(*i + 1, None);
                        }
                        bnodes[*i]
                            .get_or_insert_with(|| ctx.fresh_bnode())
                            .clone()
                            .into()
                    }
                    Slot3::Var(_) => ctx.term(id)?,
                })
            };
            let s = match term(&t[0], ks)? {
                Term::NamedNode(n) => NamedOrBlankNode::from(n),
                Term::BlankNode(b) => b.into(),
                _ => continue,
            };
            let Term::NamedNode(p) = term(&t[1], kp)? else {
                continue;
            };
            let o = term(&t[2], ko)?;
            // Only the id triple is kept (plus the hash table's share).
            ctx.charge(
                4 * size_of::<u64>(),
                "the CONSTRUCT result kept to remove duplicates",
            )?;
            seen.insert(k);
            out.push(Triple::new(s, p, o));
        }
        Ok(out)
    }
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
