//! Reading the search index lazily: the meta section (with the token block directory) at open,
//! then only the token blocks, posting chunks and document blocks a query touches, each checked
//! against its checksum and decoded with every count bounded by the bytes that hold it.

use crate::codec::{
    decode_block, kind, section_name, BlockRef, DOC_DIR_ENTRY, META_MAGIC, VERSION, VERSION_1,
    VERSION_3,
};
use crate::{Kind, SearchError, FLAG_SEARCH, MAX_CLASSES};
use lru::LruCache;
use rete_core::format::varint;
use rete_core::section::SectionReader;
use rete_core::{Charge, Id, Rete};
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

mod tokens;

pub(crate) use tokens::{Part, PostingList, Postings, Token, TokenRef};

/// Decoded blocks kept per open index: a one-letter prefix can touch hundreds of tokens, each
/// with a posting chunk of its own (at most 32 KiB decoded as written).
const CACHE_BLOCKS: usize = 2048;
/// Decoded bytes kept per open index: past them the least recently used blocks are dropped (the
/// one just read stays). A block's decoded size is the file's to declare, so the entry count
/// alone bounds nothing.
const CACHE_BYTES: usize = 64 << 20;
/// Document directory entries read at once (6 KiB).
const DIR_CHUNK: u64 = 256;

/// Stored bytes that a remote open reads in one request at most.
const PREFETCH_BYTES: u64 = 64 << 10;
/// The most stored bytes of one section that a remote open fetches on its own (a large file's
/// pyramid directory: 224 KiB at 100 M triples).
const PREFETCH_APART: u64 = 256 << 10;
/// The most stored bytes of the sections that stand before a first search's postings (the token
/// blocks, the dictionary's and the documents' directories) that a remote open fetches whole:
/// 402 KiB at 100 M triples, where they save a first search three round trips.
const PREFETCH_CHAIN: u64 = 512 << 10;

