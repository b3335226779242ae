//! Provisional quads (interned ids in parse order) and their external sort into each permutation.
//!
//! While parsing, quads accumulate in memory; when the memory budget is reached they are spilled
//! to a temp file. Sorting a permutation reads them back, remaps ids to final dictionary ids,
//! sorts runs that fit the budget (spilling each run), and k-way merges the runs, dropping
//! duplicates.

use crate::BuildError;
use rete_core::{IdQuad, Perm};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const PROV_LEN: usize = 16;
const KEY_LEN: usize = 32;

/// Provisional quads: spilled chunks on disk plus the in-memory tail.
#[derive(Debug, Default)]
pub struct ProvQuads {
    pub(crate) mem: Vec<[u32; 4]>,
    pub(crate) spills: Vec<PathBuf>,
    pub(crate) total: u64,
}

fn io_err(path: &Path, e: std::io::Error) -> BuildError {
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

    /// Writes the in-memory quads to a new spill file in `dir`.
    pub(crate) fn spill(&mut self, dir: &Path) -> Result<(), BuildError> {
        if self.mem.is_empty() {
            return Ok(());
        }
        let path = dir.join(format!("prov-{}.bin", self.spills.len()));
        let mut w = BufWriter::new(File::create(&path).map_err(|e| io_err(&path, e))?);
        for q in &self.mem {
            for v in q {
                w.write_all(&v.to_le_bytes())
                    .map_err(|e| io_err(&path, e))?;
            }
        }
        w.flush().map_err(|e| io_err(&path, e))?;
        self.spills.push(path);
        self.mem = Vec::new();
        Ok(())
    }

    /// Calls `f` on every provisional quad: spilled ones first, then the in-memory ones.
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        for path in &self.spills {
            let mut r =
                BufReader::with_capacity(1 << 20, File::open(path).map_err(|e| io_err(path, e))?);
            let mut rec = [0u8; PROV_LEN];
            loop {
                match r.read_exact(&mut rec) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(io_err(path, e)),
                }
                let mut q = [0u32; 4];
                for (i, v) in q.iter_mut().enumerate() {
                    *v = u32::from_le_bytes([
                        rec[i * 4],
                        rec[i * 4 + 1],
                        rec[i * 4 + 2],
                        rec[i * 4 + 3],
                    ]);
                }
                f(q)?;
            }
        }
        for q in &self.mem {
            f(*q)?;
        }
        Ok(())
    }
}

/// Sorted, distinct keys of one permutation, from in-memory runs or merged spilled runs.
pub(crate) struct SortedKeys {
    mem: Vec<IdQuad>,
    runs: Vec<PathBuf>,
}

impl SortedKeys {
    /// Builds the runs of `perm`: at most `run_len` keys are sorted in memory at a time.
    pub(crate) fn new(
        prov: &ProvQuads,
        remap: &[u64],
        perm: Perm,
        run_len: usize,
        dir: &Path,
    ) -> Result<Self, BuildError> {
        let run_len = run_len.max(1024);
        let mut buf: Vec<IdQuad> = Vec::with_capacity((prov.total as usize).min(run_len));
        let mut runs = Vec::new();
        let key = |q: [u32; 4]| {
            perm.to_key(&[
                remap[q[0] as usize],
                remap[q[1] as usize],
                remap[q[2] as usize],
                remap[q[3] as usize],
            ])
        };
        prov.for_each(|q| {
            buf.push(key(q));
            if buf.len() >= run_len {
                runs.push(write_run(&mut buf, dir, perm, runs.len())?);
            }
            Ok(())
        })?;
        sort_dedup(&mut buf);
        if !runs.is_empty() && !buf.is_empty() {
            runs.push(write_run(&mut buf, dir, perm, runs.len())?);
        }
        Ok(Self { mem: buf, runs })
    }

    /// Number of spilled runs.
    pub(crate) fn spilled_runs(&self) -> usize {
        self.runs.len()
    }

    /// Feeds the keys in order to `f`.
    pub(crate) fn drain(
        self,
        mut f: impl FnMut(IdQuad) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        if self.runs.is_empty() {
            for k in self.mem {
                f(k)?;
            }
            return Ok(());
        }
        let mut readers = Vec::with_capacity(self.runs.len());
        let mut heap = BinaryHeap::new();
        for (i, path) in self.runs.iter().enumerate() {
            let mut r =
                BufReader::with_capacity(1 << 16, File::open(path).map_err(|e| io_err(path, e))?);
            if let Some(k) = read_key(&mut r, path)? {
                heap.push(Reverse((k, i)));
            }
            readers.push(r);
        }
        let mut last: Option<IdQuad> = None;
        while let Some(Reverse((k, i))) = heap.pop() {
            if last != Some(k) {
                f(k)?;
                last = Some(k);
            }
            if let Some(n) = read_key(&mut readers[i], &self.runs[i])? {
                heap.push(Reverse((n, i)));
            }
        }
        for path in &self.runs {
            let _ = std::fs::remove_file(path);
        }
        Ok(())
    }
}

fn sort_dedup(buf: &mut Vec<IdQuad>) {
    use rayon::slice::ParallelSliceMut;
    buf.par_sort_unstable();
    buf.dedup();
}

fn write_run(
    buf: &mut Vec<IdQuad>,
    dir: &Path,
    perm: Perm,
    n: usize,
) -> Result<PathBuf, BuildError> {
    sort_dedup(buf);
    let path = dir.join(format!("run-{}-{n}.bin", perm.label()));
    let mut w =
        BufWriter::with_capacity(1 << 20, File::create(&path).map_err(|e| io_err(&path, e))?);
    for k in buf.iter() {
        for v in k {
            w.write_all(&v.to_le_bytes())
                .map_err(|e| io_err(&path, e))?;
        }
    }
    w.flush().map_err(|e| io_err(&path, e))?;
    buf.clear();
    Ok(path)
}

fn read_key(r: &mut impl Read, path: &Path) -> Result<Option<IdQuad>, BuildError> {
    let mut rec = [0u8; KEY_LEN];
    match r.read_exact(&mut rec) {
        Ok(()) => {
            let mut k = [0u64; 4];
            for (i, v) in k.iter_mut().enumerate() {
                let mut b = [0u8; 8];
                b.copy_from_slice(&rec[i * 8..i * 8 + 8]);
                *v = u64::from_le_bytes(b);
            }
            Ok(Some(k))
        }
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(io_err(path, e)),
    }
}
