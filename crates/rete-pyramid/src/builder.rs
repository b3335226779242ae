//! Computing the pyramid of a base dataset and encoding it as sections.

use crate::codec::{kind, DIR_MAGIC, DIR_VERSION, TOP_MAGIC, VERSION};
use crate::graph::EntityGraph;
use crate::layout::{self, Circle, WORLD_RADIUS};
use crate::louvain::{self, Aggregate, Graph, UnitGraph, WGraph};
use crate::names::NameStore;
use crate::records::{CommRec, EdgeItem, EdgeList};
use crate::split;
use crate::tally::Tally;
use crate::{LevelInfo, PyramidError, PyramidOptions, PyramidStats, SectionSize};
use rete_core::block::{BatchWriter, Buf};
use rete_core::front_coding::shared_prefix_str;
use rete_core::writer::{Payload, SectionSpec};
use rete_core::{Id, Rete};
use std::path::Path;
use std::time::Instant;

mod levels;
mod members;
use levels::*;
use members::*;

/// Target decoded size of a level or members block.
const BLOCK_BYTES: usize = 32 << 10;
/// Entities per membership block.
const MEMBERSHIP_BLOCK: usize = 4096;
/// Columns of a member block: head, ids, term prefixes, term suffixes, label lengths, labels,
/// classes, sunflower ranks.
pub(crate) const MEMBER_COLUMNS: usize = 8;
/// Member layout of a group: sunflower positions by the rank column (the only one so far; the
/// byte leaves room for others).
pub(crate) const LAYOUT_SUNFLOWER: u8 = 0;
/// Tag of the positions by links after the last group head of a member block: per group 0
/// (sunflower) or 1 and three bytes a member, 12 bits of x then 12 of y in the disc.
pub(crate) const MEMBER_POSITIONS: u8 = 1;

/// Levels found by Louvain (and forced merges), before renumbering.
struct Partitions {
    /// The graph Louvain started from.
    g0: Base,
    /// Local-moving sweeps streamed from the file (0: the graph was held in memory).
    streamed_sweeps: usize,
    /// `parts[0]`: node → level-0 community; `parts[l]`: level-(l-1) → level-l community.
    parts: Vec<Vec<u32>>,
    counts: Vec<usize>,
    methods: Vec<&'static str>,
    resolutions: Vec<f64>,
}

/// What level 0 is measured on: the entity graph held in memory, or the coarse graph of the
/// streamed first pass with each node's coarse node (see [`crate::stream`]).
enum Base {
    Held(UnitGraph),
    Coarse(WGraph, Vec<u32>),
}

impl Base {
    /// `part` (of the entity graph's nodes) on the coarse graph: every level is a union of
    /// coarse nodes (isolated entities are coarse nodes of their own).
    fn coarse_part(part: &[u32], base_of: &[u32], k: usize) -> Vec<u32> {
        let mut pc = vec![0u32; k];
        for (node, &c) in part.iter().enumerate() {
            pc[base_of[node] as usize] = c;
        }
        pc
    }

    fn aggregate(&self, part: &[u32], k: usize) -> Result<WGraph, PyramidError> {
        match self {
            Self::Held(g) => g.aggregate(part, k),
            Self::Coarse(g, b) => g.aggregate(&Self::coarse_part(part, b, g.node_count()), k),
        }
    }

    /// Modularity of every level of `h` on the entity graph: on the coarse graph it is the same.
    fn modularity(&self, h: &Hierarchy, gamma: f64) -> Vec<f64> {
        let part0 = &h.node_comm[0];
        match self {
            Self::Held(g) => louvain::hierarchy_modularity(g, part0, &h.parent, &h.counts, gamma),
            Self::Coarse(g, b) => louvain::hierarchy_modularity(
                g,
                &Self::coarse_part(part0, b, g.node_count()),
                &h.parent,
                &h.counts,
                gamma,
            ),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Self::Held(g) => g.heap_bytes(),
            Self::Coarse(g, _) => g.heap_bytes(),
        }
    }
}

