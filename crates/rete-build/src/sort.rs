//! Parsed quads (ids in parse order) and their external sort into each permutation.
//!
//! While parsing, quads accumulate in memory with chunk-local term ids and are spilled to temp
//! files in parts of a bounded size, each dictionary chunk's parts in a row (see
//! [`crate::extdict`]). The dictionary phase rewrites them with final ids, packed as SPO sort
//! keys ([`PackedWriter`]). Sorting a permutation reads them back, sorts runs that fit the
//! budget (spilling each run), and k-way merges the runs, dropping duplicates.

use crate::spill::{self, Spill};
use crate::BuildError;
use rete_core::{IdQuad, Perm};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
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
    /// With final ids: how the parts are packed (see [`PackedWriter`]) and the keys will be.
    pub(crate) packing: Option<Packing>,
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
    #[cfg(test)]
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        for path in &self.spills {
            self.read_part(path, &mut f)?;
        }
        for q in &self.mem {
            f(*q)?;
        }
        Ok(())
    }

    /// Bytes of a quad in a spilled part.
    fn record_len(&self) -> usize {
        self.packing
            .as_ref()
            .map_or(PROV_LEN, |p| p.of_perm(Perm::Spo).key_bytes())
    }

    /// Calls `f` on the key in `p`'s packing of every quad of one of the spilled parts: packed
    /// parts are repacked (fields moved, no lookup), others packed.
    fn part_keys(
        &self,
        path: &Path,
        p: PermPacking<'_>,
        mut f: impl FnMut(u128) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        let Some(packing) = &self.packing else {
            return read_quads(path, |q| f(p.pack(q)));
        };
        let spo = packing.of_perm(Perm::Spo);
        if spo.fits64() {
            read_records::<8>(path, |rec| {
                f(p.repack(spo, u128::from(u64::from_le_bytes(*rec))))
            })
        } else {
            read_records::<16>(path, |rec| f(p.repack(spo, u128::from_le_bytes(*rec))))
        }
    }

    /// Calls `f` on every quad of one of the spilled parts.
    #[cfg(test)]
    pub(crate) fn read_part(
        &self,
        path: &Path,
        mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        match &self.packing {
            None => read_quads(path, f),
            Some(packing) => {
                let spo = packing.of_perm(Perm::Spo);
                self.part_keys(path, spo, |v| f(spo.unpack(v)))
            }
        }
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

/// Calls `f` on every quad of a spill file written by a [`QuadWriter`].
pub(crate) fn read_quads(
    path: &Path,
    mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    read_records::<PROV_LEN>(path, |rec| {
        let mut q = [0u32; 4];
        for (v, b) in q.iter_mut().zip(rec.chunks_exact(4)) {
            *v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        f(q)
    })
}

/// Calls `f` on every record of `N` bytes of a spill file. The file is read a block at a time:
/// each permutation reads every quad, six times over at 100 M triples.
fn read_records<const N: usize>(
    path: &Path,
    mut f: impl FnMut(&[u8; N]) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let mut file = File::open(path).map_err(|e| io_err(path, e))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut held = 0;
    loop {
        let n = match file.read(&mut buf[held..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(path, e)),
        };
        held += n;
        let whole = held - held % N;
        for rec in buf[..whole].chunks_exact(N) {
            // Always N bytes (chunks_exact): the conversion compiles away.
            let rec: &[u8; N] = rec
                .try_into()
                .map_err(|_| BuildError::Invalid("internal: spill record size".into()))?;
            f(rec)?;
        }
        buf.copy_within(whole..held, 0);
        held -= whole;
        if n == 0 {
            break;
        }
    }
    if held != 0 {
        return Err(BuildError::Invalid(format!(
            "{}: quad spill file cut short",
            path.display()
        )));
    }
    Ok(())
}

/// Streams quads with final ids into a spill file as keys packed in SPO order (8 bytes a quad
/// when they fit a `u64`, else 16): half the bytes written by the dictionary phase and read by
/// each of the six permutations at 100 M triples.
pub(crate) struct PackedWriter<'a> {
    w: BufWriter<File>,
    path: &'a Path,
    packing: PermPacking<'a>,
    n: u64,
}

impl<'a> PackedWriter<'a> {
    pub(crate) fn create(path: &'a Path, packing: &'a Packing) -> Result<Self, BuildError> {
        Ok(Self {
            w: BufWriter::with_capacity(1 << 20, File::create(path).map_err(|e| io_err(path, e))?),
            path,
            packing: packing.of_perm(Perm::Spo),
            n: 0,
        })
    }

    pub(crate) fn push(&mut self, q: [u32; 4]) -> Result<(), BuildError> {
        let v = self.packing.pack_checked(q)?;
        self.n += 1;
        let written = if self.packing.fits64() {
            // At most 64 bits: the cast keeps it whole.
            self.w.write_all(&(v as u64).to_le_bytes())
        } else {
            self.w.write_all(&v.to_le_bytes())
        };
        written.map_err(|e| io_err(self.path, e))
    }

    /// Flushes; returns the number of quads written.
    pub(crate) fn finish(mut self, spill: &Spill) -> Result<u64, BuildError> {
        self.w.flush().map_err(|e| io_err(self.path, e))?;
        spill.wrote(self.n * self.packing.key_bytes() as u64);
        Ok(self.n)
    }
}

/// How keys are held while sorting: packed into one integer, fields from the most significant
/// bits down, so the integer order is the key order. Subjects and objects take the bits of the
/// largest of their ids; predicates and graphs, which are few, take the bits of their rank among
/// the distinct ones (a rank keeps the order of the ids). A `u64` when the fields take at most
/// 64 bits (half the bytes of a `u128`: at 100 M triples 24 + 24 + 4 bits), else a `u128`.
#[derive(Debug, Clone)]
pub(crate) struct Packing {
    /// Bits of a subject or object id.
    node_bits: u32,
    preds: Ranks,
    graphs: Ranks,
}

/// The distinct ids of one field, sorted, so a field packs as its rank; `None` when there are
/// more than [`RANK_LIMIT`] of them, then the field packs as the id itself.
#[derive(Debug, Clone)]
struct Ranks {
    ids: Option<Vec<u32>>,
    bits: u32,
}

/// Beyond this many distinct predicates or graphs, ranking them would cost more memory than the
/// bits it saves are worth.
pub(crate) const RANK_LIMIT: usize = 1 << 16;

fn bits(v: u32) -> u32 {
    u32::BITS - v.leading_zeros()
}

impl Ranks {
    /// Ranks from the distinct ids seen (`None` past the limit) and the largest id.
    fn new(seen: Option<std::collections::HashSet<u32>>, max: u32) -> Self {
        match seen {
            Some(set) => {
                let mut ids: Vec<u32> = set.into_iter().collect();
                ids.sort_unstable();
                let bits = bits(ids.len().saturating_sub(1) as u32);
                Self {
                    ids: Some(ids),
                    bits,
                }
            }
            None => Self {
                ids: None,
                bits: bits(max),
            },
        }
    }

    #[inline]
    fn rank(&self, id: u32) -> u32 {
        match &self.ids {
            // Every id packed was seen when the ranks were made.
            Some(ids) => ids.binary_search(&id).unwrap_or_else(|i| i) as u32,
            None => id,
        }
    }

    /// The rank of an id, `None` if it was not among those ranked; an unranked field's id.
    fn try_rank(&self, id: u32) -> Option<u32> {
        match &self.ids {
            Some(ids) => ids.binary_search(&id).ok().map(|r| r as u32),
            None => Some(id),
        }
    }

    #[inline]
    fn id(&self, rank: u32) -> u32 {
        match &self.ids {
            // Ranks come only from `rank`: always in range.
            Some(ids) => ids.get(rank as usize).copied().unwrap_or(rank),
            None => rank,
        }
    }
}

/// Collects the distinct ids of a field until there are too many.
#[cfg(test)]
fn see(seen: &mut Option<std::collections::HashSet<u32>>, last: &mut Option<u32>, id: u32) {
    if *last == Some(id) {
        return;
    }
    *last = Some(id);
    if let Some(set) = seen {
        set.insert(id);
        if set.len() > RANK_LIMIT {
            *seen = None;
        }
    }
}

impl Packing {
    /// The packing for ids up to `max`: predicates and graphs ranked among the distinct ones
    /// given (`None`: too many to rank, they pack as ids).
    pub(crate) fn new(
        max: u32,
        preds: Option<std::collections::HashSet<u32>>,
        graphs: Option<std::collections::HashSet<u32>>,
    ) -> Self {
        Self {
            node_bits: bits(max).max(1),
            preds: Ranks::new(preds, max),
            graphs: Ranks::new(graphs, max),
        }
    }

    /// The packing for `quads` (with final ids), read from the quads themselves.
    #[cfg(test)]
    pub(crate) fn of(quads: &ProvQuads) -> Result<Self, BuildError> {
        let (mut node, mut p, mut g) = (0u32, 0u32, 0u32);
        let (mut preds, mut graphs) = (Some(Default::default()), Some(Default::default()));
        let (mut last_p, mut last_g) = (None, None);
        quads.for_each(|q| {
            node = node.max(q[0]).max(q[2]);
            p = p.max(q[1]);
            g = g.max(q[3]);
            see(&mut preds, &mut last_p, q[1]);
            see(&mut graphs, &mut last_g, q[3]);
            Ok(())
        })?;
        Ok(Self {
            node_bits: bits(node).max(1),
            preds: Ranks::new(preds, p),
            graphs: Ranks::new(graphs, g),
        })
    }

    /// The packing of `perm`'s keys.
    pub(crate) fn of_perm(&self, perm: Perm) -> PermPacking<'_> {
        let o = perm.order();
        let pred_at = o.iter().position(|&i| i == 1).unwrap_or(1);
        let mut widths = [
            self.node_bits,
            self.node_bits,
            self.node_bits,
            self.graphs.bits,
        ];
        widths[pred_at] = self.preds.bits;
        PermPacking {
            packing: self,
            widths,
            pred_at,
            order: o,
        }
    }

    /// Bytes of a sort key in memory (the same for every permutation).
    pub(crate) fn key_bytes(&self) -> usize {
        self.of_perm(Perm::Spo).key_bytes()
    }
}

