//! Compiling spargebra algebra into native plans: variables become row slots (subqueries and
//! groups get their own scope), constants become ids, BGPs are ordered by index cardinalities.
//! Anything outside the native fragment is reported as [`Unsupported`] so the query runs on
//! the generic evaluator instead.

use super::compile_expr::{self, PatternPlanner};
use super::ctx::Ctx;
use super::plan::{
    all_slots, certain, ex_slots, inter_sets, minus_sets, tp_slots, union_sets, unsupported, Agg,
    AggKind, Compiled, PTerm, PathE, Plan, PlanError, Slot, Tp, Unsupported,
};
use super::row::{Id, UNBOUND};
use crate::SparqlError;
use oxrdf::{Term, Variable};
use rete_core::Pattern;
use rustc_hash::{FxHashMap, FxHashSet};
use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, GraphPattern, OrderExpression,
    PropertyPathExpression,
};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern};
use std::rc::Rc;

/// Variables → slots.
#[derive(Debug, Default, Clone)]
pub(super) struct Scope {
    map: FxHashMap<String, Slot>,
}

pub struct Planner<'a> {
    ctx: &'a Ctx,
    slots: usize,
}

impl PatternPlanner for Planner<'_> {
    type Scope = Scope;

    fn constant(&mut self, t: Term) -> Result<Id, PlanError> {
        Planner::constant(self, t)
    }

    fn slot(&mut self, scope: &mut Scope, name: &str) -> Slot {
        Planner::slot(self, scope, name)
    }

    fn compile(
        &mut self,
        scope: &mut Scope,
        p: &GraphPattern,
        bound: &[Slot],
    ) -> Result<Rc<Plan>, PlanError> {
        Planner::compile(self, scope, p, bound)
    }
}

impl<'a> Planner<'a> {
    pub fn new(ctx: &'a Ctx) -> Self {
        Self { ctx, slots: 0 }
    }

    pub(super) fn fresh(&mut self) -> Slot {
        self.slots += 1;
        self.slots - 1
    }

    pub(super) fn slot(&mut self, scope: &mut Scope, name: &str) -> Slot {
        if let Some(&s) = scope.map.get(name) {
            return s;
        }
        let s = self.fresh();
        scope.map.insert(name.to_owned(), s);
        s
    }

    /// `p` compiled, and the slots certainly bound after it: `bound` and those `p` binds.
    fn compile_then(
        &mut self,
        scope: &mut Scope,
        p: &GraphPattern,
        bound: &[Slot],
    ) -> Result<(Rc<Plan>, Vec<Slot>), PlanError> {
        let plan = self.compile(scope, p, bound)?;
        let after = union_sets(bound, &certain(&plan));
        Ok((plan, after))
    }

    /// `OPTIONAL`: `left`, then `right` (filtered by `expression`) where it matches.
    fn left_join(
        &mut self,
        scope: &mut Scope,
        left: &GraphPattern,
        right: &GraphPattern,
        expression: Option<&Expression>,
        bound: &[Slot],
    ) -> Result<Plan, PlanError> {
        let (l, lb) = self.compile_then(scope, left, bound)?;
        let r = self.compile(scope, right, &lb)?;
        let expr = expression
            .map(|e| compile_expr::expr(self, scope, e, &lb))
            .transpose()?;
        let mut used = all_slots(&r);
        if let Some(e) = &expr {
            ex_slots(e, &mut used);
        }
        let risky = minus_sets(&used, &certain(&l));
        Ok(Plan::LeftJoin {
            left: l,
            right: r,
            expr,
            risky,
        })
    }

    /// A new scope that sees only `variables` (with their slots in `scope`), and those slots.
    fn child_scope(&mut self, scope: &mut Scope, variables: &[Variable]) -> (Scope, Vec<Slot>) {
        let mut child = Scope::default();
        let mut slots = Vec::with_capacity(variables.len());
        for v in variables {
            let s = self.slot(scope, v.as_str());
            child.map.insert(v.as_str().to_owned(), s);
            slots.push(s);
        }
        (child, slots)
    }

