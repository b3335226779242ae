//! The block directories: where each dictionary and permutation block lies, loaded whole on
//! first use or page by page for remote files with page tables, and the searches over them
//! (which block holds an id, which blocks a key range spans).

use super::Rete;
use crate::dict::{BlockDictionary, DictBlockMeta, DictIndex};
use crate::error::{Error, Result};
use crate::format::{kind, section_name, SectionEntry};
use crate::paged::{DictPages, Expect, PermPages};
use crate::perm::{PermBlockMeta, PermIndex};
use crate::{IdQuad, Perm};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// A block directory held whole, or read page by page (remote files with page tables).
#[derive(Debug)]
pub(super) enum DictDir {
    Whole(DictIndex),
    Paged(DictPages),
}

#[derive(Debug)]
pub(super) enum PermDir {
    Whole(PermIndex),
    Paged(PermPages),
}

/// Block entries: a whole directory, or one page of it.
#[derive(Debug)]
pub(super) enum Metas<'a, T> {
    Borrowed(&'a [T]),
    Shared(Arc<[T]>),
}

impl<T> std::ops::Deref for Metas<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Self::Borrowed(s) => s,
            Self::Shared(a) => a,
        }
    }
}

/// The block directories: each loaded on first use (all at once for local and small files).
#[derive(Debug)]
pub(super) struct Indexes {
    pub(super) dict_index: SectionEntry,
    pub(super) dict_blocks: SectionEntry,
    pub(super) dict: OnceLock<DictDir>,
    /// The zstd dictionary of the dictionary blocks (format 1.2), if the file has one.
    pub(super) zdict: Option<Arc<BlockDictionary>>,
    /// Per permutation: directory section, blocks section, directory.
    pub(super) perms: Vec<(SectionEntry, SectionEntry, OnceLock<PermDir>)>,
}

/// The bytes from the first of `sections` to the end of the last.
pub(super) fn span_of(sections: &[SectionEntry]) -> (u64, u64) {
    let start = sections.iter().map(|e| e.offset).min().unwrap_or(0);
    let end = sections.iter().map(|e| e.offset + e.len).max().unwrap_or(0);
    (start, end)
}

/// Whether [`Rete::read_sections`] reads `sections` in one read (they lie close together).
pub(super) fn reads_together(sections: &[SectionEntry]) -> bool {
    let (start, end) = span_of(sections);
    let total: u64 = sections.iter().map(|e| e.len).sum();
    end - start <= total.saturating_mul(2) + 4096
}

impl Rete {
    pub(super) fn indexes(&self) -> Result<&Indexes> {
        if let Some(i) = self.inner.indexes.get() {
            return Ok(i);
        }
        let _guard = self.inner.load.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = self.inner.indexes.get() {
            return Ok(i);
        }
        let idx = self.load_indexes()?;
        let _ = self.inner.indexes.set(idx);
        self.inner
            .indexes
            .get()
            .ok_or_else(|| Error::corrupt(&self.inner.name, "index", "unavailable"))
    }

    fn find_section(&self, k: u16, i: u16) -> Result<SectionEntry> {
        self.section(k, i).copied().ok_or_else(|| {
            Error::corrupt(
                &self.inner.name,
                section_name(k, i),
                "required section is missing",
            )
        })
    }

    /// Stored bytes of `wanted` sections: in one read when they lie close together (the writer
    /// lays them out contiguously), else one read each.
    fn read_sections(&self, wanted: &[SectionEntry]) -> Result<Vec<Vec<u8>>> {
        let name = &self.inner.name;
        let (start, end) = span_of(wanted);
        if reads_together(wanted) {
            let bytes = self.read_bytes(
                start,
                usize::try_from(end - start)
                    .map_err(|_| Error::corrupt(name, "index", "too large"))?,
            )?;
            Ok(wanted
                .iter()
                .map(|e| {
                    bytes[(e.offset - start) as usize..(e.offset - start + e.len) as usize].to_vec()
                })
                .collect())
        } else {
            wanted
                .iter()
                .map(|e| self.read_bytes(e.offset, self.usize_len(e)?))
                .collect()
        }
    }

