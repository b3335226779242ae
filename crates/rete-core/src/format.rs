//! The fixed header, the section directory, and the low-level codecs shared by all sections
//! (block sizes, checksums; the zstd frame codec in `format/zstd.rs`, LEB128 varints in [`varint`]).
//! `docs/format.md` is the normative description; this module is its implementation.

use crate::error::{Error, Result};
use xxhash_rust::xxh3::xxh3_64;

/// First eight bytes of every `.rete` file of this lineage. The leading `0x89` keeps it apart from
/// text files and from upstream rete files (which start with ASCII `RETE`).
pub const MAGIC: [u8; 8] = [0x89, b'r', b'e', b't', b'e', b'\r', b'\n', 0x1a];
/// Major format version written and read. A reader refuses other majors.
pub const VERSION_MAJOR: u16 = 1;
/// Minor format version written. Minor bumps only add section kinds.
pub const VERSION_MINOR: u16 = 1;
/// Minor version of a file whose dictionary blocks are compressed with a zstd dictionary
/// ([`kind::DICT_ZSTD`]); the others keep [`VERSION_MINOR`].
pub const VERSION_MINOR_DICT_ZSTD: u16 = 2;
/// Size of the fixed header.
pub const HEADER_LEN: usize = 64;
/// Size of one section directory entry.
pub const ENTRY_LEN: usize = 40;
/// Upper bound on the number of sections a reader accepts.
pub const MAX_SECTIONS: u32 = 4096;
/// Upper bound on a decompressed block or whole-section payload (zstd-bomb guard). Tighter
/// bounds hold too: [`MAX_ZSTD_RATIO`] for every zstd frame, and per-kind caps for blocks.
pub const MAX_RAW_LEN: u64 = 1 << 30;

/// Longest encoded term (tag, lexical form, datatype or language tag) a writer stores and a
/// reader accepts: a build refuses a longer one with this limit in its message.
pub const MAX_TERM_LEN: usize = 16 << 20;
/// Most quads in one permutation block (a writer's `block_quads` is clamped to it).
pub const MAX_BLOCK_QUADS: usize = 1 << 16;
/// Longest decoded permutation block: four header varints, then per quad at most a run head
/// (13 bytes), the B and C residuals (10 each) and a graph run (13 bytes).
pub const MAX_PERM_BLOCK_RAW: u64 = 40 + MAX_BLOCK_QUADS as u64 * 46;
/// Largest raw size a dictionary writer aims its blocks at (its `block_target` is clamped to it).
pub const MAX_DICT_BLOCK_TARGET: usize = 1 << 20;
/// Longest decoded (front-coded) dictionary block: just under the target, plus one entry.
pub const MAX_DICT_BLOCK_RAW: u64 = (MAX_DICT_BLOCK_TARGET + MAX_TERM_LEN + 20) as u64;
/// Expanded term bytes at which a dictionary writer ends a block whatever its raw size, so that
/// long shared prefixes cannot make a small block expand without bound.
pub const DICT_BLOCK_EXPANDED_TARGET: usize = 16 << 20;
/// Most expanded term bytes in one dictionary block: just under the target, plus one term.
pub const MAX_DICT_BLOCK_EXPANDED: u64 = (DICT_BLOCK_EXPANDED_TARGET + MAX_TERM_LEN) as u64;
/// Decoded bytes a zstd frame may declare per stored byte once it declares more than
/// [`ZSTD_RATIO_FLOOR`]: what a reader decodes stays in proportion to what it read. A writer
/// stores data that compresses better as a frame of stored (uncompressed) zstd blocks.
pub const MAX_ZSTD_RATIO: u64 = 32;
/// Decoded size below which a zstd frame may have any ratio.
pub const ZSTD_RATIO_FLOOR: u64 = 1 << 20;
/// Shortest zstd frame (magic, frame header, one block header): every stored block is at least
/// this long, so a block count above a section's length over it is corrupt.
pub const MIN_FRAME_LEN: u64 = 9;
/// Items a decoder reserves room for before the data shows they are there; beyond it vectors
/// grow with what is decoded.
pub const PREALLOC_ITEMS: usize = 4096;

/// `n` items, or [`PREALLOC_ITEMS`] if fewer: the capacity to reserve for a declared count.
pub fn prealloc(n: usize) -> usize {
    n.min(PREALLOC_ITEMS)
}

