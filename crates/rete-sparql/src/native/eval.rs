//! Native operators: lazy iterators over rows of ids.
//!
//! `eval(plan, parent, graph)` returns the solutions of `plan` that are compatible with the
//! `parent` row, merged with it. Where substituting the parent's bindings cannot change the
//! answer (triple patterns, paths, joins, unions, and filters / binds / optionals whose
//! variables are certainly bound inside) the parent's values are used as constants, so joins
//! become index-nested-loop probes. Elsewhere the sub-plan is evaluated once on its own
//! (memoized) and joined with the parent: the algebra's bottom-up semantics is kept.

use super::ctx::{Active, Ctx, Id, Row, UNBOUND};
use super::expr::{self, ebv};
use super::path;
use super::plan::{Agg, AggKind, Ex, PTerm, Plan, Slot, Tp};
use crate::SparqlError;
use oxrdf::Term;
use oxsdatatypes::{Decimal, Double, Float, Integer};
use rete_core::{GraphMatch, Pattern, QuadIter};
use rustc_hash::{FxHashMap, FxHashSet};
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;
use std::rc::Rc;

/// A stream of rows.
pub type Rows = Box<dyn Iterator<Item = Result<Row, SparqlError>>>;

fn once_err(e: SparqlError) -> Rows {
    Box::new(std::iter::once(Err(e)))
}

fn empty() -> Rows {
    Box::new(std::iter::empty())
}

