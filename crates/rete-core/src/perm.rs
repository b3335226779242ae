//! The six permutations: quads sorted in one key order each, cut into blocks encoded column-wise
//! (run-length first column, delta-coded others, zstd), with a directory of first keys.

use crate::error::{Error, Result};
use crate::format::{
    block_checksum, prealloc, varint, zstd_decode, BlockSizes, MAX_BLOCK_QUADS, MAX_PERM_BLOCK_RAW,
    MIN_FRAME_LEN,
};
use crate::{Id, IdQuad};
use std::io::Write;

/// Smallest encoding of a directory entry: seven one-byte varints and the checksum.
const MIN_INDEX_ENTRY: u64 = 11;

/// Directory entry of one permutation block. Keys are in permutation order `[a, b, c, g]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermBlockMeta {
    /// First key of the block.
    pub first: IdQuad,
    /// Number of quads.
    pub count: u32,
    /// Offset inside the `PERM_BLOCKS` section.
    pub offset: u64,
    /// Stored (compressed) length.
    pub stored_len: u32,
    /// Decoded length.
    pub raw_len: u32,
    /// [`block_checksum`] of the stored bytes.
    pub checksum: u32,
    /// Number of quads in all earlier blocks.
    pub before: u64,
}

impl PermBlockMeta {
    /// Appends this entry's directory encoding; `prev_a` is the first column of the previous
    /// entry's first key (0 for the first entry).
    pub(crate) fn encode(&self, out: &mut Vec<u8>, prev_a: u64) {
        varint::put(out, self.first[0].wrapping_sub(prev_a));
        for &k in &self.first[1..] {
            varint::put(out, k);
        }
        varint::put(out, u64::from(self.count));
        varint::put(out, u64::from(self.stored_len));
        varint::put(out, u64::from(self.raw_len));
        out.extend_from_slice(&self.checksum.to_le_bytes());
    }

    /// Parses one directory entry following an entry whose first key starts with `prev_a`; its
    /// block starts at section `offset` after `before` quads.
    pub(crate) fn decode(
        c: &mut varint::Cursor<'_>,
        prev_a: u64,
        offset: u64,
        before: u64,
        bad: &dyn Fn(&str) -> Error,
    ) -> Result<Self> {
        let mut first = [0; 4];
        first[0] = prev_a
            .checked_add(c.get().ok_or_else(|| bad("truncated"))?)
            .ok_or_else(|| bad("key overflow"))?;
        for k in &mut first[1..] {
            *k = c.get().ok_or_else(|| bad("truncated"))?;
        }
        let sizes = BlockSizes::read(c, (MAX_BLOCK_QUADS as u64, MAX_PERM_BLOCK_RAW), bad)?;
        Ok(Self {
            first,
            count: sizes.count,
            offset,
            stored_len: sizes.stored_len,
            raw_len: sizes.raw_len,
            checksum: sizes.checksum,
            before,
        })
    }
}

/// The block directory of one permutation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermIndex {
    /// Blocks in key order.
    pub blocks: Vec<PermBlockMeta>,
    /// Total number of quads.
    pub total: u64,
}