    pub(super) fn constant(&mut self, t: Term) -> Result<Id, PlanError> {
        Ok(self.ctx.intern(t)?)
    }

    fn term(&mut self, scope: &mut Scope, t: &TermPattern) -> Result<PTerm, PlanError> {
        Ok(match t {
            TermPattern::Variable(v) => PTerm::Var(self.slot(scope, v.as_str())),
            TermPattern::BlankNode(b) => PTerm::Var(self.slot(scope, &format!("_:{}", b.as_str()))),
            TermPattern::NamedNode(n) => PTerm::Const(self.constant(n.clone().into())?),
            TermPattern::Literal(l) => PTerm::Const(self.constant(l.clone().into())?),
            #[allow(unreachable_patterns)]
            _ => return unsupported("RDF 1.2 triple terms"),
        })
    }

    fn named(&mut self, scope: &mut Scope, t: &NamedNodePattern) -> Result<PTerm, PlanError> {
        Ok(match t {
            NamedNodePattern::Variable(v) => PTerm::Var(self.slot(scope, v.as_str())),
            NamedNodePattern::NamedNode(n) => PTerm::Const(self.constant(n.clone().into())?),
        })
    }

    /// Compiles a whole query pattern; `projection` lists the SELECT variables.
    pub fn compile_query(
        mut self,
        pattern: &GraphPattern,
        select: bool,
    ) -> Result<Compiled, PlanError> {
        let mut scope = Scope::default();
        let (root, projection) = match (select, pattern) {
            // The top projection keeps its variables' names for the result.
            (true, _) => {
                let vars = top_projection(pattern)
                    .ok_or_else(|| PlanError::Unsupported(Unsupported("no projection".into())))?;
                let root = self.compile(&mut scope, pattern, &[])?;
                let projection = vars
                    .into_iter()
                    .map(|v| {
                        let s = self.slot(&mut scope, v.as_str());
                        (v, s)
                    })
                    .collect();
                (root, projection)
            }
            (false, _) => (self.compile(&mut scope, pattern, &[])?, Vec::new()),
        };
        Ok(Compiled {
            root,
            slots: self.slots,
            projection,
            top: scope.map,
        })
    }

