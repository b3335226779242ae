//! The links behind each step of a path: a step joins two entities, and every allowed link
//! between them, either way, is listed (the first is the one shown first). Two reads per step
//! (the SOP range of each orientation), each step and each entity decoded once per answer.

use crate::graph::Graph;
use crate::{Link, PathError, Step};
use rete_core::{Id, Pattern, Perm};
use rustc_hash::FxHashMap;

/// At most this many links listed per step (two entities rarely share more).
pub const MAX_LINKS_PER_STEP: usize = 16;

/// Decodes the steps and entities of the paths of one answer, each once: the paths of an
/// answer share entities and steps (often their first and last ones), and decoding a term or
/// the links of a step costs dictionary and index reads.
#[derive(Default)]
pub(crate) struct Decoder {
    terms: FxHashMap<Id, String>,
    steps: FxHashMap<(Id, Id), Step>,
}

impl Decoder {
    /// The term `id` in N-Triples syntax.
    pub(crate) fn term(&mut self, g: &Graph<'_>, id: Id) -> Result<String, PathError> {
        if let Some(t) = self.terms.get(&id) {
            return Ok(t.clone());
        }
        let t = g.rete.term(id)?.to_string();
        self.terms.insert(id, t.clone());
        Ok(t)
    }

    /// The steps of a path of entity ids, with their links decoded.
    pub(crate) fn steps(&mut self, g: &mut Graph<'_>, path: &[Id]) -> Result<Vec<Step>, PathError> {
        let mut out = Vec::with_capacity(path.len().saturating_sub(1));
        for w in path.windows(2) {
            if let Some(step) = self.steps.get(&(w[0], w[1])) {
                out.push(step.clone());
                continue;
            }
            let step = self.step(g, w[0], w[1])?;
            self.steps.insert((w[0], w[1]), step.clone());
            out.push(step);
        }
        Ok(out)
    }

    /// The step from `a` to `b`.
    fn step(&mut self, g: &mut Graph<'_>, a: Id, b: Id) -> Result<Step, PathError> {
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
                subject: self.term(g, s)?,
                predicate: self.term(g, p)?,
                object: self.term(g, o)?,
                forward,
            });
        }
        Ok(Step {
            from: self.term(g, a)?,
            to: self.term(g, b)?,
            links: decoded,
            more_links: more,
        })
    }
}
