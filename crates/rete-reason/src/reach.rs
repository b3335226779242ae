//! Batch transitive reachability over one predicate: the predicate's edges are read once (one
//! contiguous PSO or POS range) into a compressed sparse row adjacency, then each seed is a
//! breadth-first search over dense node indexes — on the rayon pool, one task per seed, when
//! asked.

use crate::{ReasonError, Result};
use oxrdf::{NamedNodeRef, Term, TermRef};
use rayon::prelude::*;
use rete_core::{GraphMatch, Id, Pattern, Perm, Rete};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Which way edges are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Subject to object (`?seed P+ ?x`).
    #[default]
    Forward,
    /// Object to subject (`?x P+ ?seed`).
    Backward,
}

/// What each seed's result carries besides its count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Collect {
    /// The count only.
    #[default]
    Count,
    /// The reached dictionary ids, sorted.
    Ids,
    /// The reached terms in N-Triples syntax, sorted by id.
    Terms,
}

/// Options of a reachability batch.
#[derive(Debug, Clone)]
pub struct ReachOptions {
    /// Edge direction.
    pub direction: Direction,
    /// At most this many steps (`None`: unbounded). `Some(1)` gives the direct neighbours.
    pub max_depth: Option<u32>,
    /// Count each seed as reached from itself (`P*` instead of `P+`).
    pub include_seeds: bool,
    /// One rayon task per seed.
    pub parallel: bool,
    /// What to return per seed.
    pub collect: Collect,
    /// Which graphs' edges count (an edge in several graphs counts once).
    pub graph: GraphMatch,
    /// Search once per strongly connected component rather than once per seed: seeds in one
    /// component reach the same nodes. Costs one pass over the edges (Tarjan), pays off as soon
    /// as two seeds share a component; ignored with `max_depth`. Default on.
    pub share_components: bool,
}

impl Default for ReachOptions {
    fn default() -> Self {
        Self {
            direction: Direction::Forward,
            max_depth: None,
            include_seeds: false,
            parallel: false,
            collect: Collect::Count,
            graph: GraphMatch::Any,
            share_components: true,
        }
    }
}

/// One seed's result from [`Adjacency::reach_ids`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// Number of nodes reached.
    pub count: u64,
    /// The reached ids, sorted, unless only counts were asked for.
    pub ids: Option<Vec<Id>>,
}

