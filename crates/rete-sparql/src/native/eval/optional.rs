//! OPTIONAL: index nested-loop probes, raced by the right side evaluated on its own.

use crate::native::bgp::standalone_order;
use crate::native::ctx::Ctx;
use crate::native::interp::{Exists, Interp};
use crate::native::plan::{Ex, Plan, Slot};
use crate::native::row::{merge, row_bytes, Active, Held, Id, Row, Rows};
use crate::SparqlError;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// Left rows probed (the right side evaluated once per row, with the row's values as
/// constants) before the right side also starts to be evaluated on its own.
const LEFT_WARMUP: usize = 1024;
/// Rows of the right side evaluated on their own per left row, once past the warm-up: a
/// streamed row costs a small fraction of a probe, so the race costs a bounded share.
const RIGHT_PER_LEFT: usize = 64;
/// Rows of the right side past which the race is given up (probing continues).
const RIGHT_MAX: usize = 1 << 20;

/// The pattern evaluator as OPTIONAL sees it: the right side is evaluated for each left row,
/// and on its own for the race (implemented by the evaluator above; calls stay static).
pub(super) trait Patterns: Exists {
    /// The query's state.
    fn ctx(&self) -> &Ctx;
    /// Solutions of `plan` compatible with `parent`, merged with it.
    fn eval(&self, plan: &Rc<Plan>, parent: Row, g: Active) -> Rows;
    /// A row with every slot unbound.
    fn empty_row(&self) -> Row;
}

/// The right side of an OPTIONAL evaluated on its own, alongside the probes.
pub(super) enum Race {
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
pub(super) struct LeftJoinIter<P> {
    pub(super) eng: P,
    pub(super) left: Rows,
    pub(super) right: Rc<Plan>,
    pub(super) expr: Option<Ex>,
    pub(super) g: Active,
    pub(super) key: Vec<Slot>,
    pub(super) seen: usize,
    pub(super) race: Race,
    pub(super) out: std::vec::IntoIter<Result<Row, SparqlError>>,
}

impl<P: Patterns> LeftJoinIter<P> {
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
                let alone = match standalone_order(self.eng.ctx(), tps) {
                    Ok(t) => Rc::new(Plan::Bgp(t)),
                    Err(_) => return,
                };
                Race::Running {
                    it: self.eng.eval(&alone, self.eng.empty_row(), self.g),
                    rows: Vec::new(),
                    held: self
                        .eng
                        .ctx()
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
                        .ctx()
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
        let mut held = self.eng.ctx().held("the hash index of an OPTIONAL");
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
                Some(e) => Interp::new(self.eng.ctx(), &self.eng).truth(e, &r, self.g)?,
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

impl<P: Patterns> Iterator for LeftJoinIter<P> {
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