/// A [`Packing`] with its fields in one permutation's order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PermPacking<'a> {
    packing: &'a Packing,
    /// Bits of each key field, in key order (the graph last).
    widths: [u32; 4],
    /// Which key field holds the predicate.
    pred_at: usize,
    /// The quad's positions in key order (the graph last, not listed).
    order: [usize; 3],
}

impl PermPacking<'_> {
    /// Whether a key fits a `u64`.
    fn fits64(self) -> bool {
        self.widths.iter().sum::<u32>() <= 64
    }

    fn key_bytes(self) -> usize {
        if self.fits64() {
            size_of::<u64>()
        } else {
            size_of::<u128>()
        }
    }

    /// A quad's key: its fields in key order, the predicate and graph as ranks.
    #[inline]
    fn pack(self, q: [u32; 4]) -> u128 {
        let p = self.packing;
        let o = self.order;
        let mut k = [q[o[0]], q[o[1]], q[o[2]], q[3]];
        k[self.pred_at] = p.preds.rank(k[self.pred_at]);
        k[3] = p.graphs.rank(k[3]);
        self.join(k)
    }

    /// [`Self::pack`] for a packing made before the quads were seen (the dictionary's): an id
    /// it has no room for is an error, not a wrong key.
    fn pack_checked(self, q: [u32; 4]) -> Result<u128, BuildError> {
        let p = self.packing;
        let o = self.order;
        let mut k = [q[o[0]], q[o[1]], q[o[2]], q[3]];
        let pred = p.preds.try_rank(k[self.pred_at]);
        let graph = p.graphs.try_rank(k[3]);
        let (Some(pred), Some(graph)) = (pred, graph) else {
            return Err(BuildError::Invalid(format!(
                "internal: quad {q:?} outside the sort keys' packing"
            )));
        };
        k[self.pred_at] = pred;
        k[3] = graph;
        if k.iter()
            .zip(&self.widths)
            .any(|(&x, &w)| w < 32 && x >> w != 0)
        {
            return Err(BuildError::Invalid(format!(
                "internal: quad {q:?} outside the sort keys' packing"
            )));
        }
        Ok(self.join(k))
    }

    /// The key of `v`, a key of the same quad in `from`'s packing (the same [`Packing`]): its
    /// fields moved, ranks kept, no lookup.
    #[inline]
    fn repack(self, from: PermPacking<'_>, v: u128) -> u128 {
        let f = from.split(v);
        // The fields of `from` by quad position.
        let mut q = [0u32; 4];
        for (i, &at) in from.order.iter().enumerate() {
            q[at] = f[i];
        }
        q[3] = f[3];
        let o = self.order;
        self.join([q[o[0]], q[o[1]], q[o[2]], q[3]])
    }

    /// Fields (key order, ranks as they are) into a key, from the most significant bits down.
    #[inline]
    fn join(self, k: Key) -> u128 {
        let mut v = 0u128;
        for (&x, &w) in k.iter().zip(&self.widths) {
            // A zero-width field (one graph) shifts nothing in.
            v = (v << w) | u128::from(x);
        }
        v
    }

    /// [`Self::join`] undone.
    #[inline]
    fn split(self, mut v: u128) -> Key {
        let mut k = [0u32; 4];
        for i in (0..4).rev() {
            let w = self.widths[i];
            k[i] = (v & ((1u128 << w) - 1)) as u32;
            v >>= w;
        }
        k
    }

    /// The quad of a key (ids in key order).
    #[inline]
    fn unpack(self, v: u128) -> Key {
        let p = self.packing;
        let mut k = self.split(v);
        k[self.pred_at] = p.preds.id(k[self.pred_at]);
        k[3] = p.graphs.id(k[3]);
        k
    }
}

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

