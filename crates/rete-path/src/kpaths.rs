//! The k shortest simple paths. In a graph without weights the shortest paths all lie in the
//! shortest-path DAG that the first bidirectional search explores, so one search gives up to `k`
//! of them ([`crate::bfs::shortest`] with `want = k`). Only when there are fewer than `k` of the
//! shortest length `d` are longer ones enumerated, one length `L = d + 1, d + 2, …` at a time, by
//! a depth-first walk from the start in the order of the entity ids, over simple paths, pruned
//! by the distances the first search left: its two sides are balls around the two ends with
//! exact distances, and an entity at position `i` of a path of `L` links is at most `L − i` links
//! from the end (outside the end's ball: at least its radius + 1). A first walk goes only over
//! the links already read; if it finds too few, the walk that lists them all reads links only
//! inside balls whose radii sum to `L`: the side with the smaller frontier adds the missing
//! layer lazily — the walk starts there (walking from the end, its paths are reversed) and
//! reads the links of the entities of that layer it reaches, stopping at `k` paths; the rest of
//! the layer is read only if a longer length follows. The entities of the other ball's outer
//! layer need no read: the links a walk may take from them lead one layer in, to their parents
//! in that ball. Paths come shortest first; equal lengths in the order of their ids, so an
//! answer does not depend on timing or on the byte source.

use crate::bfs::{shortest, Found, Side};
use crate::graph::{Graph, Halt};
use crate::{PathError, Stop};
use rete_core::Id;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// The paths found and why the search ended.
#[derive(Debug)]
pub(crate) struct KPaths {
    pub(crate) paths: Vec<Vec<Id>>,
    pub(crate) stop: Stop,
    /// The first search, then one enumeration per longer length.
    pub(crate) searches: u64,
    /// Entities the walks stepped on.
    pub(crate) steps: u64,
}

/// Up to `k` shortest simple paths from `from` to `to` of at most `max_hops` links.
pub(crate) fn k_shortest(
    g: &mut Graph<'_>,
    from: Id,
    to: Id,
    k: usize,
    max_hops: u32,
) -> Result<KPaths, PathError> {
    let mut out = KPaths {
        paths: Vec::new(),
        stop: Stop::Found,
        searches: 0,
        steps: 0,
    };
    match run(g, from, to, k, max_hops, &mut out) {
        Ok(stop) => out.stop = stop,
        Err(Halt::Limit(stop)) => out.stop = stop,
        Err(Halt::Fail(e)) => return Err(e),
    }
    Ok(out)
}

