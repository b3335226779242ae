//! Candidates in answer order (tier, then document) from sorted posting lists, lazily, without
//! hash maps: one query word streams its lists tier by tier through a k-way merge; several words
//! stream the word with the fewest postings and look each of its documents up in the others'
//! lists by galloping. Either stops as soon as the caller has its answer, so a keystroke reads
//! the few chunks holding the documents it needs.

use crate::postings::Cursor;
use crate::read::{Index, TokenRef};
use crate::tier::{tier, Cand, Quality};
use crate::SearchError;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One query word's matching tokens, each with how it matched.
pub(crate) type WordLists = Vec<(Quality, TokenRef)>;

/// Tiers in answer order, for one word: `(quality, whole label)` of each.
const ONE_WORD_TIERS: [(Quality, Option<bool>); 5] = [
    (0, Some(true)),
    (0, Some(false)),
    (1, Some(true)),
    (1, Some(false)),
    (2, None),
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
    ONE_WORD_TIERS
        .into_iter()
        .enumerate()
        .flat_map(move |(t, (qual, whole))| {
            let of_tier = lists.iter().filter(|(q, _)| *q == qual);
            Merge::new(ix, cursors(of_tier, whole, max_chunks))
                .map(move |r| r.map(|(doc, _, _)| Cand { tier: t as u8, doc }))
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
}

impl Iterator for Merge {
    type Item = Result<(u32, Quality, u8), SearchError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.step().transpose()
    }
}

/// The candidates of a query of several words, lazily, best first. The word with the fewest
/// postings drives: its lists merged in document order, each document looked up in every list
/// of the other words (their best quality). Documents of the best tier the words allow come out
/// as they are found (nothing can rank above them, and they come in order); the others wait
/// until the driving word is walked through.
pub(crate) struct SeveralWords {
    index: Index,
    driver: Merge,
    others: Vec<Other>,
    best: u8,
    waiting: [Vec<u32>; 5],
    quals: Vec<Quality>,
    /// Past the walk: the waiting tier and position given out next.
    flush: Option<(usize, usize)>,
}

impl SeveralWords {
    pub(crate) fn new(ix: &Index, words: &[WordLists], max_chunks: usize) -> Self {
        let total = |w: &WordLists| w.iter().map(|(_, t)| t.df).sum::<u64>();
        let driver = (0..words.len())
            .min_by_key(|&i| total(&words[i]))
            .unwrap_or(0);
        let mut driving = Vec::new();
        let mut others = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let c = cursors(w, None, max_chunks);
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
        let best_of = |w: &WordLists, whole: bool| {
            w.iter()
                .filter(|(_, t)| t.word_counts & if whole { n } else { !n } != 0)
                .map(|(q, _)| *q)
                .min()
        };
        let whole: Option<Vec<Quality>> = words.iter().map(|w| best_of(w, true)).collect();
        let not_whole: Vec<Quality> = words
            .iter()
            .map(|w| best_of(w, false).unwrap_or(2))
            .collect();
        let not_whole = tier(&not_whole, 0);
        let best = whole.map_or(not_whole, |q| tier(&q, q.len()).min(not_whole));
        Self {
            driver: Merge::new(ix, driving),
            index: ix.clone(),
            others,
            best,
            waiting: Default::default(),
            quals: Vec::with_capacity(words.len()),
            flush: None,
        }
    }

    fn step(&mut self) -> Result<Option<Cand>, SearchError> {
        if self.flush.is_none() {
            'doc: while let Some((doc, q0, ntok)) = self.driver.step()? {
                self.quals.clear();
                self.quals.push(q0);
                for other in &mut self.others {
                    match other.quality(&self.index, doc)? {
                        Some(b) => self.quals.push(b),
                        None => continue 'doc,
                    }
                }
                let t = tier(&self.quals, usize::from(ntok));
                if t == self.best {
                    return Ok(Some(Cand { tier: t, doc }));
                }
                self.waiting[usize::from(t)].push(doc);
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
    /// The best quality of the lists holding `doc` (documents asked in increasing order).
    fn quality(&mut self, ix: &Index, doc: u32) -> Result<Option<Quality>, SearchError> {
        match self {
            Other::Seek(lists) => {
                let mut best: Option<Quality> = None;
                for c in lists.iter_mut() {
                    if c.seek(ix, doc)?.is_some_and(|p| p.0 == doc) {
                        best = Some(best.map_or(c.quality, |b| b.min(c.quality)));
                    }
                }
                Ok(best)
            }
            Other::Merged { merge, head, done } => loop {
                if let Some((d, q)) = *head {
                    if d >= doc {
                        return Ok((d == doc).then_some(q));
                    }
                }
                if *done {
                    return Ok(None);
                }
                match merge.step()? {
                    Some((d, q, _)) => *head = Some((d, q)),
                    None => *done = true,
                }
            },
        }
    }
}

impl Iterator for SeveralWords {
    type Item = Result<Cand, SearchError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.step().transpose()
    }
}
