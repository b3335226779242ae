//! Where a query's matches sit on the map: every entity whose labels match the query's words (a
//! word of the label or the start of one, as the typeahead matches; with its typos only when
//! that finds nothing), counted per community on every level of the pyramid. The typeahead stops
//! at the hits it shows; this walks the words' whole lists (to the same cap per token), so the
//! app can light each community holding a match, with its count, at any zoom level.

use crate::codec::CHUNK_POSTINGS;
use crate::merge::{self, WordLists};
use crate::normalize::query_words;
use crate::query::{class_id, split_words, typo_tokens, word_tokens_within, Split};
use crate::read::{Index, Postings};
use crate::tier::Cand;
use crate::{Kind, Query, SearchError, Searcher, MAX_QUERY_WORDS};
use oxrdf::{NamedNodeRef, TermRef};
use rete_core::block::BlockRef;
use rete_core::Id;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Documents (term, label pairs) a spread examines at most: past it, its counts are lower
/// bounds ([`Spread::complete`] is false).
pub const MAX_SPREAD_DOCUMENTS: usize = 2_000_000;
/// Entities whose community paths are read together (their membership blocks in one batch).
const PATH_BATCH: usize = 1 << 16;
/// Tokens a word of a spread expands to at most (a merge of as many lists), and the token
/// blocks read for them: a one-letter word is a few thousand tokens in a few blocks.
const MAX_SPREAD_TOKENS: usize = 1 << 16;
const MAX_SPREAD_BLOCKS: usize = 4096;
/// Blocks fetched ahead in one batch over HTTP at most: within the index's cache.
const PREFETCH_BLOCKS: usize = 1024;

/// Where the matches of a query are: see [`Searcher::spread`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Spread {
    /// Entities matched, each once however many of its labels match.
    pub entities: u64,
    /// Classes and predicates matched that are not on the map: the legend's and the schema's.
    /// Those that are (an ontology's classes and properties are its entities) count as entities.
    pub schema_terms: u64,
    /// The matched entities that are in the pyramid, by term id, ascending.
    pub placed: Vec<Id>,
    /// Per pyramid level, finest first: the communities holding matched entities and how many
    /// each holds, by community id. Empty for a file without a pyramid.
    pub levels: Vec<Vec<(u32, u64)>>,
    /// False when a token's list was read only to its first [`MAX_SPREAD_DOCUMENTS`] documents
    /// (its most important), or the walk stopped after as many: the counts are then lower
    /// bounds.
    pub complete: bool,
}

/// The query's filters the spread applies (those of the typeahead but its limit).
struct Filter {
    kind: Option<Kind>,
    class: Option<Id>,
    terms: Option<Range<Id>>,
    /// The label predicate's place in the index's list (`u32::MAX`: one it does not hold).
    pred: Option<u32>,
}

/// The matched terms found so far.
#[derive(Default)]
struct Found {
    entities: FxHashSet<Id>,
    schema: FxHashSet<Id>,
    complete: bool,
}

