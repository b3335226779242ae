//! The entity graph of a dataset: nodes are the IRIs and blank nodes used as subjects or as objects
//! of non-`rdf:type` triples; an undirected edge joins two entities linked by at least one triple,
//! weighted by the number of such triples. `rdf:type` triples become class memberships, literal
//! triples are ignored except for labels.
//!
//! Memory: one scan of SPO keeps only per-entity facts (a few bytes per term below the literal
//! range, classes, labels). The edges are either held as a compact CSR ([`UnitGraph`]: one `u32`
//! per triple and direction, 8 bytes a triple) when that fits the memory budget, or streamed from
//! the file node by node ([`EntityGraph::for_each_node`]: SPO gives a node's out-links, OSP its
//! in-links), which needs no per-triple memory at all.

use crate::louvain::{Graph, UnitGraph};
use crate::PyramidError;
use prefetch_index::prefetch_index;
use rete_core::vocab::LABEL_PREDICATES;
use rete_core::{Id, Pattern, Perm, Rete, TermKind};
use std::collections::BTreeSet;
use std::io::Write;

/// Bytes per node the in-memory graph and Louvain's first pass need besides the edges: a `u32`
/// offset, local moving's community, community degree and active flag (17 B), then
/// aggregation's member list and community starts (at most 20 B, once local moving's arrays are
/// freed; the sums are held for the communities being summed only).
pub(crate) const NODE_BYTES: u64 = 36;
/// Bytes per object triple of the in-memory CSR: two directed `u32` entries, the weight implicit
/// (a pair linked by several triples has several entries).
pub(crate) const TRIPLE_BYTES: u64 = 8;
/// Bytes per term below the literals while the CSR is filled (term id → node index).
pub(crate) const TERM_BYTES: u64 = 4;

/// The entity graph extracted from a `.rete` file, with the per-entity facts the pyramid stores
/// (classes, labels). Node indices follow increasing term ids, so the node order is fixed.
#[derive(Debug, Clone)]
pub struct EntityGraph {
    /// Node index → term id, increasing.
    pub(crate) ids: Vec<Id>,
    /// Predicate index → term id, increasing.
    pub(crate) predicates: Vec<Id>,
    /// Class index → term id, increasing.
    pub(crate) classes: Vec<Id>,
    /// `(node, class index)` pairs, sorted, distinct.
    pub(crate) node_classes: Vec<(u32, u32)>,
    /// `(node, literal term id)`: the chosen label of each labelled node, sorted by node (term
    /// ids fit `u32`: [`EntityGraph::scan`] refuses larger dictionaries).
    pub(crate) labels: Vec<(u32, u32)>,
    /// Weighted degree of each node (self-loops count twice).
    pub(crate) degree: Vec<u32>,
    /// `(node, self-loop triples)`, sorted by node.
    loops: Vec<(u32, u32)>,
    /// First literal id: entities are the ids below.
    pub(crate) lit_start: Id,
    rdf_type: Option<Id>,
    /// Object triples between entities.
    triples: u64,
    /// Distinct undirected pairs (self-loops included), once known.
    edges: Option<u64>,
    /// The edges in memory, when built ([`EntityGraph::from_rete`], or within a budget).
    pub(crate) adj: Option<UnitGraph>,
}

/// One node's links as streamed from the file: the self-loop weight and the other neighbours
/// (node index, triple count), increasing.
pub(crate) struct NodeLinks<'a> {
    pub(crate) node: usize,
    pub(crate) loop_weight: u64,
    pub(crate) neighbors: &'a [(u32, u32)],
}