/// On a remote file, reads the meta, the document directory and the token blocks in one request
/// when they lie next to each other and are small (how `build_sections` writes them): the reader's
/// range cache then answers the first keystroke's token block and directory page. The same
/// request takes the sections on either side while the whole stays within [`PREFETCH_BYTES`]:
/// the pyramid's membership blocks just before (every entity hit's community path reads one) and
/// the posting chunks just after (every keystroke reads some). In the same batch, when they lie
/// together within [`PREFETCH_BYTES`] beyond the open's first bytes: the file's block
/// directories (the hits' dictionary blocks are found through them) and the pyramid's top and
/// block directory, which follow them (the hits' community paths). When these do not fit, the
/// sections every first search reads wherever they lie, each up to [`PREFETCH_APART`]: the meta,
/// the block directories' page tables, the pyramid's top and block directory (a multi-range
/// request takes them all at once). The token blocks and the two directories a first search
/// reads come whole within [`PREFETCH_CHAIN`], a dictionary within [`PREFETCH_BYTES`], and the
/// first [`PREFETCH_BYTES`] of the document blocks (the documents ranked first).
fn prefetch_small_sections(rete: &Rete) -> Result<(), SearchError> {
    if !rete.reader().is_remote() {
        return Ok(());
    }
    let mut spans: Vec<(u64, usize)> = Vec::new();
    let range = |k: u16| rete.section(k, 0).map(|e| (e.offset, e.offset + e.len));
    let dirs = range(rete_core::format::kind::DICT_INDEX).map(|r| r.0);
    let pyramid = range(rete_pyramid::kind::DIRECTORY).map(|r| r.1);
    if let (Some(start), Some(end)) = (dirs, pyramid) {
        if start < end && end - start <= PREFETCH_BYTES {
            spans.push((start, (end - start) as usize));
        }
    }
    let mut parts: Vec<(u64, u64)> = [kind::META, kind::DOC_DIR, kind::TOKENS]
        .iter()
        .filter_map(|&k| range(k))
        .collect();
    parts.sort_unstable();
    if let (Some(&(mut start, _)), Some(&(_, mut end))) = (parts.first(), parts.last()) {
        let adjacent = parts.windows(2).all(|w| w[0].1 == w[1].0);
        if parts.len() == 3 && adjacent && end - start <= PREFETCH_BYTES {
            let before = range(rete_pyramid::kind::MEMBERSHIP).filter(|r| r.1 == start);
            if let Some(r) = before.filter(|r| end - r.0 <= PREFETCH_BYTES) {
                start = r.0;
            }
            let after = range(kind::POSTINGS).filter(|r| r.0 == end);
            if let Some(r) = after.filter(|r| r.1 - start <= PREFETCH_BYTES) {
                end = r.1;
            }
            spans.push((start, (end - start) as usize));
        }
    }
    let page_tables = std::iter::once((rete_core::format::kind::DICT_PAGES, 0))
        .chain((0..6).map(|p| (rete_core::format::kind::PERM_PAGES, p)));
    let each = [
        (kind::META, 0),
        (rete_pyramid::kind::TOP, 0),
        (rete_pyramid::kind::DIRECTORY, 0),
        // The dictionary blocks' zstd dictionary (format 1.2): the first hit's terms need it.
        (rete_core::format::kind::DICT_ZSTD, 0),
    ];
    for (k, i) in each.into_iter().chain(page_tables) {
        if let Some(e) = rete.section(k, i) {
            let (start, end) = (e.offset, e.offset + e.len);
            let inside = spans
                .iter()
                .any(|&(o, l)| o <= start && end <= o + l as u64);
            if !inside && e.len <= PREFETCH_APART {
                spans.push((start, e.len as usize));
            }
        }
    }
    // What a first search would otherwise read one after another before its postings and after
    // them: the token blocks, the document directory and the dictionary's directory.
    let chain = [
        (kind::TOKENS, 0),
        (kind::DOC_DIR, 0),
        (rete_core::format::kind::DICT_INDEX, 0),
    ]
    .map(|(k, i)| rete.section(k, i));
    if chain.iter().flatten().map(|e| e.len).sum::<u64>() <= PREFETCH_CHAIN {
        for e in chain.iter().flatten() {
            let (start, end) = (e.offset, e.offset + e.len);
            if !spans
                .iter()
                .any(|&(o, l)| o <= start && end <= o + l as u64)
            {
                spans.push((start, e.len as usize));
            }
        }
    }
    // The first document blocks: the documents ranked first are the likeliest hits of any
    // query, so a later keystroke whose candidates lie among them reads no document block
    // between its postings and its hits' terms. All of them when they are few (a vocabulary's
    // 51,000 labels: 137 KB): then no keystroke reads one.
    if let Some(e) = rete.section(kind::DOCS, 0) {
        let len = if e.len <= PREFETCH_APART {
            e.len
        } else {
            e.len.min(PREFETCH_BYTES)
        };
        spans.push((e.offset, len as usize));
    }
    // A small file's whole dictionary: the map's first labels and the hits' terms read from it.
    if let Some(e) = rete.section(rete_core::format::kind::DICT_BLOCKS, 0) {
        if e.len <= PREFETCH_BYTES {
            spans.push((e.offset, e.len as usize));
        }
    }
    spans.sort_unstable();
    rete.reader()
        .read_many(&spans)
        .map_err(rete_core::Error::from)?;
    Ok(())
}

/// One indexed label.
#[derive(Debug, Clone)]
pub(crate) struct DocRec {
    pub term: Id,
    pub kind: Kind,
    /// 0: none, else index + 1 into the language table.
    pub lang: u32,
    /// Index into the label predicates; their count for a local name.
    pub pred: u32,
    /// Shared by the documents of a block with the same classes (a clone copies no list).
    pub classes: Arc<[Id]>,
    pub label: Label,
}

/// Where a document's label text is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Label {
    /// Held by the document (version 1, and the label scan).
    Text(String),
    /// The literal with this dictionary id: read only for the hits shown.
    Literal(Id),
    /// The local name of the term's IRI.
    LocalName,
}

/// Decoded blocks by (section kind, key), with their weights in bytes.
type BlockCache = LruCache<(u16, u64), (Cached, usize)>;

#[derive(Debug, Clone)]
enum Cached {
    Tokens(Arc<Vec<Token>>),
    Postings(PostingList),
    Docs(Arc<Vec<DocRec>>),
    Dir(Arc<Vec<u8>>),
}

/// The search index of an open `.rete` file. Cheap to clone; safe to share between threads.
#[derive(Debug, Clone)]
pub struct Index {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    rete: Rete,
    version: u8,
    docs: u64,
    tokens: u64,
    docs_per_block: u64,
    predicates: Vec<String>,
    languages: Vec<String>,
    /// First token of each token block, with the block.
    dir: Vec<(String, BlockRef)>,
    postings_len: u64,
    doc_blocks: u64,
    /// Decoded blocks with their weights (bytes), and the sum of the weights.
    cache: Mutex<(BlockCache, usize)>,
    /// The meta section's charge to the document's decode budget.
    _charge: Charge,
}

