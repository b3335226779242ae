//! Compiling spargebra algebra into native plans: variables become row slots (subqueries and
//! groups get their own scope), constants become ids, BGPs are ordered by index cardinalities.
//! Anything outside the native fragment is reported as [`Unsupported`] so the query runs on
//! the generic evaluator instead.

use super::ctx::{Ctx, Id, UNBOUND};
use super::expr::{Func, Op};
use crate::SparqlError;
use oxrdf::{Term, Variable};
use rete_core::Pattern;
use rustc_hash::{FxHashMap, FxHashSet};
use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, Function, GraphPattern, OrderExpression,
    PropertyPathExpression,
};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern};
use std::rc::Rc;

/// A row position.
pub type Slot = usize;

/// Why a query is not compiled natively.
#[derive(Debug)]
pub struct Unsupported(pub String);

/// Errors while planning: a real failure, or a construct left to the generic evaluator.
#[derive(Debug)]
pub enum PlanError {
    Unsupported(Unsupported),
    Error(SparqlError),
}

impl From<SparqlError> for PlanError {
    fn from(e: SparqlError) -> Self {
        Self::Error(e)
    }
}

impl From<rete_core::Error> for PlanError {
    fn from(e: rete_core::Error) -> Self {
        Self::Error(e.into())
    }
}

fn unsupported<T>(what: impl Into<String>) -> Result<T, PlanError> {
    Err(PlanError::Unsupported(Unsupported(what.into())))
}

/// A position of a triple pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PTerm {
    Const(Id),
    Var(Slot),
}

/// A triple pattern over slots and ids.
#[derive(Debug, Clone, Copy)]
pub struct Tp {
    pub s: PTerm,
    pub p: PTerm,
    pub o: PTerm,
}

/// A property path over ids.
#[derive(Debug, Clone)]
pub enum PathE {
    Pred(Id),
    Inv(Box<PathE>),
    Seq(Box<PathE>, Box<PathE>),
    Alt(Box<PathE>, Box<PathE>),
    Star(Box<PathE>),
    Plus(Box<PathE>),
    Opt(Box<PathE>),
    /// Any predicate but these (forward).
    Neg(Vec<Id>),
}

/// An aggregate function.
#[derive(Debug, Clone)]
pub enum AggKind {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Sample,
    GroupConcat(String),
}

/// An aggregate: `expr` is `None` for `COUNT(*)`.
#[derive(Debug, Clone)]
pub struct Agg {
    pub kind: AggKind,
    pub distinct: bool,
    pub expr: Option<Ex>,
}

/// An expression over slots.
#[derive(Debug, Clone)]
pub enum Ex {
    Const(Id),
    Var(Slot),
    Or(Box<Ex>, Box<Ex>),
    And(Box<Ex>, Box<Ex>),
    Not(Box<Ex>),
    Equal(Box<Ex>, Box<Ex>),
    SameTerm(Box<Ex>, Box<Ex>),
    /// `a cmp b` holds when the ordering of `a` vs `b` is one of the accepted ones.
    Cmp(Box<Ex>, Box<Ex>, [bool; 3]),
    In(Box<Ex>, Vec<Ex>),
    Arith(Op, Box<Ex>, Box<Ex>),
    Neg(Box<Ex>),
    Plus(Box<Ex>),
    Bound(Slot),
    If(Box<Ex>, Box<Ex>, Box<Ex>),
    Coalesce(Vec<Ex>),
    Exists(Rc<Plan>),
    Call(Func, Vec<Ex>),
    Regex(Box<Ex>, Rc<regex::Regex>),
    Replace(Box<Ex>, Rc<regex::Regex>, Box<Ex>),
    BNode(Option<Box<Ex>>),
}

