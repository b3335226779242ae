//! Opening and querying a `.rete` through any [`RangeReader`].
//!
//! Opening reads one prefix of the file (header, section directory and whatever small sections
//! the writer placed right after it, such as the schema block). The block directories are fetched
//! together, in one read, the first time a pattern or term is needed; over HTTP, a file whose
//! directories are large fetches their page tables instead and then only the directory pages its
//! lookups visit (see [`crate::paged`]). Blocks are decompressed on demand into a byte-bounded LRU
//! cache shared by every query on the file.

mod cache;
mod cost;
mod directory;
mod lookup;
mod prefetch;
mod scan;
mod verify;

pub use cache::MemoryUse;
pub use cost::Cost;
pub use scan::{NearBlocks, QuadIter};
pub use verify::VerifyReport;

use crate::budget::{default_decode_budget, Charge, DecodeBudget};
use crate::card::Card;
use crate::error::{Error, Result};
use crate::format::{
    check_declared, kind, section_name, zstd_decode, Codec, Header, SectionEntry, HEADER_LEN, MAGIC,
};
use crate::range::{FileReader, RangeReader};
use cache::Cache;
use directory::Indexes;
use lru::LruCache;
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
    /// Bytes the document may hold decoded in the sections it keeps (directories, page tables,
    /// card, and those of the extension readers opened on it: schema, pyramid top and directory,
    /// search meta); `None`: [`default_decode_budget`] of the file's length. See
    /// [`DecodeBudget`]. The block caches are bounded apart, by their own byte limits.
    pub decode_budget: Option<u64>,
}

impl Default for ReteOptions {
    fn default() -> Self {
        Self {
            cache_bytes: 256 << 20,
            prefetch: 8 << 10,
            readahead: 1 << 20,
            lazy_directories: None,
            lazy_directories_above: 64 << 10,
            decode_budget: None,
        }
    }
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
    budget: Arc<DecodeBudget>,
    /// Charges of what the reader keeps for the document's lifetime (directories, card).
    kept: Mutex<Vec<Charge>>,
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
        let budget = DecodeBudget::new(
            name.clone(),
            opts.decode_budget
                .unwrap_or_else(|| default_decode_budget(len)),
        );
        Ok(Self {
            inner: Arc::new(Inner {
                budget,
                kept: Mutex::new(Vec::new()),
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
    /// such section. Meant for small sections (card, schema, pyramid directories). Its decoded
    /// length is charged to the document's decode budget while it is decoded; a reader keeping
    /// what it builds from it uses [`Rete::kept_section`] instead.
    pub fn section_payload(&self, kind: u16, index: u16) -> Result<Option<Vec<u8>>> {
        Ok(self.kept_section(kind, index)?.map(|(payload, _)| payload))
    }

    /// [`Rete::section_payload`] with the charge of its decoded length to the document's
    /// [`DecodeBudget`], taken before it is decoded: hold it as long as what is built from the
    /// payload (the payload's bytes then stand for the strings and lists built from them; grow
    /// it by the size of the items a decoder makes, [`Charge::grow`]).
    pub fn kept_section(&self, kind: u16, index: u16) -> Result<Option<(Vec<u8>, Charge)>> {
        let Some(e) = self.section(kind, index).copied() else {
            return Ok(None);
        };
        let charge = self.charge_section(&e)?;
        let stored = self.read_bytes(e.offset, self.usize_len(&e)?)?;
        Ok(Some((self.decode_section(&e, &stored)?, charge)))
    }

    /// Charges the decoded length of section `e` to the document's decode budget, once the
    /// section's own rules (size, zstd ratio) hold: a section they refuse is reported as such.
    pub(crate) fn charge_section(&self, e: &SectionEntry) -> Result<Charge> {
        if e.codec == Codec::Zstd {
            check_declared(e.len, e.raw_len, &self.inner.name, &|| e.name())?;
        }
        self.inner.budget.charge(&e.name(), e.raw_len)
    }

    /// The document's decode budget, shared by its extension readers (see [`DecodeBudget`]).
    pub fn decode_budget(&self) -> &Arc<DecodeBudget> {
        &self.inner.budget
    }

    /// Keeps `charge` for the document's lifetime (what it stands for is never dropped).
    pub(crate) fn keep(&self, charge: Charge) {
        self.inner
            .kept
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(charge);
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
        let (bytes, charge) = self.kept_section(kind::CARD, 0)?.unwrap_or_default();
        let card: Card = serde_json::from_slice(&bytes)
            .map_err(|e| Error::corrupt(&self.inner.name, "card", format!("invalid JSON: {e}")))?;
        self.keep(charge);
        let _ = self.inner.card.set(card);
        self.inner
            .card
            .get()
            .ok_or_else(|| Error::corrupt(&self.inner.name, "card", "unavailable"))
    }
}
