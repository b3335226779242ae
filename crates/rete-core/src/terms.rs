//! Decoding terms for one reader of many ids (a query's results): the dictionary blocks it
//! uses are held in a small direct-mapped table, so a decode takes no lock, no update of the
//! shared LRU cache and no copy of the encoded bytes.

use crate::dict::DictBlock;
use crate::error::Result;
use crate::{term, Id, Rete};
use oxrdf::Term;
use std::sync::Arc;

/// Blocks held at once (a block decodes to a few tens of KiB: the table stays under ~2 MiB).
const SLOTS: usize = 32;

/// Decodes terms of one file, holding the last dictionary blocks it read. Not shared between
/// threads: make one per query.
#[derive(Debug, Clone)]
pub struct TermDecoder {
    rete: Rete,
    /// `(block index, id of its first term, block)` by `block index % SLOTS`.
    slots: Vec<Option<(usize, Id, Arc<DictBlock>)>>,
    /// The ids `first..end` each slot's block holds (`0..0`: empty): an id of a held block is
    /// found by a scan of these ranges, without the search of the block directory (a result
    /// reads a few blocks over and over: its IRIs' and its literals').
    ranges: [(Id, Id); SLOTS],
}

impl TermDecoder {
    /// A decoder of `rete`'s terms holding no block yet.
    pub fn new(rete: Rete) -> Self {
        Self {
            rete,
            slots: vec![None; SLOTS],
            ranges: [(0, 0); SLOTS],
        }
    }

    /// Runs `f` on the encoded bytes of term `id` (see [`crate::term`]), borrowed from a held
    /// block.
    pub fn with_bytes<R>(&mut self, id: Id, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        if let Some(s) = self.ranges.iter().position(|r| (r.0..r.1).contains(&id)) {
            if let Some((_, first, block)) = &self.slots[s] {
                if let Some(bytes) = block.get((id - first) as usize) {
                    return Ok(f(bytes));
                }
            }
        }
        let (b, first) = self.rete.dict_block_index(id)?;
        let s = b % SLOTS;
        let slot = &mut self.slots[s];
        let block = match slot {
            Some((held, _, block)) if *held == b => block,
            _ => {
                let block = self.rete.dict_block(b)?;
                &slot.insert((b, first, block)).2
            }
        };
        self.ranges[s] = (first, first + block.len() as Id);
        match block.get((id - first) as usize) {
            Some(bytes) => Ok(f(bytes)),
            None => Err(self.rete.missing_term(id)),
        }
    }

    /// The term with id `id`.
    pub fn term(&mut self, id: Id) -> Result<Term> {
        match self.with_bytes(id, term::decode)? {
            Ok(t) => Ok(t),
            Err(e) => Err(self.rete.bad_term(id, &e)),
        }
    }
}
