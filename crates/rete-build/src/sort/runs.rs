//! Spilled sort runs: their directory, their on-disk format (each key as a LEB128 varint of
//! its increase over the previous one), reading them back, and the k-way merge that drops
//! keys repeated across runs.

use super::{io_err, sort_dedup};
use crate::spill::Spill;
use crate::BuildError;
use rete_core::format::varint;
use rete_core::Perm;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Where spilled runs go, and how they are sorted.
pub(super) struct RunDir<'a> {
    pub(super) dir: &'a Path,
    pub(super) perm: Perm,
    pub(super) spill: &'a Spill,
    /// Sort on rayon's threads. Off when every permutation spills: each then sorts on its own
    /// thread, so no thread waiting inside a parallel sort picks up another permutation's
    /// collection, which would hold one more run buffer than the budget has room for.
    pub(super) parallel: bool,
}

/// Feeds the distinct keys of sorted runs to `f` in order.
pub(super) fn merge(
    runs: &[PathBuf],
    mut f: impl FnMut(u128) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    if let [run] = runs {
        let mut r = RunReader::open(run)?;
        while let Some(v) = r.next()? {
            f(v)?;
        }
        return Ok(());
    }
    let mut readers = Vec::with_capacity(runs.len());
    let mut heap = BinaryHeap::new();
    for (i, path) in runs.iter().enumerate() {
        let mut r = RunReader::open(path)?;
        if let Some(v) = r.next()? {
            heap.push(Reverse((v, i)));
        }
        readers.push(r);
    }
    let mut last: Option<u128> = None;
    while let Some(Reverse((v, i))) = heap.pop() {
        if last != Some(v) {
            f(v)?;
            last = Some(v);
        }
        let r = readers
            .get_mut(i)
            .ok_or_else(|| BuildError::Invalid("internal: run out of range".into()))?;
        if let Some(n) = r.next()? {
            heap.push(Reverse((n, i)));
        }
    }
    Ok(())
}

/// Writes a sorted run of packed keys, each as its increase over the previous one in a LEB128
/// varint: sorted keys share their high bits, so a key takes about 6 bytes on disk, and reading
/// it back is one varint, not one per field.
pub(super) fn write_run<T: Ord + Copy + Send + Into<u128>>(
    buf: &mut Vec<T>,
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
    let mut prev = 0u128;
    let mut rec = [0u8; varint::MAX_LEN_U128];
    let mut bytes = 0u64;
    for &v in buf.iter() {
        let v: u128 = v.into();
        // Sorted and distinct: only the first key may equal `prev` (0).
        let len = varint::put_u128(&mut rec, v - prev);
        w.write_all(&rec[..len]).map_err(|e| io_err(&path, e))?;
        bytes += len as u64;
        prev = v;
    }
    w.flush().map_err(|e| io_err(&path, e))?;
    spill.wrote(bytes);
    spill
        .permutation_runs
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    buf.clear();
    Ok(path)
}

/// Reads a run written by [`write_run`], from its own buffer (the merge reads every byte of
/// every run: it is the permutation phase's hottest loop after compression).
struct RunReader<'a> {
    pub(super) file: File,
    pub(super) buf: Box<[u8]>,
    pos: usize,
    pub(super) len: usize,
    eof: bool,
    prev: u128,
    pub(super) path: &'a Path,
}

impl<'a> RunReader<'a> {
    pub(super) fn open(path: &'a Path) -> Result<Self, BuildError> {
        Ok(Self {
            file: File::open(path).map_err(|e| io_err(path, e))?,
            buf: vec![0u8; 1 << 16].into_boxed_slice(),
            pos: 0,
            len: 0,
            eof: false,
            prev: 0,
            path,
        })
    }

    /// Moves the unread bytes to the front and reads until the buffer is full or the file ends.
    fn refill(&mut self) -> Result<(), BuildError> {
        self.buf.copy_within(self.pos..self.len, 0);
        self.len -= self.pos;
        self.pos = 0;
        while self.len < self.buf.len() {
            match self.file.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err(self.path, e)),
            }
        }
        Ok(())
    }

    fn bad(&self) -> BuildError {
        BuildError::Invalid(format!("{}: damaged sort run", self.path.display()))
    }

    /// The next key, or `None` at the end of the run.
    #[inline]
    pub(super) fn next(&mut self) -> Result<Option<u128>, BuildError> {
        if self.len - self.pos < varint::MAX_LEN_U128 && !self.eof {
            self.refill()?;
        }
        if self.pos == self.len {
            return Ok(None);
        }
        // None: a varint cut short by the end of the file, or longer than a u128's.
        let (v, n) = varint::get_u128(&self.buf[self.pos..self.len]).ok_or_else(|| self.bad())?;
        self.pos += n;
        self.prev = self.prev.checked_add(v).ok_or_else(|| self.bad())?;
        Ok(Some(self.prev))
    }
}
