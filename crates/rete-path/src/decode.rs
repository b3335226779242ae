//! A report's terms written out in N-Triples syntax, for people and scripts (`rete path` prints
//! and serializes it). The search answers in ids, which the app shows through its own term
//! views; writing terms out is a separate pass, paid by the callers that want text. The terms
//! of an answer are shared (`Arc<str>`) between its links, steps and paths, which show the same
//! entities and predicates again and again: each is written once, then counted, not copied.

use crate::{Path, PathError, PathReport, SearchStats, Stop};
use oxrdf::Term;
use rete_core::{Id, Rete, TermKind};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::sync::Arc;

/// One link of a step: a triple of the file, in N-Triples syntax.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedLink {
    /// Subject.
    pub subject: Arc<str>,
    /// Predicate.
    pub predicate: Arc<str>,
    /// The predicate's dictionary id (valid for this file).
    pub predicate_id: Id,
    /// Object.
    pub object: Arc<str>,
    /// Whether the link points along the path (`from` is its subject) or against it.
    pub forward: bool,
}

/// One step of a path: two consecutive entities and the links joining them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedStep {
    /// The entity the step leaves.
    pub from: Arc<str>,
    /// The entity the step reaches.
    pub to: Arc<str>,
    /// The allowed links between them, either way (see [`crate::Step::links`]).
    pub links: Vec<DecodedLink>,
    /// Links left out of `links` beyond [`crate::MAX_LINKS_PER_STEP`].
    pub more_links: usize,
}

/// One simple path, its terms written out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedPath {
    /// Number of links.
    pub hops: usize,
    /// The entities along it, endpoints included (N-Triples syntax).
    pub nodes: Vec<Arc<str>>,
    /// Their dictionary ids (valid for this file).
    pub ids: Vec<Id>,
    /// The steps.
    pub steps: Vec<DecodedStep>,
}

/// [`PathReport`] with its terms written out in N-Triples syntax.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecodedReport {
    /// The start.
    pub from: Arc<str>,
    /// The end.
    pub to: Arc<str>,
    /// The paths, shortest first.
    pub paths: Vec<DecodedPath>,
    /// Why the search ended.
    pub stop: Stop,
    /// [`Stop::describe`] of `stop`.
    pub reason: String,
    /// What the search did.
    pub stats: SearchStats,
}

/// An IRI or a blank node in N-Triples syntax, written straight from its encoded bytes (no
/// term built first) through `buf`, so that the shared string is the one allocation; `None`
/// for a literal, which may need escapes, or bytes that are not a valid term.
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

impl PathReport {
    /// The report with every term it shows written out: the ends, the entities of the paths
    /// and the predicates of their steps, each decoded once, in the order of their ids (terms
    /// near each other look their dictionary block up once; on a remote file the blocks are
    /// fetched in one batch first).
    pub fn decode(&self, rete: &Rete) -> Result<DecodedReport, PathError> {
        let mut ids: Vec<Id> = [self.from, self.to]
            .into_iter()
            .chain(self.paths.iter().flat_map(|p| {
                p.ids.iter().copied().chain(
                    p.steps
                        .iter()
                        .flat_map(|s| s.links.iter().map(|l| l.predicate)),
                )
            }))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if rete.reader().is_remote() {
            rete.prefetch_terms(&ids)?;
        }
        let mut terms: FxHashMap<Id, Arc<str>> =
            FxHashMap::with_capacity_and_hasher(ids.len(), Default::default());
        let mut buf = String::new();
        let mut rest = Vec::new();
        rete.with_terms_bytes(&ids, |id, bytes| {
            match plain(bytes, &mut buf) {
                Some(t) => {
                    terms.insert(id, t);
                }
                None => rest.push(id),
            }
            Ok::<(), PathError>(())
        })?;
        for id in rest {
            let text: Arc<str> = match rete.term(id)? {
                Term::NamedNode(n) => ["<", n.as_str(), ">"].concat().into(),
                Term::BlankNode(b) => ["_:", b.as_str()].concat().into(),
                literal @ Term::Literal(_) => literal.to_string().into(),
            };
            terms.insert(id, text);
        }
        // Every id was decoded above (or the read failed).
        let term = |id: Id| {
            terms
                .get(&id)
                .cloned()
                .ok_or_else(|| PathError::UnknownEntity(format!("term id {id}")))
        };
        Ok(DecodedReport {
            from: term(self.from)?,
            to: term(self.to)?,
            paths: self
                .paths
                .iter()
                .map(|p| decode_path(p, &term))
                .collect::<Result<_, _>>()?,
            stop: self.stop,
            reason: self.reason.clone(),
            stats: self.stats.clone(),
        })
    }
}

fn decode_path(
    p: &Path,
    term: &impl Fn(Id) -> Result<Arc<str>, PathError>,
) -> Result<DecodedPath, PathError> {
    let nodes: Vec<Arc<str>> = p.ids.iter().map(|&id| term(id)).collect::<Result<_, _>>()?;
    let mut steps = Vec::with_capacity(p.steps.len());
    // A step joins two consecutive entities: `nodes` has one more than there are steps.
    for (s, ends) in p.steps.iter().zip(nodes.windows(2)) {
        let (from, to) = (&ends[0], &ends[1]);
        let mut links = Vec::with_capacity(s.links.len());
        for l in &s.links {
            let (subject, object) = if l.forward { (from, to) } else { (to, from) };
            links.push(DecodedLink {
                subject: subject.clone(),
                predicate: term(l.predicate)?,
                predicate_id: l.predicate,
                object: object.clone(),
                forward: l.forward,
            });
        }
        steps.push(DecodedStep {
            from: from.clone(),
            to: to.clone(),
            links,
            more_links: s.more_links,
        });
    }
    Ok(DecodedPath {
        hops: p.hops,
        nodes,
        ids: p.ids.clone(),
        steps,
    })
}
