//! Pattern scans: a pattern's key range in a permutation, the iterator over its quads (with
//! the scan's readahead) and counting without decoding the blocks wholly inside the range.

use super::Rete;
use crate::error::Result;
use crate::seek::{gallop, partition_by_lead};
use crate::{GraphMatch, Id, IdQuad, Pattern, Perm, DEFAULT_GRAPH};
use std::sync::Arc;

/// The blocks a caller's last scans ended in, one per permutation ([`Rete::scan_keys_near`]).
#[derive(Debug, Default, Clone)]
pub struct NearBlocks([Option<Arc<Vec<IdQuad>>>; 6]);

impl Rete {
    pub(super) fn bounds(p: Perm, pat: &Pattern) -> (IdQuad, IdQuad) {
        let spo = [pat.s, pat.p, pat.o];
        let (mut lo, mut hi) = ([0; 4], [u64::MAX; 4]);
        for (k, &pos) in p.order().iter().enumerate() {
            match spo[pos] {
                Some(v) => {
                    lo[k] = v;
                    hi[k] = v;
                }
                None => break,
            }
        }
        (lo, hi)
    }

    /// All quads matching `pattern`, in the order of the permutation that makes it one range.
    pub fn quads(&self, pattern: &Pattern) -> Result<QuadIter> {
        let perm = Perm::for_bound(
            pattern.s.is_some(),
            pattern.p.is_some(),
            pattern.o.is_some(),
        );
        self.scan(perm, pattern)
    }

    /// All quads matching `pattern`, sorted in `perm` key order (for merge joins). Positions bound
    /// in `pattern` but not leading in `perm` are filtered.
    pub fn scan(&self, perm: Perm, pattern: &Pattern) -> Result<QuadIter> {
        let (lo, hi) = Self::bounds(perm, pattern);
        let (first, end) = self.perm_range(perm, &lo, &hi)?;
        Ok(QuadIter {
            rete: self.clone(),
            perm,
            lo,
            hi,
            filter: *pattern,
            block: first,
            end,
            cur: None,
            pos: 0,
            done: false,
            ahead: 0,
            merge: false,
            before: [0; 4],
        })
    }

    /// The keys of `perm` in the range of `pattern`'s leading bound positions (those a
    /// [`Rete::scan`] of it reads), in key order, handed to `f` as slices of the cached blocks:
    /// no quad is copied or filtered one by one, so a caller that reads many small ranges (a
    /// path search reads each entity's links out and in) pays only the search for the range.
    /// Keys are in `perm` order (see [`Perm::order`]) and of every graph; bound positions that
    /// do not lead in `perm` are not filtered. `f` returns whether to go on.
    pub fn scan_keys<E: From<crate::Error>>(
        &self,
        perm: Perm,
        pattern: &Pattern,
        f: impl FnMut(&[IdQuad]) -> std::result::Result<bool, E>,
    ) -> std::result::Result<(), E> {
        let (lo, hi) = Self::bounds(perm, pattern);
        self.scan_range_keys(perm, &lo, &hi, f).map(drop)
    }

    /// Each term's number of quads where it leads `perm`, in term order, handed to `f` a block
    /// at a time (a term that spans blocks comes once for each); `f` returns whether to go on.
    /// Only the blocks' leading streams are decoded and no block is cached: an index build that
    /// counts every term's links reads each block once, and the whole of it would only evict
    /// what other readers keep. Blocks are read in batches of up to the scan's readahead.
    pub fn scan_lead_runs<E: From<crate::Error>>(
        &self,
        perm: Perm,
        mut f: impl FnMut(Vec<(Id, u64)>) -> std::result::Result<bool, E>,
    ) -> std::result::Result<(), E> {
        let n = self.perm_len(perm)?;
        let sec = *self.perm_dir(perm)?.1;
        let section = sec.name();
        let mut b = 0;
        let mut ahead = 0;
        while b < n {
            let (metas, base) = self.perm_metas(perm, b)?;
            let first = b.wrapping_sub(base);
            let im = metas.get(first).ok_or_else(|| self.no_block(perm, b))?;
            ahead = next_readahead(ahead, self.inner.opts.readahead);
            let mut end = first + 1;
            let mut bytes = u64::from(im.stored_len);
            while end < metas.len() && bytes + u64::from(metas[end].stored_len) <= ahead as u64 {
                bytes += u64::from(metas[end].stored_len);
                end += 1;
            }
            let span = self.read_bytes(sec.offset + im.offset, bytes as usize)?;
            for m in &metas[first..end] {
                let at = (m.offset - im.offset) as usize;
                let stored = span
                    .get(at..at + m.stored_len as usize)
                    .ok_or_else(|| self.no_block(perm, b))?;
                let runs = crate::perm::read_lead_runs(stored, m, &section, &self.inner.name)?;
                if !f(runs)? {
                    return Ok(());
                }
                b += 1;
            }
        }
        Ok(())
    }