fn run(
    g: &mut Graph<'_>,
    from: Id,
    to: Id,
    k: usize,
    max_hops: u32,
    out: &mut KPaths,
) -> Result<Stop, Halt> {
    g.check()?;
    out.searches += 1;
    let (mut s, mut t) = match shortest(g, from, to, max_hops, k)? {
        Found::Paths(paths, sides) => {
            for p in paths {
                g.found_path();
                out.paths.push(p);
            }
            match sides {
                Some(sides) => *sides,
                None => return Ok(Stop::Found),
            }
        }
        Found::Exhausted => return Ok(Stop::Exhausted),
        Found::HopLimit => return Ok(Stop::HopLimit),
    };
    let shortest_len = out.paths.first().map_or(0, |p| p.len() as u32 - 1);
    // The most links a simple path can have, once one ball holds its whole component.
    let mut longest = None;
    for len in shortest_len + 1..=max_hops {
        if longest.is_none() {
            longest = longest_possible(g, &s, &t, from, to);
        }
        if longest.is_some_and(|l| l < len) {
            return Ok(Stop::Exhausted);
        }
        g.check()?;
        out.searches += 1;
        let need = k - out.paths.len();
        // First over the links already read: often enough, and then nothing more is read. A
        // link is known when an end of it was read, and an entity read covers at most two
        // links of a path (an end of the path one), so with too few entities read (the first
        // search read only the two ends: a path of two links, then three wanted) the walk
        // could find nothing, and is not taken.
        let ends_read = [from, to]
            .iter()
            .filter(|&&e| g.cached(e).is_some())
            .count();
        let coverable = (2 * g.expanded).saturating_sub(ends_read as u64);
        let (walked, mut found) = if coverable < u64::from(len) {
            (Ok(()), Vec::new())
        } else {
            let mut known = Walk::new(&s, &t, (from, to), (len, shortest_len), need);
            known.known_only = true;
            let walked = known.down(g);
            out.steps += known.steps;
            (walked, known.found)
        };
        // The side whose outer layer the walk may read (it walks from there), grown after.
        let mut grow = None;
        if walked.is_ok() && found.len() < need {
            // All of them: the walk reads only inside balls whose radii sum to `len` (a
            // complete ball: any), the layer that makes up the sum read lazily from the side
            // with the smaller frontier, where the walk then starts.
            let backwards = !s.complete()
                && !t.complete()
                && s.radius() + t.radius() < len
                && t.frontier_len() < s.frontier_len();
            let mut walk = if backwards {
                let mut w = Walk::new(&t, &s, (to, from), (len, shortest_len), need - found.len());
                w.skip = found
                    .iter()
                    .map(|p| p.iter().rev().copied().collect())
                    .collect();
                w
            } else {
                let mut w = Walk::new(&s, &t, (from, to), (len, shortest_len), need - found.len());
                w.skip = found.clone();
                w
            };
            if !s.complete() && !t.complete() && s.radius() + t.radius() < len {
                grow = Some(backwards);
                // Over HTTP, the layer the walk reads lazily, in one batch: a request or two
                // rather than two per entity it reaches (more bytes when it stops early).
                g.prefetch(if backwards {
                    t.frontier()
                } else {
                    s.frontier()
                })?;
            }
            let all = walk.down(g);
            out.steps += walk.steps;
            found.extend(walk.found.into_iter().map(|mut p| {
                if backwards {
                    p.reverse();
                }
                p
            }));
            found.sort_unstable();
            // A limit reached mid-walk keeps the paths found before it.
            for p in std::mem::take(&mut found) {
                g.found_path();
                out.paths.push(p);
            }
            all?;
        }
        for p in found {
            g.found_path();
            out.paths.push(p);
        }
        walked?;
        if out.paths.len() >= k {
            return Ok(Stop::Found);
        }
        if len < max_hops {
            // Mostly read by the walk already.
            match grow {
                Some(false) => s.grow(g)?,
                Some(true) => t.grow(g)?,
                None => {}
            }
        }
    }
    match longer_paths(g, (&mut s, &mut t), (from, to), shortest_len, max_hops) {
        Ok(false) => Ok(Stop::Exhausted),
        // Every path within the limit is known; a longer one may exist.
        Ok(true) | Err(Halt::Limit(Stop::VisitedLimit)) => Ok(Stop::HopLimit),
        Err(e) => Err(e),
    }
}

/// The proof that no longer path exists grows a ball only through frontiers of at most this
/// many entities, reading at most [`PROOF_READS`] in all: it completes the ball of a small or
/// thin component, and on a large one gives up at once (the answer is then
/// [`Stop::HopLimit`]), reading nothing.
const PROOF_FRONTIER: usize = 32;
const PROOF_READS: u64 = 1000;
/// Steps of the walk looking for a path longer than the limit within a complete ball.
const PROOF_STEPS: u64 = 100_000;

/// Whether a simple path of more than `max_hops` links may exist (false: proven none). Grows
/// the ball with the smaller frontier, within [`PROOF_FRONTIER`], until one is complete; then
/// bounds the longest path ([`longest_possible`]) and, above the limit, looks for one.
fn longer_paths(
    g: &mut Graph<'_>,
    (s, t): (&mut Side, &mut Side),
    (from, to): (Id, Id),
    shortest: u32,
    max_hops: u32,
) -> Result<bool, Halt> {
    let budget = g.expanded + PROOF_READS;
    while !s.complete() && !t.complete() {
        let side = if s.frontier_len() <= t.frontier_len() {
            &mut *s
        } else {
            &mut *t
        };
        if side.frontier_len() > PROOF_FRONTIER || g.expanded + side.frontier_len() as u64 > budget
        {
            return Ok(true);
        }
        side.grow(g)?;
    }
    let Some(longest) = longest_possible(g, s, t, from, to) else {
        return Ok(true);
    };
    let mut steps = PROOF_STEPS;
    for len in max_hops + 1..=longest {
        let mut walk = Walk::new(s, t, (from, to), (len, shortest), 1);
        walk.limit = steps;
        walk.down(g)?;
        if !walk.found.is_empty() || walk.gave_up {
            return Ok(true);
        }
        steps = steps.saturating_sub(walk.steps);
    }
    Ok(false)
}

