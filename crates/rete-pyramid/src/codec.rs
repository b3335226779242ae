//! Byte-level encoding of the pyramid sections: a growable writer, rete-core's bounds-checked
//! reader (every inconsistency becomes [`PyramidError::Corrupt`]), and independently compressed
//! blocks with checksums.

use crate::PyramidError;
use rete_core::format::{ratio_ok, varint, zstd_decode, MAX_RAW_LEN, MAX_ZSTD_RATIO};
use rete_core::section::SectionReader;
use xxhash_rust::xxh3::xxh3_64;

/// Section kinds (all inside `rete_core::format::kind::PYRAMID_FIRST..=PYRAMID_LAST`).
pub mod kind {
    /// Meta data, class and predicate names, and the top level with its layout (zstd).
    pub const TOP: u16 = 16;
    /// Block directories of the other sections (zstd).
    pub const DIRECTORY: u16 = 17;
    /// Communities and super-edges of the levels below the top, in blocks.
    pub const LEVELS: u16 = 18;
    /// Members of level-0 communities with their positions, in blocks.
    pub const MEMBERS: u16 = 19;
    /// Entity → community at every level, in blocks of consecutive entity ids.
    pub const MEMBERSHIP: u16 = 20;
}

/// Magic of the top section.
pub(crate) const TOP_MAGIC: &[u8; 4] = b"RPYT";
/// Magic of the directory section.
pub(crate) const DIR_MAGIC: &[u8; 4] = b"RPYD";
/// Encoding version of the pyramid sections, written in the top section: 2 adds label
/// alternatives by language to every community record (top section and level blocks).
pub(crate) const VERSION: u8 = 2;
/// Oldest encoding version readers accept (1: community records without label alternatives).
pub(crate) const VERSION_MIN: u8 = 1;
/// Version of the directory section's encoding (unchanged by version 2 of the records).
pub(crate) const DIR_VERSION: u8 = 1;

/// An append-only byte buffer with the encodings used by the pyramid.
#[derive(Debug, Default)]
pub(crate) struct Buf(pub Vec<u8>);

impl Buf {
    pub fn varint(&mut self, v: u64) {
        varint::put(&mut self.0, v);
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    pub fn str(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.bytes(s.as_bytes());
    }
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn f32(&mut self, v: f32) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn f64(&mut self, v: f64) {
        self.bytes(&v.to_le_bytes());
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// Where a compressed block lies inside its section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockRef {
    pub offset: u64,
    pub len: u64,
    pub raw_len: u64,
    pub checksum: u64,
}

impl BlockRef {
    pub fn write(&self, b: &mut Buf) {
        b.varint(self.offset);
        b.varint(self.len);
        b.varint(self.raw_len);
        b.u64(self.checksum);
    }

    /// Reads a reference and checks it lies inside a section of `section_len` bytes.
    pub fn read(r: &mut SectionReader<'_>, section_len: u64) -> Result<Self, PyramidError> {
        let offset = r.varint()?;
        let len = r.varint()?;
        let raw_len = r.varint()?;
        let checksum = r.u64()?;
        if offset.checked_add(len).is_none_or(|end| end > section_len) {
            return Err(r.err(format!(
                "block {offset}+{len} lies outside its section ({section_len} bytes)"
            )));
        }
        if raw_len > MAX_RAW_LEN || !ratio_ok(len, raw_len) {
            return Err(r.err(format!(
                "block of {len} bytes declares {raw_len} decoded bytes (limits: {MAX_RAW_LEN}, \
                 {MAX_ZSTD_RATIO}:1)"
            )));
        }
        Ok(Self {
            offset,
            len,
            raw_len,
            checksum,
        })
    }

    /// Checks and decompresses the stored bytes of this block.
    pub fn decode(
        &self,
        stored: &[u8],
        file: &str,
        section: &str,
    ) -> Result<Vec<u8>, PyramidError> {
        if xxh3_64(stored) != self.checksum {
            return Err(PyramidError::corrupt(
                file,
                section,
                format!("checksum mismatch in block at {}", self.offset),
            ));
        }
        zstd_decode(stored, self.raw_len, file, &|| section.to_owned()).map_err(|e| match e {
            rete_core::Error::Corrupt { message, .. } => PyramidError::corrupt(
                file,
                section,
                format!("block at {}: {message}", self.offset),
            ),
            e => e.into(),
        })
    }
}

/// Accumulates independently compressed blocks into one section payload. Blocks are compressed
/// in batches on rayon's threads (each block on its own, so the bytes do not depend on the
/// number of threads); [`BlockWriter::push`] returns the block's number, its [`BlockRef`] comes
/// with [`BlockWriter::finish`].
#[derive(Debug)]
pub(crate) struct BlockWriter {
    data: Vec<u8>,
    level: i32,
    pending: Vec<Vec<u8>>,
    pending_bytes: usize,
    refs: Vec<BlockRef>,
}

/// Raw bytes waiting for compression at most (about): bounds the batch held in memory.
const BATCH_BYTES: usize = 8 << 20;

impl BlockWriter {
    pub fn new(level: i32) -> Self {
        Self {
            data: Vec::new(),
            level,
            pending: Vec::new(),
            pending_bytes: 0,
            refs: Vec::new(),
        }
    }

    /// Queues a block (taken, not copied: a level's cross edges are one large block); returns
    /// its number.
    pub fn push(&mut self, raw: Vec<u8>) -> Result<usize, PyramidError> {
        let n = self.refs.len() + self.pending.len();
        self.pending_bytes += raw.len();
        self.pending.push(raw);
        if self.pending_bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> Result<(), PyramidError> {
        use rayon::prelude::*;
        let level = self.level;
        let stored: Vec<Result<Vec<u8>, PyramidError>> = self
            .pending
            .par_iter()
            .map(|raw| {
                rete_core::format::zstd_compress(raw, level)
                    .map_err(|e| PyramidError::internal(format!("zstd: {e}")))
            })
            .collect();
        for (raw, stored) in self.pending.drain(..).zip(stored) {
            let stored = stored?;
            self.refs.push(BlockRef {
                offset: self.data.len() as u64,
                len: stored.len() as u64,
                raw_len: raw.len() as u64,
                checksum: xxh3_64(&stored),
            });
            self.data.extend_from_slice(&stored);
        }
        self.pending_bytes = 0;
        Ok(())
    }

    /// The section payload and every block's place in it, by block number.
    pub fn finish(mut self) -> Result<(Vec<u8>, Vec<BlockRef>), PyramidError> {
        self.flush()?;
        Ok((self.data, self.refs))
    }
}
