//! Whole `.rete` images in memory, every checksum computed: for tools and tests that build files
//! section by section (the fuzz harness, the crafted-file tests). A checksum is no seal: anyone can
//! make a hostile file whose checksums are valid, so the decoders must hold on their own.

use crate::format::{Codec, Header, SectionEntry, HEADER_LEN, VERSION_MAJOR, VERSION_MINOR};
use xxhash_rust::xxh3::xxh3_64;

/// One section as stored.
#[derive(Debug, Clone)]
pub struct RawSection {
    /// Kind (see [`crate::format::kind`]).
    pub kind: u16,
    /// Index among sections of its kind.
    pub index: u16,
    /// Codec of the stored bytes.
    pub codec: Codec,
    /// Declared decoded length.
    pub raw_len: u64,
    /// Stored bytes.
    pub stored: Vec<u8>,
}

impl RawSection {
    /// A section stored as is.
    pub fn raw(kind: u16, index: u16, bytes: Vec<u8>) -> Self {
        let raw_len = bytes.len() as u64;
        Self::new(kind, index, Codec::Raw, raw_len, bytes)
    }

    /// A section with the given codec and declared decoded length.
    pub fn new(kind: u16, index: u16, codec: Codec, raw_len: u64, stored: Vec<u8>) -> Self {
        Self {
            kind,
            index,
            codec,
            raw_len,
            stored,
        }
    }
}

/// Lays out header, directory and sections (in the given order) with all checksums.
pub fn assemble(flags: u32, quads: u64, terms: u64, sections: &[RawSection]) -> Vec<u8> {
    let dir_len = sections.len() * crate::format::ENTRY_LEN;
    let mut offset = (HEADER_LEN + dir_len) as u64;
    let mut dir = Vec::with_capacity(dir_len);
    for s in sections {
        let e = SectionEntry {
            kind: s.kind,
            index: s.index,
            codec: s.codec,
            offset,
            len: s.stored.len() as u64,
            raw_len: s.raw_len,
            checksum: xxh3_64(&s.stored),
        };
        dir.extend_from_slice(&e.to_bytes());
        offset += s.stored.len() as u64;
    }
    let header = Header {
        major: VERSION_MAJOR,
        minor: VERSION_MINOR,
        flags,
        quads,
        terms,
        sections: sections.len() as u32,
        file_len: offset,
        dir_checksum: xxh3_64(&dir),
    };
    let mut out = Vec::with_capacity(offset as usize);
    out.extend_from_slice(&header.to_bytes());
    out.extend_from_slice(&dir);
    for s in sections {
        out.extend_from_slice(&s.stored);
    }
    out
}

/// Recomputes the directory and header checksums of an image whose header or directory was
/// edited in place (the sections' own checksums are left as they are).
pub fn reseal(file: &mut [u8]) {
    if file.len() < HEADER_LEN {
        return;
    }
    let sections = u32::from_le_bytes([file[32], file[33], file[34], file[35]]) as usize;
    let end = (HEADER_LEN + sections * crate::format::ENTRY_LEN).min(file.len());
    let dir_sum = xxh3_64(&file[HEADER_LEN..end]);
    file[48..56].copy_from_slice(&dir_sum.to_le_bytes());
    let sum = xxh3_64(&file[..56]);
    file[56..64].copy_from_slice(&sum.to_le_bytes());
}

/// Recomputes every checksum a mutation of an image broke: each section's (where its entry lies
/// inside the image), then the directory's and the header's. What is left is a file a forger
/// could send.
pub fn reseal_all(file: &mut [u8]) {
    if file.len() < HEADER_LEN {
        return;
    }
    let n = u32::from_le_bytes([file[32], file[33], file[34], file[35]]) as usize;
    for i in 0..n.min(crate::format::MAX_SECTIONS as usize) {
        let at = HEADER_LEN + i * crate::format::ENTRY_LEN;
        let Some(e) = file
            .get(at..at + crate::format::ENTRY_LEN)
            .and_then(SectionEntry::from_bytes)
        else {
            break;
        };
        let range = usize::try_from(e.offset)
            .ok()
            .zip(usize::try_from(e.len).ok())
            .and_then(|(o, l)| Some(o..o.checked_add(l)?));
        if let Some(stored) = range.and_then(|r| file.get(r)) {
            let sum = xxh3_64(stored);
            file[at + 32..at + 40].copy_from_slice(&sum.to_le_bytes());
        }
    }
    reseal(file);
}

/// Rewrites directory entry `i` of an image with `edit`, then reseals it.
pub fn edit_entry(file: &mut [u8], i: usize, edit: impl FnOnce(&mut SectionEntry)) -> bool {
    let at = HEADER_LEN + i * crate::format::ENTRY_LEN;
    let Some(b) = file.get(at..at + crate::format::ENTRY_LEN) else {
        return false;
    };
    let Some(mut e) = SectionEntry::from_bytes(b) else {
        return false;
    };
    edit(&mut e);
    file[at..at + crate::format::ENTRY_LEN].copy_from_slice(&e.to_bytes());
    reseal(file);
    true
}
