//! The dictionary: terms in [`crate::term::compare`] order, front-coded, zstd per block, with a
//! block directory so that id→term and term→id each touch one block.

use crate::error::{Error, Result};
use crate::format::{
    block_checksum, prealloc, varint, zstd_decode_with, BlockSizes, DICT_BLOCK_EXPANDED_TARGET,
    MAX_DICT_BLOCK_EXPANDED, MAX_DICT_BLOCK_RAW, MAX_DICT_BLOCK_TARGET, MAX_TERM_LEN,
    MIN_FRAME_LEN,
};
use crate::front_coding::{self, shared_prefix, Expander};
use crate::term::compare;
use crate::Id;
use std::cmp::Ordering;
use std::io::Write;

/// Smallest encoding of a directory entry: three one-byte varints, the checksum, the term length.
const MIN_INDEX_ENTRY: u64 = 8;
/// Largest buffer reserved ahead of decoding; beyond it the buffer grows with what is decoded.
const MAX_PREALLOC: usize = 1 << 24;

/// Directory entry of one dictionary block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictBlockMeta {
    /// Id of the first term of the block.
    pub first_id: Id,
    /// Number of terms in the block.
    pub count: u32,
    /// Offset of the stored block inside the `DICT_BLOCKS` section.
    pub offset: u64,
    /// Stored (compressed) length.
    pub stored_len: u32,
    /// Decoded length.
    pub raw_len: u32,
    /// [`block_checksum`] of the stored bytes.
    pub checksum: u32,
    /// The first term, encoded.
    pub first_term: Vec<u8>,
}

impl DictBlockMeta {
    /// Appends this entry's directory encoding (everything but the id and offset, which follow
    /// from the entries before it).
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        varint::put(out, u64::from(self.count));
        varint::put(out, u64::from(self.stored_len));
        varint::put(out, u64::from(self.raw_len));
        out.extend_from_slice(&self.checksum.to_le_bytes());
        varint::put(out, self.first_term.len() as u64);
        out.extend_from_slice(&self.first_term);
    }

    /// Parses one directory entry whose block starts at term `first_id` and section `offset`.
    pub(crate) fn decode(
        c: &mut varint::Cursor<'_>,
        first_id: Id,
        offset: u64,
        bad: &dyn Fn(&str) -> Error,
    ) -> Result<Self> {
        // A block holds at least two raw bytes per term.
        let sizes = BlockSizes::read(c, (MAX_DICT_BLOCK_RAW / 2, MAX_DICT_BLOCK_RAW), bad)?;
        let tl = c.get().ok_or_else(|| bad("truncated"))?;
        if tl > MAX_TERM_LEN as u64 {
            return Err(bad("first term longer than the term length limit"));
        }
        let first_term = c
            .bytes(usize::try_from(tl).map_err(|_| bad("bad length"))?)
            .ok_or_else(|| bad("truncated"))?
            .to_vec();
        Ok(Self {
            first_id,
            count: sizes.count,
            offset,
            stored_len: sizes.stored_len,
            raw_len: sizes.raw_len,
            checksum: sizes.checksum,
            first_term,
        })
    }
}

/// The dictionary block directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DictIndex {
    /// Blocks in id order.
    pub blocks: Vec<DictBlockMeta>,
}

