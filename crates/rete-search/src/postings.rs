//! Walking a token's postings chunk by chunk: a chunk is read and decoded only when a walk
//! reaches it, so a query that finds its answer among the first (most important) documents of
//! a common word reads one chunk of it, not all of them.

use crate::codec::{BlockRef, CHUNK_POSTINGS};
use crate::read::{Index, Part, PostingList, Postings};
use crate::tier::{Quality, NO_MATCH};
use crate::SearchError;
use std::sync::Arc;

/// Chunks fetched together over HTTP once a walk goes past a part's first (about 5 KiB each);
/// each further batch of the same walk is twice as large, up to [`MAX_READ_AHEAD`], so a long
/// walk costs a few requests rather than one per chunk.
const READ_AHEAD: usize = 4;
/// The largest batch of chunks a walk fetches ahead (about 320 KiB).
const MAX_READ_AHEAD: usize = 64;
/// Stored bytes a batch fetched ahead holds at least, chunks allowing: chunks of a dense list
/// take a few hundred bytes (LUBM's `undergraduate`), and a request for four of them would cost
/// a round trip for a kilobyte.
const MIN_READ_AHEAD_BYTES: u64 = 8 << 10;

/// Stored bytes of a list's chunks a walk fetches before it starts, its first chunk and the
/// next while they stay within: small chunks are dense lists, which a walk driven by a rarer
/// word goes deep into (`UndergraduateStudent3`); a large first chunk comes alone.
const FIRST_FETCH_BYTES: u64 = 4 << 10;

/// The chunks of `refs` a walk fetches before it starts (see [`FIRST_FETCH_BYTES`]), at most
/// `limit`.
pub(crate) fn first_fetch(refs: &[BlockRef], limit: usize) -> &[BlockRef] {
    let limit = limit.min(refs.len());
    let mut to = limit.min(1);
    let mut bytes = refs.first().map_or(0, |r| r.len);
    while to < limit && bytes + refs[to].len <= FIRST_FETCH_BYTES {
        bytes += refs[to].len;
        to += 1;
    }
    &refs[..to]
}

/// The end of the chunks of `refs` fetched ahead from `from`: `ahead` of them, more while they
/// hold fewer than [`MIN_READ_AHEAD_BYTES`], at most [`MAX_READ_AHEAD`], up to `limit`.
fn ahead_end(refs: &[BlockRef], from: usize, ahead: usize, limit: usize) -> usize {
    let limit = limit.min(refs.len()).min(from + MAX_READ_AHEAD);
    let mut to = (from + ahead).min(limit);
    let mut bytes: u64 = refs
        .get(from..to)
        .map_or(0, |r| r.iter().map(|b| b.len).sum());
    while to < limit && bytes < MIN_READ_AHEAD_BYTES {
        bytes += refs[to].len;
        to += 1;
    }
    to
}

/// A position in one part of a token's postings, keeping only the labels of one word
/// (`keep: Some(true)`), of more (`Some(false)`) or any (`None`).
pub(crate) struct Cursor {
    part: Part,
    /// Chunks walked at most (the most important documents: lists are in that order).
    max_chunks: usize,
    keep: Option<bool>,
    /// How the token matched its query word.
    pub quality: Quality,
    /// The chunk loaded, its postings and the position in them.
    at: usize,
    list: PostingList,
    pos: usize,
    /// Over HTTP: the chunks before this one were fetched ahead (0: those the search fetched
    /// before the walk, see [`Self::fetched`]), and the next batch's size.
    fetched_to: usize,
    ahead: usize,
}

/// The list of a cursor before its first chunk: one shared, not one allocated per cursor (a
/// prefix query makes hundreds).
fn empty_list() -> PostingList {
    static EMPTY: std::sync::LazyLock<PostingList> =
        std::sync::LazyLock::new(|| Arc::new(Vec::new()));
    EMPTY.clone()
}

impl Cursor {
    pub(crate) fn new(
        part: &Part,
        max_chunks: usize,
        keep: Option<bool>,
        quality: Quality,
    ) -> Self {
        // Inline postings are the first chunk, at hand.
        let (at, list) = match &part.postings {
            Postings::Inline(l) => (0, l.clone()),
            Postings::Chunks(_) => (usize::MAX, empty_list()),
        };
        Self {
            part: part.clone(),
            max_chunks: max_chunks.max(1),
            keep,
            quality,
            at,
            list,
            pos: 0,
            fetched_to: 0,
            ahead: READ_AHEAD,
        }
    }