/// Whether a zstd frame of `stored` bytes may declare `raw` decoded bytes ([`MAX_ZSTD_RATIO`]).
pub fn ratio_ok(stored: u64, raw: u64) -> bool {
    raw <= ZSTD_RATIO_FLOOR || raw <= stored.saturating_mul(MAX_ZSTD_RATIO)
}

/// Header flag: the dataset has quads in named graphs.
pub const FLAG_NAMED_GRAPHS: u32 = 1;
/// Header flag: RDFS/OWL-RL materialization was applied at build time.
pub const FLAG_MATERIALIZED: u32 = 2;
/// Header flag: the file has a community pyramid.
pub const FLAG_PYRAMID: u32 = 4;
/// Header flag: the file has a schema block.
pub const FLAG_SCHEMA: u32 = 8;

/// Section kinds. Readers skip kinds they do not know, so new kinds need no major bump.
/// Ranges: 1–15 core (this crate), 16–31 community pyramid (`rete-pyramid`),
/// 32–47 schema pyramid (`rete-schema`), 48–63 reserved.
pub mod kind {
    /// Dictionary block directory.
    pub const DICT_INDEX: u16 = 1;
    /// Dictionary blocks (front-coded, zstd per block).
    pub const DICT_BLOCKS: u16 = 2;
    /// Block directory of one permutation (`index` = permutation number).
    pub const PERM_INDEX: u16 = 3;
    /// Blocks of one permutation (`index` = permutation number).
    pub const PERM_BLOCKS: u16 = 4;
    /// The dataset card (JSON).
    pub const CARD: u16 = 5;
    /// Page table of the dictionary block directory (format 1.1, optional).
    pub const DICT_PAGES: u16 = 6;
    /// Page table of one permutation's block directory (`index` = permutation number; format
    /// 1.1, optional).
    pub const PERM_PAGES: u16 = 7;
    /// The zstd dictionary the dictionary blocks are compressed with (format 1.2, optional:
    /// without it they are plain zstd frames).
    pub const DICT_ZSTD: u16 = 8;
    /// First kind owned by the community pyramid.
    pub const PYRAMID_FIRST: u16 = 16;
    /// Last kind owned by the community pyramid.
    pub const PYRAMID_LAST: u16 = 31;
    /// First kind owned by the schema pyramid.
    pub const SCHEMA_FIRST: u16 = 32;
    /// Last kind owned by the schema pyramid.
    pub const SCHEMA_LAST: u16 = 47;
}

/// How a section's stored bytes map to its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Codec {
    /// Stored as is.
    Raw = 0,
    /// One zstd frame holding the whole payload.
    Zstd = 1,
    /// Independently compressed blocks described by a companion index section.
    Blocks = 2,
}

impl Codec {
    fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Raw),
            1 => Some(Self::Zstd),
            2 => Some(Self::Blocks),
            _ => None,
        }
    }
}

/// The fixed 64-byte header (all integers little-endian).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Number of distinct quads.
    pub quads: u64,
    /// Number of dictionary terms (ids run from 1 to `terms`).
    pub terms: u64,
    /// Number of directory entries.
    pub sections: u32,
    /// Total file length, to detect truncation at open.
    pub file_len: u64,
    /// xxh3-64 of the directory bytes.
    pub dir_checksum: u64,
}

