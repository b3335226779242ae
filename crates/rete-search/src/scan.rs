//! Search without an index (files built before it, or with `--no-search`): the objects of the
//! default label predicates and the local names of classes and predicates are read and matched
//! one by one, with the same folding, words, typos and tiers as the index. Slower (it reads
//! every label), cancellable, never an error for a missing index. Importance is unknown here:
//! ties go to the lower term id.

use crate::collect::{collect, Docs, Filters, Names};
use crate::compound::{self, LabelWords};
use crate::normalize::{name_parts, name_words, word_count, words, Word};
use crate::read::{DocRec, Label};
use crate::tier::{quality, tier, typos_of, Cand, Quality};
use crate::{Hit, Kind, Query, SearchError, Searcher, DEFAULT_LABEL_PREDICATES, MAX_CLASSES};
use oxrdf::{NamedNodeRef, Term, TermRef};
use rete_core::vocab::local_name;
use rete_core::{Id, Pattern, Rete};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// A query word (its characters, for typos, and the typos it may have) and its run of the
/// query split as a local name, each part alike.
struct QueryWord {
    word: Typed,
    named: Option<Vec<Typed>>,
}

/// A word to match, its characters and the typos it may match with.
struct Typed {
    word: Word,
    chars: Vec<char>,
    typos: u32,
}

impl Typed {
    fn new(word: Word, typos: u32) -> Self {
        let chars = word.text.chars().collect();
        Self { word, chars, typos }
    }

    /// The word's best quality among a label's words.
    fn best(&self, label: &[Word]) -> Option<Quality> {
        label
            .iter()
            .filter_map(|l| quality(&self.word, &self.chars, &l.text, self.typos))
            .min()
    }
}

/// Matches the query words against one label's words: each query word's best quality, or
/// `None` if one of them matches no word. A word that matches none may match as a compound,
/// as in the index, split at this label's words: its pieces' qualities then stand for it.
fn match_label(query: &[QueryWord], label: &[Word]) -> Option<Vec<Quality>> {
    let mut out = Vec::with_capacity(query.len());
    for q in query {
        if let Some(b) = q.word.best(label) {
            out.push(b);
            continue;
        }
        match &q.named {
            Some(named) => {
                for p in named {
                    match p.best(label) {
                        Some(b) => out.push(b),
                        None => split_at_label(&p.word, label, &mut out)?,
                    }
                }
            }
            None => split_at_label(&q.word.word, label, &mut out)?,
        }
    }
    Some(out)
}

/// Appends to `out` the qualities of `w`'s pieces split at `label`'s words, if it splits and
/// they all match.
fn split_at_label(w: &Word, label: &[Word], out: &mut Vec<Quality>) -> Option<()> {
    let lex = LabelWords(label);
    if !lex.may_split(&w.text) {
        return None;
    }
    // Looking up a label's words never fails.
    let pieces = compound::pieces(&mut LabelWords(label), None, w, &[]).ok()??;
    for p in pieces {
        // Pieces found at the label's words match them exactly, the last as a prefix.
        out.push(Typed::new(p.word, p.typos).best(label)?);
    }
    Some(())
}

pub(crate) fn search(
    s: &Searcher,
    words_q: &[Word],
    f: &Filters,
    q: &Query,
    cancel: &AtomicBool,
) -> Result<Vec<Hit>, SearchError> {
    let rete = s.rete();
    let query: Vec<QueryWord> = words_q
        .iter()
        .map(|w| QueryWord {
            word: Typed::new(w.clone(), typos_of(w)),
            named: compound::named_pieces(name_parts(&q.text, &w.text).filter(|_| !w.cjk), w)
                .map(|p| p.into_iter().map(|p| Typed::new(p.word, p.typos)).collect()),
        })
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
        Scanned { docs, rete, ty },
        Names {
            languages: &languages,
            predicates: &predicates,
        },
        cancel,
    )
}

/// The documents a scan made, each given once, its classes read then.
struct Scanned<'a> {
    docs: FxHashMap<u32, DocRec>,
    rete: &'a Rete,
    ty: Option<Id>,
}

impl Docs for Scanned<'_> {
    fn doc(&mut self, c: &Cand) -> Result<DocRec, SearchError> {
        let mut d = self
            .docs
            .remove(&c.doc)
            .ok_or_else(|| SearchError::Internal("candidate seen twice".into()))?;
        if let Some(ty) = self.ty {
            let mut classes: Vec<Id> = Vec::new();
            for quad in self
                .rete
                .quads(&Pattern::new(Some(d.term), Some(ty), None))?
            {
                let o = quad?[2];
                if !classes.contains(&o) && classes.len() < MAX_CLASSES {
                    classes.push(o);
                }
            }
            d.classes = classes.into();
        }
        Ok(d)
    }

    fn prefetch(&mut self, _: &[Cand]) -> Result<(), SearchError> {
        Ok(())
    }
}
