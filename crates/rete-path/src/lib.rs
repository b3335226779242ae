#![doc = include_str!("../README.md")]

mod bfs;
mod decode;
mod error;
mod filter;
mod graph;
mod kpaths;
mod steps;

pub use decode::{DecodedLink, DecodedPath, DecodedReport, DecodedStep};
pub use error::PathError;
pub use filter::{is_schema_predicate, SCHEMA_PREDICATES};
pub use steps::MAX_LINKS_PER_STEP;

use oxrdf::{NamedNode, Term, TermRef};
use rete_core::{Id, Rete, TermKind};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The largest `k` accepted.
pub const MAX_K: usize = 1000;
/// The largest `max_hops` accepted.
pub const MAX_HOPS: u32 = 12;

/// What a path search may use and how long it may run.
#[derive(Debug, Clone)]
pub struct PathOptions {
    /// How many paths, shortest first (1 to [`MAX_K`]; default 5).
    pub k: usize,
    /// At most this many links per path (1 to [`MAX_HOPS`]; default 6).
    pub max_hops: u32,
    /// Only links with these predicates, when not empty (schema predicates included if named).
    pub via: Vec<NamedNode>,
    /// Never links with these predicates.
    pub without: Vec<NamedNode>,
    /// Also follow schema links (`rdf:type`, `rdfs:subClassOf`, `rdfs:subPropertyOf`,
    /// `rdfs:domain`, `rdfs:range`, `owl:*` but `owl:sameAs`), left out by default. Paths then
    /// never pass through the terms of RDF itself (`rdf:`, `rdfs:`, `owl:`, `xsd:`) or SHACL
    /// (the two endpoints are exempt): through `owl:Class` or `owl:Thing` any two classes are
    /// linked.
    pub include_schema: bool,
    /// Paths never pass through instances of these classes.
    pub without_classes: Vec<NamedNode>,
    /// Paths never pass through entities with more links than this (as subject plus as object,
    /// all predicates); the two endpoints are exempt.
    pub max_degree: Option<u64>,
    /// At most this many neighbour entries held in memory (about 40 bytes each); beyond it the
    /// search stops with [`Stop::VisitedLimit`].
    pub max_visited: usize,
    /// Stop with [`Stop::Deadline`] at this instant, keeping the paths found so far.
    pub deadline: Option<Instant>,
    /// Set to stop with [`Stop::Cancelled`] (from another thread).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Counters another thread can read while the search runs.
    pub progress: Option<Arc<Progress>>,
}

impl Default for PathOptions {
    fn default() -> Self {
        Self {
            k: 5,
            max_hops: 6,
            via: Vec::new(),
            without: Vec::new(),
            include_schema: false,
            without_classes: Vec::new(),
            max_degree: None,
            max_visited: 4_000_000,
            deadline: None,
            cancel: None,
            progress: None,
        }
    }
}

/// Live counters of a running search.
#[derive(Debug, Default)]
pub struct Progress {
    /// Entities whose links have been read.
    pub expanded: AtomicU64,
    /// Paths found so far.
    pub paths: AtomicU64,
}

impl Progress {
    /// `(expanded, paths)` now.
    pub fn snapshot(&self) -> (u64, u64) {
        (
            self.expanded.load(Ordering::Relaxed),
            self.paths.load(Ordering::Relaxed),
        )
    }
}

/// Why a search ended. With fewer than `k` paths, the reason there are not more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// `k` paths were found.
    Found,
    /// No other path exists at any length (under the filters).
    Exhausted,
    /// No other path within `max_hops` links; longer ones may exist.
    HopLimit,
    /// The memory cap ([`PathOptions::max_visited`]) was reached.
    VisitedLimit,
    /// The deadline passed.
    Deadline,
    /// The search was cancelled.
    Cancelled,
}

impl Stop {
    /// A sentence for people, after `found` paths.
    pub fn describe(self, opts: &PathOptions, found: usize) -> String {
        let other = if found == 0 { "" } else { " other" };
        // In an ontology nearly every link is a schema link, left out unless asked for: without
        // saying so, "no path" between two classes reads as if they were unrelated.
        let schema = if found == 0 && !opts.include_schema && opts.via.is_empty() {
            "; schema links (rdf:type, rdfs:subClassOf, rdfs:domain, rdfs:range, owl:*) were not followed"
        } else {
            ""
        };
        match self {
            Stop::Found => format!("found the {} asked for", opts.k),
            Stop::Exhausted => format!("no{other} path exists (under the filters){schema}"),
            Stop::HopLimit => format!("no{other} path within {} hops{schema}", opts.max_hops),
            Stop::VisitedLimit => format!(
                "stopped at the memory limit ({} neighbour entries held)",
                opts.max_visited
            ),
            Stop::Deadline => "stopped at the deadline".into(),
            Stop::Cancelled => "cancelled".into(),
        }
    }
}

