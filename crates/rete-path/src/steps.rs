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
    /// Each step of the answer's paths.
    steps: FxHashMap<(Id, Id), Slot>,
    /// A term's text while it is written.
    buf: String,
}

/// One step of an answer: how many times it is still to be given out (the last gets the decoded
/// step itself), its links from those the search kept (taken when it is decoded), and the step
/// once decoded, while a later path takes it again.
#[derive(Default)]
struct Slot {
    uses: u32,
    links: Option<Vec<(Id, bool)>>,
    step: Option<Step>,
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
        let count: usize = paths.iter().map(|p| p.len().saturating_sub(1)).sum();
        let mut steps: FxHashMap<(Id, Id), Slot> =
            FxHashMap::with_capacity_and_hasher(count, Default::default());
        let mut ids: Vec<Id> = paths.iter().flatten().copied().collect();
        for w in paths.iter().flat_map(|p| p.windows(2)) {
            let slot = steps.entry((w[0], w[1])).or_default();
            if slot.uses == 0 {
                slot.links = g.links_between(w[0], w[1]);
                if let Some(between) = &slot.links {
                    ids.extend(between.iter().take(MAX_LINKS_PER_STEP).map(|&(p, _)| p));
                }
            }
            slot.uses += 1;
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
        Ok(Self { terms, steps, buf })
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
    /// [`Decoder::new`] was given), its entities' terms `nodes`.
    pub(crate) fn steps(
        &mut self,
        g: &mut Graph<'_>,
        path: &[Id],
        nodes: &[Arc<str>],
    ) -> Result<Vec<Step>, PathError> {
        let mut out = Vec::with_capacity(path.len().saturating_sub(1));
        for (i, w) in path.windows(2).enumerate() {
            let ends = (nodes[i].clone(), nodes[i + 1].clone());
            let mut slot = self.steps.get_mut(&(w[0], w[1])).map(std::mem::take);
            let step = match slot.as_mut().and_then(|s| s.step.take()) {
                Some(step) => step,
                None => {
                    let kept = slot.as_mut().and_then(|s| s.links.take());
                    self.step(g, w[0], w[1], ends, kept)?
                }
            };
            // Taken again by a later path: kept, a copy given out.
            if let Some(mut s) = slot {
                s.uses = s.uses.saturating_sub(1);
                if s.uses > 0 {
                    out.push(step.clone());
                    s.step = Some(step);
                    self.steps.insert((w[0], w[1]), s);
                    continue;
                }
            }
            out.push(step);
        }
        Ok(out)
    }

    /// The step from `a` to `b`, whose terms are `ends`, with the links kept for it if any.
    fn step(
        &mut self,
        g: &mut Graph<'_>,
        a: Id,
        b: Id,
        (from, to): (Arc<str>, Arc<str>),
        kept: Option<Vec<(Id, bool)>>,
    ) -> Result<Step, PathError> {
        let all = match kept.or_else(|| g.links_between(a, b)) {
            Some(kept) => kept,
            None => Self::read_links(g, a, b)?,
        };
        let more = all.len().saturating_sub(MAX_LINKS_PER_STEP);
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
