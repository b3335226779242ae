//! Opening and querying a `.rete` through any [`RangeReader`].
//!
//! Opening reads one prefix of the file (header, section directory and whatever small sections
//! the writer placed right after it, such as the schema block). The block directories are fetched
//! together, in one read, the first time a pattern or term is needed; over HTTP, a file whose
//! directories are large fetches their page tables instead and then only the directory pages its
//! lookups visit (see [`crate::paged`]). Blocks are decompressed on demand into a byte-bounded LRU
//! cache shared by every query on the file.

use crate::card::Card;
use crate::dict::{self, DictBlock, DictBlockMeta, DictIndex};
use crate::error::{Error, Result};
use crate::format::{
    kind, section_name, zstd_decode, Codec, Header, SectionEntry, HEADER_LEN, MAGIC,
};
use crate::paged::{DictPages, Expect, PermPages};
use crate::perm::{self, PermBlockMeta, PermIndex};
use crate::range::{FileReader, RangeReader};
use crate::{term, GraphMatch, Id, IdQuad, Pattern, Perm, DEFAULT_GRAPH};
use lru::LruCache;
use oxrdf::{GraphName, GraphNameRef, Term, TermRef};
use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use xxhash_rust::xxh3::xxh3_64;

/// Tuning of a reader.
#[derive(Debug, Clone)]
pub struct ReteOptions {
    /// Bytes of decoded blocks kept in the cache.
    pub cache_bytes: usize,
    /// Bytes read by the first request at open (header, directory and the sections behind them).
    pub prefetch: usize,
    /// Upper bound on the bytes of consecutive blocks a scan fetches in one read.
    pub readahead: usize,
    /// Whether block directories are fetched lazily (each when first used, and page by page
    /// when the file has page tables) instead of all in one read: `None` decides by the byte
    /// source ([`RangeReader::is_remote`]) and [`ReteOptions::lazy_directories_above`].
    pub lazy_directories: Option<bool>,
    /// Remote files whose block directories together take at most this many stored bytes fetch
    /// them all in one read (one request beats several for small files).
    pub lazy_directories_above: u64,
}