/// The hierarchy with final ids: at every level, communities are numbered so that the children of
/// one parent are consecutive and parents come in id order (top: largest first).
struct Hierarchy {
    counts: Vec<usize>,
    /// `node_comm[l][node]`: community of a node at level `l`.
    node_comm: Vec<Vec<u32>>,
    /// `parent[l][c]`: parent at level `l + 1` (levels below the top only).
    parent: Vec<Vec<u32>>,
    sizes: Vec<Vec<u64>>,
}

impl Hierarchy {
    fn top(&self) -> usize {
        self.counts.len() - 1
    }

    /// First child id of every community at level `l` (`l >= 1`), plus a final end marker.
    fn child_starts(&self, l: usize) -> Vec<usize> {
        let mut starts = vec![0usize; self.counts[l] + 1];
        for &p in &self.parent[l - 1] {
            starts[p as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        starts
    }
}

/// Computes the pyramid of `base` and returns its sections (kinds 16–20) with statistics.
pub fn build_sections(
    base: &Rete,
    opts: &PyramidOptions,
) -> Result<(Vec<SectionSpec>, PyramidStats), PyramidError> {
    opts.validate()?;
    let mut phases = Vec::new();
    let mut t = Instant::now();
    let mut peaks = Vec::new();
    let mut phase = |name: &str, t: &mut Instant| {
        phases.push((name.to_owned(), t.elapsed().as_secs_f64() * 1e3));
        peaks.push((name.to_owned(), peak_rss()));
        *t = Instant::now();
    };
    // Half the budget for the graph held in memory, a quarter for a coarse graph being summed.
    let mut eg = EntityGraph::within(base, opts.memory_budget / 2)?;
    phase("entity graph", &mut t);
    let primary = primary_classes(&eg);
    // Louvain's first pass is one thread's work for minutes at 100 M triples; the names need
    // only the entity graph, so a second thread writes them meanwhile. Not when the graph is
    // streamed (the budget is tight there) or the build runs on one thread.
    let (mut parts, early_names) = match eg.adj.take() {
        Some(g) if rayon::current_num_threads() > 1 => {
            let eg = &eg;
            // Louvain on the helper, the names' scan here: the blocks it decodes into the
            // reader's cache stay in this thread's malloc arena, as before (see below).
            std::thread::scope(|s| {
                let louvain = s.spawn(|| held_partition(g, eg, &primary, opts));
                let names = Names::load(base, eg, opts.temp_dir.as_deref());
                let parts = louvain
                    .join()
                    .map_err(|_| PyramidError::internal("the Louvain thread panicked"))?;
                Ok::<_, PyramidError>((parts?, Some(names?)))
            })?
        }
        Some(g) => (held_partition(g, &eg, &primary, opts)?, None),
        None => (streamed_partition(base, &mut eg, &primary, opts)?, None),
    };
    phase("louvain", &mut t);
    split_oversized(&mut parts, &primary, opts)?;
    phase("split", &mut t);
    let h = renumber(&parts, eg.node_count());
    let by_comm = by_community(&h);
    // Positions by links need each member's links: only when the entity graph is held.
    let spots = match &parts.g0 {
        Base::Held(g) => member_spots(g, &eg.degree, &h, &by_comm, opts.member_rounds),
        Base::Coarse(..) => vec![NO_SPOT; by_comm.len()],
    };
    phase("member layout", &mut t);
    // One pass over the entity graph for all levels (a link is looked up at level 0 only).
    let modularity = parts.g0.modularity(&h, opts.resolution);
    let graph_bytes = parts.g0.heap_bytes() as u64;
    let streamed_sweeps = parts.streamed_sweeps as u32;
    drop(parts.g0);
    // The hierarchy holds the partitions with their final ids now.
    parts.parts = Vec::new();
    // Scans stay on this thread: blocks a worker decodes into the reader's cache are allocated
    // in the worker's malloc arena, and scans decoded on a helper thread (or these two side by
    // side) raised the proxy's encoding peak from 247 to 367 MB.
    let names = match early_names {
        Some(n) => n,
        None => Names::load(base, &eg, opts.temp_dir.as_deref())?,
    };
    phase("names", &mut t);
    let edges = super_edges(base, &eg, &h, opts.max_predicates)?;
    phase("super-edges", &mut t);
    let classes = class_histograms(&eg, &h, opts.max_classes);
    let top_class: Vec<Vec<Option<(u32, u64)>>> = classes
        .iter()
        .map(|lv| lv.iter().map(|h| h.first().copied()).collect())
        .collect();
    let labels = crate::labels::community_labels(
        &crate::labels::Facts {
            rete: base,
            eg: &eg,
            names: &names.store,
            classes: &names.classes,
        },
        &h.node_comm,
        &h.sizes,
        &top_class,
    )?;
    phase("statistics", &mut t);
    let circles = lay_out(&h, &edges, opts.layout_iterations);
    phase("layout", &mut t);
    let top = h.top();
    let level_records = |l: usize| -> Vec<CommRec> {
        (0..h.counts[l])
            .map(|c| {
                let circle = circles[l][c];
                CommRec {
                    size: h.sizes[l][c],
                    label: labels[l][c].text.clone(),
                    alt: labels[l][c].alt.clone(),
                    classes: classes[l][c].clone(),
                    x: circle.x as f32,
                    y: circle.y as f32,
                    r: circle.r as f32,
                }
            })
            .collect()
    };
    let levels: Vec<LevelInfo> = (0..h.counts.len())
        .map(|l| LevelInfo {
            level: l as u32,
            communities: h.counts[l] as u64,
            super_edges: edges[l].len() as u64,
            modularity: modularity[l],
            resolution: parts.resolutions[l],
            method: parts.methods[l].to_owned(),
        })
        .collect();

    // Top section: meta data, names, the top level.
    let mut b = Buf::default();
    b.bytes(TOP_MAGIC);
    b.u8(VERSION);
    b.varint(eg.node_count() as u64);
    b.varint(eg.edge_count() as u64);
    b.varint(eg.triple_count() as u64);
    b.f64(opts.resolution);
    b.varint(opts.max_top as u64);
    b.varint(levels.len() as u64);
    for li in &levels {
        b.varint(li.communities);
        b.varint(li.super_edges);
        b.f64(li.modularity);
        b.f64(li.resolution);
        b.str(&li.method);
    }
    b.varint(names.classes.len() as u64);
    for c in &names.classes {
        b.str(c);
    }
    b.varint(names.predicates.len() as u64);
    for p in &names.predicates {
        b.str(p);
    }
    for rec in level_records(top) {
        rec.write(&mut b);
    }
    b.varint(edges[top].len() as u64);
    b.bytes(&edges[top].bytes);
    let top_bytes = b.0;

    // Level blocks: per level, groups of siblings (one parent each), then the cross edges.
    let mut lw = BatchWriter::new(opts.zstd_level);
    let mut dir = Buf::default();
    dir.bytes(DIR_MAGIC);
    dir.u8(DIR_VERSION);
    dir.varint(top as u64);
    let mut level_blocks: Vec<(Vec<(u32, usize)>, usize)> = Vec::with_capacity(top);
    for (l, level_edges) in edges.iter().enumerate().take(top) {
        let recs = level_records(l);
        let starts = h.child_starts(l + 1);
        // Edges are sorted by (a, b) with a < b and siblings have consecutive ids, so the
        // internal edges of a parent lie in the run of edges starting in its children's range:
        // no per-parent lists (at scale level 0 has millions of super-edges).
        let is_cross = |e: &EdgeItem| h.parent[l][e.a as usize] != h.parent[l][e.b as usize];
        let mut list = level_edges.iter().peekable();
        let mut internal: Vec<&[u8]> = Vec::new();
        let mut blocks: Vec<(u32, usize)> = Vec::new();
        let mut raw = Buf::default();
        let mut group = Buf::default();
        let mut groups = 0u64;
        let mut first_parent = 0u32;
        for p in 0..h.counts[l + 1] {
            let (s, e) = (starts[p], starts[p + 1]);
            group.varint(p as u64);
            group.varint(s as u64);
            group.varint((e - s) as u64);
            for rec in &recs[s..e] {
                rec.write(&mut group);
            }
            internal.clear();
            while let Some(edge) = list.next_if(|x| (x.a as usize) < e) {
                if (edge.b as usize) < e {
                    internal.push(edge.raw);
                }
            }
            group.varint(internal.len() as u64);
            for edge in &internal {
                group.bytes(edge);
            }
            if groups == 0 {
                first_parent = p as u32;
            }
            raw.bytes(&group.0);
            group.0.clear();
            groups += 1;
            if raw.len() >= BLOCK_BYTES || p + 1 == h.counts[l + 1] {
                let mut payload = Buf::default();
                payload.varint(groups);
                payload.bytes(&raw.0);
                blocks.push((first_parent, lw.push(payload.0)?));
                raw.0.clear();
                groups = 0;
            }
        }
        let mut cb = Buf::default();
        cb.varint(level_edges.iter().filter(is_cross).count() as u64);
        for e in level_edges.iter().filter(is_cross) {
            cb.bytes(e.raw);
        }
        let cross = lw.push(cb.0)?;
        level_blocks.push((blocks, cross));
    }
    // The directory once every block is compressed (in parallel batches).
    let (level_data, level_refs) = lw.finish()?;
    for (blocks, cross) in &level_blocks {
        dir.varint(blocks.len() as u64);
        for &(p, r) in blocks {
            dir.varint(u64::from(p));
            level_refs[r].write(&mut dir);
        }
        level_refs[*cross].write(&mut dir);
    }

    // Members of level-0 communities, most connected at the centre of their circle.
    let mut mw = BatchWriter::new(opts.zstd_level);
    let member_blocks = encode_members(
        &eg,
        &h,
        &names.store,
        &primary,
        &circles[0],
        &by_comm,
        &spots,
        &mut mw,
    )?;
    drop((by_comm, spots));
    let (member_data, member_refs) = mw.finish()?;
    dir.varint(member_blocks.len() as u64);
    for &(c, r) in &member_blocks {
        dir.varint(u64::from(c));
        member_refs[r].write(&mut dir);
    }

    // Membership: entity id → community at every level.
    let mut pw = BatchWriter::new(opts.zstd_level);
    let mut membership_blocks: Vec<(u64, usize)> = Vec::new();
    for chunk_start in (0..eg.node_count()).step_by(MEMBERSHIP_BLOCK) {
        let end = (chunk_start + MEMBERSHIP_BLOCK).min(eg.node_count());
        let mut raw = Buf::default();
        raw.varint((end - chunk_start) as u64);
        let mut prev = 0u64;
        for node in chunk_start..end {
            let id = eg.ids[node];
            raw.varint(id - prev);
            prev = id;
            for comm in &h.node_comm {
                raw.varint(u64::from(comm[node]));
            }
        }
        membership_blocks.push((eg.ids[chunk_start], pw.push(raw.0)?));
    }
    let (membership_data, membership_refs) = pw.finish()?;
    dir.varint(membership_blocks.len() as u64);
    for &(e, r) in &membership_blocks {
        dir.varint(e);
        membership_refs[r].write(&mut dir);
    }
    phase("encode", &mut t);

    let level = opts.zstd_level;
    let blocks = |k: u16, data: Vec<u8>| SectionSpec::blocks(k, 0, data);
    let sections = vec![
        SectionSpec::zstd(kind::TOP, 0, &top_bytes, level)?,
        SectionSpec::zstd(kind::DIRECTORY, 0, &dir.0, level)?,
        blocks(kind::LEVELS, level_data),
        blocks(kind::MEMBERS, member_data),
        blocks(kind::MEMBERSHIP, membership_data),
    ];
    let section_sizes = sections
        .iter()
        .map(|s| SectionSize {
            kind: s.kind,
            name: section_label(s.kind).to_owned(),
            stored: match &s.payload {
                Payload::Bytes(b) => b.len() as u64,
                _ => s.raw_len,
            },
            raw: s.raw_len,
        })
        .collect();
    phase("compress", &mut t);
    Ok((
        sections,
        PyramidStats {
            entities: eg.node_count() as u64,
            edges: eg.edge_count() as u64,
            triples: eg.triple_count() as u64,
            levels,
            sections: section_sizes,
            phases,
            peak_rss: peaks,
            streamed_sweeps,
            graph_bytes,
        },
    ))
}

/// The process's peak resident memory so far in bytes (Linux `VmHWM`; 0 where unknown): a
/// probe for the build reports, to see which phase sets the peak.
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib << 10)
        })
        .unwrap_or(0)
}

