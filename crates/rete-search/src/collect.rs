//! From candidates in answer order to hits: the query's filters applied, the best label of each
//! term kept, the preferred languages first within a tier. Shared by the indexed search and the
//! scan without an index.

use crate::normalize::{query_words, words_into, Flat, Scratch};
use crate::read::{DocRec, Label};
use crate::tier::{in_order, tier_match, Cand};
use crate::{Hit, Kind, Query, SearchError, Searcher};
use oxrdf::Term;
use rete_core::term::TermKind;
use rete_core::vocab::local_name;
use rete_core::{Id, Rete};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Documents examined per query at most (filters that reject most candidates stop here).
const MAX_EXAMINED: usize = 20_000;

/// The filters of a query, resolved against the file.
pub(crate) struct Filters {
    pub kind: Option<Kind>,
    pub class: Option<Id>,
    /// The ids of a namespace's IRIs (a query led by its prefix).
    pub terms: Option<std::ops::Range<Id>>,
    pub languages: Vec<String>,
    pub limit: usize,
}

/// The tables a document's numbers refer to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Names<'a> {
    /// Language tags (a document's `lang` is an index + 1).
    pub languages: &'a [String],
    /// Label predicates (a document's `pred`; their count for a local name).
    pub predicates: &'a [String],
}

/// Where the candidates' documents come from.
pub(crate) trait Docs {
    /// The document of `c`.
    fn doc(&mut self, c: &Cand) -> Result<DocRec, SearchError>;
    /// Reads the documents of `cands` at once where that saves reads (an index over HTTP).
    fn prefetch(&mut self, cands: &[Cand]) -> Result<(), SearchError>;
}

/// A term found so far: the label it shows and its community path.
struct Best {
    /// The shown label's language rank as terms rank by it: a local name's with an untagged
    /// label's.
    lang: usize,
    /// The shown label's (quality, language rank, tier, untagged, candidate order): of the
    /// labels that match with words as good, the one in the most preferred language
    /// ("basketball player" @en rather than the whole word "Basketballspieler" @de for
    /// `basketb`), a local name after the preferred languages, then the best tier, then a
    /// tagged one before an untagged one.
    shown: (u8, usize, u8, bool, u32),
    doc: DocRec,
    path: Option<Vec<u32>>,
}

impl Best {
    /// Terms rank by the label they show: its tier, language and order.
    fn rank(&self) -> (u8, usize, u32) {
        (self.shown.2, self.lang, self.shown.4)
    }
}