impl DictIndex {
    /// Serializes the directory (the payload of the `DICT_INDEX` section).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        varint::put(&mut out, self.blocks.len() as u64);
        for b in &self.blocks {
            b.encode(&mut out);
        }
        out
    }

    /// Bytes the directory decoded from `payload` holds in its entries at most (their first
    /// terms aside, which the payload's own bytes stand for): known before decoding, so that it
    /// can be charged first ([`crate::DecodeBudget`]).
    pub fn held_bytes(payload: &[u8]) -> u64 {
        crate::budget::declared_items(payload, MIN_INDEX_ENTRY as usize)
            * size_of::<DictBlockMeta>() as u64
    }

    /// Parses a directory; `terms` is the header's term count, `blocks_len` the stored length of the
    /// `DICT_BLOCKS` section; both are checked against the entries.
    pub fn decode(bytes: &[u8], terms: u64, blocks_len: u64, file: &str) -> Result<Self> {
        let bad = |m: &str| Error::corrupt(file, "dictionary index", m.to_owned());
        let mut c = varint::Cursor::new(bytes);
        let n = c.get().ok_or_else(|| bad("truncated"))?;
        if n > bytes.len() as u64 / MIN_INDEX_ENTRY || n > blocks_len / MIN_FRAME_LEN {
            return Err(bad("implausible block count"));
        }
        let mut blocks = Vec::with_capacity(prealloc(n as usize));
        let (mut id, mut offset) = (1u64, 0u64);
        for _ in 0..n {
            let b = DictBlockMeta::decode(&mut c, id, offset, &bad)?;
            id += u64::from(b.count);
            offset += u64::from(b.stored_len);
            blocks.push(b);
        }
        if !c.is_at_end() {
            return Err(bad("trailing bytes"));
        }
        if id - 1 != terms {
            return Err(bad(&format!(
                "blocks hold {} terms, header says {terms}",
                id - 1
            )));
        }
        if offset != blocks_len {
            return Err(bad(&format!(
                "blocks span {offset} bytes, section has {blocks_len}"
            )));
        }
        Ok(Self { blocks })
    }

    /// The block holding `id`.
    pub fn block_of_id(&self, id: Id) -> Option<usize> {
        let i =
            crate::seek::partition_by_lead(&self.blocks, id, |b| b.first_id, |b| b.first_id <= id);
        let i = i.checked_sub(1)?;
        let b = &self.blocks[i];
        (id < b.first_id + u64::from(b.count)).then_some(i)
    }

    /// The only block that may hold the encoded `term`.
    pub fn block_for_term(&self, term: &[u8]) -> Option<usize> {
        let i = self
            .blocks
            .partition_point(|b| compare(&b.first_term, term) != Ordering::Greater);
        i.checked_sub(1)
    }
}

/// A decoded dictionary block: terms laid end to end.
#[derive(Debug, Clone)]
pub struct DictBlock {
    data: Vec<u8>,
    ends: Vec<u32>,
}

impl DictBlock {
    /// Decodes a block's raw (decompressed) bytes holding `count` terms.
    pub fn decode(raw: &[u8], count: u32, file: &str) -> Result<Self> {
        let bad = || Error::corrupt(file, "dictionary blocks", "undecodable block");
        // Every term takes at least two bytes (shared and suffix lengths), so a count the block
        // cannot hold is refused before anything is allocated for it.
        if u64::from(count) > raw.len() as u64 / 2 {
            return Err(bad());
        }
        let mut c = varint::Cursor::new(raw);
        let mut data: Vec<u8> = Vec::with_capacity(raw.len().saturating_mul(2).min(MAX_PREALLOC));
        let mut ends = Vec::with_capacity(prealloc(count as usize));
        let mut terms = Expander::new(raw.len());
        for _ in 0..count {
            let term = terms.read(&mut c).map_err(|_| bad())?;
            // What a writer can produce: terms within the length limit, a block cut once its
            // terms expand past the target.
            if term.len() > MAX_TERM_LEN
                || (data.len() + term.len()) as u64 > MAX_DICT_BLOCK_EXPANDED
            {
                return Err(Error::corrupt(
                    file,
                    "dictionary blocks",
                    "undecodable block: terms expand beyond what a writer produces",
                ));
            }
            data.extend_from_slice(term);
            ends.push(data.len() as u32);
        }
        if !c.is_at_end() {
            return Err(bad());
        }
        Ok(Self { data, ends })
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// `true` if the block has no terms.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`-th encoded term.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(&self.data[start..end])
    }

    /// The number of terms of this block that come before the encoded `term` in dictionary
    /// order (where `term` would be inserted).
    pub fn lower_bound(&self, term: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.get(mid).map(|t| compare(t, term)) {
                Some(Ordering::Less) => lo = mid + 1,
                _ => hi = mid,
            }
        }
        lo
    }

    /// Position of the encoded `term` in this block.
    pub fn find(&self, term: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match compare(self.get(mid)?, term) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Approximate heap size, for cache accounting.
    pub fn weight(&self) -> usize {
        self.data.len() + self.ends.len() * 4 + 64
    }
}

/// Sample bytes a [`DictWriter`] keeps to train a zstd dictionary on (every other sampled block
/// is dropped past it, so the sample spans the whole dictionary).
const SAMPLE_CAP: usize = 1 << 20;
/// Sampled blocks below which no dictionary is trained (zstd needs a few to find anything).
const MIN_SAMPLES: usize = 16;

/// Blocks held raw in a spool file until the end, then compressed with a zstd dictionary
/// trained on a sample of them: small blocks (what a remote lookup reads) compress about as well
/// as large ones alone would.
#[derive(Debug)]
struct Spool {
    file: std::fs::File,
    /// The spool file's name in errors.
    name: String,
    /// Raw bytes of blocks from which a dictionary is trained.
    train_above: u64,
    /// The most bytes of the trained dictionary.
    max_dict_bytes: usize,
    /// The block size of the terms replayed into plain blocks when none is trained.
    plain_block_target: usize,
    /// Every `stride`-th block's raw bytes.
    samples: Vec<Vec<u8>>,
    sample_bytes: usize,
    stride: usize,
}