impl Header {
    /// Serializes the header, including its own checksum in the last 8 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&self.major.to_le_bytes());
        b[10..12].copy_from_slice(&self.minor.to_le_bytes());
        b[12..16].copy_from_slice(&self.flags.to_le_bytes());
        b[16..24].copy_from_slice(&self.quads.to_le_bytes());
        b[24..32].copy_from_slice(&self.terms.to_le_bytes());
        b[32..36].copy_from_slice(&self.sections.to_le_bytes());
        b[36..40].copy_from_slice(&((self.sections as usize * ENTRY_LEN) as u32).to_le_bytes());
        b[40..48].copy_from_slice(&self.file_len.to_le_bytes());
        b[48..56].copy_from_slice(&self.dir_checksum.to_le_bytes());
        let sum = xxh3_64(&b[..56]);
        b[56..64].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Parses and validates a header read from `file`.
    pub fn parse(b: &[u8], file: &str) -> Result<Self> {
        if b.len() < HEADER_LEN {
            return Err(Error::corrupt(
                file,
                "header",
                format!(
                    "file is only {} bytes; a .rete header is {HEADER_LEN}",
                    b.len()
                ),
            ));
        }
        if b[..8] != MAGIC {
            let hint = if b.starts_with(b"RETE") {
                ": this looks like an upstream rete file, which this reader does not read"
                    .to_owned()
            } else {
                String::new()
            };
            return Err(Error::NotRete {
                file: file.to_owned(),
                hint,
            });
        }
        let major = u16le(b, 8);
        let minor = u16le(b, 10);
        if major != VERSION_MAJOR {
            return Err(Error::UnsupportedVersion {
                file: file.to_owned(),
                major,
                minor,
                supported: VERSION_MAJOR,
            });
        }
        let stored = u64le(b, 56);
        if stored != xxh3_64(&b[..56]) {
            return Err(Error::corrupt(file, "header", "header checksum mismatch"));
        }
        let sections = u32le(b, 32);
        let dir_len = u32le(b, 36);
        if sections > MAX_SECTIONS || dir_len as usize != sections as usize * ENTRY_LEN {
            return Err(Error::corrupt(
                file,
                "header",
                format!("implausible section count {sections}"),
            ));
        }
        Ok(Self {
            major,
            minor,
            flags: u32le(b, 12),
            quads: u64le(b, 16),
            terms: u64le(b, 24),
            sections,
            file_len: u64le(b, 40),
            dir_checksum: u64le(b, 48),
        })
    }

    /// Length of the section directory that follows the header.
    pub fn dir_len(&self) -> usize {
        self.sections as usize * ENTRY_LEN
    }
}

/// One entry of the section directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionEntry {
    /// Section kind (see [`kind`]).
    pub kind: u16,
    /// Index among sections of the same kind (e.g. permutation number).
    pub index: u16,
    /// Codec of the stored bytes.
    pub codec: Codec,
    /// Absolute offset of the stored bytes.
    pub offset: u64,
    /// Stored length.
    pub len: u64,
    /// Payload length after decoding (equal to `len` for raw and blocks).
    pub raw_len: u64,
    /// xxh3-64 of the stored bytes.
    pub checksum: u64,
}

impl SectionEntry {
    /// Serializes the entry.
    pub fn to_bytes(&self) -> [u8; ENTRY_LEN] {
        let mut b = [0u8; ENTRY_LEN];
        b[0..2].copy_from_slice(&self.kind.to_le_bytes());
        b[2..4].copy_from_slice(&self.index.to_le_bytes());
        b[4] = self.codec as u8;
        b[8..16].copy_from_slice(&self.offset.to_le_bytes());
        b[16..24].copy_from_slice(&self.len.to_le_bytes());
        b[24..32].copy_from_slice(&self.raw_len.to_le_bytes());
        b[32..40].copy_from_slice(&self.checksum.to_le_bytes());
        b
    }

    /// Parses one entry without any check (tools that edit a directory).
    pub fn from_bytes(e: &[u8]) -> Option<Self> {
        if e.len() < ENTRY_LEN {
            return None;
        }
        Some(Self {
            kind: u16le(e, 0),
            index: u16le(e, 2),
            codec: Codec::from_u8(e[4])?,
            offset: u64le(e, 8),
            len: u64le(e, 16),
            raw_len: u64le(e, 24),
            checksum: u64le(e, 32),
        })
    }