impl PermIndex {
    /// Serializes the directory (payload of a `PERM_INDEX` section).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        varint::put(&mut out, self.blocks.len() as u64);
        let mut prev_a = 0;
        for b in &self.blocks {
            b.encode(&mut out, prev_a);
            prev_a = b.first[0];
        }
        out
    }

    /// Bytes the directory decoded from `payload` holds in its entries at most: known before
    /// decoding, so that it can be charged first ([`crate::DecodeBudget`]).
    pub fn held_bytes(payload: &[u8]) -> u64 {
        crate::budget::declared_items(payload, MIN_INDEX_ENTRY as usize)
            * size_of::<PermBlockMeta>() as u64
    }

    /// Parses a directory and checks it against the section's stored length.
    pub fn decode(bytes: &[u8], blocks_len: u64, section: &str, file: &str) -> Result<Self> {
        let bad = |m: &str| Error::corrupt(file, section, m.to_owned());
        let mut c = varint::Cursor::new(bytes);
        let n = c.get().ok_or_else(|| bad("truncated"))?;
        // Each entry takes some directory bytes and each block a zstd frame in the blocks
        // section: counts beyond either are refused before anything is reserved.
        if n > bytes.len() as u64 / MIN_INDEX_ENTRY || n > blocks_len / MIN_FRAME_LEN {
            return Err(bad("implausible block count"));
        }
        let mut blocks: Vec<PermBlockMeta> = Vec::with_capacity(prealloc(n as usize));
        let (mut offset, mut before, mut prev_a) = (0u64, 0u64, 0u64);
        for _ in 0..n {
            let b = PermBlockMeta::decode(&mut c, prev_a, offset, before, &bad)?;
            if let Some(p) = blocks.last() {
                if p.first >= b.first {
                    return Err(bad("block keys out of order"));
                }
            }
            prev_a = b.first[0];
            offset += u64::from(b.stored_len);
            before += u64::from(b.count);
            blocks.push(b);
        }
        if !c.is_at_end() {
            return Err(bad("trailing bytes"));
        }
        if offset != blocks_len {
            return Err(bad(&format!(
                "blocks span {offset} bytes, section has {blocks_len}"
            )));
        }
        Ok(Self {
            blocks,
            total: before,
        })
    }

    /// Index of the first block that may contain a key `>= key`.
    pub fn first_block_for(&self, key: &IdQuad) -> usize {
        self.end_block_for(key).saturating_sub(1)
    }

    /// One past the last block that may contain a key `<= key`.
    pub fn end_block_for(&self, key: &IdQuad) -> usize {
        crate::seek::partition_by_lead(&self.blocks, key[0], |b| b.first[0], |b| b.first <= *key)
    }
}

/// Slots of the context table that predicts the first third-column value of a group.
const CTX_SLOTS: usize = 64;

/// Predictor shared by encoder and decoder. The first value of a new `(a, b)` group is predicted
/// from the first value of the last group with the same `b` (same predicate in SPO, same subject
/// in POS…): objects of one predicate live in one id region (persons, ages, names), so the
/// residual is small; without a match, from the previous group's first value.
struct Predictor {
    slots: [(u64, u64); CTX_SLOTS],
    last_group_c: u64,
    last_run_b: u64,
}

impl Predictor {
    fn new() -> Self {
        Self {
            slots: [(u64::MAX, 0); CTX_SLOTS],
            last_group_c: 0,
            last_run_b: 0,
        }
    }
    fn predict_c(&self, b: u64) -> u64 {
        let (k, v) = self.slots[(b % CTX_SLOTS as u64) as usize];
        if k == b {
            v
        } else {
            self.last_group_c
        }
    }
    fn group(&mut self, b: u64, c: u64) {
        self.slots[(b % CTX_SLOTS as u64) as usize] = (b, c);
        self.last_group_c = c;
    }
}

fn residual(v: u64, pred: u64) -> u64 {
    varint::zigzag(v.wrapping_sub(pred) as i64)
}

fn apply(pred: u64, z: u64) -> u64 {
    pred.wrapping_add(varint::unzigzag(z) as u64)
}

