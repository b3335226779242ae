//! Basic graph patterns: depth-first index-nested-loop scans, and COUNT read off the index.

use super::ctx::Ctx;
use super::plan::{PTerm, Plan, Slot, Tp};
use super::row::{Active, Id, Row, UNBOUND};
use crate::union::Scan;
use crate::SparqlError;
use rete_core::Pattern;
use std::rc::Rc;

/// The number of solutions of a one-pattern BGP, from block counts, when every variable
/// occurs once and the graph is the default one or any.
pub(super) fn fast_count(
    ctx: &Ctx,
    tps: &[Tp],
    parent: &Row,
    g: Active,
) -> Result<Option<u64>, SparqlError> {
    let [t] = tps else { return Ok(None) };
    let mut seen = Vec::new();
    let mut pos = [None; 3];
    for (i, x) in [t.s, t.p, t.o].into_iter().enumerate() {
        match x {
            PTerm::Const(c) => {
                if !ctx.in_dict(c) {
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
    // Block counts cover every graph: usable when there are no named graphs, or over the
    // union when no triple can be in two graphs.
    let usable = match g {
        Active::Default => ctx.named_graphs()?.is_empty(),
        Active::Union => ctx.union_is_plain()?,
        Active::Named(_) => false,
    };
    if !usable {
        return Ok(None);
    }
    Ok(Some(ctx.rete.count(&pattern)?))
}

/// `tps` ordered for an evaluation on their own (nothing bound from outside), by the
/// planner's greedy rule (see `compile.rs`): the smallest pattern first, then patterns
/// connected to what is bound, by estimated matches. A BGP planned for probes with a variable
/// bound by the left side would otherwise start with a full scan.
pub(super) fn standalone_order(ctx: &Ctx, tps: &[Tp]) -> Result<Vec<Tp>, SparqlError> {
    let mut counts = Vec::with_capacity(tps.len());
    for t in tps {
        let c = |x: PTerm| match x {
            PTerm::Const(i) => Some(i),
            PTerm::Var(_) => None,
        };
        let (s, p, o) = (c(t.s), c(t.p), c(t.o));
        counts.push(if [s, p, o].iter().flatten().any(|&i| !ctx.in_dict(i)) {
            0
        } else {
            ctx.rete.count(&Pattern::new(s, p, o))?
        });
    }
    let mut bound: Vec<Slot> = Vec::new();
    let mut idx: Vec<usize> = (0..tps.len()).collect();
    let mut out = Vec::with_capacity(tps.len());
    while !idx.is_empty() {
        let score = |i: usize| -> (bool, u64, u8) {
            let (bound_pos, vars, connected) = tps[i].bound_shape(|s| bound.contains(&s));
            let bound_vars = bound_pos - (3 - vars);
            let est = counts[i] >> (10 * u32::from(bound_vars).min(6));
            (
                !connected && vars > 0 && !bound.is_empty(),
                est,
                3 - bound_pos.min(3),
            )
        };
        let Some(k) = (0..idx.len()).min_by_key(|&k| score(idx[k])) else {
            break;
        };
        let i = idx.remove(k);
        for x in [tps[i].s, tps[i].p, tps[i].o] {
            if let PTerm::Var(s) = x {
                bound.push(s);
            }
        }
        out.push(tps[i]);
    }
    Ok(out)
}

pub(super) fn tps_at(plan: &Rc<Plan>, i: usize) -> Tp {
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
pub(super) struct Level {
    scan: Option<Scan>,
    tp: Tp,
}

impl Level {
    pub(super) fn open(ctx: &Ctx, tp: Tp, row: &Row, graph: Active) -> Self {
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
            (Ok(s), Ok(p), Ok(o)) => ctx.scan(s, p, o, graph).ok(),
            _ => None,
        };
        Self { scan, tp }
    }
}

/// Nested-loop evaluation of a BGP: depth-first over the patterns in plan order.
pub(super) struct BgpIter {
    pub(super) ctx: Rc<Ctx>,
    pub(super) tps: Rc<Plan>,
    pub(super) graph: Active,
    pub(super) stack: Vec<Level>,
    /// `rows[i]` is the row before pattern `i`.
    pub(super) rows: Vec<Row>,
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