/// A depth-first walk from the start over the simple paths of exactly `len` links, each entity
/// at position `i` at most `len − i` links from the end by the end's ball.
struct Walk<'b> {
    start: &'b Side,
    end: &'b Side,
    to: Id,
    len: u32,
    /// The links of a shortest path between the ends.
    shortest: u32,
    want: usize,
    path: Vec<Id>,
    found: Vec<Vec<Id>>,
    /// Paths found already, not counted again.
    skip: Vec<Vec<Id>>,
    /// Only over links already read: from an entity not read, to its parents in either ball.
    known_only: bool,
    /// Entities stepped on, for checking the deadline now and then (the walk may read nothing).
    steps: u64,
    /// At most this many steps, then `gave_up`.
    limit: u64,
    gave_up: bool,
    /// Buffers for the parents of the entities on the path, reused.
    pool: Vec<Vec<Id>>,
}

impl<'b> Walk<'b> {
    /// A walk over the paths of `len` links from `from` to `to`, which are `shortest` links
    /// apart.
    fn new(
        start: &'b Side,
        end: &'b Side,
        (from, to): (Id, Id),
        (len, shortest): (u32, u32),
        want: usize,
    ) -> Self {
        Self {
            start,
            end,
            to,
            len,
            shortest,
            want,
            path: vec![from],
            found: Vec::new(),
            skip: Vec::new(),
            known_only: false,
            steps: 0,
            limit: u64::MAX,
            gave_up: false,
            pool: Vec::new(),
        }
    }

    /// The fewest links from `id` to the end: exact inside the end's ball, beyond it one more
    /// than its radius, and never when the ball is complete.
    fn to_end(&self, id: Id) -> u32 {
        match self.end.distance(id) {
            Some(d) => d,
            None if self.end.complete() => u32::MAX,
            None => self.end.radius() + 1,
        }
    }

    /// Whether, over the links already read, a path stepping on `w` with `bound` links left
    /// after it cannot reach the end. Outside the end's ball and not read, `w`'s only known
    /// links lead to its parents in the start's ball, one link nearer the start: from one of
    /// them the end is at least `shortest − (k − 1)` links away (`k`: `w`'s distance from the
    /// start; else a path shorter than the shortest would exist), more than the `bound − 1`
    /// left unless `k + bound ≥ shortest + 2`. The walk would find nothing past `w`; this
    /// spares it listing and trying `w`'s parents (on a graph with hubs, hundreds of entities
    /// one step from the start's outer layer, each with its parents).
    fn stuck(&self, g: &Graph<'_>, w: Id, bound: u32) -> bool {
        self.end.distance(w).is_none()
            && !g.is_read(w)
            && self
                .start
                .distance(w)
                .is_none_or(|k| k + bound < self.shortest + 2)
    }

    /// The path, ending next to the end, closed by the end: found unless skipped.
    fn close(&mut self) {
        let mut p = Vec::with_capacity(self.path.len() + 1);
        p.extend_from_slice(&self.path);
        p.push(self.to);
        if !self.skip.contains(&p) {
            self.found.push(p);
        }
    }

    /// The entities a path may take after `v` when they must be at most `bound` links from the
    /// end, sorted: `v`'s neighbours, read if needed — but for an entity of the end ball's outer
    /// layer going inwards, its parents there (whose links were read) are all such neighbours.
    fn next(&mut self, g: &mut Graph<'_>, v: Id, bound: u32) -> Result<Next, Halt> {
        if let Some(n) = g.cached(v) {
            return Ok(Next::Read(n));
        }
        let radius = self.end.radius();
        // Going inwards from the end ball's outer layer, the parents there are all that may follow.
        let inwards = bound < radius && self.end.distance(v) == Some(radius);
        if !self.known_only && !inwards {
            return Ok(Next::Read(g.neighbours(v)?));
        }
        // Parents, gathered into a buffer of the pool: the walk takes thousands of such steps.
        let mut n = self.pool.pop().unwrap_or_default();
        n.clear();
        self.end.parents_into(v, &mut n);
        if self.known_only {
            // The neighbours of `v` whose links were read are its parents in the two balls.
            self.start.parents_into(v, &mut n);
        }
        n.sort_unstable();
        n.dedup();
        Ok(Next::Known(n))
    }

