//! Pieces of the permutation phase: compressing a block on the thread's own zstd context, and
//! the statistics gathered while each sorted permutation streams by (counts for the card,
//! the quad hash that checks the six permutations agree).

use crate::BuildError;
use rete_core::perm::{BlockCompressor, CompressedBlock, PermIndex};
use rete_core::{IdQuad, Perm};
use std::collections::BTreeMap;
use std::path::PathBuf;
use xxhash_rust::xxh3::Xxh3;

/// One permutation block encoded and compressed at `level` with this thread's zstd context
/// (several threads compress one permutation's blocks).
pub(crate) fn compress_block(quads: &[IdQuad], level: i32) -> Result<CompressedBlock, BuildError> {
    thread_local! {
        static ZC: std::cell::RefCell<Option<(i32, BlockCompressor)>> =
            const { std::cell::RefCell::new(None) };
    }
    ZC.with_borrow_mut(|zc| {
        // A context keeps the level it was made with.
        if zc.as_ref().is_some_and(|(l, _)| *l != level) {
            *zc = None;
        }
        let (_, c) = zc.get_or_insert_with(|| (level, BlockCompressor::default()));
        Ok(CompressedBlock::new(quads, level, c)?)
    })
}

pub(crate) struct PermResult {
    pub(crate) perm: Perm,
    pub(crate) index: PermIndex,
    pub(crate) path: PathBuf,
    pub(crate) len: u64,
    pub(crate) stats: PermStats,
}

/// Statistics gathered while a permutation streams by, in key order.
pub(crate) struct PermStats {
    pub(crate) perm: Perm,
    pub(crate) rdf_type: Option<u64>,
    pub(crate) total: u64,
    pub(crate) last: Option<IdQuad>,
    pub(crate) distinct_first: u64,
    /// Distinct `[s, p, o]` (SPO only: a triple's quads are adjacent there, the graph last).
    pub(crate) distinct_triples: u64,
    pub(crate) firsts: BTreeMap<u64, u64>,
    pub(crate) default_graph: u64,
    pub(crate) graphs: BTreeMap<u64, u64>,
    pub(crate) classes: BTreeMap<u64, u64>,
    pub(crate) quad_hash: u128,
    hasher: Option<Xxh3>,
}

impl PermStats {
    pub(crate) fn new(perm: Perm, rdf_type: Option<u64>) -> Self {
        Self {
            perm,
            rdf_type,
            total: 0,
            last: None,
            distinct_first: 0,
            distinct_triples: 0,
            firsts: BTreeMap::new(),
            default_graph: 0,
            graphs: BTreeMap::new(),
            classes: BTreeMap::new(),
            quad_hash: 0,
            hasher: (perm == Perm::Spo).then(Xxh3::new),
        }
    }

    pub(crate) fn observe(&mut self, k: &IdQuad) {
        self.total += 1;
        let new_first = self.last.is_none_or(|l| l[0] != k[0]);
        if new_first {
            self.distinct_first += 1;
        }
        match self.perm {
            Perm::Spo => {
                if self.last.is_none_or(|l| l[..3] != k[..3]) {
                    self.distinct_triples += 1;
                }
                if k[3] == 0 {
                    self.default_graph += 1;
                } else {
                    *self.graphs.entry(k[3]).or_default() += 1;
                }
                if let Some(h) = &mut self.hasher {
                    for v in k {
                        h.update(&v.to_le_bytes());
                    }
                    self.quad_hash = h.digest128();
                }
            }
            Perm::Pso => *self.firsts.entry(k[0]).or_default() += 1,
            // Key (p, o, s, g): count distinct subjects per class.
            Perm::Pos
                if Some(k[0]) == self.rdf_type && self.last.is_none_or(|l| l[..3] != k[..3]) =>
            {
                *self.classes.entry(k[1]).or_default() += 1;
            }
            _ => {}
        }
        self.last = Some(*k);
    }
}