/// A native plan node.
#[derive(Debug)]
pub enum Plan {
    /// Triple patterns joined in this order.
    Bgp(Vec<Tp>),
    Path {
        s: PTerm,
        path: PathE,
        o: PTerm,
    },
    Join(Rc<Plan>, Rc<Plan>),
    /// `risky`: slots that, bound by a parent, force bottom-up evaluation.
    LeftJoin {
        left: Rc<Plan>,
        right: Rc<Plan>,
        expr: Option<Ex>,
        risky: Vec<Slot>,
    },
    Filter {
        inner: Rc<Plan>,
        expr: Ex,
        risky: Vec<Slot>,
    },
    Union(Rc<Plan>, Rc<Plan>),
    Graph {
        name: PTerm,
        inner: Rc<Plan>,
    },
    Extend {
        inner: Rc<Plan>,
        binds: Vec<(Slot, Ex)>,
        risky: Vec<Slot>,
    },
    Minus {
        left: Rc<Plan>,
        right: Rc<Plan>,
        /// Slots certainly bound on both sides (hash keys).
        shared: Vec<Slot>,
        risky: Vec<Slot>,
    },
    Values {
        slots: Vec<Slot>,
        rows: Vec<Vec<Id>>,
    },
    /// Boundary nodes (subquery, aggregation, solution modifiers): `outputs` are the slots they
    /// bind.
    Project {
        inner: Rc<Plan>,
        keep: Vec<Slot>,
    },
    Distinct(Rc<Plan>, Vec<Slot>),
    Slice {
        inner: Rc<Plan>,
        start: usize,
        len: Option<usize>,
        outputs: Vec<Slot>,
    },
    OrderBy {
        inner: Rc<Plan>,
        keys: Vec<(Ex, bool)>,
        /// Only the first `limit` rows are needed (ORDER BY + LIMIT).
        limit: Option<usize>,
        outputs: Vec<Slot>,
    },
    Group {
        inner: Rc<Plan>,
        keys: Vec<Slot>,
        aggs: Vec<(Slot, Agg)>,
    },
}

/// Variables → slots.
#[derive(Debug, Default, Clone)]
struct Scope {
    map: FxHashMap<String, Slot>,
}

/// The compiled query.
#[derive(Debug)]
pub struct Compiled {
    pub root: Rc<Plan>,
    pub slots: usize,
    /// Projected variables and their slots (SELECT).
    pub projection: Vec<(Variable, Slot)>,
    /// Scope of the top level (CONSTRUCT templates).
    pub top: FxHashMap<String, Slot>,
}

pub struct Planner<'a> {
    ctx: &'a Ctx,
    slots: usize,
}

