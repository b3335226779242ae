//! The dictionary phase: the k-way merge of the spilled term runs into the [`DictWriter`]
//! (each distinct term once), the per-chunk maps from local to final ids, and the quads
//! rewritten with final ids as packed sort keys; or all of it in memory when nothing spilled.
//! Separate from the interner, which only fills chunks while parsing.

use super::{Fields, FinalFields, Interner};
#[cfg(test)]
use crate::sort::QuadWriter;
use crate::sort::{io_err, read_quads, PackedWriter, Packing, ProvQuads};
use crate::spill::{self, Spill};
use crate::BuildError;
use rete_core::dict::{DictIndex, DictWriter};
use rete_core::term;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// How the dictionary's blocks are cut and compressed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    /// Raw bytes of a block compressed alone.
    pub(crate) block_bytes: usize,
    /// Raw bytes of a block compressed with a trained zstd dictionary.
    pub(crate) trained_block_bytes: usize,
    /// The terms' bytes from which a zstd dictionary is trained.
    pub(crate) train_above: u64,
    pub(crate) level: i32,
}

/// The most bytes of a trained zstd dictionary: what a remote reader fetches once, with the
/// directories.
const MAX_ZSTD_DICT: usize = 32 << 10;

/// The written dictionary.
#[derive(Debug)]
pub(crate) struct Dictionary {
    pub(crate) index: DictIndex,
    pub(crate) len: u64,
    pub(crate) terms: u64,
    /// The zstd dictionary its blocks are compressed with, if one was trained.
    pub(crate) zstd_dict: Option<Vec<u8>>,
    /// Final id of `rdf:type`, if present.
    pub(crate) rdf_type: Option<u64>,
}

/// Pushes sorted distinct terms into the dictionary, hashing them and spotting `rdf:type`.
struct Sink<'a, W: Write> {
    dw: DictWriter<W>,
    hash: &'a mut Xxh3,
    rdf_type_enc: Vec<u8>,
    rdf_type: Option<u64>,
    /// The last id given.
    last: u64,
}

impl<W: Write> Sink<'_, W> {
    fn push(&mut self, t: &[u8]) -> Result<u32, BuildError> {
        let id = self.dw.push(t)?;
        self.last = id;
        self.hash.update(&(t.len() as u64).to_le_bytes());
        self.hash.update(t);
        if t == self.rdf_type_enc.as_slice() {
            self.rdf_type = Some(id);
        }
        u32::try_from(id)
            .map_err(|_| BuildError::Invalid("more than 4 billion distinct terms".into()))
    }
}