    /// Parses the directory; checks that every section lies inside a file of `file_len` bytes.
    pub fn parse_dir(b: &[u8], header: &Header, file: &str) -> Result<Vec<Self>> {
        if xxh3_64(b) != header.dir_checksum {
            return Err(Error::corrupt(
                file,
                "section directory",
                "checksum mismatch",
            ));
        }
        let data_start = (HEADER_LEN + header.dir_len()) as u64;
        b.chunks_exact(ENTRY_LEN)
            .map(|e| {
                let kind = u16le(e, 0);
                let codec = Codec::from_u8(e[4]).ok_or_else(|| {
                    Error::corrupt(
                        file,
                        format!("section directory (kind {kind})"),
                        format!("unknown codec {}", e[4]),
                    )
                })?;
                let entry = Self {
                    kind,
                    index: u16le(e, 2),
                    codec,
                    offset: u64le(e, 8),
                    len: u64le(e, 16),
                    raw_len: u64le(e, 24),
                    checksum: u64le(e, 32),
                };
                let end = entry.offset.checked_add(entry.len);
                if entry.offset < data_start || end.is_none_or(|end| end > header.file_len) {
                    return Err(Error::corrupt(
                        file,
                        entry.name(),
                        format!(
                            "section at {}+{} lies outside the file ({} bytes)",
                            entry.offset, entry.len, header.file_len
                        ),
                    ));
                }
                // Whole sections (not block sections) are read into memory at once.
                if entry.codec != Codec::Blocks && entry.raw_len.max(entry.len) > MAX_RAW_LEN {
                    return Err(Error::corrupt(
                        file,
                        entry.name(),
                        format!(
                            "declared size {} exceeds the {MAX_RAW_LEN}-byte limit",
                            entry.raw_len
                        ),
                    ));
                }
                if entry.codec == Codec::Zstd && !ratio_ok(entry.len, entry.raw_len) {
                    return Err(Error::corrupt(
                        file,
                        entry.name(),
                        format!(
                            "{} stored bytes declare {} decoded bytes, beyond the \
                             {MAX_ZSTD_RATIO}:1 limit",
                            entry.len, entry.raw_len
                        ),
                    ));
                }
                Ok(entry)
            })
            .collect::<Result<Vec<Self>>>()
            .and_then(|entries| check_disjoint(entries, file))
    }

    /// A human name for messages, e.g. `permutation POS blocks`.
    pub fn name(&self) -> String {
        section_name(self.kind, self.index)
    }
}

/// Refuses sections whose stored bytes overlap: each byte of a file belongs to one section.
fn check_disjoint(entries: Vec<SectionEntry>, file: &str) -> Result<Vec<SectionEntry>> {
    let mut by_offset: Vec<&SectionEntry> = entries.iter().filter(|e| e.len > 0).collect();
    by_offset.sort_by_key(|e| e.offset);
    for w in by_offset.windows(2) {
        // Both lie inside the file, so the sum cannot overflow.
        if w[0].offset + w[0].len > w[1].offset {
            return Err(Error::corrupt(
                file,
                "section directory",
                format!("{} overlaps {}", w[0].name(), w[1].name()),
            ));
        }
    }
    Ok(entries)
}

/// Human name of a section kind, for messages.
pub fn section_name(kind: u16, index: u16) -> String {
    match kind {
        kind::DICT_INDEX => "dictionary index".into(),
        kind::DICT_BLOCKS => "dictionary blocks".into(),
        kind::PERM_INDEX => format!("permutation {} index", perm_label(index)),
        kind::PERM_BLOCKS => format!("permutation {} blocks", perm_label(index)),
        kind::CARD => "card".into(),
        kind::DICT_PAGES => "dictionary index pages".into(),
        kind::PERM_PAGES => format!("permutation {} index pages", perm_label(index)),
        kind::DICT_ZSTD => "dictionary zstd dictionary".into(),
        kind::PYRAMID_FIRST..=kind::PYRAMID_LAST => format!("pyramid section {kind}.{index}"),
        kind::SCHEMA_FIRST..=kind::SCHEMA_LAST => format!("schema section {kind}.{index}"),
        _ => format!("section {kind}.{index}"),
    }
}

fn perm_label(index: u16) -> &'static str {
    crate::Perm::ALL
        .get(index as usize)
        .map(|p| p.label())
        .unwrap_or("?")
}

