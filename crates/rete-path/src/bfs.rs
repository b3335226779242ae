//! Shortest paths by bidirectional breadth-first search: each round expands, whole, the smaller
//! of the two frontiers; an entity discovered by one side that the other side already holds (a
//! meeting) closes a shortest path, and every meeting of the first round that has one closes a
//! path of that same length. Each side keeps, for every entity it reached, all its parents one
//! layer closer to its root and the number of shortest paths from the root (the shortest-path
//! DAG), so the round that meets can stop as soon as the meetings found close `want` paths, and
//! those paths are read off the two DAGs without another search. The two sides are then balls
//! with exact distances from their roots, which [`crate::kpaths`] grows a layer at a time (see
//! [`Side::grow`]) to bound its enumeration of longer paths.

use crate::graph::{Graph, Halt};
use rete_core::Id;
use rustc_hash::{FxHashMap, FxHashSet};

/// What one search found.
#[derive(Debug)]
pub(crate) enum Found {
    /// Shortest paths from `from` to `to`, all of the same length, in the order of their ids:
    /// `want` of them, or fewer when there are no more of that length. With fewer, the two
    /// sides, each a ball whose radii sum to that length (see [`Side`]).
    Paths(Vec<Vec<Id>>, Option<Box<(Side, Side)>>),
    /// No path at any length: a side ran out of entities to expand.
    Exhausted,
    /// No path within the hop budget; longer ones may exist.
    HopLimit,
}

/// Entities a side's map holds before it first grows.
const REACHED_CAPACITY: usize = 64;

/// An entity a side reached.
#[derive(Debug, Clone, Copy)]
struct Reached {
    depth: u32,
    /// The first parent found (the root is its own parent); others are in [`Side::more`].
    parent: Id,
    /// Shortest paths from the root (saturating).
    paths: u64,
    /// Whether the other side holds it and a path may pass through it.
    meets: bool,
}

/// One side of the search: a ball around its root. Every entity within `depth` links of the
/// root (through entities a path may pass through, never through the other root) is in
/// `reached` with its exact distance; the links of those nearer than `depth` have been read; the
/// frontier holds those at `depth` that a later layer expands.
#[derive(Debug)]
pub(crate) struct Side {
    root: Id,
    /// The other side's root: reached, never expanded (a path ends there).
    other: Id,
    reached: FxHashMap<Id, Reached>,
    /// Parents besides [`Reached::parent`], as `(child, parent)`.
    more: Vec<(Id, Id)>,
    frontier: Vec<Id>,
    depth: u32,
}

impl Side {
    fn new(root: Id, other: Id) -> Self {
        // Sized for the few layers a search mostly reads: growing a map rehashes it, a cost a
        // search of a few microseconds feels.
        let mut reached = FxHashMap::with_capacity_and_hasher(REACHED_CAPACITY, Default::default());
        reached.insert(
            root,
            Reached {
                depth: 0,
                parent: root,
                paths: 1,
                meets: false,
            },
        );
        Self {
            root,
            other,
            reached,
            more: Vec::new(),
            frontier: vec![root],
            depth: 0,
        }
    }

    /// The radius of the ball: distances up to it are exact.
    pub(crate) fn radius(&self) -> u32 {
        self.depth
    }

    /// The distance of `id` from the root, if within the radius.
    pub(crate) fn distance(&self, id: Id) -> Option<u32> {
        self.reached.get(&id).map(|r| r.depth)
    }

    /// Entities the next layer would expand.
    pub(crate) fn frontier_len(&self) -> usize {
        self.frontier.len()
    }

    /// The entities the next layer would expand.
    pub(crate) fn frontier(&self) -> &[Id] {
        &self.frontier
    }

    /// Whether the ball holds every entity joined to the root (nothing left to expand): then an
    /// entity outside it is not joined at all.
    pub(crate) fn complete(&self) -> bool {
        self.frontier.is_empty()
    }

