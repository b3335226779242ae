//! Native operators: lazy iterators over rows of ids.
//!
//! `eval(plan, parent, graph)` returns the solutions of `plan` that are compatible with the
//! `parent` row, merged with it. Where substituting the parent's bindings cannot change the
//! answer (triple patterns, paths, joins, unions, and filters / binds / optionals whose
//! variables are certainly bound inside) the parent's values are used as constants, so joins
//! become index-nested-loop probes. Elsewhere the sub-plan is evaluated once on its own
//! (memoized) and joined with the parent: the algebra's bottom-up semantics is kept.

use super::bgp::{standalone_order, tps_at, BgpIter, Level};
use super::ctx::Held;
use super::ctx::{row_bytes, Active, Ctx, Id, Row, UNBOUND};
use super::expr;
use super::path;
use super::plan::{certain, inter_sets, Ex, PTerm, Plan, Slot};
use crate::SparqlError;
use oxrdf::Term;
use rustc_hash::{FxHashMap, FxHashSet};
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;
use std::rc::Rc;

/// A stream of rows.
pub type Rows = Box<dyn Iterator<Item = Result<Row, SparqlError>>>;

pub(super) fn once_err(e: SparqlError) -> Rows {
    Box::new(std::iter::once(Err(e)))
}

pub(super) fn empty() -> Rows {
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
                self.value_owned(e, &r, g)?
                    .map(|v| self.ctx.intern_unchecked(v.into()))
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

    fn order_by(
        &self,
        inner: &Rc<Plan>,
        keys: &[(Ex, bool)],
        limit: Option<usize>,
        parent: Row,
        g: Active,
    ) -> Result<Vec<Row>, SparqlError> {
        // Sort keys, input position, row, and the bytes they hold.
        type Keyed = (Vec<Option<Rc<E>>>, u64, Row, usize);
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
        let mut held = self.ctx.held("the rows and sort keys of ORDER BY");
        let base =
            row_bytes(self.width) + size_of::<Keyed>() + keys.len() * size_of::<Option<Rc<E>>>();
        let cut = |rows: &mut Vec<Keyed>, held: &mut Held, l: usize| {
            if rows.len() > l {
                held.shrink(rows[l..].iter().map(|k| k.3).sum());
                rows.truncate(l);
            }
        };
        for (n, r) in (0u64..).zip(self.eval(inner, parent, g)) {
            let r = r?;
            self.ctx.check()?;
            let mut k = Vec::with_capacity(keys.len());
            let mut bytes = base;
            for (e, _) in keys {
                k.push(match e {
                    Ex::Var(s) if r[*s] == UNBOUND => None,
                    Ex::Var(s) => Some(self.ctx.expr(r[*s])?),
                    e => {
                        let v = self.value(e, &r, g)?;
                        bytes += v.as_deref().map_or(0, expr::value_bytes);
                        v
                    }
                });
            }
            held.grow(bytes)?;
            rows.push((k, n, r, bytes));
            if let Some(l) = limit {
                // Keep the best `l` rows: sort and cut whenever the buffer doubles.
                if rows.len() >= l.max(64).saturating_mul(2) {
                    rows.sort_by(cmp);
                    cut(&mut rows, &mut held, l);
                }
            }
        }
        rows.sort_by(cmp);
        if let Some(l) = limit {
            cut(&mut rows, &mut held, l);
        }
        Ok(rows.into_iter().map(|(_, _, r, _)| r).collect())
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

/// Left rows probed (the right side evaluated once per row, with the row's values as
/// constants) before the right side also starts to be evaluated on its own.
const LEFT_WARMUP: usize = 1024;
/// Rows of the right side evaluated on their own per left row, once past the warm-up: a
/// streamed row costs a small fraction of a probe, so the race costs a bounded share.
const RIGHT_PER_LEFT: usize = 64;
/// Rows of the right side past which the race is given up (probing continues).
const RIGHT_MAX: usize = 1 << 20;

/// The right side of an OPTIONAL evaluated on its own, alongside the probes.
enum Race {
    /// Not tried (inside EXISTS, a right side that is not a basic graph pattern, or no
    /// variable certainly shared by both sides), or given up.
    Off,
    /// Before the warm-up ends.
    Waiting,
    Running {
        it: Rows,
        rows: Vec<Row>,
        held: Held,
    },
    /// Every right row, from the memo, index not built yet.
    Memo(Rc<Vec<Row>>),
    /// Every right row, hashed by the shared variables' values.
    Done {
        rows: Rc<Vec<Row>>,
        index: FxHashMap<Vec<Id>, Vec<u32>>,
        _held: Held,
    },
}

/// `OPTIONAL`: each left row probes the right side (index nested loop, cheap while the left
/// side is small or its probes hit the same index blocks); past a warm-up, the right side is
/// also evaluated on its own, a bounded number of rows per left row. If it completes, the
/// remaining left rows are joined with it by hash on the variables both sides certainly bind:
/// random probes that would each decode an index block become one ordered evaluation.
struct LeftJoinIter {
    eng: Engine,
    left: Rows,
    right: Rc<Plan>,
    expr: Option<Ex>,
    g: Active,
    key: Vec<Slot>,
    seen: usize,
    race: Race,
    out: std::vec::IntoIter<Result<Row, SparqlError>>,
}

impl LeftJoinIter {
    /// Moves the race on by one left row.
    fn advance(&mut self) {
        if self.seen <= LEFT_WARMUP {
            return;
        }
        let race = std::mem::replace(&mut self.race, Race::Off);
        self.race = match race {
            Race::Waiting => {
                // The right side was planned for probes; on its own it needs its own order.
                let Plan::Bgp(tps) = &*self.right else {
                    return;
                };
                let alone = match standalone_order(&self.eng.ctx, tps) {
                    Ok(t) => Rc::new(Plan::Bgp(t)),
                    Err(_) => return,
                };
                Race::Running {
                    it: self.eng.eval(&alone, self.eng.empty_row(), self.g),
                    rows: Vec::new(),
                    held: self
                        .eng
                        .ctx
                        .held("the rows of an OPTIONAL's right side evaluated on its own"),
                }
            }
            Race::Memo(rows) => self.done(rows),
            other => other,
        };
        let Race::Running { it, rows, held } = &mut self.race else {
            return;
        };
        for _ in 0..RIGHT_PER_LEFT {
            match it.next() {
                Some(Ok(r)) => {
                    if rows.len() >= RIGHT_MAX || held.grow(row_bytes(r.len())).is_err() {
                        // Too large to be worth it: keep probing.
                        self.race = Race::Off;
                        return;
                    }
                    rows.push(r);
                }
                // An error of the right side surfaces through the probes, if it recurs.
                Some(Err(_)) => {
                    self.race = Race::Off;
                    return;
                }
                None => {
                    let Race::Running { rows, held, .. } =
                        std::mem::replace(&mut self.race, Race::Off)
                    else {
                        return;
                    };
                    // Complete: reused by later evaluations of this OPTIONAL in the query.
                    held.keep();
                    let rows = Rc::new(rows);
                    self.eng
                        .ctx
                        .memo
                        .borrow_mut()
                        .insert((Rc::as_ptr(&self.right) as usize, self.g), rows.clone());
                    self.race = self.done(rows);
                    return;
                }
            }
        }
    }

    /// Hashes complete right rows.
    fn done(&self, rows: Rc<Vec<Row>>) -> Race {
        let mut held = self.eng.ctx.held("the hash index of an OPTIONAL");
        let Ok(n) = u32::try_from(rows.len()) else {
            return Race::Off;
        };
        if held
            .grow(rows.len() * (row_bytes(self.key.len()) + 8))
            .is_err()
        {
            return Race::Off;
        }
        let mut index: FxHashMap<Vec<Id>, Vec<u32>> = FxHashMap::default();
        for (i, r) in (0..n).zip(rows.iter()) {
            index
                .entry(self.key.iter().map(|&s| r[s]).collect())
                .or_default()
                .push(i);
        }
        Race::Done {
            rows,
            index,
            _held: held,
        }
    }

    /// The rows of left row `row`: its merges with the right side kept by the filter, or
    /// itself.
    fn join(&self, row: Row) -> Vec<Result<Row, SparqlError>> {
        let mut out = Vec::new();
        let mut keep = |r: Row| -> Result<(), SparqlError> {
            let keep = match &self.expr {
                None => true,
                Some(e) => self.eng.truth(e, &r, self.g)?,
            };
            if keep {
                out.push(Ok(r));
            }
            Ok(())
        };
        let res: Result<(), SparqlError> = (|| {
            if let Race::Done { rows, index, .. } = &self.race {
                let k: Vec<Id> = self.key.iter().map(|&s| row[s]).collect();
                for &i in index.get(&k).map_or(&[][..], Vec::as_slice) {
                    if let Some(m) = merge(&row, &rows[i as usize]) {
                        keep(m)?;
                    }
                }
            } else {
                for r in self.eng.eval(&self.right, row.clone(), self.g) {
                    keep(r?)?;
                }
            }
            Ok(())
        })();
        if let Err(e) = res {
            return vec![Err(e)];
        }
        if out.is_empty() {
            out.push(Ok(row));
        }
        out
    }
}

impl Iterator for LeftJoinIter {
    type Item = Result<Row, SparqlError>;
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(x) = self.out.next() {
                return Some(x);
            }
            let row = match self.left.next()? {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            self.seen += 1;
            if !matches!(self.race, Race::Off | Race::Done { .. }) {
                self.advance();
            }
            self.out = self.join(row).into_iter();
        }
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