    /// Compiles `p`; `bound` are slots certainly bound by the context (for join ordering).
    pub(super) fn compile(
        &mut self,
        scope: &mut Scope,
        p: &GraphPattern,
        bound: &[Slot],
    ) -> Result<Rc<Plan>, PlanError> {
        Ok(Rc::new(match p {
            GraphPattern::Bgp { patterns } => self.bgp(scope, patterns, bound)?,
            GraphPattern::Path {
                subject,
                path,
                object,
            } => {
                let s = self.term(scope, subject)?;
                let o = self.term(scope, object)?;
                let path = self.path(path)?;
                match path {
                    PathE::Pred(pid) => Plan::Bgp(vec![Tp {
                        s,
                        p: PTerm::Const(pid),
                        o,
                    }]),
                    PathE::Inv(inner) if matches!(*inner, PathE::Pred(_)) => {
                        let PathE::Pred(pid) = *inner else {
                            return unsupported("path");
                        };
                        Plan::Bgp(vec![Tp {
                            s: o,
                            p: PTerm::Const(pid),
                            o: s,
                        }])
                    }
                    path => Plan::Path { s, path, o },
                }
            }
            GraphPattern::Join { left, right } => {
                let (l, lb) = self.compile_then(scope, left, bound)?;
                let r = self.compile(scope, right, &lb)?;
                // Adjacent BGPs are one BGP (joins of triple patterns are associative).
                if let (Plan::Bgp(a), Plan::Bgp(b)) = (l.as_ref(), r.as_ref()) {
                    let mut all = a.clone();
                    all.extend(b.iter().copied());
                    return Ok(Rc::new(self.order_bgp(all, bound)?));
                }
                // Inline data first: its values then drive index probes.
                if matches!(r.as_ref(), Plan::Values { .. })
                    && !matches!(l.as_ref(), Plan::Values { .. })
                {
                    let vb = union_sets(bound, &certain(&r));
                    let l = self.compile(scope, left, &vb)?;
                    return Ok(Rc::new(Plan::Join(r, l)));
                }
                Plan::Join(l, r)
            }
            GraphPattern::LeftJoin {
                left,
                right,
                expression,
            } => self.left_join(scope, left, right, expression.as_ref(), bound)?,
            GraphPattern::Filter { expr, inner } => {
                let (inner, ib) = self.compile_then(scope, inner, bound)?;
                let expr = compile_expr::expr(self, scope, expr, &ib)?;
                let mut used = Vec::new();
                ex_slots(&expr, &mut used);
                let risky = minus_sets(&used, &certain(&inner));
                if let (true, Plan::Bgp(tps)) = (risky.is_empty(), inner.as_ref()) {
                    if let Some(pushed) = super::pushdown::push_into_bgp(tps, &expr) {
                        return Ok(Rc::new(pushed));
                    }
                }
                Plan::Filter { inner, expr, risky }
            }
            GraphPattern::Union { left, right } => Plan::Union(
                self.compile(scope, left, bound)?,
                self.compile(scope, right, bound)?,
            ),
            GraphPattern::Graph { name, inner } => {
                let name = self.named(scope, name)?;
                let mut b = bound.to_vec();
                if let PTerm::Var(s) = name {
                    b.push(s);
                }
                Plan::Graph {
                    name,
                    inner: self.compile(scope, inner, &b)?,
                }
            }
            GraphPattern::Extend {
                inner,
                variable,
                expression,
            } => {
                let (inner_plan, ib) = self.compile_then(scope, inner, bound)?;
                let e = compile_expr::expr(self, scope, expression, &ib)?;
                let slot = self.slot(scope, variable.as_str());
                // Flatten chains of BIND / SELECT expressions into one step.
                let (inner_plan, mut binds, risky0) = match Rc::try_unwrap(inner_plan) {
                    Ok(Plan::Extend {
                        inner,
                        binds,
                        risky,
                    }) => (inner, binds, risky),
                    Ok(other) => (Rc::new(other), Vec::new(), Vec::new()),
                    Err(rc) => (rc, Vec::new(), Vec::new()),
                };
                binds.push((slot, e));
                let mut used = Vec::new();
                for (s, e) in &binds {
                    used.push(*s);
                    ex_slots(e, &mut used);
                }
                let risky = union_sets(&risky0, &minus_sets(&used, &certain(&inner_plan)));
                Plan::Extend {
                    inner: inner_plan,
                    binds,
                    risky,
                }
            }
            GraphPattern::Minus { left, right } => {
                let l = self.compile(scope, left, bound)?;
                let r = self.compile(scope, right, &[])?;
                let shared = inter_sets(&certain(&l), &certain(&r));
                let risky = minus_sets(&all_slots(&r), &certain(&l));
                Plan::Minus {
                    left: l,
                    right: r,
                    shared,
                    risky,
                }
            }
            GraphPattern::Values {
                variables,
                bindings,
            } => {
                let slots: Vec<Slot> = variables
                    .iter()
                    .map(|v| self.slot(scope, v.as_str()))
                    .collect();
                let mut rows = Vec::with_capacity(bindings.len());
                for b in bindings {
                    let mut r = Vec::with_capacity(b.len());
                    for t in b {
                        r.push(match t {
                            None => UNBOUND,
                            Some(GroundTerm::NamedNode(n)) => self.constant(n.clone().into())?,
                            Some(GroundTerm::Literal(l)) => self.constant(l.clone().into())?,
                            #[allow(unreachable_patterns)]
                            Some(_) => return unsupported("RDF 1.2 triple terms"),
                        });
                    }
                    rows.push(r);
                }
                Plan::Values { slots, rows }
            }
            GraphPattern::OrderBy { inner, expression } => {
                let (inner, ib) = self.compile_then(scope, inner, bound)?;
                let mut keys = Vec::new();
                for o in expression {
                    let (e, desc) = match o {
                        OrderExpression::Asc(e) => (e, false),
                        OrderExpression::Desc(e) => (e, true),
                    };
                    keys.push((compile_expr::expr(self, scope, e, &ib)?, desc));
                }
                let outputs = all_slots(&inner);
                Plan::OrderBy {
                    inner,
                    keys,
                    limit: None,
                    outputs,
                }
            }
            GraphPattern::Project { inner, variables } => {
                // A new scope: the subquery's other variables are invisible outside.
                let (mut child, keep) = self.child_scope(scope, variables);
                let inner = self.compile(&mut child, inner, &[])?;
                Plan::Project { inner, keep }
            }
            GraphPattern::Distinct { inner } | GraphPattern::Reduced { inner } => {
                let inner = self.compile(scope, inner, bound)?;
                let outputs = all_slots(&inner);
                Plan::Distinct(inner, outputs)
            }
            GraphPattern::Slice {
                inner,
                start,
                length,
            } => {
                let inner = self.compile(scope, inner, bound)?;
                let outputs = all_slots(&inner);
                // ORDER BY + LIMIT: keep only the top rows while sorting.
                let inner = match (length, &*inner) {
                    (Some(len), Plan::Project { inner: pi, keep }) => match &**pi {
                        Plan::OrderBy {
                            inner: oi,
                            keys,
                            limit: None,
                            outputs,
                        } => Rc::new(Plan::Project {
                            inner: Rc::new(Plan::OrderBy {
                                inner: oi.clone(),
                                keys: keys.clone(),
                                limit: Some(start.saturating_add(*len)),
                                outputs: outputs.clone(),
                            }),
                            keep: keep.clone(),
                        }),
                        _ => inner,
                    },
                    _ => inner,
                };
                Plan::Slice {
                    inner,
                    start: *start,
                    len: *length,
                    outputs,
                }
            }
            GraphPattern::Group {
                inner,
                variables,
                aggregates,
            } => {
                let (mut child, keys) = self.child_scope(scope, variables);
                let inner = self.compile(&mut child, inner, &[])?;
                let ib = certain(&inner);
                let mut aggs = Vec::new();
                for (v, a) in aggregates {
                    let slot = self.slot(scope, v.as_str());
                    let agg = match a {
                        AggregateExpression::CountSolutions { distinct } => Agg {
                            kind: AggKind::Count,
                            distinct: *distinct,
                            expr: None,
                        },
                        AggregateExpression::FunctionCall {
                            name,
                            expr,
                            distinct,
                        } => Agg {
                            kind: match name {
                                AggregateFunction::Count => AggKind::Count,
                                AggregateFunction::Sum => AggKind::Sum,
                                AggregateFunction::Avg => AggKind::Avg,
                                AggregateFunction::Min => AggKind::Min,
                                AggregateFunction::Max => AggKind::Max,
                                AggregateFunction::Sample => AggKind::Sample,
                                AggregateFunction::GroupConcat { separator } => {
                                    AggKind::GroupConcat(separator.clone().unwrap_or(" ".into()))
                                }
                                AggregateFunction::Custom(n) => {
                                    return unsupported(format!("custom aggregate {n}"))
                                }
                            },
                            distinct: *distinct,
                            expr: Some(compile_expr::expr(self, &mut child, expr, &ib)?),
                        },
                    };
                    aggs.push((slot, agg));
                }
                Plan::Group { inner, keys, aggs }
            }
            GraphPattern::Service { .. } => return unsupported("SERVICE"),
            GraphPattern::Lateral { .. } => return unsupported("LATERAL"),
        }))
    }

