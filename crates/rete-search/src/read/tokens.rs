//! A token block and its tokens' postings: the block parsed with every count bounded by the
//! bytes that hold it, the posting chunks read (in batches over HTTP) and decoded as a walk
//! reaches them.
use super::{Cached, Index};
use crate::codec::{
    kind, BlockRef, CHUNK_POSTINGS, INLINE_POSTINGS, INLINE_POSTINGS_3, VERSION_1, VERSION_2,
    VERSION_3, VERSION_4,
};
use crate::SearchError;
use rete_core::format::varint;
use rete_core::front_coding::Expander;
use rete_core::section::SectionReader;
use std::sync::Arc;

/// One token of a token block.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub text: String,
    /// Documents in all.
    pub df: u64,
    /// Bit `n` set: some label of this token has `n` words (7: 7 or more). Version 3; all bits
    /// set before.
    pub word_counts: u8,
    /// Bit `k` set: the token is word `k` (from 0; 7: the eighth or later) of some label whose
    /// words are all different, or its place is not told (a local name's, a CJK label's, an
    /// inline list's, before version 5): all bits.
    pub places: u8,
    /// Version 3: the documents whose label is this one word, apart (a one-word query's
    /// whole-label tiers read only them, the other tiers only `rest`). Before, `None`: `rest`
    /// holds every document and the word counts tell them apart.
    pub ones: Option<Part>,
    pub rest: Part,
}

/// A token of a cached token block, shared with the block (a clone costs a reference count,
/// not a copy of the token's text and postings).
#[derive(Debug, Clone)]
pub(crate) struct TokenRef {
    block: Arc<Vec<Token>>,
    at: usize,
}

impl TokenRef {
    /// Token `at` of `block`, if it has one.
    pub(crate) fn new(block: &Arc<Vec<Token>>, at: usize) -> Option<Self> {
        (at < block.len()).then(|| Self {
            block: block.clone(),
            at,
        })
    }
}

impl std::ops::Deref for TokenRef {
    type Target = Token;
    fn deref(&self) -> &Token {
        // `new` checked the position, and the block never changes.
        &self.block[self.at]
    }
}

/// Some of a token's documents, increasing, with where they are.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub df: u64,
    pub postings: Postings,
}

/// Where a token's documents are.
#[derive(Debug, Clone)]
pub(crate) enum Postings {
    /// In the token block: `(document, label word count)`.
    Inline(PostingList),
    /// In posting chunks, in order.
    Chunks(Arc<[BlockRef]>),
}

/// A list of `(document, label word count)`, documents increasing.
pub(crate) type PostingList = Arc<Vec<(u32, u8)>>;

impl Index {
    /// The tokens of token block `b`.
    pub(crate) fn token_block(&self, b: usize) -> Result<Arc<Vec<Token>>, SearchError> {
        if let Some(Cached::Tokens(t)) = self.cached((kind::TOKENS, b as u64)) {
            return Ok(t);
        }
        self.load_token_blocks(&[b])?
            .pop()
            .ok_or_else(|| SearchError::Internal(format!("token block {b} not read")))
    }

    /// Reads token blocks `blocks` not cached yet in one batch (a compound word looks its
    /// pieces up in blocks across the dictionary: over HTTP, one request rather than one each).
    pub(crate) fn prefetch_token_blocks(&self, blocks: &[usize]) -> Result<(), SearchError> {
        let mut missing: Vec<usize> = blocks
            .iter()
            .copied()
            .filter(|&b| self.cached((kind::TOKENS, b as u64)).is_none())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        self.load_token_blocks(&missing).map(drop)
    }