/// The file's distinct triples in SPO order: the quads of one triple in several graphs lie next
/// to each other there, so each triple is met once.
pub(crate) fn spo_triples(
    rete: &Rete,
) -> Result<impl Iterator<Item = Result<[Id; 3], PyramidError>> + '_, PyramidError> {
    let mut last: Option<[Id; 3]> = None;
    Ok(rete
        .scan(Perm::Spo, &Pattern::default())?
        .filter_map(move |q| match q {
            Ok([s, p, o, _]) if last == Some([s, p, o]) => None,
            Ok([s, p, o, _]) => {
                last = Some([s, p, o]);
                Some(Ok([s, p, o]))
            }
            Err(e) => Some(Err(e.into())),
        }))
}

/// [`EntityGraph::node_index`]'s value for a term that is not a node.
pub(crate) const NOT_A_NODE: u32 = u32::MAX;
/// Triples put into the rows at a time while the edges load.
const EDGE_BLOCK: usize = 4096;
/// How many triples ahead a read is asked for while the edges load.
const AHEAD: usize = 8;

/// Fills `index` (one slot per term id) with each term's node index in `ids` (sorted), the
/// other slots with [`NOT_A_NODE`].
fn fill_node_index(index: &mut [u32], ids: &[Id]) {
    index.fill(NOT_A_NODE);
    for (i, &id) in ids.iter().enumerate() {
        if let Some(slot) = index.get_mut(id as usize) {
            *slot = i as u32;
        }
    }
}

impl EntityGraph {
    /// Extracts the entity graph with its edges in memory.
    pub fn from_rete(rete: &Rete) -> Result<Self, PyramidError> {
        Self::within(rete, u64::MAX)
    }

    /// Extracts the entity graph; its edges are loaded into memory only when they fit in
    /// `budget` bytes (see [`EntityGraph::in_memory_bytes`]), else they stay in the file.
    pub(crate) fn within(rete: &Rete, budget: u64) -> Result<Self, PyramidError> {
        let mut eg = Self::scan(rete)?;
        if eg.in_memory_bytes().is_some_and(|b| b <= budget) {
            let g = eg.load_edges(rete)?;
            eg.edges = Some(g.undirected_edges() as u64);
            eg.adj = Some(g);
        }
        Ok(eg)
    }

    /// What holding the edges and running Louvain's first pass in memory takes, at most; `None`
    /// when the entries do not fit the CSR's `u32` offsets.
    pub(crate) fn in_memory_bytes(&self) -> Option<u64> {
        if self.triples.saturating_mul(2) >= u64::from(u32::MAX) {
            return None;
        }
        Some(
            self.triples
                .saturating_mul(TRIPLE_BYTES)
                .saturating_add((self.ids.len() as u64).saturating_mul(NODE_BYTES))
                .saturating_add(self.lit_start.saturating_mul(TERM_BYTES)),
        )
    }

