//! Opening and querying a `.rete` through any [`RangeReader`].
//!
//! Opening reads one prefix of the file (header, section directory and whatever small sections
//! the writer placed right after it, such as the schema block). The block directories are fetched
//! together, in one read, the first time a pattern or term is needed. Blocks are decompressed on
//! demand into a byte-bounded LRU cache shared by every query on the file.

use crate::card::Card;
use crate::dict::{self, DictBlock, DictIndex};
use crate::error::{Error, Result};
use crate::format::{
    kind, section_name, zstd_decode, Codec, Header, SectionEntry, HEADER_LEN, MAGIC,
};
use crate::perm::{self, PermIndex};
use crate::range::{FileReader, RangeReader};
use crate::{term, GraphMatch, Id, IdQuad, Pattern, Perm, DEFAULT_GRAPH};
use lru::LruCache;
use oxrdf::{GraphName, GraphNameRef, Term, TermRef};
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
}

impl Default for ReteOptions {
    fn default() -> Self {
        Self {
            cache_bytes: 256 << 20,
            prefetch: 8 << 10,
            readahead: 1 << 20,
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

#[derive(Debug)]
struct Indexes {
    dict: DictIndex,
    dict_blocks: SectionEntry,
    perms: Vec<(PermIndex, SectionEntry)>,
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

    /// Fetches every block directory in one read (the writer lays them out contiguously).
    fn load_indexes(&self) -> Result<Indexes> {
        let name = &self.inner.name;
        let wanted: Vec<SectionEntry> = self
            .inner
            .sections
            .iter()
            .filter(|e| e.kind == kind::DICT_INDEX || e.kind == kind::PERM_INDEX)
            .copied()
            .collect();
        let start = wanted.iter().map(|e| e.offset).min().unwrap_or(0);
        let end = wanted.iter().map(|e| e.offset + e.len).max().unwrap_or(0);
        let total: u64 = wanted.iter().map(|e| e.len).sum();
        let span = if end - start <= total.saturating_mul(2) + 4096 {
            Some((
                start,
                self.read_bytes(
                    start,
                    usize::try_from(end - start)
                        .map_err(|_| Error::corrupt(name, "index", "too large"))?,
                )?,
            ))
        } else {
            None
        };
        let payload = |e: &SectionEntry| -> Result<Vec<u8>> {
            let stored = match &span {
                Some((s, bytes)) => {
                    bytes[(e.offset - s) as usize..(e.offset - s + e.len) as usize].to_vec()
                }
                None => self.read_bytes(e.offset, self.usize_len(e)?)?,
            };
            self.decode_section(e, &stored)
        };
        let find = |k: u16, i: u16| {
            self.section(k, i).copied().ok_or_else(|| {
                Error::corrupt(name, section_name(k, i), "required section is missing")
            })
        };
        let dict_blocks = find(kind::DICT_BLOCKS, 0)?;
        let dict = DictIndex::decode(
            &payload(&find(kind::DICT_INDEX, 0)?)?,
            self.inner.header.terms,
            dict_blocks.len,
            name,
        )?;
        let mut perms = Vec::with_capacity(6);
        for p in Perm::ALL {
            let i = p as u16;
            let blocks = find(kind::PERM_BLOCKS, i)?;
            let idx = find(kind::PERM_INDEX, i)?;
            let pi = PermIndex::decode(&payload(&idx)?, blocks.len, &idx.name(), name)?;
            if pi.total != self.inner.header.quads {
                return Err(Error::corrupt(
                    name,
                    idx.name(),
                    format!(
                        "holds {} quads, header says {}",
                        pi.total, self.inner.header.quads
                    ),
                ));
            }
            perms.push((pi, blocks));
        }
        Ok(Indexes {
            dict,
            dict_blocks,
            perms,
        })
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.inner.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn dict_block(&self, i: usize) -> Result<Arc<DictBlock>> {
        let key = CacheKey::Dict(i as u32);
        if let Some(CacheVal::Dict(b)) = self.cache().get(&key) {
            return Ok(b);
        }
        let idx = self.indexes()?;
        let m = &idx.dict.blocks[i];
        let stored = self.read_bytes(idx.dict_blocks.offset + m.offset, m.stored_len as usize)?;
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
        let idx = self.indexes()?;
        let (pi, sec) = &idx.perms[p as usize];
        let mut j = i + 1;
        let mut bytes = u64::from(pi.blocks[i].stored_len);
        {
            let cache = self.cache();
            while j < end.min(pi.blocks.len())
                && bytes + u64::from(pi.blocks[j].stored_len) <= readahead as u64
                && !cache.contains(&CacheKey::Perm(p as u8, j as u32))
            {
                bytes += u64::from(pi.blocks[j].stored_len);
                j += 1;
            }
        }
        let start = pi.blocks[i].offset;
        let span = self.read_bytes(sec.offset + start, bytes as usize)?;
        let section = sec.name();
        let mut first = None;
        for (k, m) in pi.blocks[i..j].iter().enumerate() {
            let rel = (m.offset - start) as usize;
            let quads = Arc::new(perm::read_block(
                &span[rel..rel + m.stored_len as usize],
                m,
                &section,
                &self.inner.name,
            )?);
            let w = quads.len() * 32 + 64;
            self.cache().put(
                CacheKey::Perm(p as u8, (i + k) as u32),
                CacheVal::Perm(quads.clone()),
                w,
            );
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
        let idx = self.indexes()?;
        let b = idx.dict.block_of_id(id).ok_or_else(|| {
            Error::corrupt(
                &self.inner.name,
                "dictionary index",
                format!("no block holds id {id}"),
            )
        })?;
        Ok((b, idx.dict.blocks[b].first_id))
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
        let idx = self.indexes()?;
        let Some(b) = idx.dict.block_for_term(enc) else {
            return Ok(None);
        };
        let first = idx.dict.blocks[b].first_id;
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
        let idx = self.indexes()?;
        let pi = &idx.perms[perm as usize].0;
        let (first, end) = if pi.blocks.is_empty() {
            (0, 0)
        } else {
            (pi.first_block_for(&lo), pi.end_block_for(&hi))
        };
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
        })
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
        let idx = self.indexes()?;
        let pi = &idx.perms[perm as usize].0;
        if pi.blocks.is_empty() {
            return Ok(0);
        }
        let (first, end) = (pi.first_block_for(&lo), pi.end_block_for(&hi));
        let mut n = 0;
        for b in first..end {
            let m = &pi.blocks[b];
            let next_first = pi.blocks.get(b + 1).map(|x| x.first);
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
        let mut prev: Option<Vec<u8>> = None;
        for b in 0..idx.dict.blocks.len() {
            let block = self.dict_block(b)?;
            for i in 0..block.len() {
                let t = block.get(i).unwrap_or_default();
                term::decode(t).map_err(|err| {
                    Error::corrupt(
                        name,
                        "dictionary blocks",
                        format!("term {}: {err}", idx.dict.blocks[b].first_id + i as u64),
                    )
                })?;
                if let Some(p) = &prev {
                    if term::compare(p, t) != std::cmp::Ordering::Less {
                        return Err(Error::corrupt(
                            name,
                            "dictionary blocks",
                            format!(
                                "terms out of order at id {}",
                                idx.dict.blocks[b].first_id + i as u64
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
            let (pi, sec) = &idx.perms[p as usize];
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
    /// given what is cached now: the block directories if not loaded yet, plus every uncached
    /// block of the pattern's range, grouped like the scan's readahead. Exact for one pattern on
    /// a reader without its own cache; an upper bound otherwise.
    pub fn pattern_cost(&self, pattern: &Pattern) -> Result<Cost> {
        let mut cost = Cost::default();
        if self.inner.indexes.get().is_none() {
            let idx: Vec<&SectionEntry> = self
                .inner
                .sections
                .iter()
                .filter(|e| e.kind == kind::DICT_INDEX || e.kind == kind::PERM_INDEX)
                .collect();
            let start = idx.iter().map(|e| e.offset).min().unwrap_or(0);
            let end = idx.iter().map(|e| e.offset + e.len).max().unwrap_or(0);
            if end > self.inner.head.len() as u64 {
                cost.requests += 1;
                cost.bytes += end - start;
            }
        }
        let perm = Perm::for_bound(
            pattern.s.is_some(),
            pattern.p.is_some(),
            pattern.o.is_some(),
        );
        let (lo, hi) = Self::bounds(perm, pattern);
        let idx = self.indexes()?;
        let pi = &idx.perms[perm as usize].0;
        if pi.blocks.is_empty() {
            return Ok(cost);
        }
        let (first, end) = (pi.first_block_for(&lo), pi.end_block_for(&hi));
        let cache = self.cache();
        let mut b = first;
        let mut ahead = 0;
        while b < end {
            if cache.contains(&CacheKey::Perm(perm as u8, b as u32)) {
                b += 1;
                continue;
            }
            let mut bytes = u64::from(pi.blocks[b].stored_len);
            let mut j = b + 1;
            while j < end
                && bytes + u64::from(pi.blocks[j].stored_len) <= ahead as u64
                && !cache.contains(&CacheKey::Perm(perm as u8, j as u32))
            {
                bytes += u64::from(pi.blocks[j].stored_len);
                j += 1;
            }
            ahead = next_readahead(ahead, self.inner.opts.readahead);
            // Spans inside the prefix read at open cost nothing more.
            let span_end = idx.perms[perm as usize].1.offset + pi.blocks[b].offset + bytes;
            if span_end > self.inner.head.len() as u64 {
                cost.requests += 1;
                cost.bytes += bytes;
            }
            cost.blocks += (j - b) as u64;
            b = j;
        }
        Ok(cost)
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
                let k = block[self.pos];
                self.pos += 1;
                if k > self.hi {
                    self.done = true;
                    return None;
                }
                if !self.filter.g.matches(k[3]) {
                    continue;
                }
                let q = self.perm.from_key(&k);
                let f = &self.filter;
                if f.s.is_some_and(|v| v != q[0])
                    || f.p.is_some_and(|v| v != q[1])
                    || f.o.is_some_and(|v| v != q[2])
                {
                    continue;
                }
                return Some(Ok(q));
            }
            self.cur = None;
            self.block += 1;
        }
        None
    }
}
