//! Louvain's first pass over a graph whose edges do not fit the memory budget: local moving
//! streams every node's links ([`EntityGraph::for_each_node`]) with only per-node arrays in
//! memory, sweep after sweep until it converges, exactly as in memory (the same
//! [`LocalMoving`]: same visiting order, same pruning, same stopping rule, so the same partition),
//! then the community graph is summed in bounded memory. Louvain continues in memory on it.
//!
//! Only the first sweep reads the permutations (SPO and OSP, decoded and mapped to node indices);
//! it writes every node's links to a temporary file as it goes ([`LinkSpill`]: varints, about 3
//! bytes a directed link, with the byte offset of every [`CHUNK`] nodes), and the later sweeps
//! and aggregations read that file sequentially. A later sweep visits only the nodes a move woke
//! up: it seeks past every chunk without one, so late sweeps read little of the file.

use crate::graph::{EntityGraph, NodeLinks};
use crate::louvain::{relabel, CsrBuilder, LocalMoving, WGraph};
use crate::tally::Tally;
use crate::PyramidError;
use rete_core::format::varint;
use rete_core::Rete;
use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

/// Bytes per distinct directed pair while the coarse graph is being summed (key and weight,
/// plus the sort buffer).
const PAIR_BYTES: u64 = 24;
/// Nodes per indexed chunk of the spill: a sweep skips a chunk without an active node.
const CHUNK: usize = 1024;

/// The result of the streamed first pass.
pub(crate) struct Coarse {
    /// The aggregated graph: one node per community of the first pass.
    pub(crate) graph: WGraph,
    /// Node → coarse node (labels `0..k` in order of first appearance).
    pub(crate) base_of: Vec<u32>,
    /// Communities of the first pass (`graph`'s nodes).
    pub(crate) k: usize,
    /// Whether local moving moved any node.
    pub(crate) moved: bool,
    /// Local-moving sweeps streamed from the file.
    pub(crate) sweeps: usize,
}

/// Streams local moving at resolution `gamma` to convergence and aggregates; `budget` bounds the
/// bytes of the coarse graph's sums held at once. Sets the entity graph's edge count (counted
/// during the first sweep).
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
    let degree = |i: usize| f64::from(eg.degree[i]);
    let mut lm = LocalMoving::new((0..n as u32).collect(), (0..n).map(degree), gamma, m2);
    let mut edges = 0u64;
    // Like the in-memory phase: no sweep at all on a graph without links.
    if m2 > 0.0 {
        let mut done = false;
        spill.for_each(rete, eg, |links| {
            let i = links.node;
            let above = links.neighbors.partition_point(|&(j, _)| (j as usize) < i);
            edges += (links.neighbors.len() - above) as u64 + u64::from(links.loop_weight > 0);
            lm.visit(i, degree(i), unit_links(links.neighbors));
            Ok(true)
        })?;
        done |= lm.end_sweep();
        while !done {
            let mut r = spill.reader()?;
            let mut node = 0;
            while node < n {
                let end = (node + CHUNK).min(n);
                if !(node..end).any(|i| lm.is_active(i)) {
                    r.skip_to(end)?;
                    node = end;
                    continue;
                }
                for i in node..end {
                    r.next_node()?;
                    if lm.is_active(i) {
                        lm.visit(i, degree(i), unit_links(&r.links));
                    }
                }
                node = end;
            }
            done = lm.end_sweep();
        }
    }
    eg.set_edge_count(edges);
    let sweeps = lm.sweeps;
    let moved = lm.moved_any;
    let mut base_of = lm.comm;
    let k = relabel(&mut base_of);
    let cap = (budget / PAIR_BYTES).max(1) as usize;
    let graph = aggregate(rete, eg, &mut spill, &base_of, k, cap)?;
    Ok(Coarse {
        graph,
        base_of,
        k,
        moved,
        sweeps,
    })
}

/// Spilled links as local moving reads them.
fn unit_links(links: &[(u32, u32)]) -> impl Iterator<Item = (usize, f64)> + Clone + '_ {
    links.iter().map(|&(j, w)| (j as usize, f64::from(w)))
}

/// The graph of the `k` communities of `part`, summed while streaming. The rows are summed for
/// one range of communities at a time, each range's member degrees (an upper bound on its pairs)
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
) -> Result<WGraph, PyramidError> {
    let mut bound = vec![0u64; k];
    for (i, &c) in part.iter().enumerate() {
        bound[c as usize] += u64::from(eg.degree[i]);
    }
    let mut loops = vec![0u64; k];
    let mut b = CsrBuilder::with_capacity(k, 0);
    let mut row: Vec<(u32, u32)> = Vec::new();
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
            Ok(true)
        })?;
        let pairs = pairs.finish();
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
    b.finish()
}