/// Encodes sorted quads (permutation order) into a block's raw bytes.
///
/// Layout: `n`, then the byte lengths of the A, B and C streams, then the streams:
/// A = runs of the first column (`delta, run length`); B = second column: at a new run the
/// zigzag residual from the previous run's first value, inside a run the plain delta;
/// C = third column: at a new `(a, b)` group the zigzag residual from [`Predictor`], inside a
/// group the plain delta; G = runs of the graph column (`value, run length`).
pub fn encode_block(quads: &[IdQuad]) -> Vec<u8> {
    let (mut a_s, mut b_s, mut c_s, mut g_s) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut prev: Option<IdQuad> = None;
    let mut pr = Predictor::new();
    let mut i = 0;
    while i < quads.len() {
        let a = quads[i][0];
        let run = quads[i..].iter().take_while(|q| q[0] == a).count();
        varint::put(&mut a_s, a - prev.map_or(0, |p| p[0]));
        varint::put(&mut a_s, run as u64);
        for (k, q) in quads[i..i + run].iter().enumerate() {
            let new_group = match prev {
                Some(p) if k > 0 => {
                    varint::put(&mut b_s, q[1] - p[1]);
                    p[1] != q[1]
                }
                _ => {
                    varint::put(&mut b_s, residual(q[1], pr.last_run_b));
                    pr.last_run_b = q[1];
                    true
                }
            };
            if new_group {
                varint::put(&mut c_s, residual(q[2], pr.predict_c(q[1])));
                pr.group(q[1], q[2]);
            } else if let Some(p) = prev {
                varint::put(&mut c_s, q[2] - p[2]);
            }
            prev = Some(*q);
        }
        i += run;
    }
    let mut j = 0;
    while j < quads.len() {
        let g = quads[j][3];
        let run = quads[j..].iter().take_while(|q| q[3] == g).count();
        varint::put(&mut g_s, g);
        varint::put(&mut g_s, run as u64);
        j += run;
    }
    let mut out = Vec::with_capacity(a_s.len() + b_s.len() + c_s.len() + g_s.len() + 16);
    varint::put(&mut out, quads.len() as u64);
    varint::put(&mut out, a_s.len() as u64);
    varint::put(&mut out, b_s.len() as u64);
    varint::put(&mut out, c_s.len() as u64);
    out.extend_from_slice(&a_s);
    out.extend_from_slice(&b_s);
    out.extend_from_slice(&c_s);
    out.extend_from_slice(&g_s);
    out
}