    /// [`Rete::scan_keys`] for a caller that reads many small ranges near each other (a path
    /// search reads the links of its entities in id order): a range that lies strictly inside
    /// the block the caller's last scan of `perm` ended in is read from it, without searching
    /// the directory or the block cache.
    pub fn scan_keys_near<E: From<crate::Error>>(
        &self,
        perm: Perm,
        pattern: &Pattern,
        near: &mut NearBlocks,
        mut f: impl FnMut(&[IdQuad]) -> std::result::Result<bool, E>,
    ) -> std::result::Result<(), E> {
        let (lo, hi) = Self::bounds(perm, pattern);
        let slot = &mut near.0[perm as usize];
        if let Some(block) = slot.as_ref() {
            // Keys are sorted across blocks: with a key below `lo` and one above `hi` here, no
            // other block holds a key of the range.
            if block.first().is_some_and(|k| *k < lo) && block.last().is_some_and(|k| hi < *k) {
                let keys = block.as_slice();
                let s = partition_by_lead(keys, lo[0], |k| k[0], |k| *k < lo);
                let e = s + gallop(&keys[s..], |k| *k <= hi);
                f(&keys[s..e])?;
                return Ok(());
            }
        }
        if let Some(last) = self.scan_range_keys(perm, &lo, &hi, f)? {
            *slot = Some(last);
        }
        Ok(())
    }

    /// The scan of [`Rete::scan_keys`] over the keys from `lo` to `hi`; the last block read.
    fn scan_range_keys<E: From<crate::Error>>(
        &self,
        perm: Perm,
        lo: &IdQuad,
        hi: &IdQuad,
        mut f: impl FnMut(&[IdQuad]) -> std::result::Result<bool, E>,
    ) -> std::result::Result<Option<Arc<Vec<IdQuad>>>, E> {
        let (first, end) = self.perm_range(perm, lo, hi)?;
        let mut ahead = 0;
        let mut last = None;
        for b in first..end {
            let block = self.perm_block(perm, b, end, ahead)?;
            ahead = next_readahead(ahead, self.inner.opts.readahead);
            let keys = block.as_slice();
            let s = if b == first {
                partition_by_lead(keys, lo[0], |k| k[0], |k| *k < *lo)
            } else {
                0
            };
            // A range is mostly short: its end is searched from its start.
            let e = s + gallop(&keys[s..], |k| *k <= *hi);
            let go_on = f(&keys[s..e])? && e == keys.len();
            last = Some(block);
            if !go_on {
                break;
            }
        }
        Ok(last)
    }

    /// The triples matching `s p o` in the RDF merge of every graph of the file (default and
    /// named): each triple once, as a quad of the default graph, however many graphs state it.
    /// The graph is the last key of every permutation, so a triple's copies are adjacent in
    /// the scan: a quad whose subject, predicate and object equal the quad before it in the
    /// permutation is dropped — one comparison with the block the scan reads, no set of seen
    /// triples.
    pub fn triples(&self, s: Option<Id>, p: Option<Id>, o: Option<Id>) -> Result<QuadIter> {
        let mut it = self.quads(&Pattern::new(s, p, o))?;
        it.merge = true;
        Ok(it)
    }

