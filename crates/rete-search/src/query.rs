//! Answering a query: each word's matching tokens (exact, prefix, then with typos when the exact
//! and prefix matches do not fill the answer), their postings intersected, candidates ordered by
//! match tier then importance (document number), documents fetched in that order through the
//! filters, the preferred languages first within a tier, one hit per term.

use crate::fuzzy;
use crate::merge::{self, WordLists};
use crate::normalize::{query_words, Word};
use crate::read::{DocRec, Index, Label};
use crate::{Answer, Hit, Kind, Match, Query, SearchError, Searcher, MAX_LIMIT, MAX_QUERY_WORDS};
use oxrdf::{NamedNodeRef, Term, TermRef};
use rete_core::vocab::local_name;
use rete_core::Id;
use rustc_hash::{FxHashMap, FxHashSet};
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
/// Documents examined per query at most (filters that reject most candidates stop here).
const MAX_EXAMINED: usize = 20_000;

/// Match quality of one word: 0 exact word, 1 word prefix, 2 with typos.
pub(crate) type Quality = u8;

/// A candidate label: its tier (see [`Match`]) and its order within the tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cand {
    pub tier: u8,
    pub doc: u32,
}

/// The tier of a label whose words matched with `qualities` and which has `ntok` words.
pub(crate) fn tier(qualities: &[Quality], ntok: usize) -> u8 {
    let worst = qualities.iter().copied().max().unwrap_or(0);
    let whole = ntok == qualities.len();
    match (worst, whole) {
        (0, true) => 0,
        (0, false) => 1,
        (1, true) => 2,
        (1, false) => 3,
        _ => 4,
    }
}

pub(crate) fn tier_match(t: u8) -> Match {
    match t {
        0 => Match::WholeLabel,
        1 => Match::Exact,
        2 => Match::WholePrefix,
        3 => Match::Prefix,
        _ => Match::Fuzzy,
    }
}

/// How a query word matches a token, if it does.
pub(crate) fn quality(w: &Word, chars: &[char], token: &str, typos: bool) -> Option<Quality> {
    if token == w.text {
        return Some(0);
    }
    if token.starts_with(&w.text) {
        return Some(1);
    }
    if typos && !w.cjk {
        let max = fuzzy::allowed(chars.len());
        if max > 0 && fuzzy::distance(chars, token, max, true).is_some() {
            return Some(2);
        }
    }
    None
}

/// The filters of a query, resolved against the file.
pub(crate) struct Filters {
    pub kind: Option<Kind>,
    pub class: Option<Id>,
    pub languages: Vec<String>,
    pub limit: usize,
}

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
    // Each word: its tokens' posting lists, sorted by document.
    let mut per_word: Vec<WordLists> = Vec::with_capacity(words.len());
    for w in words {
        if cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        let tokens = word_tokens(ix, w, typos)?;
        let refs: Vec<&crate::read::Token> = tokens.iter().map(|(_, t)| t).collect();
        let mut lists: WordLists = Vec::new();
        for ((qual, _), chunks) in tokens.iter().zip(ix.tokens_postings(&refs, MAX_POSTINGS)?) {
            lists.extend(chunks.into_iter().map(|l| (*qual, l)));
        }
        if lists.is_empty() {
            return Ok(Vec::new());
        }
        per_word.push(lists);
    }
    let mut cands: Box<dyn Iterator<Item = Cand>> = match <[WordLists; 1]>::try_from(per_word) {
        Ok([one]) => Box::new(merge::one_word(one)),
        Err(several) => Box::new(merge::several_words(&several).into_iter()),
    };
    // The documents of the first candidates in one read, not one block at a time.
    let head: Vec<Cand> = cands.by_ref().take(f.limit * 2).collect();
    ix.prefetch_docs(&head.iter().map(|c| c.doc).collect::<Vec<_>>())?;
    let cands = head.into_iter().chain(cands);
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

/// The community path of an entity's term (`None` for classes, predicates, a file without a
/// pyramid, or a term outside its entity graph).
fn path_of(s: &Searcher, d: &DocRec) -> Result<Option<Vec<u32>>, SearchError> {
    if d.kind != Kind::Entity {
        return Ok(None);
    }
    s.community_path(d.term)
}

/// The tables a document's numbers refer to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Names<'a> {
    /// Language tags (a document's `lang` is an index + 1).
    pub languages: &'a [String],
    /// Label predicates (a document's `pred`; their count for a local name).
    pub predicates: &'a [String],
}