/// One link of a step: a triple of the file joining the step's two entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Link {
    /// The predicate's dictionary id (valid for this file).
    pub predicate: Id,
    /// Whether the link points along the path (the step's first entity is its subject) or
    /// against it.
    pub forward: bool,
}

/// One step of a path: the links joining two consecutive entities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The allowed links between them, either way: those along the path first, each group by
    /// predicate id (at least one; at most [`MAX_LINKS_PER_STEP`]).
    pub links: Vec<Link>,
    /// Links left out of `links` beyond [`MAX_LINKS_PER_STEP`].
    pub more_links: usize,
}

/// One simple path, as dictionary ids (valid for this file): [`PathReport::decode`] writes its
/// terms out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Path {
    /// Number of links.
    pub hops: usize,
    /// The entities along it, endpoints included.
    pub ids: Vec<Id>,
    /// The steps: `steps[i]` joins `ids[i]` and `ids[i + 1]`.
    pub steps: Vec<Step>,
}

/// What the search did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SearchStats {
    /// Entities whose links were read.
    pub expanded: u64,
    /// Neighbour entries held in memory at the end.
    pub held: u64,
    /// Searches run: the first (one in all when there are `k` paths of the shortest length),
    /// then one enumeration per longer length.
    pub searches: u64,
    /// Entities the walks over longer lengths (within the hop limit) stepped on, each tried as
    /// the next on a path: the enumeration's work beside its reads.
    pub steps: u64,
    /// Wall time in milliseconds.
    pub millis: f64,
}

/// The answer of [`find_paths`]: the paths as ids, which a caller shows as it shows terms
/// (the app through its term views); [`PathReport::decode`] writes them out in N-Triples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathReport {
    /// The start's dictionary id.
    pub from: Id,
    /// The end's.
    pub to: Id,
    /// The paths, shortest first.
    pub paths: Vec<Path>,
    /// Why the search ended.
    pub stop: Stop,
    /// [`Stop::describe`] of `stop`.
    pub reason: String,
    /// What the search did.
    pub stats: SearchStats,
}

fn check_options(opts: &PathOptions) -> Result<(), PathError> {
    if opts.k == 0 || opts.k > MAX_K {
        return Err(PathError::BadK {
            k: opts.k,
            max: MAX_K,
        });
    }
    if opts.max_hops == 0 || opts.max_hops > MAX_HOPS {
        return Err(PathError::BadHops {
            hops: opts.max_hops,
            max: MAX_HOPS,
        });
    }
    Ok(())
}

/// The id of an endpoint, which must be an entity of the file.
fn endpoint(rete: &Rete, t: TermRef<'_>) -> Result<Id, PathError> {
    if let TermRef::Literal(_) = t {
        return Err(PathError::LiteralEndpoint(t.to_string()));
    }
    rete.id_of(t)?
        .ok_or_else(|| PathError::UnknownEntity(t.to_string()))
}

/// The `k` shortest simple paths between `from` and `to`, over links in either direction.
///
/// Limits reached (hops, memory, deadline, cancel) are answers: the report keeps the paths found
/// and says which limit stopped the search. Bad input and failed reads are errors.
pub fn find_paths(
    rete: &Rete,
    from: TermRef<'_>,
    to: TermRef<'_>,
    opts: &PathOptions,
) -> Result<PathReport, PathError> {
    let start = Instant::now();
    check_options(opts)?;
    if rete.reader().is_remote() {
        // Every lookup the search starts with (the two ends, the filters' terms, where the
        // literals begin) in one batch: two requests instead of two each.
        let mut terms = vec![from.into_owned(), to.into_owned()];
        terms.extend(filter::lookups(rete, opts)?);
        let refs: Vec<TermRef<'_>> = terms.iter().map(Term::as_ref).collect();
        rete.prefetch_lookups(&refs, &[TermKind::SimpleLiteral])?;
    }
    let a = endpoint(rete, from)?;
    let b = endpoint(rete, to)?;
    if a == b {
        return Err(PathError::SameEntity(from.to_string()));
    }
    let mut g = graph::Graph::new(rete, opts)?;
    let found = kpaths::k_shortest(&mut g, a, b, opts.k, opts.max_hops)?;
    let mut paths: Vec<Path> = Vec::with_capacity(found.paths.len());
    for ids in found.paths {
        paths.push(Path {
            hops: ids.len() - 1,
            steps: ids
                .windows(2)
                .map(|w| steps::step(&mut g, w[0], w[1]))
                .collect::<Result<_, _>>()?,
            ids,
        });
    }
    let reason = found.stop.describe(opts, paths.len());
    Ok(PathReport {
        from: a,
        to: b,
        paths,
        stop: found.stop,
        reason,
        stats: SearchStats {
            expanded: g.expanded,
            held: g.held() as u64,
            searches: found.searches,
            steps: found.steps,
            millis: start.elapsed().as_secs_f64() * 1e3,
        },
    })
}