    /// The edges as a [`UnitGraph`], filled from one SPO scan: each triple goes into both
    /// endpoints' rows (sized from the degrees the first scan counted), then the rows are sorted
    /// in parallel. No OSP scan and no per-node merge.
    fn load_edges(&self, rete: &Rete) -> Result<UnitGraph, PyramidError> {
        let n = self.ids.len();
        let changed = || PyramidError::corrupt(rete.name(), "quads", "entity set changed");
        let too_many = || PyramidError::TooLarge("2^32 link entries or more".to_owned());
        let mut off: Vec<u32> = Vec::with_capacity(n + 1);
        off.push(0);
        let mut at = 0u64;
        let mut loops = self.loops.iter().peekable();
        for (i, &d) in self.degree.iter().enumerate() {
            let lw = loops.next_if(|l| l.0 as usize == i).map_or(0, |l| l.1);
            let entries = u64::from(d)
                .checked_sub(2 * u64::from(lw))
                .ok_or_else(changed)?;
            at += entries;
            off.push(u32::try_from(at).map_err(|_| too_many())?);
        }
        let mut nbr = vec![0u32; at as usize];
        let mut fill: Vec<u32> = off[..n].to_vec();
        // 4 bytes a term while filling.
        let index = self.node_index();
        let node = |id: Id| -> Result<u32, PyramidError> {
            match index.get(id as usize) {
                Some(&i) if i != NOT_A_NODE => Ok(i),
                _ => Err(changed()),
            }
        };
        let put = |fill: &mut [u32], nbr: &mut [u32], a: u32, b: u32| -> Result<(), PyramidError> {
            let a = a as usize;
            let slot = fill.get_mut(a).ok_or_else(changed)?;
            if *slot >= off[a + 1] {
                return Err(changed());
            }
            nbr[*slot as usize] = b;
            *slot += 1;
            Ok(())
        };
        // The triples go in by blocks, in order. The objects land all over `index`, `fill` and
        // `nbr`: once those outgrow the cache (100 M triples: 50 MB, 50 MB and 700 MB), each
        // triple waited for three reads from memory, one after the other. Within a block, each
        // is asked for a few triples ahead (a hint: the same writes in the same order).
        let mut block: Vec<(u32, u32)> = Vec::with_capacity(EDGE_BLOCK);
        let mut put_block = |block: &mut Vec<(u32, u32)>| -> Result<(), PyramidError> {
            for k in 0..block.len() {
                if let Some(&(_, o)) = block.get(k + 2 * AHEAD) {
                    prefetch_index(&index, o as usize);
                }
                let (s, o) = block[k];
                block[k] = (node(Id::from(s))?, node(Id::from(o))?);
            }
            for k in 0..block.len() {
                if let Some(&(_, b)) = block.get(k + 2 * AHEAD) {
                    prefetch_index(&fill, b as usize);
                }
                if let Some(&(_, b)) = block.get(k + AHEAD) {
                    if let Some(&f) = fill.get(b as usize) {
                        prefetch_index(&nbr, f as usize);
                    }
                }
                let (a, b) = block[k];
                put(&mut fill, &mut nbr, a, b)?;
                put(&mut fill, &mut nbr, b, a)?;
            }
            block.clear();
            Ok(())
        };
        for t in spo_triples(rete)? {
            let [s, p, o] = t?;
            if Some(p) == self.rdf_type || o < 1 || o >= self.lit_start || s == o {
                continue;
            }
            // Both are below `lit_start`, itself below 2^32 (checked by the scan).
            block.push((s as u32, o as u32));
            if block.len() == EDGE_BLOCK {
                put_block(&mut block)?;
            }
        }
        put_block(&mut block)?;
        drop(index);
        if fill.iter().zip(&off[1..]).any(|(f, e)| f != e) {
            return Err(changed());
        }
        drop(fill);
        sort_rows(&off, &mut nbr);
        UnitGraph::new(off, nbr, self.loops.clone())
    }

