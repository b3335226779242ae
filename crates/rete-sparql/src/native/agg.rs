//! GROUP BY and aggregates: a hash table over id keys, one accumulator per aggregate.

use super::bgp::fast_count;
use super::ctx::Ctx;
use super::expr;
use super::interp::{Exists, Interp};
use super::plan::{Agg, AggKind, Plan, Slot};
use super::row::{row_bytes, Active, Id, Row, Rows};
use super::scalar::{self, Sc};
use crate::SparqlError;
use oxsdatatypes::{Decimal, Double, Float, Integer};
use rustc_hash::{FxHashMap, FxHashSet};
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;
use std::rc::Rc;

/// GROUP BY `keys` with `aggs` over the rows `input` gives (solutions of `inner` merged with
/// `parent`).
pub(super) fn group<P: Exists>(
    interp: &Interp<'_, P>,
    inner: &Plan,
    input: impl FnOnce() -> Rows,
    keys: &[Slot],
    aggs: &[(Slot, Agg)],
    parent: &Row,
    g: Active,
) -> Result<Vec<Row>, SparqlError> {
    let ctx = interp.ctx();
    // COUNT(*) of one triple pattern without grouping: read it off the index.
    if keys.is_empty() && aggs.len() == 1 {
        if let (
            Plan::Bgp(tps),
            Agg {
                kind: AggKind::Count,
                distinct: false,
                expr: None,
            },
        ) = (inner, &aggs[0].1)
        {
            if let Some(n) = fast_count(ctx, tps, parent, g)? {
                let mut r = parent.clone();
                r[aggs[0].0] = ctx.intern_expr(expr::integer(n as i64))?;
                return Ok(vec![r]);
            }
        }
    }
    // Group keys are id tuples (one id: the id itself) kept inline, no allocation per row;
    // the accumulators of all groups sit in one vector, `aggs.len()` per group, and the
    // groups stay in the order they were first seen.
    let mut one: FxHashMap<Id, usize> = FxHashMap::default();
    let mut many: FxHashMap<Row, usize> = FxHashMap::default();
    let mut group_keys: Vec<Row> = Vec::new();
    let mut accs: Vec<Acc> = Vec::new();
    let k = aggs.len();
    let mut held = ctx.held("the groups of GROUP BY");
    // The key twice (table and list) and the accumulators.
    let group_bytes = 2 * row_bytes(keys.len()) + k * size_of::<Acc>();
    let mut key = Row::new();
    for r in input() {
        let r = r?;
        ctx.check()?;
        let found = if let [s] = keys {
            one.get(&r[*s]).copied()
        } else {
            key.clear();
            key.extend(keys.iter().map(|&s| r[s]));
            many.get(&key).copied()
        };
        let i = match found {
            Some(i) => i,
            None => {
                held.grow(group_bytes)?;
                let i = group_keys.len();
                if let [s] = keys {
                    one.insert(r[*s], i);
                    group_keys.push(smallvec::smallvec![r[*s]]);
                } else {
                    many.insert(key.clone(), i);
                    group_keys.push(key.clone());
                }
                accs.extend(aggs.iter().map(|(_, a)| Acc::new(a)));
                i
            }
        };
        for (acc, (_, agg)) in accs[i * k..(i + 1) * k].iter_mut().zip(aggs) {
            let grown = acc.add(interp, agg, &r, g)?;
            if grown > 0 {
                held.grow(grown)?;
            }
        }
    }
    drop((one, many));
    if keys.is_empty() && group_keys.is_empty() {
        group_keys.push(Row::new());
        accs.extend(aggs.iter().map(|(_, a)| Acc::new(a)));
    }
    let mut out = Vec::with_capacity(group_keys.len());
    let mut accs = accs.into_iter();
    let mut counts: FxHashMap<i64, Id> = FxHashMap::default();
    for key in group_keys {
        let mut row = parent.clone();
        for (&s, &v) in keys.iter().zip(&key) {
            row[s] = v;
        }
        for ((slot, _), acc) in aggs.iter().zip(accs.by_ref()) {
            // Counts repeat across groups: each is made into a term and looked up once.
            if let Some(n) = acc.count() {
                row[*slot] = match counts.get(&n) {
                    Some(&id) => id,
                    None => {
                        let id = ctx.intern_expr(expr::integer(n))?;
                        counts.insert(n, id);
                        id
                    }
                };
            } else if let Some(v) = acc.finish() {
                row[*slot] = ctx.intern_expr(v)?;
            }
        }
        out.push(row);
    }
    Ok(out)
}

