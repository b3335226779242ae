//! Property paths over ids: sequences and alternatives keep duplicates (they are joins and
//! unions), `*`, `+` and `?` give each reachable node once per start node (breadth-first over
//! index scans). A constant end of a zero-length path matches itself even when the file does
//! not hold it.

use super::ctx::{Active, Id, UNBOUND};
use super::eval::Engine;
use super::plan::PathE;
use crate::SparqlError;
use rete_core::Pattern;
use rustc_hash::FxHashSet;

/// Pairs `(start, end)` of `path` with the given ends fixed.
pub fn pairs(
    eng: &Engine,
    path: &PathE,
    s: Option<Id>,
    o: Option<Id>,
    g: Active,
) -> Result<Vec<(Id, Id)>, SparqlError> {
    let ctx = &eng.ctx;
    let mut out = Vec::new();
    let mut held = ctx.held("the pairs of a property path");
    match path {
        PathE::Pred(p) => {
            // A term outside the file matches no quad.
            if [Some(*p), s, o].iter().flatten().any(|&i| !ctx.in_dict(i)) {
                return Ok(out);
            }
            let pat = Pattern::new(s, Some(*p), o).in_graph(Engine::graph_match(g));
            for q in ctx.rete.quads(&pat)? {
                let q = q?;
                ctx.check()?;
                out.push((q[0], q[2]));
            }
        }
        PathE::Neg(list) => {
            if [s, o].iter().flatten().any(|&i| !ctx.in_dict(i)) {
                return Ok(out);
            }
            let pat = Pattern::new(s, None, o).in_graph(Engine::graph_match(g));
            for q in ctx.rete.quads(&pat)? {
                let q = q?;
                ctx.check()?;
                if !list.contains(&q[1]) {
                    out.push((q[0], q[2]));
                }
            }
        }
        PathE::Inv(a) => {
            for (x, y) in pairs(eng, a, o, s, g)? {
                out.push((y, x));
            }
        }
        PathE::Alt(a, b) => {
            out = pairs(eng, a, s, o, g)?;
            out.extend(pairs(eng, b, s, o, g)?);
        }
        PathE::Seq(a, b) => {
            if s.is_none() && o.is_some() {
                for (m, y) in pairs(eng, b, None, o, g)? {
                    for (x, _) in pairs(eng, a, None, Some(m), g)? {
                        out.push((x, y));
                    }
                }
            } else {
                for (x, m) in pairs(eng, a, s, None, g)? {
                    for (_, y) in pairs(eng, b, Some(m), o, g)? {
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
                    for y in closure(eng, a, x, zero, one_step, false, g)? {
                        if o.is_none_or(|o| o == y) {
                            out.push((x, y));
                        }
                    }
                }
                (None, Some(y)) => {
                    for x in closure(eng, a, y, zero, one_step, true, g)? {
                        out.push((x, y));
                    }
                }
                (None, None) => {
                    // Every node of the graph starts a walk (zero-length paths included).
                    let starts: Vec<Id> = if zero {
                        graph_nodes(eng, g)?
                    } else {
                        let mut v: Vec<Id> = pairs(eng, a, None, None, g)?
                            .into_iter()
                            .map(|(x, _)| x)
                            .collect();
                        v.sort_unstable();
                        v.dedup();
                        v
                    };
                    for x in starts {
                        for y in closure(eng, a, x, zero, one_step, false, g)? {
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

/// Nodes reachable from `start` (forward, or backward with `reverse`).
fn closure(
    eng: &Engine,
    a: &PathE,
    start: Id,
    zero: bool,
    one_step: bool,
    reverse: bool,
    g: Active,
) -> Result<Vec<Id>, SparqlError> {
    let mut seen: FxHashSet<Id> = FxHashSet::default();
    let mut out = Vec::new();
    // Each node is held three times: `out`, `seen` and `visited`.
    let mut held = eng.ctx.held("the nodes of a path closure");
    let mut counted = 0;
    if zero {
        seen.insert(start);
        out.push(start);
    }
    let mut frontier = vec![start];
    let mut visited: FxHashSet<Id> = FxHashSet::default();
    visited.insert(start);
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for x in frontier {
            let step = if reverse {
                pairs(eng, a, None, Some(x), g)?
                    .into_iter()
                    .map(|(y, _)| y)
                    .collect::<Vec<_>>()
            } else {
                pairs(eng, a, Some(x), None, g)?
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
fn graph_nodes(eng: &Engine, g: Active) -> Result<Vec<Id>, SparqlError> {
    let mut v = Vec::new();
    let pat = Pattern::default().in_graph(Engine::graph_match(g));
    for q in eng.ctx.rete.quads(&pat)? {
        let q = q?;
        eng.ctx.check()?;
        v.push(q[0]);
        v.push(q[2]);
    }
    v.sort_unstable();
    v.dedup();
    v.retain(|&x| x != UNBOUND);
    Ok(v)
}

/// Whether `x` is a subject or object of the active graph.
pub fn is_node(eng: &Engine, x: Id, g: Active) -> Result<bool, SparqlError> {
    if !eng.ctx.in_dict(x) {
        return Ok(false);
    }
    let gm = Engine::graph_match(g);
    for pat in [
        Pattern::new(Some(x), None, None).in_graph(gm),
        Pattern::new(None, None, Some(x)).in_graph(gm),
    ] {
        if let Some(q) = eng.ctx.rete.quads(&pat)?.next() {
            q?;
            return Ok(true);
        }
    }
    Ok(false)
}