/// A block's quad count (checked against the directory's `count`) and its four streams:
/// leading runs, second and third positions, graph runs.
fn block_streams<'r>(
    raw: &'r [u8],
    count: u32,
    bad: &impl Fn(&str) -> Error,
) -> Result<(u64, [varint::Cursor<'r>; 4])> {
    let mut h = varint::Cursor::new(raw);
    let n = h.get().ok_or_else(|| bad("truncated"))?;
    if n != u64::from(count) {
        return Err(bad("quad count differs from the directory"));
    }
    // Every quad takes at least one byte in each of the B and C streams, so a count the block
    // cannot hold is refused before anything is allocated for it.
    if n > raw.len() as u64 / 2 || n > MAX_BLOCK_QUADS as u64 {
        return Err(bad("quad count exceeds what the block can hold"));
    }
    let mut len = || -> Result<usize> {
        usize::try_from(h.get().ok_or_else(|| bad("truncated"))?).map_err(|_| bad("bad length"))
    };
    let (la, lb, lc) = (len()?, len()?, len()?);
    let a_s = varint::Cursor::new(h.bytes(la).ok_or_else(|| bad("truncated"))?);
    let b_s = varint::Cursor::new(h.bytes(lb).ok_or_else(|| bad("truncated"))?);
    let c_s = varint::Cursor::new(h.bytes(lc).ok_or_else(|| bad("truncated"))?);
    let rest = h.remaining();
    let g_s = varint::Cursor::new(h.bytes(rest).ok_or_else(|| bad("truncated"))?);
    Ok((n, [a_s, b_s, c_s, g_s]))
}

/// The runs of a block's leading term, `(term, quads)` in increasing term order, from its raw
/// bytes: only the leading stream is decoded (an index build counting each term's quads needs
/// no more; the block's checksum guards the rest). `count` comes from the directory.
pub fn decode_lead_runs(
    raw: &[u8],
    count: u32,
    section: &str,
    file: &str,
) -> Result<Vec<(Id, u64)>> {
    let bad = |m: &str| Error::corrupt(file, section, format!("undecodable block: {m}"));
    let (n, [mut a_s, ..]) = block_streams(raw, count, &bad)?;
    let mut out: Vec<(Id, u64)> = Vec::new();
    let mut seen = 0u64;
    while seen < n {
        let delta = a_s.get().ok_or_else(|| bad("truncated"))?;
        let run = a_s.get().ok_or_else(|| bad("truncated"))?;
        if run == 0 || run > n - seen {
            return Err(bad("bad run length"));
        }
        // A run is every quad of its term in the block: the next one's term is larger.
        let a = match out.last() {
            None => delta,
            Some(&(prev, _)) if delta > 0 => prev
                .checked_add(delta)
                .ok_or_else(|| bad("value overflow"))?,
            Some(_) => return Err(bad("keys out of order")),
        };
        out.push((a, run));
        seen += run;
    }
    if !a_s.is_at_end() {
        return Err(bad("trailing bytes"));
    }
    Ok(out)
}

/// Decodes a block's raw bytes; `count` comes from the directory and must match. Every value is
/// checked (overflow, ordering) so that a damaged block is an error, never a wrong answer.
pub fn decode_block(raw: &[u8], count: u32, section: &str, file: &str) -> Result<Vec<IdQuad>> {
    let bad = |m: &str| Error::corrupt(file, section, format!("undecodable block: {m}"));
    let (n, [mut a_s, mut b_s, mut c_s, mut g_s]) = block_streams(raw, count, &bad)?;
    let n = n as usize;
    let mut out: Vec<IdQuad> = Vec::with_capacity(n);
    let mut prev: Option<IdQuad> = None;
    let mut pr = Predictor::new();
    let add = |base: u64, d: u64| base.checked_add(d).ok_or_else(|| bad("value overflow"));
    while out.len() < n {
        let a = add(
            prev.map_or(0, |p| p[0]),
            a_s.get().ok_or_else(|| bad("truncated"))?,
        )?;
        let run = usize::try_from(a_s.get().ok_or_else(|| bad("truncated"))?)
            .map_err(|_| bad("bad run length"))?;
        if run == 0 || run > n - out.len() {
            return Err(bad("bad run length"));
        }
        for k in 0..run {
            let db = b_s.get().ok_or_else(|| bad("truncated"))?;
            let dc = c_s.get().ok_or_else(|| bad("truncated"))?;
            let (b, new_group) = match prev {
                Some(p) if k > 0 => {
                    let b = add(p[1], db)?;
                    (b, b != p[1])
                }
                _ => {
                    let b = apply(pr.last_run_b, db);
                    pr.last_run_b = b;
                    (b, true)
                }
            };
            let c = if new_group {
                let c = apply(pr.predict_c(b), dc);
                pr.group(b, c);
                c
            } else {
                add(prev.map_or(0, |p| p[2]), dc)?
            };
            let q = [a, b, c, 0];
            out.push(q);
            prev = Some(q);
        }
    }
    let mut j = 0;
    while j < n {
        let g = g_s.get().ok_or_else(|| bad("truncated"))?;
        let run = usize::try_from(g_s.get().ok_or_else(|| bad("truncated"))?)
            .map_err(|_| bad("bad graph run"))?;
        if run == 0 || run > n - j {
            return Err(bad("bad graph run"));
        }
        for q in &mut out[j..j + run] {
            q[3] = g;
        }
        j += run;
    }
    if !(a_s.is_at_end() && b_s.is_at_end() && c_s.is_at_end() && g_s.is_at_end()) {
        return Err(bad("trailing bytes"));
    }
    if out.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad("keys out of order"));
    }
    Ok(out)
}