/// The edges of one predicate as a compressed sparse row adjacency over dense node indexes.
#[derive(Debug, Clone, Default)]
pub struct Adjacency {
    /// Node ids, sorted; a node's index is its position.
    nodes: Vec<Id>,
    /// `targets[offsets[i]..offsets[i + 1]]` are the successors of node `i`.
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Adjacency {
    /// Reads the edges of `predicate` in `graph`, oriented by `direction`: one scan of PSO
    /// (forward) or POS (backward), whose key order is already source-major.
    pub fn load(
        rete: &Rete,
        predicate: Id,
        direction: Direction,
        graph: GraphMatch,
    ) -> Result<Self> {
        let perm = match direction {
            Direction::Forward => Perm::Pso,
            Direction::Backward => Perm::Pos,
        };
        let pattern = Pattern::new(None, Some(predicate), None).in_graph(graph);
        let mut edges = Vec::new();
        for q in rete.scan(perm, &pattern)? {
            let [s, _, o, _] = q?;
            edges.push(match direction {
                Direction::Forward => (s, o),
                Direction::Backward => (o, s),
            });
        }
        Self::from_sorted_edges(edges)
    }

    /// An adjacency from `(source, target)` edges in any order, duplicates allowed.
    pub fn from_edges(mut edges: Vec<(Id, Id)>) -> Result<Self> {
        edges.par_sort_unstable();
        Self::from_sorted_edges(edges)
    }

    fn from_sorted_edges(mut edges: Vec<(Id, Id)>) -> Result<Self> {
        // Sorted by source then target; the same edge in several graphs is adjacent.
        edges.dedup();
        let mut nodes: Vec<Id> = Vec::with_capacity(edges.len() * 2);
        nodes.extend(edges.iter().map(|e| e.0));
        nodes.dedup();
        nodes.extend(edges.iter().map(|e| e.1));
        nodes.par_sort_unstable();
        nodes.dedup();
        if nodes.len() > u32::MAX as usize {
            return Err(ReasonError::Invalid(format!(
                "{} nodes: reachability supports at most 2^32",
                nodes.len()
            )));
        }
        let index = |id: Id| nodes.binary_search(&id).unwrap_or_default() as u32;
        let mut offsets = vec![0usize; nodes.len() + 1];
        for &(s, _) in &edges {
            offsets[index(s) as usize + 1] += 1;
        }
        for i in 0..nodes.len() {
            offsets[i + 1] += offsets[i];
        }
        // Edges are sorted by source, so targets fill in order.
        let targets: Vec<u32> = edges.par_iter().map(|&(_, t)| index(t)).collect();
        Ok(Self {
            nodes,
            offsets,
            targets,
        })
    }

    /// Number of nodes (sources and targets).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of distinct edges.
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    fn index_of(&self, id: Id) -> Option<u32> {
        self.nodes.binary_search(&id).ok().map(|i| i as u32)
    }

    /// Reachability from each seed id (ids absent from the graph reach nothing). The results are
    /// in seed order and identical whether run serially or in parallel.
    pub fn reach_ids(&self, seeds: &[Id], opts: &ReachOptions) -> Vec<Reached> {
        self.reach_counted(seeds, opts).0
    }

    /// [`Adjacency::reach_ids`] and the number of searches run.
    fn reach_counted(&self, seeds: &[Id], opts: &ReachOptions) -> (Vec<Reached>, usize) {
        if !(opts.share_components && opts.max_depth.is_none() && seeds.len() > 1) {
            return (self.search(seeds, opts), seeds.len());
        }
        let comp = self.components();
        // One search per component (absent seeds: per id, their result names the seed).
        let mut rep_of_key: HashMap<(bool, u64), usize> = HashMap::new();
        let mut reps = Vec::new();
        let slot: Vec<usize> = seeds
            .iter()
            .map(|&s| {
                let key = match self.index_of(s) {
                    Some(i) => (true, u64::from(comp[i as usize])),
                    None => (false, s),
                };
                *rep_of_key.entry(key).or_insert_with(|| {
                    reps.push(s);
                    reps.len() - 1
                })
            })
            .collect();
        let results = self.search(&reps, opts);
        (
            slot.into_iter().map(|i| results[i].clone()).collect(),
            reps.len(),
        )
    }

    fn search(&self, seeds: &[Id], opts: &ReachOptions) -> Vec<Reached> {
        let collect = opts.collect != Collect::Count;
        if opts.parallel {
            seeds
                .par_iter()
                .map_init(
                    || Scratch::new(self.nodes.len()),
                    |sc, &s| self.bfs(s, opts, collect, sc),
                )
                .collect()
        } else {
            let mut sc = Scratch::new(self.nodes.len());
            seeds
                .iter()
                .map(|&s| self.bfs(s, opts, collect, &mut sc))
                .collect()
        }
    }

    /// Strongly connected component of every node (iterative Tarjan). Nodes of one component
    /// reach exactly the same nodes, themselves included when the component has a cycle.
    fn components(&self) -> Vec<u32> {
        const NONE: u32 = u32::MAX;
        let n = self.nodes.len();
        let (mut index, mut low) = (vec![NONE; n], vec![0u32; n]);
        let mut comp = vec![NONE; n];
        let mut on_stack = vec![false; n];
        let (mut stack, mut call): (Vec<u32>, Vec<(u32, usize)>) = (Vec::new(), Vec::new());
        let (mut next, mut ncomp) = (0u32, 0u32);
        // Numbers node `$v`, puts it on the stack and starts walking its edges.
        macro_rules! enter {
            ($v:expr) => {
                index[$v] = next;
                low[$v] = next;
                next += 1;
                stack.push($v as u32);
                on_stack[$v] = true;
                call.push(($v as u32, self.offsets[$v]));
            };
        }
        for root in 0..n {
            if index[root] != NONE {
                continue;
            }
            enter!(root);
            while let Some(frame) = call.last_mut() {
                let v = frame.0 as usize;
                if frame.1 < self.offsets[v + 1] {
                    let w = self.targets[frame.1] as usize;
                    frame.1 += 1;
                    if index[w] == NONE {
                        enter!(w);
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    call.pop();
                    if let Some(&(u, _)) = call.last() {
                        low[u as usize] = low[u as usize].min(low[v]);
                    }
                    if low[v] == index[v] {
                        while let Some(w) = stack.pop() {
                            on_stack[w as usize] = false;
                            comp[w as usize] = ncomp;
                            if w as usize == v {
                                break;
                            }
                        }
                        ncomp += 1;
                    }
                }
            }
        }
        comp
    }

    fn bfs(&self, seed: Id, opts: &ReachOptions, collect: bool, sc: &mut Scratch) -> Reached {
        let Some(si) = self.index_of(seed) else {
            return if opts.include_seeds {
                Reached {
                    count: 1,
                    ids: collect.then(|| vec![seed]),
                }
            } else {
                Reached {
                    count: 0,
                    ids: collect.then(Vec::new),
                }
            };
        };
        sc.seen.fill(0);
        let (queue, seen) = (&mut sc.queue, &mut sc.seen);
        queue.clear();
        // The seed is expanded first but not marked: it is reached only through a cycle (P+).
        queue.push(si);
        let (mut start, mut end, mut depth) = (0, 1, 0u32);
        while start < end {
            if opts.max_depth.is_some_and(|m| depth >= m) {
                break;
            }
            for i in start..end {
                let n = queue[i] as usize;
                for &t in &self.targets[self.offsets[n]..self.offsets[n + 1]] {
                    let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
                    if seen[word] & bit == 0 {
                        seen[word] |= bit;
                        queue.push(t);
                    }
                }
            }
            start = end;
            end = queue.len();
            depth += 1;
        }
        let reached = &sc.queue[1..];
        let seed_in = sc.seen[(si >> 6) as usize] & (1 << (si & 63)) != 0;
        let add_seed = opts.include_seeds && !seed_in;
        let count = reached.len() as u64 + u64::from(add_seed);
        let ids = collect.then(|| {
            let mut v: Vec<Id> = reached.iter().map(|&i| self.nodes[i as usize]).collect();
            if add_seed {
                v.push(seed);
            }
            v.sort_unstable();
            v
        });
        Reached { count, ids }
    }
}

/// Per-task BFS state. A bitset of visited nodes (n/8 bytes) stays in cache where a wider
/// visited array would not; clearing it per seed costs less than one pass over the edges.
struct Scratch {
    seen: Vec<u64>,
    queue: Vec<u32>,
}

impl Scratch {
    fn new(n: usize) -> Self {
        Self {
            seen: vec![0; n.div_ceil(64)],
            queue: Vec::new(),
        }
    }
}

/// One seed's result in a [`ReachReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SeedReach {
    /// The seed in N-Triples syntax.
    pub seed: String,
    /// Its dictionary id (`None`: not in the file, so it reaches nothing).
    pub id: Option<Id>,
    /// Number of nodes reached.
    pub count: u64,
    /// Reached ids, sorted ([`Collect::Ids`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<Id>>,
    /// Reached terms in N-Triples syntax, sorted by id ([`Collect::Terms`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terms: Option<Vec<String>>,
}

/// The result of [`reach`].
#[derive(Debug, Clone, Serialize)]
pub struct ReachReport {
    /// The predicate in N-Triples syntax.
    pub predicate: String,
    /// Edge direction.
    pub direction: Direction,
    /// Step bound.
    pub max_depth: Option<u32>,
    /// Whether seeds count as reached from themselves.
    pub include_seeds: bool,
    /// Whether seeds ran in parallel.
    pub parallel: bool,
    /// Nodes of the adjacency.
    pub nodes: u64,
    /// Distinct edges of the adjacency.
    pub edges: u64,
    /// Sum of the per-seed counts.
    pub total: u64,
    /// Breadth-first searches run (fewer than seeds when seeds share a component).
    pub searches: u64,
    /// Time to read the edges and build the adjacency.
    pub load_ms: f64,
    /// Time of the searches (and term lookups when collecting terms).
    pub reach_ms: f64,
    /// Per seed, in the order given.
    pub seeds: Vec<SeedReach>,
}

/// Transitive reachability over `predicate` from every seed: `?seed predicate+ ?x` per seed
/// (`predicate*` with [`ReachOptions::include_seeds`], reversed with [`Direction::Backward`]).
/// A predicate or seed the file does not contain reaches nothing.
pub fn reach(
    rete: &Rete,
    predicate: NamedNodeRef<'_>,
    seeds: &[Term],
    opts: &ReachOptions,
) -> Result<ReachReport> {
    let t0 = Instant::now();
    let adj = match rete.id_of(predicate.into())? {
        Some(p) => Adjacency::load(rete, p, opts.direction, opts.graph)?,
        None => Adjacency::default(),
    };
    let load_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    let mut ids = Vec::with_capacity(seeds.len());
    for s in seeds {
        ids.push(rete.id_of(s.as_ref())?);
    }
    // Unknown seeds get id 0, which is never a node.
    let dense: Vec<Id> = ids.iter().map(|i| i.unwrap_or(0)).collect();
    let (results, searches) = adj.reach_counted(&dense, opts);
    let mut out = Vec::with_capacity(seeds.len());
    for ((seed, id), r) in seeds.iter().zip(&ids).zip(results) {
        let (count, mut reached) = (r.count, r.ids);
        // An unknown seed reaches only itself, under P*.
        if id.is_none() {
            if let Some(v) = &mut reached {
                v.clear();
            }
        }
        let terms = match (&reached, opts.collect) {
            (Some(v), Collect::Terms) => {
                let mut t = Vec::with_capacity(v.len() + 1);
                if id.is_none() && opts.include_seeds {
                    t.push(seed.to_string());
                }
                for &i in v {
                    t.push(rete.term(i)?.to_string());
                }
                Some(t)
            }
            _ => None,
        };
        out.push(SeedReach {
            seed: seed.to_string(),
            id: *id,
            count,
            ids: if opts.collect == Collect::Ids {
                reached
            } else {
                None
            },
            terms,
        });
    }
    let total = out.iter().map(|s| s.count).sum();
    Ok(ReachReport {
        predicate: TermRef::from(predicate).to_string(),
        direction: opts.direction,
        max_depth: opts.max_depth,
        include_seeds: opts.include_seeds,
        parallel: opts.parallel,
        nodes: adj.node_count() as u64,
        edges: adj.edge_count() as u64,
        total,
        searches: searches as u64,
        load_ms,
        reach_ms: t1.elapsed().as_secs_f64() * 1e3,
        seeds: out,
    })
}