    /// Extends the path (ending at an entity a path may pass through) in id order; stops once
    /// `want` paths are found.
    fn down(&mut self, g: &mut Graph<'_>) -> Result<(), Halt> {
        let Some(&v) = self.path.last() else {
            return Ok(());
        };
        // Links left after the next step.
        let bound = self.len - self.path.len() as u32;
        let next = self.next(g, v, bound)?;
        let walked = self.over(g, next.ids(), bound);
        if let Next::Known(buffer) = next {
            self.pool.push(buffer);
        }
        walked
    }

    /// [`Walk::down`] over the entities `next` that may follow the path's last.
    fn over(&mut self, g: &mut Graph<'_>, next: &[Id], bound: u32) -> Result<(), Halt> {
        if bound == 0 {
            if next.binary_search(&self.to).is_ok() {
                self.close();
            }
            return Ok(());
        }
        // One link left after the next step, and the end's ball has exact distances: an entity
        // one link from the end closes a path at once (nothing to read or walk for its links).
        let closing = bound == 1 && self.end.radius() >= 1;
        // Beyond the end ball's radius every entity is near enough (when the ball is not
        // complete): no distance to look up.
        let near_enough = !self.end.complete() && bound > self.end.radius();
        for &w in next {
            // A path holds at most 13 entities: a scan beats a set.
            if w == self.to
                || (!near_enough && self.to_end(w) > bound)
                || self.path.contains(&w)
                || (self.known_only && !closing && self.stuck(g, w, bound))
            {
                continue;
            }
            if !g.admits(w)? {
                continue;
            }
            self.steps += 1;
            if self.steps % 1024 == 0 {
                g.check()?;
            }
            if self.steps > self.limit {
                self.gave_up = true;
                return Ok(());
            }
            self.path.push(w);
            if closing {
                self.close();
            } else {
                self.down(g)?;
            }
            self.path.pop();
            if self.found.len() == self.want || self.gave_up {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// What may follow an entity on a walk: its links as read, or its parents in the balls.
enum Next {
    Read(Arc<[Id]>),
    Known(Vec<Id>),
}

impl Next {
    fn ids(&self) -> &[Id] {
        match self {
            Next::Read(n) => n,
            Next::Known(n) => n,
        }
    }
}

/// With a complete ball (every entity joined to its root known, and the links of those a path
/// may pass through read), the most links a simple path between the ends can have: the entities
/// left after peeling, again and again, those with fewer than two links among the others (a path
/// enters and leaves an inner entity), minus one. None while neither ball is complete.
fn longest_possible(g: &Graph<'_>, s: &Side, t: &Side, from: Id, to: Id) -> Option<u32> {
    let ball = match (s.complete(), t.complete()) {
        (true, _) => s,
        (_, true) => t,
        _ => return None,
    };
    // Entities a path may use: the ends, and those whose links were read (the admitted ones).
    let mut links: FxHashMap<Id, FxHashSet<Id>> = ball
        .members()
        .filter(|&x| x == from || x == to || g.cached(x).is_some())
        .map(|x| (x, FxHashSet::default()))
        .collect();
    let members: Vec<Id> = links.keys().copied().collect();
    for &u in &members {
        let Some(n) = g.cached(u) else { continue };
        for &v in n.iter() {
            if v != u && links.contains_key(&v) {
                links.entry(u).or_default().insert(v);
                links.entry(v).or_default().insert(u);
            }
        }
    }
    let mut weak: Vec<Id> = links
        .iter()
        .filter(|&(&x, n)| x != from && x != to && n.len() < 2)
        .map(|(&x, _)| x)
        .collect();
    while let Some(x) = weak.pop() {
        let Some(n) = links.remove(&x) else { continue };
        for y in n {
            if let Some(m) = links.get_mut(&y) {
                m.remove(&x);
                if y != from && y != to && m.len() < 2 {
                    weak.push(y);
                }
            }
        }
    }
    Some(links.len().saturating_sub(1) as u32)
}
