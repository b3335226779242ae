//! Paged block directories (format 1.1): a remote reader fetches only the pages of a block
//! directory that a lookup visits, instead of the whole directory.
//!
//! A directory section (kind 1 or 3) is stored as several zstd frames back to back, one per page
//! of consecutive entries; decoded together they give the same payload as a single frame, so a
//! reader of format 1.0 (or one that wants the whole directory) reads it unchanged. A companion
//! *page table* (kind 6 for the dictionary, kind 7 with the permutation number for a permutation)
//! lists every page: where its frame lies, its checksum, how many blocks, terms or quads it
//! covers and the first term or key of its first block, so a binary search over the table names
//! the one page to fetch. See docs/format.md, "Paged block directories".

mod pages;
mod table;

pub use pages::{DictPages, Pages, PermPages, ReadFn};
pub use table::Expect;

use crate::dict::DictIndex;
use crate::error::{Error, Result};
use crate::format::{block_checksum, varint};
use crate::perm::PermIndex;

/// Dictionary blocks per directory page (an entry holds a block's first term: ~40–60 bytes).
pub const DICT_PAGE_BLOCKS: usize = 64;
/// Permutation blocks per directory page (an entry takes ~20 bytes).
pub const PERM_PAGE_BLOCKS: usize = 128;

/// A directory stored as pages: the stored bytes of the directory section (concatenated zstd
/// frames), its decoded length, and the payload of its page table section.
#[derive(Debug, Clone)]
pub struct PagedDir {
    /// Stored bytes of the directory section (codec zstd, one frame per page).
    pub stored: Vec<u8>,
    /// Decoded length of the whole directory.
    pub raw_len: u64,
    /// Payload of the page table section (stored raw).
    pub table: Vec<u8>,
}

/// A page's frame as written: `(frame length, decoded length, check32)`.
type FrameInfo = (u64, u64, u32);

/// Compresses `payload` (the directory bytes) as one frame per page; `cuts` are the payload
/// offsets where pages end (the last is the payload's length). Returns the stored bytes and, per
/// page, `(frame length, decoded length, check32)`.
fn frames(payload: &[u8], cuts: &[usize], level: i32) -> Result<(Vec<u8>, Vec<FrameInfo>)> {
    let mut stored = Vec::new();
    let mut pages = Vec::with_capacity(cuts.len());
    let mut start = 0;
    for &end in cuts {
        let frame = crate::format::zstd_compress(&payload[start..end], level)
            .map_err(|e| Error::io("directory page", e))?;
        pages.push((
            frame.len() as u64,
            (end - start) as u64,
            block_checksum(&frame),
        ));
        stored.extend_from_slice(&frame);
        start = end;
    }
    Ok((stored, pages))
}

fn page_head(out: &mut Vec<u8>, (frame_len, raw_len, check): FrameInfo, blocks: usize) {
    varint::put(out, frame_len);
    varint::put(out, raw_len);
    out.extend_from_slice(&check.to_le_bytes());
    varint::put(out, blocks as u64);
}

/// A directory of `blocks` in pages of `per_page` blocks, zstd `level`: `entry` appends a
/// block's directory entry to the payload, `key` a page's first key to its table entry, and
/// `sizes` gives a block's item count and stored length.
fn page_dir<B>(
    blocks: &[B],
    per_page: usize,
    level: i32,
    mut entry: impl FnMut(&mut Vec<u8>, &B),
    sizes: impl Fn(&B) -> (u32, u32),
    mut key: impl FnMut(&mut Vec<u8>, Option<&B>),
) -> Result<PagedDir> {
    let per_page = per_page.max(1);
    let mut payload = Vec::new();
    varint::put(&mut payload, blocks.len() as u64);
    let mut cuts = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        entry(&mut payload, b);
        if (i + 1) % per_page == 0 || i + 1 == blocks.len() {
            cuts.push(payload.len());
        }
    }
    if cuts.is_empty() {
        cuts.push(payload.len());
    }
    let (stored, pages) = frames(&payload, &cuts, level)?;
    let mut table = Vec::new();
    varint::put(&mut table, pages.len() as u64);
    for (p, &page) in pages.iter().enumerate() {
        let on_page =
            &blocks[(p * per_page).min(blocks.len())..((p + 1) * per_page).min(blocks.len())];
        page_head(&mut table, page, on_page.len());
        varint::put(
            &mut table,
            on_page.iter().map(|b| u64::from(sizes(b).0)).sum(),
        );
        varint::put(
            &mut table,
            on_page.iter().map(|b| u64::from(sizes(b).1)).sum(),
        );
        key(&mut table, on_page.first());
    }
    Ok(PagedDir {
        stored,
        raw_len: payload.len() as u64,
        table,
    })
}