    /// Reads, parses and caches token blocks `blocks` (one batch).
    fn load_token_blocks(&self, blocks: &[usize]) -> Result<Vec<Arc<Vec<Token>>>, SearchError> {
        let refs =
            blocks
                .iter()
                .map(|&b| {
                    self.inner.dir.get(b).map(|(_, r)| *r).ok_or_else(|| {
                        SearchError::Internal(format!("token block {b} out of range"))
                    })
                })
                .collect::<Result<Vec<BlockRef>, SearchError>>()?;
        let raws = self.read_blocks(kind::TOKENS, &refs)?;
        let mut out = Vec::with_capacity(blocks.len());
        for (&b, raw) in blocks.iter().zip(raws) {
            let first = &self.inner.dir[b].0;
            let next = self.inner.dir.get(b + 1).map(|(f, _)| f.as_str());
            let tokens = Arc::new(self.parse_tokens(&raw, first, next)?);
            let weight = raw.len() + tokens.len() * size_of::<Token>();
            self.store(
                (kind::TOKENS, b as u64),
                Cached::Tokens(tokens.clone()),
                weight,
            );
            out.push(tokens);
        }
        Ok(out)
    }

    fn parse_tokens(
        &self,
        raw: &[u8],
        first: &str,
        next: Option<&str>,
    ) -> Result<Vec<Token>, SearchError> {
        let name = self.name();
        let mut r = SectionReader::new(raw, name, "search tokens");
        let n = r.count(3)?;
        let mut out: Vec<Token> = Vec::with_capacity(n);
        let mut e = Expander::new(raw.len());
        // The expander reads from a cursor of its own: hand it the rest of the block each time.
        let mut rest = raw.len() - r.remaining();
        for k in 0..n {
            let mut cur = varint::Cursor::new(&raw[rest..]);
            let text = e
                .read(&mut cur)
                .map_err(|x| SearchError::corrupt(name, "search tokens", x.to_string()))
                .and_then(|t| {
                    std::str::from_utf8(t).map(str::to_owned).map_err(|_| {
                        SearchError::corrupt(name, "search tokens", "token is not UTF-8")
                    })
                })?;
            rest = raw.len() - cur.remaining();
            let mut r = SectionReader::new(&raw[rest..], name, "search tokens");
            let ordered = match out.last() {
                None => text == first,
                Some(p) => p.text < text,
            };
            if !ordered || next.is_some_and(|n| text.as_str() >= n) {
                return Err(r.err(format!("token {k} of a block out of order")));
            }
            let (word_counts, ones, all) = if self.inner.version > VERSION_2 {
                let counts = r.u8()?;
                let ones = self.part(&mut r, &text, true)?;
                let all = self.part(&mut r, &text, false)?;
                // Bit 1 says whether there are one-word labels, and bit 0 means no words.
                if counts & 1 != 0
                    || (counts & 2 != 0) != (ones.df > 0)
                    || (counts & !3 != 0) != (all.df > 0)
                {
                    return Err(r.err(format!(
                        "token {text:?}: its word counts and documents disagree"
                    )));
                }
                (counts, Some(ones), all)
            } else {
                (u8::MAX, None, self.part(&mut r, &text, false)?)
            };
            let df = all.df + ones.as_ref().map_or(0, |p| p.df);
            if df == 0 || df > self.inner.docs {
                return Err(r.err(format!("token {text:?} claims {df} documents")));
            }
            let chunked = |p: &Part| matches!(p.postings, Postings::Chunks(_));
            let places = if self.inner.version > VERSION_4
                && (chunked(&all) || ones.as_ref().is_some_and(chunked))
            {
                match r.u8()? {
                    0 => return Err(r.err(format!("token {text:?} stands nowhere in its labels"))),
                    p => p,
                }
            } else {
                u8::MAX
            };
            rest = raw.len() - r.remaining();
            out.push(Token {
                text,
                df,
                word_counts,
                places,
                ones,
                rest: all,
            });
        }
        if rest != raw.len() {
            return Err(SearchError::corrupt(
                name,
                "search tokens",
                format!("{} trailing bytes", raw.len() - rest),
            ));
        }
        Ok(out)
    }

