//! The external dictionary.
//!
//! While parsing, terms get chunk-local ids (1, 2, …; 0 is the default graph) from an in-memory
//! table. The chunk's quads go to disk in parts as they come; when the terms outgrow their share of
//! the budget, they are written as a run sorted in [`term::compare`](rete_core::term::compare)
//! order (term bytes and local id), the quads since the last part are spilled, and a new chunk
//! begins. The dictionary phase k-way merges the runs, pushes each distinct term once into the
//! [`DictWriter`](rete_core::dict::DictWriter), writes per chunk the pairs (local id, final id) and
//! then rewrites each chunk's quads with final ids, one chunk's map in memory at a time. When
//! nothing spilled, all of this happens in memory. The rewritten parts are sort keys already packed
//! (8 bytes a quad when they fit): the chunks marked which local ids are predicates and graphs, so
//! the merge knows the packing before the rewrite.

mod write;

pub(crate) use write::{write_dictionary, Dictionary, Layout};

use crate::sort::{io_err, Packing, RANK_LIMIT};
use crate::spill::Spill;
use crate::BuildError;
use hashbrown::HashTable;
use rete_core::dict::{read_block, BlockDictionary, DictBlock, DictIndex};
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

/// Accounted bytes of a table slot: the local id, the hash's high half and the control byte,
/// with the table's spare capacity counted through its capacity.
const SLOT_BYTES: usize = 9;
/// Accounted bytes of a term besides its encoding: its end in the arena and its entry in the
/// sorted order.
const TERM_BYTES: usize = 8 + 4;

/// Terms of the current chunk, and the runs of the spilled ones. The terms sit end to end in one
/// arena; the table holds only (local id, high half of the hash), 8 bytes a term: about 60 bytes
/// a term in all instead of ~150 for a map of `Vec<u8>` keys (a heap block each), so a chunk
/// takes 2.5× the terms and large inputs spill fewer chunks, each of which re-sorts the terms it
/// shares with the others.
#[derive(Default)]
pub(crate) struct Interner {
    bytes: Vec<u8>,
    /// End of local id `i + 1`'s encoding in `bytes`.
    ends: Vec<u64>,
    table: HashTable<(u32, u32)>,
    /// Spilled chunks: run file and number of terms.
    runs: Vec<(PathBuf, u32)>,
    /// The local ids last interned through [`Self::intern_recent`] by slot (0: none).
    recent: [u32; 2],
    /// The current chunk's predicates and graphs ([`Fields`]).
    fields: Fields,
    /// The spilled chunks' ones, by run.
    run_fields: Vec<Fields>,
}

/// Which local ids of a chunk are predicates or graphs, so the dictionary phase knows the
/// final ids of every predicate and graph (the sort keys' packing) before it rewrites the
/// quads, which it can then write packed. One bit a term: a bit test per quad while parsing, one
/// per term of the chunk in the merge.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields {
    preds: IdBits,
    graphs: IdBits,
    /// A quad in the default graph (graph id 0, not a term).
    default_graph: bool,
}

/// A set of local ids as bits.
#[derive(Debug, Default, Clone)]
struct IdBits(Vec<u64>);

impl IdBits {
    #[inline]
    fn insert(&mut self, id: u32) {
        let (w, b) = ((id / 64) as usize, id % 64);
        if w >= self.0.len() {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << b;
    }

    #[inline]
    fn contains(&self, id: u32) -> bool {
        self.0
            .get((id / 64) as usize)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64u32)
                .filter(move |b| bits & (1 << b) != 0)
                .map(move |b| w as u32 * 64 + b)
        })
    }
}

/// The final ids of the predicates and graphs, gathered while the dictionary is merged: `None`
/// once there are more than [`RANK_LIMIT`] of them (then they pack as ids).
struct FinalFields {
    preds: Option<HashSet<u32>>,
    graphs: Option<HashSet<u32>>,
}

impl FinalFields {
    fn new(default_graph: bool) -> Self {
        Self {
            preds: Some(HashSet::new()),
            graphs: Some(if default_graph {
                HashSet::from([0])
            } else {
                HashSet::new()
            }),
        }
    }

    /// Local id `local` of a chunk with `fields` has final id `id`.
    #[inline]
    fn see(&mut self, fields: &Fields, local: u32, id: u32) {
        for (bits, set) in [
            (&fields.preds, &mut self.preds),
            (&fields.graphs, &mut self.graphs),
        ] {
            if bits.contains(local) {
                if let Some(s) = set {
                    s.insert(id);
                    if s.len() > RANK_LIMIT {
                        *set = None;
                    }
                }
            }
        }
    }