/// Every node's links on disk, written while the first pass streams them from the file.
struct LinkSpill {
    file: File,
    /// Whether the file holds every node's links.
    complete: bool,
    /// Byte offset of node `c * CHUNK`'s record for every chunk `c`, plus the end.
    chunk_at: Vec<u64>,
    nodes: usize,
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
            chunk_at: Vec::new(),
            nodes: 0,
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
        if !self.complete {
            let mut file = &self.file;
            file.seek(SeekFrom::Start(0)).map_err(spill_error)?;
            // Record every node even when `f` stops early, so the spill is complete.
            let mut out = BufWriter::with_capacity(1 << 20, file);
            let mut rec: Vec<u8> = Vec::new();
            let mut calling = true;
            let mut at = 0u64;
            let chunk_at = &mut self.chunk_at;
            chunk_at.clear();
            eg.for_each_node(rete, |links| {
                if links.node % CHUNK == 0 {
                    chunk_at.push(at);
                }
                rec.clear();
                varint::put(&mut rec, links.loop_weight);
                varint::put(&mut rec, links.neighbors.len() as u64);
                let mut prev = 0u32;
                for &(j, w) in links.neighbors {
                    varint::put(&mut rec, u64::from(j - prev));
                    varint::put(&mut rec, u64::from(w));
                    prev = j;
                }
                out.write_all(&rec).map_err(spill_error)?;
                at += rec.len() as u64;
                if calling {
                    calling = f(links)?;
                }
                Ok(true)
            })?;
            chunk_at.push(at);
            out.flush().map_err(spill_error)?;
            self.nodes = eg.node_count();
            self.complete = true;
            return Ok(());
        }
        let mut r = self.reader()?;
        for node in 0..self.nodes {
            let loop_weight = r.next_node()?;
            if !f(NodeLinks {
                node,
                loop_weight,
                neighbors: &r.links,
            })? {
                break;
            }
        }
        Ok(())
    }

    /// A sequential reader of the complete spill from its first node.
    fn reader(&self) -> Result<SpillReader<'_>, PyramidError> {
        if !self.complete {
            return Err(PyramidError::internal("spilled links read before written"));
        }
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0)).map_err(spill_error)?;
        Ok(SpillReader {
            input: BufReader::with_capacity(1 << 20, file),
            spill: self,
            pos: 0,
            node: 0,
            links: Vec::new(),
        })
    }
}

/// Reads the spilled records in node order; [`SpillReader::skip_to`] seeks past whole chunks.
struct SpillReader<'a> {
    input: BufReader<&'a File>,
    spill: &'a LinkSpill,
    /// Byte offset of the next record.
    pos: u64,
    /// Next node.
    node: usize,
    /// The links of the node read last: (neighbour, triples), increasing.
    links: Vec<(u32, u32)>,
}

impl SpillReader<'_> {
    /// Reads the next node's record into `links`; returns its self-loop weight.
    fn next_node(&mut self) -> Result<u64, PyramidError> {
        if self.node >= self.spill.nodes {
            return Err(PyramidError::internal(
                "spilled links: read past the last node",
            ));
        }
        let too_big = || PyramidError::internal("spilled links: a value out of range");
        let loop_weight = self.varint()?;
        let count = self.varint()?;
        self.links.clear();
        let mut j = 0u32;
        for _ in 0..count {
            let d = u32::try_from(self.varint()?).map_err(|_| too_big())?;
            let w = u32::try_from(self.varint()?).map_err(|_| too_big())?;
            j = j.checked_add(d).ok_or_else(too_big)?;
            self.links.push((j, w));
        }
        self.node += 1;
        Ok(loop_weight)
    }

    /// Moves to node `node`, which starts a chunk (or is the end), without reading the records
    /// in between.
    fn skip_to(&mut self, node: usize) -> Result<(), PyramidError> {
        let at = if node >= self.spill.nodes {
            self.spill.chunk_at.last().copied()
        } else if node % CHUNK == 0 {
            self.spill.chunk_at.get(node / CHUNK).copied()
        } else {
            None
        };
        let at = at.ok_or_else(|| PyramidError::internal("spilled links: skip inside a chunk"))?;
        let delta = i64::try_from(at).unwrap_or(i64::MAX) - i64::try_from(self.pos).unwrap_or(0);
        self.input.seek_relative(delta).map_err(spill_error)?;
        self.pos = at;
        self.node = node.min(self.spill.nodes);
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, PyramidError> {
        use std::io::ErrorKind;
        let (v, n) = varint::read_io(&mut self.input).map_err(|e| match e.kind() {
            ErrorKind::UnexpectedEof => PyramidError::internal("spilled links: truncated"),
            ErrorKind::InvalidData => PyramidError::internal("spilled links: a varint too long"),
            _ => spill_error(e),
        })?;
        self.pos += n as u64;
        Ok(v)
    }
}

fn spill_error(e: std::io::Error) -> PyramidError {
    PyramidError::Io(format!("temporary links file: {e}"))
}
