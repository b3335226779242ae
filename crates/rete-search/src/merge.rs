//! Candidates in answer order (tier, then document) from sorted posting lists, without hash
//! maps: one query word streams its lists tier by tier through a lazy k-way merge, so a
//! keystroke stops after the few documents the answer needs; several words merge each word's
//! lists into one sorted run and intersect the runs by galloping from the shortest.

use crate::read::PostingList;
use crate::tier::{tier, Cand, Quality};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The sorted posting lists of one query word's tokens, each with how the token matched.
pub(crate) type WordLists = Vec<(Quality, PostingList)>;

/// Tiers in answer order, for one word: `(quality, whole label)` of each.
const ONE_WORD_TIERS: [(Quality, Option<bool>); 5] = [
    (0, Some(true)),
    (0, Some(false)),
    (1, Some(true)),
    (1, Some(false)),
    (2, None),
];

/// The candidates of a one-word query, lazily, best first: per tier, a k-way merge of the lists
/// of that tier's quality keeping the labels of one word (whole) or more (not whole).
pub(crate) fn one_word(lists: WordLists) -> impl Iterator<Item = Cand> {
    ONE_WORD_TIERS
        .into_iter()
        .enumerate()
        .flat_map(move |(t, (qual, whole))| {
            let of_tier: Vec<PostingList> = lists
                .iter()
                .filter(|(q, l)| *q == qual && (whole != Some(true) || l.one_word))
                .map(|(_, l)| l.clone())
                .collect();
            Merge::new(of_tier, whole).map(move |doc| Cand { tier: t as u8, doc })
        })
}

/// A lazy k-way merge of sorted lists, keeping postings whose label is of one word (`Some(true)`),
/// of more (`Some(false)`) or any (`None`); a document in several lists comes once.
struct Merge {
    lists: Vec<PostingList>,
    heap: BinaryHeap<Reverse<(u32, usize, usize)>>,
    whole: Option<bool>,
    last: Option<u32>,
}

impl Merge {
    fn new(lists: Vec<PostingList>, whole: Option<bool>) -> Self {
        let mut m = Self {
            heap: BinaryHeap::with_capacity(lists.len()),
            lists,
            whole,
            last: None,
        };
        for i in 0..m.lists.len() {
            m.push_from(i, 0);
        }
        m
    }

    /// Pushes the first posting of list `i` at or after `pos` that the filter keeps.
    fn push_from(&mut self, i: usize, mut pos: usize) {
        let list = &self.lists[i];
        while let Some(&(doc, ntok)) = list.get(pos) {
            if self.whole.is_none_or(|w| (ntok == 1) == w) {
                self.heap.push(Reverse((doc, i, pos)));
                return;
            }
            pos += 1;
        }
    }
}

impl Iterator for Merge {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        while let Some(Reverse((doc, i, pos))) = self.heap.pop() {
            self.push_from(i, pos + 1);
            if self.last != Some(doc) {
                self.last = Some(doc);
                return Some(doc);
            }
        }
        None
    }
}

/// A list being walked: how its token matched, its postings, the position reached.
type Cursor<'a> = (Quality, &'a [(u32, u8)], usize);

/// One word's postings as one run sorted by document: `(document, best quality, words)`.
fn run_of(lists: &WordLists) -> Vec<(u32, Quality, u8)> {
    let mut run: Vec<(u32, Quality, u8)> =
        Vec::with_capacity(lists.iter().map(|l| l.1.len()).sum());
    for (q, l) in lists {
        run.extend(l.iter().map(|&(doc, ntok)| (doc, *q, ntok)));
    }
    // A single list is sorted already; several are merged by sorting (best quality first).
    if lists.len() > 1 {
        run.sort_unstable();
        run.dedup_by_key(|p| p.0);
    }
    run
}