    fn bgp(
        &mut self,
        scope: &mut Scope,
        patterns: &[TriplePattern],
        bound: &[Slot],
    ) -> Result<Plan, PlanError> {
        let mut tps = Vec::with_capacity(patterns.len());
        for t in patterns {
            tps.push(Tp {
                s: self.term(scope, &t.subject)?,
                p: self.named(scope, &t.predicate)?,
                o: self.term(scope, &t.object)?,
            });
        }
        self.order_bgp(tps, bound)
    }

    /// Greedy join order: start from the smallest pattern, then always take a pattern connected
    /// to what is bound, preferring more bound positions, then fewer matches.
    fn order_bgp(&mut self, mut tps: Vec<Tp>, bound: &[Slot]) -> Result<Plan, PlanError> {
        if tps.len() <= 1 {
            return Ok(Plan::Bgp(tps));
        }
        let mut counts = Vec::with_capacity(tps.len());
        for t in &tps {
            counts.push(self.count_const(t)?);
        }
        let mut bound: FxHashSet<Slot> = bound.iter().copied().collect();
        let mut out = Vec::with_capacity(tps.len());
        let mut idx: Vec<usize> = (0..tps.len()).collect();
        while !idx.is_empty() {
            let score = |i: usize| -> (u8, u8, u64) {
                let (bound_pos, vars, connected) = tps[i].bound_shape(|s| bound.contains(&s));
                let disconnected = u8::from(!connected && vars > 0 && !bound.is_empty());
                // The count covers the constants; each variable bound by earlier patterns
                // divides the matches further (a probe instead of a scan).
                let bound_vars = bound_pos - (3 - vars);
                let est = counts[i] >> (10 * u32::from(bound_vars).min(6));
                (disconnected, 3 - bound_pos.min(3), est)
            };
            let (k, _) = idx
                .iter()
                .enumerate()
                .min_by_key(|(_, &i)| {
                    let (d, b, est) = score(i);
                    (d, est, b)
                })
                .map(|(k, &i)| (k, i))
                .ok_or_else(|| PlanError::Error(SparqlError::Evaluation("empty BGP".into())))?;
            let i = idx.remove(k);
            bound.extend(tp_slots(&tps[i]));
            out.push(tps[i]);
        }
        tps.clear();
        Ok(Plan::Bgp(out))
    }