/// Name of a pyramid section kind, for reports.
pub(crate) fn section_label(k: u16) -> &'static str {
    match k {
        kind::TOP => "pyramid top",
        kind::DIRECTORY => "pyramid directory",
        kind::LEVELS => "pyramid levels",
        kind::MEMBERS => "pyramid members",
        kind::MEMBERSHIP => "pyramid membership",
        _ => "pyramid",
    }
}

/// Strings the pyramid stores: class and predicate names in memory, entity terms and labels on
/// disk ([`NameStore`]).
struct Names {
    classes: Vec<String>,
    predicates: Vec<String>,
    store: NameStore,
}

impl Names {
    fn load(base: &Rete, eg: &EntityGraph, dir: Option<&Path>) -> Result<Self, PyramidError> {
        let nt = |id| -> Result<String, PyramidError> { Ok(base.term(id)?.to_string()) };
        let classes = eg
            .classes
            .iter()
            .map(|&c| nt(c))
            .collect::<Result<_, _>>()?;
        let predicates = eg
            .predicates
            .iter()
            .map(|&c| nt(c))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            classes,
            predicates,
            store: NameStore::write(base, eg, dir)?,
        })
    }
}

/// Per level and community: `(class index, members)`, most members first, at most `keep`.
fn class_histograms(eg: &EntityGraph, h: &Hierarchy, keep: usize) -> Vec<Vec<Vec<(u32, u64)>>> {
    let levels = h.counts.len();
    let mut out = Vec::with_capacity(levels);
    // Full histograms as sorted (community, class, count) triples, level by level.
    let mut pairs: Vec<(u32, u32)> = eg
        .node_classes
        .iter()
        .map(|&(node, c)| (h.node_comm[0][node as usize], c))
        .collect();
    pairs.sort_unstable();
    let mut full: Vec<(u32, u32, u64)> = Vec::new();
    for (comm, c) in pairs {
        match full.last_mut() {
            Some(x) if x.0 == comm && x.1 == c => x.2 += 1,
            _ => full.push((comm, c, 1)),
        }
    }
    for l in 0..levels {
        if l > 0 {
            let mut up: Vec<(u32, u32, u64)> = full
                .iter()
                .map(|&(comm, c, n)| (h.parent[l - 1][comm as usize], c, n))
                .collect();
            up.sort_unstable();
            full.clear();
            for (comm, c, n) in up {
                match full.last_mut() {
                    Some(x) if x.0 == comm && x.1 == c => x.2 += n,
                    _ => full.push((comm, c, n)),
                }
            }
        }
        let mut per: Vec<Vec<(u32, u64)>> = vec![Vec::new(); h.counts[l]];
        for &(comm, c, n) in &full {
            per[comm as usize].push((c, n));
        }
        for v in per.iter_mut() {
            v.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
            v.truncate(keep);
        }
        out.push(per);
    }
    out
}