/// Streams sorted, distinct encoded terms into blocks.
#[derive(Debug)]
pub struct DictWriter<W: Write> {
    out: W,
    level: i32,
    zc: crate::format::Zc,
    spool: Option<Spool>,
    block_target: usize,
    raw: Vec<u8>,
    prev: Vec<u8>,
    first: Vec<u8>,
    count: u32,
    /// Expanded bytes of the terms of the block being built.
    expanded: usize,
    next_id: Id,
    offset: u64,
    index: DictIndex,
}

impl<W: Write> DictWriter<W> {
    /// A writer emitting blocks of about `block_target` raw bytes (256 to
    /// [`MAX_DICT_BLOCK_TARGET`]) compressed at zstd `level`.
    pub fn new(out: W, block_target: usize, level: i32) -> Self {
        Self {
            out,
            level,
            zc: crate::format::Zc::default(),
            spool: None,
            block_target: block_target.clamp(256, MAX_DICT_BLOCK_TARGET),
            raw: Vec::new(),
            prev: Vec::new(),
            first: Vec::new(),
            count: 0,
            expanded: 0,
            next_id: 1,
            offset: 0,
            index: DictIndex::default(),
        }
    }

    /// A writer whose blocks of about `small_block_target` raw bytes are held raw in `spool`
    /// (an empty file the caller removes after, and its name in errors) until [`Self::finish`],
    /// then compressed with a
    /// zstd dictionary of at most `max_dict_bytes` trained on them when they hold at least
    /// `train_above` bytes; else the terms are written as [`Self::new`] with `block_target`
    /// writes them, and no dictionary is returned. Both depend on the terms alone: the same
    /// terms give the same bytes.
    pub fn with_trained_dictionary(
        out: W,
        (block_target, small_block_target): (usize, usize),
        level: i32,
        (spool, name): (std::fs::File, &str),
        (train_above, max_dict_bytes): (u64, usize),
    ) -> Self {
        let mut w = Self::new(out, small_block_target, level);
        w.spool = Some(Spool {
            file: spool,
            name: name.to_owned(),
            train_above,
            max_dict_bytes,
            plain_block_target: block_target,
            samples: Vec::new(),
            sample_bytes: 0,
            stride: 1,
        });
        w
    }

    /// Appends the next term; terms must come in strictly increasing [`compare`] order.
    /// Returns the term's id. A term longer than [`MAX_TERM_LEN`] is refused.
    pub fn push(&mut self, term: &[u8]) -> Result<Id> {
        if term.len() > MAX_TERM_LEN {
            return Err(Error::Invalid(term_too_long(term)));
        }
        if self.next_id > 1 && compare(&self.prev, term) != Ordering::Less {
            return Err(Error::Invalid(
                "dictionary terms must be pushed sorted and distinct".into(),
            ));
        }
        let shared = if self.count == 0 {
            0
        } else {
            shared_prefix(&self.prev, term)
        };
        if self.count == 0 {
            self.first = term.to_vec();
        }
        front_coding::put(&mut self.raw, shared, &term[shared..]);
        self.prev.clear();
        self.prev.extend_from_slice(term);
        self.count += 1;
        self.expanded += term.len();
        let id = self.next_id;
        self.next_id += 1;
        if self.raw.len() >= self.block_target || self.expanded >= DICT_BLOCK_EXPANDED_TARGET {
            self.flush()?;
        }
        Ok(id)
    }