    /// A count of documents, then their postings: inline when few, else the references of
    /// their chunks. From version 4 the one-word labels' part (`ones`) stores no word counts
    /// inline.
    fn part(&self, r: &mut SectionReader<'_>, text: &str, ones: bool) -> Result<Part, SearchError> {
        let df = r.varint()?;
        if df > self.inner.docs {
            return Err(r.err(format!("token {text:?} claims {df} documents")));
        }
        let (inline, one) = if self.inner.version > VERSION_3 {
            (INLINE_POSTINGS, ones)
        } else {
            (INLINE_POSTINGS_3, false)
        };
        let postings = if df <= inline {
            Postings::Inline(Arc::new(self.postings(r, df, !one)?))
        } else {
            let chunks = df.div_ceil(CHUNK_POSTINGS);
            let mut offset = r.varint()?;
            // Each chunk reference takes at least 10 bytes: two varints and a checksum.
            if chunks > (r.remaining() / 10) as u64 {
                return Err(r.err(format!(
                    "token {text:?} claims {df} documents, more than its block can reference"
                )));
            }
            let mut refs = Vec::with_capacity(chunks as usize);
            for _ in 0..chunks {
                let len = r.varint()?;
                let raw_len = r.varint()?;
                let checksum = r.u64()?;
                let b = BlockRef::checked(offset, len, raw_len, checksum, self.inner.postings_len)
                    .map_err(|m| r.err::<SearchError>(m))?;
                offset += len;
                refs.push(b);
            }
            Postings::Chunks(refs.into())
        };
        Ok(Part { df, postings })
    }

    /// `n` postings, documents increasing: `varint((doc − previous) << 3 | words)` when
    /// `packed`, else `varint(doc − previous)` (their word count 1: a one-word label's, or to be
    /// read after them).
    fn postings(
        &self,
        r: &mut SectionReader<'_>,
        n: u64,
        packed: bool,
    ) -> Result<Vec<(u32, u8)>, SearchError> {
        let n = r.count_items(n)?;
        let mut out = Vec::with_capacity(n);
        let mut prev = 0u64;
        for k in 0..n {
            let v = r.varint()?;
            let (delta, words) = if packed {
                (v >> 3, (v & 7) as u8)
            } else {
                (v, 1)
            };
            let doc = prev
                .checked_add(delta)
                .filter(|&d| d < self.inner.docs && (k == 0 || delta > 0))
                .ok_or_else(|| r.err::<SearchError>("posting documents out of order or range"))?;
            prev = doc;
            out.push((doc as u32, words));
        }
        Ok(out)
    }

    /// A version 2 posting chunk of `n` postings: `n` document gaps, then `n` word counts.
    fn chunk(&self, r: &mut SectionReader<'_>, n: u64) -> Result<Vec<(u32, u8)>, SearchError> {
        let n = r.count_items(n.saturating_mul(2))? / 2;
        let mut out = self.postings(r, n as u64, false)?;
        for p in &mut out {
            p.1 = r.u8()?;
            if usize::from(p.1) > crate::MAX_NTOK {
                return Err(r.err(format!("label word count {}", p.1)));
            }
        }
        Ok(out)
    }