    /// The entities within the radius.
    pub(crate) fn members(&self) -> impl Iterator<Item = Id> + '_ {
        self.reached.keys().copied()
    }

    /// Expands the frontier by one whole layer, recording every parent of the new layer.
    pub(crate) fn grow(&mut self, g: &mut Graph<'_>) -> Result<(), Halt> {
        g.prefetch(&self.frontier)?;
        let frontier = std::mem::take(&mut self.frontier);
        let depth = self.depth + 1;
        let mut next = Vec::new();
        for u in frontier {
            if u != self.root && !g.admits(u)? {
                continue;
            }
            let neighbours = g.neighbours(u)?;
            self.reached.reserve(neighbours.len());
            for &v in neighbours.iter() {
                match self.reached.get(&v) {
                    Some(r) if r.depth == depth => self.more.push((v, u)),
                    Some(_) => {}
                    None => {
                        self.reached.insert(
                            v,
                            Reached {
                                depth,
                                parent: u,
                                paths: 0,
                                meets: false,
                            },
                        );
                        if v != self.other {
                            next.push(v);
                        }
                    }
                }
            }
        }
        self.more.sort_unstable();
        self.depth = depth;
        self.frontier = next;
        Ok(())
    }

    /// The chain of first parents from `id` back to the root.
    fn chain(&self, mut id: Id) -> Vec<Id> {
        let mut out = vec![id];
        while let Some(r) = self.reached.get(&id) {
            if r.parent == id {
                break;
            }
            out.push(r.parent);
            id = r.parent;
        }
        out
    }

    /// All parents of `id` (its neighbours one link nearer the root whose links were read),
    /// sorted (`more` must be sorted).
    pub(crate) fn parents(&self, id: Id) -> Vec<Id> {
        let mut out = Vec::new();
        self.parents_into(id, &mut out);
        out.sort_unstable();
        out
    }

    /// Appends the parents of `id` to `out`, unsorted (`more` must be sorted).
    pub(crate) fn parents_into(&self, id: Id, out: &mut Vec<Id>) {
        let Some(r) = self.reached.get(&id) else {
            return;
        };
        if id == self.root {
            return;
        }
        out.push(r.parent);
        let at = self.more.partition_point(|&(c, _)| c < id);
        out.extend(
            self.more[at..]
                .iter()
                .take_while(|&&(c, _)| c == id)
                .map(|&(_, p)| p),
        );
    }
}

/// Up to `want` shortest paths from `from` to `to` of at most `max_hops` links.
pub(crate) fn shortest(
    g: &mut Graph<'_>,
    from: Id,
    to: Id,
    max_hops: u32,
    want: usize,
) -> Result<Found, Halt> {
    let want = want.max(1);
    let mut a = Side::new(from, to);
    let mut b = Side::new(to, from);
    // Both ends in one batch: the second round expands the other end unless the first found
    // it a neighbour.
    g.prefetch(&[from, to])?;
    loop {
        if a.frontier.is_empty() || b.frontier.is_empty() {
            return Ok(Found::Exhausted);
        }
        if a.depth + b.depth >= max_hops {
            return Ok(Found::HopLimit);
        }
        let forward = a.frontier.len() <= b.frontier.len();
        let (near, far) = if forward { (&mut a, &b) } else { (&mut b, &a) };
        let meetings = expand(g, near, far, from, to, want as u64)?;
        if meetings.is_empty() {
            continue;
        }
        if want == 1 {
            let meet = meetings[0];
            let mut path = a.chain(meet);
            path.reverse();
            path.extend(b.chain(meet).into_iter().skip(1));
            return Ok(Found::Paths(vec![path], None));
        }
        a.more.sort_unstable();
        b.more.sort_unstable();
        let paths = enumerate(&a, &b, &meetings, want);
        // Fewer than wanted: the meeting layer was expanded whole, the sides are balls.
        let sides = (paths.len() < want).then(|| Box::new((a, b)));
        return Ok(Found::Paths(paths, sides));
    }
}

