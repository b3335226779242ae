//! Parsed quads (ids in parse order) and their external sort into each permutation.
//!
//! While parsing, quads accumulate in memory with chunk-local term ids and are spilled to temp
//! files in parts of a bounded size, each dictionary chunk's parts in a row (see
//! [`crate::extdict`]). The dictionary phase rewrites them with final ids, packed as SPO sort
//! keys ([`PackedWriter`]). Sorting a permutation reads them back, sorts runs that fit the
//! budget (spilling each run), and k-way merges the runs, dropping duplicates.

mod packing;
mod quads;
mod runs;

pub(crate) use packing::{Packing, RANK_LIMIT};
pub use quads::ProvQuads;
#[cfg(test)]
pub(crate) use quads::QuadWriter;
pub(crate) use quads::{io_err, read_quads, PackedWriter};

use crate::spill::{self, Spill};
use crate::BuildError;
use packing::PermPacking;
use rete_core::{IdQuad, Perm};
use runs::{merge, write_run, RunDir};
use std::path::{Path, PathBuf};

/// A permutation key in memory.
pub(super) type Key = [u32; 4];

/// The keys held in memory.
enum MemKeys {
    Packed(Vec<u64>),
    Packed128(Vec<u128>),
}

/// Sorted, distinct keys of one permutation, from in-memory runs or merged spilled runs.
pub(crate) struct SortedKeys<'a> {
    mem: MemKeys,
    packing: PermPacking<'a>,
    runs: Vec<PathBuf>,
}

/// The packed keys of `perm` in memory as `T`, sorted and distinct, or spilled in sorted runs
/// of at most `run_len` keys (then none stay in memory; with `spill_all` even one run is
/// spilled).
fn collect<T: Ord + Copy + Send + Sync + Default + Into<u128>>(
    quads: &ProvQuads,
    run_len: usize,
    spill_all: bool,
    to: impl Fn(u128) -> T + Sync,
    at: &RunDir<'_>,
    p: PermPacking<'_>,
) -> Result<(Vec<T>, Vec<PathBuf>), BuildError> {
    if at.parallel && !spill_all && (quads.total as usize) < run_len {
        let mut buf = collect_all(quads, &to, p)?;
        sort_dedup(&mut buf, true);
        return Ok((buf, Vec::new()));
    }
    let mut buf: Vec<T> = Vec::with_capacity((quads.total as usize).min(run_len));
    let mut runs = Vec::new();
    let mut push = |v: u128| {
        buf.push(to(v));
        if buf.len() >= run_len {
            runs.push(write_run(&mut buf, at, runs.len())?);
        }
        Ok(())
    };
    for path in &quads.spills {
        quads.part_keys(path, p, &mut push)?;
    }
    for &q in &quads.mem {
        push(p.pack(q))?;
    }
    sort_dedup(&mut buf, at.parallel);
    if (spill_all || !runs.is_empty()) && !buf.is_empty() {
        runs.push(write_run(&mut buf, at, runs.len())?);
    }
    if !runs.is_empty() {
        buf = Vec::new();
    }
    Ok((buf, runs))
}

/// Every key of `p`'s permutation in memory, unsorted: the spilled parts are read side by side
/// on rayon's threads, each into its own range (a part's length is its file's).
fn collect_all<T: Copy + Send + Sync + Default>(
    quads: &ProvQuads,
    to: &(impl Fn(u128) -> T + Sync),
    p: PermPacking<'_>,
) -> Result<Vec<T>, BuildError> {
    use rayon::prelude::*;
    let mut lens = Vec::with_capacity(quads.spills.len());
    let record = quads.record_len() as u64;
    for path in &quads.spills {
        let bytes = std::fs::metadata(path).map_err(|e| io_err(path, e))?.len();
        if bytes % record != 0 {
            return Err(BuildError::Invalid(format!(
                "{}: quad spill file cut short",
                path.display()
            )));
        }
        lens.push((bytes / record) as usize);
    }
    let total = lens.iter().sum::<usize>() + quads.mem.len();
    if total as u64 != quads.total {
        return Err(BuildError::Invalid(
            "internal: quad spill files differ from their count".into(),
        ));
    }
    let mut buf = vec![T::default(); total];
    let (parts, mem) = buf.split_at_mut(total - quads.mem.len());
    let mut ranges = Vec::with_capacity(lens.len());
    let mut rest = parts;
    for &n in &lens {
        let (a, b) = rest.split_at_mut(n);
        ranges.push(a);
        rest = b;
    }
    ranges
        .into_par_iter()
        .zip(&quads.spills)
        .try_for_each(|(range, path)| {
            let mut slots = range.iter_mut();
            quads.part_keys(path, p, |v| {
                let slot = slots.next().ok_or_else(|| {
                    BuildError::Invalid(format!("{}: quad spill file grew", path.display()))
                })?;
                *slot = to(v);
                Ok(())
            })
        })?;
    mem.par_iter_mut()
        .zip(&quads.mem)
        .for_each(|(slot, &q)| *slot = to(p.pack(q)));
    Ok(buf)
}

