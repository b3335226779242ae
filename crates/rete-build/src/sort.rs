//! Parsed quads (ids in parse order) and their external sort into each permutation.
//!
//! While parsing, quads accumulate in memory with chunk-local term ids and are spilled to temp
//! files in parts of a bounded size, each dictionary chunk's parts in a row (see
//! [`crate::extdict`]). The dictionary phase rewrites them with final ids. Sorting a permutation
//! reads them back, sorts runs that fit the budget (spilling each run), and k-way merges the runs,
//! dropping duplicates.

use crate::spill::{self, Spill};
use crate::BuildError;
use rete_core::{IdQuad, Perm};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const PROV_LEN: usize = 16;

/// A permutation key in memory.
type Key = [u32; 4];

/// Quads: spilled parts on disk plus the in-memory tail.
#[derive(Debug, Default)]
pub struct ProvQuads {
    pub(crate) mem: Vec<[u32; 4]>,
    pub(crate) spills: Vec<PathBuf>,
    /// While their ids are chunk-local: where each dictionary chunk's parts end in `spills`.
    pub(crate) chunk_ends: Vec<usize>,
    pub(crate) total: u64,
}

pub(crate) fn io_err(path: &Path, e: std::io::Error) -> BuildError {
    BuildError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

impl ProvQuads {
    pub(crate) fn push(&mut self, q: [u32; 4]) {
        self.mem.push(q);
        self.total += 1;
    }

    /// Writes the in-memory quads to a new spill file (a part) in `dir`, an empty one too.
    pub(crate) fn spill(
        &mut self,
        dir: &Path,
        name: &str,
        spill: &Spill,
    ) -> Result<(), BuildError> {
        let path = dir.join(format!("{name}-{}.bin", self.spills.len()));
        write_quads(&path, &self.mem, spill)?;
        self.spills.push(path);
        self.mem = Vec::new();
        Ok(())
    }

    /// Ends the current dictionary chunk's parts (after the last one was spilled).
    pub(crate) fn end_chunk(&mut self) {
        self.chunk_ends.push(self.spills.len());
    }

    /// Removes the spill files.
    pub(crate) fn remove(self, spill: &Spill) {
        for p in &self.spills {
            spill::remove(p, spill);
        }
    }

    /// Calls `f` on every quad: spilled ones first, then the in-memory ones.
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        for path in &self.spills {
            read_quads(path, &mut f)?;
        }
        for q in &self.mem {
            f(*q)?;
        }
        Ok(())
    }
}

/// Writes quads of `u32` ids to a spill file.
pub(crate) fn write_quads(
    path: &Path,
    quads: &[[u32; 4]],
    spill: &Spill,
) -> Result<(), BuildError> {
    let mut w = QuadWriter::create(path)?;
    for q in quads {
        w.push(*q)?;
    }
    w.finish(spill)?;
    Ok(())
}

/// Streams quads of `u32` ids into a spill file.
pub(crate) struct QuadWriter<'a> {
    w: BufWriter<File>,
    path: &'a Path,
    n: u64,
}

impl<'a> QuadWriter<'a> {
    pub(crate) fn create(path: &'a Path) -> Result<Self, BuildError> {
        Ok(Self {
            w: BufWriter::with_capacity(1 << 20, File::create(path).map_err(|e| io_err(path, e))?),
            path,
            n: 0,
        })
    }

    pub(crate) fn push(&mut self, q: [u32; 4]) -> Result<(), BuildError> {
        let mut rec = [0u8; PROV_LEN];
        for (i, v) in q.iter().enumerate() {
            rec[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.n += 1;
        self.w.write_all(&rec).map_err(|e| io_err(self.path, e))
    }

    /// Flushes; returns the number of quads written.
    pub(crate) fn finish(mut self, spill: &Spill) -> Result<u64, BuildError> {
        self.w.flush().map_err(|e| io_err(self.path, e))?;
        spill.wrote(self.n * PROV_LEN as u64);
        Ok(self.n)
    }
}

/// Calls `f` on every quad of a spill file.
pub(crate) fn read_quads(
    path: &Path,
    mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let mut r = BufReader::with_capacity(1 << 20, File::open(path).map_err(|e| io_err(path, e))?);
    let mut rec = [0u8; PROV_LEN];
    loop {
        match r.read_exact(&mut rec) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(io_err(path, e)),
        }
        let mut q = [0u32; 4];
        for (i, v) in q.iter_mut().enumerate() {
            *v = u32::from_le_bytes([rec[i * 4], rec[i * 4 + 1], rec[i * 4 + 2], rec[i * 4 + 3]]);
        }
        f(q)?;
    }
    Ok(())
}

/// How keys are held while sorting: packed into one integer, fields from the most significant
/// bits down, so the integer order is the key order. A `u64` when three term ids and a graph id
/// take at most 64 bits (half the bytes of four `u32`), else a `u128`: a sort compares one or
/// two words instead of four `u32` one after the other.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packing {
    /// Bits of a subject, predicate or object id.
    id_bits: u32,
    /// Bits of a graph id (0 when every quad is in the default graph).
    g_bits: u32,
}

