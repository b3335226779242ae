//! The fixed header, the section directory, and the low-level codecs shared by all sections
//! (block sizes, checksums, the zstd frame codec; LEB128 varints in [`varint`]).
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

/// Largest declared size [`zstd_decode`] reserves up front; beyond it the output grows with what
/// the frame really decodes to, so a lying size costs nothing.
const ZSTD_PREALLOC: u64 = 16 << 20;

thread_local! {
    /// Each thread's zstd decoder, kept between blocks: a new one per block (what
    /// `zstd::bulk::decompress` makes) allocates and maps its ~100 KiB of context every time.
    static DECODER: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// `zstd::bulk::decompress` on this thread's decoder.
fn bulk_decompress(stored: &[u8], capacity: usize) -> std::io::Result<Vec<u8>> {
    DECODER.with(|d| match d.try_borrow_mut() {
        Ok(mut d) => {
            let d = match d.as_mut() {
                Some(d) => d,
                None => d.insert(zstd::bulk::Decompressor::new()?),
            };
            d.decompress(stored, capacity)
        }
        // Not reached (nothing here calls back into it); a fresh decoder would do.
        Err(_) => zstd::bulk::decompress(stored, capacity),
    })
}

/// Whether a zstd frame of `stored_len` bytes may declare `raw_len` decoded bytes: at most
/// [`MAX_RAW_LEN`], within [`MAX_ZSTD_RATIO`]. Checked by [`zstd_decode`], and before a decoded
/// length is charged to a document's decode budget (a section its own rules refuse is reported
/// as such).
pub fn check_declared(
    stored_len: u64,
    raw_len: u64,
    file: &str,
    section: &dyn Fn() -> String,
) -> Result<()> {
    if raw_len > MAX_RAW_LEN {
        return Err(Error::corrupt(
            file,
            section(),
            format!("declared size {raw_len} exceeds the limit"),
        ));
    }
    if !ratio_ok(stored_len, raw_len) {
        return Err(Error::corrupt(
            file,
            section(),
            format!(
                "{stored_len} stored bytes declare {raw_len} decoded bytes, beyond the \
                 {MAX_ZSTD_RATIO}:1 limit"
            ),
        ));
    }
    Ok(())
}

/// Decompresses a zstd frame whose decoded size is declared as `raw_len`; refuses anything else.
/// The one zstd decoder of every section and block (core, pyramid, schema), with one size limit:
/// [`MAX_RAW_LEN`].
pub fn zstd_decode(
    stored: &[u8],
    raw_len: u64,
    file: &str,
    section: &dyn Fn() -> String,
) -> Result<Vec<u8>> {
    zstd_decode_with(stored, raw_len, None, file, section)
}

thread_local! {
    /// Each thread's zstd context for frames compressed with a dictionary (the dictionary is
    /// the file's, passed at each call).
    static DICT_DECODER: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// [`zstd_decode`] of a frame compressed with `dict` (a file's [`kind::DICT_ZSTD`]), if any.
pub fn zstd_decode_with(
    stored: &[u8],
    raw_len: u64,
    dict: Option<&zstd::zstd_safe::DDict<'static>>,
    file: &str,
    section: &dyn Fn() -> String,
) -> Result<Vec<u8>> {
    check_declared(stored.len() as u64, raw_len, file, section)?;
    let zerr = |e: std::io::Error| Error::corrupt(file, section(), format!("zstd: {e}"));
    let out = if let Some(dict) = dict {
        // Blocks compressed with a dictionary are a dictionary block's size (at most
        // MAX_DICT_BLOCK_RAW, checked with the directory), so the output is reserved whole.
        let mut out = Vec::with_capacity(raw_len as usize);
        DICT_DECODER
            .with(|d| -> std::io::Result<()> {
                let mut d = d
                    .try_borrow_mut()
                    .map_err(|_| std::io::Error::other("decoder in use"))?;
                let d = match d.as_mut() {
                    Some(d) => d,
                    None => d
                        .insert(zstd::zstd_safe::DCtx::try_create().ok_or_else(|| {
                            std::io::Error::other("cannot create a zstd context")
                        })?),
                };
                d.decompress_using_ddict(&mut out, stored, dict)
                    .map(|_| ())
                    .map_err(|code| std::io::Error::other(zstd::zstd_safe::get_error_name(code)))
            })
            .map_err(zerr)?;
        out
    } else if raw_len <= ZSTD_PREALLOC {
        bulk_decompress(stored, raw_len as usize).map_err(zerr)?
    } else {
        use std::io::Read;
        let mut out = Vec::with_capacity(ZSTD_PREALLOC as usize);
        zstd::stream::read::Decoder::with_buffer(stored)
            .map_err(zerr)?
            .take(raw_len + 1)
            .read_to_end(&mut out)
            .map_err(zerr)?;
        out
    };
    if out.len() as u64 != raw_len {
        return Err(Error::corrupt(
            file,
            section(),
            format!("decoded {} bytes, expected {raw_len}", out.len()),
        ));
    }
    Ok(out)
}

pub mod varint;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_decoder_survives_damaged_frames() {
        // One decoder serves every block of a thread: a frame that fails (truncated, garbage,
        // a lying size) must leave it able to decode the next one.
        let a: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let b = b"a second, shorter block".repeat(40);
        let (za, zb) = (
            zstd::bulk::compress(&a, 3).expect("compress"),
            zstd::bulk::compress(&b, 3).expect("compress"),
        );
        let name = || "test block".to_owned();
        let ok = |z: &[u8], raw: &[u8]| {
            let out = zstd_decode(z, raw.len() as u64, "f", &name).expect("decodes");
            assert_eq!(out, raw);
        };
        ok(&za, &a);
        for bad in [
            (&za[..za.len() / 2], a.len() as u64),
            (&b"not a zstd frame at all"[..], 100),
            (&za[..], a.len() as u64 - 1),
        ] {
            assert!(zstd_decode(bad.0, bad.1, "f", &name).is_err());
            ok(&zb, &b);
            ok(&za, &a);
        }
    }

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
    fn stored_frames_decode_and_ratios_hold() {
        let name = || "s".to_owned();
        for len in [0usize, 1, 100, 128 << 10, (128 << 10) + 1, 3 << 20] {
            let data: Vec<u8> = (0..len).map(|i| (i % 7) as u8).collect();
            let frame = zstd_stored_frame(&data);
            assert_eq!(zstd_decode(&frame, len as u64, "f", &name).unwrap(), data);
            let bounded = zstd_compress(&data, 3).unwrap();
            assert!(ratio_ok(bounded.len() as u64, len as u64));
            assert_eq!(zstd_decode(&bounded, len as u64, "f", &name).unwrap(), data);
        }
        // 2 MiB of zeros compresses far beyond the ratio: stored instead, and the compressed
        // frame is refused before anything is decoded.
        let zeros = vec![0u8; 2 << 20];
        let tight = zstd::bulk::compress(&zeros, 3).unwrap();
        let e = zstd_decode(&tight, zeros.len() as u64, "f", &name).unwrap_err();
        assert!(e.to_string().contains("32:1"), "{e}");
        assert_eq!(
            zstd_compress(&zeros, 3).unwrap().len(),
            zeros.len() + 13 + 3 * 16
        );
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

/// Largest block of a stored zstd frame (the format's `Block_Maximum_Size`).
const STORED_BLOCK: usize = 128 << 10;

/// `data` as a zstd frame of stored (uncompressed) blocks: any zstd decoder reads it, and its
/// ratio is below 1.
pub fn zstd_stored_frame(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 16 + 3 * (data.len() / STORED_BLOCK + 1));
    out.extend_from_slice(&0xFD2F_B528u32.to_le_bytes());
    // Frame header: single segment, 8-byte content size, no checksum, no dictionary.
    out.push(0xE0);
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let mut chunks = data.chunks(STORED_BLOCK).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0]);
    }
    while let Some(chunk) = chunks.next() {
        // Block header: last-block bit, type 0 (raw), size.
        let head = (chunk.len() as u32) << 3 | u32::from(chunks.peek().is_none());
        out.extend_from_slice(&head.to_le_bytes()[..3]);
        out.extend_from_slice(chunk);
    }
    out
}

