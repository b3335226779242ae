//! Answering a query: each word's matching tokens (exact, prefix, then with typos when the exact
//! and prefix matches do not fill the answer), their postings intersected lazily, candidates
//! ordered by match tier then importance (document number), documents fetched in that order through the
//! filters, the preferred languages first within a tier, one hit per term.

use crate::codec::CHUNK_POSTINGS;
use crate::collect::{collect, Docs, Filters, Names};
use crate::compound;
use crate::fuzzy;
use crate::merge::{self, WordLists};
use crate::normalize::{name_parts, query_words, Word};
use crate::postings::{first_fetch, gallop};
use crate::read::{DocRec, Index, Postings, Token, TokenRef};
use crate::tier::{typo_quality, typos_of, Cand};
use crate::{Answer, Hit, Query, SearchError, Searcher, MAX_LIMIT, MAX_QUERY_WORDS};
use oxrdf::{NamedNodeRef, TermRef};
use rete_core::block::BlockRef;
use rustc_hash::FxHashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Tokens a query word expands to at most (its exact token first, then in token order).
const MAX_EXPANSIONS: usize = 512;
/// Token blocks a prefix reads at most.
const MAX_PREFIX_BLOCKS: usize = 8;
/// Token blocks a word with typos reads at most (around the word's own block, among those of
/// its first letter).
const MAX_FUZZY_BLOCKS: usize = 16;
/// Splits at the index's words a query tries at most, each without the longest piece of the
/// one before.
const MAX_SPLITS: usize = 3;
/// Postings read per token at most (the most important documents: lists are in that order).
pub(crate) const MAX_POSTINGS: u64 = 1 << 18;
/// Hits a query led by a namespace's prefix gathers, for each asked, before its local names
/// that start with the typed text are put first.
const NAMESPACE_WINDOW: usize = 4;
pub(crate) fn run(s: &Searcher, q: &Query, cancel: &AtomicBool) -> Result<Answer, SearchError> {
    let class = class_id(s, q)?;
    if q.within.is_some() && s.pyramid()?.is_none() {
        return Err(SearchError::NoPyramid);
    }
    // `schema:Per`: the words after the prefix, among the namespace's terms, searched for a
    // few times the hits asked, of which those whose local name starts so come first.
    let (namespace, terms, text) = match crate::by_iri::namespace_typed(s, &q.text)? {
        Some(n) => (Some((n.namespace, n.rest)), Some(n.terms), n.rest),
        None => (None, None, q.text.as_str()),
    };
    let window = if namespace.is_some() {
        NAMESPACE_WINDOW
    } else {
        1
    };
    let words = query_words(text, MAX_QUERY_WORDS);
    let f = Filters {
        kind: q.kind,
        class,
        terms,
        languages: q
            .languages
            .iter()
            .map(|l| l.trim().to_ascii_lowercase())
            .filter(|l| !l.is_empty())
            .collect(),
        limit: q.limit.saturating_mul(window).min(MAX_LIMIT),
    };
    let indexed = s.index().is_some();
    // A namespace the file holds no IRI of (`schema:` in a file without schema.org) has no hit:
    // the words' candidates are not walked only to be filtered out.
    if words.is_empty() || f.limit == 0 || f.terms.as_ref().is_some_and(|r| r.is_empty()) {
        return Ok(Answer {
            hits: Vec::new(),
            indexed,
        });
    }
    let hits = match s.index() {
        Some(ix) => {
            // A word no token starts with, split where its own case or digits change; typos
            // included, what it finds comes first.
            let named = split_words(ix, q, &words, Split::Unmatched, cancel)?;
            let mut hits = word_search(s, ix, &named, &f, q, cancel)?;
            // Too few: the words split at their camelCase even where a token starts with them,
            // its hits after (`UndergraduateStudent`: the class, by its joined name, then the
            // people named `UndergraduateStudent12`, whose names are not joined).
            // Without typos: they are the first search's, and typos of several parts each
            // would walk the token blocks of each.
            if hits.len() < f.limit {
                let camel: Vec<(Word, u32)> = split_words(ix, q, &words, Split::Camel, cancel)?
                    .into_iter()
                    .map(|(w, _)| (w, 0))
                    .collect();
                if camel
                    .iter()
                    .map(|(w, _)| w)
                    .ne(named.iter().map(|(w, _)| w))
                {
                    let more = word_search(s, ix, &camel, &f, q, cancel)?;
                    append_hits(&mut hits, more, f.limit);
                }
            }
            // Nothing: split at the index's words too (`alberteinstein`), only now, so that
            // a typo is found as one before any such split is tried, and costs no reads of
            // the token blocks a split would look its pieces up in.
            // A split that finds nothing is tried again without its longest piece not typed
            // as a word (`undergraduatestudent12`: the class's joined name and `12`, then
            // `undergraduate`, `student`, `12`), a few times.
            let mut banned: Vec<String> = Vec::new();
            let mut tried = named.clone();
            for _ in 0..MAX_SPLITS {
                if !hits.is_empty() {
                    break;
                }
                let known = split_words(ix, q, &words, Split::Known(&banned), cancel)?;
                if known != tried {
                    hits = word_search(s, ix, &known, &f, q, cancel)?;
                    tried = known;
                }
                let longest = tried
                    .iter()
                    .map(|(w, _)| &w.text)
                    .filter(|t| !words.iter().any(|w| &w.text == *t) && !banned.contains(t))
                    .max_by_key(|t| t.len());
                match longest {
                    Some(t) => banned.push(t.clone()),
                    None => break,
                }
            }
            // Pieces that no label holds together leave the word as typed, with its typos
            // (`FuxlProfessor0`: no word is `fuxl`, the class `FullProfessor` is near).
            let typed = || words.iter().map(|w| (w.clone(), typos_of(w)));
            if hits.is_empty() && named.iter().cloned().ne(typed()) {
                hits = word_search(s, ix, &typed().collect::<Vec<_>>(), &f, q, cancel)?;
            }
            hits
        }
        None => crate::scan::search(s, &words, &f, q, cancel)?,
    };
    let hits = match namespace {
        Some((ns, typed)) => crate::by_iri::names_first(hits, &ns, typed, q.limit.min(MAX_LIMIT)),
        None => hits,
    };
    Ok(Answer { hits, indexed })
}