/// The best label of a term so far: (tier, language rank, candidate order), the document, and
/// the term's community path.
type Best = ((u8, usize, u32), DocRec, Option<Vec<u32>>);

/// Walks candidates in order, fetches their documents, applies the filters and keeps the best
/// label of each term; within a tier the preferred languages come first.
pub(crate) fn collect(
    s: &Searcher,
    f: &Filters,
    q: &Query,
    cands: impl Iterator<Item = Cand>,
    mut doc: impl FnMut(&Cand) -> Result<DocRec, SearchError>,
    names: Names<'_>,
    cancel: &AtomicBool,
) -> Result<Vec<Hit>, SearchError> {
    let Names {
        languages,
        predicates,
    } = names;
    let lang_of =
        |d: &DocRec| -> Option<String> { languages.get(d.lang.checked_sub(1)? as usize).cloned() };
    // A preferred language's place; untagged labels and other languages after all of them.
    let lang_rank = |l: &Option<String>| -> usize {
        let l = l.as_deref().unwrap_or_default().to_ascii_lowercase();
        f.languages
            .iter()
            .position(|p| {
                l == *p
                    || l.strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with('-'))
            })
            .unwrap_or(f.languages.len())
    };
    // A label predicate the index does not hold matches nothing.
    let pred: Option<u32> = q.label_predicate.as_ref().map(|iri| {
        predicates
            .iter()
            .position(|p| p == iri)
            .map_or(u32::MAX, |i| i as u32)
    });
    // (tier, language rank, candidate order) → document; one per term.
    let mut best: FxHashMap<Id, Best> = FxHashMap::default();
    let mut done_tier: Option<u8> = None;
    let mut after_full = 0usize;
    for (examined, c) in cands.enumerate() {
        if examined >= MAX_EXAMINED || done_tier.is_some_and(|t| c.tier > t) {
            break;
        }
        if examined % 256 == 0 && cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        if done_tier.is_some() {
            // Past the limit, the rest of the tier is read only to let a preferred language in.
            after_full += 1;
            if after_full > f.limit * 4 || f.languages.is_empty() {
                break;
            }
        }
        let d = doc(&c)?;
        if f.kind.is_some_and(|k| k != d.kind) || pred.is_some_and(|p| p != d.pred) {
            continue;
        }
        if let Some(class) = f.class {
            if !d.classes.contains(&class) {
                continue;
            }
        }
        // The path is read here only to filter; the hits' paths are read at the end.
        let path = match q.within {
            Some(_) => path_of(s, &d)?,
            None => None,
        };
        if let Some(w) = q.within {
            let inside = path
                .as_ref()
                .and_then(|p| p.get(w.level as usize))
                .is_some_and(|&c| c == w.community);
            if !inside {
                continue;
            }
        }
        let key = (c.tier, lang_rank(&lang_of(&d)), c.doc);
        match best.get(&d.term) {
            Some((k, _, _)) if *k <= key => {}
            _ => {
                best.insert(d.term, (key, d, path));
            }
        }
        if done_tier.is_none() && best.len() >= f.limit {
            done_tier = Some(c.tier);
        }
    }
    let mut ranked: Vec<_> = best.into_values().collect();
    ranked.sort_by_key(|(k, _, _)| *k);
    ranked.truncate(f.limit);
    let rete = s.rete();
    // The hits' terms, classes and labels in one batch (a remote file: one round trip).
    let ids: Vec<Id> = ranked
        .iter()
        .flat_map(|(_, d, _)| {
            let label = match d.label {
                Label::Literal(id) => Some(id),
                _ => None,
            };
            [Some(d.term), d.classes.first().copied(), label]
        })
        .flatten()
        .collect();
    rete.prefetch_terms(&ids)?;
    ranked
        .into_iter()
        .enumerate()
        .map(|(i, (k, d, path))| {
            let path = match path {
                Some(p) => Some(p),
                None => path_of(s, &d)?,
            };
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
            Ok(Hit {
                rank: i + 1,
                term: term.to_string(),
                kind: d.kind,
                lang: lang_of(&d),
                source: predicates.get(d.pred as usize).cloned(),
                label,
                matched: tier_match(k.0),
                class,
                path,
            })
        })
        .collect()
}
