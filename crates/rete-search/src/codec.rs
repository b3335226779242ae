//! Byte-level pieces of the search sections: section kinds, the independently compressed block
//! with its checksum, and the fixed-width entries of the document directory.

use crate::SearchError;
use rete_core::format::{varint, zstd_decode, MAX_RAW_LEN};
use rete_core::section::SectionReader;
use xxhash_rust::xxh3::xxh3_64;

/// Section kinds, in the range `rete_core::format::kind` reserves after the schema (48–63).
pub mod kind {
    /// Meta data, label predicates, languages and the token block directory (zstd).
    pub const META: u16 = 48;
    /// Token blocks: front-coded tokens with their postings or posting references.
    pub const TOKENS: u16 = 49;
    /// Posting chunks of the tokens whose postings are not inline.
    pub const POSTINGS: u16 = 50;
    /// Document blocks: term, kind, language, classes and label of each indexed label.
    pub const DOCS: u16 = 51;
    /// Directory of the document blocks: fixed-width entries (raw).
    pub const DOC_DIR: u16 = 52;
}

/// Magic of the meta section.
pub const META_MAGIC: &[u8; 4] = b"RSRC";
/// Encoding version of the search sections.
pub const VERSION: u8 = 1;
/// Bytes of one document directory entry: offset `u64`, length `u32`, decoded length `u32`,
/// checksum `u64`.
pub const DOC_DIR_ENTRY: usize = 24;
/// Documents in one document block (the last may hold fewer).
pub const DOCS_PER_BLOCK: u32 = 256;
/// Postings in one posting chunk (the last of a token may hold fewer).
pub const CHUNK_POSTINGS: u64 = 4096;
/// A token with at most this many documents keeps them inside its token block.
pub const INLINE_POSTINGS: u64 = 8;
/// Raw bytes of a token block, about.
pub const TOKEN_BLOCK_BYTES: usize = 16 << 10;

/// The section's name in messages.
pub fn section_name(k: u16) -> &'static str {
    match k {
        kind::META => "search meta",
        kind::TOKENS => "search tokens",
        kind::POSTINGS => "search postings",
        kind::DOCS => "search documents",
        kind::DOC_DIR => "search document directory",
        _ => "search",
    }
}

/// An append-only byte buffer.
#[derive(Debug, Default)]
pub struct Buf(pub Vec<u8>);

impl Buf {
    pub fn varint(&mut self, v: u64) {
        varint::put(&mut self.0, v);
    }
    pub fn str(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
}

/// Where a compressed block lies inside its section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRef {
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
    pub fn read(r: &mut SectionReader<'_>, section_len: u64) -> Result<Self, SearchError> {
        let offset = r.varint()?;
        let len = r.varint()?;
        let raw_len = r.varint()?;
        let checksum = r.u64()?;
        Self::checked(offset, len, raw_len, checksum, section_len)
            .map_err(|m| r.err::<SearchError>(m))
    }

    pub fn checked(
        offset: u64,
        len: u64,
        raw_len: u64,
        checksum: u64,
        section_len: u64,
    ) -> Result<Self, String> {
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

    /// Checks and decompresses the stored bytes of this block.
    pub fn decode(&self, stored: &[u8], file: &str, k: u16) -> Result<Vec<u8>, SearchError> {
        let section = section_name(k);
        if xxh3_64(stored) != self.checksum {
            return Err(SearchError::corrupt(
                file,
                section,
                format!("checksum mismatch in block at {}", self.offset),
            ));
        }
        zstd_decode(stored, self.raw_len, file, &|| section.to_owned()).map_err(|e| match e {
            rete_core::Error::Corrupt { message, .. } => SearchError::corrupt(
                file,
                section,
                format!("block at {}: {message}", self.offset),
            ),
            e => e.into(),
        })
    }
}

/// Independently compressed blocks appended to one section payload.
#[derive(Debug)]
pub struct BlockWriter {
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

    /// Compresses and appends `raw`; returns where it lies.
    pub fn push(&mut self, raw: &[u8]) -> Result<BlockRef, SearchError> {
        let stored = zstd::bulk::compress(raw, self.level)
            .map_err(|e| SearchError::Internal(format!("zstd: {e}")))?;
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
