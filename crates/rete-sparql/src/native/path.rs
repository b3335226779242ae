//! Property paths over ids: sequences and alternatives keep duplicates (they are joins and
//! unions), `*`, `+` and `?` give each reachable node once per start node (breadth-first over
//! index scans). A constant end of a zero-length path matches itself even when the file does
//! not hold it.

use super::adjacency::{Adj, StepCache};
use super::ctx::Ctx;
use super::plan::PathE;
use super::row::{Active, Id, UNBOUND};
use crate::SparqlError;
use rete_core::Pattern;
use rustc_hash::FxHashSet;
use std::rc::Rc;

/// Pairs `(start, end)` of `path` with the given ends fixed.
pub fn pairs(
    ctx: &Ctx,
    path: &PathE,
    s: Option<Id>,
    o: Option<Id>,
    g: Active,
) -> Result<Vec<(Id, Id)>, SparqlError> {
    let mut out = Vec::new();
    let mut held = ctx.held("the pairs of a property path");
    match path {
        PathE::Pred(p) => {
            // A term outside the file matches no quad.
            if [Some(*p), s, o].iter().flatten().any(|&i| !ctx.in_dict(i)) {
                return Ok(out);
            }
            for q in ctx.scan(s, Some(*p), o, g)? {
                let q = q?;
                ctx.check()?;
                out.push((q[0], q[2]));
            }
        }
        PathE::Neg(list) => {
            if [s, o].iter().flatten().any(|&i| !ctx.in_dict(i)) {
                return Ok(out);
            }
            for q in ctx.scan(s, None, o, g)? {
                let q = q?;
                ctx.check()?;
                if !list.contains(&q[1]) {
                    out.push((q[0], q[2]));
                }
            }
        }
        PathE::Inv(a) => {
            for (x, y) in pairs(ctx, a, o, s, g)? {
                out.push((y, x));
            }
        }
        PathE::Alt(a, b) => {
            out = pairs(ctx, a, s, o, g)?;
            out.extend(pairs(ctx, b, s, o, g)?);
        }
        PathE::Seq(a, b) => {
            if s.is_none() && o.is_some() {
                for (m, y) in pairs(ctx, b, None, o, g)? {
                    for (x, _) in pairs(ctx, a, None, Some(m), g)? {
                        out.push((x, y));
                    }
                }
            } else {
                for (x, m) in pairs(ctx, a, s, None, g)? {
                    for (_, y) in pairs(ctx, b, Some(m), o, g)? {
                        out.push((x, y));
                        held.grow(16)?;
                    }
                }
            }
        }
        PathE::Star(a) | PathE::Plus(a) | PathE::Opt(a) => {
            let zero = !matches!(path, PathE::Plus(_));
            let one_step = matches!(path, PathE::Opt(_));
            match (s, o) {
                (Some(x), _) => {
                    for y in closure(ctx, a, x, zero, one_step, false, g)? {
                        if o.is_none_or(|o| o == y) {
                            out.push((x, y));
                        }
                    }
                }
                (None, Some(y)) => {
                    for x in closure(ctx, a, y, zero, one_step, true, g)? {
                        out.push((x, y));
                    }
                }
                (None, None) => {
                    // A walk from every node visits every edge: load the step's adjacency
                    // up front when it can be.
                    if !one_step && edge_bound(ctx, a)?.is_some() {
                        let cache = step_cache(ctx, a, g, false);
                        adjacency(ctx, a, g, false, &cache)?;
                    }
                    // Every node of the graph starts a walk (zero-length paths included).
                    let starts: Vec<Id> = if zero {
                        graph_nodes(ctx, g)?
                    } else {
                        let mut v: Vec<Id> = pairs(ctx, a, None, None, g)?
                            .into_iter()
                            .map(|(x, _)| x)
                            .collect();
                        v.sort_unstable();
                        v.dedup();
                        v
                    };
                    for x in starts {
                        for y in closure(ctx, a, x, zero, one_step, false, g)? {
                            out.push((x, y));
                            held.grow(16)?;
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Step probes per edge of the step's index range past which a closure loads the step's whole
/// adjacency instead: a probe is a directory search plus, on a cold cache, a block decode,
/// while loading decodes each block of the range once.
const PROBES_PER_EDGE: u64 = 32;

/// An upper bound of the edges of a step path, when its adjacency can be loaded in one pass
/// over index ranges (predicates, inverses, alternatives, negated sets); `None` otherwise.
fn edge_bound(ctx: &Ctx, a: &PathE) -> Result<Option<u64>, SparqlError> {
    Ok(match a {
        PathE::Pred(p) if !ctx.in_dict(*p) => Some(0),
        PathE::Pred(p) => Some(ctx.rete.count(&Pattern::new(None, Some(*p), None))?),
        PathE::Neg(_) => Some(ctx.rete.quad_count()),
        PathE::Inv(x) => edge_bound(ctx, x)?,
        PathE::Alt(x, y) => match (edge_bound(ctx, x)?, edge_bound(ctx, y)?) {
            (Some(x), Some(y)) => Some(x + y),
            _ => None,
        },
        _ => None,
    })
}

/// The state of step path `a` in graph `g` and direction `reverse`.
fn step_cache(ctx: &Ctx, a: &PathE, g: Active, reverse: bool) -> Rc<StepCache> {
    let key = (std::ptr::from_ref(a) as usize, g, reverse);
    ctx.paths.borrow_mut().entry(key).or_default().clone()
}

/// The adjacency of step `a` (edges reversed with `reverse`), loaded once per query.
fn adjacency(
    ctx: &Ctx,
    a: &PathE,
    g: Active,
    reverse: bool,
    cache: &StepCache,
) -> Result<Option<Rc<Adj>>, SparqlError> {
    if let Some(adj) = cache.adj.get() {
        return Ok(adj.clone());
    }
    let mut held = ctx.held("the adjacency of a transitive path");
    let mut edges = pairs(ctx, a, None, None, g)?;
    held.grow(edges.len() * 16)?;
    if reverse {
        for e in &mut edges {
            *e = (e.1, e.0);
        }
    }
    // Query-local ids (constants outside the file) never occur in index scans.
    let adj = Adj::build(&edges, ctx.n).map(Rc::new);
    drop(edges);
    let mut kept = ctx.held("the adjacency of a transitive path");
    if let Some(adj) = &adj {
        kept.grow(adj.bytes())?;
    }
    // The adjacency lives as long as the query.
    kept.keep();
    drop(held);
    let _ = cache.adj.set(adj.clone());
    Ok(adj)
}

/// Nodes reachable from `start` (forward, or backward with `reverse`). `*` and `+` walk
/// level by level; a walk that would probe the step more often than its index range is
/// long loads the step's adjacency once (shared by every later walk of the query) and walks
/// that in memory instead.
fn closure(
    ctx: &Ctx,
    a: &PathE,
    start: Id,
    zero: bool,
    one_step: bool,
    reverse: bool,
    g: Active,
) -> Result<Vec<Id>, SparqlError> {
    let mut held = ctx.held("the nodes of a path closure");
    let cache = (!one_step).then(|| step_cache(ctx, a, g, reverse));
    let bound = match &cache {
        Some(c) => match c.bound.get() {
            Some(b) => *b,
            None => {
                let b = edge_bound(ctx, a)?;
                let _ = c.bound.set(b);
                b
            }
        },
        None => None,
    };
    if let (Some(cache), Some(_)) = (&cache, bound) {
        if cache.adj.get().is_some() {
            if let Some(adj) = adjacency(ctx, a, g, reverse, cache)? {
                return adj.walk(start, zero, &mut held);
            }
        }
    }
    let mut seen: FxHashSet<Id> = FxHashSet::default();
    let mut out = Vec::new();
    // Each node is held three times: `out`, `seen` and `visited`.
    let mut counted = 0;
    if zero {
        seen.insert(start);
        out.push(start);
    }
    let mut frontier = vec![start];
    let mut visited: FxHashSet<Id> = FxHashSet::default();
    visited.insert(start);
    while !frontier.is_empty() {
        if let (Some(cache), Some(edges)) = (&cache, bound) {
            let probes = cache.probes.get() + frontier.len() as u64;
            cache.probes.set(probes);
            if probes.saturating_mul(PROBES_PER_EDGE) > edges {
                if let Some(adj) = adjacency(ctx, a, g, reverse, cache)? {
                    drop(held);
                    let mut held = ctx.held("the nodes of a path closure");
                    return adj.walk(start, zero, &mut held);
                }
            }
        }
        // Probing in id order keeps consecutive probes in the same index blocks.
        frontier.sort_unstable();
        let mut next = Vec::new();
        for x in frontier {
            let step = if reverse {
                pairs(ctx, a, None, Some(x), g)?
                    .into_iter()
                    .map(|(y, _)| y)
                    .collect::<Vec<_>>()
            } else {
                pairs(ctx, a, Some(x), None, g)?
                    .into_iter()
                    .map(|(_, y)| y)
                    .collect()
            };
            for y in step {
                if seen.insert(y) {
                    out.push(y);
                }
                if !one_step && visited.insert(y) {
                    next.push(y);
                }
            }
        }
        held.grow((out.len() - counted) * 24)?;
        counted = out.len();
        if one_step {
            break;
        }
        frontier = next;
    }
    Ok(out)
}

/// Every subject and object of the active graph.
fn graph_nodes(ctx: &Ctx, g: Active) -> Result<Vec<Id>, SparqlError> {
    let mut v = Vec::new();
    for q in ctx.scan(None, None, None, g)? {
        let q = q?;
        ctx.check()?;
        v.push(q[0]);
        v.push(q[2]);
    }
    v.sort_unstable();
    v.dedup();
    v.retain(|&x| x != UNBOUND);
    Ok(v)
}

/// Whether `x` is a subject or object of the active graph.
pub fn is_node(ctx: &Ctx, x: Id, g: Active) -> Result<bool, SparqlError> {
    if !ctx.in_dict(x) {
        return Ok(false);
    }
    for (s, o) in [(Some(x), None), (None, Some(x))] {
        if let Some(q) = ctx.scan(s, None, o, g)?.next() {
            q?;
            return Ok(true);
        }
    }
    Ok(false)
}