/// The id of the class the query restricts to, if it names one; a class the file does not hold
/// is an error.
pub(crate) fn class_id(s: &Searcher, q: &Query) -> Result<Option<rete_core::Id>, SearchError> {
    let Some(c) = &q.class else {
        return Ok(None);
    };
    let iri = c.trim().trim_start_matches('<').trim_end_matches('>');
    let id = NamedNodeRef::new(iri)
        .ok()
        .map(|n| s.rete().id_of(TermRef::NamedNode(n)))
        .transpose()?
        .flatten();
    Ok(Some(
        id.ok_or_else(|| SearchError::UnknownClass(c.clone()))?,
    ))
}

/// Which of a query's words [`split_words`] splits, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Split<'a> {
    /// Those no token starts with, at their camelCase and digits.
    Unmatched,
    /// Every word at its camelCase and digits, unless a part is one letter.
    Camel,
    /// Those no token starts with, at their camelCase and digits, else at the index's words,
    /// none but a last piece one of these.
    Known(&'a [String]),
}

/// Appends to `hits` those of `more` whose terms it does not hold, up to `limit`, ranked on.
fn append_hits(hits: &mut Vec<Hit>, more: Vec<Hit>, limit: usize) {
    for mut h in more {
        if hits.len() >= limit {
            break;
        }
        if !hits.iter().any(|x| x.term == h.term) {
            h.rank = hits.len() + 1;
            hits.push(h);
        }
    }
}

/// The query's words, some split as compounds (`compound`) as `how` says, each with the typos
/// it may match with: a word typed by its length, the pieces of its camelCase as it, the pieces
/// found at known words none (a typo on top of a guessed split would match nearly anything).
pub(crate) fn split_words(
    ix: &Index,
    q: &Query,
    words: &[Word],
    how: Split<'_>,
    cancel: &AtomicBool,
) -> Result<Vec<(Word, u32)>, SearchError> {
    let mut out: Vec<(Word, u32)> = Vec::with_capacity(words.len());
    for w in words {
        if cancel.load(Ordering::Relaxed) {
            return Err(SearchError::Cancelled);
        }
        // The camelCase parts first: most words have none, and are not looked up twice.
        let named = if w.cjk {
            None
        } else {
            name_parts(&q.text, &w.text)
        };
        let pieces = match how {
            _ if w.cjk => None,
            // Not when a part is one letter (`BusinessEntityT`, typing on): a search as
            // broad as the letter for a few more hits, which the next keystroke narrows.
            Split::Camel
                if named.as_ref().is_some_and(|p| {
                    p.iter()
                        .any(|p| p.text.len() == 1 && !p.text.as_bytes()[0].is_ascii_digit())
                }) =>
            {
                None
            }
            Split::Camel => compound::named_pieces(named, w),
            Split::Unmatched if named.is_none() => None,
            _ if !word_tokens(ix, w)?.is_empty() => None,
            Split::Unmatched => compound::named_pieces(named, w),
            Split::Known(banned) => {
                compound::pieces(&mut compound::Tokens::new(ix), named, w, banned)?
            }
        };
        match pieces {
            Some(pieces) => {
                for p in pieces {
                    if !out.iter().any(|(s, _)| s.text == p.word.text) {
                        out.push((p.word, p.typos));
                    }
                }
            }
            None => out.push((w.clone(), typos_of(w))),
        }
    }
    out.truncate(MAX_QUERY_WORDS);
    Ok(out)
}

