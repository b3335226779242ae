//! One shortest path by bidirectional breadth-first search: each round expands, whole, the
//! smaller of the two frontiers; the first entity discovered by one side that the other side
//! already holds closes a shortest path (every meeting found in the first round that meets has
//! the same length, so the search stops at the first). Banned nodes and links let
//! [`crate::kpaths`] ask for spur paths.

use crate::graph::{Graph, Halt};
use rete_core::Id;
use rustc_hash::{FxHashMap, FxHashSet};

/// What one search found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// A shortest path, from `from` to `to`.
    Path(Vec<Id>),
    /// No path at any length: a side ran out of entities to expand.
    Exhausted,
    /// No path within the hop budget; longer ones may exist.
    HopLimit,
}

/// Entities and links a search must not use.
#[derive(Debug, Default)]
pub(crate) struct Bans {
    pub(crate) nodes: FxHashSet<Id>,
    /// Undirected links as `(min, max)`.
    pub(crate) links: FxHashSet<(Id, Id)>,
}

impl Bans {
    fn link(&self, a: Id, b: Id) -> bool {
        !self.links.is_empty() && self.links.contains(&(a.min(b), a.max(b)))
    }
}

struct Side {
    /// Each reached entity's parent (the side's root is its own parent).
    parent: FxHashMap<Id, Id>,
    frontier: Vec<Id>,
    depth: u32,
}

impl Side {
    fn new(root: Id) -> Self {
        let mut parent = FxHashMap::default();
        parent.insert(root, root);
        Self {
            parent,
            frontier: vec![root],
            depth: 0,
        }
    }

    /// The chain from `id` back to the root.
    fn chain(&self, mut id: Id) -> Vec<Id> {
        let mut out = vec![id];
        while let Some(&p) = self.parent.get(&id) {
            if p == id {
                break;
            }
            out.push(p);
            id = p;
        }
        out
    }
}

/// A shortest path from `from` to `to` of at most `max_hops` links avoiding `bans`.
pub(crate) fn shortest(
    g: &mut Graph<'_>,
    from: Id,
    to: Id,
    max_hops: u32,
    bans: &Bans,
) -> Result<Found, Halt> {
    if from == to {
        return Ok(Found::Path(vec![from]));
    }
    let mut a = Side::new(from);
    let mut b = Side::new(to);
    loop {
        if a.frontier.is_empty() || b.frontier.is_empty() {
            return Ok(Found::Exhausted);
        }
        if a.depth + b.depth >= max_hops {
            return Ok(Found::HopLimit);
        }
        let forward = a.frontier.len() <= b.frontier.len();
        let (near, far, root) = if forward {
            (&mut a, &b, from)
        } else {
            (&mut b, &a, to)
        };
        if let Some(meet) = expand(g, near, far, root, from, to, bans)? {
            let mut path = a.chain(meet);
            path.reverse();
            path.extend(b.chain(meet).into_iter().skip(1));
            return Ok(Found::Path(path));
        }
    }
}

/// Expands `near`'s frontier by one layer; returns the first entity that `far` already holds.
fn expand(
    g: &mut Graph<'_>,
    near: &mut Side,
    far: &Side,
    root: Id,
    from: Id,
    to: Id,
    bans: &Bans,
) -> Result<Option<Id>, Halt> {
    let frontier = std::mem::take(&mut near.frontier);
    let mut next = Vec::new();
    for u in frontier {
        // Endpoints are always expanded; other entities only if a path may pass through them.
        if u != root && !g.admits(u)? {
            continue;
        }
        for &v in g.neighbours(u)?.iter() {
            if bans.nodes.contains(&v) || bans.link(u, v) || near.parent.contains_key(&v) {
                continue;
            }
            near.parent.insert(v, u);
            if far.parent.contains_key(&v) && (v == from || v == to || g.admits(v)?) {
                near.depth += 1;
                return Ok(Some(v));
            }
            next.push(v);
        }
    }
    near.frontier = next;
    near.depth += 1;
    Ok(None)
}