/// The dictionary directory in pages of `per_page` blocks, zstd `level`.
pub fn page_dict(index: &DictIndex, per_page: usize, level: i32) -> Result<PagedDir> {
    page_dir(
        &index.blocks,
        per_page,
        level,
        |out, b| b.encode(out),
        |b| (b.count, b.stored_len),
        |table, first| {
            let first = first.map_or(&[][..], |b| &b.first_term[..]);
            varint::put(table, first.len() as u64);
            table.extend_from_slice(first);
        },
    )
}

/// A permutation's directory in pages of `per_page` blocks, zstd `level`.
pub fn page_perm(index: &PermIndex, per_page: usize, level: i32) -> Result<PagedDir> {
    // Entries code their first key against the previous entry's, page keys against the
    // previous page's.
    let (mut prev_entry, mut prev_page) = (0, 0);
    page_dir(
        &index.blocks,
        per_page,
        level,
        |out, b| {
            b.encode(out, prev_entry);
            prev_entry = b.first[0];
        },
        |b| (b.count, b.stored_len),
        |table, first| {
            let first = first.map_or([0; 4], |b| b.first);
            varint::put(table, first[0].wrapping_sub(prev_page));
            prev_page = first[0];
            for &k in &first[1..] {
                varint::put(table, k);
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::table::PERM_ENTRY_MIN;
    use super::*;
    use crate::dict::DictWriter;
    use crate::format::zstd_decode;
    use crate::perm::PermWriter;
    use crate::term::compare;

    fn dict(n: usize) -> (DictIndex, u64) {
        let mut terms: Vec<Vec<u8>> = (0..n)
            .map(|i| format!("\u{1}http://ex.org/p{i}").into_bytes())
            .collect();
        terms.sort_by(|a, b| compare(a, b));
        let mut w = DictWriter::new(Vec::new(), 256, 3);
        for t in &terms {
            w.push(t).unwrap_or_default();
        }
        let (index, len, ..) = w
            .finish()
            .unwrap_or_else(|_| (DictIndex::default(), 0, Vec::new(), None));
        (index, len)
    }

    fn perm(n: u64) -> PermIndex {
        let mut w = PermWriter::new(Vec::new(), 16, 3);
        for i in 0..n {
            let _ = w.push([1 + i / 7, 1 + i % 7, 3 + i, 0]);
        }
        w.finish().map(|(i, ..)| i).unwrap_or_default()
    }

    /// What a file's header promises of `paged`: the directory's stored length, the blocks
    /// section's length and the term or quad count.
    fn expect_of(paged: &PagedDir, blocks_len: u64, items: u64) -> Expect {
        Expect {
            dir_len: paged.stored.len() as u64,
            blocks_len,
            items,
        }
    }

    /// The stored length of `index`'s blocks.
    fn perm_blocks_len(index: &PermIndex) -> u64 {
        index.blocks.iter().map(|b| u64::from(b.stored_len)).sum()
    }

    fn reader(stored: &[u8]) -> impl Fn(u64, usize) -> Result<Vec<u8>> + '_ {
        move |o, l| {
            stored
                .get(o as usize..o as usize + l)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| Error::corrupt("t", "s", "out of range"))
        }
    }

    #[test]
    fn pages_decode_to_the_whole_directory() {
        let (index, blocks_len) = dict(3000);
        assert!(index.blocks.len() > 3 * 8);
        let paged = page_dict(&index, 8, 3).unwrap();
        // All frames together decode to the single-frame payload: a 1.0 reader reads them.
        let whole = zstd_decode(&paged.stored, paged.raw_len, "t", &|| "d".into()).unwrap();
        assert_eq!(whole, index.encode());
        let pages =
            DictPages::decode(&paged.table, expect_of(&paged, blocks_len, 3000), "t").unwrap();
        let read = reader(&paged.stored);
        for (b, m) in index.blocks.iter().enumerate() {
            assert_eq!(&pages.block(b, &read, "t").unwrap(), m);
            let last = m.first_id + u64::from(m.count) - 1;
            for id in [m.first_id, last] {
                assert_eq!(
                    pages.block_of_id(id, &read, "t").unwrap(),
                    Some((b, m.first_id))
                );
            }
            assert_eq!(
                pages.block_for_term(&m.first_term, &read, "t").unwrap(),
                Some((b, m.first_id))
            );
        }
        assert_eq!(pages.block_of_id(3001, &read, "t").unwrap(), None);
        assert_eq!(pages.block_for_term(b"\x00", &read, "t").unwrap(), None);

        let index = perm(5000);
        let paged = page_perm(&index, 8, 3).unwrap();
        let whole = zstd_decode(&paged.stored, paged.raw_len, "t", &|| "p".into()).unwrap();
        assert_eq!(whole, index.encode());
        let expect = expect_of(&paged, perm_blocks_len(&index), 5000);
        let pages = PermPages::decode(&paged.table, expect, "p", "t").unwrap();
        let read = reader(&paged.stored);
        assert_eq!(pages.len(), index.blocks.len());
        for (b, m) in index.blocks.iter().enumerate() {
            assert_eq!(&pages.block(b, &read, "t").unwrap(), m);
        }
        for key in [[0, 0, 0, 0], [5, 3, 0, 0], [300, 0, 0, 0], [u64::MAX; 4]] {
            assert_eq!(
                pages.blocks_up_to(&key, &read, "t").unwrap(),
                index.end_block_for(&key),
                "{key:?}"
            );
        }
    }

    #[test]
    fn one_small_page_decodes() {
        // A one-quad file's tables hold one page of minimal entries (every varint one byte).
        let (index, blocks_len) = dict(1);
        let paged = page_dict(&index, 8, 3).unwrap();
        let pages = DictPages::decode(&paged.table, expect_of(&paged, blocks_len, 1), "t").unwrap();
        let read = reader(&paged.stored);
        assert_eq!(pages.block_of_id(1, &read, "t").unwrap(), Some((0, 1)));

        let index = perm(1);
        let paged = page_perm(&index, 8, 3).unwrap();
        assert_eq!(paged.table.len(), 1 + PERM_ENTRY_MIN, "minimal entry");
        let expect = expect_of(&paged, perm_blocks_len(&index), 1);
        let pages = PermPages::decode(&paged.table, expect, "p", "t").unwrap();
        assert_eq!(pages.len(), 1);
    }

    #[test]
    fn concatenated_frames_decode_whole_on_both_zstd_paths() {
        // Large directories (over 16 MiB decoded) go through the streaming decoder.
        for len in [1000usize, (17 << 20) + 5] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let cuts = [len / 3, len / 2, len];
            let (stored, pages) = frames(&payload, &cuts, 1).unwrap();
            assert_eq!(pages.len(), 3);
            let out = zstd_decode(&stored, len as u64, "t", &|| "s".into()).unwrap();
            assert!(out == payload, "{len}");
        }
    }

    #[test]
    fn damaged_pages_are_errors() {
        let index = perm(2000);
        let paged = page_perm(&index, 8, 3).unwrap();
        let expect = expect_of(&paged, perm_blocks_len(&index), 2000);
        // A table that does not add up to the file, or is cut short, is refused.
        for bad in [
            Expect {
                items: 1999,
                ..expect
            },
            Expect {
                dir_len: expect.dir_len + 1,
                ..expect
            },
            Expect {
                blocks_len: 0,
                ..expect
            },
        ] {
            assert!(PermPages::decode(&paged.table, bad, "p", "t").is_err());
        }
        for cut in 0..paged.table.len() {
            assert!(PermPages::decode(&paged.table[..cut], expect, "p", "t").is_err());
        }
        // A flipped byte in a page, or a page cut short, is an error on reading that page.
        let pages = PermPages::decode(&paged.table, expect, "p", "t").unwrap();
        let mut stored = paged.stored.clone();
        stored[5] ^= 0x40;
        let e = pages.block(0, &reader(&stored), "t").unwrap_err();
        assert!(e.to_string().contains("checksum mismatch"), "{e}");
        let short = &paged.stored[..paged.stored.len() - 3];
        assert!(pages
            .block(index.blocks.len() - 1, &reader(short), "t")
            .is_err());
        // Every byte of every table flipped: an error or a consistent table, never a panic.
        for i in 0..paged.table.len() {
            let mut t = paged.table.clone();
            t[i] ^= 0x01;
            if let Ok(p) = PermPages::decode(&t, expect, "p", "t") {
                for b in 0..p.len() {
                    let _ = p.block(b, &reader(&paged.stored), "t");
                }
            }
        }
        let (dict_index, dict_len) = dict(1000);
        let paged = page_dict(&dict_index, 4, 3).unwrap();
        let expect = expect_of(&paged, dict_len, 1000);
        for i in 0..paged.table.len() {
            let mut t = paged.table.clone();
            t[i] ^= 0x01;
            if let Ok(p) = DictPages::decode(&t, expect, "t") {
                for b in 0..p.len() {
                    let _ = p.block(b, &reader(&paged.stored), "t");
                }
            }
        }
    }
}