/// Writes the dictionary to `dict_path` and returns it with `quads` rewritten in final ids.
/// `interner` and `quads` are chunked alike: either nothing spilled, or every chunk did.
pub(crate) fn write_dictionary(
    mut interner: Interner,
    quads: ProvQuads,
    dir: &Path,
    dict_path: &Path,
    layout: Layout,
    hash: &mut Xxh3,
    spill: &Spill,
) -> Result<(Dictionary, ProvQuads), BuildError> {
    let file = BufWriter::with_capacity(
        1 << 20,
        File::create(dict_path).map_err(|e| io_err(dict_path, e))?,
    );
    let rdf_type_enc = term::encode(oxrdf::vocab::rdf::TYPE.into())
        .map_err(|e| BuildError::Invalid(e.to_string()))?;
    // A large dictionary is cut in small blocks, what a remote lookup reads, compressed with a
    // dictionary trained on them: they are held raw in a spool file until the writer knows how
    // large the dictionary is (the same for every budget) and has trained it.
    let spool_path = dir.join("dict-raw.bin");
    let trained = layout.train_above < u64::MAX;
    let dw = if trained {
        let spool = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&spool_path)
            .map_err(|e| io_err(&spool_path, e))?;
        DictWriter::with_trained_dictionary(
            file,
            (layout.block_bytes, layout.trained_block_bytes),
            layout.level,
            (spool, &spool_path.display().to_string()),
            (layout.train_above, MAX_ZSTD_DICT),
        )
    } else {
        DictWriter::new(file, layout.block_bytes, layout.level)
    };
    let mut sink = Sink {
        dw,
        hash,
        rdf_type_enc,
        rdf_type: None,
        last: 0,
    };
    let out = if interner.has_spilled() {
        if !interner.ends.is_empty()
            || !quads.mem.is_empty()
            || quads.chunk_ends.len() != interner.runs.len()
        {
            return Err(BuildError::Invalid(
                "internal: dictionary and quad chunks differ".into(),
            ));
        }
        if interner.run_fields.len() != interner.runs.len() {
            return Err(BuildError::Invalid(
                "internal: dictionary runs and their fields differ".into(),
            ));
        }
        let fields = merge_runs(&interner.runs, &interner.run_fields, &mut sink, dir, spill)?;
        let packing = fields.packing(sink.last)?;
        Remap::new(dir, spill, packing).chunks(&interner.runs, quads)?
    } else {
        let sorted = interner.sorted();
        // The terms are distinct, so a term's final id is its place in the order: the quads
        // are rewritten on one thread while the dictionary is written (compressed) on another.
        let mut dense = vec![0u32; sorted.len() + 1];
        for (i, &local) in sorted.iter().enumerate() {
            if let Some(d) = dense.get_mut(local as usize) {
                *d = final_id(i)?;
            }
        }
        let fields = &interner.fields;
        let mut finals = FinalFields::new(fields.default_graph);
        for local in fields.preds.iter().chain(fields.graphs.iter()) {
            finals.see(fields, local, lookup(&dense, local)?);
        }
        let packing = finals.packing(sorted.len() as u64)?;
        let interner = &interner;
        let (pushed, out) = rayon::join(
            || -> Result<(), BuildError> {
                for (i, &local) in sorted.iter().enumerate() {
                    if sink.push(interner.term(local))? != final_id(i)? {
                        return Err(BuildError::Invalid(
                            "internal: dictionary ids out of order".into(),
                        ));
                    }
                }
                Ok(())
            },
            || Remap::new(dir, spill, packing).in_memory(&dense, quads),
        );
        pushed?;
        out?
    };
    let rdf_type = sink.rdf_type;
    let (index, len, file, zstd_dict) = sink.dw.finish()?;
    if trained {
        // Not a spill: written whatever the budget, as the output is.
        std::fs::remove_file(&spool_path).map_err(|e| io_err(&spool_path, e))?;
    }
    file.into_inner()
        .map_err(|e| io_err(dict_path, e.into_error()))?;
    let terms = index.blocks.iter().map(|b| u64::from(b.count)).sum();
    Ok((
        Dictionary {
            index,
            len,
            terms,
            zstd_dict,
            rdf_type,
        },
        out,
    ))
}

fn lookup(dense: &[u32], local: u32) -> Result<u32, BuildError> {
    dense
        .get(local as usize)
        .copied()
        .ok_or_else(|| BuildError::Invalid(format!("internal: term id {local} out of its chunk")))
}

/// One sorted run being merged.
struct RunReader {
    r: BufReader<File>,
    path: PathBuf,
}

impl RunReader {
    /// Reads the next entry into `term`; its local id, or `None` at the end.
    fn next(&mut self, term: &mut Vec<u8>) -> Result<Option<u32>, BuildError> {
        let mut len = [0u8; 4];
        match self.r.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(io_err(&self.path, e)),
        }
        term.clear();
        term.resize(u32::from_le_bytes(len) as usize, 0);
        let mut id = [0u8; 4];
        self.r
            .read_exact(term)
            .and_then(|()| self.r.read_exact(&mut id))
            .map_err(|e| io_err(&self.path, e))?;
        Ok(Some(u32::from_le_bytes(id)))
    }
}

/// A run's current term in the merge heap (smallest first through `Reverse`).
struct Head {
    term: Vec<u8>,
    local: u32,
    run: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        term::compare(&self.term, &other.term).then(self.run.cmp(&other.run))
    }
}