impl Index {
    /// Opens the index of `rete` with one read (the meta section); `None` if the file has none.
    pub fn open(rete: &Rete) -> Result<Option<Index>, SearchError> {
        let name = rete.name().to_owned();
        prefetch_small_sections(rete)?;
        let Some((bytes, mut charge)) = rete.kept_section(kind::META, 0)? else {
            if rete.header().flags & FLAG_SEARCH != 0 {
                return Err(SearchError::corrupt(
                    &name,
                    "search meta",
                    "the header announces a search index but its section is missing",
                ));
            }
            return Ok(None);
        };
        let len_of = |k: u16| {
            rete.section(k, 0)
                .map(|e| e.len)
                .ok_or_else(|| SearchError::corrupt(&name, section_name(k), "section is missing"))
        };
        let tokens_len = len_of(kind::TOKENS)?;
        let postings_len = len_of(kind::POSTINGS)?;
        let docs_len = len_of(kind::DOCS)?;
        let dir_len = len_of(kind::DOC_DIR)?;
        let mut r = SectionReader::new(&bytes, &name, "search meta");
        if r.bytes(4)? != META_MAGIC {
            return Err(r.err("bad magic"));
        }
        let version = r.u8()?;
        if !(VERSION_1..=VERSION).contains(&version) {
            return Err(r.err(format!(
                "search encoding version {version} (this reader reads {VERSION_1} to {VERSION})"
            )));
        }
        let docs = r.varint()?;
        let tokens = r.varint()?;
        let docs_per_block = r.varint()?;
        if docs_per_block == 0 || docs > u64::from(u32::MAX) {
            return Err(r.err("implausible document counts"));
        }
        // The names and the token block directory are charged before they are made (a string
        // takes at least one byte, a directory entry twelve).
        let strings = |r: &SectionReader<'_>| r.next_count(1) * size_of::<String>() as u64;
        charge.grow("search meta", strings(&r))?;
        let np = r.count(1)?;
        let predicates = (0..np)
            .map(|_| Ok(r.str()?.to_owned()))
            .collect::<Result<Vec<_>, SearchError>>()?;
        charge.grow("search meta", strings(&r))?;
        let nl = r.count(1)?;
        let languages = (0..nl)
            .map(|_| Ok(r.str()?.to_owned()))
            .collect::<Result<Vec<_>, SearchError>>()?;
        charge.grow(
            "search meta",
            r.next_count(12) * size_of::<(String, BlockRef)>() as u64,
        )?;
        let nb = r.count(12)?;
        let mut dir: Vec<(String, BlockRef)> = Vec::with_capacity(nb);
        for _ in 0..nb {
            let first = r.str()?.to_owned();
            let b = BlockRef::read(&mut r, tokens_len)?;
            if dir.last().is_some_and(|(p, _)| *p >= first) {
                return Err(r.err("token blocks out of order"));
            }
            dir.push((first, b));
        }
        r.expect_end()?;
        if tokens < nb as u64 {
            return Err(SearchError::corrupt(
                &name,
                "search meta",
                format!("{tokens} tokens cannot fill {nb} token blocks"),
            ));
        }
        let doc_blocks = docs.div_ceil(docs_per_block);
        if doc_blocks.checked_mul(DOC_DIR_ENTRY as u64) != Some(dir_len) {
            return Err(SearchError::corrupt(
                &name,
                "search document directory",
                format!("{dir_len} bytes for {docs} documents"),
            ));
        }
        let _ = docs_len;
        Ok(Some(Index {
            inner: Arc::new(Inner {
                rete: rete.clone(),
                version,
                docs,
                tokens,
                docs_per_block,
                predicates,
                languages,
                dir,
                postings_len,
                doc_blocks,
                cache: Mutex::new((
                    LruCache::new(NonZeroUsize::new(CACHE_BLOCKS).unwrap_or(NonZeroUsize::MIN)),
                    0,
                )),
                _charge: charge,
            }),
        }))
    }

    /// The encoding version of the search sections (1 to 4, see docs/format.md).
    pub fn version(&self) -> u8 {
        self.inner.version
    }

    /// Whether the sections have the layout a build writes today (`add_index` replaces an
    /// older one).
    pub fn is_current(&self) -> bool {
        self.inner.version == VERSION
    }

