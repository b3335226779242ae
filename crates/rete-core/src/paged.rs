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

use crate::dict::{DictBlockMeta, DictIndex};
use crate::error::{Error, Result};
use crate::format::{block_checksum, ratio_ok, varint, zstd_decode, MAX_RAW_LEN};
use crate::perm::{PermBlockMeta, PermIndex};
use crate::term::compare;
use crate::{Id, IdQuad};
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

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

/// Where one page lies and what it covers.
#[derive(Debug, Clone)]
struct Page {
    /// Offset of the page's frame inside the directory section.
    frame_offset: u64,
    frame_len: u32,
    raw_len: u32,
    check: u32,
    /// Index of the page's first block in the whole directory.
    first_block: usize,
    blocks: usize,
    /// Term id (dictionary) or quads before (permutation) at the page's first block.
    first_item: u64,
    items: u64,
    /// Offset of the page's first block inside the blocks section.
    block_offset: u64,
    stored: u64,
}

/// The fields every page table entry starts with, read and checked against running totals.
struct Totals {
    frame_offset: u64,
    first_block: usize,
    item: u64,
    block_offset: u64,
}

/// The fewest bytes a page table entry takes: the page's six fields (five varints and a `u32`)
/// and its first key, a term's length (dictionary, then its bytes) or four varints
/// (permutation). The page count is checked against them, so they must not be larger: a file
/// whose only page has small numbers (a one-quad file) has entries of exactly these sizes.
const PAGE_FIELDS_MIN: usize = 5 + 4;
const DICT_ENTRY_MIN: usize = PAGE_FIELDS_MIN + 1;
const PERM_ENTRY_MIN: usize = PAGE_FIELDS_MIN + 4;

