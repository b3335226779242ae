//! The graph a search walks: each entity's neighbours over the links the filters allow, in both
//! directions (its SPO range: links out; its OSP range: links in), read lazily on first use and
//! kept, so that the first search and the enumeration of longer paths ([`crate::kpaths`]) read
//! each entity once. The links themselves (predicate and direction) are kept too: every step of
//! a path found has an end whose links were read, so its links are listed without another read.
//! Every read checks the limits: the memory cap, the deadline and the cancel flag.

use crate::filter::{NodeFilter, PredicateFilter};
use crate::{Link, PathError, PathOptions, Progress, Stop};
use rete_core::{Id, NearBlocks, Pattern, Perm, Rete};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The bit marking a kept link as pointing in (the entity read is its object). Ids are far
/// below 2^63.
const BACKWARD: Id = 1 << 63;

/// Why a search step could not go on: a limit (an answer) or a failure (an error).
#[derive(Debug)]
pub(crate) enum Halt {
    Limit(Stop),
    Fail(PathError),
}

impl From<PathError> for Halt {
    fn from(e: PathError) -> Self {
        Halt::Fail(e)
    }
}

impl From<rete_core::Error> for Halt {
    fn from(e: rete_core::Error) -> Self {
        Halt::Fail(e.into())
    }
}

/// What was read of an entity.
#[derive(Debug)]
struct Read {
    /// The distinct entities linked to it either way, sorted.
    neighbours: Arc<[Id]>,
    /// Its allowed links as `(other end, predicate | BACKWARD)`, as read: only the ends of the
    /// steps of the paths found are looked up, so they are not sorted here.
    links: Box<[(Id, Id)]>,
}

/// Lazily read, memoized undirected adjacency over allowed links.
#[derive(Debug)]
pub(crate) struct Graph<'a> {
    pub(crate) rete: &'a Rete,
    pub(crate) preds: PredicateFilter,
    pub(crate) nodes: NodeFilter,
    adjacency: FxHashMap<Id, Read>,
    /// Neighbour and link entries held in `adjacency`.
    held: usize,
    max_held: usize,
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
    progress: Option<Arc<Progress>>,
    /// Entities whose links were read.
    pub(crate) expanded: u64,
    /// A read's neighbours and links while it runs, reused: each read then allocates only
    /// what it keeps, at its size.
    scratch: (Vec<Id>, Vec<(Id, Id)>),
    /// The blocks the last reads ended in: the entities a search reads are often near each
    /// other (a walk reads them in id order), their ranges in one block.
    near: NearBlocks,
    /// Whether every read costs a round trip (HTTP): the search then fetches what a layer
    /// reads in one batch ([`Graph::prefetch`]).
    remote: bool,
    /// Blocks fetched ahead per range: with a degree bound, a hub's first and last only (its
    /// count reads them; its links are never read).
    most_blocks: usize,
}

impl<'a> Graph<'a> {
    pub(crate) fn new(rete: &'a Rete, opts: &PathOptions) -> Result<Self, PathError> {
        Ok(Self {
            rete,
            preds: PredicateFilter::new(rete, opts)?,
            nodes: NodeFilter::new(rete, opts)?,
            // Sized for the entities a search mostly reads: growing rehashes.
            adjacency: FxHashMap::with_capacity_and_hasher(32, Default::default()),
            held: 0,
            max_held: opts.max_visited,
            deadline: opts.deadline,
            cancel: opts.cancel.clone(),
            progress: opts.progress.clone(),
            expanded: 0,
            scratch: (Vec::new(), Vec::new()),
            near: NearBlocks::default(),
            remote: rete.reader().is_remote(),
            most_blocks: if opts.max_degree.is_some() {
                2
            } else {
                usize::MAX
            },
        })
    }

    /// On a remote file, fetches in one batch what reading the links of `ids` will read (their
    /// SPO and OSP ranges: the directory pages, then the blocks), so that a layer of the
    /// search costs a request or two instead of two to four per entity. Nothing is done on a
    /// local file, where a read costs no round trip, nor for entities already read.
    pub(crate) fn prefetch(&mut self, ids: &[Id]) -> Result<(), Halt> {
        if !self.remote {
            return Ok(());
        }
        let patterns: Vec<Pattern> = ids
            .iter()
            .filter(|&&id| !self.adjacency.contains_key(&id) && !self.nodes.is_literal(id))
            .flat_map(|&id| {
                [
                    Pattern::new(Some(id), None, None),
                    Pattern::new(None, None, Some(id)),
                ]
            })
            .collect();
        if patterns.is_empty() {
            return Ok(());
        }
        self.check()?;
        self.rete.prefetch_bounded(&patterns, self.most_blocks)?;
        Ok(())
    }

    /// Neighbour entries held in memory.
    pub(crate) fn held(&self) -> usize {
        self.held
    }

