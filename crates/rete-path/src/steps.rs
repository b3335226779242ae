//! The links behind each step of a path: a step joins two entities, and every allowed link
//! between them, either way, is listed (the first is the one shown first). The search kept the
//! links of every entity it read, and a step always has such an end, so listing them reads
//! nothing (else the SOP range of each orientation is read); each step and each entity is
//! decoded once per answer.

use crate::graph::Graph;
use crate::{Link, PathError, Step};
use oxrdf::Term;
use rete_core::{Id, Pattern, Perm, TermKind};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// At most this many links listed per step (two entities rarely share more).
pub const MAX_LINKS_PER_STEP: usize = 16;

/// An IRI or a blank node in N-Triples syntax, written straight from its encoded bytes (no
/// term built first, no formatter growing a string piece by piece) through `buf`, so that the
/// shared string is the one allocation; `None` for a literal, which may need escapes, or bytes
/// that are not a valid term.
fn plain(bytes: &[u8], buf: &mut String) -> Option<Arc<str>> {
    let text = std::str::from_utf8(bytes.get(1..)?).ok()?;
    let (open, close) = match TermKind::of_encoded(bytes)? {
        TermKind::Iri => ("<", ">"),
        TermKind::BlankNode => ("_:", ""),
        _ => return None,
    };
    buf.clear();
    buf.push_str(open);
    buf.push_str(text);
    buf.push_str(close);
    Some(Arc::from(buf.as_str()))
}

/// Decodes the steps and entities of the paths of one answer, each once: the paths of an
/// answer share entities and steps (often their first and last ones), and decoding a term or
/// the links of a step costs dictionary and index reads.
pub(crate) struct Decoder {
    terms: FxHashMap<Id, Arc<str>>,
    /// Steps decoded that a later path takes again.
    steps: FxHashMap<(Id, Id), Step>,
    /// How many times each step is still to be given out: the last gets the decoded step itself.
    uses: FxHashMap<(Id, Id), u32>,
    /// The links of each step, from the links the search kept, taken when the step is decoded.
    links: FxHashMap<(Id, Id), Vec<(Id, bool)>>,
    /// A term's text while it is written.
    buf: String,
}

impl Decoder {
    /// A decoder for the steps of `paths`, with every term they show decoded: the entities of
    /// the paths and the predicates of their steps' links (kept in memory by the search), in
    /// the order of their ids, so that terms near each other (an answer's entities often are)
    /// look their dictionary block up once; on a remote file those blocks are fetched in one
    /// batch first.
    pub(crate) fn new(g: &Graph<'_>, paths: &[Vec<Id>]) -> Result<Self, PathError> {
        // Sized for the answer up front: growing a map rehashes it, a cost an answer of a few
        // short paths feels.
        let steps: usize = paths.iter().map(|p| p.len().saturating_sub(1)).sum();
        let mut uses = FxHashMap::with_capacity_and_hasher(steps, Default::default());
        for w in paths.iter().flat_map(|p| p.windows(2)) {
            *uses.entry((w[0], w[1])).or_insert(0) += 1;
        }
        let mut ids: Vec<Id> = paths.iter().flatten().copied().collect();
        let mut links = FxHashMap::with_capacity_and_hasher(uses.len(), Default::default());
        for &(a, b) in uses.keys() {
            if let Some(between) = g.links_between(a, b) {
                ids.extend(between.iter().take(MAX_LINKS_PER_STEP).map(|&(p, _)| p));
                links.insert((a, b), between);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        if g.remote() {
            g.rete.prefetch_terms(&ids)?;
        }
        let mut terms = FxHashMap::with_capacity_and_hasher(ids.len(), Default::default());
        let mut buf = String::new();
        g.rete.with_terms_bytes(&ids, |id, bytes| {
            if let Some(t) = plain(bytes, &mut buf) {
                terms.insert(id, t);
            }
            Ok::<(), PathError>(())
        })?;
        Ok(Self {
            terms,
            steps: FxHashMap::with_capacity_and_hasher(steps, Default::default()),
            uses,
            links,
            buf,
        })
    }

    /// The term `id` in N-Triples syntax.
    pub(crate) fn term(&mut self, g: &Graph<'_>, id: Id) -> Result<Arc<str>, PathError> {
        if let Some(t) = self.terms.get(&id) {
            return Ok(t.clone());
        }
        let buf = &mut self.buf;
        let t: Arc<str> = match g.rete.with_term_bytes(id, |b| plain(b, buf))? {
            Some(t) => t,
            None => match g.rete.term(id)? {
                Term::NamedNode(n) => ["<", n.as_str(), ">"].concat().into(),
                Term::BlankNode(b) => ["_:", b.as_str()].concat().into(),
                literal @ Term::Literal(_) => literal.to_string().into(),
            },
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
        let all = match self.links.remove(&(a, b)) {
            Some(kept) => kept,
            None => match g.links_between(a, b) {
                Some(kept) => kept,
                None => Self::read_links(g, a, b)?,
            },
        };
        let more = all.len().saturating_sub(MAX_LINKS_PER_STEP);
        let (from, to) = (self.term(g, a)?, self.term(g, b)?);
        let mut decoded = Vec::with_capacity(all.len().min(MAX_LINKS_PER_STEP));
        for (p, forward) in all.into_iter().take(MAX_LINKS_PER_STEP) {
            let (s, o) = if forward { (&from, &to) } else { (&to, &from) };
            decoded.push(Link {
                subject: s.clone(),
                predicate: self.term(g, p)?,
                predicate_id: p,
                object: o.clone(),
                forward,
            });
        }
        Ok(Step {
            from,
            to,
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
