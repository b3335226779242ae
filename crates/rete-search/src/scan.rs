//! Search without an index (files built before it, or with `--no-search`): the objects of the
//! default label predicates and the local names of classes and predicates are read and matched
//! one by one, with the same folding, words, typos and tiers as the index. Slower (it reads
//! every label), cancellable, never an error for a missing index. Importance is unknown here:
//! ties go to the lower term id.

use crate::collect::{collect, Filters, Names};
use crate::normalize::{name_words, word_count, words, Word};
use crate::read::{DocRec, Label};
use crate::tier::{quality, tier, Cand};
use crate::{Hit, Kind, Query, SearchError, Searcher, DEFAULT_LABEL_PREDICATES, MAX_CLASSES};
use oxrdf::{NamedNodeRef, Term, TermRef};
use rete_core::vocab::local_name;
use rete_core::{Id, Pattern};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// Matches the query words against one label's words: each query word's best quality, or
/// `None` if one of them matches no word.
fn match_label(query: &[(Word, Vec<char>)], label: &[Word]) -> Option<Vec<u8>> {
    query
        .iter()
        .map(|(w, chars)| {
            label
                .iter()
                .filter_map(|l| quality(w, chars, &l.text, true))
                .min()
        })
        .collect()
}

pub(crate) fn search(
    s: &Searcher,
    words_q: &[Word],
    f: &Filters,
    q: &Query,
    cancel: &AtomicBool,
) -> Result<Vec<Hit>, SearchError> {
    let rete = s.rete();
    let query: Vec<(Word, Vec<char>)> = words_q
        .iter()
        .map(|w| (w.clone(), w.text.chars().collect()))
        .collect();
    let predicates: Vec<String> = DEFAULT_LABEL_PREDICATES.map(str::to_owned).to_vec();
    let kinds = crate::build::schema_terms(rete)?.kinds;
    let local = predicates.len() as u32;
    let mut languages: Vec<String> = Vec::new();
    let mut found: Vec<(Cand, DocRec)> = Vec::new();
    let mut push = |term: Id, kind: Kind, lang: u32, pred: u32, label: &str, qual: Vec<u8>| {
        let ntok = word_count(label, pred == local);
        let c = Cand {
            tier: tier(&qual, ntok),
            doc: found.len() as u32,
        };
        found.push((
            c,
            DocRec {
                term,
                kind,
                lang,
                pred,
                classes: Arc::new([]),
                label: Label::Text(label.to_owned()),
            },
        ));
    };
    for (pi, iri) in predicates.iter().enumerate() {
        let Some(p) = rete.id_of(TermRef::NamedNode(NamedNodeRef::new_unchecked(iri)))? else {
            continue;
        };
        for (k, quad) in rete.quads(&Pattern::new(None, Some(p), None))?.enumerate() {
            if k % 1024 == 0 && cancel.load(Ordering::Relaxed) {
                return Err(SearchError::Cancelled);
            }
            let [subj, _, o, _] = quad?;
            let Term::Literal(lit) = rete.term(o)? else {
                continue;
            };
            if let Some(qual) = match_label(&query, &words(lit.value())) {
                let lang = match lit.language() {
                    None => 0,
                    Some(l) => match languages.iter().position(|x| x == l) {
                        Some(i) => i as u32 + 1,
                        None => {
                            languages.push(l.to_owned());
                            languages.len() as u32
                        }
                    },
                };
                let kind = kinds.get(&subj).copied().unwrap_or(Kind::Entity);
                push(subj, kind, lang, pi as u32, lit.value(), qual);
            }
        }
    }
    let mut named: Vec<(Id, Kind)> = kinds.iter().map(|(&i, &k)| (i, k)).collect();
    named.sort_unstable();
    for (id, kind) in named {
        if let Term::NamedNode(n) = rete.term(id)? {
            let name = local_name(n.as_str());
            if let Some(qual) = match_label(&query, &name_words(name)) {
                push(id, kind, 0, predicates.len() as u32, name, qual);
            }
        }
    }
    found.sort_by_key(|(c, d)| (c.tier, d.term, c.doc));
    let ty = rete.id_of(TermRef::NamedNode(NamedNodeRef::new_unchecked(RDF_TYPE)))?;
    let mut docs: FxHashMap<u32, DocRec> = FxHashMap::default();
    let mut cands = Vec::with_capacity(found.len());
    for (i, (c, d)) in found.into_iter().enumerate() {
        let c = Cand {
            tier: c.tier,
            doc: i as u32,
        };
        docs.insert(c.doc, d);
        cands.push(c);
    }
    collect(
        s,
        f,
        q,
        cands.into_iter().map(Ok),
        |c| {
            let mut d = docs
                .remove(&c.doc)
                .ok_or_else(|| SearchError::Internal("candidate seen twice".into()))?;
            if let Some(ty) = ty {
                let mut classes: Vec<Id> = Vec::new();
                for quad in rete.quads(&Pattern::new(Some(d.term), Some(ty), None))? {
                    let o = quad?[2];
                    if !classes.contains(&o) && classes.len() < MAX_CLASSES {
                        classes.push(o);
                    }
                }
                d.classes = classes.into();
            }
            Ok(d)
        },
        Names {
            languages: &languages,
            predicates: &predicates,
        },
        cancel,
    )
}