/// Merges `b` into `a` if compatible.
pub fn merge(a: &Row, b: &Row) -> Option<Row> {
    let mut out = a.clone();
    for (x, &y) in out.iter_mut().zip(b) {
        if y != UNBOUND {
            if *x == UNBOUND {
                *x = y;
            } else if *x != y {
                return None;
            }
        }
    }
    Some(out)
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

impl Engine {
    pub fn empty_row(&self) -> Row {
        vec![UNBOUND; self.width]
    }

    pub fn graph_match(a: Active) -> GraphMatch {
        match a {
            Active::Default => GraphMatch::Default,
            Active::Named(g) => GraphMatch::Named(g),
        }
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
                    graph: Self::graph_match(g),
                    stack: vec![Level::start(self, tps_at(plan, 0), &parent, g)],
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
                            match path::is_node(self, parent[*v], g) {
                                Ok(true) => {}
                                Ok(false) => return empty(),
                                Err(e) => return once_err(e),
                            }
                        }
                    }
                }
                let pairs = match path::pairs(self, path, val(s), val(o), g) {
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
                let this = self.clone();
                let right = right.clone();
                let expr = expr.clone();
                Box::new(FlatMap {
                    outer: self.eval(left, parent, g),
                    inner: None,
                    f: Box::new(move |row: Row| -> Rows {
                        let mut out = Vec::new();
                        for r in this.eval(&right, row.clone(), g) {
                            let r = match r {
                                Ok(r) => r,
                                Err(e) => return once_err(e),
                            };
                            let keep = match &expr {
                                None => true,
                                Some(e) => match this.truth(e, &r, g) {
                                    Ok(b) => b,
                                    Err(e) => return once_err(e),
                                },
                            };
                            if keep {
                                out.push(Ok(r));
                            }
                        }
                        if out.is_empty() {
                            out.push(Ok(row));
                        }
                        Box::new(out.into_iter())
                    }),
                })
            }
            Plan::Filter { inner, expr, risky } => {
                if !self.substitute && risky.iter().any(|&s| parent[s] != UNBOUND) {
                    return self.bottom_up(plan, parent, g);
                }
                let this = self.clone();
                let expr = expr.clone();
                Box::new(self.eval(inner, parent, g).filter_map(move |r| match r {
                    Ok(r) => match this.truth(&expr, &r, g) {
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
                let index = MinusIndex::new(&rows, shared);
                Box::new(self.eval(left, parent, g).filter(move |r| match r {
                    Ok(a) => !index.removes(&rows, a),
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
                let ctx = self.ctx.clone();
                let width = self.width;
                Box::new(self.eval(inner, parent, g).filter_map(move |r| match r {
                    Ok(r) => {
                        if seen.contains(&r) {
                            return None;
                        }
                        if let Err(e) = ctx.bound(seen.len() + 1, width) {
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
                match self.order_by(inner, keys, *limit, parent, g) {
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
                match self.group(inner, keys, aggs, parent, g) {
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
        for r in self.eval(plan, self.empty_row(), g) {
            rows.push(r?);
            self.ctx.bound(rows.len(), self.width)?;
        }
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
        let mut bnodes = FxHashMap::default();
        for (slot, e) in binds {
            let v = if self.ctx.is_free(*slot)
                && !matches!(
                    e,
                    Ex::Var(_) | Ex::Const(_) | Ex::BNode(_) | Ex::If(..) | Ex::Coalesce(_)
                ) {
                self.value(e, &r, g)?
                    .map(|v| self.ctx.intern_unchecked(Rc::unwrap_or_clone(v).into()))
            } else {
                self.value_id(e, &r, g, &mut bnodes)?
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

    /// The id of an expression's value (`None` on error / unbound).
    pub fn value_id(
        &self,
        e: &Ex,
        r: &Row,
        g: Active,
        bnodes: &mut FxHashMap<String, Id>,
    ) -> Result<Option<Id>, SparqlError> {
        match e {
            Ex::Var(s) => Ok((r[*s] != UNBOUND).then_some(r[*s])),
            Ex::Const(c) => Ok(Some(*c)),
            Ex::BNode(arg) => {
                let key = match arg {
                    None => None,
                    Some(a) => match self.value(a, r, g)? {
                        Some(v) => match &*v {
                            E::StringLiteral(s) => Some(s.clone()),
                            _ => return Ok(None),
                        },
                        None => return Ok(None),
                    },
                };
                if let Some(k) = &key {
                    if let Some(&id) = bnodes.get(k) {
                        return Ok(Some(id));
                    }
                }
                let id = self.ctx.intern(self.ctx.fresh_bnode().into())?;
                if let Some(k) = key {
                    bnodes.insert(k, id);
                }
                Ok(Some(id))
            }
            Ex::If(c, a, b) => match self.value(c, r, g)?.as_deref().and_then(ebv) {
                Some(true) => self.value_id(a, r, g, bnodes),
                Some(false) => self.value_id(b, r, g, bnodes),
                None => Ok(None),
            },
            Ex::Coalesce(list) => {
                for x in list {
                    if let Some(v) = self.value_id(x, r, g, bnodes)? {
                        return Ok(Some(v));
                    }
                }
                Ok(None)
            }
            other => match self.value(other, r, g)? {
                Some(v) => Ok(Some(self.ctx.intern_expr(Rc::unwrap_or_clone(v))?)),
                None => Ok(None),
            },
        }
    }

    /// Whether a filter expression holds (errors count as false).
    pub fn truth(&self, e: &Ex, r: &Row, g: Active) -> Result<bool, SparqlError> {
        Ok(self.value(e, r, g)?.as_deref().and_then(ebv) == Some(true))
    }

    fn operand(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<Rc<E>>, SparqlError> {
        self.value(e, r, g)
    }

    /// The value of an expression (`None` on error / unbound).
    pub fn value(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<Rc<E>>, SparqlError> {
        match e {
            Ex::Const(c) => Ok(Some(self.ctx.expr(*c)?)),
            Ex::Var(s) => {
                if r[*s] == UNBOUND {
                    Ok(None)
                } else {
                    Ok(Some(self.ctx.expr(r[*s])?))
                }
            }
            Ex::If(c, a, b) => match self.value(c, r, g)?.as_deref().and_then(ebv) {
                Some(true) => self.value(a, r, g),
                Some(false) => self.value(b, r, g),
                None => Ok(None),
            },
            Ex::Coalesce(list) => {
                for x in list {
                    if let Some(v) = self.value(x, r, g)? {
                        return Ok(Some(v));
                    }
                }
                Ok(None)
            }
            _ => Ok(self.compute(e, r, g)?.map(Rc::new)),
        }
    }

    /// The value of a non-trivial expression.
    fn compute(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<E>, SparqlError> {
        Ok(match e {
            Ex::Const(_) | Ex::Var(_) | Ex::If(..) | Ex::Coalesce(_) => {
                self.value(e, r, g)?.map(Rc::unwrap_or_clone)
            }
            Ex::Or(a, b) => {
                let x = self.value(a, r, g)?.as_deref().and_then(ebv);
                if x == Some(true) {
                    return Ok(Some(expr::boolean(true)));
                }
                let y = self.value(b, r, g)?.as_deref().and_then(ebv);
                match (x, y) {
                    (_, Some(true)) => Some(expr::boolean(true)),
                    (Some(false), Some(false)) => Some(expr::boolean(false)),
                    _ => None,
                }
            }
            Ex::And(a, b) => {
                let x = self.value(a, r, g)?.as_deref().and_then(ebv);
                if x == Some(false) {
                    return Ok(Some(expr::boolean(false)));
                }
                let y = self.value(b, r, g)?.as_deref().and_then(ebv);
                match (x, y) {
                    (_, Some(false)) => Some(expr::boolean(false)),
                    (Some(true), Some(true)) => Some(expr::boolean(true)),
                    _ => None,
                }
            }
            Ex::Not(a) => self
                .value(a, r, g)?
                .as_deref()
                .and_then(ebv)
                .map(|b| expr::boolean(!b)),
            Ex::Equal(a, b) => {
                // Same id: same term, so equal (NaN aside, which the value path handles).
                if let (Ex::Var(_) | Ex::Const(_), Ex::Var(_) | Ex::Const(_)) = (&**a, &**b) {
                    let id = |x: &Ex| match x {
                        Ex::Var(s) => r[*s],
                        Ex::Const(c) => *c,
                        _ => UNBOUND,
                    };
                    let (x, y) = (id(a), id(b));
                    if x == UNBOUND || y == UNBOUND {
                        return Ok(None);
                    }
                    if x == y {
                        let t = self.ctx.expr(x)?;
                        return Ok(expr::equals(&t, &t).map(expr::boolean));
                    }
                }
                match (self.operand(a, r, g)?, self.operand(b, r, g)?) {
                    (Some(x), Some(y)) => expr::equals(&x, &y).map(expr::boolean),
                    _ => None,
                }
            }
            Ex::SameTerm(a, b) => {
                let mut scratch = FxHashMap::default();
                match (
                    self.value_id(a, r, g, &mut scratch)?,
                    self.value_id(b, r, g, &mut scratch)?,
                ) {
                    (Some(x), Some(y)) => Some(expr::boolean(x == y)),
                    _ => None,
                }
            }
            Ex::Cmp(a, b, accept) => match (self.operand(a, r, g)?, self.operand(b, r, g)?) {
                (Some(x), Some(y)) => expr::partial_cmp(&x, &y).map(|o| {
                    expr::boolean(match o {
                        Ordering::Less => accept[0],
                        Ordering::Equal => accept[1],
                        Ordering::Greater => accept[2],
                    })
                }),
                _ => None,
            },
            Ex::In(a, list) => {
                let Some(x) = self.value(a, r, g)? else {
                    return Ok(None);
                };
                let mut error = false;
                for y in list {
                    match self.value(y, r, g)?.and_then(|y| expr::equals(&x, &y)) {
                        Some(true) => return Ok(Some(expr::boolean(true))),
                        Some(false) => {}
                        None => error = true,
                    }
                }
                if error {
                    None
                } else {
                    Some(expr::boolean(false))
                }
            }
            Ex::Arith(op, a, b) => match (self.value(a, r, g)?, self.value(b, r, g)?) {
                (Some(x), Some(y)) => expr::arith(*op, &x, &y),
                _ => None,
            },
            Ex::Neg(a) => self.value(a, r, g)?.and_then(|x| expr::negate(&x)),
            Ex::Plus(a) => self
                .value(a, r, g)?
                .filter(|x| expr::is_numeric(x))
                .map(Rc::unwrap_or_clone),
            Ex::Bound(s) => Some(expr::boolean(r[*s] != UNBOUND)),
            Ex::Exists(p) => {
                let sub = Engine {
                    substitute: true,
                    ..self.clone()
                };
                let found = match sub.eval(p, r.clone(), g).next() {
                    Some(Ok(_)) => true,
                    Some(Err(e)) => return Err(e),
                    None => false,
                };
                Some(expr::boolean(found))
            }
            Ex::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    match self.value(a, r, g)? {
                        Some(v) => vals.push(v),
                        None => return Ok(None),
                    }
                }
                expr::call(*f, &vals)
            }
            Ex::Regex(a, re) => match self.value(a, r, g)?.as_deref() {
                Some(E::StringLiteral(s)) | Some(E::LangStringLiteral { value: s, .. }) => {
                    Some(expr::boolean(re.is_match(s)))
                }
                _ => None,
            },
            Ex::Replace(a, re, repl) => {
                let v = self.value(a, r, g)?;
                let (s, lang) = match v.as_deref() {
                    Some(E::StringLiteral(s)) => (s.as_str(), None),
                    Some(E::LangStringLiteral { value, language }) => {
                        (value.as_str(), Some(language.clone()))
                    }
                    _ => return Ok(None),
                };
                let rv = self.value(repl, r, g)?;
                let Some(E::StringLiteral(rep)) = rv.as_deref() else {
                    return Ok(None);
                };
                // XPath uses $1, the regex crate ${1}; `\$` escapes a dollar in XPath.
                let rep = xpath_replacement(rep);
                let out = re.replace_all(s, rep.as_str()).into_owned();
                Some(match lang {
                    Some(language) => E::LangStringLiteral {
                        value: out,
                        language,
                    },
                    None => E::StringLiteral(out),
                })
            }
            Ex::BNode(_) => {
                let mut scratch = FxHashMap::default();
                match self.value_id(e, r, g, &mut scratch)? {
                    Some(id) => Some((*self.ctx.expr(id)?).clone()),
                    None => None,
                }
            }
        })
    }

    fn order_by(
        &self,
        inner: &Rc<Plan>,
        keys: &[(Ex, bool)],
        limit: Option<usize>,
        parent: Row,
        g: Active,
    ) -> Result<Vec<Row>, SparqlError> {
        type Keyed = (Vec<Option<Rc<E>>>, u64, Row);
        let cmp = |a: &Keyed, b: &Keyed| -> Ordering {
            for (i, (_, desc)) in keys.iter().enumerate() {
                let o = expr::order(a.0[i].as_deref(), b.0[i].as_deref());
                let o = if *desc { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            // Stable: input order breaks ties.
            a.1.cmp(&b.1)
        };
        let mut rows: Vec<Keyed> = Vec::new();
        for (n, r) in (0u64..).zip(self.eval(inner, parent, g)) {
            let r = r?;
            self.ctx.check()?;
            let mut k = Vec::with_capacity(keys.len());
            for (e, _) in keys {
                k.push(match e {
                    Ex::Var(s) if r[*s] == UNBOUND => None,
                    Ex::Var(s) => Some(self.ctx.expr(r[*s])?),
                    e => self.value(e, &r, g)?,
                });
            }
            rows.push((k, n, r));
            if let Some(l) = limit {
                // Keep the best `l` rows: sort and cut whenever the buffer doubles.
                if rows.len() >= 2 * l.max(64) {
                    rows.sort_by(cmp);
                    rows.truncate(l);
                }
            }
            self.ctx.bound(rows.len(), self.width)?;
        }
        rows.sort_by(cmp);
        if let Some(l) = limit {
            rows.truncate(l);
        }
        Ok(rows.into_iter().map(|(_, _, r)| r).collect())
    }

    fn group(
        &self,
        inner: &Rc<Plan>,
        keys: &[Slot],
        aggs: &[(Slot, Agg)],
        parent: Row,
        g: Active,
    ) -> Result<Vec<Row>, SparqlError> {
        // COUNT(*) of one triple pattern without grouping: read it off the index.
        if keys.is_empty() && aggs.len() == 1 {
            if let (
                Plan::Bgp(tps),
                Agg {
                    kind: AggKind::Count,
                    distinct: false,
                    expr: None,
                },
            ) = (&**inner, &aggs[0].1)
            {
                if let Some(n) = self.fast_count(tps, &parent, g)? {
                    let mut r = parent;
                    r[aggs[0].0] = self.ctx.intern_expr(expr::integer(n as i64))?;
                    return Ok(vec![r]);
                }
            }
        }
        let mut groups: FxHashMap<Vec<Id>, Vec<Acc>> = FxHashMap::default();
        let mut order: Vec<Vec<Id>> = Vec::new();
        let new_accs = || aggs.iter().map(|(_, a)| Acc::new(a)).collect::<Vec<_>>();
        for r in self.eval(inner, parent.clone(), g) {
            let r = r?;
            self.ctx.check()?;
            let key: Vec<Id> = keys.iter().map(|&s| r[s]).collect();
            let accs = match groups.get_mut(&key) {
                Some(a) => a,
                None => {
                    order.push(key.clone());
                    self.ctx.bound(order.len(), keys.len() + aggs.len())?;
                    groups.entry(key).or_insert_with(new_accs)
                }
            };
            for (acc, (_, agg)) in accs.iter_mut().zip(aggs) {
                acc.add(self, agg, &r, g)?;
            }
        }
        if keys.is_empty() && groups.is_empty() {
            order.push(Vec::new());
            groups.insert(Vec::new(), new_accs());
        }
        let mut out = Vec::with_capacity(order.len());
        for key in order {
            let Some(accs) = groups.remove(&key) else {
                continue;
            };
            let mut row = parent.clone();
            for (&s, &v) in keys.iter().zip(&key) {
                row[s] = v;
            }
            for (acc, (slot, agg)) in accs.into_iter().zip(aggs) {
                if let Some(v) = acc.finish(agg) {
                    row[*slot] = self.ctx.intern_expr(v)?;
                }
            }
            out.push(row);
        }
        Ok(out)
    }

    /// The number of solutions of a one-pattern BGP, from block counts, when every variable
    /// occurs once and the graph is the default one or any.
    fn fast_count(&self, tps: &[Tp], parent: &Row, g: Active) -> Result<Option<u64>, SparqlError> {
        let [t] = tps else { return Ok(None) };
        let mut seen = Vec::new();
        let mut pos = [None; 3];
        for (i, x) in [t.s, t.p, t.o].into_iter().enumerate() {
            match x {
                PTerm::Const(c) => {
                    if !self.ctx.in_dict(c) {
                        return Ok(Some(0));
                    }
                    pos[i] = Some(c);
                }
                PTerm::Var(s) => {
                    if parent[s] != UNBOUND || seen.contains(&s) {
                        return Ok(None);
                    }
                    seen.push(s);
                }
            }
        }
        let pattern = Pattern::new(pos[0], pos[1], pos[2]);
        // Block counts cover every graph: usable when there are no named graphs.
        if g != Active::Default || !self.ctx.named_graphs()?.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.ctx.rete.count(&pattern)?))
    }
}

fn xpath_replacement(rep: &str) -> String {
    let mut out = String::with_capacity(rep.len());
    let mut chars = rep.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    if n == '$' {
                        out.push_str("$$");
                    } else {
                        out.push(n);
                    }
                }
            }
            '$' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                out.push_str(&format!("${{{digits}}}"));
            }
            c => out.push(c),
        }
    }
    out
}

/// Aggregate state.
enum Acc {
    Count(u64, Option<FxHashSet<Id>>, Option<FxHashSet<Row>>),
    Sum(Option<E>, Option<FxHashSet<Id>>),
    Avg(Option<E>, u64, Option<FxHashSet<Id>>),
    Min(Option<Rc<E>>, bool, Option<FxHashSet<Id>>),
    Max(Option<Rc<E>>, bool, Option<FxHashSet<Id>>),
    Sample(Option<Rc<E>>),
    Concat(Option<String>, bool, Option<FxHashSet<Id>>),
}

impl Acc {
    fn new(a: &Agg) -> Self {
        let set = || a.distinct.then(FxHashSet::default);
        match &a.kind {
            AggKind::Count => match a.expr {
                None => Acc::Count(0, None, a.distinct.then(FxHashSet::default)),
                Some(_) => Acc::Count(0, set(), None),
            },
            AggKind::Sum => Acc::Sum(Some(expr::integer(0)), set()),
            AggKind::Avg => Acc::Avg(Some(expr::integer(0)), 0, set()),
            AggKind::Min => Acc::Min(None, false, set()),
            AggKind::Max => Acc::Max(None, false, set()),
            AggKind::Sample => Acc::Sample(None),
            AggKind::GroupConcat(_) => Acc::Concat(Some(String::new()), true, set()),
        }
    }

    fn add(&mut self, eng: &Engine, a: &Agg, r: &Row, g: Active) -> Result<(), SparqlError> {
        let Some(e) = &a.expr else {
            if let Acc::Count(n, _, rows) = self {
                match rows {
                    Some(set) => {
                        if set.insert(r.clone()) {
                            *n += 1;
                        }
                    }
                    None => *n += 1,
                }
            }
            return Ok(());
        };
        let mut scratch = FxHashMap::default();
        let id = eng.value_id(e, r, g, &mut scratch)?;
        // DISTINCT: skip values already seen (errors are not values).
        let fresh = |set: &mut Option<FxHashSet<Id>>, id: Option<Id>| match (set, id) {
            (Some(s), Some(i)) => s.insert(i),
            _ => true,
        };
        match self {
            Acc::Count(n, set, _) => {
                if id.is_some() && fresh(set, id) {
                    *n += 1;
                }
            }
            Acc::Sum(sum, set) => {
                if sum.is_none() || !fresh(set, id) {
                    return Ok(());
                }
                *sum = match (id, sum.take()) {
                    (Some(i), Some(s)) => expr::arith(expr::Op::Add, &s, &*eng.ctx.expr(i)?),
                    _ => None,
                };
            }
            Acc::Avg(sum, n, set) => {
                if sum.is_none() || !fresh(set, id) {
                    return Ok(());
                }
                *sum = match (id, sum.take()) {
                    (Some(i), Some(s)) => expr::arith(expr::Op::Add, &s, &*eng.ctx.expr(i)?),
                    _ => None,
                };
                *n += 1;
            }
            Acc::Min(best, failed, set) | Acc::Max(best, failed, set) => {
                if *failed || !fresh(set, id) {
                    return Ok(());
                }
                let Some(i) = id else {
                    *failed = true;
                    *best = None;
                    return Ok(());
                };
                let v = eng.ctx.expr(i)?;
                let want = if matches!(a.kind, AggKind::Min) {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
                if best
                    .as_ref()
                    .is_none_or(|b| expr::order(Some(&v), Some(b)) == want)
                {
                    *best = Some(v);
                }
            }
            Acc::Sample(s) => {
                if let (None, Some(i)) = (&s, id) {
                    *s = Some(eng.ctx.expr(i)?);
                }
            }
            Acc::Concat(out, first, set) => {
                if out.is_none() || !fresh(set, id) {
                    return Ok(());
                }
                let s = match id {
                    Some(i) => match &*eng.ctx.expr(i)? {
                        E::StringLiteral(s) | E::LangStringLiteral { value: s, .. } => s.clone(),
                        _ => {
                            *out = None;
                            return Ok(());
                        }
                    },
                    None => {
                        *out = None;
                        return Ok(());
                    }
                };
                if let (Some(o), AggKind::GroupConcat(sep)) = (out.as_mut(), &a.kind) {
                    if !*first {
                        o.push_str(sep);
                    }
                    o.push_str(&s);
                    *first = false;
                }
            }
        }
        Ok(())
    }

    fn finish(self, a: &Agg) -> Option<E> {
        let _ = a;
        match self {
            Acc::Count(n, _, _) => Some(expr::integer(i64::try_from(n).ok()?)),
            Acc::Sum(s, _) => s,
            Acc::Avg(s, n, _) => {
                let s = s?;
                if n == 0 {
                    return Some(expr::integer(0));
                }
                let n = Integer::from(i64::try_from(n).ok()?);
                match s {
                    E::IntegerLiteral(i) => {
                        Some(E::DecimalLiteral(Decimal::from(i).checked_div(n)?))
                    }
                    E::DecimalLiteral(d) => Some(E::DecimalLiteral(d.checked_div(n)?)),
                    E::FloatLiteral(f) => Some(E::FloatLiteral(f / Float::from(n))),
                    E::DoubleLiteral(f) => Some(E::DoubleLiteral(f / Double::from(n))),
                    _ => None,
                }
            }
            Acc::Min(b, failed, _) | Acc::Max(b, failed, _) => {
                if failed {
                    None
                } else {
                    b.map(|v| (*v).clone())
                }
            }
            Acc::Sample(s) => s.map(|v| (*v).clone()),
            Acc::Concat(s, _, _) => s.map(E::StringLiteral),
        }
    }
}

/// Index of the right side of MINUS.
struct MinusIndex {
    shared: Vec<Slot>,
    map: FxHashMap<Vec<Id>, Vec<usize>>,
}

impl MinusIndex {
    fn new(rows: &[Row], shared: &[Slot]) -> Self {
        let mut map: FxHashMap<Vec<Id>, Vec<usize>> = FxHashMap::default();
        if !shared.is_empty() {
            for (i, r) in rows.iter().enumerate() {
                map.entry(shared.iter().map(|&s| r[s]).collect())
                    .or_default()
                    .push(i);
            }
        }
        Self {
            shared: shared.to_vec(),
            map,
        }
    }

    /// Whether some right row is compatible with `a` and shares a bound variable with it.
    fn removes(&self, rows: &[Row], a: &Row) -> bool {
        let hit = |b: &Row| {
            let mut shared = false;
            for (x, y) in a.iter().zip(b) {
                if *x != UNBOUND && *y != UNBOUND {
                    if x != y {
                        return false;
                    }
                    shared = true;
                }
            }
            shared
        };
        if self.shared.is_empty() {
            return rows.iter().any(hit);
        }
        let key: Vec<Id> = self.shared.iter().map(|&s| a[s]).collect();
        self.map
            .get(&key)
            .is_some_and(|ix| ix.iter().any(|&i| hit(&rows[i])))
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

fn tps_at(plan: &Rc<Plan>, i: usize) -> Tp {
    match &**plan {
        Plan::Bgp(tps) => tps[i],
        _ => Tp {
            s: PTerm::Const(UNBOUND),
            p: PTerm::Const(UNBOUND),
            o: PTerm::Const(UNBOUND),
        },
    }
}

/// One open triple pattern of a BGP: a scan, or nothing when a bound term is not in the file.
struct Level {
    scan: Option<QuadIter>,
    tp: Tp,
}

impl Level {
    fn start(eng: &Engine, tp: Tp, row: &Row, g: Active) -> Self {
        Self::open(&eng.ctx, tp, row, Engine::graph_match(g))
    }

    fn open(ctx: &Ctx, tp: Tp, row: &Row, graph: GraphMatch) -> Self {
        let val = |t: PTerm| -> Result<Option<Id>, ()> {
            let v = match t {
                PTerm::Const(c) => c,
                PTerm::Var(s) => row[s],
            };
            if v == UNBOUND {
                Ok(None)
            } else if ctx.in_dict(v) {
                Ok(Some(v))
            } else {
                Err(())
            }
        };
        let scan = match (val(tp.s), val(tp.p), val(tp.o)) {
            (Ok(s), Ok(p), Ok(o)) => ctx.rete.quads(&Pattern::new(s, p, o).in_graph(graph)).ok(),
            _ => None,
        };
        Self { scan, tp }
    }
}

/// Nested-loop evaluation of a BGP: depth-first over the patterns in plan order.
struct BgpIter {
    ctx: Rc<Ctx>,
    tps: Rc<Plan>,
    graph: GraphMatch,
    stack: Vec<Level>,
    /// `rows[i]` is the row before pattern `i`.
    rows: Vec<Row>,
}

impl Iterator for BgpIter {
    type Item = Result<Row, SparqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        let n = match &*self.tps {
            Plan::Bgp(t) => t.len(),
            _ => 0,
        };
        loop {
            let depth = self.stack.len();
            let level = self.stack.last_mut()?;
            let next = match &mut level.scan {
                Some(it) => it.next(),
                None => None,
            };
            let Some(q) = next else {
                self.stack.pop();
                self.rows.pop();
                continue;
            };
            let q = match q {
                Ok(q) => q,
                Err(e) => {
                    self.stack.clear();
                    return Some(Err(e.into()));
                }
            };
            if let Err(e) = self.ctx.check() {
                self.stack.clear();
                return Some(Err(e));
            }
            let tp = level.tp;
            let mut row = self.rows[depth - 1].clone();
            let mut ok = true;
            for (t, v) in [(tp.s, q[0]), (tp.p, q[1]), (tp.o, q[2])] {
                if let PTerm::Var(s) = t {
                    if row[s] == UNBOUND {
                        row[s] = v;
                    } else if row[s] != v {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                continue;
            }
            if depth == n {
                return Some(Ok(row));
            }
            let next_tp = tps_at(&self.tps, depth);
            self.stack
                .push(Level::open(&self.ctx, next_tp, &row, self.graph));
            self.rows.push(row);
        }
    }
}

/// Decodes a row's projected slots into terms.
pub fn decode(ctx: &Ctx, r: &Row, slots: &[Slot]) -> Result<Vec<Option<Term>>, SparqlError> {
    slots
        .iter()
        .map(|&s| {
            if r[s] == UNBOUND {
                Ok(None)
            } else {
                ctx.term(r[s]).map(Some)
            }
        })
        .collect()
}
