//! The links behind each step of a path: a step joins two entities, and every allowed link
//! between them, either way, is listed (those along the path first). The search kept the links
//! of every entity it read, and a step always has such an end, so listing them reads nothing
//! (else the SOP range of each orientation is read).

use crate::graph::Graph;
use crate::{Link, PathError, Step};
use rete_core::{Id, Pattern, Perm};

/// At most this many links listed per step (two entities rarely share more).
pub const MAX_LINKS_PER_STEP: usize = 16;

/// The step from `a` to `b`.
pub(crate) fn step(g: &mut Graph<'_>, a: Id, b: Id) -> Result<Step, PathError> {
    let mut links = match g.links_between(a, b) {
        Some(kept) => kept,
        None => read_links(g, a, b)?,
    };
    let more_links = links.len().saturating_sub(MAX_LINKS_PER_STEP);
    links.truncate(MAX_LINKS_PER_STEP);
    Ok(Step { links, more_links })
}

/// The allowed links between `a` and `b` as [`Graph::links_between`] gives them, read from the
/// SOP ranges of both orientations (a triple in several graphs once).
fn read_links(g: &mut Graph<'_>, a: Id, b: Id) -> Result<Vec<Link>, PathError> {
    let mut out = Vec::new();
    for (s, o, forward) in [(a, b, true), (b, a, false)] {
        let mut part = Vec::new();
        for q in g
            .rete
            .scan(Perm::Sop, &Pattern::new(Some(s), None, Some(o)))?
        {
            let q = q?;
            if g.preds.allows(g.rete, q[1])? {
                part.push(q[1]);
            }
        }
        part.sort_unstable();
        part.dedup();
        out.extend(
            part.into_iter()
                .map(|predicate| Link { predicate, forward }),
        );
    }
    Ok(out)
}