    fn flush(&mut self) -> Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        if let Some(spool) = &mut self.spool {
            spool
                .file
                .write_all(&self.raw)
                .map_err(|e| Error::io(&spool.name, e))?;
            if self.index.blocks.len() % spool.stride == 0 {
                spool.sample_bytes += self.raw.len();
                spool.samples.push(self.raw.clone());
                if spool.sample_bytes > SAMPLE_CAP {
                    // Keep the blocks at multiples of twice the stride: the sample stays the
                    // same for the same terms.
                    let mut k = 0;
                    spool.samples.retain(|_| {
                        k += 1;
                        k % 2 == 1
                    });
                    spool.sample_bytes = spool.samples.iter().map(Vec::len).sum();
                    spool.stride *= 2;
                }
            }
            // Offset, stored length and checksum are set when the block is compressed.
            self.index.blocks.push(DictBlockMeta {
                first_id: self.next_id - u64::from(self.count),
                count: self.count,
                offset: 0,
                stored_len: 0,
                raw_len: self.raw.len() as u32,
                checksum: 0,
                first_term: std::mem::take(&mut self.first),
            });
            self.raw.clear();
            self.count = 0;
            self.expanded = 0;
            return Ok(());
        }
        let stored = self
            .zc
            .compress(self.level, &self.raw)
            .map_err(|e| Error::io("dictionary", e))?;
        self.out
            .write_all(&stored)
            .map_err(|e| Error::io("dictionary", e))?;
        self.index.blocks.push(DictBlockMeta {
            first_id: self.next_id - u64::from(self.count),
            count: self.count,
            offset: self.offset,
            stored_len: stored.len() as u32,
            raw_len: self.raw.len() as u32,
            checksum: block_checksum(&stored),
            first_term: std::mem::take(&mut self.first),
        });
        self.offset += stored.len() as u64;
        self.raw.clear();
        self.count = 0;
        self.expanded = 0;
        Ok(())
    }

    /// Flushes the last block; returns the directory, the total stored length, the output and
    /// the zstd dictionary the blocks were compressed with, if one was trained.
    pub fn finish(mut self) -> Result<(DictIndex, u64, W, Option<Vec<u8>>)> {
        self.flush()?;
        let Some(mut spool) = self.spool.take() else {
            return Ok((self.index, self.offset, self.out, None));
        };
        let name = spool.name.clone();
        let err = |e: std::io::Error| Error::io(&name, e);
        let raw_total: u64 = self.index.blocks.iter().map(|b| u64::from(b.raw_len)).sum();
        // About a 40th of the terms' raw bytes, what a remote reader fetches once with the
        // directories. Training fails on samples it cannot use (too few, too alike).
        let dict_bytes = (raw_total / 40).clamp(8 << 10, spool.max_dict_bytes as u64) as usize;
        let dict = if raw_total >= spool.train_above && spool.samples.len() >= MIN_SAMPLES {
            zstd::dict::from_samples(&spool.samples, dict_bytes).ok()
        } else {
            None
        };
        spool.samples = Vec::new();
        use std::io::{Read, Seek};
        spool.file.seek(std::io::SeekFrom::Start(0)).map_err(err)?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, &mut spool.file);
        let mut raw = Vec::new();
        let Some(dict) = dict else {
            // No dictionary: the terms again, into the blocks a plain writer makes.
            let mut plain = Self::new(self.out, spool.plain_block_target, self.level);
            for b in &self.index.blocks {
                raw.resize(b.raw_len as usize, 0);
                reader.read_exact(&mut raw).map_err(err)?;
                let block = DictBlock::decode(&raw, b.count, &name)?;
                for i in 0..block.len() {
                    if let Some(term) = block.get(i) {
                        plain.push(term)?;
                    }
                }
            }
            return plain.finish();
        };
        let mut zc = zstd::bulk::Compressor::with_dictionary(self.level, &dict).map_err(err)?;
        for b in &mut self.index.blocks {
            raw.resize(b.raw_len as usize, 0);
            reader.read_exact(&mut raw).map_err(err)?;
            let stored = crate::format::within_ratio(&raw, zc.compress(&raw).map_err(err)?);
            self.out
                .write_all(&stored)
                .map_err(|e| Error::io("dictionary", e))?;
            b.offset = self.offset;
            b.stored_len = stored.len() as u32;
            b.checksum = block_checksum(&stored);
            self.offset += stored.len() as u64;
        }
        Ok((self.index, self.offset, self.out, Some(dict)))
    }
}

/// The message for a term over [`MAX_TERM_LEN`]: its size, the limit and how it starts.
pub fn term_too_long(term: &[u8]) -> String {
    let head = String::from_utf8_lossy(&term[..term.len().min(60)]);
    format!(
        "a term of {} bytes exceeds the {MAX_TERM_LEN}-byte term length limit (it starts {:?})",
        term.len(),
        head.trim_start_matches(|c: char| c.is_control())
    )
}

/// A file's zstd dictionary of its dictionary blocks
/// ([`kind::DICT_ZSTD`](crate::format::kind::DICT_ZSTD)), ready to decode with.
pub struct BlockDictionary(zstd::zstd_safe::DDict<'static>);

impl BlockDictionary {
    /// The dictionary of `bytes` (as [`DictWriter::finish`] returns it); `None` for bytes zstd
    /// refuses as one.
    pub fn new(bytes: &[u8]) -> Option<Self> {
        zstd::zstd_safe::DDict::try_create(bytes).map(Self)
    }
}

impl std::fmt::Debug for BlockDictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BlockDictionary")
    }
}

