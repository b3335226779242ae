//! Candidates in answer order (tier, then document) from sorted posting lists, lazily, without
//! hash maps: one query word streams its lists tier by tier through a k-way merge; several words
//! stream the word with the fewest postings and look its documents up in the others' lists, in
//! stages of match quality. Either stops as soon as the caller has its answer, so a keystroke
//! reads the few chunks holding the documents it needs.

use crate::places::seated;
use crate::postings::Cursor;
use crate::read::{Index, Part, TokenRef};
pub(crate) use crate::tier::WordLists;
use crate::tier::{tier, tier_of, Cand, Quality, NO_MATCH, TIERS, WORST};
use crate::SearchError;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Every part (the labels of one word, the others) of every token of the words' `lists`.
pub(crate) fn parts(lists: &[WordLists]) -> impl Iterator<Item = &Part> {
    lists
        .iter()
        .flatten()
        .flat_map(|(_, t)| t.ones.iter().chain([&t.rest]))
}

/// Tiers in answer order, for one word: `(quality, whole label)` of each ([`tier_of`]).
const ONE_WORD_TIERS: [(Quality, bool); TIERS] = [
    (0, true),
    (0, false),
    (1, true),
    (1, false),
    (2, true),
    (2, false),
    (WORST, true),
    (WORST, false),
];

/// Cursors over the postings of `tokens` whose label is of one word (`whole: Some(true)`), of
/// more (`Some(false)`) or any (`None`): a token with its one-word labels apart gives the part
/// asked for, an older one its whole list with the word counts filtered.
fn cursors<'a>(
    tokens: impl IntoIterator<Item = &'a (Quality, TokenRef)>,
    whole: Option<bool>,
    max: usize,
) -> Vec<Cursor> {
    let mut out = Vec::new();
    for (q, t) in tokens {
        let parts = match (&t.ones, whole) {
            (Some(ones), Some(true)) => [Some((ones, None)), None],
            (Some(_), Some(false)) => [Some((&t.rest, None)), None],
            (Some(ones), None) => [Some((ones, None)), Some((&t.rest, None))],
            (None, w) => [Some((&t.rest, w)), None],
        };
        for (part, keep) in parts.into_iter().flatten() {
            if part.df > 0 {
                out.push(Cursor::new(part, max, keep, *q));
            }
        }
    }
    out
}

/// The candidates of a one-word query, lazily, best first: per tier, a k-way merge of the lists
/// of that tier's quality keeping the labels of one word (whole) or more (not whole).
pub(crate) fn one_word<'a>(
    ix: &'a Index,
    lists: &'a WordLists,
    max_chunks: usize,
) -> impl Iterator<Item = Result<Cand, SearchError>> + 'a {
    ONE_WORD_TIERS.into_iter().flat_map(move |(qual, whole)| {
        let of_tier = lists.iter().filter(|(q, _)| *q == qual);
        let tier = tier_of(qual, whole);
        Merge::new(ix, cursors(of_tier, Some(whole), max_chunks))
            .map(move |r| r.map(|(doc, _, _)| Cand { tier, doc }))
    })
}

/// A lazy k-way merge of sorted cursors: each document once, with the best quality of the lists
/// holding it and its label's word count.
struct Merge {
    index: Index,
    cursors: Vec<Cursor>,
    /// Each cursor's posting as one number ([`key`]): one comparison per step of the heap.
    heap: BinaryHeap<Reverse<u64>>,
    started: bool,
    last: Option<u32>,
}

/// A cursor's posting ordered as the merge wants it: by document, then quality (best first),
/// then word count and the cursor's number (below 2^16: a word has at most a few thousand lists).
fn key(doc: u32, quality: Quality, ntok: u8, cursor: usize) -> u64 {
    (u64::from(doc) << 32) | (u64::from(quality) << 24) | (u64::from(ntok) << 16) | cursor as u64
}

impl Merge {
    fn new(index: &Index, cursors: Vec<Cursor>) -> Self {
        Self {
            index: index.clone(),
            heap: BinaryHeap::new(),
            cursors,
            started: false,
            last: None,
        }
    }