/// Walks candidates in order, fetches their documents, applies the filters and keeps the best
/// label of each term; within a tier the preferred languages come first. Candidates come tier
/// by tier, best first.
pub(crate) fn collect(
    s: &Searcher,
    f: &Filters,
    q: &Query,
    cands: impl Iterator<Item = Result<Cand, SearchError>>,
    mut docs: impl Docs,
    names: Names<'_>,
    cancel: &AtomicBool,
) -> Result<Vec<Hit>, SearchError> {
    let Names {
        languages,
        predicates,
    } = names;
    let lang_str =
        |d: &DocRec| -> Option<&String> { languages.get(d.lang.checked_sub(1)? as usize) };
    let lang_of = |d: &DocRec| -> Option<String> { lang_str(d).cloned() };
    // The place of the first preferred language a label's tag falls under, by RFC 4647 lookup
    // (`en-US` takes `en` and `en-US` labels alike: a region does not rank one term above
    // another); other languages after all of them. An untagged label (and a local name) ranks
    // with the most preferred language: only a label known to be in another language ranks
    // after, so `type` finds rdf:type ("type") among the "Type"@en labels by importance, not
    // after them.
    let prefs = &f.languages;
    let rank_of = |l: &str| -> usize {
        prefs
            .iter()
            .position(|p| {
                rete_pyramid::lang::lookup_ranges(p).any(|r| rete_pyramid::lang::matches(r, l))
            })
            .unwrap_or(prefs.len())
    };
    let untagged = 0;
    let lang_rank = |d: &DocRec| lang_str(d).map_or((untagged, true), |l| (rank_of(l), false));
    // A local name ranks so too, but is shown only when no label in a preferred language
    // matches as well: "person"@en rather than the name `Person` for a French reader.
    // (A local name has no label predicate: in every layout, also the first's, which held its
    // text as a label's.)
    let shown_rank = |d: &DocRec, (rank, untagged): (usize, bool)| {
        if predicates.get(d.pred as usize).is_none() {
            (prefs.len(), true)
        } else {
            (rank, untagged)
        }
    };
    // A label predicate the index does not hold matches nothing.
    let pred: Option<u32> = q.label_predicate.as_ref().map(|iri| {
        predicates
            .iter()
            .position(|p| p == iri)
            .map_or(u32::MAX, |i| i as u32)
    });
    // Keeps `d` as the label `c` found, if it passes the filters.
    let consider = |best: &mut FxHashMap<Id, Best>, c: &Cand, d: DocRec| {
        if f.kind.is_some_and(|k| k != d.kind)
            || pred.is_some_and(|p| p != d.pred)
            || f.terms.as_ref().is_some_and(|r| !r.contains(&d.term))
            || f.class.is_some_and(|class| !d.classes.contains(&class))
        {
            return Ok(());
        }
        // The path is read here only to filter; the hits' paths are read at the end.
        let path = match q.within {
            Some(w) => match s.community_path(d.term)? {
                p if w.holds(p.as_ref()) => p,
                _ => return Ok(()),
            },
            None => None,
        };
        let lang = lang_rank(&d);
        let (shown_lang, untagged) = shown_rank(&d, lang);
        let shown = (c.tier / 2, shown_lang, c.tier, untagged, c.doc);
        match best.get_mut(&d.term) {
            Some(b) => {
                if shown < b.shown {
                    b.lang = lang.0;
                    b.shown = shown;
                    b.doc = d;
                }
            }
            None => {
                best.insert(
                    d.term,
                    Best {
                        lang: lang.0,
                        shown,
                        doc: d,
                        path,
                    },
                );
            }
        }
        Ok::<(), SearchError>(())
    };
    let mut best: FxHashMap<Id, Best> = FxHashMap::default();
    let mut cands = cands.take(MAX_EXAMINED);
    let mut done_tier: Option<u8> = None;
    for (examined, c) in cands.by_ref().enumerate() {
        let c = c?;
        if examined % 256 == 0 && cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        consider(&mut best, &c, docs.doc(&c)?)?;
        if best.len() >= f.limit {
            done_tier = Some(c.tier);
            break;
        }
    }
    // Past the limit, a few more candidates of the tier are read only to let a preferred
    // language in; after a tier of whole labels, of the next too (words as good, other words
    // as well), where a term found so far may show a label in a preferred language. Only when
    // one more label could show or rank a term found better: one in a language of the index
    // before the shown one's, or an untagged one when it shows a language ranked after
    // untagged labels (else none read would change the hits: a file of untagged labels reads
    // none). Their documents in one read.
    let tagged_floor = languages.iter().map(|l| rank_of(l)).min();
    let improvable = best.values().any(|b| {
        let (shown, shown_untagged) = (b.shown.1, b.shown.3);
        tagged_floor.is_some_and(|f| f < shown) || (!shown_untagged && shown > untagged)
    });
    if let Some(t) = done_tier.filter(|_| improvable) {
        let mut more = Vec::new();
        for c in cands.by_ref() {
            let c = c?;
            if more.len() >= f.limit * 4 || !(c.tier == t || (t % 2 == 0 && c.tier == t + 1)) {
                break;
            }
            more.push(c);
        }
        docs.prefetch(&more)?;
        if cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        for c in &more {
            consider(&mut best, c, docs.doc(c)?)?;
        }
    }
    let mut ranked: Vec<Best> = best.into_values().collect();
    ranked.sort_by_key(Best::rank);
    ranked.truncate(f.limit);
    let rete = s.rete();
    // The hits' terms, classes and labels in one batch (a remote file: one round trip).
    let ids: Vec<Id> = ranked
        .iter()
        .flat_map(|Best { doc: d, .. }| {
            let label = match d.label {
                Label::Literal(id) => Some(id),
                _ => None,
            };
            [Some(d.term), d.classes.first().copied(), label]
        })
        .flatten()
        .collect();
    // The hits' community paths in one batch too (their membership blocks). Classes and
    // predicates have one when they are on the map: an ontology's terms are its entities.
    let entities: Vec<Id> = ranked
        .iter()
        .filter(|b| b.path.is_none())
        .map(|b| b.doc.term)
        .collect();
    if rete.reader().is_remote() {
        // Both batches in one read: one request to a server that answers several ranges at
        // once; the two calls then find their bytes in the reader's cache.
        let mut ranges = rete.term_block_ranges(&ids)?;
        ranges.extend(s.path_ranges(&entities)?);
        if !ranges.is_empty() {
            rete.reader()
                .read_many(&ranges)
                .map_err(rete_core::Error::from)?;
        }
    }
    rete.prefetch_terms(&ids)?;
    // What the hits show of these terms, each decoded once from its dictionary block.
    let shown = Shown::read(rete, ids)?;
    let mut paths = s.community_paths(&entities)?.into_iter();
    let typed = query_words(&q.text, usize::MAX);
    let (mut label_words, mut scratch) = (Flat::default(), Scratch::default());
    let mut hits = ranked
        .into_iter()
        .map(|b| {
            let rank = b.rank();
            let Best {
                shown: k,
                doc: d,
                path,
                ..
            } = b;
            let path = match path {
                Some(p) => Some(p),
                None => paths.next().flatten(),
            };
            let (term, class, label) = match shown.hit(&d) {
                Some(t) => t,
                None => slow_texts(rete, &d)?,
            };
            label_words.clear();
            let name = matches!(d.label, Label::LocalName);
            words_into(&label, name, &mut label_words, &mut scratch);
            // Within a tier and language rank, the labels read as typed first.
            let order = (rank.0, rank.1, !in_order(&typed, &label_words));
            let hit = Hit {
                rank: 0,
                term,
                kind: d.kind,
                lang: lang_of(&d),
                source: predicates.get(d.pred as usize).cloned(),
                label,
                matched: tier_match(k.2),
                class,
                path,
            };
            Ok((order, hit))
        })
        .collect::<Result<Vec<_>, SearchError>>()?;
    hits.sort_by_key(|(order, _)| *order);
    Ok(hits
        .into_iter()
        .enumerate()
        .map(|(i, (_, hit))| Hit { rank: i + 1, ..hit })
        .collect())
}