/// Decompresses and decodes one stored dictionary block, verifying its checksum; `dict` is the
/// file's zstd dictionary, if it has one.
pub fn read_block(
    stored: &[u8],
    meta: &DictBlockMeta,
    dict: Option<&BlockDictionary>,
    file: &str,
) -> Result<DictBlock> {
    if block_checksum(stored) != meta.checksum {
        return Err(Error::corrupt(
            file,
            "dictionary blocks",
            format!("checksum mismatch in the block of ids {}..", meta.first_id),
        ));
    }
    let raw = zstd_decode_with(
        stored,
        u64::from(meta.raw_len),
        dict.map(|d| &d.0),
        file,
        &|| "dictionary blocks".into(),
    )?;
    DictBlock::decode(&raw, meta.count, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_and_read() {
        let mut terms: Vec<Vec<u8>> = (0..2000)
            .map(|i| format!("\u{1}http://ex.org/p{i}").into_bytes())
            .collect();
        terms.sort_by(|a, b| compare(a, b));
        let mut w = DictWriter::new(Vec::new(), 1024, 3);
        for t in &terms {
            w.push(t).unwrap();
        }
        let (index, len, out, _) = w.finish().unwrap();
        assert!(index.blocks.len() > 5);
        let index = DictIndex::decode(&index.encode(), 2000, len, "t").unwrap();
        for (i, t) in terms.iter().enumerate() {
            let id = i as u64 + 1;
            let b = index.block_of_id(id).unwrap();
            let m = &index.blocks[b];
            let block = read_block(
                &out[m.offset as usize..(m.offset + u64::from(m.stored_len)) as usize],
                m,
                None,
                "t",
            )
            .unwrap();
            assert_eq!(block.get((id - m.first_id) as usize).unwrap(), &t[..]);
            assert_eq!(index.block_for_term(t), Some(b));
            assert_eq!(block.find(t), Some((id - m.first_id) as usize));
        }
        assert_eq!(index.block_of_id(0), None);
        assert_eq!(index.block_of_id(2001), None);
    }

    /// Blocks sharing a trained zstd dictionary give every term back with it, and fail without
    /// it or with another; below the threshold, the bytes of a plain writer.
    #[test]
    fn trained_dictionary_round_trip() {
        let mut terms: Vec<Vec<u8>> = (0..20_000)
            .map(|i| format!("\u{4}en\0a label of term {i}, of kind {}", i % 13).into_bytes())
            .collect();
        terms.sort_by(|a, b| compare(a, b));
        let write = |train_above: u64| {
            let spool = tempfile::tempfile().unwrap();
            let mut w = DictWriter::with_trained_dictionary(
                Vec::new(),
                (1024, 512),
                3,
                (spool, "s"),
                (train_above, 8192),
            );
            for t in &terms {
                w.push(t).unwrap();
            }
            w.finish().unwrap()
        };
        let (index, _, out, dict) = write(0);
        let dict = BlockDictionary::new(&dict.unwrap()).unwrap();
        // Another dictionary, trained on other text (another id in its header).
        let samples: Vec<Vec<u8>> = (0..400)
            .map(|i| {
                format!("other text {i} of another file {}", i * 7)
                    .repeat(20)
                    .into_bytes()
            })
            .collect();
        let other =
            BlockDictionary::new(&zstd::dict::from_samples(&samples, 4096).unwrap()).unwrap();
        for (i, t) in terms.iter().enumerate().step_by(97) {
            let id = i as u64 + 1;
            let m = &index.blocks[index.block_of_id(id).unwrap()];
            let stored = &out[m.offset as usize..(m.offset + u64::from(m.stored_len)) as usize];
            let block = read_block(stored, m, Some(&dict), "t").unwrap();
            assert_eq!(block.get((id - m.first_id) as usize).unwrap(), &t[..]);
            assert!(read_block(stored, m, None, "t").is_err());
            assert!(read_block(stored, m, Some(&other), "t").is_err());
        }
        let mut plain = DictWriter::new(Vec::new(), 1024, 3);
        for t in &terms {
            plain.push(t).unwrap();
        }
        let (pi, pl, po, pd) = plain.finish().unwrap();
        let (bi, bl, bo, bd) = write(u64::MAX - 1);
        assert_eq!((pi, pl, po, pd), (bi, bl, bo, bd));
    }
}
