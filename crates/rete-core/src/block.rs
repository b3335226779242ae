//! Independently compressed blocks appended to one section payload, each found through a
//! [`BlockRef`] (where it lies, its decoded length and its checksum), and the byte buffer
//! sections and their block directories are written with. Shared by the extension crates
//! (search, schema).

use crate::format::{varint, zstd_decode, MAX_RAW_LEN};
use crate::section::{ReadResult, SectionReader};
use crate::{Error, Result};
use xxhash_rust::xxh3::xxh3_64;

/// An append-only byte buffer: LEB128 varints, strings and little-endian numbers.
#[derive(Debug, Default)]
pub struct Buf(pub Vec<u8>);

impl Buf {
    /// Appends `v` as a LEB128 varint.
    pub fn varint(&mut self, v: u64) {
        varint::put(&mut self.0, v);
    }
    /// Appends `s`: its length in bytes, then its bytes.
    pub fn str(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// Appends `v` as 8 little-endian bytes.
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
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
    /// length a reader may allocate; else what is wrong.
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
        if raw_len > MAX_RAW_LEN {
            return Err(format!("block declares {raw_len} decoded bytes"));
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
}

impl BlockWriter {
    /// A writer compressing at zstd `level`.
    pub fn new(level: i32) -> Self {
        Self {
            data: Vec::new(),
            level,
        }
    }

    /// Compresses and appends `raw`; returns where it lies.
    pub fn push(&mut self, raw: &[u8]) -> Result<BlockRef> {
        let stored = zstd::bulk::compress(raw, self.level)
            .map_err(|e| Error::Invalid(format!("zstd: {e}")))?;
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
    }
}