/// Some terms as hits show them (an IRI or a blank node in N-Triples, a literal's lexical
/// form): their encoded bytes copied from the dictionary blocks into one string, each checked
/// to be UTF-8 once there, each hit's strings then made from it.
struct Shown {
    /// Sorted, each once.
    ids: Vec<Id>,
    /// Where each one's encoding ends in `text`.
    ends: Vec<usize>,
    text: String,
}

impl Shown {
    fn read(rete: &Rete, mut ids: Vec<Id>) -> Result<Self, SearchError> {
        ids.sort_unstable();
        ids.dedup();
        let mut ends = Vec::with_capacity(ids.len());
        // About a term's bytes each: the buffer grows once or twice, not at every doubling.
        let mut text = String::with_capacity(ids.len() * 64);
        rete.with_terms_bytes(&ids, |_, b| {
            // Bytes that are not UTF-8 are left out (empty): the hit is then decoded as a term,
            // which names the fault.
            text.push_str(std::str::from_utf8(b).unwrap_or_default());
            ends.push(text.len());
            Ok::<(), SearchError>(())
        })?;
        Ok(Self { ids, ends, text })
    }

    /// The kind and text of term `id`: an IRI's or a blank node's label, a literal's lexical
    /// form; `None` for an id not read or bytes [`slow_texts`] is left to decode.
    fn get(&self, id: Id) -> Option<(TermKind, &str)> {
        let at = self.ids.binary_search(&id).ok()?;
        let start = at
            .checked_sub(1)
            .map_or(Some(0), |p| self.ends.get(p).copied())?;
        let enc = self.text.get(start..*self.ends.get(at)?)?;
        let kind = TermKind::of_encoded(enc.as_bytes())?;
        // The tag and the separator are ASCII: the slices below fall on character boundaries.
        let rest = enc.get(1..)?;
        let text = match kind {
            TermKind::Iri | TermKind::BlankNode | TermKind::SimpleLiteral => rest,
            TermKind::LangLiteral | TermKind::TypedLiteral => rest.get(rest.find('\0')? + 1..)?,
        };
        Some((kind, text))
    }

    /// A term in N-Triples, if it is an IRI or a blank node.
    fn nt(&self, id: Id) -> Option<String> {
        match self.get(id)? {
            (TermKind::Iri, iri) => Some(["<", iri, ">"].concat()),
            (TermKind::BlankNode, b) => Some(["_:", b].concat()),
            _ => None,
        }
    }

    /// The term (N-Triples), class and label of a hit's document, as [`slow_texts`] gives them;
    /// `None` when one of them is not a term this way handles.
    fn hit(&self, d: &DocRec) -> Option<(String, Option<String>, String)> {
        let term = self.nt(d.term)?;
        let class = match d.classes.first() {
            Some(&c) => Some(self.nt(c)?),
            None => None,
        };
        let label = match &d.label {
            Label::Text(t) => t.clone(),
            Label::Literal(id) => match self.get(*id)? {
                (k, t) if k.is_literal() => t.to_owned(),
                _ => return None,
            },
            Label::LocalName => match self.get(d.term)? {
                (TermKind::Iri, iri) => local_name(iri).to_owned(),
                _ => return None,
            },
        };
        Some((term, class, label))
    }
}

/// The term (N-Triples), class and label of a hit's document, decoded as terms: what
/// [`Shown::hit`] does not handle, with the error a term that is not what it should be makes.
fn slow_texts(rete: &Rete, d: &DocRec) -> Result<(String, Option<String>, String), SearchError> {
    let class = match d.classes.first() {
        Some(&c) => Some(rete.term(c)?.to_string()),
        None => None,
    };
    let term = rete.term(d.term)?;
    let label = match &d.label {
        Label::Text(t) => t.clone(),
        Label::Literal(id) => match rete.term(*id)? {
            Term::Literal(l) => l.value().to_owned(),
            t => {
                return Err(SearchError::corrupt(
                    rete.name(),
                    "search documents",
                    format!("the label of {term} is not a literal but {t}"),
                ))
            }
        },
        Label::LocalName => match &term {
            Term::NamedNode(n) => local_name(n.as_str()).to_owned(),
            t => {
                return Err(SearchError::corrupt(
                    rete.name(),
                    "search documents",
                    format!("a local name for {t}, not an IRI"),
                ))
            }
        },
    };
    Ok((term.to_string(), class, label))
}
