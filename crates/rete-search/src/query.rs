//! Answering a query: each word's matching tokens (exact, prefix, then with typos when the exact
//! and prefix matches do not fill the answer), their postings intersected lazily, candidates
//! ordered by match tier then importance (document number), documents fetched in that order through the
//! filters, the preferred languages first within a tier, one hit per term.

use crate::codec::CHUNK_POSTINGS;
use crate::collect::{collect, Filters, Names};
use crate::fuzzy;
use crate::merge::{self, SeveralWords, WordLists};
use crate::normalize::{query_words, Word};
use crate::read::{Index, Postings};
use crate::tier::{quality, Cand, Quality};
use crate::{Answer, Hit, Query, SearchError, Searcher, MAX_LIMIT, MAX_QUERY_WORDS};
use oxrdf::{NamedNodeRef, TermRef};
use rete_core::block::BlockRef;
use rustc_hash::FxHashSet;
use std::sync::atomic::{AtomicBool, Ordering};

/// Tokens a query word expands to at most (its exact token first, then in token order).
const MAX_EXPANSIONS: usize = 512;
/// Token blocks a prefix reads at most.
const MAX_PREFIX_BLOCKS: usize = 8;
/// Token blocks a word with typos reads at most (around the word's own block, among those of
/// its first letter).
const MAX_FUZZY_BLOCKS: usize = 16;
/// Postings read per token at most (the most important documents: lists are in that order).
const MAX_POSTINGS: u64 = 1 << 18;
pub(crate) fn run(s: &Searcher, q: &Query, cancel: &AtomicBool) -> Result<Answer, SearchError> {
    let class = match &q.class {
        None => None,
        Some(c) => {
            let iri = c.trim().trim_start_matches('<').trim_end_matches('>');
            let id = NamedNodeRef::new(iri)
                .ok()
                .map(|n| s.rete().id_of(TermRef::NamedNode(n)))
                .transpose()?
                .flatten();
            Some(id.ok_or_else(|| SearchError::UnknownClass(c.clone()))?)
        }
    };
    if q.within.is_some() && s.pyramid()?.is_none() {
        return Err(SearchError::NoPyramid);
    }
    let words = query_words(&q.text, MAX_QUERY_WORDS);
    let f = Filters {
        kind: q.kind,
        class,
        languages: q
            .languages
            .iter()
            .map(|l| l.trim().to_ascii_lowercase())
            .filter(|l| !l.is_empty())
            .collect(),
        limit: q.limit.min(MAX_LIMIT),
    };
    let indexed = s.index().is_some();
    if words.is_empty() || f.limit == 0 {
        return Ok(Answer {
            hits: Vec::new(),
            indexed,
        });
    }
    let hits = match s.index() {
        Some(ix) => {
            let mut hits = indexed_search(s, ix, &words, &f, q, false, cancel)?;
            if hits.len() < f.limit {
                hits = indexed_search(s, ix, &words, &f, q, true, cancel)?;
            }
            hits
        }
        None => crate::scan::search(s, &words, &f, q, cancel)?,
    };
    Ok(Answer { hits, indexed })
}