    fn packing(self, terms: u64) -> Result<Packing, BuildError> {
        let max = u32::try_from(terms)
            .map_err(|_| BuildError::Invalid("more than 4 billion distinct terms".into()))?;
        Ok(Packing::new(max, self.preds, self.graphs))
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interner")
            .field("terms", &self.ends.len())
            .field("runs", &self.runs)
            .finish_non_exhaustive()
    }
}

/// The table's hash from the high half kept in a slot (rehashing reads no term bytes).
fn spread(high: u32) -> u64 {
    u64::from(high).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Interner {
    /// The encoding of local id `id` (1-based).
    fn term(&self, id: u32) -> &[u8] {
        let i = id as usize - 1;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// The chunk-local id of an encoded term.
    pub(crate) fn intern(&mut self, enc: &[u8]) -> Result<u32, BuildError> {
        let high = (xxhash_rust::xxh3::xxh3_64(enc) >> 32) as u32;
        let hash = spread(high);
        let found = self
            .table
            .find(hash, |&(id, h)| h == high && self.term(id) == enc);
        if let Some(&(id, _)) = found {
            return Ok(id);
        }
        let id = u32::try_from(self.ends.len() + 1)
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or_else(|| BuildError::Invalid("more than 4 billion distinct terms".into()))?;
        self.bytes.extend_from_slice(enc);
        self.ends.push(self.bytes.len() as u64);
        self.table
            .insert_unique(hash, (id, high), |&(_, h)| spread(h));
        Ok(id)
    }

    /// [`Self::intern`], remembering the id per `slot`: consecutive triples mostly share their
    /// subject, and often their predicate, so these skip the hash and the table.
    pub(crate) fn intern_recent(&mut self, slot: usize, enc: &[u8]) -> Result<u32, BuildError> {
        if let Some(&last) = self.recent.get(slot) {
            if last != 0 && self.term(last) == enc {
                return Ok(last);
            }
        }
        let id = self.intern(enc)?;
        if let Some(r) = self.recent.get_mut(slot) {
            *r = id;
        }
        // A hit above returned an id marked when it was interned here (both end with the chunk).
        if slot == 1 {
            self.fields.preds.insert(id);
        }
        Ok(id)
    }

    /// The chunk-local id of a quad's graph (`None`: the default graph, id 0).
    pub(crate) fn intern_graph(&mut self, enc: Option<&[u8]>) -> Result<u32, BuildError> {
        match enc {
            None => {
                self.fields.default_graph = true;
                Ok(0)
            }
            Some(enc) => {
                let id = self.intern(enc)?;
                self.fields.graphs.insert(id);
                Ok(id)
            }
        }
    }

    /// Memory held by the current chunk's terms, and what sorting them will add. The arena and
    /// the ends count by length: a grown `Vec` of this size is remapped, not copied, and its
    /// pages are resident only once written, so counting its capacity would end a chunk at about
    /// half its share after a doubling. The table's slots are all written (spread by the hash):
    /// it counts by capacity.
    pub(crate) fn mem_bytes(&self) -> usize {
        self.bytes.len() + self.ends.len() * TERM_BYTES + self.table.capacity() * SLOT_BYTES
    }

    /// Whether a chunk was spilled.
    pub(crate) fn has_spilled(&self) -> bool {
        !self.runs.is_empty()
    }

    /// Terms in all chunks (a term in several chunks counts once per chunk).
    pub(crate) fn entries(&self) -> u64 {
        self.runs.iter().map(|r| u64::from(r.1)).sum::<u64>() + self.ends.len() as u64
    }

    /// The current chunk's local ids in dictionary order (the terms stay until [`Self::clear`]).
    fn sorted(&mut self) -> Vec<u32> {
        // The table is not needed to sort: its room goes back first.
        self.table = HashTable::new();
        let mut v: Vec<u32> = (1..=self.ends.len() as u32).collect();
        crate::termsort::sort(&mut v, &|id| self.term(id));
        v
    }

    /// Empties the current chunk.
    fn clear(&mut self) {
        self.recent = [0; 2];
        self.fields = Fields::default();
        self.bytes = Vec::new();
        self.ends = Vec::new();
        self.table = HashTable::new();
    }

    /// Writes the current chunk as a sorted run and starts a new chunk.
    pub(crate) fn spill(&mut self, dir: &Path, spill: &Spill) -> Result<(), BuildError> {
        let v = self.sorted();
        let path = dir.join(format!("terms-{}.bin", self.runs.len()));
        let mut w =
            BufWriter::with_capacity(1 << 20, File::create(&path).map_err(|e| io_err(&path, e))?);
        let mut bytes = 0u64;
        for &id in &v {
            let t = self.term(id);
            let len = u32::try_from(t.len())
                .map_err(|_| BuildError::Invalid("a term longer than 4 GiB".into()))?;
            w.write_all(&len.to_le_bytes())
                .and_then(|()| w.write_all(t))
                .and_then(|()| w.write_all(&id.to_le_bytes()))
                .map_err(|e| io_err(&path, e))?;
            bytes += 8 + t.len() as u64;
        }
        w.flush().map_err(|e| io_err(&path, e))?;
        spill.wrote(bytes);
        spill.dictionary_runs.fetch_add(1, Relaxed);
        self.runs.push((path, v.len() as u32));
        self.run_fields.push(std::mem::take(&mut self.fields));
        self.clear();
        Ok(())
    }
}

/// Reads terms back from the written dictionary by final id (for the card's named counts).
pub(crate) struct TermLookup<'a> {
    file: File,
    path: &'a Path,
    index: &'a DictIndex,
    zstd_dict: Option<BlockDictionary>,
    cached: Option<(usize, DictBlock)>,
}

impl<'a> TermLookup<'a> {
    pub(crate) fn open(path: &'a Path, dict: &'a Dictionary) -> Result<Self, BuildError> {
        Ok(Self {
            file: File::open(path).map_err(|e| io_err(path, e))?,
            path,
            index: &dict.index,
            zstd_dict: match dict.zstd_dict.as_deref() {
                Some(d) => Some(BlockDictionary::new(d).ok_or_else(|| {
                    BuildError::Invalid("internal: zstd refuses the dictionary it trained".into())
                })?),
                None => None,
            },
            cached: None,
        })
    }

    /// The encoded term of `id`.
    pub(crate) fn get(&mut self, id: u64) -> Result<Vec<u8>, BuildError> {
        let out_of_range = || BuildError::Invalid(format!("id {id} out of range"));
        let b = self.index.block_of_id(id).ok_or_else(out_of_range)?;
        let meta = self.index.blocks.get(b).ok_or_else(out_of_range)?;
        if self.cached.as_ref().is_none_or(|c| c.0 != b) {
            let mut stored = vec![0u8; meta.stored_len as usize];
            self.file
                .seek(SeekFrom::Start(meta.offset))
                .and_then(|_| self.file.read_exact(&mut stored))
                .map_err(|e| io_err(self.path, e))?;
            let block = read_block(
                &stored,
                meta,
                self.zstd_dict.as_ref(),
                &self.path.display().to_string(),
            )?;
            self.cached = Some((b, block));
        }
        self.cached
            .as_ref()
            .and_then(|(_, block)| block.get((id - meta.first_id) as usize))
            .map(<[u8]>::to_vec)
            .ok_or_else(out_of_range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The remembered ids give what the table gives, and a new chunk forgets them (its ids
    /// start again at 1).
    #[test]
    fn recent_ids_agree_with_the_table_and_end_with_the_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::default();
        let mut i = Interner::default();
        let a = i.intern_recent(0, b"\x01a").unwrap();
        assert_eq!(i.intern_recent(0, b"\x01a").unwrap(), a);
        let b = i.intern_recent(1, b"\x01b").unwrap();
        assert_eq!(i.intern_recent(0, b"\x01b").unwrap(), b);
        assert_eq!(i.intern_recent(1, b"\x01a").unwrap(), a);
        assert_eq!(i.intern(b"\x01b").unwrap(), b);
        assert_ne!(a, b);
        i.spill(dir.path(), &spill).unwrap();
        // "b" first this time: it gets id 1, which "a" had in the spilled chunk.
        let b2 = i.intern_recent(1, b"\x01b").unwrap();
        assert_eq!(b2, 1);
        assert_eq!(i.intern_recent(0, b"\x01b").unwrap(), b2);
        let a2 = i.intern_recent(0, b"\x01a").unwrap();
        assert_eq!(a2, 2);
        assert_eq!(i.entries(), 4);
    }
}