    /// Whether the layout is one whose searches are much slower than today's (1 and 2 walk a
    /// query's lists whole), so that rewriting it is worth offering; layout 3 answers as fast,
    /// in a somewhat larger file.
    pub fn is_outdated(&self) -> bool {
        self.inner.version < VERSION_3
    }

    /// Indexed labels (documents).
    pub fn documents(&self) -> u64 {
        self.inner.docs
    }

    /// Distinct tokens.
    pub fn tokens(&self) -> u64 {
        self.inner.tokens
    }

    /// The label predicates the index was built with.
    pub fn label_predicates(&self) -> &[String] {
        &self.inner.predicates
    }

    /// Language tags of the indexed labels.
    pub fn languages(&self) -> &[String] {
        &self.inner.languages
    }

    fn name(&self) -> &str {
        self.inner.rete.name()
    }

    pub(crate) fn block_count(&self) -> usize {
        self.inner.dir.len()
    }

    /// First token of token block `b`.
    pub(crate) fn block_first(&self, b: usize) -> &str {
        &self.inner.dir[b].0
    }

    /// The token block whose range holds `word` (the last block starting at or before it).
    pub(crate) fn block_of(&self, word: &str) -> usize {
        self.inner
            .dir
            .partition_point(|(f, _)| f.as_str() <= word)
            .saturating_sub(1)
    }

    fn cached(&self, key: (u16, u64)) -> Option<Cached> {
        let mut c = self.inner.cache.lock().unwrap_or_else(|p| p.into_inner());
        c.0.get(&key).map(|(v, _)| v.clone())
    }

    /// Caches `v`, which holds `weight` decoded bytes; drops the least recently used blocks past
    /// [`CACHE_BLOCKS`] or [`CACHE_BYTES`].
    fn store(&self, key: (u16, u64), v: Cached, weight: usize) {
        let mut guard = self.inner.cache.lock().unwrap_or_else(|p| p.into_inner());
        let (lru, bytes) = &mut *guard;
        if let Some((_, (_, old))) = lru.push(key, (v, weight)) {
            *bytes -= old;
        }
        *bytes += weight;
        while *bytes > CACHE_BYTES && lru.len() > 1 {
            match lru.pop_lru() {
                Some((_, (_, old))) => *bytes -= old,
                None => break,
            }
        }
    }

    /// Reads the stored bytes of `refs` (of section `k`), one range read when they are nearly
    /// contiguous, which is how consecutive tokens' chunks are written. The bytes read between
    /// them are bounded by what a remote reader would coalesce anyway (16 KiB past their own):
    /// the chunks of two words far apart are two ranges of one batch, not one range holding
    /// everything between them.
    fn read_blocks(&self, k: u16, refs: &[BlockRef]) -> Result<Vec<Vec<u8>>, SearchError> {
        let Some(start) = refs.iter().map(|b| b.offset).min() else {
            return Ok(Vec::new());
        };
        let end = refs.iter().map(|b| b.offset + b.len).max().unwrap_or(start);
        let total: u64 = refs.iter().map(|b| b.len).sum();
        let too_large = || SearchError::corrupt(self.name(), section_name(k), "range too large");
        let mut out = Vec::with_capacity(refs.len());
        if end - start <= total.saturating_mul(2) + (16 << 10) {
            let span = self.inner.rete.section_range(
                k,
                0,
                start,
                usize::try_from(end - start).map_err(|_| too_large())?,
            )?;
            for b in refs {
                let from = (b.offset - start) as usize;
                let stored = &span[from..from + b.len as usize];
                out.push(decode_block(b, stored, self.name(), k)?);
            }
        } else {
            // Apart: one batch, which a remote reader fetches with requests in flight together.
            let base = self
                .inner
                .rete
                .section(k, 0)
                .map(|e| e.offset)
                .ok_or_else(|| SearchError::corrupt(self.name(), section_name(k), "missing"))?;
            let ranges = refs
                .iter()
                .map(|b| {
                    Ok((
                        base + b.offset,
                        usize::try_from(b.len).map_err(|_| too_large())?,
                    ))
                })
                .collect::<Result<Vec<_>, SearchError>>()?;
            let stored = self
                .inner
                .rete
                .reader()
                .read_many(&ranges)
                .map_err(rete_core::Error::from)?;
            for (b, stored) in refs.iter().zip(stored) {
                out.push(decode_block(b, &stored, self.name(), k)?);
            }
        }
        Ok(out)
    }

