//! Batched prefetching ([`Rete::prefetch`]) of the directory pages and blocks that many small
//! scans of a remote file will read, in a few requests instead of a round trip each.

use super::cache::{perm_weight, CacheKey};
use super::directory::{DictDir, PermDir};
use super::Rete;
use crate::error::Result;
use crate::perm::PermBlockMeta;
use crate::range::RangeReader;
use crate::{IdQuad, Pattern, Perm};

impl Rete {
    /// Fetches ahead what scanning each of `patterns` reads: the directory pages their ranges
    /// visit, then their blocks not cached yet, in two batched reads
    /// ([`RangeReader::read_many`], which a remote reader turns into a few requests in flight at
    /// once) instead of a round trip per page and per block. Worth it on a remote file before
    /// many small scans (the links of a community's thousand members); a local file is read as
    /// the scans go (the OS reads ahead), so nothing is done there. Blocks beyond a quarter of
    /// the block cache are left to the scans, which would otherwise evict what was fetched.
    /// Returns the number of blocks fetched.
    pub fn prefetch(&self, patterns: &[Pattern]) -> Result<usize> {
        self.prefetch_bounded(patterns, usize::MAX)
    }

    /// [`Rete::prefetch`], except that a pattern whose range spans more than `most` blocks gets
    /// its first and last block only: what [`Rete::count`] decodes of it. For a caller that
    /// counts before it scans and skips what counts too many (a path search never passes
    /// through a hub above its degree bound), so a hub's blocks are not fetched for nothing.
    pub fn prefetch_bounded(&self, patterns: &[Pattern], most: usize) -> Result<usize> {
        if !self.inner.reader.is_remote() || patterns.is_empty() {
            return Ok(0);
        }
        let ranges: Vec<(Perm, IdQuad, IdQuad)> = patterns
            .iter()
            .map(|pat| {
                let perm = Perm::for_bound(pat.s.is_some(), pat.p.is_some(), pat.o.is_some());
                let (lo, hi) = Self::bounds(perm, pat);
                (perm, lo, hi)
            })
            .collect();
        // The directory pages first: a block's place is known only from its page.
        let mut pages: Vec<(Perm, usize, u64, usize)> = Vec::new();
        for &(perm, lo, hi) in &ranges {
            if let (PermDir::Paged(d), _) = self.perm_dir(perm)? {
                if d.is_empty() {
                    continue;
                }
                for p in d.page_for_key(&lo)..=d.page_for_key(&hi) {
                    if let (false, Some((o, l))) = (d.is_loaded(p), d.frame(p)) {
                        pages.push((perm, p, o, usize::try_from(l).unwrap_or(usize::MAX)));
                    }
                }
            }
        }
        pages.sort_unstable_by_key(|x| (x.0 as u8, x.1));
        pages.dedup_by_key(|x| (x.0 as u8, x.1));
        if !pages.is_empty() {
            let idx = self.indexes()?;
            let wanted: Vec<(u64, usize)> = pages
                .iter()
                .map(|&(perm, _, o, l)| (idx.perms[perm as usize].0.offset + o, l))
                .collect();
            let frames = self.inner.reader.read_many(&wanted)?;
            for (&(perm, p, o, l), frame) in pages.iter().zip(frames) {
                let index = idx.perms[perm as usize].0;
                if let (PermDir::Paged(d), _) = self.perm_dir(perm)? {
                    d.page(
                        p,
                        &self.frame_reader(index, (o, l), frame),
                        &self.inner.name,
                    )?;
                }
            }
        }
        // Then the blocks, each decoded and cached as a scan would.
        let room = self.inner.opts.cache_bytes / 4;
        let mut blocks: Vec<(Perm, usize, PermBlockMeta)> = Vec::new();
        let mut seen: std::collections::HashSet<(u8, usize)> = std::collections::HashSet::new();
        let mut weight = 0usize;
        'ranges: for &(perm, lo, hi) in &ranges {
            let (first, end) = self.perm_range(perm, &lo, &hi)?;
            let ends = [first, end.saturating_sub(1)];
            for b in first..end {
                if end - first > most && !ends.contains(&b) {
                    continue;
                }
                if !seen.insert((perm as u8, b))
                    || self.cache().contains(&CacheKey::Perm(perm as u8, b as u32))
                {
                    continue;
                }
                let m = self.perm_meta(perm, b)?.into_owned();
                weight += perm_weight(m.count as usize);
                if weight > room {
                    break 'ranges;
                }
                blocks.push((perm, b, m));
            }
        }
        if blocks.is_empty() {
            return Ok(0);
        }
        let idx = self.indexes()?;
        let wanted: Vec<(u64, usize)> = blocks
            .iter()
            .map(|(perm, _, m)| {
                (
                    idx.perms[*perm as usize].1.offset + m.offset,
                    m.stored_len as usize,
                )
            })
            .collect();
        let stored = self.inner.reader.read_many(&wanted)?;
        for ((perm, b, m), bytes) in blocks.iter().zip(stored) {
            let section = idx.perms[*perm as usize].1.name();
            self.cache_perm_block(*perm, *b, &bytes, m, &section)?;
        }
        Ok(blocks.len())
    }
}

