//! The k shortest simple paths by Yen's algorithm over [`crate::bfs::shortest`]: path i + 1 is
//! the shortest of the candidates made by leaving path i at each of its entities (the spur)
//! along a shortest detour that avoids the root before the spur and the links the known paths
//! with the same root take next. With Lawler's refinement, a path's spurs start where it left its
//! parent path (the earlier spurs were tried when the parent was found), which halves the
//! searches on average. Paths come shortest first; equal lengths in a fixed order (by
//! their entity ids), so an answer does not depend on timing or on the byte source.

use crate::bfs::{shortest, Bans, Found};
use crate::graph::{Graph, Halt};
use crate::{PathError, Stop};
use rete_core::Id;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// The paths found and why the search ended.
#[derive(Debug)]
pub(crate) struct KPaths {
    pub(crate) paths: Vec<Vec<Id>>,
    pub(crate) stop: Stop,
    /// Shortest-path searches run.
    pub(crate) searches: u64,
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
    match shortest(g, from, to, max_hops, &Bans::default())? {
        Found::Path(p) => {
            g.found_path();
            out.paths.push(p);
        }
        Found::Exhausted => return Ok(Stop::Exhausted),
        Found::HopLimit => return Ok(Stop::HopLimit),
    }
    // Candidates ordered by (length, entities): the shortest first, ties in a fixed order; and
    // where each leaves its parent (the smallest index if several parents gave it: trying more
    // spurs is always safe).
    let mut candidates: BTreeSet<(usize, Vec<Id>)> = BTreeSet::new();
    let mut leaves: FxHashMap<Vec<Id>, usize> = FxHashMap::default();
    let mut deviation = 0;
    // Whether some detour search stopped at the hop limit (longer paths may then exist).
    let mut cut_by_hops = false;
    while out.paths.len() < k {
        let Some(last) = out.paths.last().cloned() else {
            break;
        };
        for i in deviation..last.len() - 1 {
            g.check()?;
            let root = &last[..=i];
            let mut bans = Bans::default();
            for p in &out.paths {
                if p.len() > i + 1 && &p[..=i] == root {
                    bans.links.insert((p[i].min(p[i + 1]), p[i].max(p[i + 1])));
                }
            }
            bans.nodes.extend(root[..i].iter().copied());
            let budget = max_hops - i as u32;
            out.searches += 1;
            match shortest(g, last[i], to, budget, &bans)? {
                Found::Path(spur) => {
                    let mut path = root[..i].to_vec();
                    path.extend(spur);
                    if !out.paths.contains(&path) {
                        let at = leaves.entry(path.clone()).or_insert(i);
                        *at = (*at).min(i);
                        candidates.insert((path.len(), path));
                    }
                }
                Found::HopLimit => cut_by_hops = true,
                Found::Exhausted => {}
            }
        }
        match candidates.pop_first() {
            Some((_, p)) => {
                g.found_path();
                deviation = leaves.remove(&p).unwrap_or(0);
                out.paths.push(p);
            }
            None => {
                return Ok(if cut_by_hops {
                    Stop::HopLimit
                } else {
                    Stop::Exhausted
                })
            }
        }
    }
    Ok(Stop::Found)
}