/// `frame` if its ratio to `data` is one a reader accepts ([`ratio_ok`]), else `data` in a
/// stored frame: every frame a writer makes is one a reader decodes.
pub fn within_ratio(data: &[u8], frame: Vec<u8>) -> Vec<u8> {
    if ratio_ok(frame.len() as u64, data.len() as u64) {
        frame
    } else {
        zstd_stored_frame(data)
    }
}

/// `data` compressed at `level` as one zstd frame within [`MAX_ZSTD_RATIO`]: the compressor of
/// every whole section and page.
pub fn zstd_compress(data: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
    Ok(within_ratio(data, zstd::bulk::compress(data, level)?))
}

/// A zstd compression context reused across the blocks of a writer: a new context per block
/// cost its set-up every time, and the compressed bytes are the same.
#[derive(Default)]
pub(crate) struct Zc(Option<zstd::bulk::Compressor<'static>>);

impl Zc {
    /// `data` compressed at `level` (the same level on every call of one writer), within
    /// [`MAX_ZSTD_RATIO`].
    pub(crate) fn compress(&mut self, level: i32, data: &[u8]) -> std::io::Result<Vec<u8>> {
        let c = match &mut self.0 {
            Some(c) => c,
            None => self.0.insert(zstd::bulk::Compressor::new(level)?),
        };
        Ok(within_ratio(data, c.compress(data)?))
    }
}

impl std::fmt::Debug for Zc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Zc")
    }
}

#[cfg(test)]
mod zc_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]

    /// A reused context gives the bytes a new context gives, block after block, whatever their
    /// sizes (zstd sizes its tables from each input).
    #[test]
    fn reused_context_compresses_like_a_new_one() {
        let mut zc = super::Zc::default();
        for (i, len) in [40_000usize, 10, 0, 300_000, 5_000, 70_000]
            .into_iter()
            .enumerate()
        {
            let data: Vec<u8> = (0..len)
                .map(|k| (((k * 7 + i) % 251) ^ (k >> 9)) as u8)
                .collect();
            for level in [9, 3] {
                let mut z = super::Zc::default();
                assert_eq!(
                    z.compress(level, &data).unwrap(),
                    zstd::bulk::compress(&data, level).unwrap()
                );
            }
            assert_eq!(
                zc.compress(9, &data).unwrap(),
                zstd::bulk::compress(&data, 9).unwrap(),
                "block {i}"
            );
        }
    }
}
