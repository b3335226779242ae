//! Byte-level encoding of the pyramid sections: a growable writer, a bounds-checked reader that
//! turns every inconsistency into [`PyramidError::Corrupt`], and independently compressed blocks
//! with checksums.

use crate::PyramidError;
use rete_core::format::varint;
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
/// Encoding version of the pyramid sections.
pub(crate) const VERSION: u8 = 1;
/// Largest decoded block accepted (guards against zstd bombs in damaged files).
pub(crate) const MAX_BLOCK_RAW: u64 = 256 << 20;

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

/// A bounds-checked reader over a decoded payload.
#[derive(Debug)]
pub(crate) struct Rd<'a> {
    cur: varint::Cursor<'a>,
    file: &'a str,
    section: &'a str,
}

impl<'a> Rd<'a> {
    pub fn new(buf: &'a [u8], file: &'a str, section: &'a str) -> Self {
        Self {
            cur: varint::Cursor::new(buf),
            file,
            section,
        }
    }

    pub fn err(&self, message: impl Into<String>) -> PyramidError {
        PyramidError::corrupt(self.file, self.section, message)
    }

    pub fn varint(&mut self) -> Result<u64, PyramidError> {
        self.cur
            .get()
            .ok_or_else(|| self.err("truncated or overlong integer"))
    }

    /// A varint that must be below `bound`.
    pub fn below(&mut self, bound: u64, what: &str) -> Result<u64, PyramidError> {
        let v = self.varint()?;
        if v >= bound {
            return Err(self.err(format!("{what} {v} out of range (< {bound})")));
        }
        Ok(v)
    }

    /// An item count; each item takes at least `min_bytes`, so a count the remaining bytes cannot
    /// hold is rejected before anything is allocated for it.
    pub fn count(&mut self, min_bytes: usize) -> Result<usize, PyramidError> {
        let v = self.varint()?;
        let max = self.cur.remaining() / min_bytes.max(1);
        if v > max as u64 {
            return Err(self.err(format!(
                "count {v} exceeds what the remaining {} bytes can hold",
                self.cur.remaining()
            )));
        }
        Ok(v as usize)
    }

    /// Checks that `n` items of at least one byte each fit in what is left.
    pub fn count_items(&self, n: u64) -> Result<usize, PyramidError> {
        if n > self.cur.remaining() as u64 {
            return Err(self.err(format!(
                "{n} items cannot fit in {} bytes",
                self.cur.remaining()
            )));
        }
        Ok(n as usize)
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], PyramidError> {
        self.cur.bytes(n).ok_or_else(|| self.err("truncated"))
    }

    pub fn str(&mut self) -> Result<&'a str, PyramidError> {
        let n = self.varint()?;
        let n = usize::try_from(n).map_err(|_| self.err("string too long"))?;
        let b = self.bytes(n)?;
        std::str::from_utf8(b).map_err(|_| self.err("string is not UTF-8"))
    }

    pub fn u8(&mut self) -> Result<u8, PyramidError> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u64(&mut self) -> Result<u64, PyramidError> {
        let b = self.bytes(8)?;
        Ok(u64::from_le_bytes(
            b.try_into().map_err(|_| self.err("truncated"))?,
        ))
    }

    pub fn f32(&mut self) -> Result<f32, PyramidError> {
        let b = self.bytes(4)?;
        let v = f32::from_le_bytes(b.try_into().map_err(|_| self.err("truncated"))?);
        if !v.is_finite() {
            return Err(self.err("non-finite coordinate"));
        }
        Ok(v)
    }

    pub fn f64(&mut self) -> Result<f64, PyramidError> {
        let b = self.bytes(8)?;
        let v = f64::from_le_bytes(b.try_into().map_err(|_| self.err("truncated"))?);
        if !v.is_finite() {
            return Err(self.err("non-finite number"));
        }
        Ok(v)
    }

    pub fn expect_end(&self) -> Result<(), PyramidError> {
        if self.cur.is_at_end() {
            Ok(())
        } else {
            Err(self.err(format!("{} trailing bytes", self.cur.remaining())))
        }
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
    pub fn read(r: &mut Rd<'_>, section_len: u64) -> Result<Self, PyramidError> {
        let offset = r.varint()?;
        let len = r.varint()?;
        let raw_len = r.varint()?;
        let checksum = r.u64()?;
        if offset.checked_add(len).is_none_or(|end| end > section_len) {
            return Err(r.err(format!(
                "block {offset}+{len} lies outside its section ({section_len} bytes)"
            )));
        }
        if raw_len > MAX_BLOCK_RAW {
            return Err(r.err(format!("block declares {raw_len} decoded bytes")));
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
        let out = zstd::bulk::decompress(stored, self.raw_len as usize).map_err(|e| {
            PyramidError::corrupt(
                file,
                section,
                format!("block at {}: zstd: {e}", self.offset),
            )
        })?;
        if out.len() as u64 != self.raw_len {
            return Err(PyramidError::corrupt(
                file,
                section,
                format!(
                    "block at {} decoded to {} bytes, expected {}",
                    self.offset,
                    out.len(),
                    self.raw_len
                ),
            ));
        }
        Ok(out)
    }
}

/// Accumulates independently compressed blocks into one section payload.
#[derive(Debug)]
pub(crate) struct BlockWriter {
    pub data: Vec<u8>,
    level: i32,
}

impl BlockWriter {
    pub fn new(level: i32) -> Self {
        Self {
            data: Vec::new(),
            level,
        }
    }

    pub fn push(&mut self, raw: &[u8]) -> Result<BlockRef, PyramidError> {
        let stored = zstd::bulk::compress(raw, self.level)
            .map_err(|e| PyramidError::internal(format!("zstd: {e}")))?;
        let r = BlockRef {
            offset: self.data.len() as u64,
            len: stored.len() as u64,
            raw_len: raw.len() as u64,
            checksum: xxh3_64(&stored),
        };
        self.data.extend_from_slice(&stored);
        Ok(r)
    }
}
