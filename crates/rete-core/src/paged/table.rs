//! The page table's format on the reading side: its entries (where each page's frame lies and
//! what it covers), the running totals every entry is checked against, what the table must add
//! up to ([`Expect`]), and one page's frame checked and decoded.

use crate::error::{Error, Result};
use crate::format::{block_checksum, ratio_ok, varint, zstd_decode, MAX_RAW_LEN};

/// Where one page lies and what it covers.
#[derive(Debug, Clone)]
pub(super) struct Page {
    /// Offset of the page's frame inside the directory section.
    pub(super) frame_offset: u64,
    pub(super) frame_len: u32,
    pub(super) raw_len: u32,
    pub(super) check: u32,
    /// Index of the page's first block in the whole directory.
    pub(super) first_block: usize,
    pub(super) blocks: usize,
    /// Term id (dictionary) or quads before (permutation) at the page's first block.
    pub(super) first_item: u64,
    pub(super) items: u64,
    /// Offset of the page's first block inside the blocks section.
    pub(super) block_offset: u64,
    pub(super) stored: u64,
}

/// The fields every page table entry starts with, read and checked against running totals.
pub(super) struct Totals {
    pub(super) frame_offset: u64,
    pub(super) first_block: usize,
    pub(super) item: u64,
    pub(super) block_offset: u64,
}

/// The fewest bytes a page table entry takes: the page's six fields (five varints and a `u32`)
/// and its first key, a term's length (dictionary, then its bytes) or four varints
/// (permutation). The page count is checked against them, so they must not be larger: a file
/// whose only page has small numbers (a one-quad file) has entries of exactly these sizes.
const PAGE_FIELDS_MIN: usize = 5 + 4;

pub(super) const DICT_ENTRY_MIN: usize = PAGE_FIELDS_MIN + 1;

pub(super) const PERM_ENTRY_MIN: usize = PAGE_FIELDS_MIN + 4;

/// Reads a page table's page count (an entry takes at least `min_entry` bytes, which bounds it)
/// and starts the running totals at item `first_item`.
pub(super) fn table_start(
    c: &mut varint::Cursor<'_>,
    min_entry: usize,
    first_item: u64,
    bad: &dyn Fn(&str) -> Error,
) -> Result<(usize, Totals)> {
    let n = c.get().ok_or_else(|| bad("truncated"))?;
    if n == 0 || n > (c.remaining() / min_entry) as u64 {
        return Err(bad("implausible page count"));
    }
    let t = Totals {
        frame_offset: 0,
        first_block: 0,
        item: first_item,
        block_offset: 0,
    };
    Ok((n as usize, t))
}

pub(super) fn read_page(
    c: &mut varint::Cursor<'_>,
    t: &mut Totals,
    bad: &dyn Fn(&str) -> Error,
) -> Result<Page> {
    let frame_len = c.get().ok_or_else(|| bad("truncated"))?;
    let raw_len = c.get().ok_or_else(|| bad("truncated"))?;
    let check = c.u32().ok_or_else(|| bad("truncated"))?;
    let blocks = c.get().ok_or_else(|| bad("truncated"))?;
    let items = c.get().ok_or_else(|| bad("truncated"))?;
    let stored = c.get().ok_or_else(|| bad("truncated"))?;
    if frame_len == 0
        || frame_len > u64::from(u32::MAX)
        || raw_len > MAX_RAW_LEN.min(u64::from(u32::MAX))
        || !ratio_ok(frame_len, raw_len)
        || blocks == 0
        || blocks > raw_len
    {
        return Err(bad("implausible page sizes"));
    }
    let page = Page {
        frame_offset: t.frame_offset,
        frame_len: frame_len as u32,
        raw_len: raw_len as u32,
        check,
        first_block: t.first_block,
        blocks: blocks as usize,
        first_item: t.item,
        items,
        block_offset: t.block_offset,
        stored,
    };
    let over = || bad("page totals overflow");
    t.frame_offset = t.frame_offset.checked_add(frame_len).ok_or_else(over)?;
    t.first_block = t
        .first_block
        .checked_add(blocks as usize)
        .ok_or_else(over)?;
    t.item = t.item.checked_add(items).ok_or_else(over)?;
    t.block_offset = t.block_offset.checked_add(stored).ok_or_else(over)?;
    Ok(page)
}

/// What a page table must add up to: the directory section's stored length, and the blocks
/// section's length with the header's term or quad count.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    /// Stored length of the directory section.
    pub dir_len: u64,
    /// Stored length of the blocks section.
    pub blocks_len: u64,
    /// Terms (dictionary) or quads (permutation) in the file.
    pub items: u64,
}

pub(super) fn check_totals(t: &Totals, e: Expect, bad: &dyn Fn(&str) -> Error) -> Result<()> {
    if t.frame_offset != e.dir_len {
        return Err(bad(&format!(
            "pages span {} bytes, the directory has {}",
            t.frame_offset, e.dir_len
        )));
    }
    if t.block_offset != e.blocks_len {
        return Err(bad(&format!(
            "pages cover {} bytes of blocks, the section has {}",
            t.block_offset, e.blocks_len
        )));
    }
    if t.item != e.items {
        return Err(bad(&format!(
            "pages cover {} items, the header says {}",
            t.item, e.items
        )));
    }
    Ok(())
}

/// Decodes a page's frame after checking its checksum and length.
pub(super) fn page_bytes(frame: &[u8], page: &Page, file: &str, section: &str) -> Result<Vec<u8>> {
    if frame.len() != page.frame_len as usize || block_checksum(frame) != page.check {
        return Err(Error::corrupt(
            file,
            section,
            format!(
                "checksum mismatch in the directory page of block {}",
                page.first_block
            ),
        ));
    }
    zstd_decode(frame, u64::from(page.raw_len), file, &|| section.to_owned())
}