/// The hits of `words` (each with the typos it may match with): each word's exact and prefix
/// tokens; with typos, the same lists with the tokens within its typos appended.
fn word_search(
    s: &Searcher,
    ix: &Index,
    words: &[(Word, u32)],
    f: &Filters,
    q: &Query,
    cancel: &AtomicBool,
) -> Result<Vec<Hit>, SearchError> {
    let mut lists: Vec<WordLists> = Vec::with_capacity(words.len());
    for (w, _) in words {
        lists.push(word_tokens(ix, w)?);
    }
    // A word whose lists hold fewer documents than the answer wants leaves fewer hits
    // (every word must match): the typo pass is then sure to run, and the search
    // without it is not run first for nothing.
    let postings = |l: &WordLists| l.iter().map(|(_, t)| t.df).sum::<u64>();
    let short = lists.iter().map(postings).min().unwrap_or(0) < f.limit as u64;
    let mut hits = if short {
        Vec::new()
    } else {
        indexed_search(s, ix, &lists, f, q, cancel)?
    };
    if hits.len() < f.limit {
        let mut more = false;
        for ((w, typos), l) in words.iter().zip(&mut lists) {
            if cancel.load(Ordering::Relaxed) {
                return Err(SearchError::Cancelled);
            }
            if *typos > 0 {
                more |= typo_tokens(ix, w, *typos, l)?;
            }
        }
        // No word gained a token (too short for typos, or none near): the same lists
        // give the same hits, searched here only if not before.
        if more || short {
            hits = indexed_search(s, ix, &lists, f, q, cancel)?;
        }
    }
    Ok(hits)
}

/// The token blocks a word's exact and prefix tokens lie in: from the word's block on, while
/// the blocks start with it (at most `max`).
fn prefix_blocks(ix: &Index, w: &Word, max: usize) -> std::ops::Range<usize> {
    let nb = ix.block_count();
    let start = ix.block_of(&w.text).min(nb);
    let mut end = start;
    while end < nb.min(start.saturating_add(max))
        && (end == start || ix.block_first(end).starts_with(&w.text))
    {
        end += 1;
    }
    start..end
}

/// The tokens of one word matched exactly or as a prefix, with their quality (its exact token
/// first, then in token order): those of its first [`MAX_PREFIX_BLOCKS`] blocks, at most
/// [`MAX_EXPANSIONS`] — a keystroke's.
pub(crate) fn word_tokens(ix: &Index, w: &Word) -> Result<WordLists, SearchError> {
    Ok(word_tokens_within(ix, w, MAX_PREFIX_BLOCKS, MAX_EXPANSIONS)?.0)
}

/// The tokens of one word matched exactly or as a prefix, from at most `max_blocks` token blocks
/// and at most `max_tokens` of them; and whether those are all it has.
pub(crate) fn word_tokens_within(
    ix: &Index,
    w: &Word,
    max_blocks: usize,
    max_tokens: usize,
) -> Result<(WordLists, bool), SearchError> {
    let mut out = Vec::new();
    let blocks = prefix_blocks(ix, w, max_blocks);
    let mut all =
        blocks.end >= ix.block_count() || !ix.block_first(blocks.end).starts_with(&w.text);
    for b in blocks {
        let block = ix.token_block(b)?;
        // The first token at or after the word (the block is sorted).
        let from = block.partition_point(|t| t.text.as_str() < w.text.as_str());
        for (k, t) in block.iter().enumerate().skip(from) {
            if !t.text.starts_with(&w.text) {
                break;
            }
            if out.len() < max_tokens {
                let quality = if t.text == w.text { 0 } else { 1 };
                out.extend(TokenRef::new(&block, k).map(|t| (quality, t)));
            } else {
                all = false;
            }
        }
    }
    Ok((out, all))
}