/// Decompresses, verifies and decodes one stored block.
pub fn read_block(
    stored: &[u8],
    meta: &PermBlockMeta,
    section: &str,
    file: &str,
) -> Result<Vec<IdQuad>> {
    let raw = decompress_block(stored, meta, section, file)?;
    let quads = decode_block(&raw, meta.count, section, file)?;
    if quads.first() != Some(&meta.first) {
        return Err(first_differs(section, file));
    }
    Ok(quads)
}

/// [`read_block`]'s leading runs only ([`decode_lead_runs`]).
pub fn read_lead_runs(
    stored: &[u8],
    meta: &PermBlockMeta,
    section: &str,
    file: &str,
) -> Result<Vec<(Id, u64)>> {
    let raw = decompress_block(stored, meta, section, file)?;
    let runs = decode_lead_runs(&raw, meta.count, section, file)?;
    if runs.first().map(|r| r.0) != Some(meta.first[0]) {
        return Err(first_differs(section, file));
    }
    Ok(runs)
}

/// A stored block's bytes, its checksum verified, decompressed.
fn decompress_block(
    stored: &[u8],
    meta: &PermBlockMeta,
    section: &str,
    file: &str,
) -> Result<Vec<u8>> {
    if block_checksum(stored) != meta.checksum {
        return Err(Error::corrupt(
            file,
            section,
            format!("checksum mismatch in the block at offset {}", meta.offset),
        ));
    }
    zstd_decode(stored, u64::from(meta.raw_len), file, &|| {
        section.to_owned()
    })
}

fn first_differs(section: &str, file: &str) -> Error {
    Error::corrupt(
        file,
        section,
        "block's first key differs from the directory",
    )
}

use crate::format::Zc;

/// A zstd context for [`CompressedBlock::new`], reused from block to block (a reused context
/// gives the bytes a fresh one gives).
#[derive(Debug, Default)]
pub struct BlockCompressor(Zc);

/// A permutation block encoded and compressed away from its [`PermWriter`], so that a build can
/// compress one permutation's blocks on several threads and append them in order
/// ([`PermWriter::push_block`]): the file is the same as from [`PermWriter::push`].
#[derive(Debug)]
pub struct CompressedBlock {
    first: IdQuad,
    last: IdQuad,
    count: u32,
    raw_len: u32,
    stored: Vec<u8>,
}

impl CompressedBlock {
    /// Encodes `quads` (sorted and distinct, at least one) and compresses them at zstd `level`.
    pub fn new(quads: &[IdQuad], level: i32, zc: &mut BlockCompressor) -> Result<Self> {
        let (Some(&first), Some(&last)) = (quads.first(), quads.last()) else {
            return Err(Error::Invalid("an empty permutation block".into()));
        };
        if quads.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::Invalid(
                "permutation quads must be pushed sorted and distinct".into(),
            ));
        }
        let count = u32::try_from(quads.len())
            .map_err(|_| Error::Invalid("a permutation block of over 4 billion quads".into()))?;
        let raw = encode_block(quads);
        let raw_len = u32::try_from(raw.len())
            .map_err(|_| Error::Invalid("a permutation block of over 4 GiB".into()))?;
        let stored =
            zc.0.compress(level, &raw)
                .map_err(|e| Error::io("permutation", e))?;
        Ok(Self {
            first,
            last,
            count,
            raw_len,
            stored,
        })
    }

    /// Quads in the block.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether the block holds no quad (never: [`Self::new`] refuses an empty one).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Streams sorted, distinct quads (permutation order) into compressed blocks.
#[derive(Debug)]
pub struct PermWriter<W: Write> {
    out: W,
    level: i32,
    zc: Zc,
    block_quads: usize,
    buf: Vec<IdQuad>,
    last: Option<IdQuad>,
    offset: u64,
    index: PermIndex,
    /// A short block was pushed: nothing may follow it.
    ended: bool,
}