/// Reads a page table's page count (an entry takes at least `min_entry` bytes, which bounds it)
/// and starts the running totals at item `first_item`.
fn table_start(
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

fn read_page(
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

fn check_totals(t: &Totals, e: Expect, bad: &dyn Fn(&str) -> Error) -> Result<()> {
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
fn page_bytes(frame: &[u8], page: &Page, file: &str, section: &str) -> Result<Vec<u8>> {
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

/// Reads the stored bytes `[offset, offset + len)` of a directory section.
pub type ReadFn<'a> = &'a dyn Fn(u64, usize) -> Result<Vec<u8>>;

/// A block directory read page by page: the page table, each page's first key (`K`: a term for
/// the dictionary, a quad key for a permutation) and the pages' entries (`M`) once fetched.
#[derive(Debug)]
pub struct Pages<M, K> {
    pages: Vec<Page>,
    first_keys: Vec<K>,
    loaded: Vec<OnceLock<Arc<[M]>>>,
    blocks: usize,
    /// Names the directory in messages.
    section: String,
}

/// The dictionary directory, read page by page.
pub type DictPages = Pages<DictBlockMeta, Vec<u8>>;
/// A permutation's directory, read page by page.
pub type PermPages = Pages<PermBlockMeta, IdQuad>;

/// What decoding a page's entries ends at: the item (term id or quads before) and the block
/// offset after its last block, which must agree with the page table.
struct PageEnd {
    item: u64,
    offset: u64,
}

impl<M: Clone, K> Pages<M, K> {
    fn new(pages: Vec<Page>, first_keys: Vec<K>, blocks: usize, section: &str) -> Self {
        Self {
            loaded: (0..pages.len()).map(|_| OnceLock::new()).collect(),
            pages,
            first_keys,
            blocks,
            section: section.to_owned(),
        }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks
    }

    /// `true` if the directory has no blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks == 0
    }

    /// The page holding block `b`.
    pub fn page_of_block(&self, b: usize) -> usize {
        self.pages
            .partition_point(|p| p.first_block <= b)
            .saturating_sub(1)
    }

    /// Entries of the pages loaded so far.
    pub fn loaded_entries(&self) -> usize {
        self.loaded
            .iter()
            .filter_map(OnceLock::get)
            .map(|m| m.len())
            .sum()
    }

    /// Whether page `p` is loaded.
    pub fn is_loaded(&self, p: usize) -> bool {
        self.loaded.get(p).is_some_and(|l| l.get().is_some())
    }

    /// Where page `p`'s frame lies in the directory section: `(offset, length)`.
    pub fn frame(&self, p: usize) -> Option<(u64, u64)> {
        self.pages
            .get(p)
            .map(|x| (x.frame_offset, u64::from(x.frame_len)))
    }

    /// Page `p`'s entries, with the index of its first block: fetched through `read` and decoded
    /// by `entries` on first use, then checked against the page table.
    fn load(
        &self,
        p: usize,
        read: ReadFn<'_>,
        file: &str,
        entries: impl FnOnce(
            &Page,
            &mut varint::Cursor<'_>,
            &dyn Fn(&str) -> Error,
        ) -> Result<(Vec<M>, PageEnd)>,
    ) -> Result<(Arc<[M]>, usize)> {
        let section = self.section.as_str();
        let page = self
            .pages
            .get(p)
            .ok_or_else(|| Error::corrupt(file, section, "no such directory page"))?;
        if let Some(m) = self.loaded[p].get() {
            return Ok((m.clone(), page.first_block));
        }
        let bad = |m: &str| {
            Error::corrupt(
                file,
                section,
                format!("directory page of block {}: {m}", page.first_block),
            )
        };
        let frame = read(page.frame_offset, page.frame_len as usize)?;
        let raw = page_bytes(&frame, page, file, section)?;
        let mut c = varint::Cursor::new(&raw);
        if p == 0 && c.get() != Some(self.blocks as u64) {
            return Err(bad("block count differs from the page table"));
        }
        let (metas, end) = entries(page, &mut c, &bad)?;
        if !c.is_at_end() {
            return Err(bad("trailing bytes"));
        }
        if end.item - page.first_item != page.items || end.offset - page.block_offset != page.stored
        {
            return Err(bad("blocks differ from the page table"));
        }
        let metas: Arc<[M]> = metas.into();
        let _ = self.loaded[p].set(metas.clone());
        Ok((metas, page.first_block))
    }

    /// Block `b`'s entry among `metas`, the entries of the page starting at block `first`.
    fn entry(&self, metas: &[M], first: usize, b: usize, file: &str) -> Result<M> {
        metas
            .get(b.wrapping_sub(first))
            .cloned()
            .ok_or_else(|| Error::corrupt(file, self.section.as_str(), format!("no block {b}")))
    }
}

impl DictPages {
    /// Parses a dictionary page table and checks it against the file.
    pub fn decode(table: &[u8], expect: Expect, file: &str) -> Result<Self> {
        let bad = |m: &str| Error::corrupt(file, "dictionary index pages", m.to_owned());
        let mut c = varint::Cursor::new(table);
        let (n, mut t) = table_start(&mut c, DICT_ENTRY_MIN, 1, &bad)?;
        let mut pages = Vec::with_capacity(n);
        let mut first_terms: Vec<Vec<u8>> = Vec::with_capacity(n);
        for _ in 0..n {
            let page = read_page(&mut c, &mut t, &bad)?;
            let tl = c.get().ok_or_else(|| bad("truncated"))?;
            let term = c
                .bytes(usize::try_from(tl).map_err(|_| bad("bad length"))?)
                .ok_or_else(|| bad("truncated"))?
                .to_vec();
            if let Some(prev) = first_terms.last() {
                if compare(prev, &term) != Ordering::Less {
                    return Err(bad("pages out of order"));
                }
            }
            pages.push(page);
            first_terms.push(term);
        }
        if !c.is_at_end() {
            return Err(bad("trailing bytes"));
        }
        t.item -= 1;
        check_totals(&t, expect, &bad)?;
        Ok(Self::new(
            pages,
            first_terms,
            t.first_block,
            "dictionary index",
        ))
    }

    /// The page holding term `id`, if any.
    pub fn page_of_id(&self, id: Id) -> Option<usize> {
        self.pages
            .partition_point(|p| p.first_item <= id)
            .checked_sub(1)
    }

    /// The only page whose blocks may hold the encoded `term`.
    pub fn page_for_term(&self, term: &[u8]) -> Option<usize> {
        self.first_keys
            .partition_point(|t| compare(t, term) != Ordering::Greater)
            .checked_sub(1)
    }

    /// The entries of page `p`, fetched through `read` on first use; with the index of its
    /// first block.
    pub fn page(
        &self,
        p: usize,
        read: ReadFn<'_>,
        file: &str,
    ) -> Result<(Arc<[DictBlockMeta]>, usize)> {
        self.load(p, read, file, |page, c, bad| {
            let (mut id, mut offset) = (page.first_item, page.block_offset);
            let mut metas = Vec::with_capacity(page.blocks.min(c.remaining()));
            for _ in 0..page.blocks {
                let m = DictBlockMeta::decode(c, id, offset, bad)?;
                id = id
                    .checked_add(u64::from(m.count))
                    .ok_or_else(|| bad("overflow"))?;
                offset += u64::from(m.stored_len);
                metas.push(m);
            }
            if metas.first().map(|m| &m.first_term) != self.first_keys.get(p) {
                return Err(bad("first term differs from the page table"));
            }
            Ok((metas, PageEnd { item: id, offset }))
        })
    }

    /// The entry of block `b`.
    pub fn block(&self, b: usize, read: ReadFn<'_>, file: &str) -> Result<DictBlockMeta> {
        let (metas, first) = self.page(self.page_of_block(b), read, file)?;
        self.entry(&metas, first, b, file)
    }

    /// The block holding term `id`, with that block's first id.
    pub fn block_of_id(&self, id: Id, read: ReadFn<'_>, file: &str) -> Result<Option<(usize, Id)>> {
        let Some(p) = self.page_of_id(id) else {
            return Ok(None);
        };
        let (metas, first) = self.page(p, read, file)?;
        let i = metas.partition_point(|b| b.first_id <= id);
        let Some(i) = i.checked_sub(1) else {
            return Ok(None);
        };
        let b = &metas[i];
        Ok((id < b.first_id + u64::from(b.count)).then_some((first + i, b.first_id)))
    }

    /// The only block that may hold the encoded `term`, with its first id.
    pub fn block_for_term(
        &self,
        term: &[u8],
        read: ReadFn<'_>,
        file: &str,
    ) -> Result<Option<(usize, Id)>> {
        let Some(p) = self.page_for_term(term) else {
            return Ok(None);
        };
        let (metas, first) = self.page(p, read, file)?;
        let i = metas.partition_point(|b| compare(&b.first_term, term) != Ordering::Greater);
        Ok(i.checked_sub(1).map(|i| (first + i, metas[i].first_id)))
    }
}

impl PermPages {
    /// Parses a permutation's page table and checks it against the file; `section` names the
    /// directory in messages.
    pub fn decode(table: &[u8], expect: Expect, section: &str, file: &str) -> Result<Self> {
        let bad = |m: &str| Error::corrupt(file, format!("{section} pages"), m.to_owned());
        let mut c = varint::Cursor::new(table);
        let (n, mut t) = table_start(&mut c, PERM_ENTRY_MIN, 0, &bad)?;
        let mut pages = Vec::with_capacity(n);
        let mut first_keys: Vec<IdQuad> = Vec::with_capacity(n);
        let mut prev_a = 0u64;
        for _ in 0..n {
            let page = read_page(&mut c, &mut t, &bad)?;
            let mut key = [0; 4];
            key[0] = prev_a
                .checked_add(c.get().ok_or_else(|| bad("truncated"))?)
                .ok_or_else(|| bad("key overflow"))?;
            prev_a = key[0];
            for k in &mut key[1..] {
                *k = c.get().ok_or_else(|| bad("truncated"))?;
            }
            if first_keys.last().is_some_and(|p| *p >= key) {
                return Err(bad("pages out of order"));
            }
            pages.push(page);
            first_keys.push(key);
        }
        if !c.is_at_end() {
            return Err(bad("trailing bytes"));
        }
        check_totals(&t, expect, &bad)?;
        Ok(Self::new(pages, first_keys, t.first_block, section))
    }

    /// The page a search for `key` visits: the last whose first key is `<= key` (the first page
    /// if none is).
    pub fn page_for_key(&self, key: &IdQuad) -> usize {
        self.first_keys
            .partition_point(|k| k <= key)
            .saturating_sub(1)
    }

    /// The entries of page `p`, fetched through `read` on first use; with the index of its
    /// first block.
    pub fn page(
        &self,
        p: usize,
        read: ReadFn<'_>,
        file: &str,
    ) -> Result<(Arc<[PermBlockMeta]>, usize)> {
        self.load(p, read, file, |page, c, bad| {
            let (mut before, mut offset) = (page.first_item, page.block_offset);
            let mut metas: Vec<PermBlockMeta> = Vec::with_capacity(page.blocks.min(c.remaining()));
            let key = self.first_keys[p];
            for k in 0..page.blocks {
                // The first entry's key is coded against the previous page's last block, which
                // this page does not hold: the page table gives it whole instead.
                let prev_a = match metas.last() {
                    Some(m) => m.first[0],
                    None => 0,
                };
                let mut m = if k == 0 {
                    let mut probe = c.clone();
                    let d = probe.get().ok_or_else(|| bad("truncated"))?;
                    PermBlockMeta::decode(
                        c,
                        key[0]
                            .checked_sub(d)
                            .ok_or_else(|| bad("key differs from the page table"))?,
                        offset,
                        before,
                        bad,
                    )?
                } else {
                    PermBlockMeta::decode(c, prev_a, offset, before, bad)?
                };
                if let Some(last) = metas.last() {
                    if last.first >= m.first {
                        return Err(bad("block keys out of order"));
                    }
                }
                m.before = before;
                before = before
                    .checked_add(u64::from(m.count))
                    .ok_or_else(|| bad("overflow"))?;
                offset += u64::from(m.stored_len);
                metas.push(m);
            }
            if metas.first().map(|m| m.first) != Some(key) {
                return Err(bad("first key differs from the page table"));
            }
            if let Some(next) = self.first_keys.get(p + 1) {
                if metas.last().is_some_and(|m| m.first >= *next) {
                    return Err(bad("block keys overlap the next page"));
                }
            }
            Ok((
                metas,
                PageEnd {
                    item: before,
                    offset,
                },
            ))
        })
    }

    /// The entry of block `b`.
    pub fn block(&self, b: usize, read: ReadFn<'_>, file: &str) -> Result<PermBlockMeta> {
        let (metas, first) = self.page(self.page_of_block(b), read, file)?;
        self.entry(&metas, first, b, file)
    }

    /// Number of blocks whose first key is `<= key` (one page visited).
    pub fn blocks_up_to(&self, key: &IdQuad, read: ReadFn<'_>, file: &str) -> Result<usize> {
        if self.first_keys.first().is_none_or(|k| k > key) {
            return Ok(0);
        }
        let p = self.page_for_key(key);
        let (metas, first) = self.page(p, read, file)?;
        Ok(first + metas.partition_point(|b| b.first <= *key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dict::DictWriter;
    use crate::perm::PermWriter;

    fn dict(n: usize) -> (DictIndex, u64) {
        let mut terms: Vec<Vec<u8>> = (0..n)
            .map(|i| format!("\u{1}http://ex.org/p{i}").into_bytes())
            .collect();
        terms.sort_by(|a, b| compare(a, b));
        let mut w = DictWriter::new(Vec::new(), 256, 3);
        for t in &terms {
            w.push(t).unwrap_or_default();
        }
        let (index, len, _) = w
            .finish()
            .unwrap_or_else(|_| (DictIndex::default(), 0, Vec::new()));
        (index, len)
    }

    fn perm(n: u64) -> PermIndex {
        let mut w = PermWriter::new(Vec::new(), 16, 3);
        for i in 0..n {
            let _ = w.push([1 + i / 7, 1 + i % 7, 3 + i, 0]);
        }
        w.finish().map(|(i, _, _)| i).unwrap_or_default()
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
        let expect = Expect {
            dir_len: paged.stored.len() as u64,
            blocks_len,
            items: 3000,
        };
        let pages = DictPages::decode(&paged.table, expect, "t").unwrap();
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
        let blocks_len = index.blocks.iter().map(|b| u64::from(b.stored_len)).sum();
        let expect = Expect {
            dir_len: paged.stored.len() as u64,
            blocks_len,
            items: 5000,
        };
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
        let expect = Expect {
            dir_len: paged.stored.len() as u64,
            blocks_len,
            items: 1,
        };
        let pages = DictPages::decode(&paged.table, expect, "t").unwrap();
        let read = reader(&paged.stored);
        assert_eq!(pages.block_of_id(1, &read, "t").unwrap(), Some((0, 1)));

        let index = perm(1);
        let paged = page_perm(&index, 8, 3).unwrap();
        assert_eq!(paged.table.len(), 1 + PERM_ENTRY_MIN, "minimal entry");
        let expect = Expect {
            dir_len: paged.stored.len() as u64,
            blocks_len: index.blocks.iter().map(|b| u64::from(b.stored_len)).sum(),
            items: 1,
        };
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
        let blocks_len = index.blocks.iter().map(|b| u64::from(b.stored_len)).sum();
        let expect = Expect {
            dir_len: paged.stored.len() as u64,
            blocks_len,
            items: 2000,
        };
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
        let expect = Expect {
            dir_len: paged.stored.len() as u64,
            blocks_len: dict_len,
            items: 1000,
        };
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