/// Appends to `out` (the word's [`word_tokens`]) the tokens within `max` typos of it (tokens of
/// the same first letter, the blocks nearest the word's first); whether it added any.
pub(crate) fn typo_tokens(
    ix: &Index,
    w: &Word,
    max: u32,
    out: &mut WordLists,
) -> Result<bool, SearchError> {
    let before = out.len();
    let chars: Vec<char> = w.text.chars().collect();
    let nb = ix.block_count();
    if nb == 0 || max == 0 || w.cjk {
        return Ok(false);
    }
    let Some(c) = chars.first() else {
        return Ok(false);
    };
    let seen = prefix_blocks(ix, w, MAX_PREFIX_BLOCKS);
    let start = seen.start;
    let lo_s = c.to_string();
    let mut hi_s = lo_s.clone();
    hi_s.push(char::MAX);
    let lo = ix.block_of(&lo_s);
    let hi = ix.block_of(&hi_s) + 1;
    let from = start
        .saturating_sub(MAX_FUZZY_BLOCKS / 2)
        .max(lo)
        .min(hi.saturating_sub(MAX_FUZZY_BLOCKS).max(lo));
    let mut walk = fuzzy::PrefixTypos::new(&chars, max);
    for b in from..hi.min(from + MAX_FUZZY_BLOCKS) {
        if !seen.contains(&b) && !block_typos(&ix.token_block(b)?, w, *c, &mut walk, out) {
            return Ok(out.len() > before);
        }
    }
    // Typos among the tokens already seen (the word's own blocks), in the order a set of
    // them gives (as the lists were always made).
    let mut set = FxHashSet::default();
    for b in seen {
        set.insert(b);
    }
    for b in set {
        if !block_typos(&ix.token_block(b)?, w, *c, &mut walk, out) {
            return Ok(out.len() > before);
        }
    }
    Ok(out.len() > before)
}

/// Appends to `out` the tokens of `block` starting with `c` within the word's typos and not a
/// prefix match (those the word's own lists hold): quality 2 or 3 by their typos. The tokens
/// after one whose prefix rules them all out are skipped at once. False once `out` is full.
fn block_typos(
    block: &Arc<Vec<Token>>,
    w: &Word,
    c: char,
    walk: &mut fuzzy::PrefixTypos<'_>,
    out: &mut WordLists,
) -> bool {
    // The tokens are sorted: those starting with `c` are one run, the word's prefix matches
    // one run inside it, each found by a binary search rather than a comparison per token.
    let mut first = [0u8; 4];
    let first: &str = c.encode_utf8(&mut first);
    let run = |from: usize, to: usize, prefix: &str| {
        let start = from + block[from..to].partition_point(|t| t.text.as_str() < prefix);
        (
            start,
            start + block[start..to].partition_point(|t| t.text.starts_with(prefix)),
        )
    };
    let (lo, hi) = run(0, block.len(), first);
    let own = run(lo, hi, &w.text);
    let mut k = lo;
    while k < hi {
        if out.len() >= MAX_EXPANSIONS * 2 {
            return false;
        }
        if (own.0..own.1).contains(&k) {
            k = own.1;
            continue;
        }
        let t = &block[k];
        k += 1;
        if let Some(typos) = walk.distance(&t.text) {
            out.extend(TokenRef::new(block, k - 1).map(|t| (typo_quality(typos), t)));
        } else if let Some(p) = walk.ruled_out() {
            // Usually a few tokens: found by galloping from here.
            k = gallop(&block[..hi], k, |u| starts_with(&u.text, p));
        }
    }
    true
}

/// `text.starts_with(prefix)` compared byte by byte inline: the typo walk asks it of many
/// tokens with a prefix of a few bytes, where a call to `memcmp` costs more than the bytes.
fn starts_with(text: &str, prefix: &str) -> bool {
    let (t, p) = (text.as_bytes(), prefix.as_bytes());
    t.len() >= p.len() && t.iter().zip(p).all(|(a, b)| a == b)
}