    fn step(&mut self) -> Result<Option<(u32, Quality, u8)>, SearchError> {
        // One list (a word matching one token) needs no heap: its documents come once each.
        if let [c] = self.cursors.as_mut_slice() {
            let next = c.peek(&self.index)?;
            c.advance();
            return Ok(next.map(|(doc, ntok)| (doc, c.quality, ntok)));
        }
        if !self.started {
            self.started = true;
            if self.cursors.len() > 1 << 16 {
                return Err(SearchError::Internal("too many lists to merge".into()));
            }
            // Every cursor's first posting, heapified at once.
            let mut first = Vec::with_capacity(self.cursors.len());
            for (i, c) in self.cursors.iter_mut().enumerate() {
                if let Some((doc, ntok)) = c.peek(&self.index)? {
                    first.push(Reverse(key(doc, c.quality, ntok, i)));
                }
            }
            self.heap = BinaryHeap::from(first);
        }
        while let Some(mut top) = self.heap.peek_mut() {
            let k = top.0;
            let (doc, q, ntok, i) = ((k >> 32) as u32, (k >> 24) as u8, (k >> 16) as u8, k as u16);
            // The cursor's next posting takes its place at the top (one sift, not a pop and a
            // push); a cursor at its end leaves.
            let c = &mut self.cursors[usize::from(i)];
            c.advance();
            match c.peek(&self.index)? {
                Some((d, n)) => top.0 = key(d, c.quality, n, usize::from(i)),
                None => {
                    std::collections::binary_heap::PeekMut::pop(top);
                }
            }
            // The first of a document popped has its best quality.
            if self.last != Some(doc) {
                self.last = Some(doc);
                return Ok(Some((doc, q, ntok)));
            }
        }
        Ok(None)
    }

    /// Appends the next documents to `out` until it holds `n`, as `(document, label word count,
    /// quality)`.
    fn fill_to(&mut self, n: usize, out: &mut Vec<(u32, u8, Quality)>) -> Result<(), SearchError> {
        if let [c] = self.cursors.as_mut_slice() {
            return c.fill_to(&self.index, n, out);
        }
        while out.len() < n {
            match self.step()? {
                Some((doc, q, ntok)) => out.push((doc, ntok, q)),
                None => break,
            }
        }
        Ok(())
    }
}

impl Iterator for Merge {
    type Item = Result<(u32, Quality, u8), SearchError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.step().transpose()
    }
}

/// The candidates of a query of several words, lazily, best first, in two stages: the words'
/// exact tokens only (tiers 0 and 1: every word exact), then all their tokens (the other
/// tiers). The second runs only when the first did not give the caller its answer: a query whose
/// words all match exactly often has it from their exact lists at once, without walking the
/// longer lists of their prefixes and typos to prove a better tier empty. The stages are not
/// finer (prefixes, then typos) as a query with typos would walk its prefix lists twice.
pub(crate) fn several_words<'a>(
    ix: &'a Index,
    words: &'a [WordLists],
    max_chunks: usize,
) -> impl Iterator<Item = Result<Cand, SearchError>> + 'a {
    let exact = words.iter().all(|w| w.iter().any(|(q, _)| *q == 0));
    let inexact = words.iter().any(|w| w.iter().any(|(q, _)| *q > 0));
    let stages = [
        (exact, 0, 0),
        (inexact, Quality::MAX, if exact { 2 } else { 0 }),
    ];
    stages
        .into_iter()
        .filter(|s| s.0)
        .flat_map(move |(_, quality, first)| Stage::new(ix, words, quality, first, max_chunks))
}

/// One stage of [`several_words`]: the lists of quality `quality` or better, for the tiers from
/// `first` on. The word with the fewest postings drives: its lists merged in document order,
/// its documents looked up in batches in every list of the other words (their best quality).
/// Documents of the best tier left come out as they are found (nothing can rank above them,
/// and they come in order); the others wait until the driving word is walked through; those of
/// an earlier stage's tiers were given out by it.
struct Stage {
    index: Index,
    driver: Merge,
    others: Vec<Other>,
    words: usize,
    /// The stage's first tier, and the best its words allow (`None`: no label holds them all).
    first: u8,
    best: Option<u8>,
    waiting: [Vec<u32>; TIERS],
    /// The batch of the driving word's documents being looked up or given out: each with its
    /// label's word count and the worst quality of its words so far.
    batch: Vec<(u32, u8, Quality)>,
    at: usize,
    /// Documents in the next batch: a few first (a keystroke's answer is often among the first
    /// documents, and over HTTP each looked up may read the other words' chunks), then more.
    batch_size: usize,
    /// One word's best quality for each document of the batch.
    word: Vec<Quality>,
    docs: Vec<u32>,
    /// Past the walk: the waiting tier and position given out next.
    flush: Option<(usize, usize)>,
}