/// Merges the sorted runs into the dictionary; writes `map-<i>.bin`, the pairs (local id,
/// final id) of chunk `i`, and removes the runs. Returns the final ids of the predicates and
/// graphs (`fields`: the runs' local ones).
fn merge_runs<W: Write>(
    runs: &[(PathBuf, u32)],
    fields: &[Fields],
    sink: &mut Sink<'_, W>,
    dir: &Path,
    spill: &Spill,
) -> Result<FinalFields, BuildError> {
    let mut finals = FinalFields::new(fields.iter().any(|f| f.default_graph));
    let mut readers = Vec::with_capacity(runs.len());
    let mut maps = Vec::with_capacity(runs.len());
    let mut heap = BinaryHeap::with_capacity(runs.len());
    for (i, (path, _)) in runs.iter().enumerate() {
        let mut r = RunReader {
            r: BufReader::with_capacity(1 << 16, File::open(path).map_err(|e| io_err(path, e))?),
            path: path.clone(),
        };
        let mut term = Vec::new();
        if let Some(local) = r.next(&mut term)? {
            heap.push(Reverse(Head {
                term,
                local,
                run: i,
            }));
        }
        readers.push(r);
        let mp = map_path(dir, i);
        maps.push((
            BufWriter::with_capacity(1 << 16, File::create(&mp).map_err(|e| io_err(&mp, e))?),
            mp,
        ));
    }
    let mut last: Vec<u8> = Vec::new();
    let mut last_id: Option<u32> = None;
    while let Some(Reverse(mut head)) = heap.pop() {
        let id = match last_id {
            Some(id) if last == head.term => id,
            _ => {
                let id = sink.push(&head.term)?;
                last.clear();
                last.extend_from_slice(&head.term);
                last_id = Some(id);
                id
            }
        };
        let (w, mp) = maps
            .get_mut(head.run)
            .ok_or_else(|| BuildError::Invalid("internal: run out of range".into()))?;
        if let Some(f) = fields.get(head.run) {
            finals.see(f, head.local, id);
        }
        w.write_all(&head.local.to_le_bytes())
            .and_then(|()| w.write_all(&id.to_le_bytes()))
            .map_err(|e| io_err(mp, e))?;
        let r = readers
            .get_mut(head.run)
            .ok_or_else(|| BuildError::Invalid("internal: run out of range".into()))?;
        if let Some(local) = r.next(&mut head.term)? {
            head.local = local;
            heap.push(Reverse(head));
        }
    }
    drop(readers);
    for ((mut w, mp), (run, n)) in maps.into_iter().zip(runs) {
        w.flush().map_err(|e| io_err(&mp, e))?;
        spill.wrote(u64::from(*n) * 8);
        spill::remove(run, spill);
    }
    Ok(finals)
}

fn map_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("map-{i}.bin"))
}

/// The quads rewritten with final ids: new parts in `dir` (their bytes counted in `spill`),
/// packed as `out`'s packing says.
struct Remap<'a> {
    dir: &'a Path,
    spill: &'a Spill,
    out: ProvQuads,
}

impl<'a> Remap<'a> {
    fn new(dir: &'a Path, spill: &'a Spill, packing: Packing) -> Self {
        Self {
            dir,
            spill,
            out: ProvQuads::packed(Some(packing)),
        }
    }

    /// Rewrites each spilled chunk of quads with final ids, one chunk's map (its run of `runs`)
    /// in memory at a time.
    fn chunks(self, runs: &[(PathBuf, u32)], quads: ProvQuads) -> Result<ProvQuads, BuildError> {
        let Remap {
            dir,
            spill,
            mut out,
        } = self;
        let mut start = 0;
        for (i, ((_, n), &end)) in runs.iter().zip(&quads.chunk_ends).enumerate() {
            let mut dense = vec![0u32; *n as usize + 1];
            let mp = map_path(dir, i);
            {
                let mut r =
                    BufReader::with_capacity(1 << 16, File::open(&mp).map_err(|e| io_err(&mp, e))?);
                let mut rec = [0u8; 8];
                loop {
                    match r.read_exact(&mut rec) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                        Err(e) => return Err(io_err(&mp, e)),
                    }
                    let local = u32::from_le_bytes([rec[0], rec[1], rec[2], rec[3]]);
                    let id = u32::from_le_bytes([rec[4], rec[5], rec[6], rec[7]]);
                    if let Some(d) = dense.get_mut(local as usize) {
                        *d = id;
                    }
                }
            }
            spill::remove(&mp, spill);
            let parts = quads
                .spills
                .get(start..end)
                .ok_or_else(|| BuildError::Invalid("internal: quad chunk out of range".into()))?;
            remap_parts(&dense, parts, dir, &mut out, spill)?;
            start = end;
        }
        Ok(out)
    }

    /// Rewrites the quads of a dictionary that stayed in memory with final ids (`dense`): the
    /// parts spilled while parsing (the terms bound a chunk, not the quads) into new parts, the
    /// rest in place.
    fn in_memory(self, dense: &[u32], quads: ProvQuads) -> Result<ProvQuads, BuildError> {
        use rayon::prelude::*;
        let Remap {
            dir,
            spill,
            mut out,
        } = self;
        remap_parts(dense, &quads.spills, dir, &mut out, spill)?;
        let mut mem = quads.mem;
        mem.par_chunks_mut(1 << 16).try_for_each(|chunk| {
            for q in chunk {
                for v in q.iter_mut() {
                    *v = lookup(dense, *v)?;
                }
            }
            Ok::<(), BuildError>(())
        })?;
        out.total += mem.len() as u64;
        out.mem = mem;
        Ok(out)
    }
}

