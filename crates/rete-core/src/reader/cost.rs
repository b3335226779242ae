//! The cost model ([`Rete::pattern_cost`]): the bytes and requests a pattern's scan would
//! fetch given what is cached, so a planner can order patterns without reading them.

use super::cache::CacheKey;
use super::directory::{reads_together, span_of, PermDir};
use super::scan::next_readahead;
use super::Rete;
use crate::error::Result;
use crate::format::{kind, SectionEntry};
use crate::{Pattern, Perm};

impl Rete {
    /// Bytes and requests that reading the quads of `pattern` will fetch from the byte source,
    /// given what is cached now: the block directories if not loaded yet (when read lazily: the
    /// page tables, then the directory pages the range visits, or the permutation's whole
    /// directory in a file without page tables), plus every uncached
    /// block of the pattern's range, grouped like the scan's readahead. Exact for one pattern on
    /// a reader without its own cache; an upper bound otherwise.
    pub fn pattern_cost(&self, pattern: &Pattern) -> Result<Cost> {
        let mut cost = Cost::default();
        let perm = Perm::for_bound(
            pattern.s.is_some(),
            pattern.p.is_some(),
            pattern.o.is_some(),
        );
        let (lo, hi) = Self::bounds(perm, pattern);
        let head = self.inner.head.len() as u64;
        let mut fetch = |start: u64, len: u64| {
            // Spans inside the prefix read at open cost nothing more.
            if start + len > head {
                cost.requests += 1;
                cost.bytes += len;
            }
        };
        if self.inner.indexes.get().is_none() {
            let dirs: Vec<SectionEntry> = self
                .inner
                .sections
                .iter()
                .filter(|e| e.kind == kind::DICT_INDEX || e.kind == kind::PERM_INDEX)
                .copied()
                .collect();
            let tables: Vec<SectionEntry> = self
                .inner
                .sections
                .iter()
                .filter(|e| e.kind == kind::DICT_PAGES || e.kind == kind::PERM_PAGES)
                .copied()
                .collect();
            // The zstd dictionary of the dictionary blocks is read with them (format 1.2).
            let zdict: Vec<SectionEntry> = self
                .inner
                .sections
                .iter()
                .filter(|e| e.kind == kind::DICT_ZSTD)
                .copied()
                .collect();
            // As `Rete::read_sections` reads them: one span, or one read each.
            let mut read = |v: &[SectionEntry]| {
                if reads_together(v) {
                    let (s, e) = span_of(v);
                    fetch(s, e - s);
                } else {
                    for e in v {
                        fetch(e.offset, e.len);
                    }
                }
            };
            if !self.lazy(&dirs) {
                read(&[&dirs[..], &zdict[..]].concat());
            } else if tables.len() == 7 {
                read(&[&tables[..], &zdict[..]].concat());
            } else if !zdict.is_empty() {
                read(&zdict);
            }
        }
        let idx = self.indexes()?;
        let (index, blocks, dir) = &idx.perms[perm as usize];
        match dir.get() {
            None => fetch(index.offset, index.len),
            Some(PermDir::Paged(d)) if !d.is_empty() => {
                let mut pages = vec![d.page_for_key(&lo), d.page_for_key(&hi)];
                pages.dedup();
                for p in pages {
                    if let (false, Some((o, l))) = (d.is_loaded(p), d.frame(p)) {
                        fetch(index.offset + o, l);
                    }
                }
            }
            Some(_) => {}
        }
        let (first, end) = self.perm_range(perm, &lo, &hi)?;
        let mut b = first;
        let mut ahead = 0;
        while b < end {
            if self.cache().contains(&CacheKey::Perm(perm as u8, b as u32)) {
                b += 1;
                continue;
            }
            // A scan crossing into a directory page not loaded yet fetches that page first.
            if let Some(PermDir::Paged(d)) = dir.get() {
                let p = d.page_of_block(b);
                if let (false, Some((o, l))) = (d.is_loaded(p), d.frame(p)) {
                    fetch(index.offset + o, l);
                }
            }
            let (metas, base) = self.perm_metas(perm, b)?;
            let lend = end.saturating_sub(base).min(metas.len());
            let li = b - base;
            let m = metas.get(li).ok_or_else(|| self.no_block(perm, b))?;
            let mut bytes = u64::from(m.stored_len);
            let mut j = li + 1;
            {
                let cache = self.cache();
                while j < lend
                    && bytes + u64::from(metas[j].stored_len) <= ahead as u64
                    && !cache.contains(&CacheKey::Perm(perm as u8, (base + j) as u32))
                {
                    bytes += u64::from(metas[j].stored_len);
                    j += 1;
                }
            }
            ahead = next_readahead(ahead, self.inner.opts.readahead);
            fetch(blocks.offset + m.offset, bytes);
            cost.blocks += (j - li) as u64;
            b = base + j;
        }
        Ok(cost)
    }
}

/// What a read will fetch.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    /// Bytes fetched from the byte source.
    pub bytes: u64,
    /// Requests (reads) issued.
    pub requests: u64,
    /// Permutation blocks decoded.
    pub blocks: u64,
}