    /// Over HTTP: the chunks fetched, from the first: those the search fetched before the walk
    /// ([`first_fetch`]) until the walk fetches more (counted lazily: only a remote walk asks).
    fn fetched(&self) -> usize {
        match (&self.part.postings, self.fetched_to) {
            (Postings::Chunks(refs), 0) => first_fetch(refs, self.max_chunks).len().max(1),
            (_, 0) => 1,
            (_, n) => n,
        }
    }

    /// Loads the next chunk (the first on the first call); false past the last.
    fn next_chunk(&mut self, ix: &Index) -> Result<bool, SearchError> {
        let next = self.at.wrapping_add(1);
        self.list = match &self.part.postings {
            Postings::Inline(l) if next == 0 => l.clone(),
            Postings::Chunks(refs) if next < refs.len().min(self.max_chunks) => {
                if ix.is_remote() && next >= self.fetched() {
                    // A walk past the chunks fetched goes on: over HTTP the next few come in the
                    // same request (a token's chunks are consecutive).
                    let to = ahead_end(refs, next, self.ahead, self.max_chunks);
                    ix.prefetch_chunks(&refs[next..to])?;
                    self.fetched_to = to;
                    self.ahead = (self.ahead * 2).min(MAX_READ_AHEAD);
                }
                let n = (self.part.df - next as u64 * CHUNK_POSTINGS).min(CHUNK_POSTINGS);
                let mut got = ix.chunks(&[(n, refs[next])])?;
                got.pop()
                    .ok_or_else(|| SearchError::Internal("a posting chunk not read".into()))?
            }
            _ => {
                self.pos = self.list.len();
                return Ok(false);
            }
        };
        self.at = next;
        self.pos = 0;
        Ok(true)
    }

    /// The posting under the cursor: the first kept one at or after it; `None` at the end.
    pub(crate) fn peek(&mut self, ix: &Index) -> Result<Option<(u32, u8)>, SearchError> {
        if self.at == usize::MAX && !self.next_chunk(ix)? {
            return Ok(None);
        }
        loop {
            while let Some(&p) = self.list.get(self.pos) {
                if self.keep.is_none_or(|w| (p.1 == 1) == w) {
                    return Ok(Some(p));
                }
                self.pos += 1;
            }
            if !self.next_chunk(ix)? {
                return Ok(None);
            }
        }
    }

    /// Steps past the posting under the cursor.
    pub(crate) fn advance(&mut self) {
        self.pos += 1;
    }

    /// Moves to the first kept posting whose document is `doc` or after, and returns it.
    pub(crate) fn seek(&mut self, ix: &Index, doc: u32) -> Result<Option<(u32, u8)>, SearchError> {
        if self.at == usize::MAX && !self.next_chunk(ix)? {
            return Ok(None);
        }
        // Whole chunks before `doc` are skipped after one look at their last document.
        while self.list.last().is_none_or(|l| l.0 < doc) {
            if !self.next_chunk(ix)? {
                return Ok(None);
            }
        }
        self.pos = gallop(&self.list, self.pos, |p| p.0 < doc);
        self.peek(ix)
    }

    /// Over HTTP: whether walking `n` more postings reaches a chunk not fetched yet.
    pub(crate) fn needs_fetch(&self, n: usize) -> bool {
        let Postings::Chunks(refs) = &self.part.postings else {
            return false;
        };
        let (next, left) = match self.at {
            usize::MAX => (0, 0),
            at => (at + 1, self.list.len().saturating_sub(self.pos)),
        };
        let whole = n.saturating_sub(left).div_ceil(CHUNK_POSTINGS as usize);
        (next + whole).min(refs.len().min(self.max_chunks)) > self.fetched()
    }

    /// Over HTTP, for a walk fetching the chunks of several lists together: appends to `out` the
    /// references of this list's next chunks not fetched yet — each such batch four times the
    /// one before, up to [`MAX_READ_AHEAD`] — and counts them as fetched.
    pub(crate) fn fetch_ahead(&mut self, out: &mut Vec<BlockRef>) {
        let Postings::Chunks(refs) = &self.part.postings else {
            return;
        };
        let from = self.fetched().max(self.at.wrapping_add(1));
        let to = ahead_end(refs, from, self.ahead, self.max_chunks);
        if let Some(next) = refs.get(from..to) {
            out.extend_from_slice(next);
            self.fetched_to = to;
            self.ahead = (self.ahead * 4).min(MAX_READ_AHEAD);
        }
    }