pub(crate) fn run(s: &Searcher, q: &Query, cancel: &AtomicBool) -> Result<Spread, SearchError> {
    let Some(ix) = s.index() else {
        return Err(SearchError::NoIndex);
    };
    if q.within.is_some() && s.pyramid()?.is_none() {
        return Err(SearchError::NoPyramid);
    }
    // A pasted IRI or prefixed name: that term, as the typeahead finds it.
    if let Some(answer) = crate::by_iri::search(s, q)? {
        let mut found = Found {
            complete: true,
            ..Found::default()
        };
        for h in &answer.hits {
            let iri = h.term.trim_start_matches('<').trim_end_matches('>');
            let Ok(iri) = NamedNodeRef::new(iri) else {
                continue;
            };
            if let Some(id) = s.rete().id_of(TermRef::NamedNode(iri))? {
                match h.kind {
                    Kind::Entity => found.entities.insert(id),
                    _ => found.schema.insert(id),
                };
            }
        }
        return place(s, q, found, cancel);
    }
    let (terms, text) = match crate::by_iri::namespace_typed(s, &q.text)? {
        Some(n) => (Some(n.terms), n.rest),
        None => (None, q.text.as_str()),
    };
    let f = Filter {
        kind: q.kind,
        class: class_id(s, q)?,
        terms,
        pred: q.label_predicate.as_ref().map(|iri| {
            ix.label_predicates()
                .iter()
                .position(|p| p == iri)
                .map_or(u32::MAX, |i| i as u32)
        }),
    };
    let words = query_words(text, MAX_QUERY_WORDS);
    if words.is_empty() || f.terms.as_ref().is_some_and(Range::is_empty) {
        return place(
            s,
            q,
            Found {
                complete: true,
                ..Found::default()
            },
            cancel,
        );
    }
    // The words as the typeahead's first search takes them: a word no token starts with split
    // at its own camelCase and digits.
    let named = split_words(ix, q, &words, Split::Unmatched, cancel)?;
    // Every token a word starts, not only a keystroke's first few hundred (`p`: thousands).
    let mut lists: Vec<WordLists> = Vec::with_capacity(named.len());
    let mut all_tokens = true;
    for (w, _) in &named {
        let (tokens, all) = word_tokens_within(ix, w, MAX_SPREAD_BLOCKS, MAX_SPREAD_TOKENS)?;
        lists.push(tokens);
        all_tokens &= all;
    }
    let mut found = walk(ix, &lists, &f, cancel)?;
    found.complete &= all_tokens;
    if found.entities.is_empty() && found.schema.is_empty() {
        // Nothing as typed: the typos the list would show.
        let mut more = false;
        for ((w, typos), l) in named.iter().zip(&mut lists) {
            if *typos > 0 {
                more |= typo_tokens(ix, w, *typos, l)?;
            }
        }
        if more {
            found = walk(ix, &lists, &f, cancel)?;
        }
    }
    place(s, q, found, cancel)
}

/// Every document all the words' `lists` match, through the filters: their terms.
fn walk(
    ix: &Index,
    lists: &[WordLists],
    f: &Filter,
    cancel: &AtomicBool,
) -> Result<Found, SearchError> {
    let mut found = Found {
        complete: true,
        ..Found::default()
    };
    // Tokens never in a label with another word's leave first (`Ada Fran`: the first names
    // among `fran`'s), their lists not walked. A word without any token leaves no match.
    let lists = &*crate::places::apart(lists);
    if lists.is_empty() || lists.iter().any(Vec::is_empty) {
        return Ok(found);
    }
    // A list longer than the walk reads: only its most important documents count.
    found.complete = merge::parts(lists).all(|p| p.df <= MAX_SPREAD_DOCUMENTS as u64);
    // Every list to the end (a keystroke reads a common word's first 2^18 only).
    let max_chunks = (MAX_SPREAD_DOCUMENTS as u64).div_ceil(CHUNK_POSTINGS) as usize;
    if ix.is_remote() {
        // Over HTTP the whole lists are walked: their chunks fetched together, as many as the
        // index's cache keeps, rather than a few at a time as the walk reaches them.
        let refs: Vec<BlockRef> = merge::parts(lists)
            .flat_map(|p| match &p.postings {
                Postings::Chunks(refs) => &refs[..refs.len().min(max_chunks)],
                Postings::Inline(_) => &[],
            })
            .take(PREFETCH_BLOCKS)
            .copied()
            .collect();
        ix.prefetch_chunks_and_docs(&refs, None)?;
    }
    let cands: Box<dyn Iterator<Item = Result<Cand, SearchError>>> = match lists {
        [one] => Box::new(merge::one_word(ix, one, max_chunks)),
        several => Box::new(merge::several_words(ix, several, max_chunks)),
    };
    // The matching documents first, then their records in document order: each document block
    // read once (the candidates come tier by tier, each tier in document order).
    let mut docs: Vec<u32> = Vec::new();
    for (n, c) in cands.enumerate() {
        if n >= MAX_SPREAD_DOCUMENTS {
            found.complete = false;
            break;
        }
        if n % 4096 == 0 && cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        docs.push(c?.doc);
    }
    docs.sort_unstable();
    docs.dedup();
    let per_block = ix.docs_per_block().max(1);
    let mut held = None;
    let mut from = 0;
    while from < docs.len() {
        if cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        // A window of documents in at most PREFETCH_BLOCKS / 8 blocks: over HTTP, one batch.
        let (mut to, mut blocks, mut last) = (from, 0, u64::MAX);
        while to < docs.len() {
            let b = u64::from(docs[to]) / per_block;
            if b != last {
                if blocks == PREFETCH_BLOCKS / 8 {
                    break;
                }
                blocks += 1;
                last = b;
            }
            to += 1;
        }
        let window = &docs[from..to];
        if ix.is_remote() {
            ix.prefetch_docs(window)?;
        }
        for &doc in window {
            let d = ix.doc_held(doc, &mut held)?;
            if f.kind.is_some_and(|k| k != d.kind)
                || f.pred.is_some_and(|p| p != d.pred)
                || f.terms.as_ref().is_some_and(|r| !r.contains(&d.term))
                || f.class.is_some_and(|c| !d.classes.contains(&c))
            {
                continue;
            }
            match d.kind {
                Kind::Entity => found.entities.insert(d.term),
                Kind::Class | Kind::Predicate => found.schema.insert(d.term),
            };
        }
        from = to;
    }
    Ok(found)
}