impl Packing {
    /// The packing for `quads` (with final ids).
    pub(crate) fn of(quads: &ProvQuads) -> Result<Self, BuildError> {
        let (mut id, mut g) = (0u32, 0u32);
        quads.for_each(|q| {
            id = id.max(q[0]).max(q[1]).max(q[2]);
            g = g.max(q[3]);
            Ok(())
        })?;
        let bits = |v: u32| u32::BITS - v.leading_zeros();
        Ok(Self {
            id_bits: bits(id).max(1),
            g_bits: bits(g),
        })
    }

    /// Whether a key fits a `u64`.
    fn fits64(self) -> bool {
        3 * self.id_bits + self.g_bits <= 64
    }

    /// Bytes of a sort key in memory.
    pub(crate) fn key_bytes(self) -> usize {
        if self.fits64() {
            size_of::<u64>()
        } else {
            size_of::<u128>()
        }
    }

    fn pack(self, k: Key) -> u128 {
        let (i, g) = (self.id_bits, self.g_bits);
        (u128::from(k[0]) << (2 * i + g))
            | (u128::from(k[1]) << (i + g))
            | (u128::from(k[2]) << g)
            | u128::from(k[3])
    }

    fn unpack(self, v: u128) -> Key {
        let (i, g) = (self.id_bits, self.g_bits);
        let field = |shift: u32, bits: u32| ((v >> shift) & ((1u128 << bits) - 1)) as u32;
        [
            field(2 * i + g, i),
            field(i + g, i),
            field(g, i),
            field(0, g),
        ]
    }
}

/// The keys held in memory.
enum MemKeys {
    Packed(Vec<u64>, Packing),
    Packed128(Vec<u128>, Packing),
}

/// Sorted, distinct keys of one permutation, from in-memory runs or merged spilled runs.
pub(crate) struct SortedKeys {
    mem: MemKeys,
    runs: Vec<PathBuf>,
}

/// Where spilled runs go, and how they are sorted.
struct RunDir<'a> {
    dir: &'a Path,
    perm: Perm,
    spill: &'a Spill,
    /// Sort on rayon's threads. Off when every permutation spills: each then sorts on its own
    /// thread, so no thread waiting inside a parallel sort picks up another permutation's
    /// collection, which would hold one more run buffer than the budget has room for.
    parallel: bool,
}

/// The keys of `perm` in memory as `T`, sorted and distinct, or spilled in sorted runs of at
/// most `run_len` keys (then none stay in memory; with `spill_all` even one run is spilled).
fn collect<T: Ord + Copy + Send>(
    quads: &ProvQuads,
    run_len: usize,
    spill_all: bool,
    to: impl Fn(Key) -> T,
    from: impl Fn(T) -> Key + Copy,
    at: &RunDir<'_>,
) -> Result<(Vec<T>, Vec<PathBuf>), BuildError> {
    let mut buf: Vec<T> = Vec::with_capacity((quads.total as usize).min(run_len));
    let mut runs = Vec::new();
    let o = at.perm.order();
    quads.for_each(|q| {
        buf.push(to([q[o[0]], q[o[1]], q[o[2]], q[3]]));
        if buf.len() >= run_len {
            runs.push(write_run(&mut buf, from, at, runs.len())?);
        }
        Ok(())
    })?;
    sort_dedup(&mut buf, at.parallel);
    if (spill_all || !runs.is_empty()) && !buf.is_empty() {
        runs.push(write_run(&mut buf, from, at, runs.len())?);
    }
    if !runs.is_empty() {
        buf = Vec::new();
    }
    Ok((buf, runs))
}

impl SortedKeys {
    /// Builds the runs of `perm` from quads with final ids: at most `run_len` keys are sorted
    /// in memory at a time. With `spill_all` every key goes to runs, each sorted on this thread
    /// (the permutations sort side by side, one per thread).
    pub(crate) fn new(
        quads: &ProvQuads,
        perm: Perm,
        packing: Packing,
        run_len: usize,
        spill_all: bool,
        dir: &Path,
        spill: &Spill,
    ) -> Result<Self, BuildError> {
        let run_len = run_len.max(1024);
        let at = RunDir {
            dir,
            perm,
            spill,
            parallel: !spill_all,
        };
        let p = packing;
        Ok(if p.fits64() {
            // The packed key takes at most 64 bits: the cast keeps it whole.
            let (mem, runs) = collect(
                quads,
                run_len,
                spill_all,
                |k| p.pack(k) as u64,
                move |v: u64| p.unpack(u128::from(v)),
                &at,
            )?;
            Self {
                mem: MemKeys::Packed(mem, p),
                runs,
            }
        } else {
            let (mem, runs) = collect(
                quads,
                run_len,
                spill_all,
                |k| p.pack(k),
                move |v| p.unpack(v),
                &at,
            )?;
            Self {
                mem: MemKeys::Packed128(mem, p),
                runs,
            }
        })
    }