    /// Decodes directory section `e` (or its page table) from its stored bytes with `decode`,
    /// charging the document's decode budget first for the decoded bytes, then for what `held`
    /// says the decoder makes of them; the charge is kept as long as the document (directories
    /// are never dropped).
    fn decode_kept<T>(
        &self,
        e: &SectionEntry,
        stored: &[u8],
        held: fn(&[u8]) -> u64,
        decode: impl FnOnce(&[u8]) -> Result<T>,
    ) -> Result<T> {
        let section = e.name();
        let mut charge = self.charge_section(e)?;
        let payload = self.decode_section(e, stored)?;
        charge.grow(&section, held(&payload))?;
        let decoded = decode(&payload)?;
        self.keep(charge);
        Ok(decoded)
    }

    /// The zstd dictionary of the dictionary blocks from its section's stored bytes.
    fn decode_zdict(&self, e: &SectionEntry, stored: &[u8]) -> Result<Arc<BlockDictionary>> {
        // zstd holds the dictionary decoded, about its size again.
        self.decode_kept(
            e,
            stored,
            |p| p.len() as u64,
            |p| {
                BlockDictionary::new(p).map(Arc::new).ok_or_else(|| {
                    Error::corrupt(&self.inner.name, e.name(), "not a zstd dictionary")
                })
            },
        )
    }

    pub(super) fn decode_dict(&self, idx: &Indexes, stored: &[u8]) -> Result<DictIndex> {
        self.decode_kept(&idx.dict_index, stored, DictIndex::held_bytes, |p| {
            DictIndex::decode(
                p,
                self.inner.header.terms,
                idx.dict_blocks.len,
                &self.inner.name,
            )
        })
    }

    pub(super) fn decode_perm(
        &self,
        index: &SectionEntry,
        blocks: &SectionEntry,
        stored: &[u8],
    ) -> Result<PermIndex> {
        let name = &self.inner.name;
        let pi = self.decode_kept(index, stored, PermIndex::held_bytes, |p| {
            PermIndex::decode(p, blocks.len, &index.name(), name)
        })?;
        if pi.total != self.inner.header.quads {
            return Err(Error::corrupt(
                name,
                index.name(),
                format!(
                    "holds {} quads, header says {}",
                    pi.total, self.inner.header.quads
                ),
            ));
        }
        Ok(pi)
    }

    /// Whether this file's directories are read lazily (see
    /// [`ReteOptions::lazy_directories`](crate::ReteOptions::lazy_directories)).
    pub(super) fn lazy(&self, dirs: &[SectionEntry]) -> bool {
        self.inner.opts.lazy_directories.unwrap_or_else(|| {
            self.inner.reader.is_remote()
                && dirs.iter().map(|e| e.len).sum::<u64>() > self.inner.opts.lazy_directories_above
        })
    }

