//! A transitive step's edges loaded once per query (compressed sparse rows over dense local
//! indices) and the step's per-query state: apart from path evaluation so that the per-query
//! context can keep them.

use super::row::{Held, Id};
use crate::SparqlError;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

/// State of one transitive step path (`a` in `a+` / `a*`), per graph and direction, kept for
/// the query: the probes made so far (over every closure of the query) and, once they pass
/// the threshold, the adjacency loaded once.
#[derive(Debug, Default)]
pub struct StepCache {
    pub(super) probes: Cell<u64>,
    pub(super) bound: OnceCell<Option<u64>>,
    pub(super) adj: OnceCell<Option<Rc<Adj>>>,
}

/// A step path's edges as compressed sparse rows over dense local indices (nodes sorted by
/// id), with a generation-stamped visited array so a walk costs what it visits, not the graph.
#[derive(Debug)]
pub struct Adj {
    nodes: Vec<Id>,
    off: Vec<u32>,
    to: Vec<u32>,
    stamp: RefCell<Vec<u32>>,
    gen: Cell<u32>,
}

impl Adj {
    /// From `(from, to)` pairs of dictionary ids (`n`: the dictionary size). `None` when the
    /// edges do not fit 32-bit offsets.
    pub(super) fn build(pairs: &[(Id, Id)], n: u64) -> Option<Self> {
        let e = u32::try_from(pairs.len()).ok()?;
        let n = usize::try_from(n).ok()?;
        // Dense id → local index (ids are 1..=n), nodes in id order.
        let mut local = vec![u32::MAX; n + 1];
        for &(x, y) in pairs {
            local[x as usize] = 0;
            local[y as usize] = 0;
        }
        let mut nodes = Vec::new();
        for (id, l) in local.iter_mut().enumerate() {
            if *l == 0 {
                *l = u32::try_from(nodes.len()).ok()?;
                nodes.push(id as Id);
            }
        }
        // Counting sort of the edges by source.
        let mut off = vec![0u32; nodes.len() + 1];
        for &(x, _) in pairs {
            off[local[x as usize] as usize + 1] += 1;
        }
        for i in 1..off.len() {
            off[i] += off[i - 1];
        }
        let mut fill = off.clone();
        let mut to = vec![0u32; e as usize];
        for &(x, y) in pairs {
            let f = &mut fill[local[x as usize] as usize];
            to[*f as usize] = local[y as usize];
            *f += 1;
        }
        let stamp = RefCell::new(vec![0u32; nodes.len()]);
        Some(Self {
            nodes,
            off,
            to,
            stamp,
            gen: Cell::new(0),
        })
    }

    pub(super) fn bytes(&self) -> usize {
        self.nodes.len() * 16 + self.to.len() * 4
    }

    /// Nodes reachable from `start` in one or more steps (`zero`: and `start` itself).
    pub(super) fn walk(
        &self,
        start: Id,
        zero: bool,
        held: &mut Held,
    ) -> Result<Vec<Id>, SparqlError> {
        let mut out = Vec::new();
        if zero {
            out.push(start);
        }
        let Ok(s) = self.nodes.binary_search(&start) else {
            return Ok(out);
        };
        let mut stamp = self.stamp.borrow_mut();
        let gen = match self.gen.get().checked_add(1) {
            Some(g) => g,
            None => {
                stamp.fill(0);
                1
            }
        };
        self.gen.set(gen);
        stamp[s] = gen;
        let s = s as u32;
        let mut start_out = zero;
        let mut frontier = vec![s];
        let mut next = Vec::new();
        while !frontier.is_empty() {
            for &u in &frontier {
                let u = u as usize;
                for &v in &self.to[self.off[u] as usize..self.off[u + 1] as usize] {
                    let st = &mut stamp[v as usize];
                    if *st != gen {
                        *st = gen;
                        out.push(self.nodes[v as usize]);
                        next.push(v);
                    } else if v == s && !start_out {
                        // `+` reaches its start again through a cycle.
                        start_out = true;
                        out.push(start);
                    }
                }
            }
            held.grow(next.len() * 12)?;
            std::mem::swap(&mut frontier, &mut next);
            next.clear();
        }
        Ok(out)
    }
}
