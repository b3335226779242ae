//! Independently compressed blocks appended to one section payload, each found through a
//! [`BlockRef`] (where it lies, its decoded length and its checksum), and the byte buffer
//! sections and their block directories are written with. Shared by the extension crates
//! (search, schema, pyramid).

use crate::format::{ratio_ok, varint, zstd_decode, Zc, MAX_RAW_LEN, MAX_ZSTD_RATIO};
use crate::section::{ReadResult, SectionReader};
use crate::{Error, Result};
use xxhash_rust::xxh3::xxh3_64;

/// An append-only byte buffer: LEB128 varints, strings, raw bytes and little-endian numbers.
#[derive(Debug, Default)]
pub struct Buf(pub Vec<u8>);

impl Buf {
    /// Appends `v` as a LEB128 varint.
    pub fn varint(&mut self, v: u64) {
        varint::put(&mut self.0, v);
    }
    /// Appends `b` as it is.
    pub fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    /// Appends `s`: its length in bytes, then its bytes.
    pub fn str(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.bytes(s.as_bytes());
    }
    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// Appends `v` as 8 little-endian bytes.
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends `v` as 4 little-endian bytes.
    pub fn f32(&mut self, v: f32) {
        self.bytes(&v.to_le_bytes());
    }
    /// Appends `v` as 8 little-endian bytes.
    pub fn f64(&mut self, v: f64) {
        self.bytes(&v.to_le_bytes());
    }
    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Where a compressed block lies inside its section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRef {
    /// Offset of its stored bytes in the section payload.
    pub offset: u64,
    /// Stored (compressed) length.
    pub len: u64,
    /// Decoded length.
    pub raw_len: u64,
    /// XXH3-64 of the stored bytes.
    pub checksum: u64,
}

impl BlockRef {
    /// Appends the reference: offset, length and decoded length as varints, the checksum as
    /// 8 bytes.
    pub fn write(&self, b: &mut Buf) {
        b.varint(self.offset);
        b.varint(self.len);
        b.varint(self.raw_len);
        b.u64(self.checksum);
    }

    /// Reads a reference and checks it lies inside a section of `section_len` bytes.
    pub fn read(r: &mut SectionReader<'_>, section_len: u64) -> ReadResult<Self> {
        let offset = r.varint()?;
        let len = r.varint()?;
        let raw_len = r.varint()?;
        let checksum = r.u64()?;
        Self::checked(offset, len, raw_len, checksum, section_len).map_err(|m| r.err(m))
    }

    /// A reference, if it lies inside a section of `section_len` bytes and declares a decoded
    /// length a reader may allocate (at most [`MAX_RAW_LEN`], within [`MAX_ZSTD_RATIO`] of its
    /// stored length: what [`zstd_decode`] would refuse later is refused here); else what is
    /// wrong.
    pub fn checked(
        offset: u64,
        len: u64,
        raw_len: u64,
        checksum: u64,
        section_len: u64,
    ) -> std::result::Result<Self, String> {
        if offset.checked_add(len).is_none_or(|end| end > section_len) {
            return Err(format!(
                "block {offset}+{len} lies outside its section ({section_len} bytes)"
            ));
        }
        if raw_len > MAX_RAW_LEN || !ratio_ok(len, raw_len) {
            return Err(format!(
                "block of {len} bytes declares {raw_len} decoded bytes (limits: {MAX_RAW_LEN}, \
                 {MAX_ZSTD_RATIO}:1)"
            ));
        }
        Ok(Self {
            offset,
            len,
            raw_len,
            checksum,
        })
    }

    /// Checks and decompresses the stored bytes of this block, a block of `section` in `file`.
    pub fn decode(&self, stored: &[u8], file: &str, section: &str) -> Result<Vec<u8>> {
        if xxh3_64(stored) != self.checksum {
            return Err(Error::corrupt(
                file,
                section,
                format!("checksum mismatch in block at {}", self.offset),
            ));
        }
        zstd_decode(stored, self.raw_len, file, &|| section.to_owned()).map_err(|e| match e {
            Error::Corrupt { message, .. } => Error::corrupt(
                file,
                section,
                format!("block at {}: {message}", self.offset),
            ),
            e => e,
        })
    }
}

/// Independently compressed blocks appended to one section payload.
#[derive(Debug)]
pub struct BlockWriter {
    /// The section payload so far.
    pub data: Vec<u8>,
    level: i32,
    /// One compression context for all the blocks (a context per block cost its set-up).
    zc: Zc,
}

impl BlockWriter {
    /// A writer compressing at zstd `level`.
    pub fn new(level: i32) -> Self {
        Self {
            data: Vec::new(),
            level,
            zc: Zc::default(),
        }
    }

    /// Compresses and appends `raw`; returns where it lies.
    pub fn push(&mut self, raw: &[u8]) -> Result<BlockRef> {
        let stored = compress(&mut self.zc, self.level, raw)?;
        Ok(self.append(raw.len(), &stored))
    }