    /// Whether the file is read over HTTP (where reads are batched ahead).
    pub(crate) fn is_remote(&self) -> bool {
        self.inner.rete.reader().is_remote()
    }

    /// Document `n`, through `held`: the block of the document before, kept by the caller (a
    /// query's candidates often share blocks; the cache is not asked again for them).
    pub(crate) fn doc_held(
        &self,
        n: u32,
        held: &mut Option<(u64, Arc<Vec<DocRec>>)>,
    ) -> Result<DocRec, SearchError> {
        let n = u64::from(n);
        let b = n / self.inner.docs_per_block;
        let docs = match held {
            Some((hb, d)) if *hb == b => d,
            _ => &mut held.insert((b, self.doc_block(b)?)).1,
        };
        docs.get((n % self.inner.docs_per_block) as usize)
            .cloned()
            .ok_or_else(|| {
                SearchError::corrupt(
                    self.name(),
                    "search documents",
                    format!("document {n} missing"),
                )
            })
    }

    fn doc_block(&self, b: u64) -> Result<Arc<Vec<DocRec>>, SearchError> {
        if let Some(Cached::Docs(d)) = self.cached((kind::DOCS, b)) {
            return Ok(d);
        }
        self.load_doc_blocks(&[b])?;
        match self.cached((kind::DOCS, b)) {
            Some(Cached::Docs(d)) => Ok(d),
            _ => Err(SearchError::Internal(format!(
                "document block {b} not kept"
            ))),
        }
    }

    /// Reads the document blocks holding `docs` that are not cached, together (the candidates
    /// a query will examine first: one request on a remote file when their blocks lie close).
    pub(crate) fn prefetch_docs(&self, docs: &[u32]) -> Result<(), SearchError> {
        let mut blocks: Vec<u64> = docs
            .iter()
            .map(|&d| u64::from(d) / self.inner.docs_per_block)
            .collect();
        blocks.sort_unstable();
        blocks.dedup();
        blocks.retain(|&b| !matches!(self.cached((kind::DOCS, b)), Some(Cached::Docs(_))));
        self.load_doc_blocks(&blocks)
    }

    fn load_doc_blocks(&self, blocks: &[u64]) -> Result<(), SearchError> {
        let refs = blocks
            .iter()
            .map(|&b| self.doc_block_ref(b))
            .collect::<Result<Vec<_>, _>>()?;
        for (&b, raw) in blocks.iter().zip(self.read_blocks(kind::DOCS, &refs)?) {
            let expect =
                (self.inner.docs - b * self.inner.docs_per_block).min(self.inner.docs_per_block);
            let docs = Arc::new(self.parse_docs(&raw, expect)?);
            let weight = raw.len() + docs.len() * size_of::<DocRec>();
            self.store((kind::DOCS, b), Cached::Docs(docs), weight);
        }
        Ok(())
    }

    /// Where document block `b` lies, from its directory page.
    fn doc_block_ref(&self, b: u64) -> Result<BlockRef, SearchError> {
        if b >= self.inner.doc_blocks {
            return Err(SearchError::Internal(format!(
                "document block {b} out of range"
            )));
        }
        let chunk = b / DIR_CHUNK;
        let dir = match self.cached((kind::DOC_DIR, chunk)) {
            Some(Cached::Dir(d)) => d,
            _ => {
                let from = chunk * DIR_CHUNK;
                let n = (self.inner.doc_blocks - from).min(DIR_CHUNK) as usize;
                let bytes = Arc::new(self.inner.rete.section_range(
                    kind::DOC_DIR,
                    0,
                    from * DOC_DIR_ENTRY as u64,
                    n * DOC_DIR_ENTRY,
                )?);
                self.store(
                    (kind::DOC_DIR, chunk),
                    Cached::Dir(bytes.clone()),
                    bytes.len(),
                );
                bytes
            }
        };
        let at = ((b % DIR_CHUNK) as usize) * DOC_DIR_ENTRY;
        let e = dir.get(at..at + DOC_DIR_ENTRY).ok_or_else(|| {
            SearchError::corrupt(self.name(), "search document directory", "entry missing")
        })?;
        let le = |r: std::ops::Range<usize>| {
            let mut a = [0u8; 8];
            a[..r.len()].copy_from_slice(&e[r]);
            u64::from_le_bytes(a)
        };
        let docs_len = self.inner.rete.section(kind::DOCS, 0).map_or(0, |s| s.len);
        BlockRef::checked(le(0..8), le(8..12), le(12..16), le(16..24), docs_len)
            .map_err(|m| SearchError::corrupt(self.name(), "search document directory", m))
    }

