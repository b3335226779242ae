//! The k shortest simple paths. In a graph without weights the shortest paths all lie in the
//! shortest-path DAG that the first bidirectional search explores, so one search gives up to `k`
//! of them ([`crate::bfs::shortest`] with `want = k`). Only when there are fewer than `k` of the
//! shortest length do the longer ones come from Yen's algorithm with Lawler's refinement: the next
//! path is the shortest of the candidates made by leaving a known path at one of its entities
//! (the spur) along a shortest detour that avoids the root before the spur and the links the
//! known paths with the same root take next; a path's spurs start where it left its parent path.
//! The shortest paths seed it as a trie: each of its branch points is searched once, every known
//! next step banned. Detours are searched lazily, each up to a bound on its length raised one
//! link at a time (see [`Work`]). Paths come shortest first; equal lengths in a fixed order (by
//! their entity ids), so an answer does not depend on timing or on the byte source.

use crate::bfs::{shortest, Bans, Found};
use crate::graph::{Graph, Halt};
use crate::{PathError, Stop};
use rete_core::Id;
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

/// Yen's work list, shortest first: a candidate path, or a detour not searched yet (the paths
/// leaving known path `.1` at its entity `.2` — the spur — then avoiding the root before the spur
/// and the next links of the known paths with that root) with a lower bound on its length. A
/// detour is searched only up to its bound; one that finds nothing goes back with the bound one
/// higher. So the long searches of detours that lead nowhere short are never run when enough
/// shorter paths exist. A detour sorts before a candidate of the same length (it may hold a path
/// of that length that comes first), candidates of one length in the order of their ids.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Work {
    Detour(u32, usize, usize),
    Candidate(u32, Vec<Id>, usize),
}

impl Work {
    fn length(&self) -> u32 {
        match self {
            Work::Detour(l, ..) | Work::Candidate(l, ..) => *l,
        }
    }
}

/// Orders [`Work`] by length first, then detours before candidates.
#[derive(Debug, PartialEq, Eq)]
struct Ranked(Work);

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.0.length(), &self.0).cmp(&(other.0.length(), &other.0))
    }
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
    match shortest(g, from, to, max_hops, &Bans::default(), k)? {
        Found::Paths(paths) => {
            for p in paths {
                g.found_path();
                out.paths.push(p);
            }
        }
        Found::Exhausted => return Ok(Stop::Exhausted),
        Found::HopLimit => return Ok(Stop::HopLimit),
    }
    if out.paths.len() >= k {
        return Ok(Stop::Found);
    }
    // Every path of the shortest length is known: the others are at least one link longer.
    let longer = out.paths[0].len() as u32;
    let mut work = BTreeSet::new();
    // The shortest paths, in the order of their ids, as a trie: each one's detours start past
    // the prefix it shares with the previous one (the earlier branch points are that one's).
    for j in 0..out.paths.len() {
        let start = match j {
            0 => 0,
            _ => shared_prefix(&out.paths[j - 1], &out.paths[j]),
        };
        for i in start..out.paths[j].len() - 1 {
            work.insert(Ranked(Work::Detour(longer, j, i)));
        }
    }
    // Whether some detour search stopped at the hop limit (longer paths may then exist).
    let mut cut_by_hops = false;
    while out.paths.len() < k {
        g.check()?;
        let Some(Ranked(next)) = work.pop_first() else {
            return Ok(if cut_by_hops {
                Stop::HopLimit
            } else {
                Stop::Exhausted
            });
        };
        match next {
            Work::Candidate(len, p, deviation) => {
                // Found by two detours: the first popped had the smaller deviation.
                if out.paths.contains(&p) {
                    continue;
                }
                g.found_path();
                out.paths.push(p);
                let j = out.paths.len() - 1;
                for i in deviation..len as usize {
                    work.insert(Ranked(Work::Detour(len.max(i as u32 + 1), j, i)));
                }
            }
            Work::Detour(bound, j, i) => {
                if bound > max_hops {
                    cut_by_hops = true;
                    continue;
                }
                out.searches += 1;
                match detour(g, out, to, j, i, bound)? {
                    Found::Paths(mut spur) => {
                        let Some(spur) = spur.pop() else { continue };
                        let mut path = out.paths[j][..i].to_vec();
                        path.extend(spur);
                        if !out.paths.contains(&path) {
                            work.insert(Ranked(Work::Candidate(path.len() as u32 - 1, path, i)));
                        }
                    }
                    Found::HopLimit => {
                        work.insert(Ranked(Work::Detour(bound + 1, j, i)));
                    }
                    Found::Exhausted => {}
                }
            }
        }
    }
    Ok(Stop::Found)
}

/// A shortest detour of path `j` from its entity `i` of at most `bound` links in all.
fn detour(
    g: &mut Graph<'_>,
    out: &KPaths,
    to: Id,
    j: usize,
    i: usize,
    bound: u32,
) -> Result<Found, Halt> {
    let path = &out.paths[j];
    let root = &path[..=i];
    let mut bans = Bans::default();
    bans.nodes.extend(root[..i].iter().copied());
    for p in &out.paths {
        if p.len() > i + 1 && &p[..=i] == root {
            bans.links.insert((p[i].min(p[i + 1]), p[i].max(p[i + 1])));
        }
    }
    shortest(g, path[i], to, bound - i as u32, &bans, 1)
}

/// The number of leading entities two paths share.
fn shared_prefix(a: &[Id], b: &[Id]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