    /// Matches of the pattern's constants (variables as wildcards), from the index.
    fn count_const(&self, t: &Tp) -> Result<u64, PlanError> {
        let c = |x: PTerm| match x {
            PTerm::Const(i) => Some(i),
            PTerm::Var(_) => None,
        };
        let (s, p, o) = (c(t.s), c(t.p), c(t.o));
        if [s, p, o].iter().flatten().any(|&i| !self.ctx.in_dict(i)) {
            return Ok(0);
        }
        Ok(self.ctx.rete.count(&Pattern::new(s, p, o))?)
    }

    fn path(&mut self, p: &PropertyPathExpression) -> Result<PathE, PlanError> {
        Ok(match p {
            PropertyPathExpression::NamedNode(n) => PathE::Pred(self.constant(n.clone().into())?),
            PropertyPathExpression::Reverse(a) => PathE::Inv(Box::new(self.path(a)?)),
            PropertyPathExpression::Sequence(a, b) => {
                PathE::Seq(Box::new(self.path(a)?), Box::new(self.path(b)?))
            }
            PropertyPathExpression::Alternative(a, b) => {
                PathE::Alt(Box::new(self.path(a)?), Box::new(self.path(b)?))
            }
            PropertyPathExpression::ZeroOrMore(a) => PathE::Star(Box::new(self.path(a)?)),
            PropertyPathExpression::OneOrMore(a) => PathE::Plus(Box::new(self.path(a)?)),
            PropertyPathExpression::ZeroOrOne(a) => PathE::Opt(Box::new(self.path(a)?)),
            PropertyPathExpression::NegatedPropertySet(list) => {
                let mut ids = Vec::new();
                for n in list {
                    ids.push(self.constant(n.clone().into())?);
                }
                PathE::Neg(ids)
            }
        })
    }
}

/// The variables of the top-level projection of a SELECT pattern.
fn top_projection(p: &GraphPattern) -> Option<Vec<Variable>> {
    match p {
        GraphPattern::Project { variables, .. } => Some(variables.clone()),
        GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. } => top_projection(inner),
        _ => None,
    }
}
