//! The links behind each step of a path: a step joins two entities, and every allowed link
//! between them, either way, is listed (the first is the one shown first). The search kept the
//! links of every entity it read, and a step always has such an end, so listing them reads
//! nothing (else the SOP range of each orientation is read); each step and each entity is
//! decoded once per answer.

use crate::graph::Graph;
use crate::{Link, PathError, Step};
use oxrdf::Term;
use rete_core::{Id, Pattern, Perm};
use rustc_hash::FxHashMap;

/// At most this many links listed per step (two entities rarely share more).
pub const MAX_LINKS_PER_STEP: usize = 16;

/// Decodes the steps and entities of the paths of one answer, each once: the paths of an
/// answer share entities and steps (often their first and last ones), and decoding a term or
/// the links of a step costs dictionary and index reads.
pub(crate) struct Decoder {
    terms: FxHashMap<Id, String>,
    /// Steps decoded that a later path takes again.
    steps: FxHashMap<(Id, Id), Step>,
    /// How many times each step is still to be given out: the last gets the decoded step itself.
    uses: FxHashMap<(Id, Id), u32>,
}

impl Decoder {
    /// A decoder for the steps of `paths`.
    pub(crate) fn new(paths: &[Vec<Id>]) -> Self {
        let mut uses = FxHashMap::default();
        for w in paths.iter().flat_map(|p| p.windows(2)) {
            *uses.entry((w[0], w[1])).or_insert(0) += 1;
        }
        Self {
            terms: FxHashMap::default(),
            steps: FxHashMap::default(),
            uses,
        }
    }

    /// On a remote file, fetches in one batch the dictionary blocks of every term the answer
    /// shows (the entities of `paths` and the predicates of their steps' links, kept in
    /// memory), so that decoding them reads nothing more.
    pub(crate) fn prefetch(&self, g: &Graph<'_>, paths: &[Vec<Id>]) -> Result<(), PathError> {
        if !g.remote() || paths.is_empty() {
            return Ok(());
        }
        let mut ids: Vec<Id> = paths.iter().flatten().copied().collect();
        for &(a, b) in self.uses.keys() {
            if let Some(links) = g.links_between(a, b) {
                ids.extend(links.iter().take(MAX_LINKS_PER_STEP).map(|&(p, _)| p));
            }
        }
        ids.sort_unstable();
        ids.dedup();
        g.rete.prefetch_terms(&ids)?;
        Ok(())
    }

    /// The term `id` in N-Triples syntax.
    pub(crate) fn term(&mut self, g: &Graph<'_>, id: Id) -> Result<String, PathError> {
        if let Some(t) = self.terms.get(&id) {
            return Ok(t.clone());
        }
        // IRIs and blank nodes written in one allocation (the formatter grows a string piece by
        // piece); literals, which may need escapes, by their N-Triples `Display`.
        let t = match g.rete.term(id)? {
            Term::NamedNode(n) => ["<", n.as_str(), ">"].concat(),
            Term::BlankNode(b) => ["_:", b.as_str()].concat(),
            literal @ Term::Literal(_) => literal.to_string(),
        };
        self.terms.insert(id, t.clone());
        Ok(t)
    }

    /// The steps of a path of entity ids, with their links decoded (a path of the answer
    /// [`Decoder::new`] was given).
    pub(crate) fn steps(&mut self, g: &mut Graph<'_>, path: &[Id]) -> Result<Vec<Step>, PathError> {
        let mut out = Vec::with_capacity(path.len().saturating_sub(1));
        for w in path.windows(2) {
            let key = (w[0], w[1]);
            let left = self.uses.get_mut(&key).map_or(0, |n| {
                *n = n.saturating_sub(1);
                *n
            });
            let step = if left > 0 {
                match self.steps.get(&key) {
                    Some(step) => step.clone(),
                    None => {
                        let step = self.step(g, w[0], w[1])?;
                        self.steps.insert(key, step.clone());
                        step
                    }
                }
            } else {
                match self.steps.remove(&key) {
                    Some(step) => step,
                    None => self.step(g, w[0], w[1])?,
                }
            };
            out.push(step);
        }
        Ok(out)
    }

    /// The step from `a` to `b`.
    fn step(&mut self, g: &mut Graph<'_>, a: Id, b: Id) -> Result<Step, PathError> {
        let all = match g.links_between(a, b) {
            Some(kept) => kept,
            None => Self::read_links(g, a, b)?,
        };
        let more = all.len().saturating_sub(MAX_LINKS_PER_STEP);
        let mut decoded = Vec::with_capacity(all.len().min(MAX_LINKS_PER_STEP));
        for (p, forward) in all.into_iter().take(MAX_LINKS_PER_STEP) {
            let (s, o) = if forward { (a, b) } else { (b, a) };
            decoded.push(Link {
                subject: self.term(g, s)?,
                predicate: self.term(g, p)?,
                predicate_id: p,
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

    /// The allowed links between `a` and `b` as [`Graph::links_between`] gives them, read from
    /// the SOP ranges of both orientations (a triple in several graphs once).
    fn read_links(g: &mut Graph<'_>, a: Id, b: Id) -> Result<Vec<(Id, bool)>, PathError> {
        let mut out = Vec::new();
        for (s, o, forward) in [(a, b, true), (b, a, false)] {
            let mut part = Vec::new();
            for q in g
                .rete
                .scan(Perm::Sop, &Pattern::new(Some(s), None, Some(o)))?
            {
                let q = q?;
                if g.preds.allows(g.rete, q[1])? {
                    part.push((q[1], forward));
                }
            }
            part.sort_unstable();
            part.dedup();
            out.append(&mut part);
        }
        Ok(out)
    }
}