    fn parse_docs(&self, raw: &[u8], n: u64) -> Result<Vec<DocRec>, SearchError> {
        let mut r = SectionReader::new(raw, self.name(), "search documents");
        let out = if self.inner.version == VERSION_1 {
            self.parse_docs_v1(&mut r, n)?
        } else {
            self.parse_docs_v2(&mut r, n)?
        };
        r.expect_end()?;
        Ok(out)
    }

    /// A term id of this file, checked.
    fn term_id(&self, r: &SectionReader<'_>, term: u64) -> Result<Id, SearchError> {
        if term == 0 || term > self.inner.rete.term_count() {
            return Err(r.err(format!("term {term} out of range")));
        }
        Ok(term)
    }

    fn parse_docs_v1(&self, r: &mut SectionReader<'_>, n: u64) -> Result<Vec<DocRec>, SearchError> {
        let n = r.count_items(n)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let term = r.varint()?;
            let term = self.term_id(r, term)?;
            let kind = Kind::from_u8(r.u8()?).ok_or_else(|| r.err::<SearchError>("bad kind"))?;
            let lang = r.below(self.inner.languages.len() as u64 + 1, "language")? as u32;
            let pred = r.below(self.inner.predicates.len() as u64 + 1, "label predicate")? as u32;
            let nc = r.count(1)?;
            if nc > MAX_CLASSES {
                return Err(r.err(format!("{nc} classes")));
            }
            let classes = (0..nc)
                .map(|_| r.varint())
                .collect::<Result<Arc<[Id]>, _>>()?;
            let label = Label::Text(r.str()?.to_owned());
            out.push(DocRec {
                term,
                kind,
                lang,
                pred,
                classes,
                label,
            });
        }
        Ok(out)
    }

    /// Version 2: the columns terms, kinds, languages, predicates, class lists, labels.
    fn parse_docs_v2(&self, r: &mut SectionReader<'_>, n: u64) -> Result<Vec<DocRec>, SearchError> {
        // Every document takes at least four bytes (term, kind, language, predicate).
        let n = r.count_items(n.saturating_mul(4))? / 4;
        let mut terms = Vec::with_capacity(n);
        let mut prev = 0u64;
        for _ in 0..n {
            let z = r.varint()?;
            let term = prev.wrapping_add(varint::unzigzag(z) as u64);
            terms.push(self.term_id(r, term)?);
            prev = term;
        }
        let mut kinds = Vec::with_capacity(n);
        for _ in 0..n {
            kinds.push(Kind::from_u8(r.u8()?).ok_or_else(|| r.err::<SearchError>("bad kind"))?);
        }
        let mut langs = Vec::with_capacity(n);
        for _ in 0..n {
            langs.push(r.below(self.inner.languages.len() as u64 + 1, "language")? as u32);
        }
        let local = self.inner.predicates.len() as u64;
        let mut preds = Vec::with_capacity(n);
        for _ in 0..n {
            preds.push(r.below(local + 1, "label predicate")? as u32);
        }
        let nl = r.count(1)?;
        let mut lists: Vec<Arc<[Id]>> = Vec::with_capacity(nl);
        for _ in 0..nl {
            let nc = r.count(1)?;
            if nc > MAX_CLASSES {
                return Err(r.err(format!("{nc} classes")));
            }
            let cs = (0..nc)
                .map(|_| {
                    let c = r.varint()?;
                    self.term_id(r, c)
                })
                .collect::<Result<Arc<[Id]>, SearchError>>()?;
            lists.push(cs);
        }
        let none: Arc<[Id]> = Arc::new([]);
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let l = r.below(nl as u64 + 1, "class list")? as usize;
            out.push(DocRec {
                term: terms[k],
                kind: kinds[k],
                lang: langs[k],
                pred: preds[k],
                classes: l
                    .checked_sub(1)
                    .map_or_else(|| none.clone(), |l| lists[l].clone()),
                label: Label::LocalName,
            });
        }
        let base = r.varint()?;
        for d in out.iter_mut().filter(|d| u64::from(d.pred) != local) {
            let lit = base.saturating_add(r.varint()?);
            d.label = Label::Literal(self.term_id(r, lit)?);
        }
        Ok(out)
    }
}