impl<W: Write> PermWriter<W> {
    /// A writer cutting blocks of `block_quads` quads (16 to [`MAX_BLOCK_QUADS`]), compressed at
    /// zstd `level`.
    pub fn new(out: W, block_quads: usize, level: i32) -> Self {
        Self {
            out,
            level,
            zc: Zc::default(),
            block_quads: block_quads.clamp(16, MAX_BLOCK_QUADS),
            buf: Vec::new(),
            last: None,
            offset: 0,
            index: PermIndex::default(),
            ended: false,
        }
    }

    /// Quads a block holds: callers of [`Self::push_block`] cut blocks of this many (the last
    /// may hold fewer) to write the file [`Self::push`] would.
    pub fn block_quads(&self) -> usize {
        self.block_quads
    }

    /// Appends the next quad; quads must be strictly increasing.
    pub fn push(&mut self, q: IdQuad) -> Result<()> {
        if self.ended {
            return Err(Error::Invalid(
                "a permutation quad pushed after its last block".into(),
            ));
        }
        if self.last.is_some_and(|l| l >= q) {
            return Err(Error::Invalid(
                "permutation quads must be pushed sorted and distinct".into(),
            ));
        }
        self.last = Some(q);
        self.buf.push(q);
        if self.buf.len() >= self.block_quads {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends a block compressed elsewhere at this writer's level. Its quads must follow the
    /// ones before, and a block may come only where [`Self::push`] would have ended one.
    pub fn push_block(&mut self, b: CompressedBlock) -> Result<()> {
        if self.ended || !self.buf.is_empty() || b.len() > self.block_quads {
            return Err(Error::Invalid(
                "a permutation block pushed out of the writer's block boundaries".into(),
            ));
        }
        if self.last.is_some_and(|l| l >= b.first) {
            return Err(Error::Invalid(
                "permutation quads must be pushed sorted and distinct".into(),
            ));
        }
        // A short block ends the permutation, as the last flush of `push` does.
        self.ended = b.len() < self.block_quads;
        self.last = Some(b.last);
        self.append(b.first, b.count, b.raw_len, &b.stored)
    }

    fn flush(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let raw = encode_block(&self.buf);
        let stored = self
            .zc
            .compress(self.level, &raw)
            .map_err(|e| Error::io("permutation", e))?;
        let count = self.buf.len() as u32;
        self.append(self.buf[0], count, raw.len() as u32, &stored)?;
        self.buf.clear();
        Ok(())
    }

    fn append(&mut self, first: IdQuad, count: u32, raw_len: u32, stored: &[u8]) -> Result<()> {
        self.out
            .write_all(stored)
            .map_err(|e| Error::io("permutation", e))?;
        self.index.blocks.push(PermBlockMeta {
            first,
            count,
            offset: self.offset,
            stored_len: stored.len() as u32,
            raw_len,
            checksum: block_checksum(stored),
            before: self.index.total,
        });
        self.index.total += u64::from(count);
        self.offset += stored.len() as u64;
        Ok(())
    }

    /// Flushes the last block; returns the directory, the stored length and the output.
    pub fn finish(mut self) -> Result<(PermIndex, u64, W)> {
        self.flush()?;
        Ok((self.index, self.offset, self.out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_round_trip() {
        let mut q: Vec<IdQuad> = Vec::new();
        for a in [1u64, 2, 50, 51] {
            for b in [3u64, 9] {
                for c in [100u64, 7, 1000] {
                    q.push([a, b, c, if c == 7 { 5 } else { 0 }]);
                }
            }
        }
        q.sort();
        let raw = encode_block(&q);
        assert_eq!(decode_block(&raw, q.len() as u32, "s", "f").unwrap(), q);
        assert!(decode_block(&raw[..raw.len() - 1], q.len() as u32, "s", "f").is_err());
        assert_eq!(
            decode_lead_runs(&raw, q.len() as u32, "s", "f").unwrap(),
            [(1, 6), (2, 6), (50, 6), (51, 6)]
        );
        assert!(decode_lead_runs(&raw, q.len() as u32 + 1, "s", "f").is_err());
    }

    /// A leading stream that lies (a run past the block's count, a term not above the one
    /// before, bytes after the last run) is an error, not a wrong count.
    #[test]
    fn lying_lead_runs_are_errors() {
        let block = |a: &[u64]| {
            let mut a_s = Vec::new();
            for &v in a {
                varint::put(&mut a_s, v);
            }
            let mut raw = Vec::new();
            for v in [4, a_s.len() as u64, 4, 4] {
                varint::put(&mut raw, v);
            }
            raw.extend_from_slice(&a_s);
            raw.extend_from_slice(&[0; 12]);
            raw
        };
        assert_eq!(
            decode_lead_runs(&block(&[3, 1, 2, 3]), 4, "s", "f").unwrap(),
            [(3, 1), (5, 3)]
        );
        for (a, what) in [
            (&[3, 5][..], "bad run length"),
            (&[3, 1, 0, 3][..], "keys out of order"),
            (&[3, 1, 2, 3, 9][..], "trailing bytes"),
            (&[3, 1][..], "truncated"),
        ] {
            let e = decode_lead_runs(&block(a), 4, "s", "f")
                .unwrap_err()
                .to_string();
            assert!(e.contains(what), "{a:?}: {e}");
        }
    }

    /// Blocks compressed apart and pushed whole give the file and directory `push` gives.
    #[test]
    fn pushed_blocks_write_what_pushed_quads_write() {
        let mut q: Vec<IdQuad> = (0..1000u64)
            .map(|i| [i / 7, (i * 31) % 5, (i * 7919) % 613, i % 3])
            .collect();
        q.sort();
        q.dedup();
        let mut a = PermWriter::new(Vec::new(), 64, 3);
        for &x in &q {
            a.push(x).unwrap();
        }
        let mut b = PermWriter::new(Vec::new(), 64, 3);
        let mut zc = BlockCompressor::default();
        for chunk in q.chunks(b.block_quads()) {
            b.push_block(CompressedBlock::new(chunk, 3, &mut zc).unwrap())
                .unwrap();
        }
        // Nothing follows a short block.
        assert!(b.push([u64::MAX; 4]).is_err());
        let (ia, la, fa) = a.finish().unwrap();
        let (ib, lb, fb) = b.finish().unwrap();
        assert_eq!((la, &fa), (lb, &fb));
        assert_eq!(ia, ib);
        // Out of order, or past the block boundaries: refused.
        let mut c = PermWriter::new(Vec::new(), 64, 3);
        c.push_block(CompressedBlock::new(&q[64..128], 3, &mut zc).unwrap())
            .unwrap();
        assert!(c
            .push_block(CompressedBlock::new(&q[..64], 3, &mut zc).unwrap())
            .is_err());
        let mut d = PermWriter::new(Vec::new(), 64, 3);
        assert!(d
            .push_block(CompressedBlock::new(&q[..65], 3, &mut zc).unwrap())
            .is_err());
        assert!(CompressedBlock::new(&[], 3, &mut zc).is_err());
        assert!(CompressedBlock::new(&[q[1], q[0]], 3, &mut zc).is_err());
    }

    proptest::proptest! {
        #[test]
        fn random_blocks(mut v in proptest::collection::vec(proptest::array::uniform4(0u64..40), 1..300)) {
            v.sort();
            v.dedup();
            let raw = encode_block(&v);
            let runs: Vec<(Id, u64)> = v.chunk_by(|a, b| a[0] == b[0]).map(|r| (r[0][0], r.len() as u64)).collect();
            proptest::prop_assert_eq!(decode_lead_runs(&raw, v.len() as u32, "s", "f").unwrap(), runs);
            proptest::prop_assert_eq!(decode_block(&raw, v.len() as u32, "s", "f").unwrap(), v);
        }
    }
}