impl Rete {
    /// Fetches ahead the dictionary blocks of `ids` not cached yet, in one batched read
    /// ([`RangeReader::read_many`]: neighbouring blocks in one request, the others in flight
    /// together), so that looking the terms up then costs no round trip each. Worth it on a
    /// remote file before showing a page of results (a search's hits, their labels and
    /// classes); a local file is read as the lookups go, so nothing is done there. Returns the
    /// number of blocks fetched.
    pub fn prefetch_terms(&self, ids: &[crate::Id]) -> Result<usize> {
        if !self.inner.reader.is_remote() || ids.is_empty() {
            return Ok(0);
        }
        let wanted = self.uncached_dict_blocks(ids)?;
        self.fetch_dict_blocks(&wanted)
    }

    /// Fetches ahead what [`Rete::id_of`] of each of `terms` and [`Rete::first_of_kind`] of each
    /// of `kinds` read: the dictionary directory pages their keys fall on, then their blocks
    /// not cached yet, in two batched reads ([`RangeReader::read_many`]) instead of two round
    /// trips per lookup. Worth it on a remote file before the lookups a command starts with
    /// (its arguments, the predicates it filters on); nothing is done on a local file. Returns
    /// the number of blocks fetched.
    pub fn prefetch_lookups(
        &self,
        terms: &[oxrdf::TermRef<'_>],
        kinds: &[crate::TermKind],
    ) -> Result<usize> {
        if !self.inner.reader.is_remote() || (terms.is_empty() && kinds.is_empty()) {
            return Ok(0);
        }
        // A term that cannot be encoded is in no file: its lookup reads nothing.
        let mut keys: Vec<Vec<u8>> = terms
            .iter()
            .filter_map(|&t| crate::term::encode(t).ok())
            .collect();
        // A kind's first id is where its tag byte alone would sort (see `first_of_kind`).
        keys.extend(kinds.iter().map(|&k| vec![k as u8]));
        if let (_, DictDir::Paged(d)) = self.dict_dir()? {
            let pages = keys.iter().filter_map(|k| d.page_for_term(k)).collect();
            self.load_dict_pages(d, pages)?;
        }
        let mut blocks = Vec::with_capacity(keys.len());
        for k in &keys {
            // The pages are loaded now: this reads nothing.
            if let Some((b, _)) = self.dict_block_for(k)? {
                blocks.push(b);
            }
        }
        let wanted = self.uncached_dict_metas(blocks)?;
        self.fetch_dict_blocks(&wanted)
    }

    /// Reads `wanted` dictionary blocks in one batch, decodes and caches them; their number.
    fn fetch_dict_blocks(&self, wanted: &[(usize, crate::dict::DictBlockMeta)]) -> Result<usize> {
        if wanted.is_empty() {
            return Ok(0);
        }
        let stored = self.inner.reader.read_many(&self.dict_ranges(wanted)?)?;
        let zdict = self.indexes()?.zdict.as_deref();
        for ((b, m), bytes) in wanted.iter().zip(stored) {
            let block =
                std::sync::Arc::new(crate::dict::read_block(&bytes, m, zdict, &self.inner.name)?);
            let weight = block.weight();
            self.cache().put(
                CacheKey::Dict(*b as u32),
                super::cache::CacheVal::Dict(block),
                weight,
            );
        }
        Ok(wanted.len())
    }

    /// The file ranges (offset, length) that looking up the terms `ids` would read now on a
    /// remote file (their dictionary blocks not cached; the directory pages that tell where
    /// those lie are fetched first, in one batch), for a caller that fetches them in one batch
    /// with other reads; [`Rete::prefetch_terms`] then finds them in the reader's cache. Empty
    /// on a local file.
    pub fn term_block_ranges(&self, ids: &[crate::Id]) -> Result<Vec<(u64, usize)>> {
        if !self.inner.reader.is_remote() || ids.is_empty() {
            return Ok(Vec::new());
        }
        self.dict_ranges(&self.uncached_dict_blocks(ids)?)
    }

    /// The file ranges of dictionary blocks.
    fn dict_ranges(
        &self,
        blocks: &[(usize, crate::dict::DictBlockMeta)],
    ) -> Result<Vec<(u64, usize)>> {
        let sec = self.indexes()?.dict_blocks;
        Ok(blocks
            .iter()
            .map(|(_, m)| (sec.offset + m.offset, m.stored_len as usize))
            .collect())
    }

    /// The dictionary blocks holding `ids` that are not cached, with their directory entries;
    /// a paged directory's pages they need are fetched first, in one batch.
    fn uncached_dict_blocks(
        &self,
        ids: &[crate::Id],
    ) -> Result<Vec<(usize, crate::dict::DictBlockMeta)>> {
        // A paged directory's pages first, in one batch: a block's place is known only from
        // its page, and the ids of a page of results lie on many pages.
        if let (_, DictDir::Paged(d)) = self.dict_dir()? {
            let pages = ids.iter().filter_map(|&id| d.page_of_id(id)).collect();
            self.load_dict_pages(d, pages)?;
        }
        let mut blocks: Vec<usize> = Vec::with_capacity(ids.len());
        for &id in ids {
            blocks.push(self.dict_block_index(id)?.0);
        }
        self.uncached_dict_metas(blocks)
    }

    /// Loads the pages `pages` of the paged dictionary directory `d` not loaded yet, in one
    /// batched read.
    fn load_dict_pages(&self, d: &crate::paged::DictPages, mut pages: Vec<usize>) -> Result<()> {
        pages.sort_unstable();
        pages.dedup();
        let frames: Vec<(usize, u64, usize)> = pages
            .into_iter()
            .filter(|&p| !d.is_loaded(p))
            .filter_map(|p| {
                let (o, l) = d.frame(p)?;
                Some((p, o, usize::try_from(l).ok()?))
            })
            .collect();
        if frames.is_empty() {
            return Ok(());
        }
        let index = self.indexes()?.dict_index;
        let wanted: Vec<(u64, usize)> = frames
            .iter()
            .map(|&(_, o, l)| (index.offset + o, l))
            .collect();
        let stored = self.inner.reader.read_many(&wanted)?;
        for (&(p, o, l), frame) in frames.iter().zip(stored) {
            let read = self.frame_reader(index, (o, l), frame);
            d.page(p, &read, &self.inner.name)?;
        }
        Ok(())
    }

    /// The dictionary blocks `blocks` (indexes, repeats allowed) that are not cached, with
    /// their directory entries.
    fn uncached_dict_metas(
        &self,
        mut blocks: Vec<usize>,
    ) -> Result<Vec<(usize, crate::dict::DictBlockMeta)>> {
        blocks.sort_unstable();
        blocks.dedup();
        let mut wanted: Vec<(usize, crate::dict::DictBlockMeta)> = Vec::new();
        for b in blocks {
            if self.cache().contains(&CacheKey::Dict(b as u32)) {
                continue;
            }
            let (metas, first) = self.dict_metas(b)?;
            if let Some(m) = metas.get(b.wrapping_sub(first)) {
                wanted.push((b, m.clone()));
            }
        }
        Ok(wanted)
    }

    /// Reads directory section `index` as [`Rete::dir_reader`] does, except that the page
    /// frame `(offset, len)` is answered with `bytes`, already fetched in a batch.
    fn frame_reader(
        &self,
        index: crate::format::SectionEntry,
        (o, l): (u64, usize),
        bytes: Vec<u8>,
    ) -> impl Fn(u64, usize) -> Result<Vec<u8>> + '_ {
        let fallback = self.dir_reader(index);
        move |offset, len| {
            if (offset, len) == (o, l) {
                Ok(bytes.clone())
            } else {
                fallback(offset, len)
            }
        }
    }
}