fn union_sets(a: &[Slot], b: &[Slot]) -> Vec<Slot> {
    let mut v: Vec<Slot> = a.iter().chain(b).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn inter_sets(a: &[Slot], b: &[Slot]) -> Vec<Slot> {
    let mut v: Vec<Slot> = a.iter().filter(|x| b.contains(x)).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn minus_sets(a: &[Slot], b: &[Slot]) -> Vec<Slot> {
    let mut v: Vec<Slot> = a.iter().filter(|x| !b.contains(x)).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn tp_slots(t: &Tp) -> impl Iterator<Item = Slot> {
    [t.s, t.p, t.o].into_iter().filter_map(|x| match x {
        PTerm::Var(s) => Some(s),
        PTerm::Const(_) => None,
    })
}

/// Slots certainly bound by every solution of `p`.
pub fn certain(p: &Plan) -> Vec<Slot> {
    match p {
        Plan::Bgp(tps) => {
            let v: Vec<Slot> = tps.iter().flat_map(tp_slots).collect();
            union_sets(&v, &[])
        }
        Plan::Path { s, o, .. } => tp_slots(&Tp {
            s: *s,
            p: PTerm::Const(UNBOUND),
            o: *o,
        })
        .collect::<Vec<_>>(),
        Plan::Join(a, b) => union_sets(&certain(a), &certain(b)),
        Plan::LeftJoin { left, .. } => certain(left),
        Plan::Filter { inner, .. } | Plan::Extend { inner, .. } => certain(inner),
        Plan::Union(a, b) => inter_sets(&certain(a), &certain(b)),
        Plan::Graph { name, inner } => match name {
            PTerm::Var(s) => union_sets(&certain(inner), &[*s]),
            PTerm::Const(_) => certain(inner),
        },
        Plan::Minus { left, .. } => certain(left),
        Plan::Values { slots, rows } => slots
            .iter()
            .enumerate()
            .filter(|(i, _)| rows.iter().all(|r| r[*i] != UNBOUND))
            .map(|(_, s)| *s)
            .collect(),
        Plan::Project { inner, keep } => inter_sets(&certain(inner), keep),
        Plan::Distinct(inner, _) | Plan::Slice { inner, .. } | Plan::OrderBy { inner, .. } => {
            certain(inner)
        }
        Plan::Group { .. } => Vec::new(),
    }
}

/// Every slot `p` may bind or read.
pub fn all_slots(p: &Plan) -> Vec<Slot> {
    let mut v = Vec::new();
    collect_slots(p, &mut v);
    union_sets(&v, &[])
}

fn collect_slots(p: &Plan, v: &mut Vec<Slot>) {
    match p {
        Plan::Bgp(tps) => v.extend(tps.iter().flat_map(tp_slots)),
        Plan::Path { s, o, .. } => {
            for t in [s, o] {
                if let PTerm::Var(x) = t {
                    v.push(*x);
                }
            }
        }
        Plan::Join(a, b) | Plan::Union(a, b) => {
            collect_slots(a, v);
            collect_slots(b, v);
        }
        Plan::LeftJoin {
            left, right, expr, ..
        } => {
            collect_slots(left, v);
            collect_slots(right, v);
            if let Some(e) = expr {
                ex_slots(e, v);
            }
        }
        Plan::Filter { inner, expr, .. } => {
            collect_slots(inner, v);
            ex_slots(expr, v);
        }
        Plan::Graph { name, inner } => {
            if let PTerm::Var(s) = name {
                v.push(*s);
            }
            collect_slots(inner, v);
        }
        Plan::Extend { inner, binds, .. } => {
            collect_slots(inner, v);
            for (s, e) in binds {
                v.push(*s);
                ex_slots(e, v);
            }
        }
        Plan::Minus { left, right, .. } => {
            collect_slots(left, v);
            collect_slots(right, v);
        }
        Plan::Values { slots, .. } => v.extend(slots),
        Plan::Project { keep, .. } => v.extend(keep),
        Plan::Distinct(_, outputs)
        | Plan::Slice { outputs, .. }
        | Plan::OrderBy { outputs, .. } => v.extend(outputs),
        Plan::Group { keys, aggs, .. } => {
            v.extend(keys);
            v.extend(aggs.iter().map(|(s, _)| *s));
        }
    }
}

/// Slots an expression reads (including inside EXISTS).
pub fn ex_slots(e: &Ex, v: &mut Vec<Slot>) {
    match e {
        Ex::Const(_) | Ex::BNode(None) => {}
        Ex::Var(s) | Ex::Bound(s) => v.push(*s),
        Ex::Or(a, b)
        | Ex::And(a, b)
        | Ex::Equal(a, b)
        | Ex::SameTerm(a, b)
        | Ex::Cmp(a, b, _)
        | Ex::Arith(_, a, b)
        | Ex::Replace(a, _, b) => {
            ex_slots(a, v);
            ex_slots(b, v);
        }
        Ex::Not(a) | Ex::Neg(a) | Ex::Plus(a) | Ex::Regex(a, _) | Ex::BNode(Some(a)) => {
            ex_slots(a, v)
        }
        Ex::In(a, l) => {
            ex_slots(a, v);
            for x in l {
                ex_slots(x, v);
            }
        }
        Ex::If(a, b, c) => {
            ex_slots(a, v);
            ex_slots(b, v);
            ex_slots(c, v);
        }
        Ex::Coalesce(l) | Ex::Call(_, l) => {
            for x in l {
                ex_slots(x, v);
            }
        }
        Ex::Exists(p) => collect_slots(p, v),
    }
}

impl<'a> Planner<'a> {
    pub fn new(ctx: &'a Ctx) -> Self {
        Self { ctx, slots: 0 }
    }

    fn fresh(&mut self) -> Slot {
        self.slots += 1;
        self.slots - 1
    }

    fn slot(&mut self, scope: &mut Scope, name: &str) -> Slot {
        if let Some(&s) = scope.map.get(name) {
            return s;
        }
        let s = self.fresh();
        scope.map.insert(name.to_owned(), s);
        s
    }

    fn constant(&mut self, t: Term) -> Result<Id, PlanError> {
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
    fn compile(
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
                let l = self.compile(scope, left, bound)?;
                let lb = union_sets(bound, &certain(&l));
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
            } => {
                let l = self.compile(scope, left, bound)?;
                let lb = union_sets(bound, &certain(&l));
                let r = self.compile(scope, right, &lb)?;
                let expr = match expression {
                    Some(e) => Some(self.expr(scope, e, &lb)?),
                    None => None,
                };
                let mut used = all_slots(&r);
                if let Some(e) = &expr {
                    ex_slots(e, &mut used);
                }
                let risky = minus_sets(&used, &certain(&l));
                Plan::LeftJoin {
                    left: l,
                    right: r,
                    expr,
                    risky,
                }
            }
            GraphPattern::Filter { expr, inner } => {
                let inner = self.compile(scope, inner, bound)?;
                let ib = union_sets(bound, &certain(&inner));
                let expr = self.expr(scope, expr, &ib)?;
                let mut used = Vec::new();
                ex_slots(&expr, &mut used);
                let risky = minus_sets(&used, &certain(&inner));
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
                let inner_plan = self.compile(scope, inner, bound)?;
                let ib = union_sets(bound, &certain(&inner_plan));
                let e = self.expr(scope, expression, &ib)?;
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
                let inner = self.compile(scope, inner, bound)?;
                let ib = union_sets(bound, &certain(&inner));
                let mut keys = Vec::new();
                for o in expression {
                    let (e, desc) = match o {
                        OrderExpression::Asc(e) => (e, false),
                        OrderExpression::Desc(e) => (e, true),
                    };
                    keys.push((self.expr(scope, e, &ib)?, desc));
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
                let mut child = Scope::default();
                let mut keep = Vec::new();
                for v in variables {
                    let s = self.slot(scope, v.as_str());
                    child.map.insert(v.as_str().to_owned(), s);
                    keep.push(s);
                }
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
                                limit: Some(start + len),
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
                let mut child = Scope::default();
                let mut keys = Vec::new();
                for v in variables {
                    let s = self.slot(scope, v.as_str());
                    child.map.insert(v.as_str().to_owned(), s);
                    keys.push(s);
                }
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
                            expr: Some(self.expr(&mut child, expr, &ib)?),
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
                let t = &tps[i];
                let mut bound_pos = 0u8;
                let mut vars = 0u8;
                let mut connected = false;
                for x in [t.s, t.p, t.o] {
                    match x {
                        PTerm::Const(_) => bound_pos += 1,
                        PTerm::Var(s) => {
                            vars += 1;
                            if bound.contains(&s) {
                                bound_pos += 1;
                                connected = true;
                            }
                        }
                    }
                }
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

    fn expr(&mut self, scope: &mut Scope, e: &Expression, bound: &[Slot]) -> Result<Ex, PlanError> {
        let b =
            |x: &Expression, this: &mut Self, scope: &mut Scope| -> Result<Box<Ex>, PlanError> {
                Ok(Box::new(this.expr(scope, x, bound)?))
            };
        Ok(match e {
            Expression::NamedNode(n) => Ex::Const(self.constant(n.clone().into())?),
            Expression::Literal(l) => Ex::Const(self.constant(l.clone().into())?),
            Expression::Variable(v) => Ex::Var(self.slot(scope, v.as_str())),
            Expression::Or(x, y) => Ex::Or(b(x, self, scope)?, b(y, self, scope)?),
            Expression::And(x, y) => Ex::And(b(x, self, scope)?, b(y, self, scope)?),
            Expression::Equal(x, y) => Ex::Equal(b(x, self, scope)?, b(y, self, scope)?),
            Expression::SameTerm(x, y) => Ex::SameTerm(b(x, self, scope)?, b(y, self, scope)?),
            Expression::Greater(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [false, false, true])
            }
            Expression::GreaterOrEqual(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [false, true, true])
            }
            Expression::Less(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [true, false, false])
            }
            Expression::LessOrEqual(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [true, true, false])
            }
            Expression::In(x, list) => {
                let mut l = Vec::with_capacity(list.len());
                for y in list {
                    l.push(self.expr(scope, y, bound)?);
                }
                Ex::In(b(x, self, scope)?, l)
            }
            Expression::Add(x, y) => Ex::Arith(Op::Add, b(x, self, scope)?, b(y, self, scope)?),
            Expression::Subtract(x, y) => {
                Ex::Arith(Op::Sub, b(x, self, scope)?, b(y, self, scope)?)
            }
            Expression::Multiply(x, y) => {
                Ex::Arith(Op::Mul, b(x, self, scope)?, b(y, self, scope)?)
            }
            Expression::Divide(x, y) => Ex::Arith(Op::Div, b(x, self, scope)?, b(y, self, scope)?),
            Expression::UnaryPlus(x) => Ex::Plus(b(x, self, scope)?),
            Expression::UnaryMinus(x) => Ex::Neg(b(x, self, scope)?),
            Expression::Not(x) => Ex::Not(b(x, self, scope)?),
            Expression::Exists(p) => Ex::Exists(self.compile(scope, p, bound)?),
            Expression::Bound(v) => Ex::Bound(self.slot(scope, v.as_str())),
            Expression::If(x, y, z) => {
                Ex::If(b(x, self, scope)?, b(y, self, scope)?, b(z, self, scope)?)
            }
            Expression::Coalesce(list) => {
                let mut l = Vec::with_capacity(list.len());
                for y in list {
                    l.push(self.expr(scope, y, bound)?);
                }
                Ex::Coalesce(l)
            }
            Expression::FunctionCall(f, args) => {
                let mut a = Vec::with_capacity(args.len());
                for y in args {
                    a.push(self.expr(scope, y, bound)?);
                }
                match f {
                    Function::Regex => {
                        let flags = match args.get(2) {
                            None => Some(String::new()),
                            Some(Expression::Literal(l)) => Some(l.value().to_owned()),
                            Some(_) => None,
                        };
                        match (args.get(1), flags) {
                            (Some(Expression::Literal(p)), Some(flags)) if args.len() <= 3 => {
                                let Some(re) = compile_regex(p.value(), &flags) else {
                                    return unsupported("invalid regular expression");
                                };
                                Ex::Regex(Box::new(a.swap_remove(0)), Rc::new(re))
                            }
                            _ => return unsupported("REGEX with a computed pattern"),
                        }
                    }
                    Function::Replace => {
                        let flags = match args.get(3) {
                            None => Some(String::new()),
                            Some(Expression::Literal(l)) => Some(l.value().to_owned()),
                            Some(_) => None,
                        };
                        match (args.get(1), flags) {
                            (Some(Expression::Literal(p)), Some(flags)) if args.len() >= 3 => {
                                let Some(re) = compile_regex(p.value(), &flags) else {
                                    return unsupported("invalid regular expression");
                                };
                                // An empty-matching pattern is an error in XPath replace.
                                if re.is_match("") {
                                    return unsupported(
                                        "REPLACE pattern matching the empty string",
                                    );
                                }
                                let repl = a.swap_remove(2);
                                Ex::Replace(Box::new(a.swap_remove(0)), Rc::new(re), Box::new(repl))
                            }
                            _ => return unsupported("REPLACE with a computed pattern"),
                        }
                    }
                    Function::BNode => Ex::BNode(a.pop().map(Box::new)),
                    other => match Func::from_spargebra(other) {
                        Some(func) => Ex::Call(func, a),
                        None => return unsupported(format!("function {other}")),
                    },
                }
            }
        })
    }
}

/// Translates XPath regex flags and compiles (`None` if the pattern or flags are invalid).
pub fn compile_regex(pattern: &str, flags: &str) -> Option<regex::Regex> {
    let mut b = regex::RegexBuilder::new(pattern);
    let mut literal = false;
    for f in flags.chars() {
        match f {
            'i' => {
                b.case_insensitive(true);
            }
            's' => {
                b.dot_matches_new_line(true);
            }
            'm' => {
                b.multi_line(true);
            }
            'x' => {
                b.ignore_whitespace(true);
            }
            'q' => literal = true,
            _ => return None,
        }
    }
    if literal {
        let mut b2 = regex::RegexBuilder::new(&regex::escape(pattern));
        b2.case_insensitive(flags.contains('i'));
        return b2.size_limit(1 << 20).build().ok();
    }
    b.size_limit(1 << 20).build().ok()
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
