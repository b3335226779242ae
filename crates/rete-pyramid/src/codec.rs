//! The pyramid sections' kinds, magics and versions. Their bytes are written and read with
//! rete-core's block codec (`rete_core::block`: the buffer, block references, the batching block
//! writer) and its bounds-checked `SectionReader` (every inconsistency becomes
//! `rete_core::Error::Corrupt`, wrapped in [`crate::PyramidError::Format`]).

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