/// Per level: super-edges between distinct communities, sorted by endpoints, with the
/// predicates carrying most of their triples. The level-0 counts come from one scan of SPO,
/// summed in bounded memory (distinct community pairs and predicates, not triples); each level
/// above is summed from the one below in place.
fn super_edges(
    base: &Rete,
    eg: &EntityGraph,
    h: &Hierarchy,
    keep: usize,
) -> Result<Vec<EdgeList>, PyramidError> {
    let levels = h.counts.len();
    let comm0 = &h.node_comm[0];
    // Both ends of every triple are looked up: a dense index, not a binary search each.
    let index = eg.node_index();
    let link_node = |id: Id| match index.get(usize::try_from(id).ok()?) {
        Some(&i) if id >= 1 && i != crate::graph::NOT_A_NODE => Some(i as usize),
        _ => None,
    };
    let mut tally: Tally<(u32, u32, u32)> = Tally::new();
    let mut pred: Option<(Id, u32)> = None;
    let mut subject: Option<(Id, Option<usize>)> = None;
    for t in crate::graph::spo_triples(base)? {
        let [s, p, o] = t?;
        let pi = match pred {
            Some((id, i)) if id == p => i,
            _ => match eg.predicates.binary_search(&p) {
                Ok(i) => {
                    pred = Some((p, i as u32));
                    i as u32
                }
                // rdf:type, or a literal-valued predicate: not a link.
                Err(_) => continue,
            },
        };
        // Subjects come in order: one search per subject, not per triple.
        let a = match subject {
            Some((id, node)) if id == s => node,
            _ => {
                let node = link_node(s);
                subject = Some((s, node));
                node
            }
        };
        let (Some(a), Some(b)) = (a, link_node(o)) else {
            continue;
        };
        let (a, b) = (comm0[a], comm0[b]);
        if a != b {
            tally.add((a.min(b), a.max(b), pi), 1);
        }
    }
    let mut counts: Vec<(u32, u32, u32, u64)> = tally
        .finish()
        .into_iter()
        .map(|((a, b, p), n)| (a, b, p, n))
        .collect();
    let mut out = Vec::with_capacity(levels);
    for l in 0..levels {
        if l > 0 {
            // The level below's counts become this level's, in place: a second vector of them
            // was as large as level 0's.
            let par = &h.parent[l - 1];
            counts.retain_mut(|e| {
                let (x, y) = (par[e.0 as usize], par[e.1 as usize]);
                (e.0, e.1) = (x.min(y), x.max(y));
                x != y
            });
            counts.sort_unstable();
            counts.dedup_by(|next, kept| {
                let same = (next.0, next.1, next.2) == (kept.0, kept.1, kept.2);
                if same {
                    kept.3 += next.3;
                }
                same
            });
        }
        let mut edges = EdgeList::default();
        let mut preds = Vec::new();
        let mut i = 0;
        while i < counts.len() {
            let (a, b) = (counts[i].0, counts[i].1);
            let mut j = i;
            preds.clear();
            let mut weight = 0;
            while j < counts.len() && counts[j].0 == a && counts[j].1 == b {
                preds.push((counts[j].2, counts[j].3));
                weight += counts[j].3;
                j += 1;
            }
            preds.sort_by_key(|&(p, n)| (std::cmp::Reverse(n), p));
            preds.truncate(keep);
            edges.push(a, b, weight, &preds);
            i = j;
        }
        edges.bytes.shrink_to_fit();
        out.push(edges);
    }
    Ok(out)
}