/// Expands `near`'s frontier by one layer, recording every parent of the new layer; stops once
/// the meetings found close `want` paths. Returns the meetings (none: no path yet).
fn expand(
    g: &mut Graph<'_>,
    near: &mut Side,
    far: &Side,
    from: Id,
    to: Id,
    want: u64,
) -> Result<Vec<Id>, Halt> {
    // The whole layer in one batch over HTTP: its reads are known now, and one request beats
    // one per entity even though the layer that meets may stop before its end.
    g.prefetch(&near.frontier)?;
    let frontier = std::mem::take(&mut near.frontier);
    let depth = near.depth + 1;
    near.depth = depth;
    let mut next = Vec::new();
    let mut meetings = Vec::new();
    // Shortest paths closed by the meetings so far.
    let mut closed: u64 = 0;
    for u in frontier {
        // Endpoints are always expanded; other entities only if a path may pass through them.
        if u != near.root && !g.admits(u)? {
            continue;
        }
        let u_paths = near.reached.get(&u).map_or(0, |r| r.paths);
        let neighbours = g.neighbours(u)?;
        // Room for them all at once: a hub's thousands of neighbours would otherwise grow the
        // map by doubling, rehashing it each time.
        near.reached.reserve(neighbours.len());
        for &v in neighbours.iter() {
            let r = match near.reached.get_mut(&v) {
                Some(r) if r.depth == depth => {
                    // One path needs only the first parents.
                    if want > 1 {
                        near.more.push((v, u));
                    }
                    r.paths = r.paths.saturating_add(u_paths);
                    *r
                }
                Some(_) => continue,
                None => {
                    let meets = match far.reached.get(&v) {
                        Some(_) => v == from || v == to || g.admits(v)?,
                        None => false,
                    };
                    let r = Reached {
                        depth,
                        parent: u,
                        paths: u_paths,
                        meets,
                    };
                    near.reached.insert(v, r);
                    if meets {
                        meetings.push(v);
                    }
                    // The ball's next layer goes on past the meetings, never through the far root.
                    if v != far.root {
                        next.push(v);
                    }
                    r
                }
            };
            if r.meets {
                let beyond = far.reached.get(&v).map_or(0, |f| f.paths);
                closed = closed.saturating_add(u_paths.saturating_mul(beyond));
                if closed >= want {
                    return Ok(meetings);
                }
            }
        }
    }
    near.frontier = next;
    Ok(meetings)
}

/// Up to `want` shortest paths through `meetings`, in the order of their ids: a depth-first walk
/// from `a`'s root down the part of `a`'s DAG that leads to a meeting, then up `b`'s parents.
fn enumerate(a: &Side, b: &Side, meetings: &[Id], want: usize) -> Vec<Vec<Id>> {
    let meets: FxHashSet<Id> = meetings.iter().copied().collect();
    let mut children: FxHashMap<Id, Vec<Id>> = FxHashMap::default();
    let mut seen = meets.clone();
    let mut stack = meetings.to_vec();
    let mut parents = Vec::new();
    while let Some(x) = stack.pop() {
        parents.clear();
        a.parents_into(x, &mut parents);
        for &p in &parents {
            children.entry(p).or_default().push(x);
            if seen.insert(p) {
                stack.push(p);
            }
        }
    }
    for c in children.values_mut() {
        c.sort_unstable();
    }
    let walk = Walk {
        b,
        children: &children,
        meets: &meets,
        want,
    };
    let mut out = Vec::new();
    walk.down(a.root, &mut vec![a.root], &mut out);
    out
}

struct Walk<'s> {
    b: &'s Side,
    children: &'s FxHashMap<Id, Vec<Id>>,
    meets: &'s FxHashSet<Id>,
    want: usize,
}

impl Walk<'_> {
    /// Along `a`'s DAG from `x` (the end of `path`) to the meetings.
    fn down(&self, x: Id, path: &mut Vec<Id>, out: &mut Vec<Vec<Id>>) {
        if self.meets.contains(&x) {
            return self.up(x, path, out);
        }
        for &c in self.children.get(&x).map_or(&[][..], |c| &c[..]) {
            path.push(c);
            self.down(c, path, out);
            path.pop();
            if out.len() == self.want {
                return;
            }
        }
    }

    /// Along `b`'s parents from `x` (the end of `path`) to `b`'s root.
    fn up(&self, x: Id, path: &mut Vec<Id>, out: &mut Vec<Vec<Id>>) {
        if x == self.b.root {
            out.push(path.clone());
            return;
        }
        for p in self.b.parents(x) {
            path.push(p);
            self.up(p, path, out);
            path.pop();
            if out.len() == self.want {
                return;
            }
        }
    }
}