/// The final id of the term at place `i` of the dictionary order (ids start at 1).
fn final_id(i: usize) -> Result<u32, BuildError> {
    u32::try_from(i + 1)
        .map_err(|_| BuildError::Invalid("more than 4 billion distinct terms".into()))
}

/// Rewrites spilled parts of quads with final ids into new parts of `out` (packed as its
/// packing says), in order, several at a time, removing them.
fn remap_parts(
    dense: &[u32],
    parts: &[PathBuf],
    dir: &Path,
    out: &mut ProvQuads,
    spill: &Spill,
) -> Result<(), BuildError> {
    use rayon::prelude::*;
    let base = out.spills.len();
    let packing = out
        .packing
        .as_ref()
        .ok_or_else(|| BuildError::Invalid("internal: parts rewritten without a packing".into()))?;
    let done: Vec<Result<(PathBuf, u64), BuildError>> = parts
        .par_iter()
        .enumerate()
        .map(|(j, part)| {
            let path = dir.join(format!("quads-{}.bin", base + j));
            let mut w = PackedWriter::create(&path, packing)?;
            read_quads(part, |q| {
                w.push([
                    lookup(dense, q[0])?,
                    lookup(dense, q[1])?,
                    lookup(dense, q[2])?,
                    lookup(dense, q[3])?,
                ])
            })?;
            let n = w.finish(spill)?;
            spill::remove(part, spill);
            Ok((path, n))
        })
        .collect();
    for r in done {
        let (path, n) = r?;
        out.spills.push(path);
        out.total += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Parts rewritten side by side come out in their order, each quad mapped, and the old
    /// parts are removed.
    #[test]
    fn parts_are_rewritten_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::default();
        let dense: Vec<u32> = (0..100u32).map(|i| i * 10).collect();
        let mut parts = Vec::new();
        for p in 0..7u32 {
            let path = dir.path().join(format!("prov-{p}.bin"));
            let mut w = QuadWriter::create(&path).unwrap();
            for q in 0..(p * 300) {
                w.push([p, q % 100, (q + 1) % 100, 0]).unwrap();
            }
            w.finish(&spill).unwrap();
            parts.push(path);
        }
        let packing = || {
            let preds = (0..100u32).map(|i| i * 10).collect();
            Some(Packing::new(990, Some(preds), Some(HashSet::from([0]))))
        };
        let mut out = ProvQuads::packed(packing());
        remap_parts(&dense, &parts, dir.path(), &mut out, &spill).unwrap();
        assert_eq!(out.spills.len(), 7);
        assert_eq!(out.total, (0..7).map(|p| p * 300).sum::<u64>());
        assert!(parts.iter().all(|p| !p.exists()));
        for (p, path) in out.spills.iter().enumerate() {
            // Packed: 10 + 7 + 10 bits, 8 bytes a quad.
            assert_eq!(
                std::fs::metadata(path).unwrap().len(),
                u64::from(p as u32 * 300) * 8
            );
            let mut got = Vec::new();
            out.read_part(path, |q| {
                got.push(q);
                Ok(())
            })
            .unwrap();
            let p = p as u32;
            let want: Vec<[u32; 4]> = (0..(p * 300))
                .map(|q| [p * 10, (q % 100) * 10, ((q + 1) % 100) * 10, 0])
                .collect();
            assert_eq!(got, want);
        }
        // An id outside the map is an error, not a wrong quad.
        let bad = dir.path().join("prov-bad.bin");
        let mut w = QuadWriter::create(&bad).unwrap();
        w.push([1, 2, 100, 0]).unwrap();
        w.finish(&spill).unwrap();
        let mut out = ProvQuads::packed(packing());
        assert!(remap_parts(&dense, &[bad], dir.path(), &mut out, &spill).is_err());
        // So is an id the packing has no room for (a predicate it was not told of).
        let odd = dir.path().join("prov-odd.bin");
        let mut w = QuadWriter::create(&odd).unwrap();
        w.push([1, 2, 3, 0]).unwrap();
        w.finish(&spill).unwrap();
        let dense: Vec<u32> = (0..100u32).map(|i| i * 10 + 1).collect();
        let err = remap_parts(&dense, &[odd], dir.path(), &mut out, &spill).unwrap_err();
        assert!(
            err.to_string().contains("outside the sort keys' packing"),
            "{err}"
        );
    }
}