/// Feeds the distinct keys of sorted runs to `f` in order.
fn merge(
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

/// Writes a sorted run of packed keys, each as its increase over the previous one in a LEB128
/// varint: sorted keys share their high bits, so a key takes about 6 bytes on disk, and reading
/// it back is one varint, not one per field.
fn write_run<T: Ord + Copy + Send + Into<u128>>(
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
    let mut rec = [0u8; MAX_VARINT];
    let mut bytes = 0u64;
    for &v in buf.iter() {
        let v: u128 = v.into();
        // Sorted and distinct: only the first key may equal `prev` (0).
        let len = put_varint(&mut rec, v - prev);
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

/// Bytes of the longest LEB128 varint of a `u128`.
const MAX_VARINT: usize = 19;

/// Writes `v` as a LEB128 varint at the start of `out`; returns its length.
fn put_varint(out: &mut [u8; MAX_VARINT], mut v: u128) -> usize {
    let mut i = 0;
    while v >= 0x80 {
        out[i] = (v as u8) | 0x80;
        v >>= 7;
        i += 1;
    }
    out[i] = v as u8;
    i + 1
}

/// Reads a run written by [`write_run`], from its own buffer (the merge reads every byte of
/// every run: it is the permutation phase's hottest loop after compression).
struct RunReader<'a> {
    file: File,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    eof: bool,
    prev: u128,
    path: &'a Path,
}

impl<'a> RunReader<'a> {
    fn open(path: &'a Path) -> Result<Self, BuildError> {
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
    fn next(&mut self) -> Result<Option<u128>, BuildError> {
        if self.len - self.pos < MAX_VARINT && !self.eof {
            self.refill()?;
        }
        if self.pos == self.len {
            return Ok(None);
        }
        let mut v = 0u128;
        for (i, &b) in self.buf[self.pos..self.len]
            .iter()
            .take(MAX_VARINT)
            .enumerate()
        {
            v |= u128::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.pos += i + 1;
                self.prev = self.prev.checked_add(v).ok_or_else(|| self.bad())?;
                return Ok(Some(self.prev));
            }
        }
        // A varint cut short by the end of the file, or longer than a u128's.
        Err(self.bad())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// Quads spilled in parts read back whole, across read blocks; a part cut short is an
    /// error.
    #[test]
    fn quad_parts_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::default();
        let path = dir.path().join("part.bin");
        // More than one 1 MiB read block.
        let quads: Vec<[u32; 4]> = (0..70_001u32)
            .map(|i| [i, u32::MAX - i, i / 3, i % 2])
            .collect();
        write_quads(&path, &quads, &spill).unwrap();
        let mut got = Vec::new();
        read_quads(&path, |q| {
            got.push(q);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, quads);
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(16 * 70_000 + 5).unwrap();
        let err = read_quads(&path, |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("cut short"), "{err}");
    }

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

    /// Packed keys sort like the keys they pack and unpack to them, in every permutation: in a
    /// `u64` down to the widest ids that fit, in a `u128` past them; predicates and graphs by
    /// rank, or as ids when there are too many to rank.
    #[test]
    fn packed_keys_keep_the_order() {
        let quads = |qs: &[[u32; 4]]| ProvQuads {
            mem: qs.to_vec(),
            total: qs.len() as u64,
            ..ProvQuads::default()
        };
        let check = |qs: &[[u32; 4]], fits64: bool| {
            let packing = Packing::of(&quads(qs)).unwrap();
            for perm in Perm::ALL {
                let p = packing.of_perm(perm);
                assert_eq!(p.fits64(), fits64, "{perm:?}");
                let o = perm.order();
                let mut keys: Vec<Key> = qs
                    .iter()
                    .map(|q| [q[o[0]], q[o[1]], q[o[2]], q[3]])
                    .collect();
                let mut packed: Vec<u128> = qs.iter().map(|&q| p.pack(q)).collect();
                if fits64 {
                    assert!(packed.iter().all(|&v| v <= u128::from(u64::MAX)));
                }
                let spo = packing.of_perm(Perm::Spo);
                for (&q, &v) in qs.iter().zip(&packed) {
                    assert_eq!(p.pack_checked(q).unwrap(), v);
                    // From the SPO key (a packed part) to this permutation's without lookups.
                    assert_eq!(p.repack(spo, spo.pack(q)), v, "{perm:?}");
                }
                keys.sort_unstable();
                packed.sort_unstable();
                let back: Vec<Key> = packed.iter().map(|&v| p.unpack(v)).collect();
                assert_eq!(back, keys, "{perm:?}");
            }
        };
        // Nodes up to 31 bits, predicates and graphs ranked: 31 + 31 + 1 + 1 bits.
        let wide = (1u32 << 31) - 1;
        let qs = [
            [wide, u32::MAX, 0, 7],
            [0, 5, wide, 0],
            [1, u32::MAX, 1, 0],
            [0, 5, 0, 7],
            [0, 5, 0, 0],
            [wide, 5, wide - 1, 7],
        ];
        check(&qs, true);
        // One predicate and one graph take no bits at all.
        check(&[[3, 9, 4, 2], [4, 9, 3, 2], [3, 9, 3, 2]], true);
        // Full-width nodes: a u128.
        check(
            &[
                [u32::MAX, 1, 0, 0],
                [0, 1, u32::MAX, 3],
                [5, 2, 5, u32::MAX],
            ],
            false,
        );
        // Too many predicates to rank: they pack as ids (3 + 32 + 3 bits).
        let many: Vec<[u32; 4]> = (0..=RANK_LIMIT as u32 + 1)
            .map(|i| [i % 7, u32::MAX - i, i % 5, 0])
            .collect();
        let packing = Packing::of(&quads(&many)).unwrap();
        assert!(packing.preds.ids.is_none() && packing.preds.bits == 32);
        assert!(packing.graphs.ids.is_some() && packing.graphs.bits == 0);
        check(&many, true);
    }
}