    /// Appends the next kept postings to `out` until it holds `n`, as `(document, label word
    /// count, quality)`; fewer at the list's end.
    pub(crate) fn fill_to(
        &mut self,
        ix: &Index,
        n: usize,
        out: &mut Vec<(u32, u8, Quality)>,
    ) -> Result<(), SearchError> {
        while out.len() < n && self.peek(ix)?.is_some() {
            let list = Arc::clone(&self.list);
            let end = (self.pos + (n - out.len())).min(list.len());
            let run = list.get(self.pos..end).unwrap_or_default();
            let (keep, quality) = (self.keep, self.quality);
            out.extend(
                run.iter()
                    .filter(|p| keep.is_none_or(|w| (p.1 == 1) == w))
                    .map(|&(doc, words)| (doc, words, quality)),
            );
            self.pos = end;
        }
        Ok(())
    }

    /// For each of `docs` (increasing, each once) that this part holds, lowers `best[i]` to the
    /// cursor's quality; the cursor is left at or before the first posting after the last of
    /// them. One tight walk over the decoded chunks for a batch of documents, where a seek per
    /// document cost more in its calls than in its comparisons.
    pub(crate) fn mark(
        &mut self,
        ix: &Index,
        docs: &[u32],
        best: &mut [Quality],
    ) -> Result<(), SearchError> {
        let docs = &docs[..docs.len().min(best.len())];
        let Some(&first) = docs.first() else {
            return Ok(());
        };
        if self.seek(ix, first)?.is_none() {
            return Ok(());
        }
        let mut i = 0;
        loop {
            let list = Arc::clone(&self.list);
            let (l, keep, quality) = (list.as_slice(), self.keep, self.quality);
            let mut p = self.pos;
            while i < docs.len() && p < l.len() {
                if l.len() - p > SPARSE * (docs.len() - i) {
                    // A list much denser than the documents asked for: gallop to each.
                    let d = docs[i];
                    p = gallop(l, p, |x| x.0 < d);
                    if let (Some(&(at, words)), Some(b)) = (l.get(p), best.get_mut(i)) {
                        if at == d && keep.is_none_or(|w| (words == 1) == w) {
                            *b = (*b).min(quality);
                        }
                    }
                    i += 1;
                } else {
                    // Lists of about the same density: a merge stepping one side or the other
                    // (both on a match) without a branch to mispredict.
                    let end = (p + MERGE_RUN).min(l.len());
                    while i < docs.len() && p < end {
                        let (a, (b, words)) = (docs[i], l[p]);
                        let hit = a == b && keep.is_none_or(|w| (words == 1) == w);
                        let q = if hit { quality } else { NO_MATCH };
                        best[i] = best[i].min(q);
                        i += usize::from(a <= b);
                        p += usize::from(b <= a);
                    }
                }
            }
            self.pos = p;
            if i >= docs.len() || !self.next_chunk(ix)? {
                return Ok(());
            }
        }
    }
}

/// A list with this many times more postings left than documents left to look up is galloped
/// through rather than merged.
const SPARSE: usize = 8;
/// Postings merged before the density is looked at again.
const MERGE_RUN: usize = 256;

/// The first index at or after `from` where `before` turns false (it holds for a prefix of
/// `run`): exponential then binary search, so that walking a long list for a few documents, or
/// past a few tokens, skips most of it.
pub(crate) fn gallop<T>(run: &[T], from: usize, before: impl Fn(&T) -> bool) -> usize {
    let mut step = 1;
    let mut hi = from;
    while hi < run.len() && before(&run[hi]) {
        hi = from + step;
        step *= 2;
    }
    let hi = hi.min(run.len());
    let lo = (from + step / 4).min(hi);
    lo + run[lo..hi].partition_point(before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_first_not_below() {
        let run: Vec<(u32, u8)> = (0..100).map(|d| (d * 3, 1)).collect();
        for from in [0, 1, 5, 50] {
            for doc in [0, 1, 3, 4, 150, 297, 298, 400] {
                let want = from.max(run.partition_point(|p| p.0 < doc));
                assert_eq!(
                    gallop(&run, from, |p| p.0 < doc),
                    want,
                    "from {from} doc {doc}"
                );
            }
        }
    }
}