/// The first batch of driving documents, and the largest.
const FIRST_BATCH: usize = 4;
const MAX_BATCH: usize = 2048;

impl Stage {
    fn new(ix: &Index, all: &[WordLists], quality: Quality, first: u8, max_chunks: usize) -> Self {
        let words: Vec<Vec<&(Quality, TokenRef)>> = all
            .iter()
            .map(|w| w.iter().filter(|(q, _)| *q <= quality).collect())
            .collect();
        let total = |w: &[&(Quality, TokenRef)]| w.iter().map(|(_, t)| t.df).sum::<u64>();
        let driver = (0..words.len())
            .min_by_key(|&i| total(&words[i]))
            .unwrap_or(0);
        let mut driving = Vec::new();
        let mut others = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let c = cursors(w.iter().copied(), None, max_chunks);
            if i == driver {
                driving = c;
            } else if c.len() > SEEK_LISTS {
                others.push(Other::Merged {
                    merge: Merge::new(ix, c),
                    head: None,
                    done: false,
                });
            } else {
                others.push(Other::Seek(c));
            }
        }
        // The best tier possible: each word's best quality, with a label of as many words as the
        // query where every word has a token with such labels, and with a label of another count.
        let n = 1u8 << words.len().min(7);
        let best_of = |w: &[&(Quality, TokenRef)], whole: bool| {
            w.iter()
                .filter(|(_, t)| t.word_counts & if whole { n } else { !n } != 0)
                .map(|(q, _)| *q)
                .min()
        };
        // Exact words (distinct, as a query's are) match distinct words of a label: a label
        // holds them only if each can take a place of its own (among the first `len` in a
        // whole label), where its tokens stand in labels of that many words (or of others).
        // Word counts stop at 7 (7 or more), so a query of 7 words is whole in any longer label.
        let len = words.len();
        let first_places = if len >= 7 { u8::MAX } else { (1u8 << len) - 1 };
        let whole: Option<Vec<Quality>> = words
            .iter()
            .map(|w| best_of(w, true))
            .collect::<Option<_>>()
            .filter(|_| quality > 0 || seated(&words, n, first_places));
        let not_whole: Option<Vec<Quality>> = words
            .iter()
            .map(|w| best_of(w, false))
            .collect::<Option<_>>()
            .filter(|_| quality > 0 || seated(&words, !n, u8::MAX));
        // Neither: no label holds every word, which the tokens tell without a walk.
        let best = match (whole, not_whole) {
            (None, None) => None,
            (w, nw) => {
                let w = w.map_or(u8::MAX, |q| tier(&q, q.len()));
                let nw = nw.map_or(u8::MAX, |q| tier(&q, 0));
                Some(w.min(nw).max(first))
            }
        };
        Self {
            driver: Merge::new(ix, driving),
            index: ix.clone(),
            others,
            words: words.len(),
            first,
            best,
            waiting: Default::default(),
            batch: Vec::new(),
            at: 0,
            batch_size: FIRST_BATCH,
            word: Vec::new(),
            docs: Vec::new(),
            flush: None,
        }
    }

    /// The next batch of the driving word's documents, looked up in the other words' lists:
    /// those every word matches, with their worst quality. False past the driving word's end.
    fn fill(&mut self) -> Result<bool, SearchError> {
        self.batch.clear();
        self.at = 0;
        if self.index.is_remote() {
            self.fetch_ahead()?;
        }
        self.driver.fill_to(self.batch_size, &mut self.batch)?;
        if self.batch.is_empty() {
            return Ok(false);
        }
        self.batch_size = (self.batch_size * 2).min(MAX_BATCH);
        for other in &mut self.others {
            self.docs.clear();
            self.docs.extend(self.batch.iter().map(|b| b.0));
            self.word.clear();
            self.word.resize(self.docs.len(), NO_MATCH);
            other.mark(&self.index, &self.docs, &mut self.word)?;
            // A document a word misses leaves the batch: the next words look up fewer.
            let mut quals = self.word.iter();
            self.batch.retain_mut(|(_, _, worst)| {
                let q = quals.next().copied().unwrap_or(NO_MATCH);
                *worst = (*worst).max(q);
                q != NO_MATCH
            });
            if self.batch.is_empty() {
                break;
            }
        }
        Ok(true)
    }

    /// Over HTTP: when the next batch walks the driving word into chunks not fetched yet, the
    /// next chunks of every list it and the words sought one list at a time walk, in one
    /// request. The lists advance together (all in document order), so a walk through whole
    /// lists (`Ada Fran`, proving that no label is exactly both) costs a few requests, not a
    /// few per list.
    fn fetch_ahead(&mut self) -> Result<(), SearchError> {
        let n = self.batch_size;
        if !self.driver.cursors.iter().any(|c| c.needs_fetch(n)) {
            return Ok(());
        }
        let mut refs = Vec::new();
        for c in &mut self.driver.cursors {
            c.fetch_ahead(&mut refs);
        }
        for other in &mut self.others {
            if let Other::Seek(lists) = other {
                for c in lists {
                    c.fetch_ahead(&mut refs);
                }
            }
        }
        self.index.prefetch_chunks(&refs)
    }

    fn step(&mut self) -> Result<Option<Cand>, SearchError> {
        if self.best.is_none() {
            return Ok(None);
        }
        if self.flush.is_none() {
            loop {
                while let Some(&(doc, ntok, worst)) = self.batch.get(self.at) {
                    self.at += 1;
                    let t = tier_of(worst, usize::from(ntok) == self.words);
                    if t < self.first {
                        continue;
                    }
                    if Some(t) == self.best {
                        return Ok(Some(Cand { tier: t, doc }));
                    }
                    self.waiting[usize::from(t)].push(doc);
                }
                if !self.fill()? {
                    break;
                }
            }
            self.flush = Some((0, 0));
        }
        while let Some((t, i)) = self.flush {
            let Some(docs) = self.waiting.get(t) else {
                break;
            };
            match docs.get(i) {
                Some(&doc) => {
                    self.flush = Some((t, i + 1));
                    return Ok(Some(Cand { tier: t as u8, doc }));
                }
                None => self.flush = Some((t + 1, 0)),
            }
        }
        Ok(None)
    }
}