/// Document blocks guessed for a keystroke over HTTP, to be fetched with the first posting
/// chunks rather than in a request of their own after them: for a query of several words whose
/// rarest word's first postings are at hand (read by the keystrokes before, as `erna` is when
/// `Erna B` is typed), the blocks of its first documents, as far down its list as `want`
/// candidates likely reach: twice as far as the other words' shares of the documents would say
/// were the words independent (a prefix's tokens share labels with the first word less than
/// that: `b` matches first names too). The blocks are the ones the walk reads next anyway; a
/// guess too short costs the request it would have saved.
fn guessed_doc_blocks(ix: &Index, tokens: &[WordLists], want: usize) -> Option<(u64, u64)> {
    if tokens.len() < 2 {
        return None;
    }
    let total = |w: &WordLists| w.iter().map(|(_, t)| t.df).sum::<u64>();
    let driver = (0..tokens.len()).min_by_key(|&i| total(&tokens[i]))?;
    let n = ix.documents().max(1) as f64;
    let share: f64 = tokens
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != driver)
        .map(|(_, w)| (total(w) as f64 / n).min(1.0))
        .product();
    let reach = (2.0 * want as f64 / share).ceil().min(f64::from(u32::MAX)) as usize;
    let mut docs: Vec<u32> = Vec::new();
    for (_, t) in &tokens[driver] {
        for part in t.ones.iter().chain([&t.rest]) {
            if part.df > 0 {
                let list = ix.first_postings_at_hand(part)?;
                docs.extend(list.iter().take(reach).map(|p| p.0));
            }
        }
    }
    docs.sort_unstable();
    let per = ix.docs_per_block();
    let first = u64::from(*docs.first()?) / per;
    let last = u64::from(*docs.get(reach.min(docs.len()).max(1) - 1)?) / per;
    Some((first, last))
}

/// The hits of the query whose words match `tokens` (each word's matching tokens).
fn indexed_search(
    s: &Searcher,
    ix: &Index,
    tokens: &[WordLists],
    f: &Filters,
    q: &Query,
    cancel: &AtomicBool,
) -> Result<Vec<Hit>, SearchError> {
    // Tokens never in a label with another word's leave first: their lists are neither
    // fetched nor walked. A word without any token leaves no answer.
    let tokens = &*crate::places::apart(tokens);
    if tokens.iter().any(Vec::is_empty) {
        return Ok(Vec::new());
    }
    // Over HTTP the first chunks of every list are fetched in one batch; the walk below decodes
    // only the chunks it reaches (a local file reads them as it goes).
    let max_chunks = MAX_POSTINGS.div_ceil(CHUNK_POSTINGS) as usize;
    if ix.is_remote() {
        let first: Vec<BlockRef> = merge::parts(tokens)
            .flat_map(|p| match &p.postings {
                Postings::Chunks(refs) => first_fetch(refs, max_chunks),
                Postings::Inline(_) => &[],
            })
            .copied()
            .collect();
        ix.prefetch_chunks_and_docs(&first, guessed_doc_blocks(ix, tokens, f.limit * 2))?;
    }
    let mut cands: Box<dyn Iterator<Item = Result<Cand, SearchError>>> = match tokens {
        [one] => Box::new(merge::one_word(ix, one, max_chunks)),
        several => Box::new(merge::several_words(ix, several, max_chunks)),
    };
    // The documents of the first candidates in one read, not one block at a time.
    let head: Vec<Cand> = cands.by_ref().take(f.limit * 2).collect::<Result<_, _>>()?;
    ix.prefetch_docs(&head.iter().map(|c| c.doc).collect::<Vec<_>>())?;
    if q.within.is_some() {
        // Searching within a community filters by path: theirs in one batch too.
        let mut terms = Vec::with_capacity(head.len());
        let mut held = None;
        for c in &head {
            terms.push(ix.doc_held(c.doc, &mut held)?.term);
        }
        s.community_paths(&terms)?;
    }
    let cands = head.into_iter().map(Ok).chain(cands);
    collect(
        s,
        f,
        q,
        cands,
        IndexDocs { ix, held: None },
        Names {
            languages: ix.languages(),
            predicates: ix.label_predicates(),
        },
        cancel,
    )
}

/// The documents of an index, the block last read held.
struct IndexDocs<'a> {
    ix: &'a Index,
    held: Option<(u64, Arc<Vec<DocRec>>)>,
}

impl Docs for IndexDocs<'_> {
    fn doc(&mut self, c: &Cand) -> Result<DocRec, SearchError> {
        self.ix.doc_held(c.doc, &mut self.held)
    }

    fn prefetch(&mut self, cands: &[Cand]) -> Result<(), SearchError> {
        self.ix
            .prefetch_docs(&cands.iter().map(|c| c.doc).collect::<Vec<_>>())
    }
}
