//! Native operators: lazy iterators over rows of ids.
//!
//! `eval(plan, parent, graph)` returns the solutions of `plan` that are compatible with the
//! `parent` row, merged with it. Where substituting the parent's bindings cannot change the
//! answer (triple patterns, paths, joins, unions, and filters / binds / optionals whose
//! variables are certainly bound inside) the parent's values are used as constants, so joins
//! become index-nested-loop probes. Elsewhere the sub-plan is evaluated once on its own
//! (memoized) and joined with the parent: the algebra's bottom-up semantics is kept.

mod minus;
mod optional;
mod order;

use super::agg;
use super::bgp::{tps_at, BgpIter, Level};
use super::ctx::Ctx;
use super::expr;
use super::interp::{Exists, Interp};
use super::path;
use super::plan::{certain, inter_sets, Ex, PTerm, Plan, Slot};
use super::row::{merge, row_bytes, Active, Row, Rows, UNBOUND};
use crate::SparqlError;
use minus::MinusIndex;
use optional::{LeftJoinIter, Patterns, Race};
use oxrdf::Term;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

pub(super) fn once_err(e: SparqlError) -> Rows {
    Box::new(std::iter::once(Err(e)))
}

pub(super) fn empty() -> Rows {
    Box::new(std::iter::empty())
}

/// Evaluation context of one query.
#[derive(Debug, Clone)]
pub struct Engine {
    pub ctx: Rc<Ctx>,
    pub width: usize,
    /// Inside `EXISTS`: the current solution is substituted everywhere (filters and binds see
    /// the outer variables), as the spec's `substitute` defines it.
    pub substitute: bool,
}

impl Exists for Engine {
    fn exists(&self, plan: &Rc<Plan>, row: &Row, g: Active) -> Result<bool, SparqlError> {
        let sub = Engine {
            substitute: true,
            ..self.clone()
        };
        match sub.eval(plan, row.clone(), g).next() {
            Some(Ok(_)) => Ok(true),
            Some(Err(e)) => Err(e),
            None => Ok(false),
        }
    }
}

impl Patterns for Engine {
    fn ctx(&self) -> &Ctx {
        &self.ctx
    }

    fn eval(&self, plan: &Rc<Plan>, parent: Row, g: Active) -> Rows {
        Engine::eval(self, plan, parent, g)
    }

    fn empty_row(&self) -> Row {
        Engine::empty_row(self)
    }
}