    /// One scan of SPO: entities, degrees, classes, labels, predicates; no edges.
    fn scan(rete: &Rete) -> Result<Self, PyramidError> {
        let terms = rete.term_count();
        if terms >= u64::from(u32::MAX) {
            return Err(PyramidError::TooLarge(format!(
                "{terms} terms; the pyramid supports up to {} terms",
                u32::MAX - 1
            )));
        }
        let lit_start = rete.first_of_kind(TermKind::SimpleLiteral)?;
        let rdf_type = rete.id_of(oxrdf::vocab::rdf::TYPE.into())?;
        let mut label_preds: Vec<(Id, u32)> = Vec::new();
        for (prio, iri) in (0u32..).zip(LABEL_PREDICATES) {
            if let Some(id) = rete.id_of(oxrdf::NamedNodeRef::new_unchecked(iri).into())? {
                label_preds.push((id, prio));
            }
        }
        let is_entity = |id: Id| id >= 1 && id < lit_start;
        let mut node = vec![false; lit_start as usize];
        // Weighted degree per term id (u32: a node with 4 G links is out of range anyway).
        let mut deg = vec![0u32; lit_start as usize];
        let too_many = || PyramidError::TooLarge("an entity with 2^32 links or more".to_owned());
        let mut triples = 0u64;
        let mut preds: BTreeSet<Id> = BTreeSet::new();
        let mut last_pred: Option<Id> = None;
        // Sized once from index counts (upper bounds): growing by doubling held up to twice
        // these lists at scale. (subject, class) and (subject, predicate priority, literal).
        let count = |p: Option<Id>| -> Result<usize, PyramidError> {
            Ok(match p {
                Some(p) => usize::try_from(rete.count(&Pattern::new(None, Some(p), None))?)
                    .unwrap_or(usize::MAX),
                None => 0,
            })
        };
        let mut types: Vec<(u32, u32)> = Vec::with_capacity(count(rdf_type)?);
        let mut label_total = 0usize;
        for &(p, _) in &label_preds {
            label_total = label_total.saturating_add(count(Some(p))?);
        }
        let mut label_cands: Vec<(u32, u32, u32)> = Vec::with_capacity(label_total);
        // (subject id, self-loop triples), in subject order.
        let mut self_loops: Vec<(u32, u32)> = Vec::new();
        // By blocks: the objects' degree and node flag are asked for a few triples ahead (see
        // `load_edges`).
        let mut block: Vec<[Id; 3]> = Vec::with_capacity(EDGE_BLOCK);
        let mut all = spo_triples(rete)?;
        loop {
            block.clear();
            for t in all.by_ref().take(EDGE_BLOCK) {
                block.push(t?);
            }
            if block.is_empty() {
                break;
            }
            for k in 0..block.len() {
                if let Some(&[_, _, o]) = block.get(k + 2 * AHEAD) {
                    if is_entity(o) {
                        prefetch_index(&deg, o as usize);
                        prefetch_index(&node, o as usize);
                    }
                }
                let [s, p, o] = block[k];
                if !is_entity(s) {
                    return Err(PyramidError::corrupt(
                        rete.name(),
                        "quads",
                        format!("subject id {s} is not an IRI or blank node"),
                    ));
                }
                node[s as usize] = true;
                if Some(p) == rdf_type {
                    if is_entity(o) {
                        types.push((s as u32, o as u32));
                    }
                } else if is_entity(o) {
                    node[o as usize] = true;
                    triples += 1;
                    if s == o {
                        match self_loops.last_mut() {
                            Some(l) if Id::from(l.0) == s => l.1 += 1,
                            _ => self_loops.push((s as u32, 1)),
                        }
                    }
                    for end in [s, o] {
                        let d = &mut deg[end as usize];
                        *d = d.checked_add(1).ok_or_else(too_many)?;
                    }
                    if last_pred != Some(p) {
                        preds.insert(p);
                        last_pred = Some(p);
                    }
                } else if let Some(&(_, prio)) = label_preds.iter().find(|(id, _)| *id == p) {
                    label_cands.push((s as u32, prio, o as u32));
                }
            }
        }
        // Node indices in id order (sized exactly: these arrays live through the whole build).
        let count = node.iter().filter(|&&is| is).count();
        let mut ids = Vec::with_capacity(count);
        let mut degree = Vec::with_capacity(count);
        for (id, &is) in node.iter().enumerate() {
            if is {
                ids.push(id as Id);
                degree.push(deg[id]);
            }
        }
        drop(node);
        // Term id → node index in the degree array's room: tens of millions of lookups follow
        // (types, labels), and a binary search each cost seconds at 100 M triples.
        let mut dense = deg;
        fill_node_index(&mut dense, &ids);
        let index = |id: u32| match dense.get(id as usize) {
            Some(&i) if i != NOT_A_NODE => i,
            _ => 0,
        };
        let loops: Vec<(u32, u32)> = self_loops.iter().map(|&(s, w)| (index(s), w)).collect();
        let predicates: Vec<Id> = preds.into_iter().collect();
        let mut classes: Vec<Id> = types.iter().map(|t| Id::from(t.1)).collect();
        classes.sort_unstable();
        classes.dedup();
        let mut node_classes: Vec<(u32, u32)> = types
            .iter()
            .map(|&(s, c)| {
                (
                    index(s),
                    classes.binary_search(&Id::from(c)).unwrap_or(0) as u32,
                )
            })
            .collect();
        drop(types);
        node_classes.sort_unstable();
        node_classes.dedup();
        node_classes.shrink_to_fit();
        // Labels: best predicate first; among its literals prefer untagged or English ones.
        label_cands.sort_unstable();
        let mut labels: Vec<(u32, u32)> = Vec::new();
        let mut i = 0;
        while i < label_cands.len() {
            let (s, prio, _) = label_cands[i];
            let mut j = i;
            let mut chosen: Option<u32> = None;
            while j < label_cands.len() && label_cands[j].0 == s && label_cands[j].1 == prio {
                if chosen.is_none() && prefers(&rete.term_bytes(Id::from(label_cands[j].2))?) {
                    chosen = Some(label_cands[j].2);
                }
                j += 1;
            }
            labels.push((index(s), chosen.unwrap_or(label_cands[i].2)));
            while j < label_cands.len() && label_cands[j].0 == s {
                j += 1;
            }
            i = j;
        }
        // Freed before the pyramid's later phases grow (at scale they are hundreds of MB).
        drop(label_cands);
        drop(dense);
        labels.shrink_to_fit();
        Ok(Self {
            ids,
            predicates,
            classes,
            node_classes,
            labels,
            degree,
            loops,
            lit_start,
            rdf_type,
            triples,
            edges: None,
            adj: None,
        })
    }

