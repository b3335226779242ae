//! The links behind each step of a path: a step joins two entities, and every allowed link
//! between them, either way, is listed (the first is the one shown first). Two reads per step
//! (the SOP range of each orientation).

use crate::graph::Graph;
use crate::{Link, PathError, Step};
use rete_core::{Id, Pattern, Perm};

/// At most this many links listed per step (two entities rarely share more).
pub const MAX_LINKS_PER_STEP: usize = 16;

/// The steps of a path of entity ids, with their links decoded.
pub(crate) fn steps(g: &mut Graph<'_>, path: &[Id]) -> Result<Vec<Step>, PathError> {
    let mut out = Vec::with_capacity(path.len().saturating_sub(1));
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mut links = Vec::new();
        let mut more = 0usize;
        for (s, o, forward) in [(a, b, true), (b, a, false)] {
            for q in g
                .rete
                .scan(Perm::Sop, &Pattern::new(Some(s), None, Some(o)))?
            {
                let q = q?;
                if !g.preds.allows(g.rete, q[1])? {
                    continue;
                }
                if links.len() == MAX_LINKS_PER_STEP {
                    more += 1;
                    continue;
                }
                // The same link in several graphs is one step link.
                if links
                    .iter()
                    .any(|l: &(Id, Id, Id, bool)| l.0 == q[0] && l.1 == q[1] && l.2 == q[2])
                {
                    continue;
                }
                links.push((q[0], q[1], q[2], forward));
            }
        }
        let mut decoded = Vec::with_capacity(links.len());
        for (s, p, o, forward) in links {
            decoded.push(Link {
                subject: g.rete.term(s)?.to_string(),
                predicate: g.rete.term(p)?.to_string(),
                object: g.rete.term(o)?.to_string(),
                forward,
            });
        }
        out.push(Step {
            from: g.rete.term(a)?.to_string(),
            to: g.rete.term(b)?.to_string(),
            links: decoded,
            more_links: more,
        });
    }
    Ok(out)
}