/// The first index at or after `from` whose document (`doc_of`) is ≥ `doc`: exponential then
/// binary search, so that walking a long list for a few documents skips most of it.
fn gallop<T>(run: &[T], from: usize, doc: u32, doc_of: impl Fn(&T) -> u32) -> usize {
    let mut step = 1;
    let mut hi = from;
    while hi < run.len() && doc_of(&run[hi]) < doc {
        hi = from + step;
        step *= 2;
    }
    let hi = hi.min(run.len());
    let lo = (from + step / 4).min(hi);
    lo + run[lo..hi].partition_point(|p| doc_of(p) < doc)
}

/// The candidates of a query of several words, best first. The word with the fewest postings
/// drives: its lists merged into one sorted run; each of its documents is then looked up by
/// galloping in every list of the other words (their best quality), without merging those.
pub(crate) fn several_words(words: &[WordLists]) -> Vec<Cand> {
    let total = |w: &WordLists| w.iter().map(|l| l.1.len()).sum::<usize>();
    let Some(driver) = (0..words.len()).min_by_key(|&i| total(&words[i])) else {
        return Vec::new();
    };
    let run = run_of(&words[driver]);
    // Per other word, a cursor per list.
    let mut others: Vec<Vec<Cursor<'_>>> = words
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != driver)
        .map(|(_, w)| w.iter().map(|(q, l)| (*q, l.as_slice(), 0)).collect())
        .collect();
    let mut tiers: [Vec<u32>; 5] = Default::default();
    let mut quals: Vec<Quality> = Vec::with_capacity(words.len());
    'doc: for &(doc, q0, ntok) in &run {
        quals.clear();
        quals.push(q0);
        for lists in &mut others {
            let mut best: Option<Quality> = None;
            for (q, list, pos) in lists.iter_mut() {
                *pos = gallop(list, *pos, doc, |p| p.0);
                if list.get(*pos).is_some_and(|p| p.0 == doc) {
                    best = Some(best.map_or(*q, |b| b.min(*q)));
                }
            }
            match best {
                Some(b) => quals.push(b),
                None => continue 'doc,
            }
        }
        tiers[usize::from(tier(&quals, usize::from(ntok)))].push(doc);
    }
    tiers
        .into_iter()
        .enumerate()
        .flat_map(|(t, docs)| docs.into_iter().map(move |doc| Cand { tier: t as u8, doc }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn gallop_finds_the_first_not_below() {
        let run: Vec<(u32, Quality, u8)> = (0..100).map(|d| (d * 3, 0, 1)).collect();
        for from in [0, 1, 5, 50] {
            for doc in [0, 1, 3, 4, 150, 297, 298, 400] {
                let want = from.max(run.partition_point(|p| p.0 < doc));
                assert_eq!(
                    gallop(&run, from, doc, |p| p.0),
                    want,
                    "from {from} doc {doc}"
                );
            }
        }
    }

    #[test]
    fn candidates_come_in_tier_then_document_order() {
        let l = |v: &[(u32, u8)]| Arc::new(crate::read::PostingVec::from(v.to_vec()));
        // One word: the exact token in docs 5 and 7, prefixes in 2 (a one-word label), 3, 5, 9.
        let lists: WordLists = vec![
            (0, l(&[(5, 2), (7, 2)])),
            (1, l(&[(2, 1), (5, 2)])),
            (1, l(&[(3, 2), (9, 2)])),
        ];
        let got: Vec<(u8, u32)> = one_word(lists.clone()).map(|c| (c.tier, c.doc)).collect();
        assert_eq!(got, [(1, 5), (1, 7), (2, 2), (3, 3), (3, 5), (3, 9)]);
        // Two words, the second exact in 5 and 9: 5 is the whole label, 9 its words by prefix.
        let second: WordLists = vec![(0, l(&[(5, 2), (9, 2)]))];
        let got: Vec<(u8, u32)> = several_words(&[lists, second])
            .into_iter()
            .map(|c| (c.tier, c.doc))
            .collect();
        assert_eq!(got, [(0, 5), (2, 9)]);
    }
}