    /// Appends a block already compressed from `raw_len` bytes; returns where it lies.
    fn append(&mut self, raw_len: usize, stored: &[u8]) -> BlockRef {
        let r = BlockRef {
            offset: self.data.len() as u64,
            len: stored.len() as u64,
            raw_len: raw_len as u64,
            checksum: xxh3_64(stored),
        };
        self.data.extend_from_slice(stored);
        r
    }
}

/// One block compressed at `level` on the context `zc`, within the ratio a reader accepts.
fn compress(zc: &mut Zc, level: i32, raw: &[u8]) -> Result<Vec<u8>> {
    zc.compress(level, raw)
        .map_err(|e| Error::Invalid(format!("zstd: {e}")))
}

/// Raw bytes a [`BatchWriter`] holds before compressing them (about): bounds the batch in memory.
const BATCH_BYTES: usize = 8 << 20;

/// A [`BlockWriter`] that compresses its blocks in batches on rayon's threads, each block on its
/// own so the bytes do not depend on the number of threads. [`BatchWriter::push`] returns the
/// block's number; its [`BlockRef`] comes with [`BatchWriter::finish`].
#[derive(Debug)]
pub struct BatchWriter {
    blocks: BlockWriter,
    pending: Vec<Vec<u8>>,
    pending_bytes: usize,
    refs: Vec<BlockRef>,
}

impl BatchWriter {
    /// A writer compressing at zstd `level`.
    pub fn new(level: i32) -> Self {
        Self {
            blocks: BlockWriter::new(level),
            pending: Vec::new(),
            pending_bytes: 0,
            refs: Vec::new(),
        }
    }

    /// Queues a block (taken, not copied: a block may be large); returns its number.
    pub fn push(&mut self, raw: Vec<u8>) -> Result<usize> {
        let n = self.refs.len() + self.pending.len();
        self.pending_bytes += raw.len();
        self.pending.push(raw);
        if self.pending_bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> Result<()> {
        use rayon::prelude::*;
        let level = self.blocks.level;
        // Runs of blocks of about equal bytes, a few per thread, each compressed on one context:
        // a context's tables cost their allocation and first use, which `map_init` would pay
        // for every piece rayon splits off.
        let share = (self.pending_bytes / (4 * rayon::current_num_threads())).max(1);
        let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
        let (mut start, mut bytes) = (0, 0);
        for (i, raw) in self.pending.iter().enumerate() {
            bytes += raw.len();
            if bytes >= share {
                runs.push(start..i + 1);
                (start, bytes) = (i + 1, 0);
            }
        }
        if start < self.pending.len() {
            runs.push(start..self.pending.len());
        }
        let pending = &self.pending;
        let stored: Vec<Result<Vec<u8>>> = runs
            .into_par_iter()
            .map(|run| {
                let mut zc = Zc::default();
                pending[run]
                    .iter()
                    .map(|raw| compress(&mut zc, level, raw))
                    .collect::<Vec<_>>()
            })
            .flatten_iter()
            .collect();
        for (raw, stored) in self.pending.drain(..).zip(stored) {
            self.refs.push(self.blocks.append(raw.len(), &stored?));
        }
        self.pending_bytes = 0;
        Ok(())
    }

    /// The section payload and every block's place in it, by block number.
    pub fn finish(mut self) -> Result<(Vec<u8>, Vec<BlockRef>)> {
        self.flush()?;
        Ok((self.blocks.data, self.refs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_and_damage_is_named() {
        let mut w = BlockWriter::new(3);
        let a = w.push(b"first block").unwrap();
        let b = w.push(&[7u8; 300]).unwrap();
        let mut dir = Buf::default();
        a.write(&mut dir);
        b.write(&mut dir);
        let len = w.data.len() as u64;
        let mut r = SectionReader::new(&dir.0, "f", "s");
        assert_eq!(BlockRef::read(&mut r, len).unwrap(), a);
        assert_eq!(BlockRef::read(&mut r, len).unwrap(), b);
        let stored = |x: &BlockRef| &w.data[x.offset as usize..(x.offset + x.len) as usize];
        assert_eq!(a.decode(stored(&a), "f", "s").unwrap(), b"first block");
        assert_eq!(b.decode(stored(&b), "f", "s").unwrap(), [7u8; 300]);
        let mut bad = stored(&b).to_vec();
        bad[0] ^= 1;
        assert!(matches!(
            b.decode(&bad, "f", "s"),
            Err(Error::Corrupt { .. })
        ));
        let mut r = SectionReader::new(&dir.0, "f", "s");
        assert!(BlockRef::read(&mut r, a.len - 1).is_err());
        assert!(BlockRef::checked(0, 1, MAX_RAW_LEN + 1, 0, 1).is_err());
        // A ratio no zstd frame of ours has is refused before anything is read.
        assert!(BlockRef::checked(0, 10, 32 << 20, 0, 10).is_err());
    }

    #[test]
    fn batches_write_what_single_blocks_write() {
        let raws: Vec<Vec<u8>> = (0..5u8).map(|i| vec![i; 100 * i as usize + 1]).collect();
        let mut one = BlockWriter::new(3);
        let mut batch = BatchWriter::new(3);
        let mut refs = Vec::new();
        for (i, raw) in raws.iter().enumerate() {
            refs.push(one.push(raw).unwrap());
            assert_eq!(batch.push(raw.clone()).unwrap(), i);
        }
        let (data, batch_refs) = batch.finish().unwrap();
        assert_eq!((data, batch_refs), (one.data, refs));
    }
}