    /// Locates the block directories. A local file loads each whole when first used; a small
    /// remote one loads them all in one read; a larger remote one loads its page tables (one
    /// read) and later only the pages a lookup visits, or, without page tables (format 1.0), each
    /// directory whole when first used.
    fn load_indexes(&self) -> Result<Indexes> {
        let name = &self.inner.name;
        let dict_index = self.find_section(kind::DICT_INDEX, 0)?;
        let dict_blocks = self.find_section(kind::DICT_BLOCKS, 0)?;
        let mut perms = Vec::with_capacity(6);
        for p in Perm::ALL {
            perms.push((
                self.find_section(kind::PERM_INDEX, p as u16)?,
                self.find_section(kind::PERM_BLOCKS, p as u16)?,
                OnceLock::new(),
            ));
        }
        let mut idx = Indexes {
            dict_index,
            dict_blocks,
            dict: OnceLock::new(),
            zdict: None,
            perms,
        };
        let zdict = self.section(kind::DICT_ZSTD, 0).copied();
        let dirs: Vec<SectionEntry> = std::iter::once(idx.dict_index)
            .chain(idx.perms.iter().map(|x| x.0))
            .collect();
        if !self.lazy(&dirs) {
            if !self.inner.reader.is_remote() {
                // A local file decodes each directory whole when first used: a label search
                // needs the dictionary's alone, not the six permutations' (at 100 M triples
                // those took 27–54 ms of a fresh process's first search).
                if let Some(e) = zdict {
                    let stored = self.read_sections(&[e])?;
                    idx.zdict = Some(self.decode_zdict(&e, &stored[0])?);
                }
                return Ok(idx);
            }
            // The zstd dictionary lies next to the directories: read with them.
            let stored = self.read_sections(&[&dirs[..], zdict.as_slice()].concat())?;
            if let (Some(e), Some(s)) = (zdict, stored.get(dirs.len())) {
                idx.zdict = Some(self.decode_zdict(&e, s)?);
            }
            let _ = idx
                .dict
                .set(DictDir::Whole(self.decode_dict(&idx, &stored[0])?));
            for (k, (index, blocks, dir)) in idx.perms.iter().enumerate() {
                let _ = dir.set(PermDir::Whole(self.decode_perm(
                    index,
                    blocks,
                    &stored[k + 1],
                )?));
            }
            return Ok(idx);
        }
        let tables: Option<Vec<SectionEntry>> = std::iter::once(self.section(kind::DICT_PAGES, 0))
            .chain(
                Perm::ALL
                    .iter()
                    .map(|&p| self.section(kind::PERM_PAGES, p as u16)),
            )
            .map(|e| e.copied())
            .collect();
        let Some(tables) = tables else {
            if let Some(e) = zdict {
                let stored = self.read_sections(&[e])?;
                idx.zdict = Some(self.decode_zdict(&e, &stored[0])?);
            }
            return Ok(idx);
        };
        let stored = self.read_sections(&[&tables[..], zdict.as_slice()].concat())?;
        if let (Some(e), Some(s)) = (zdict, stored.get(tables.len())) {
            idx.zdict = Some(self.decode_zdict(&e, s)?);
        }
        let budget = &self.inner.budget;
        let dict = self.decode_kept(&tables[0], &stored[0], DictPages::held_bytes, |p| {
            let expect = Expect {
                dir_len: idx.dict_index.len,
                blocks_len: idx.dict_blocks.len,
                items: self.inner.header.terms,
            };
            DictPages::decode(p, expect, name)
        })?;
        let _ = idx
            .dict
            .set(DictDir::Paged(dict.charged_to(budget.clone())));
        for (k, (index, blocks, dir)) in idx.perms.iter().enumerate() {
            let pages =
                self.decode_kept(&tables[k + 1], &stored[k + 1], PermPages::held_bytes, |p| {
                    let expect = Expect {
                        dir_len: index.len,
                        blocks_len: blocks.len,
                        items: self.inner.header.quads,
                    };
                    PermPages::decode(p, expect, &index.name(), name)
                })?;
            let _ = dir.set(PermDir::Paged(pages.charged_to(budget.clone())));
        }
        Ok(idx)
    }

    /// The dictionary directory, fetched whole on first use if not loaded with the others.
    pub(super) fn dict_dir(&self) -> Result<(&Indexes, &DictDir)> {
        let idx = self.indexes()?;
        if let Some(d) = idx.dict.get() {
            return Ok((idx, d));
        }
        let _guard = self.inner.load.lock().unwrap_or_else(|p| p.into_inner());
        if idx.dict.get().is_none() {
            let stored =
                self.read_bytes(idx.dict_index.offset, self.usize_len(&idx.dict_index)?)?;
            let _ = idx
                .dict
                .set(DictDir::Whole(self.decode_dict(idx, &stored)?));
        }
        idx.dict
            .get()
            .map(|d| (idx, d))
            .ok_or_else(|| Error::corrupt(&self.inner.name, "dictionary index", "unavailable"))
    }

    /// Permutation `p`'s directory and its blocks section, fetched on first use if not loaded
    /// with the others.
    pub(super) fn perm_dir(&self, p: Perm) -> Result<(&PermDir, &SectionEntry)> {
        let idx = self.indexes()?;
        let (index, blocks, dir) = &idx.perms[p as usize];
        if let Some(d) = dir.get() {
            return Ok((d, blocks));
        }
        let _guard = self.inner.load.lock().unwrap_or_else(|p| p.into_inner());
        if dir.get().is_none() {
            let stored = self.read_bytes(index.offset, self.usize_len(index)?)?;
            let _ = dir.set(PermDir::Whole(self.decode_perm(index, blocks, &stored)?));
        }
        dir.get()
            .map(|d| (d, blocks))
            .ok_or_else(|| Error::corrupt(&self.inner.name, index.name(), "unavailable"))
    }