impl Engine {
    /// The interpreter of expressions over rows (EXISTS evaluated by `self`).
    pub fn interp(&self) -> Interp<'_, Self> {
        Interp::new(&self.ctx, self)
    }

    pub fn empty_row(&self) -> Row {
        smallvec::smallvec![UNBOUND; self.width]
    }

    /// Solutions of `plan` compatible with `parent`, merged with it.
    pub fn eval(&self, plan: &Rc<Plan>, parent: Row, g: Active) -> Rows {
        match &**plan {
            Plan::Bgp(tps) => {
                if tps.is_empty() {
                    return Box::new(std::iter::once(Ok(parent)));
                }
                Box::new(BgpIter {
                    ctx: self.ctx.clone(),
                    tps: plan.clone(),
                    graph: g,
                    stack: vec![Level::open(&self.ctx, tps_at(plan, 0), &parent, g)],
                    rows: vec![parent],
                })
            }
            Plan::Path { s, path, o } => {
                let val = |t: &PTerm| match t {
                    PTerm::Const(c) => Some(*c),
                    PTerm::Var(v) => (parent[*v] != UNBOUND).then_some(parent[*v]),
                };
                // A value bound outside is a graph node or nothing: zero-length paths
                // match only nodes of the graph (constants of the query excepted).
                for t in [s, o] {
                    if let PTerm::Var(v) = t {
                        if parent[*v] != UNBOUND {
                            match path::is_node(&self.ctx, parent[*v], g) {
                                Ok(true) => {}
                                Ok(false) => return empty(),
                                Err(e) => return once_err(e),
                            }
                        }
                    }
                }
                let pairs = match path::pairs(&self.ctx, path, val(s), val(o), g) {
                    Ok(p) => p,
                    Err(e) => return once_err(e),
                };
                let (s, o) = (*s, *o);
                Box::new(pairs.into_iter().filter_map(move |(x, y)| {
                    let mut r = parent.clone();
                    for (t, v) in [(s, x), (o, y)] {
                        match t {
                            PTerm::Const(c) if c != v => return None,
                            PTerm::Const(_) => {}
                            PTerm::Var(slot) => {
                                if r[slot] == UNBOUND {
                                    r[slot] = v;
                                } else if r[slot] != v {
                                    return None;
                                }
                            }
                        }
                    }
                    Some(Ok(r))
                }))
            }
            Plan::Join(a, b) => {
                let this = self.clone();
                let b = b.clone();
                Box::new(FlatMap {
                    outer: self.eval(a, parent, g),
                    inner: None,
                    f: Box::new(move |row| this.eval(&b, row, g)),
                })
            }
            Plan::LeftJoin {
                left,
                right,
                expr,
                risky,
            } => {
                if !self.substitute && risky.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                // Rows of the right side evaluated on their own, from an earlier evaluation
                // of this OPTIONAL (e.g. under a join): no race to run again.
                let memo = self
                    .ctx
                    .memo
                    .borrow()
                    .get(&(Rc::as_ptr(right) as usize, g))
                    .cloned();
                let key = inter_sets(&certain(left), &certain(right));
                let race = if self.substitute || key.is_empty() || !matches!(**right, Plan::Bgp(_))
                {
                    Race::Off
                } else if let Some(rows) = memo {
                    Race::Memo(rows)
                } else {
                    Race::Waiting
                };
                Box::new(LeftJoinIter {
                    eng: self.clone(),
                    left: self.eval(left, parent, g),
                    right: right.clone(),
                    expr: expr.clone(),
                    g,
                    key,
                    seen: 0,
                    race,
                    out: Vec::new().into_iter(),
                })
            }
            Plan::Filter { inner, expr, risky } => {
                if !self.substitute && risky.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                let this = self.clone();
                let expr = expr.clone();
                Box::new(self.eval(inner, parent, g).filter_map(move |r| match r {
                    Ok(r) => match this.interp().truth(&expr, &r, g) {
                        Ok(true) => Some(Ok(r)),
                        Ok(false) => None,
                        Err(e) => Some(Err(e)),
                    },
                    Err(e) => Some(Err(e)),
                }))
            }
            Plan::Union(a, b) => {
                let this = self.clone();
                let b = b.clone();
                let p2 = parent.clone();
                Box::new(
                    self.eval(a, parent, g).chain(
                        std::iter::once(()).flat_map(move |()| this.eval(&b, p2.clone(), g)),
                    ),
                )
            }
            Plan::Graph { name, inner } => self.graph(name, inner, parent),
            Plan::Extend { inner, risky, .. } => {
                if !self.substitute && risky.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                let this = self.clone();
                let plan = plan.clone();
                Box::new(self.eval(inner, parent, g).filter_map(move |r| {
                    let Plan::Extend { binds, .. } = &*plan else {
                        return None;
                    };
                    match r {
                        Ok(r) => this.extend(binds, r, g).transpose(),
                        Err(e) => Some(Err(e)),
                    }
                }))
            }
            Plan::Minus {
                left,
                right,
                shared,
                risky,
            } => {
                if !self.substitute && risky.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                let rows = match self.memo(right, g) {
                    Ok(r) => r,
                    Err(e) => return once_err(e),
                };
                let mut held = self.ctx.held("the index of MINUS");
                if let Err(e) = held.grow(rows.len() * (row_bytes(shared.len()) + 16)) {
                    return once_err(e);
                }
                let index = MinusIndex::new(&rows, shared);
                Box::new(self.eval(left, parent, g).filter(move |r| match r {
                    Ok(a) => {
                        let _ = &held;
                        !index.removes(&rows, a)
                    }
                    Err(_) => true,
                }))
            }
            Plan::Values { slots, rows } => {
                let slots = slots.clone();
                let plan = plan.clone();
                let n = rows.len();
                Box::new((0..n).filter_map(move |i| {
                    let Plan::Values { rows, .. } = &*plan else {
                        return None;
                    };
                    let mut r = parent.clone();
                    for (&s, &v) in slots.iter().zip(&rows[i]) {
                        if v == UNBOUND {
                            continue;
                        }
                        if r[s] == UNBOUND {
                            r[s] = v;
                        } else if r[s] != v {
                            return None;
                        }
                    }
                    Some(Ok(r))
                }))
            }
            Plan::Project { inner, keep } => {
                if keep.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                let keep = keep.clone();
                let base = parent.clone();
                Box::new(self.eval(inner, parent, g).map(move |r| {
                    let r = r?;
                    let mut out = base.clone();
                    for &s in &keep {
                        out[s] = r[s];
                    }
                    Ok(out)
                }))
            }
            Plan::Distinct(inner, outputs) => {
                if outputs.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                let mut seen: FxHashSet<Row> = FxHashSet::default();
                let mut held = self.ctx.held("the rows of DISTINCT");
                let bytes = row_bytes(self.width) + 8;
                Box::new(self.eval(inner, parent, g).filter_map(move |r| match r {
                    Ok(r) => {
                        if seen.contains(&r) {
                            return None;
                        }
                        if let Err(e) = held.grow(bytes) {
                            return Some(Err(e));
                        }
                        seen.insert(r.clone());
                        Some(Ok(r))
                    }
                    Err(e) => Some(Err(e)),
                }))
            }
            Plan::Slice {
                inner,
                start,
                len,
                outputs,
            } => {
                if outputs.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                let it = self.eval(inner, parent, g).skip(*start);
                match len {
                    Some(n) => Box::new(it.take(*n)),
                    None => Box::new(it),
                }
            }
            Plan::OrderBy {
                inner,
                keys,
                limit,
                outputs,
            } => {
                if outputs.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                match order::order_by(
                    &self.interp(),
                    self.width,
                    self.eval(inner, parent, g),
                    keys,
                    *limit,
                    g,
                ) {
                    Ok(rows) => Box::new(rows.into_iter().map(Ok)),
                    Err(e) => once_err(e),
                }
            }
            Plan::Group { inner, keys, aggs } => {
                if keys
                    .iter()
                    .chain(aggs.iter().map(|(s, _)| s))
                    .any(|&s| parent[s] != UNBOUND)
                {
                    return self.bottom_up(plan, parent, g);
                }
                let input = || self.eval(inner, parent.clone(), g);
                match agg::group(&self.interp(), inner, input, keys, aggs, &parent, g) {
                    Ok(rows) => Box::new(rows.into_iter().map(Ok)),
                    Err(e) => once_err(e),
                }
            }
        }
    }

    /// Evaluates `plan` on its own (once per graph) and joins the result with `parent`.
    fn bottom_up(&self, plan: &Rc<Plan>, parent: Row, g: Active) -> Rows {
        match self.memo(plan, g) {
            Ok(rows) => {
                let n = rows.len();
                Box::new((0..n).filter_map(move |i| merge(&parent, &rows[i]).map(Ok)))
            }
            Err(e) => once_err(e),
        }
    }

    /// All solutions of `plan` with no outside bindings, computed once.
    fn memo(&self, plan: &Rc<Plan>, g: Active) -> Result<Rc<Vec<Row>>, SparqlError> {
        let key = (Rc::as_ptr(plan) as usize, g);
        if let Some(r) = self.ctx.memo.borrow().get(&key) {
            return Ok(r.clone());
        }
        let mut rows = Vec::new();
        let mut held = self
            .ctx
            .held("the rows of a sub-pattern evaluated on its own");
        for r in self.eval(plan, self.empty_row(), g) {
            rows.push(r?);
            held.grow(row_bytes(self.width))?;
        }
        // Memoized rows live as long as the query.
        held.keep();
        let rows = Rc::new(rows);
        self.ctx.memo.borrow_mut().insert(key, rows.clone());
        Ok(rows)
    }

    fn graph(&self, name: &PTerm, inner: &Rc<Plan>, parent: Row) -> Rows {
        let graphs = match self.ctx.named_graphs() {
            Ok(g) => g.to_vec(),
            Err(e) => return once_err(e),
        };
        match *name {
            PTerm::Const(c) => {
                if graphs.binary_search(&c).is_ok() {
                    self.eval(inner, parent, Active::Named(c))
                } else {
                    empty()
                }
            }
            PTerm::Var(s) if parent[s] != UNBOUND => {
                let c = parent[s];
                if graphs.binary_search(&c).is_ok() {
                    self.eval(inner, parent, Active::Named(c))
                } else {
                    empty()
                }
            }
            PTerm::Var(s) => {
                let this = self.clone();
                let inner = inner.clone();
                Box::new(graphs.into_iter().flat_map(move |gid| {
                    this.eval(&inner, parent.clone(), Active::Named(gid))
                        .filter_map(move |r| match r {
                            Ok(mut r) => {
                                if r[s] == UNBOUND {
                                    r[s] = gid;
                                } else if r[s] != gid {
                                    return None;
                                }
                                Some(Ok(r))
                            }
                            Err(e) => Some(Err(e)),
                        })
                }))
            }
        }
    }

    /// Applies BIND steps to one row (`None`: the row is dropped because a bound value clashes).
    fn extend(
        &self,
        binds: &[(Slot, Ex)],
        mut r: Row,
        g: Active,
    ) -> Result<Option<Row>, SparqlError> {
        let interp = self.interp();
        let mut bnodes = FxHashMap::default();
        for (slot, e) in binds {
            let v = if self.ctx.is_free(*slot)
                && !matches!(
                    e,
                    Ex::Var(_)
                        | Ex::Const(_)
                        | Ex::BNode(_)
                        | Ex::If(..)
                        | Ex::Coalesce(_)
                        | Ex::Call(expr::Func::StrDt, _)
                ) {
                interp
                    .value_owned(e, &r, g)?
                    .map(|v| self.ctx.intern_unchecked(v.into()))
            } else {
                interp.value_id(e, &r, g, &mut bnodes)?
            };
            match v {
                None => {}
                Some(v) if r[*slot] == UNBOUND => r[*slot] = v,
                Some(v) if r[*slot] == v => {}
                Some(_) => return Ok(None),
            }
        }
        Ok(Some(r))
    }
}

/// Flat map over rows with a fallible outer stream.
struct FlatMap {
    outer: Rows,
    inner: Option<Rows>,
    f: Box<dyn Fn(Row) -> Rows>,
}

impl Iterator for FlatMap {
    type Item = Result<Row, SparqlError>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(inner) = &mut self.inner {
                if let Some(x) = inner.next() {
                    return Some(x);
                }
                self.inner = None;
            }
            match self.outer.next()? {
                Ok(row) => self.inner = Some((self.f)(row)),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Decodes a row's projected slots into terms (for the final projection only: each row once).
pub fn decode(ctx: &Ctx, r: &Row, slots: &[Slot]) -> Result<Vec<Option<Term>>, SparqlError> {
    slots
        .iter()
        .map(|&s| {
            if r[s] == UNBOUND {
                Ok(None)
            } else {
                if slots.iter().filter(|&&x| x == s).count() == 1 {
                    ctx.take(r[s]).map(Some)
                } else {
                    ctx.term(r[s]).map(Some)
                }
            }
        })
        .collect()
}