    /// Number of spilled runs.
    pub(crate) fn spilled_runs(&self) -> usize {
        self.runs.len()
    }

    /// Feeds the keys in order to `f`, removing the runs.
    pub(crate) fn drain(
        self,
        spill: &Spill,
        mut f: impl FnMut(IdQuad) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        if self.runs.is_empty() {
            match self.mem {
                MemKeys::Packed(mem, p) => {
                    for v in mem {
                        f(wide(p.unpack(u128::from(v))))?;
                    }
                }
                MemKeys::Packed128(mem, p) => {
                    for v in mem {
                        f(wide(p.unpack(v)))?;
                    }
                }
            }
            return Ok(());
        }
        let mut readers = Vec::with_capacity(self.runs.len());
        let mut heap = BinaryHeap::new();
        for (i, path) in self.runs.iter().enumerate() {
            let mut r = RunReader::open(path)?;
            if let Some(k) = r.next()? {
                heap.push(Reverse((k, i)));
            }
            readers.push(r);
        }
        let mut last: Option<Key> = None;
        while let Some(Reverse((k, i))) = heap.pop() {
            if last != Some(k) {
                f(wide(k))?;
                last = Some(k);
            }
            let r = readers
                .get_mut(i)
                .ok_or_else(|| BuildError::Invalid("internal: run out of range".into()))?;
            if let Some(n) = r.next()? {
                heap.push(Reverse((n, i)));
            }
        }
        drop(readers);
        for path in &self.runs {
            spill::remove(path, spill);
        }
        Ok(())
    }
}

fn wide(k: Key) -> IdQuad {
    k.map(u64::from)
}

fn sort_dedup<T: Ord + Send>(buf: &mut Vec<T>, parallel: bool) {
    use rayon::slice::ParallelSliceMut;
    if parallel {
        buf.par_sort_unstable();
    } else {
        buf.sort_unstable();
    }
    buf.dedup();
}

/// Writes a sorted run, each key as its difference from the previous one: the index of the
/// first component that changed, that component's increase, then the remaining components, as
/// LEB128 varints. Sorted keys share their leading components, so a key takes about a third of
/// its 32 bytes on disk.
fn write_run<T: Ord + Copy + Send>(
    buf: &mut Vec<T>,
    from: impl Fn(T) -> Key,
    at: &RunDir<'_>,
    n: usize,
) -> Result<PathBuf, BuildError> {
    let RunDir {
        dir,
        perm,
        spill,
        parallel,
    } = *at;
    sort_dedup(buf, parallel);
    let path = dir.join(format!("run-{}-{n}.bin", perm.label()));
    let mut w =
        BufWriter::with_capacity(1 << 20, File::create(&path).map_err(|e| io_err(&path, e))?);
    let mut prev: Key = [0; 4];
    let mut rec = Vec::with_capacity(4 * 5 + 1);
    let mut bytes = 0u64;
    for &k in buf.iter() {
        let k = from(k);
        rec.clear();
        let i = (0..4).find(|&i| k[i] != prev[i]).unwrap_or(4);
        rec.push(i as u8);
        if i < 4 {
            put_varint(&mut rec, k[i].wrapping_sub(prev[i]));
            for v in &k[i + 1..] {
                put_varint(&mut rec, *v);
            }
        }
        w.write_all(&rec).map_err(|e| io_err(&path, e))?;
        bytes += rec.len() as u64;
        prev = k;
    }
    w.flush().map_err(|e| io_err(&path, e))?;
    spill.wrote(bytes);
    spill
        .permutation_runs
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    buf.clear();
    Ok(path)
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a run written by [`write_run`], from its own buffer: the merge reads every byte of
/// every run, a `read_exact` call per byte cost a third of the permutation phase at 100 M.
struct RunReader<'a> {
    file: File,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    prev: Key,
    path: &'a Path,
}

impl<'a> RunReader<'a> {
    fn open(path: &'a Path) -> Result<Self, BuildError> {
        Ok(Self {
            file: File::open(path).map_err(|e| io_err(path, e))?,
            buf: vec![0u8; 1 << 16].into_boxed_slice(),
            pos: 0,
            len: 0,
            prev: [0; 4],
            path,
        })
    }