/// Circles of every community at every level, top-down: the top level in the world circle, the
/// children of each community inside it.
fn lay_out(h: &Hierarchy, edges: &[EdgeList], iterations: usize) -> Vec<Vec<Circle>> {
    let levels = h.counts.len();
    let top = levels - 1;
    let mut circles: Vec<Vec<Circle>> = vec![Vec::new(); levels];
    let world = Circle {
        x: 0.0,
        y: 0.0,
        r: WORLD_RADIUS,
    };
    let top_edges: Vec<(u32, u32, f64)> = edges[top]
        .iter()
        .map(|e| (e.a, e.b, e.weight as f64))
        .collect();
    circles[top] = layout::pack(&h.sizes[top], &top_edges, world, iterations);
    for l in (0..top).rev() {
        let starts = h.child_starts(l + 1);
        let mut internal: Vec<Vec<(u32, u32, f64)>> = vec![Vec::new(); h.counts[l + 1]];
        for e in edges[l].iter() {
            let (pa, pb) = (h.parent[l][e.a as usize], h.parent[l][e.b as usize]);
            if pa == pb {
                let s = starts[pa as usize] as u32;
                internal[pa as usize].push((e.a - s, e.b - s, e.weight as f64));
            }
        }
        let mut level = Vec::with_capacity(h.counts[l]);
        for p in 0..h.counts[l + 1] {
            let kids = &h.sizes[l][starts[p]..starts[p + 1]];
            level.extend(layout::pack(
                kids,
                &internal[p],
                circles[l + 1][p],
                iterations,
            ));
        }
        circles[l] = level;
    }
    circles
}