/// The matched entities' communities, counted per level (those outside `q.within` left out).
/// A class or predicate that is itself on the map (an ontology's terms are its entities) counts
/// as an entity there; the others are the legend's and the schema's.
fn place(
    s: &Searcher,
    q: &Query,
    found: Found,
    cancel: &AtomicBool,
) -> Result<Spread, SearchError> {
    // `(term, is an entity)`, by term.
    let mut terms: Vec<(Id, bool)> = found
        .entities
        .iter()
        .map(|&t| (t, true))
        .chain(found.schema.iter().map(|&t| (t, false)))
        .collect();
    terms.sort_unstable();
    let mut out = Spread {
        entities: found.entities.len() as u64,
        schema_terms: if q.within.is_some() {
            0
        } else {
            found.schema.len() as u64
        },
        complete: found.complete,
        ..Spread::default()
    };
    let Some(pyramid) = s.pyramid()? else {
        return Ok(out);
    };
    let mut counts: Vec<FxHashMap<u32, u64>> = Vec::new();
    let mut outside = 0u64;
    for batch in terms.chunks(PATH_BATCH) {
        if cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        let ids: Vec<Id> = batch.iter().map(|&(t, _)| t).collect();
        for (&(term, entity), path) in batch.iter().zip(pyramid.community_paths(&ids)?) {
            if q.within.is_some_and(|w| !w.holds(path.as_ref())) {
                if entity {
                    outside += 1;
                }
                continue;
            }
            let Some(path) = path else {
                continue;
            };
            if !entity {
                out.entities += 1;
                out.schema_terms = out.schema_terms.saturating_sub(1);
            }
            if counts.len() < path.len() {
                counts.resize_with(path.len(), FxHashMap::default);
            }
            for (level, &c) in path.iter().enumerate() {
                *counts[level].entry(c).or_default() += 1;
            }
            out.placed.push(term);
        }
    }
    out.entities -= outside;
    out.levels = counts
        .into_iter()
        .map(|m| {
            let mut level: Vec<(u32, u64)> = m.into_iter().collect();
            level.sort_unstable();
            level
        })
        .collect();
    Ok(out)
}