    /// Chunks `(their posting count, their ref)`, decoded: from the cache, the others read
    /// together (one request when they lie close, as the chunks of neighbouring tokens do).
    pub(crate) fn chunks(&self, want: &[(u64, BlockRef)]) -> Result<Vec<PostingList>, SearchError> {
        let mut out: Vec<Option<PostingList>> = Vec::with_capacity(want.len());
        let mut missing: Vec<(usize, u64, BlockRef)> = Vec::new();
        for (i, &(n, b)) in want.iter().enumerate() {
            match self.cached((kind::POSTINGS, b.offset)) {
                Some(Cached::Postings(p)) => out.push(Some(p)),
                _ => {
                    missing.push((i, n, b));
                    out.push(None);
                }
            }
        }
        let refs: Vec<BlockRef> = missing.iter().map(|m| m.2).collect();
        for (&(i, n, b), raw) in missing.iter().zip(self.read_blocks(kind::POSTINGS, &refs)?) {
            let mut r = SectionReader::new(&raw, self.name(), "search postings");
            let list = Arc::new(if self.inner.version == VERSION_1 {
                self.postings(&mut r, n, true)?
            } else {
                self.chunk(&mut r, n)?
            });
            r.expect_end()?;
            let weight = list.len() * size_of::<(u32, u8)>();
            self.store(
                (kind::POSTINGS, b.offset),
                Cached::Postings(list.clone()),
                weight,
            );
            out[i] = Some(list);
        }
        out.into_iter()
            .map(|l| l.ok_or_else(|| SearchError::Internal("a posting chunk not read".into())))
            .collect()
    }

    /// Fetches the stored bytes of `refs` (posting chunks) in one batch without decoding them:
    /// a remote reader keeps them, so that the chunks a query then walks cost no request each.
    pub(crate) fn prefetch_chunks(&self, refs: &[BlockRef]) -> Result<(), SearchError> {
        self.prefetch_chunks_and_docs(refs, None)
    }

    /// [`Self::prefetch_chunks`], and in the same batch the document blocks from `docs.0` to
    /// `docs.1` (one span: the blocks lie in order) unless all of them are cached, as many as fit
    /// in [`MAX_GUESSED_DOC_BYTES`].
    pub(crate) fn prefetch_chunks_and_docs(
        &self,
        refs: &[BlockRef],
        docs: Option<(u64, u64)>,
    ) -> Result<(), SearchError> {
        let Some(base) = self.inner.rete.section(kind::POSTINGS, 0).map(|e| e.offset) else {
            return Ok(());
        };
        let mut ranges: Vec<(u64, usize)> = refs
            .iter()
            .filter(|b| self.cached((kind::POSTINGS, b.offset)).is_none())
            .map(|b| (base + b.offset, b.len as usize))
            .collect();
        if let Some((b0, b1)) = docs {
            let cached = |b| matches!(self.cached((kind::DOCS, b)), Some(Cached::Docs(_)));
            let start = self.inner.rete.section(kind::DOCS, 0).map(|e| e.offset);
            if let (false, Some(start)) = ((b0..=b1).all(cached), start) {
                let r0 = self.doc_block_ref(b0)?;
                let mut end = r0.offset + r0.len;
                for b in b0 + 1..=b1 {
                    let r = self.doc_block_ref(b)?;
                    if r.offset + r.len - r0.offset > MAX_GUESSED_DOC_BYTES {
                        break;
                    }
                    end = r.offset + r.len;
                }
                ranges.push((start + r0.offset, (end - r0.offset) as usize));
            }
        }
        ranges.sort_unstable();
        self.inner
            .rete
            .reader()
            .read_many(&ranges)
            .map_err(rete_core::Error::from)?;
        Ok(())
    }

    /// The decoded postings of `part`'s first chunk when at hand (inline, or read before):
    /// `None` rather than a read.
    pub(crate) fn first_postings_at_hand(&self, part: &Part) -> Option<PostingList> {
        match &part.postings {
            Postings::Inline(l) => Some(l.clone()),
            Postings::Chunks(refs) => match self.cached((kind::POSTINGS, refs.first()?.offset)) {
                Some(Cached::Postings(p)) => Some(p),
                _ => None,
            },
        }
    }

    /// Documents in one document block.
    pub(crate) fn docs_per_block(&self) -> u64 {
        self.inner.docs_per_block
    }
}

/// Bytes of document blocks fetched on a guess at most, with the first posting chunks of a
/// keystroke (which stays within 64 KiB).
const MAX_GUESSED_DOC_BYTES: u64 = 40 << 10;