/// Beyond this many lists, a word that does not drive is merged into one stream walked along the
/// driving word's documents, rather than each list sought at each of them: a prefix of one or
/// two letters (`a m`) matches hundreds of tokens, and seeking them all per document cost
/// milliseconds.
const SEEK_LISTS: usize = 8;

/// The lists of a word that does not drive: sought one by one at each document, or merged.
enum Other {
    Seek(Vec<Cursor>),
    Merged {
        merge: Merge,
        /// The merge's document at or after the last one asked for, with its best quality.
        head: Option<(u32, Quality)>,
        done: bool,
    },
}

impl Other {
    /// For each of `docs` (increasing, each once), lowers `best[i]` to the best quality of the
    /// lists holding it.
    fn mark(&mut self, ix: &Index, docs: &[u32], best: &mut [Quality]) -> Result<(), SearchError> {
        match self {
            Other::Seek(lists) => {
                for c in lists.iter_mut() {
                    c.mark(ix, docs, best)?;
                }
            }
            Other::Merged { merge, head, done } => {
                for (&doc, b) in docs.iter().zip(best.iter_mut()) {
                    loop {
                        if let Some((d, q)) = *head {
                            if d >= doc {
                                if d == doc {
                                    *b = (*b).min(q);
                                }
                                break;
                            }
                        }
                        if *done {
                            return Ok(());
                        }
                        match merge.step()? {
                            Some((d, q, _)) => *head = Some((d, q)),
                            None => *done = true,
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl Iterator for Stage {
    type Item = Result<Cand, SearchError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.step().transpose()
    }
}
