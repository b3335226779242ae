//! The block cache: decoded dictionary and permutation blocks, kept in a byte-bounded LRU
//! shared by every query on a file, and how blocks are fetched into it (with a scan's readahead).
//! Separate from the reader because eviction and weights are their own concern.

use super::directory::{DictDir, PermDir};
use super::Rete;
use crate::dict::{self, DictBlock, DictBlockMeta};
use crate::error::{Error, Result};
use crate::perm::{self, PermBlockMeta};
use crate::{IdQuad, Perm};
use lru::LruCache;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum CacheKey {
    Dict(u32),
    Perm(u8, u32),
}

#[derive(Debug, Clone)]
pub(super) enum CacheVal {
    Dict(Arc<DictBlock>),
    Perm(Arc<Vec<IdQuad>>),
}

#[derive(Debug)]
pub(super) struct Cache {
    pub(super) lru: LruCache<CacheKey, (CacheVal, usize)>,
    pub(super) weight: usize,
    pub(super) cap: usize,
}
impl Cache {
    pub(super) fn get(&mut self, k: &CacheKey) -> Option<CacheVal> {
        self.lru.get(k).map(|(v, _)| v.clone())
    }
    pub(super) fn contains(&self, k: &CacheKey) -> bool {
        self.lru.contains(k)
    }
    pub(super) fn put(&mut self, k: CacheKey, v: CacheVal, w: usize) {
        if let Some((_, old)) = self.lru.put(k, (v, w)) {
            self.weight -= old;
        }
        self.weight += w;
        while self.weight > self.cap && self.lru.len() > 1 {
            match self.lru.pop_lru() {
                Some((_, (_, ow))) => self.weight -= ow,
                None => break,
            }
        }
    }
}

/// What an open file holds in memory, beside the bytes at its head ([`Rete::memory_use`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryUse {
    /// Decoded blocks in the block cache.
    pub cached_blocks: usize,
    /// Their weight as the cache counts it (bytes).
    pub cached_bytes: usize,
    /// The cache's bound ([`ReteOptions::cache_bytes`](crate::ReteOptions::cache_bytes)): the
    /// cache evicts least recently used blocks past it, keeping at least the block just read.
    pub cache_limit: usize,
    /// Block directory entries loaded so far (bytes): never more than the file's directories.
    pub directory_bytes: usize,
}

/// What a decoded permutation block of `quads` quads weighs in the block cache.
pub(super) fn perm_weight(quads: usize) -> usize {
    quads * 32 + 64
}

impl Rete {
    pub(super) fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.inner.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn dict_block(&self, i: usize) -> Result<Arc<DictBlock>> {
        let key = CacheKey::Dict(i as u32);
        if let Some(CacheVal::Dict(b)) = self.cache().get(&key) {
            return Ok(b);
        }
        let (metas, first) = self.dict_metas(i)?;
        let m = metas.get(i.wrapping_sub(first)).ok_or_else(|| {
            Error::corrupt(
                &self.inner.name,
                "dictionary index",
                format!("no block {i}"),
            )
        })?;
        let idx = self.indexes()?;
        let sec = idx.dict_blocks;
        let stored = self.read_bytes(sec.offset + m.offset, m.stored_len as usize)?;
        let block = Arc::new(dict::read_block(
            &stored,
            m,
            idx.zdict.as_deref(),
            &self.inner.name,
        )?);
        self.cache()
            .put(key, CacheVal::Dict(block.clone()), block.weight());
        Ok(block)
    }

    /// Block `i` of permutation `p`; on a miss, also fetches following blocks up to `end` (one
    /// read, bounded by the readahead) since scans consume them next.
    pub(super) fn perm_block(
        &self,
        p: Perm,
        i: usize,
        end: usize,
        readahead: usize,
    ) -> Result<Arc<Vec<IdQuad>>> {
        let key = CacheKey::Perm(p as u8, i as u32);
        if let Some(CacheVal::Perm(b)) = self.cache().get(&key) {
            return Ok(b);
        }
        let sec = self.perm_dir(p)?.1;
        // Readahead stays within the entries at hand (a page of a paged directory): fetching
        // another directory page only to read ahead would cost a request of its own.
        let (metas, base) = self.perm_metas(p, i)?;
        let (li, lend) = (
            i.wrapping_sub(base),
            end.saturating_sub(base).min(metas.len()),
        );
        let im = metas.get(li).ok_or_else(|| self.no_block(p, i))?;
        let mut j = li + 1;
        let mut bytes = u64::from(im.stored_len);
        {
            let cache = self.cache();
            while j < lend
                && bytes + u64::from(metas[j].stored_len) <= readahead as u64
                && !cache.contains(&CacheKey::Perm(p as u8, (base + j) as u32))
            {
                bytes += u64::from(metas[j].stored_len);
                j += 1;
            }
        }
        let start = im.offset;
        let span = self.read_bytes(sec.offset + start, bytes as usize)?;
        let section = sec.name();
        let mut first = None;
        for (k, m) in metas[li..j].iter().enumerate() {
            let rel = (m.offset - start) as usize;
            let quads = self.cache_perm_block(
                p,
                base + li + k,
                &span[rel..rel + m.stored_len as usize],
                m,
                &section,
            )?;
            if k == 0 {
                first = Some(quads);
            }
        }
        first.ok_or_else(|| Error::corrupt(&self.inner.name, section, "empty block range"))
    }

    /// Decodes block `b` of permutation `p` from its stored bytes and caches it.
    pub(super) fn cache_perm_block(
        &self,
        p: Perm,
        b: usize,
        stored: &[u8],
        meta: &PermBlockMeta,
        section: &str,
    ) -> Result<Arc<Vec<IdQuad>>> {
        let quads = Arc::new(perm::read_block(stored, meta, section, &self.inner.name)?);
        self.cache().put(
            CacheKey::Perm(p as u8, b as u32),
            CacheVal::Perm(quads.clone()),
            perm_weight(quads.len()),
        );
        Ok(quads)
    }

    /// What the file holds in memory now: the block cache's fill and the directories loaded.
    pub fn memory_use(&self) -> MemoryUse {
        let (cached_blocks, cached_bytes) = {
            let c = self.cache();
            (c.lru.len(), c.weight)
        };
        let mut directory_bytes = 0;
        if let Some(idx) = self.inner.indexes.get() {
            let dict = size_of::<DictBlockMeta>();
            let perm = size_of::<PermBlockMeta>();
            directory_bytes += match idx.dict.get() {
                Some(DictDir::Whole(d)) => d.blocks.len() * dict,
                Some(DictDir::Paged(p)) => p.loaded_entries() * dict,
                None => 0,
            };
            for (_, _, dir) in &idx.perms {
                directory_bytes += match dir.get() {
                    Some(PermDir::Whole(d)) => d.blocks.len() * perm,
                    Some(PermDir::Paged(p)) => p.loaded_entries() * perm,
                    None => 0,
                };
            }
        }
        MemoryUse {
            cached_blocks,
            cached_bytes,
            cache_limit: self.inner.opts.cache_bytes,
            directory_bytes,
        }
    }

    /// Drops every cached block.
    pub fn clear_cache(&self) {
        let mut c = self.cache();
        c.lru.clear();
        c.weight = 0;
    }
}
