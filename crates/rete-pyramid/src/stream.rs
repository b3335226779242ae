//! Louvain's first pass over a graph whose edges do not fit the memory budget: local moving and
//! aggregation stream every node's links from the file ([`EntityGraph::for_each_node`]) with only
//! per-node arrays in memory, sweep after sweep until the aggregated (coarse) graph fits the
//! budget or local moving converges. Louvain then continues in memory on the coarse graph, as it
//! would after its first pass. Deterministic: nodes are visited in index order, as in memory.
//!
//! Only the first sweep reads the permutations (SPO and OSP, decoded and mapped to node indices);
//! it writes every node's links to a temporary file as it goes ([`LinkSpill`]: varints, about 3
//! bytes a directed link), and the later sweeps and aggregations read that file sequentially,
//! several times faster than decoding the quads again.

use crate::graph::{EntityGraph, NodeLinks};
use crate::louvain::{relabel, CsrBuilder, Mover, WGraph, MAX_SWEEPS, THRESHOLD};
use crate::tally::Tally;
use crate::PyramidError;
use rete_core::Rete;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Bytes per distinct directed pair while the coarse graph is being summed (key and weight,
/// plus the sort buffer).
const PAIR_BYTES: u64 = 24;

/// The result of the streamed first pass.
pub(crate) struct Coarse {
    /// The aggregated graph: one node per community of the first pass.
    pub(crate) graph: WGraph,
    /// Node → coarse node.
    pub(crate) base_of: Vec<u32>,
    /// Local-moving sweeps streamed from the file.
    pub(crate) sweeps: usize,
}

/// Streams local-moving sweeps at resolution `gamma` and aggregates; `budget` bounds the bytes
/// of the coarse graph being summed (beyond it, one more sweep shrinks it first). Sets the
/// entity graph's edge count (counted during the first sweep).
pub(crate) fn coarsen(
    rete: &Rete,
    eg: &mut EntityGraph,
    gamma: f64,
    budget: u64,
    dir: Option<&Path>,
) -> Result<Coarse, PyramidError> {
    let n = eg.node_count();
    let m2 = eg.degree.iter().map(|&d| u64::from(d)).sum::<u64>() as f64;
    let mut spill = LinkSpill::new(dir)?;
    let mut comm: Vec<u32> = (0..n as u32).collect();
    let mut tot: Vec<f64> = eg.degree.iter().map(|&d| d as f64).collect();
    let mut mover = Mover::new(n, gamma, m2);
    let mut edges = 0u64;
    let mut sweeps = 0;
    let cap = (budget / PAIR_BYTES) as usize;
    loop {
        let (mut moves, mut gain_sum) = (0usize, 0.0f64);
        if m2 > 0.0 {
            let first = sweeps == 0;
            spill.for_each(rete, eg, |links| {
                let i = links.node;
                if first {
                    let above = links.neighbors.partition_point(|&(j, _)| (j as usize) < i);
                    edges +=
                        (links.neighbors.len() - above) as u64 + u64::from(links.loop_weight > 0);
                }
                let nb = links
                    .neighbors
                    .iter()
                    .map(|&(j, w)| (j as usize, f64::from(w)));
                let ki = f64::from(eg.degree[i]);
                if let Some(g) = mover.step(i, ki, nb, &mut comm, &mut tot) {
                    moves += 1;
                    gain_sum += g / (m2 / 2.0);
                }
                Ok(true)
            })?;
        }
        sweeps += 1;
        let converged = moves == 0 || gain_sum < THRESHOLD || sweeps >= MAX_SWEEPS;
        let mut base_of = comm.clone();
        let k = relabel(&mut base_of);
        let limit = if converged { usize::MAX } else { cap };
        if let Some(graph) = aggregate(rete, eg, &mut spill, &base_of, k, cap, limit)? {
            eg.set_edge_count(edges);
            return Ok(Coarse {
                graph,
                base_of,
                sweeps,
            });
        }
    }
}

/// The graph of the `k` communities of `part`, summed while streaming; `None` when it has more
/// than `limit` distinct directed pairs (`usize::MAX`: no limit). The rows are summed for one
/// range of communities at a time, each range's member degrees (an upper bound on its pairs)
/// summing to at most `cap`, so the sums in memory stay within `cap` pairs (one hub community
/// beyond it aside) whatever the size of the result; each range is one sequential read of the
/// spilled links.
fn aggregate(
    rete: &Rete,
    eg: &EntityGraph,
    spill: &mut LinkSpill,
    part: &[u32],
    k: usize,
    cap: usize,
    limit: usize,
) -> Result<Option<WGraph>, PyramidError> {
    let mut bound = vec![0u64; k];
    for (i, &c) in part.iter().enumerate() {
        bound[c as usize] += u64::from(eg.degree[i]);
    }
    let mut loops = vec![0u64; k];
    let mut b = CsrBuilder::with_capacity(k, 0);
    let mut row: Vec<(u32, u32)> = Vec::new();
    let mut total = 0usize;
    let mut c0 = 0usize;
    while c0 < k {
        let mut c1 = c0 + 1;
        let mut sum = bound[c0];
        while c1 < k && sum + bound[c1] <= cap as u64 {
            sum += bound[c1];
            c1 += 1;
        }
        let (lo, hi) = (c0 as u32, c1 as u32);
        let mut pairs: Tally<(u32, u32)> = Tally::new();
        let mut over = false;
        spill.for_each(rete, eg, |links| {
            let i = links.node;
            let c = part[i];
            if c < lo || c >= hi {
                return Ok(true);
            }
            loops[c as usize] += links.loop_weight;
            for &(j, w) in links.neighbors {
                let cj = part[j as usize];
                if cj == c {
                    if j as usize > i {
                        loops[c as usize] += u64::from(w);
                    }
                } else {
                    pairs.add((c, cj), u64::from(w));
                }
            }
            over = total.saturating_add(pairs.len()) > limit;
            Ok(!over)
        })?;
        if over {
            return Ok(None);
        }
        let pairs = pairs.finish();
        total += pairs.len();
        if total > limit {
            return Ok(None);
        }
        let mut at = 0;
        for (c, &l) in loops.iter().enumerate().take(c1).skip(c0) {
            row.clear();
            while at < pairs.len() && pairs[at].0 .0 as usize == c {
                let ((_, cj), w) = pairs[at];
                let w = u32::try_from(w).map_err(|_| {
                    PyramidError::TooLarge(format!("an edge weight of {w} triples"))
                })?;
                row.push((cj, w));
                at += 1;
            }
            b.push_node(l, &row);
        }
        c0 = c1;
    }
    Ok(Some(b.finish()?))
}

/// Every node's links on disk, written while the first pass streams them from the file.
struct LinkSpill {
    file: File,
    /// Whether the file holds every node's links.
    complete: bool,
}

impl LinkSpill {
    fn new(dir: Option<&Path>) -> Result<Self, PyramidError> {
        let file = match dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }
        .map_err(spill_error)?;
        Ok(Self {
            file,
            complete: false,
        })
    }

    /// Calls `f` with every node's links in node order (from the file's permutations the first
    /// time, recording them; from the spill after) until it returns `false`.
    fn for_each(
        &mut self,
        rete: &Rete,
        eg: &EntityGraph,
        mut f: impl FnMut(NodeLinks<'_>) -> Result<bool, PyramidError>,
    ) -> Result<(), PyramidError> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0)).map_err(spill_error)?;
        if !self.complete {
            // Record every node even when `f` stops early, so the spill is complete.
            let mut out = BufWriter::with_capacity(1 << 20, file);
            let mut rec: Vec<u8> = Vec::new();
            let mut calling = true;
            eg.for_each_node(rete, |links| {
                rec.clear();
                put_varint(&mut rec, links.loop_weight);
                put_varint(&mut rec, links.neighbors.len() as u64);
                let mut prev = 0u32;
                for &(j, w) in links.neighbors {
                    put_varint(&mut rec, u64::from(j - prev));
                    put_varint(&mut rec, u64::from(w));
                    prev = j;
                }
                out.write_all(&rec).map_err(spill_error)?;
                if calling {
                    calling = f(links)?;
                }
                Ok(true)
            })?;
            out.flush().map_err(spill_error)?;
            self.complete = true;
            return Ok(());
        }
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut links: Vec<(u32, u32)> = Vec::new();
        let too_big = || PyramidError::internal("spilled links: a value out of range");
        for node in 0..eg.node_count() {
            let loop_weight = get_varint(&mut input)?;
            let count = get_varint(&mut input)?;
            links.clear();
            let mut j = 0u32;
            for _ in 0..count {
                let d = u32::try_from(get_varint(&mut input)?).map_err(|_| too_big())?;
                let w = u32::try_from(get_varint(&mut input)?).map_err(|_| too_big())?;
                j = j.checked_add(d).ok_or_else(too_big)?;
                links.push((j, w));
            }
            if !f(NodeLinks {
                node,
                loop_weight,
                neighbors: &links,
            })? {
                break;
            }
        }
        Ok(())
    }
}

fn spill_error(e: std::io::Error) -> PyramidError {
    PyramidError::Io(format!("temporary links file: {e}"))
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(r: &mut impl Read) -> Result<u64, PyramidError> {
    let mut v = 0u64;
    for i in 0..10 {
        let mut b = [0u8; 1];
        r.read_exact(&mut b).map_err(spill_error)?;
        v |= u64::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(PyramidError::internal("spilled links: a varint too long"))
}