    /// The deadline and the cancel flag, checked before each read and between searches.
    pub(crate) fn check(&self) -> Result<(), Halt> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(Halt::Limit(Stop::Cancelled));
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Halt::Limit(Stop::Deadline));
        }
        Ok(())
    }

    /// Whether the links of `id` have been read.
    pub(crate) fn is_read(&self, id: Id) -> bool {
        self.adjacency.contains_key(&id)
    }

    /// The neighbours of `id` if they have been read already (no read, no limit checked).
    pub(crate) fn cached(&self, id: Id) -> Option<Arc<[Id]>> {
        self.adjacency.get(&id).map(|r| r.neighbours.clone())
    }

    /// The distinct entities linked to `id` either way by an allowed link, sorted by id
    /// (literals and `id` itself left out).
    pub(crate) fn neighbours(&mut self, id: Id) -> Result<Arc<[Id]>, Halt> {
        if let Some(r) = self.adjacency.get(&id) {
            return Ok(r.neighbours.clone());
        }
        self.check()?;
        if self.remote {
            // One entity read alone (the walk's reads): its two ranges' pages, then their
            // blocks, in two requests rather than four. After a layer's batch, nothing.
            let both = [
                Pattern::new(Some(id), None, None),
                Pattern::new(None, None, Some(id)),
            ];
            self.rete.prefetch(&both)?;
        }
        let (mut out, mut links) = std::mem::take(&mut self.scratch);
        out.clear();
        links.clear();
        let room = self.max_held.saturating_sub(self.held);
        // Keys straight from the cached blocks: SPO keys are (s, p, o, g), OSP keys (o, s, p, g).
        let rete = self.rete;
        let (preds, nodes, near) = (&mut self.preds, &self.nodes, &mut self.near);
        for (perm, pattern, other, pred, direction) in [
            (Perm::Spo, Pattern::new(Some(id), None, None), 2, 1, 0),
            (
                Perm::Osp,
                Pattern::new(None, None, Some(id)),
                1,
                2,
                BACKWARD,
            ),
        ] {
            let scanned = rete.scan_keys_near(perm, &pattern, near, |keys| {
                for k in keys {
                    let n = k[other];
                    if n == id || nodes.is_literal(n) || !preds.allows(rete, k[pred])? {
                        continue;
                    }
                    out.push(n);
                    links.push((n, k[pred] | direction));
                }
                // Links before dedup bound the memory of one read (a hub's links can be
                // many), a block at a time: past the room, the check below stops the search.
                Ok::<bool, Halt>(links.len() <= room)
            });
            if let Err(e) = scanned {
                self.scratch = (out, links);
                return Err(e);
            }
        }
        // Runs already sorted (links in: subjects in key order; links out: objects per
        // predicate), which the stable sort merges rather than sorting anew: a hub's thousands
        // of links in are one run.
        out.sort();
        out.dedup();
        if out.len() + links.len() > room {
            self.scratch = (out, links);
            return Err(Halt::Limit(Stop::VisitedLimit));
        }
        self.held += out.len() + links.len() + 1;
        self.expanded += 1;
        if let Some(p) = &self.progress {
            p.expanded.fetch_add(1, Ordering::Relaxed);
        }
        let neighbours: Arc<[Id]> = Arc::from(&out[..]);
        self.adjacency.insert(
            id,
            Read {
                neighbours: neighbours.clone(),
                links: links[..].into(),
            },
        );
        self.scratch = (out, links);
        Ok(neighbours)
    }

    /// The allowed links between `a` and `b` (`forward`: `a` is the subject), links from `a`
    /// first, each group by predicate, a triple in several graphs once; `None` when neither
    /// end's links were read.
    pub(crate) fn links_between(&self, a: Id, b: Id) -> Option<Vec<Link>> {
        // From `b`'s side, its links in are `a`'s links out.
        let (read, other, out_bit) = match self.adjacency.get(&a) {
            Some(r) => (r, b, 0),
            None => (self.adjacency.get(&b)?, a, BACKWARD),
        };
        let mut found: Vec<Link> = read
            .links
            .iter()
            .filter(|&&(n, _)| n == other)
            .map(|&(_, p)| Link {
                predicate: p & !BACKWARD,
                forward: p & BACKWARD == out_bit,
            })
            .collect();
        found.sort_unstable_by_key(|l| (!l.forward, l.predicate));
        found.dedup();
        Some(found)
    }

    /// Counts a path found, for [`Progress`].
    pub(crate) fn found_path(&self) {
        if let Some(p) = &self.progress {
            p.paths.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether a path may pass through `id` (see [`NodeFilter::admits`]).
    pub(crate) fn admits(&mut self, id: Id) -> Result<bool, Halt> {
        Ok(self.nodes.admits(self.rete, id)?)
    }
}