/// The best value of MIN / MAX so far.
enum Best {
    Sc(Sc),
    Term(Rc<E>),
}

impl Best {
    fn value(&self) -> Rc<E> {
        match self {
            Best::Sc(v) => Rc::new(v.term()),
            Best::Term(v) => v.clone(),
        }
    }
}

/// Aggregate state.
enum Acc {
    Count(u64, Option<FxHashSet<Id>>, Option<FxHashSet<Row>>),
    Sum(Option<Sc>, Option<FxHashSet<Id>>),
    Avg(Option<Sc>, u64, Option<FxHashSet<Id>>),
    Min(Option<Best>, bool, Option<FxHashSet<Id>>),
    Max(Option<Best>, bool, Option<FxHashSet<Id>>),
    Sample(Option<Rc<E>>),
    Concat(Option<String>, bool, Option<FxHashSet<Id>>),
}

/// Adds term `id`'s value to a running SUM or AVG. Non-numbers (booleans among them) make the
/// sum an error (`None`), as in `expr::arith`.
fn add_value(ctx: &Ctx, sum: &mut Option<Sc>, id: Option<Id>) -> Result<(), SparqlError> {
    *sum = match (id, sum.take()) {
        (Some(i), Some(s)) => ctx
            .scalar(i)?
            .and_then(|v| scalar::arith(scalar::Op::Add, s, v)),
        _ => None,
    };
    Ok(())
}

impl Acc {
    fn new(a: &Agg) -> Self {
        let set = || a.distinct.then(FxHashSet::default);
        match &a.kind {
            AggKind::Count => match a.expr {
                None => Acc::Count(0, None, a.distinct.then(FxHashSet::default)),
                Some(_) => Acc::Count(0, set(), None),
            },
            AggKind::Sum => Acc::Sum(Some(Sc::Int(Integer::from(0))), set()),
            AggKind::Avg => Acc::Avg(Some(Sc::Int(Integer::from(0))), 0, set()),
            AggKind::Min => Acc::Min(None, false, set()),
            AggKind::Max => Acc::Max(None, false, set()),
            AggKind::Sample => Acc::Sample(None),
            AggKind::GroupConcat(_) => Acc::Concat(Some(String::new()), true, set()),
        }
    }