    /// Number of quads matching `pattern`. With any graph, only the first and last blocks of the
    /// range are decoded; the rest come from the directory's counts.
    pub fn count(&self, pattern: &Pattern) -> Result<u64> {
        let perm = Perm::for_bound(
            pattern.s.is_some(),
            pattern.p.is_some(),
            pattern.o.is_some(),
        );
        let exact = matches!(pattern.g, GraphMatch::Any) && {
            let bound = [pattern.s, pattern.p, pattern.o]
                .iter()
                .filter(|x| x.is_some())
                .count();
            let leading = Self::bounds(perm, pattern)
                .0
                .iter()
                .take(3)
                .filter(|&&v| v != 0)
                .count();
            bound == leading
        };
        if !exact {
            let mut n = 0;
            for q in self.quads(pattern)? {
                q?;
                n += 1;
            }
            return Ok(n);
        }
        if pattern.s.is_none() && pattern.p.is_none() && pattern.o.is_none() {
            return Ok(self.quad_count());
        }
        let (lo, hi) = Self::bounds(perm, pattern);
        let (first, end) = self.perm_range(perm, &lo, &hi)?;
        let len = self.perm_len(perm)?;
        let mut n = 0;
        for b in first..end {
            let m = self.perm_meta(perm, b)?;
            let next_first = if b + 1 < len {
                Some(self.perm_meta(perm, b + 1)?.first)
            } else {
                None
            };
            let inside = m.first >= lo && next_first.is_some_and(|nf| nf <= hi);
            if inside {
                n += u64::from(m.count);
            } else {
                let block = self.perm_block(perm, b, end, 0)?;
                let s = partition_by_lead(&block, lo[0], |k| k[0], |k| *k < lo);
                let e = partition_by_lead(&block, hi[0], |k| k[0], |k| *k <= hi);
                n += (e - s) as u64;
            }
        }
        Ok(n)
    }
}

/// Readahead of a scan: its first fetch is one block (a scan may stop after one quad, which over
/// HTTP should cost one small request), then 64 KiB, doubling up to `max`.
pub(super) fn next_readahead(cur: usize, max: usize) -> usize {
    if cur == 0 {
        (64 << 10).min(max)
    } else {
        cur.saturating_mul(2).min(max)
    }
}

/// Iterator over the quads of a pattern, as `[s, p, o, g]`. Stops at the first error.
#[derive(Debug)]
pub struct QuadIter {
    rete: Rete,
    perm: Perm,
    lo: IdQuad,
    hi: IdQuad,
    filter: Pattern,
    block: usize,
    end: usize,
    cur: Option<Arc<Vec<IdQuad>>>,
    pos: usize,
    done: bool,
    ahead: usize,
    /// Each triple once, in the default graph (see [`Rete::triples`]).
    merge: bool,
    /// The last key of the block before `cur` (`[0; 4]` before the first block read, which
    /// no key equals: `0` is never a term).
    before: IdQuad,
}

impl QuadIter {
    /// The permutation whose order the quads come in.
    pub fn perm(&self) -> Perm {
        self.perm
    }
}

impl Iterator for QuadIter {
    type Item = Result<IdQuad>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            if self.cur.is_none() {
                if self.block >= self.end {
                    self.done = true;
                    return None;
                }
                match self
                    .rete
                    .perm_block(self.perm, self.block, self.end, self.ahead)
                {
                    Ok(b) => {
                        self.ahead = next_readahead(self.ahead, self.rete.inner.opts.readahead);
                        let lo = self.lo;
                        self.pos = partition_by_lead(&b, lo[0], |k| k[0], |k| *k < lo);
                        self.cur = Some(b);
                    }
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
            }
            // Borrowed, not cloned: an Arc clone per quad costs two atomic operations.
            let block: &[IdQuad] = self.cur.as_deref().map_or(&[], |b| b.as_slice());
            while self.pos < block.len() {
                let i = self.pos;
                let k = block[i];
                self.pos += 1;
                if k > self.hi {
                    self.done = true;
                    return None;
                }
                if !self.filter.g.matches(k[3]) {
                    continue;
                }
                if self.merge {
                    // The key before, read from the block (not from a copy kept per quad: a
                    // wide load of values just stored stalls the loop). Before `lo` it holds
                    // another triple: a key with `k`'s triple in another graph is `>= lo`
                    // too. A copy the pattern filters out is the same triple as `k`, filtered
                    // out as well.
                    let p = if i > 0 { &block[i - 1] } else { &self.before };
                    if p[0] == k[0] && p[1] == k[1] && p[2] == k[2] {
                        continue;
                    }
                }
                let mut q = self.perm.from_key(&k);
                let f = &self.filter;
                if f.s.is_some_and(|v| v != q[0])
                    || f.p.is_some_and(|v| v != q[1])
                    || f.o.is_some_and(|v| v != q[2])
                {
                    continue;
                }
                if self.merge {
                    q[3] = DEFAULT_GRAPH;
                }
                return Some(Ok(q));
            }
            self.before = block.last().copied().unwrap_or_default();
            self.cur = None;
            self.block += 1;
        }
        None
    }
}