    #[inline]
    fn byte(&mut self) -> Result<Option<u8>, BuildError> {
        if self.pos == self.len {
            self.pos = 0;
            self.len = loop {
                match self.file.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(io_err(self.path, e)),
                }
            };
            if self.len == 0 {
                return Ok(None);
            }
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Ok(Some(b))
    }

    fn varint(&mut self) -> Result<u32, BuildError> {
        let mut v = 0u32;
        for shift in (0..32).step_by(7) {
            let b = self.byte()?.ok_or_else(|| self.bad())?;
            v |= u32::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(self.bad())
    }

    fn bad(&self) -> BuildError {
        BuildError::Invalid(format!("{}: damaged sort run", self.path.display()))
    }

    /// The next key, or `None` at the end of the run.
    fn next(&mut self) -> Result<Option<Key>, BuildError> {
        let Some(i) = self.byte()? else {
            return Ok(None);
        };
        let i = usize::from(i);
        if i > 4 {
            return Err(self.bad());
        }
        let mut k = self.prev;
        if i < 4 {
            k[i] = k[i].wrapping_add(self.varint()?);
            for v in k.iter_mut().skip(i + 1) {
                *v = self.varint()?;
            }
        }
        self.prev = k;
        Ok(Some(k))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// Delta-coded runs give back the sorted, distinct keys, including the largest ids and a
    /// first key of zeros, and merging runs drops keys repeated across them.
    #[test]
    fn runs_round_trip_and_merge() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::default();
        let big = u32::MAX;
        let a = vec![
            [0, 0, 0, 0],
            [big, big, big, big],
            [1, 2, 3, 0],
            [1, 2, 3, 0],
            [1, 2, 4, 7],
            [1, big, 1, 1],
            [300, 1, 1, 0],
        ];
        let b = vec![[1, 2, 3, 0], [2, 0, 0, 0], [big, big, big, big - 1]];
        let mut runs = Vec::new();
        let at = RunDir {
            dir: dir.path(),
            perm: Perm::Spo,
            spill: &spill,
            parallel: true,
        };
        for (i, keys) in [a.clone(), b.clone()].into_iter().enumerate() {
            let mut buf = keys;
            runs.push(write_run(&mut buf, |k| k, &at, i).unwrap());
        }
        assert!(spill.written() < (a.len() + b.len()) as u64 * 16);
        let mut expected: Vec<IdQuad> = a.into_iter().chain(b).map(wide).collect();
        expected.sort_unstable();
        expected.dedup();
        let keys = SortedKeys {
            mem: MemKeys::Packed128(
                Vec::new(),
                Packing {
                    id_bits: 32,
                    g_bits: 32,
                },
            ),
            runs,
        };
        let mut got = Vec::new();
        keys.drain(&spill, |k| {
            got.push(k);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, expected);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// Packed keys sort like the keys they pack and unpack to them: in a `u64` down to the
    /// widest ids that fit, in a `u128` past them.
    #[test]
    fn packed_keys_keep_the_order() {
        let quads = |qs: &[[u32; 4]]| ProvQuads {
            mem: qs.to_vec(),
            total: qs.len() as u64,
            ..ProvQuads::default()
        };
        let check = |p: Packing, max: u32, g: u32| {
            let mut keys = vec![
                [max, 0, 0, g],
                [0, max, max, 0],
                [1, 0, 0, 0],
                [0, 0, 0, g],
                [0, 0, 0, 0],
                [0, max, max, g],
                [max, max, max, g],
                [max, max, max - 1, g],
            ];
            let mut packed: Vec<u128> = keys.iter().map(|&k| p.pack(k)).collect();
            keys.sort_unstable();
            packed.sort_unstable();
            let back: Vec<Key> = packed.iter().map(|&v| p.unpack(v)).collect();
            assert_eq!(back, keys);
        };
        let wide = (1u32 << 21) - 1;
        let p = Packing::of(&quads(&[[wide, 1, 2, 0], [0, 0, 1, 1]])).unwrap();
        assert_eq!((p.id_bits, p.g_bits), (21, 1));
        assert!(p.fits64() && p.key_bytes() == 8);
        check(p, wide, 1);
        let p = Packing::of(&quads(&[[1 << 21, 1, 2, 3]])).unwrap();
        assert!(!p.fits64() && p.key_bytes() == 16);
        check(p, 1 << 21, 3);
        let p = Packing::of(&quads(&[[u32::MAX, 0, 0, u32::MAX]])).unwrap();
        assert!(!p.fits64());
        check(p, u32::MAX, u32::MAX);
        let g = Packing::of(&quads(&[[7, 7, 7, u32::MAX]])).unwrap();
        assert_eq!(g.unpack(g.pack([7, 0, 5, u32::MAX])), [7, 0, 5, u32::MAX]);
    }
}