    /// Adds one row; returns the bytes the state grew by (DISTINCT sets, concatenations).
    fn add<P: Exists>(
        &mut self,
        interp: &Interp<'_, P>,
        a: &Agg,
        r: &Row,
        g: Active,
    ) -> Result<usize, SparqlError> {
        let ctx = interp.ctx();
        let Some(e) = &a.expr else {
            if let Acc::Count(n, _, rows) = self {
                match rows {
                    Some(set) => {
                        if set.insert(r.clone()) {
                            *n += 1;
                            return Ok(row_bytes(r.len()) + 8);
                        }
                    }
                    None => *n += 1,
                }
            }
            return Ok(0);
        };
        let mut scratch = FxHashMap::default();
        let id = interp.value_id(e, r, g, &mut scratch)?;
        // DISTINCT: skip values already seen (errors are not values).
        let mut grown = 0;
        let mut fresh = |set: &mut Option<FxHashSet<Id>>, id: Option<Id>| match (set, id) {
            (Some(s), Some(i)) => {
                let new = s.insert(i);
                if new {
                    grown += 16;
                }
                new
            }
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
                    return Ok(grown);
                }
                add_value(ctx, sum, id)?;
            }
            Acc::Avg(sum, n, set) => {
                if sum.is_none() || !fresh(set, id) {
                    return Ok(grown);
                }
                add_value(ctx, sum, id)?;
                *n += 1;
            }
            Acc::Min(best, failed, set) | Acc::Max(best, failed, set) => {
                if *failed || !fresh(set, id) {
                    return Ok(grown);
                }
                let Some(i) = id else {
                    *failed = true;
                    *best = None;
                    return Ok(grown);
                };
                let want = if matches!(a.kind, AggKind::Min) {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
                // Numbers (and booleans) compare as scalars; anything else, or a pair the
                // scalar order does not decide, through the total order of `expr::order`.
                let v = ctx.scalar(i)?;
                if let (Some(v), Some(Best::Sc(b))) = (v, &*best) {
                    if let Some(o) = scalar::partial_cmp(v, *b) {
                        if o == want {
                            *best = Some(Best::Sc(v));
                        }
                        return Ok(grown);
                    }
                }
                let replace = match &*best {
                    None => true,
                    Some(b) => {
                        let x = ctx.expr(i)?;
                        expr::order(Some(&x), Some(&b.value())) == want
                    }
                };
                if replace {
                    *best = Some(match v {
                        Some(v) => Best::Sc(v),
                        None => Best::Term(ctx.expr(i)?),
                    });
                }
            }
            Acc::Sample(s) => {
                if let (None, Some(i)) = (&s, id) {
                    *s = Some(ctx.expr(i)?);
                }
            }
            Acc::Concat(out, first, set) => {
                if out.is_none() || !fresh(set, id) {
                    return Ok(grown);
                }
                let s = match id {
                    Some(i) => match &*ctx.expr(i)? {
                        E::StringLiteral(s) | E::LangStringLiteral { value: s, .. } => s.clone(),
                        _ => {
                            *out = None;
                            return Ok(grown);
                        }
                    },
                    None => {
                        *out = None;
                        return Ok(grown);
                    }
                };
                if let (Some(o), AggKind::GroupConcat(sep)) = (out.as_mut(), &a.kind) {
                    if !*first {
                        o.push_str(sep);
                    }
                    o.push_str(&s);
                    *first = false;
                    grown += s.len() + sep.len();
                }
            }
        }
        Ok(grown)
    }

    /// A COUNT's value (`None` for other aggregates).
    fn count(&self) -> Option<i64> {
        match self {
            Acc::Count(n, ..) => i64::try_from(*n).ok(),
            _ => None,
        }
    }

    /// The aggregate's value (a value, as spareval gives: MIN / MAX / SAMPLE of
    /// `"+7"^^xsd:integer` is the integer 7).
    fn finish(self) -> Option<E> {
        Some(match self {
            Acc::Count(n, _, _) => expr::integer(i64::try_from(n).ok()?),
            Acc::Sum(s, _) => s?.term(),
            Acc::Avg(s, n, _) => {
                let s = s?.term();
                if n == 0 {
                    return Some(expr::integer(0));
                }
                let n = Integer::from(i64::try_from(n).ok()?);
                match s {
                    E::IntegerLiteral(i) => E::DecimalLiteral(Decimal::from(i).checked_div(n)?),
                    E::DecimalLiteral(d) => E::DecimalLiteral(d.checked_div(n)?),
                    E::FloatLiteral(f) => E::FloatLiteral(f / Float::from(n)),
                    E::DoubleLiteral(f) => E::DoubleLiteral(f / Double::from(n)),
                    _ => return None,
                }
            }
            Acc::Min(b, failed, _) | Acc::Max(b, failed, _) => {
                if failed {
                    return None;
                }
                return b.map(|v| match v {
                    Best::Sc(v) => v.term(),
                    Best::Term(v) => (*v).clone(),
                });
            }
            Acc::Sample(s) => return s.map(|v| (*v).clone()),
            Acc::Concat(s, _, _) => E::StringLiteral(s?),
        })
    }
}