    /// Streams every node's links, in node order, from the SPO (out-links) and OSP (in-links)
    /// scans; memory is one node's links at a time. `f` returns `false` to stop early.
    pub(crate) fn for_each_node(
        &self,
        rete: &Rete,
        mut f: impl FnMut(NodeLinks<'_>) -> Result<bool, PyramidError>,
    ) -> Result<(), PyramidError> {
        let is_link = |p: Id, o: Id| Some(p) != self.rdf_type && o >= 1 && o < self.lit_start;
        let mut spo = rete.scan(Perm::Spo, &Pattern::default())?.peekable();
        let mut osp = rete.scan(Perm::Osp, &Pattern::default())?.peekable();
        let mut raw: Vec<u32> = Vec::new();
        let mut links: Vec<(u32, u32)> = Vec::new();
        let node_of = |id: Id| -> Result<u32, PyramidError> {
            self.ids
                .binary_search(&id)
                .map(|i| i as u32)
                .map_err(|_| PyramidError::corrupt(rete.name(), "quads", "entity set changed"))
        };
        for (node, &id) in self.ids.iter().enumerate() {
            raw.clear();
            let mut loop_weight = 0u64;
            // Out-links: (id, p, o); graphs of one triple are adjacent.
            let mut last: Option<(Id, Id)> = None;
            while let Some(q) = spo.next_if(|q| q.as_ref().map_or(true, |q| q[0] <= id)) {
                let [s, p, o, _] = q?;
                if s < id || last == Some((p, o)) || !is_link(p, o) {
                    continue;
                }
                last = Some((p, o));
                if o == id {
                    loop_weight += 1;
                } else {
                    raw.push(node_of(o)?);
                }
            }
            // In-links: (s, p, id) in (o, s, p) order; self-loops were counted above.
            let mut last: Option<(Id, Id)> = None;
            while let Some(q) = osp.next_if(|q| q.as_ref().map_or(true, |q| q[2] <= id)) {
                let [s, p, o, _] = q?;
                if o < id || last == Some((s, p)) || !is_link(p, o) || s == id {
                    continue;
                }
                last = Some((s, p));
                raw.push(node_of(s)?);
            }
            raw.sort_unstable();
            links.clear();
            for &j in &raw {
                match links.last_mut() {
                    Some(l) if l.0 == j => l.1 += 1,
                    _ => links.push((j, 1)),
                }
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

    /// Number of entities (nodes).
    pub fn node_count(&self) -> usize {
        self.ids.len()
    }

    /// Number of distinct linked entity pairs (undirected edges, self-loops included).
    pub fn edge_count(&self) -> usize {
        self.edges.unwrap_or(0) as usize
    }

    pub(crate) fn set_edge_count(&mut self, edges: u64) {
        self.edges = Some(edges);
    }

    /// Number of object triples between entities (the total edge weight).
    pub fn triple_count(&self) -> usize {
        self.triples as usize
    }

    /// Term id of node `i`.
    pub fn entity(&self, i: usize) -> Option<Id> {
        self.ids.get(i).copied()
    }

    /// Term id → node index for every term id below the first literal ([`NOT_A_NODE`]: not an
    /// entity): 4 bytes a term, for phases that look up every triple's ends.
    pub(crate) fn node_index(&self) -> Vec<u32> {
        let mut index = vec![0u32; self.lit_start as usize];
        fill_node_index(&mut index, &self.ids);
        index
    }

    /// Node index of term `id`, if it is an entity.
    pub fn node_of(&self, id: Id) -> Option<usize> {
        self.ids.binary_search(&id).ok()
    }

    /// Edges as `(entity id, entity id, triple count)`, sorted (empty when the edges were not
    /// loaded into memory).
    pub fn edges(&self) -> impl Iterator<Item = (Id, Id, u64)> + '_ {
        self.adj.iter().flat_map(move |g| {
            (0..g.node_count()).flat_map(move |a| {
                let lw = g.loop_weight(a) as u64;
                let self_loop = (lw > 0).then_some((a, a, lw));
                // A row repeats a neighbour once per triple: runs become weights.
                let row = g.row(a);
                let start = row.partition_point(|&b| (b as usize) <= a);
                let runs = row[start..]
                    .chunk_by(|x, y| x == y)
                    .map(move |run| (a, run[0] as usize, run.len() as u64));
                self_loop
                    .into_iter()
                    .chain(runs)
                    .map(|(a, b, w)| (self.ids[a], self.ids[b], w))
            })
        })
    }

    /// Writes the edge list as `source\ttarget\tweight` lines of term ids (for reference tools).
    pub fn write_edge_list(&self, mut out: impl Write) -> std::io::Result<()> {
        for (a, b, w) in self.edges() {
            writeln!(out, "{a}\t{b}\t{w}")?;
        }
        Ok(())
    }
}

/// Sorts every row of a CSR, rows split into chunks that threads sort independently (the
/// result does not depend on the number of threads).
fn sort_rows(off: &[u32], nbr: &mut [u32]) {
    use rayon::prelude::*;
    let n = off.len().saturating_sub(1);
    let per = n.div_ceil(rayon::current_num_threads() * 16).max(1024);
    let mut chunks: Vec<(usize, usize, &mut [u32])> = Vec::new();
    let mut rest = nbr;
    let mut start = 0;
    while start < n {
        let end = (start + per).min(n);
        let len = (off[end] - off[start]) as usize;
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
        chunks.push((start, end, head));
        rest = tail;
        start = end;
    }
    chunks.into_par_iter().for_each(|(s, e, rows)| {
        let base = off[s];
        for i in s..e {
            rows[(off[i] - base) as usize..(off[i + 1] - base) as usize].sort_unstable();
        }
    });
}

/// Whether a literal encoding is untagged or tagged English.
fn prefers(enc: &[u8]) -> bool {
    match TermKind::of_encoded(enc) {
        Some(TermKind::SimpleLiteral) => true,
        Some(TermKind::LangLiteral) => {
            let tag = enc[1..].split(|&b| b == 0).next().unwrap_or_default();
            tag.eq_ignore_ascii_case(b"en") || tag.to_ascii_lowercase().starts_with(b"en-")
        }
        _ => false,
    }
}
