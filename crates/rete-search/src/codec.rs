//! Byte-level pieces of the search sections: section kinds, their blocks (rete-core's
//! [`rete_core::block`]) and the fixed-width entries of the document directory.

use crate::SearchError;
pub use rete_core::block::{BatchWriter, BlockRef, Buf};

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
/// Encoding version of the search sections written: 5 tells, for a token whose postings are
/// in chunks, the places it holds in its labels (a query of words that never stand together
/// in a label proves its whole-label tiers empty without walking their lists).
pub const VERSION: u8 = 5;
/// Still read: up to [`INLINE_POSTINGS`] postings in a token's block (a short list costs no
/// chunk, its frame and its checksum), a one-word label's postings without their word count.
pub const VERSION_4: u8 = 4;
/// Still read: each token's one-word labels apart from its other postings (a one-word query's
/// whole-label tiers then read no other posting), at most [`INLINE_POSTINGS_3`] inline.
pub const VERSION_3: u8 = 3;
/// Still read: document blocks as columns with the labels' dictionary ids, posting chunks as
/// gaps then word counts, one posting list a token.
pub const VERSION_2: u8 = 2;
/// The first version, still read: document blocks row by row with the label text, posting
/// chunks as `varint(gap << 3 | words)`.
pub const VERSION_1: u8 = 1;
/// Bytes of one document directory entry: offset `u64`, length `u32`, decoded length `u32`,
/// checksum `u64`.
pub const DOC_DIR_ENTRY: usize = 24;
/// Documents in one document block (the last may hold fewer): a few KiB stored.
pub const DOCS_PER_BLOCK: u32 = 1024;
/// Postings in one posting chunk (the last of a token may hold fewer).
pub const CHUNK_POSTINGS: u64 = 4096;
/// A part of a token with at most this many documents keeps them inside its token block.
pub const INLINE_POSTINGS: u64 = 64;
/// The same, in versions 1 to 3.
pub const INLINE_POSTINGS_3: u64 = 8;
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

/// Checks and decompresses block `b` of section `k` in `file` (`stored`: its bytes); damage is
/// [`rete_core::Error::Corrupt`].
pub fn decode_block(
    b: &BlockRef,
    stored: &[u8],
    file: &str,
    k: u16,
) -> Result<Vec<u8>, SearchError> {
    Ok(b.decode(stored, file, section_name(k))?)
}