impl Default for ReteOptions {
    fn default() -> Self {
        Self {
            cache_bytes: 256 << 20,
            prefetch: 8 << 10,
            readahead: 1 << 20,
            lazy_directories: None,
            lazy_directories_above: 64 << 10,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum CacheKey {
    Dict(u32),
    Perm(u8, u32),
}

#[derive(Debug, Clone)]
enum CacheVal {
    Dict(Arc<DictBlock>),
    Perm(Arc<Vec<IdQuad>>),
}

#[derive(Debug)]
struct Cache {
    lru: LruCache<CacheKey, (CacheVal, usize)>,
    weight: usize,
    cap: usize,
}

impl Cache {
    fn get(&mut self, k: &CacheKey) -> Option<CacheVal> {
        self.lru.get(k).map(|(v, _)| v.clone())
    }
    fn contains(&self, k: &CacheKey) -> bool {
        self.lru.contains(k)
    }
    fn put(&mut self, k: CacheKey, v: CacheVal, w: usize) {
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
    /// The cache's bound ([`ReteOptions::cache_bytes`]): the cache evicts least recently used
    /// blocks past it, keeping at least the block just read.
    pub cache_limit: usize,
    /// Block directory entries loaded so far (bytes): never more than the file's directories.
    pub directory_bytes: usize,
}

/// What a decoded permutation block of `quads` quads weighs in the block cache.
fn perm_weight(quads: usize) -> usize {
    quads * 32 + 64
}

/// A block directory held whole, or read page by page (remote files with page tables).
#[derive(Debug)]
enum DictDir {
    Whole(DictIndex),
    Paged(DictPages),
}

#[derive(Debug)]
enum PermDir {
    Whole(PermIndex),
    Paged(PermPages),
}

/// Block entries: a whole directory, or one page of it.
#[derive(Debug)]
enum Metas<'a, T> {
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
struct Indexes {
    dict_index: SectionEntry,
    dict_blocks: SectionEntry,
    dict: OnceLock<DictDir>,
    /// Per permutation: directory section, blocks section, directory.
    perms: Vec<(SectionEntry, SectionEntry, OnceLock<PermDir>)>,
}

#[derive(Debug)]
struct Inner {
    reader: Arc<dyn RangeReader>,
    name: String,
    header: Header,
    sections: Vec<SectionEntry>,
    head: Vec<u8>,
    indexes: OnceLock<Indexes>,
    card: OnceLock<Card>,
    load: Mutex<()>,
    cache: Mutex<Cache>,
    opts: ReteOptions,
}

/// An open `.rete` file. Cheap to clone; safe to share between threads.
#[derive(Debug, Clone)]
pub struct Rete {
    inner: Arc<Inner>,
}

impl Rete {
    /// Opens a local file.
    pub fn open_path(path: impl AsRef<Path>) -> Result<Self> {
        Self::open(Arc::new(FileReader::open(path)?))
    }

    /// Opens a file through `reader` with default options.
    pub fn open(reader: Arc<dyn RangeReader>) -> Result<Self> {
        Self::open_with(reader, ReteOptions::default())
    }

    /// Opens a file through `reader`: one read of `opts.prefetch` bytes (more only if the section
    /// directory is longer), validation of header and directory, nothing else.
    pub fn open_with(reader: Arc<dyn RangeReader>, opts: ReteOptions) -> Result<Self> {
        let name = reader.name().to_owned();
        let len = reader.len();
        let first = (opts.prefetch.max(HEADER_LEN) as u64).min(len) as usize;
        let mut head = reader.read_at(0, first)?;
        if head.len() < MAGIC.len() || head[..MAGIC.len()] != MAGIC {
            let hint = if head.starts_with(b"RETE") {
                ": this looks like an upstream rete file, which this reader does not read".into()
            } else {
                String::new()
            };
            return Err(Error::NotRete { file: name, hint });
        }
        let header = Header::parse(&head, &name)?;
        if header.file_len != len {
            return Err(Error::corrupt(
                &name,
                "header",
                format!(
                    "the header says the file has {} bytes but it has {len}: {}",
                    header.file_len,
                    if len < header.file_len {
                        "the file is truncated"
                    } else {
                        "the file has trailing bytes"
                    }
                ),
            ));
        }
        let dir_end = HEADER_LEN + header.dir_len();
        if head.len() < dir_end {
            let more = reader.read_at(head.len() as u64, dir_end - head.len())?;
            head.extend_from_slice(&more);
        }
        let sections = SectionEntry::parse_dir(&head[HEADER_LEN..dir_end], &header, &name)?;
        let need = |k: u16, i: u16| -> Result<()> {
            if sections.iter().any(|e| e.kind == k && e.index == i) {
                Ok(())
            } else {
                Err(Error::corrupt(
                    &name,
                    section_name(k, i),
                    "required section is missing",
                ))
            }
        };
        need(kind::DICT_INDEX, 0)?;
        need(kind::DICT_BLOCKS, 0)?;
        need(kind::CARD, 0)?;
        for i in 0..6 {
            need(kind::PERM_INDEX, i)?;
            need(kind::PERM_BLOCKS, i)?;
        }
        let cache = Cache {
            lru: LruCache::unbounded(),
            weight: 0,
            cap: opts.cache_bytes,
        };
        Ok(Self {
            inner: Arc::new(Inner {
                reader,
                name,
                header,
                sections,
                head,
                indexes: OnceLock::new(),
                card: OnceLock::new(),
                load: Mutex::new(()),
                cache: Mutex::new(cache),
                opts,
            }),
        })
    }

    /// The path or URL the file was opened from.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The fixed header.
    pub fn header(&self) -> &Header {
        &self.inner.header
    }

    /// The section directory.
    pub fn sections(&self) -> &[SectionEntry] {
        &self.inner.sections
    }

    /// The directory entry of a section.
    pub fn section(&self, kind: u16, index: u16) -> Option<&SectionEntry> {
        self.inner
            .sections
            .iter()
            .find(|e| e.kind == kind && e.index == index)
    }

    /// The byte source.
    pub fn reader(&self) -> &Arc<dyn RangeReader> {
        &self.inner.reader
    }

    /// Number of distinct quads.
    pub fn quad_count(&self) -> u64 {
        self.inner.header.quads
    }

    /// Number of dictionary terms.
    pub fn term_count(&self) -> u64 {
        self.inner.header.terms
    }

    /// Reads bytes, serving them from the prefix read at open when possible.
    fn read_bytes(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let head = &self.inner.head;
        if let Some(end) = offset.checked_add(len as u64) {
            if end <= head.len() as u64 {
                return Ok(head[offset as usize..end as usize].to_vec());
            }
        }
        Ok(self.inner.reader.read_at(offset, len)?)
    }

    fn usize_len(&self, e: &SectionEntry) -> Result<usize> {
        usize::try_from(e.len).map_err(|_| {
            Error::corrupt(
                &self.inner.name,
                e.name(),
                "section too large for this platform",
            )
        })
    }

    fn decode_section(&self, e: &SectionEntry, stored: &[u8]) -> Result<Vec<u8>> {
        if xxh3_64(stored) != e.checksum {
            return Err(Error::corrupt(
                &self.inner.name,
                e.name(),
                "checksum mismatch",
            ));
        }
        match e.codec {
            Codec::Raw | Codec::Blocks => Ok(stored.to_vec()),
            Codec::Zstd => zstd_decode(stored, e.raw_len, &self.inner.name, &|| e.name()),
        }
    }

    /// The decoded payload of a whole section (checksum verified), or `None` if the file has no
    /// such section. Meant for small sections (card, schema, pyramid directories).
    pub fn section_payload(&self, kind: u16, index: u16) -> Result<Option<Vec<u8>>> {
        let Some(e) = self.section(kind, index).copied() else {
            return Ok(None);
        };
        let stored = self.read_bytes(e.offset, self.usize_len(&e)?)?;
        self.decode_section(&e, &stored).map(Some)
    }

    /// Stored bytes `[offset, offset + len)` of a section, for sections that carry their own block
    /// directory (the caller checks its own block checksums).
    pub fn section_range(&self, kind: u16, index: u16, offset: u64, len: usize) -> Result<Vec<u8>> {
        let e = self.section(kind, index).copied().ok_or_else(|| {
            Error::corrupt(
                &self.inner.name,
                section_name(kind, index),
                "section is missing",
            )
        })?;
        match offset.checked_add(len as u64) {
            Some(end) if end <= e.len => self.read_bytes(e.offset + offset, len),
            _ => Err(Error::corrupt(
                &self.inner.name,
                e.name(),
                format!(
                    "range {offset}+{len} lies outside the section ({} bytes)",
                    e.len
                ),
            )),
        }
    }

    /// The dataset card.
    pub fn card(&self) -> Result<&Card> {
        if let Some(c) = self.inner.card.get() {
            return Ok(c);
        }
        let bytes = self.section_payload(kind::CARD, 0)?.unwrap_or_default();
        let card: Card = serde_json::from_slice(&bytes)
            .map_err(|e| Error::corrupt(&self.inner.name, "card", format!("invalid JSON: {e}")))?;
        let _ = self.inner.card.set(card);
        self.inner
            .card
            .get()
            .ok_or_else(|| Error::corrupt(&self.inner.name, "card", "unavailable"))
    }

    fn indexes(&self) -> Result<&Indexes> {
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
        let start = wanted.iter().map(|e| e.offset).min().unwrap_or(0);
        let end = wanted.iter().map(|e| e.offset + e.len).max().unwrap_or(0);
        let total: u64 = wanted.iter().map(|e| e.len).sum();
        if end - start <= total.saturating_mul(2) + 4096 {
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

    fn decode_dict(&self, idx: &Indexes, stored: &[u8]) -> Result<DictIndex> {
        DictIndex::decode(
            &self.decode_section(&idx.dict_index, stored)?,
            self.inner.header.terms,
            idx.dict_blocks.len,
            &self.inner.name,
        )
    }

    fn decode_perm(
        &self,
        index: &SectionEntry,
        blocks: &SectionEntry,
        stored: &[u8],
    ) -> Result<PermIndex> {
        let name = &self.inner.name;
        let pi = PermIndex::decode(
            &self.decode_section(index, stored)?,
            blocks.len,
            &index.name(),
            name,
        )?;
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

    /// Whether this file's directories are read lazily (see [`ReteOptions::lazy_directories`]).
    fn lazy(&self, dirs: &[SectionEntry]) -> bool {
        self.inner.opts.lazy_directories.unwrap_or_else(|| {
            self.inner.reader.is_remote()
                && dirs.iter().map(|e| e.len).sum::<u64>() > self.inner.opts.lazy_directories_above
        })
    }

    /// Locates the block directories. A local or small file loads them all in one read; a
    /// remote one loads its page tables (one read) and later only the pages a lookup visits, or,
    /// without page tables (format 1.0), each directory whole when first used.
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
        let idx = Indexes {
            dict_index,
            dict_blocks,
            dict: OnceLock::new(),
            perms,
        };
        let dirs: Vec<SectionEntry> = std::iter::once(idx.dict_index)
            .chain(idx.perms.iter().map(|x| x.0))
            .collect();
        if !self.lazy(&dirs) {
            let stored = self.read_sections(&dirs)?;
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
            return Ok(idx);
        };
        let stored = self.read_sections(&tables)?;
        let payload = |k: usize| self.decode_section(&tables[k], &stored[k]);
        let _ = idx.dict.set(DictDir::Paged(DictPages::decode(
            &payload(0)?,
            Expect {
                dir_len: idx.dict_index.len,
                blocks_len: idx.dict_blocks.len,
                items: self.inner.header.terms,
            },
            name,
        )?));
        for (k, (index, blocks, dir)) in idx.perms.iter().enumerate() {
            let _ = dir.set(PermDir::Paged(PermPages::decode(
                &payload(k + 1)?,
                Expect {
                    dir_len: index.len,
                    blocks_len: blocks.len,
                    items: self.inner.header.quads,
                },
                &index.name(),
                name,
            )?));
        }
        Ok(idx)
    }

    /// The dictionary directory, fetched whole on first use if not loaded with the others.
    fn dict_dir(&self) -> Result<(&Indexes, &DictDir)> {
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
    fn perm_dir(&self, p: Perm) -> Result<(&PermDir, &SectionEntry)> {
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
    fn dir_reader(&self, e: SectionEntry) -> impl Fn(u64, usize) -> Result<Vec<u8>> + '_ {
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
    fn dict_metas(&self, b: usize) -> Result<(Metas<'_, DictBlockMeta>, usize)> {
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
    fn perm_metas(&self, p: Perm, b: usize) -> Result<(Metas<'_, PermBlockMeta>, usize)> {
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
    fn perm_meta(&self, p: Perm, b: usize) -> Result<Cow<'_, PermBlockMeta>> {
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

    fn no_block(&self, p: Perm, b: usize) -> Error {
        Error::corrupt(
            &self.inner.name,
            section_name(kind::PERM_INDEX, p as u16),
            format!("no block {b}"),
        )
    }

    fn perm_len(&self, p: Perm) -> Result<usize> {
        Ok(match self.perm_dir(p)?.0 {
            PermDir::Whole(d) => d.blocks.len(),
            PermDir::Paged(d) => d.len(),
        })
    }

    /// The blocks `[first, end)` of permutation `p` that may hold keys in `[lo, hi]`.
    fn perm_range(&self, p: Perm, lo: &IdQuad, hi: &IdQuad) -> Result<(usize, usize)> {
        match self.perm_dir(p)?.0 {
            PermDir::Whole(d) => Ok(if d.blocks.is_empty() {
                (0, 0)
            } else {
                (d.first_block_for(lo), d.end_block_for(hi))
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

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
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
        let sec = self.indexes()?.dict_blocks;
        let stored = self.read_bytes(sec.offset + m.offset, m.stored_len as usize)?;
        let block = Arc::new(dict::read_block(&stored, m, &self.inner.name)?);
        self.cache()
            .put(key, CacheVal::Dict(block.clone()), block.weight());
        Ok(block)
    }

    /// Block `i` of permutation `p`; on a miss, also fetches following blocks up to `end` (one
    /// read, bounded by the readahead) since scans consume them next.
    fn perm_block(
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

    fn check_id(&self, id: Id) -> Result<()> {
        if id == 0 || id > self.inner.header.terms {
            return Err(Error::Invalid(format!(
                "term id {id} is out of range (1..={})",
                self.inner.header.terms
            )));
        }
        Ok(())
    }

    /// The decoded dictionary block holding term `id`, with the id of its first term.
    pub(crate) fn dict_block_of(&self, id: Id) -> Result<(Arc<DictBlock>, Id)> {
        let (b, first) = self.dict_block_index(id)?;
        Ok((self.dict_block(b)?, first))
    }

    /// The index of the dictionary block holding term `id`, with the id of its first term.
    pub(crate) fn dict_block_index(&self, id: Id) -> Result<(usize, Id)> {
        self.check_id(id)?;
        let (idx, dir) = self.dict_dir()?;
        let found = match dir {
            DictDir::Whole(d) => d.block_of_id(id).map(|b| (b, d.blocks[b].first_id)),
            DictDir::Paged(d) => {
                d.block_of_id(id, &self.dir_reader(idx.dict_index), &self.inner.name)?
            }
        };
        found.ok_or_else(|| {
            Error::corrupt(
                &self.inner.name,
                "dictionary index",
                format!("no block holds id {id}"),
            )
        })
    }

    /// Runs `f` on the encoded bytes of term `id`, borrowed from the cached block (no copy).
    pub fn with_term_bytes<R>(&self, id: Id, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let (block, first) = self.dict_block_of(id)?;
        match block.get((id - first) as usize) {
            Some(bytes) => Ok(f(bytes)),
            None => Err(self.missing_term(id)),
        }
    }

    pub(crate) fn missing_term(&self, id: Id) -> Error {
        Error::corrupt(
            &self.inner.name,
            "dictionary blocks",
            format!("block lacks id {id}"),
        )
    }

    pub(crate) fn bad_term(&self, id: Id, e: &Error) -> Error {
        Error::corrupt(
            &self.inner.name,
            "dictionary blocks",
            format!("term {id}: {e}"),
        )
    }

    /// The encoded bytes of term `id` (see [`crate::term`]).
    pub fn term_bytes(&self, id: Id) -> Result<Vec<u8>> {
        self.with_term_bytes(id, <[u8]>::to_vec)
    }

    /// The term with id `id` (decoded straight from the cached block: one allocation per
    /// string of the term).
    pub fn term(&self, id: Id) -> Result<Term> {
        self.with_term_bytes(id, term::decode)?
            .map_err(|e| self.bad_term(id, &e))
    }

    /// The graph name with id `id` (`0` is the default graph).
    pub fn graph_name(&self, id: Id) -> Result<GraphName> {
        if id == DEFAULT_GRAPH {
            return Ok(GraphName::DefaultGraph);
        }
        term::decode_graph(&self.term_bytes(id)?).map_err(|e| {
            Error::corrupt(
                &self.inner.name,
                "dictionary blocks",
                format!("graph {id}: {e}"),
            )
        })
    }

    /// The id of an encoded term, if it is in the dictionary.
    pub fn id_of_encoded(&self, enc: &[u8]) -> Result<Option<Id>> {
        let (idx, dir) = self.dict_dir()?;
        let found = match dir {
            DictDir::Whole(d) => d.block_for_term(enc).map(|b| (b, d.blocks[b].first_id)),
            DictDir::Paged(d) => {
                d.block_for_term(enc, &self.dir_reader(idx.dict_index), &self.inner.name)?
            }
        };
        let Some((b, first)) = found else {
            return Ok(None);
        };
        Ok(self.dict_block(b)?.find(enc).map(|i| first + i as u64))
    }

    /// The id of `term`, if it is in the dictionary.
    pub fn id_of(&self, t: TermRef<'_>) -> Result<Option<Id>> {
        match term::encode(t) {
            Ok(enc) => self.id_of_encoded(&enc),
            Err(_) => Ok(None),
        }
    }

    /// The id of a graph name (`Some(0)` for the default graph).
    pub fn id_of_graph(&self, g: GraphNameRef<'_>) -> Result<Option<Id>> {
        match g {
            GraphNameRef::DefaultGraph => Ok(Some(DEFAULT_GRAPH)),
            GraphNameRef::NamedNode(n) => self.id_of(n.into()),
            GraphNameRef::BlankNode(b) => self.id_of(b.into()),
        }
    }

    fn bounds(p: Perm, pat: &Pattern) -> (IdQuad, IdQuad) {
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
                let s = block.partition_point(|k| *k < lo);
                let e = block.partition_point(|k| *k <= hi);
                n += (e - s) as u64;
            }
        }
        Ok(n)
    }

    /// Checks every section and block: checksums, decodability, ordering, id ranges, and that all
    /// six permutations hold the same quads. Reads the whole file.
    pub fn verify(&self) -> Result<VerifyReport> {
        let name = &self.inner.name;
        let mut report = VerifyReport::default();
        for e in &self.inner.sections {
            let stored = self.read_bytes(e.offset, self.usize_len(e)?)?;
            self.decode_section(e, &stored)?;
            report.sections += 1;
            report.bytes += e.len;
        }
        self.card()?;
        let idx = self.indexes()?;
        // The directories whole; page tables, where present, must describe the same entries.
        let dict = self.decode_dict(
            idx,
            &self.read_bytes(idx.dict_index.offset, self.usize_len(&idx.dict_index)?)?,
        )?;
        if let Some(table) = self.section_payload(kind::DICT_PAGES, 0)? {
            let pages = DictPages::decode(
                &table,
                Expect {
                    dir_len: idx.dict_index.len,
                    blocks_len: idx.dict_blocks.len,
                    items: self.inner.header.terms,
                },
                name,
            )?;
            let read = self.dir_reader(idx.dict_index);
            if pages.len() != dict.blocks.len() {
                return Err(Error::corrupt(
                    name,
                    "dictionary index pages",
                    "block count differs from the directory",
                ));
            }
            for (b, m) in dict.blocks.iter().enumerate() {
                if pages.block(b, &read, name)? != *m {
                    return Err(Error::corrupt(
                        name,
                        "dictionary index pages",
                        format!("block {b} differs from the directory"),
                    ));
                }
            }
        }
        let mut prev: Option<Vec<u8>> = None;
        for b in 0..dict.blocks.len() {
            let block = self.dict_block(b)?;
            for i in 0..block.len() {
                let t = block.get(i).unwrap_or_default();
                term::decode(t).map_err(|err| {
                    Error::corrupt(
                        name,
                        "dictionary blocks",
                        format!("term {}: {err}", dict.blocks[b].first_id + i as u64),
                    )
                })?;
                if let Some(p) = &prev {
                    if term::compare(p, t) != std::cmp::Ordering::Less {
                        return Err(Error::corrupt(
                            name,
                            "dictionary blocks",
                            format!(
                                "terms out of order at id {}",
                                dict.blocks[b].first_id + i as u64
                            ),
                        ));
                    }
                }
                prev = Some(t.to_vec());
            }
            report.blocks += 1;
        }
        let terms = self.inner.header.terms;
        let mut fingerprints = Vec::with_capacity(6);
        for p in Perm::ALL {
            let (index, sec, _) = &idx.perms[p as usize];
            let pi = self.decode_perm(
                index,
                sec,
                &self.read_bytes(index.offset, self.usize_len(index)?)?,
            )?;
            if let Some(table) = self.section_payload(kind::PERM_PAGES, p as u16)? {
                let what = section_name(kind::PERM_PAGES, p as u16);
                let pages = PermPages::decode(
                    &table,
                    Expect {
                        dir_len: index.len,
                        blocks_len: sec.len,
                        items: self.inner.header.quads,
                    },
                    &index.name(),
                    name,
                )?;
                let read = self.dir_reader(*index);
                if pages.len() != pi.blocks.len() {
                    return Err(Error::corrupt(
                        name,
                        &what,
                        "block count differs from the directory",
                    ));
                }
                for (b, m) in pi.blocks.iter().enumerate() {
                    if pages.block(b, &read, name)? != *m {
                        return Err(Error::corrupt(
                            name,
                            &what,
                            format!("block {b} differs from the directory"),
                        ));
                    }
                }
            }
            let mut fp = (0u64, 0u64);
            for b in 0..pi.blocks.len() {
                let block = self.perm_block(p, b, pi.blocks.len(), self.inner.opts.readahead)?;
                if let (Some(last), Some(next)) = (block.last(), pi.blocks.get(b + 1)) {
                    if *last >= next.first {
                        return Err(Error::corrupt(
                            name,
                            sec.name(),
                            format!("block {b} overlaps the next one"),
                        ));
                    }
                }
                for k in block.iter() {
                    if k[..3].iter().any(|&v| v == 0 || v > terms) || k[3] > terms {
                        return Err(Error::corrupt(
                            name,
                            sec.name(),
                            format!("id out of range in block {b}"),
                        ));
                    }
                    let q = p.from_key(k);
                    let h = xxh3_64(&q.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
                    fp.0 = fp.0.wrapping_add(h);
                    fp.1 ^= h.rotate_left(17);
                }
                report.blocks += 1;
            }
            fingerprints.push(fp);
        }
        if fingerprints.windows(2).any(|w| w[0] != w[1]) {
            return Err(Error::corrupt(
                name,
                "permutations",
                "the six permutations do not hold the same quads",
            ));
        }
        report.quads = self.inner.header.quads;
        report.terms = terms;
        Ok(report)
    }

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
            let span = |v: &[SectionEntry]| {
                let start = v.iter().map(|e| e.offset).min().unwrap_or(0);
                let end = v.iter().map(|e| e.offset + e.len).max().unwrap_or(0);
                (start, end - start)
            };
            if !self.lazy(&dirs) {
                let (s, l) = span(&dirs);
                fetch(s, l);
            } else if tables.len() == 7 {
                let (s, l) = span(&tables);
                fetch(s, l);
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

    /// Fetches ahead what scanning each of `patterns` reads: the directory pages their ranges
    /// visit, then their blocks not cached yet, in two batched reads
    /// ([`RangeReader::read_many`], which a remote reader turns into a few requests in flight at
    /// once) instead of a round trip per page and per block. Worth it on a remote file before
    /// many small scans (the links of a community's thousand members); a local file is read as
    /// the scans go (the OS reads ahead), so nothing is done there. Blocks beyond a quarter of
    /// the block cache are left to the scans, which would otherwise evict what was fetched.
    /// Returns the number of blocks fetched.
    pub fn prefetch(&self, patterns: &[Pattern]) -> Result<usize> {
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
                    let fallback = self.dir_reader(index);
                    let read = |offset: u64, len: usize| {
                        if (offset, len) == (o, l) {
                            Ok(frame.clone())
                        } else {
                            fallback(offset, len)
                        }
                    };
                    d.page(p, &read, &self.inner.name)?;
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
            for b in first..end {
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

    /// Decodes block `b` of permutation `p` from its stored bytes and caches it.
    fn cache_perm_block(
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

/// Readahead of a scan: its first fetch is one block (a scan may stop after one quad, which over
/// HTTP should cost one small request), then 64 KiB, doubling up to `max`.
fn next_readahead(cur: usize, max: usize) -> usize {
    if cur == 0 {
        (64 << 10).min(max)
    } else {
        cur.saturating_mul(2).min(max)
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

/// What [`Rete::verify`] checked.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerifyReport {
    /// Sections whose checksum was verified.
    pub sections: u64,
    /// Blocks decoded and checked.
    pub blocks: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Quads checked.
    pub quads: u64,
    /// Terms checked.
    pub terms: u64,
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
                        self.pos = b.partition_point(|k| *k < self.lo);
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