    /// Reads stored bytes `[offset, offset + len)` of directory section `e` (a page's frame).
    pub(super) fn dir_reader(
        &self,
        e: SectionEntry,
    ) -> impl Fn(u64, usize) -> Result<Vec<u8>> + '_ {
        move |offset, len| match offset.checked_add(len as u64) {
            Some(end) if end <= e.len => self.read_bytes(e.offset + offset, len),
            _ => Err(Error::corrupt(
                &self.inner.name,
                e.name(),
                "directory page lies outside the section",
            )),
        }
    }

    /// The entries holding dictionary block `b`: the whole directory or `b`'s page, with the
    /// index of the first.
    pub(super) fn dict_metas(&self, b: usize) -> Result<(Metas<'_, DictBlockMeta>, usize)> {
        let (idx, dir) = self.dict_dir()?;
        match dir {
            DictDir::Whole(d) => Ok((Metas::Borrowed(&d.blocks), 0)),
            DictDir::Paged(d) => {
                let read = self.dir_reader(idx.dict_index);
                let p = d.page_of_block(b);
                let (m, first) = d.page(p, &read, &self.inner.name)?;
                Ok((Metas::Shared(m), first))
            }
        }
    }

    /// The entries holding block `b` of permutation `p`: the whole directory or `b`'s page, with
    /// the index of the first.
    pub(super) fn perm_metas(
        &self,
        p: Perm,
        b: usize,
    ) -> Result<(Metas<'_, PermBlockMeta>, usize)> {
        let (dir, _) = self.perm_dir(p)?;
        match dir {
            PermDir::Whole(d) => Ok((Metas::Borrowed(&d.blocks), 0)),
            PermDir::Paged(d) => {
                let read = self.dir_reader(self.indexes()?.perms[p as usize].0);
                let (m, first) = d.page(d.page_of_block(b), &read, &self.inner.name)?;
                Ok((Metas::Shared(m), first))
            }
        }
    }

    /// The entry of block `b` of permutation `p`.
    pub(super) fn perm_meta(&self, p: Perm, b: usize) -> Result<Cow<'_, PermBlockMeta>> {
        let (metas, first) = self.perm_metas(p, b)?;
        let get = |m: &[PermBlockMeta]| m.get(b.wrapping_sub(first)).cloned();
        match metas {
            Metas::Borrowed(m) => m
                .get(b)
                .map(Cow::Borrowed)
                .ok_or_else(|| self.no_block(p, b)),
            Metas::Shared(m) => get(&m).map(Cow::Owned).ok_or_else(|| self.no_block(p, b)),
        }
    }

    pub(super) fn no_block(&self, p: Perm, b: usize) -> Error {
        Error::corrupt(
            &self.inner.name,
            section_name(kind::PERM_INDEX, p as u16),
            format!("no block {b}"),
        )
    }

    pub(super) fn perm_len(&self, p: Perm) -> Result<usize> {
        Ok(match self.perm_dir(p)?.0 {
            PermDir::Whole(d) => d.blocks.len(),
            PermDir::Paged(d) => d.len(),
        })
    }

    /// The blocks `[first, end)` of permutation `p` that may hold keys in `[lo, hi]`.
    pub(super) fn perm_range(&self, p: Perm, lo: &IdQuad, hi: &IdQuad) -> Result<(usize, usize)> {
        match self.perm_dir(p)?.0 {
            PermDir::Whole(d) => Ok(if d.blocks.is_empty() {
                (0, 0)
            } else {
                // Every block before the first holds keys below `lo <= hi`: the end is
                // searched from the first on (a pattern's range mostly spans a block or two).
                let first = d.first_block_for(lo);
                (
                    first,
                    first + crate::seek::gallop(&d.blocks[first..], |b| b.first <= *hi),
                )
            }),
            PermDir::Paged(d) => {
                let read = self.dir_reader(self.indexes()?.perms[p as usize].0);
                let name = &self.inner.name;
                Ok(if d.is_empty() {
                    (0, 0)
                } else {
                    (
                        d.blocks_up_to(lo, &read, name)?.saturating_sub(1),
                        d.blocks_up_to(hi, &read, name)?,
                    )
                })
            }
        }
    }
}