pub(crate) fn u16le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
pub(crate) fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]))
}
pub(crate) fn u64le(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// 32-bit block checksum (low half of xxh3-64).
pub fn block_checksum(stored: &[u8]) -> u32 {
    xxh3_64(stored) as u32
}

/// The sizes every block directory entry (dictionary or permutation) carries: items in the
/// block, stored and decoded length, checksum; read and checked for plausibility.
pub(crate) struct BlockSizes {
    pub count: u32,
    pub stored_len: u32,
    pub raw_len: u32,
    pub checksum: u32,
}

impl BlockSizes {
    /// Reads one entry's sizes; `max_count` and `max_raw` are the caps of the block's kind.
    pub(crate) fn read(
        c: &mut varint::Cursor<'_>,
        (max_count, max_raw): (u64, u64),
        bad: &dyn Fn(&str) -> Error,
    ) -> Result<Self> {
        let count = c.get().ok_or_else(|| bad("truncated"))?;
        let stored_len = c.get().ok_or_else(|| bad("truncated"))?;
        let raw_len = c.get().ok_or_else(|| bad("truncated"))?;
        let checksum = c.u32().ok_or_else(|| bad("truncated"))?;
        if count == 0
            || count > max_count.min(u64::from(u32::MAX))
            || !(MIN_FRAME_LEN..=u64::from(u32::MAX)).contains(&stored_len)
            || raw_len > max_raw.min(MAX_RAW_LEN)
        {
            return Err(bad("implausible block sizes"));
        }
        if !ratio_ok(stored_len, raw_len) {
            return Err(bad(&format!(
                "a block of {stored_len} bytes declares {raw_len} decoded bytes, beyond the \
                 {MAX_ZSTD_RATIO}:1 limit"
            )));
        }
        Ok(Self {
            count: count as u32,
            stored_len: stored_len as u32,
            raw_len: raw_len as u32,
            checksum,
        })
    }
}

pub mod varint;
mod zstd;

pub(crate) use self::zstd::Zc;
pub use self::zstd::{
    check_declared, within_ratio, zstd_compress, zstd_decode, zstd_decode_with, zstd_stored_frame,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_of_every_shape_read_what_was_written() {
        let values = [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut buf = Vec::new();
        for &v in &values {
            varint::put(&mut buf, v);
        }
        // From a slice with a position, and from a reader.
        let (mut pos, mut io) = (0, &buf[..]);
        for &v in &values {
            assert_eq!(varint::read(&buf, &mut pos), Some(v));
            let mut one = Vec::new();
            varint::put(&mut one, v);
            assert_eq!(varint::read_io(&mut io).unwrap(), (v, one.len()));
        }
        assert_eq!((pos, io.len()), (buf.len(), 0));
        // Truncated and overlong ones are refused, each with its kind.
        assert_eq!(varint::read(&[0x80], &mut 0), None);
        let over = [0xff; 11];
        assert_eq!(varint::read(&over, &mut 0), None);
        let kind = |b: &[u8]| varint::read_io(&mut &b[..]).unwrap_err().kind();
        assert_eq!(kind(&[0x80]), std::io::ErrorKind::UnexpectedEof);
        assert_eq!(kind(&over), std::io::ErrorKind::InvalidData);
        // u128 keys in a fixed buffer.
        let mut rec = [0u8; varint::MAX_LEN_U128];
        for v in [0u128, 200, u128::from(u64::MAX) + 1, u128::MAX] {
            let n = varint::put_u128(&mut rec, v);
            assert_eq!(varint::get_u128(&rec[..n]), Some((v, n)));
            assert_eq!(varint::get_u128(&rec[..n - 1]), None);
        }
    }

    #[test]
    fn varint_round_trip() {
        let vals = [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX];
        let mut buf = Vec::new();
        for v in vals {
            varint::put(&mut buf, v);
        }
        let mut c = varint::Cursor::new(&buf);
        for v in vals {
            assert_eq!(c.get(), Some(v));
        }
        assert!(c.is_at_end());
        assert_eq!(varint::Cursor::new(&[0x80]).get(), None);
        assert_eq!(varint::Cursor::new(&[0xff; 11]).get(), None);
        for v in [-5i64, 0, 7, i64::MIN, i64::MAX] {
            assert_eq!(varint::unzigzag(varint::zigzag(v)), v);
        }
    }

    #[test]
    fn header_round_trip() {
        let h = Header {
            major: 1,
            minor: 0,
            flags: 3,
            quads: 10,
            terms: 5,
            sections: 2,
            file_len: 999,
            dir_checksum: 42,
        };
        let b = h.to_bytes();
        assert_eq!(Header::parse(&b, "x").unwrap(), h);
        let mut bad = b;
        bad[20] ^= 1;
        assert!(matches!(
            Header::parse(&bad, "x"),
            Err(Error::Corrupt { .. })
        ));
        assert!(matches!(
            Header::parse(
                b"RETE\x05aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                "x"
            ),
            Err(Error::NotRete { .. })
        ));
    }
}
