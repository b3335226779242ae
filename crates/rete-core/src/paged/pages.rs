//! A block directory read page by page ([`Pages`]): finding the page a lookup needs from the
//! first keys in the page table, loading and checking it once, and the block entries it holds,
//! for the dictionary ([`DictPages`]) and the permutations ([`PermPages`]).

use super::table::{
    check_totals, page_bytes, read_page, table_start, Expect, Page, DICT_ENTRY_MIN, PERM_ENTRY_MIN,
};
use crate::budget::{declared_items, Charge, DecodeBudget};
use crate::dict::DictBlockMeta;
use crate::error::{Error, Result};
use crate::format::varint;
use crate::perm::PermBlockMeta;
use crate::term::compare;
use crate::{Id, IdQuad};
use std::cmp::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

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
    /// Where the pages loaded are charged ([`Pages::charged_to`]), and their charges.
    budget: Option<Arc<DecodeBudget>>,
    charges: Mutex<Vec<Charge>>,
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
            budget: None,
            charges: Mutex::new(Vec::new()),
        }
    }

    /// The same directory, charging each page it loads (decoded bytes and entries) to `budget`
    /// before decoding it, for as long as the directory lives.
    pub fn charged_to(mut self, budget: Arc<DecodeBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Bytes a page table decoded from `table` holds at most (pages of at least `min_entry`
    /// bytes each): known before decoding, so that it can be charged first.
    fn table_held(table: &[u8], min_entry: usize) -> u64 {
        declared_items(table, min_entry)
            * (size_of::<Page>() + size_of::<K>() + size_of::<OnceLock<Arc<[M]>>>()) as u64
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
        let charge = match &self.budget {
            Some(b) => b.charge(
                section,
                u64::from(page.raw_len) + (page.blocks * size_of::<M>()) as u64,
            )?,
            None => Charge::none(),
        };
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
        if self.loaded[p].set(metas.clone()).is_ok() {
            self.charges
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(charge);
        }
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
    /// Bytes the page table decoded from `table` holds at most (its first terms aside, which
    /// the table's own bytes stand for).
    pub fn held_bytes(table: &[u8]) -> u64 {
        Self::table_held(table, DICT_ENTRY_MIN)
    }

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
        let i = crate::seek::partition_by_lead(&metas, id, |b| b.first_id, |b| b.first_id <= id);
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
    /// Bytes the page table decoded from `table` holds at most.
    pub fn held_bytes(table: &[u8]) -> u64 {
        Self::table_held(table, PERM_ENTRY_MIN)
    }

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
        crate::seek::partition_by_lead(&self.first_keys, key[0], |k| k[0], |k| k <= key)
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
        Ok(first
            + crate::seek::partition_by_lead(&metas, key[0], |b| b.first[0], |b| b.first <= *key))
    }
}