impl<'a> SortedKeys<'a> {
    /// Builds the runs of `perm` from quads with final ids: at most `run_len` keys are sorted
    /// in memory at a time. With `spill_all` every key goes to runs, each sorted on this thread
    /// (the permutations sort side by side, one per thread).
    pub(crate) fn new(
        quads: &ProvQuads,
        perm: Perm,
        packing: &'a Packing,
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
        let p = packing.of_perm(perm);
        let (mem, runs) = if p.fits64() {
            // The packed key takes at most 64 bits: the cast keeps it whole.
            let (mem, runs) = collect(quads, run_len, spill_all, |v| v as u64, &at, p)?;
            (MemKeys::Packed(mem), runs)
        } else {
            let (mem, runs) = collect(quads, run_len, spill_all, |v| v, &at, p)?;
            (MemKeys::Packed128(mem), runs)
        };
        Ok(Self {
            mem,
            packing: p,
            runs,
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
        let p = self.packing;
        let mut out = |v: u128| f(wide(p.unpack(v)));
        match self.mem {
            MemKeys::Packed(mem) => mem.into_iter().try_for_each(|v| out(u128::from(v)))?,
            MemKeys::Packed128(mem) => mem.into_iter().try_for_each(&mut out)?,
        }
        merge(&self.runs, out)?;
        for path in &self.runs {
            spill::remove(path, spill);
        }
        Ok(())
    }

    /// Feeds the keys to `f` in blocks of `block` keys (the last may hold fewer), each with
    /// what `enc` made of it, removing the runs. Keys held in memory are unpacked and given to
    /// `enc` on rayon's threads, a window of blocks at a time, so one permutation's blocks are
    /// compressed on every thread; merged runs are read and encoded on this thread.
    pub(crate) fn drain_blocks<B: Send>(
        self,
        spill: &Spill,
        block: usize,
        enc: impl Fn(&[IdQuad]) -> Result<B, BuildError> + Sync,
        mut f: impl FnMut(&[IdQuad], B) -> Result<(), BuildError> + Send,
    ) -> Result<(), BuildError> {
        let block = block.max(1);
        if self.runs.is_empty() {
            let p = self.packing;
            return match &self.mem {
                MemKeys::Packed(mem) => blocks_in_parallel(mem, p, block, &enc, &mut f),
                MemKeys::Packed128(mem) => blocks_in_parallel(mem, p, block, &enc, &mut f),
            };
        }
        let mut buf = Vec::with_capacity(block);
        self.drain(spill, |k| {
            buf.push(k);
            if buf.len() == block {
                let b = enc(&buf)?;
                f(&buf, b)?;
                buf.clear();
            }
            Ok(())
        })?;
        if !buf.is_empty() {
            let b = enc(&buf)?;
            f(&buf, b)?;
        }
        Ok(())
    }
}

/// Where [`SortedKeys::drain_blocks`] hands each block (its quads and what was made of them).
type BlockSink<'a, B> = dyn FnMut(&[IdQuad], B) -> Result<(), BuildError> + Send + 'a;

/// Blocks encoded in one window, in order.
type Encoded<B> = Vec<Result<(Vec<IdQuad>, B), BuildError>>;

/// [`SortedKeys::drain_blocks`] over keys in memory.
fn blocks_in_parallel<T: Copy + Sync + Into<u128>, B: Send>(
    mem: &[T],
    p: PermPacking<'_>,
    block: usize,
    enc: &(impl Fn(&[IdQuad]) -> Result<B, BuildError> + Sync),
    f: &mut BlockSink<'_, B>,
) -> Result<(), BuildError> {
    use rayon::prelude::*;
    // Whole blocks, enough of them to keep every thread busy; the window's unpacked quads and
    // encoded blocks are all that is held besides the keys.
    let window = block.saturating_mul(16 * rayon::current_num_threads().max(1));
    let encode = |w: &[T]| -> Encoded<B> {
        w.par_chunks(block)
            .map(|keys| {
                let quads: Vec<IdQuad> = keys.iter().map(|&v| wide(p.unpack(v.into()))).collect();
                let b = enc(&quads)?;
                Ok((quads, b))
            })
            .collect()
    };
    let consume = |done: Encoded<B>, f: &mut BlockSink<'_, B>| -> Result<(), BuildError> {
        for r in done {
            let (quads, b) = r?;
            f(&quads, b)?;
        }
        Ok(())
    };
    // The blocks of one window are handed to `f` while the next window is being encoded.
    let mut pending = Vec::new();
    for w in mem.chunks(window) {
        let ready = std::mem::take(&mut pending);
        let (done, r) = rayon::join(|| encode(w), || consume(ready, &mut *f));
        r?;
        pending = done;
    }
    consume(pending, f)
}

fn wide(k: Key) -> IdQuad {
    k.map(u64::from)
}

pub(super) fn sort_dedup<T: Ord + Send>(buf: &mut Vec<T>, parallel: bool) {
    use rayon::slice::ParallelSliceMut;
    if parallel {
        buf.par_sort_unstable();
    } else {
        buf.sort_unstable();
    }
    buf.dedup();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// Delta-coded runs give back the sorted, distinct keys, including the largest `u128` and a
    /// first key of zero; merging runs drops keys repeated across them; a run cut short is an
    /// error, not a shorter answer.
    #[test]
    fn runs_round_trip_and_merge() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::default();
        let at = RunDir {
            dir: dir.path(),
            perm: Perm::Spo,
            spill: &spill,
            parallel: true,
        };
        let a: Vec<u128> = vec![0, u128::MAX, 5, 5, 1 << 64, 300, (1 << 64) - 1, 127, 128];
        let b: Vec<u128> = vec![5, 6, u128::MAX, u128::MAX - 1];
        let c: Vec<u64> = vec![u64::MAX, 7, 0];
        let mut runs = Vec::new();
        for (i, keys) in [a.clone(), b.clone()].into_iter().enumerate() {
            let mut buf = keys;
            runs.push(write_run(&mut buf, &at, i).unwrap());
        }
        let mut buf = c.clone();
        runs.push(write_run(&mut buf, &at, 2).unwrap());
        let mut expected: Vec<u128> = a
            .into_iter()
            .chain(b)
            .chain(c.into_iter().map(u128::from))
            .collect();
        expected.sort_unstable();
        expected.dedup();
        let read = |runs: &[PathBuf]| {
            let mut got = Vec::new();
            merge(runs, |v| {
                got.push(v);
                Ok(())
            })
            .map(|()| got)
        };
        assert_eq!(read(&runs).unwrap(), expected);
        assert_eq!(read(&runs[2..]).unwrap(), vec![0, 7, u128::from(u64::MAX)]);
        // The last key of the first run is u128::MAX, its varint 19 bytes: cut one off.
        let len = std::fs::metadata(&runs[0]).unwrap().len();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&runs[0])
            .unwrap();
        f.set_len(len - 1).unwrap();
        let err = read(&runs[..1]).unwrap_err().to_string();
        assert!(err.contains("damaged sort run"), "{err}");
        let packing = Packing::of(&ProvQuads::default()).unwrap();
        let keys = SortedKeys {
            mem: MemKeys::Packed(Vec::new()),
            packing: packing.of_perm(Perm::Spo),
            runs,
        };
        assert!(keys.drain(&spill, |_| Ok(())).is_err());
    }
}