/// The matching tokens of one word with their quality.
fn word_tokens(
    ix: &Index,
    w: &Word,
    typos: bool,
) -> Result<Vec<(Quality, crate::read::Token)>, SearchError> {
    let chars: Vec<char> = w.text.chars().collect();
    let mut out = Vec::new();
    let nb = ix.block_count();
    if nb == 0 {
        return Ok(out);
    }
    let start = ix.block_of(&w.text);
    let mut seen_blocks = FxHashSet::default();
    // Exact and prefix: from the word's block on, while tokens start with it.
    for b in start..nb.min(start + MAX_PREFIX_BLOCKS) {
        if b > start && !ix.block_first(b).starts_with(&w.text) {
            break;
        }
        seen_blocks.insert(b);
        for t in ix.token_block(b)?.iter() {
            if t.text.as_str() < w.text.as_str() {
                continue;
            }
            if !t.text.starts_with(&w.text) {
                break;
            }
            if out.len() < MAX_EXPANSIONS {
                out.push((quality(w, &chars, &t.text, false).unwrap_or(1), t.clone()));
            }
        }
    }
    let max = fuzzy::allowed(chars.len());
    if typos && max > 0 && !w.cjk {
        // Typos: tokens of the same first letter, the blocks nearest the word's first.
        let Some(c) = chars.first() else {
            return Ok(out);
        };
        let lo_s = c.to_string();
        let mut hi_s = lo_s.clone();
        hi_s.push(char::MAX);
        let lo = ix.block_of(&lo_s);
        let hi = ix.block_of(&hi_s) + 1;
        let from = start
            .saturating_sub(MAX_FUZZY_BLOCKS / 2)
            .max(lo)
            .min(hi.saturating_sub(MAX_FUZZY_BLOCKS).max(lo));
        for b in from..hi.min(from + MAX_FUZZY_BLOCKS) {
            if seen_blocks.contains(&b) {
                continue;
            }
            for t in ix.token_block(b)?.iter() {
                if !t.text.starts_with(*c) {
                    continue;
                }
                if let Some(qual) = quality(w, &chars, &t.text, true) {
                    if qual == 2 && out.len() < MAX_EXPANSIONS * 2 {
                        out.push((qual, t.clone()));
                    }
                }
            }
        }
        // Typos among the tokens already seen (the word's own block).
        for b in seen_blocks {
            for t in ix.token_block(b)?.iter() {
                if t.text.starts_with(*c)
                    && !t.text.starts_with(&w.text)
                    && quality(w, &chars, &t.text, true) == Some(2)
                    && out.len() < MAX_EXPANSIONS * 2
                {
                    out.push((2, t.clone()));
                }
            }
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn indexed_search(
    s: &Searcher,
    ix: &Index,
    words: &[Word],
    f: &Filters,
    q: &Query,
    typos: bool,
    cancel: &AtomicBool,
) -> Result<Vec<Hit>, SearchError> {
    // Each word's matching tokens; a word without any leaves no answer.
    let mut tokens: Vec<WordLists> = Vec::with_capacity(words.len());
    for w in words {
        if cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        let t = word_tokens(ix, w, typos)?;
        if t.is_empty() {
            return Ok(Vec::new());
        }
        tokens.push(t);
    }
    // Over HTTP the first chunk of every list is fetched in one batch; the walk below decodes
    // only the chunks it reaches (a local file reads them as it goes).
    if ix.is_remote() {
        let first: Vec<BlockRef> = tokens
            .iter()
            .flatten()
            .flat_map(|(_, t)| t.ones.iter().chain([&t.rest]))
            .filter_map(|p| match &p.postings {
                Postings::Chunks(refs) => refs.first().copied(),
                Postings::Inline(_) => None,
            })
            .collect();
        ix.prefetch_chunks(&first)?;
    }
    let max_chunks = MAX_POSTINGS.div_ceil(CHUNK_POSTINGS) as usize;
    let mut cands: Box<dyn Iterator<Item = Result<Cand, SearchError>>> =
        match <[WordLists; 1]>::try_from(tokens) {
            Ok([one]) => Box::new(merge::one_word(ix, one, max_chunks)),
            Err(several) => Box::new(SeveralWords::new(ix, &several, max_chunks)),
        };
    // The documents of the first candidates in one read, not one block at a time.
    let head: Vec<Cand> = cands.by_ref().take(f.limit * 2).collect::<Result<_, _>>()?;
    ix.prefetch_docs(&head.iter().map(|c| c.doc).collect::<Vec<_>>())?;
    if q.within.is_some() {
        // Searching within a community filters by path: theirs in one batch too.
        let mut entities = Vec::with_capacity(head.len());
        for c in &head {
            let d = ix.doc(c.doc)?;
            if d.kind == crate::Kind::Entity {
                entities.push(d.term);
            }
        }
        s.community_paths(&entities)?;
    }
    let cands = head.into_iter().map(Ok).chain(cands);
    collect(
        s,
        f,
        q,
        cands,
        |c| ix.doc(c.doc),
        Names {
            languages: ix.languages(),
            predicates: ix.label_predicates(),
        },
        cancel,
    )
}
