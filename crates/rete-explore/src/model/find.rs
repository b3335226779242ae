//! The protocol's types of the search box (hits, where all the matches sit) and of the paths
//! between two entities.

use super::{HitKind, TermView};
use serde::Serialize;

/// One search hit, with what the map needs to go to it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SearchHit {
    /// 1 for the best.
    pub rank: usize,
    /// Its term id in the file (0: not in the dictionary).
    pub id: u64,
    /// The term in N-Triples syntax.
    pub nt: String,
    /// What it is.
    pub kind: HitKind,
    /// The label that matched.
    pub label: String,
    /// The label's language, if it has one.
    pub lang: Option<String>,
    /// Its most specific class (N-Triples), for the legend's colour.
    pub class: Option<String>,
    /// That class, shortened.
    pub class_label: Option<String>,
    /// The communities holding it, top level first (map keys); empty when it is not on the map.
    pub path: Vec<String>,
}

/// The answer of the search box.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SearchView {
    /// Hits, best first.
    pub hits: Vec<SearchHit>,
    /// Whether the file's search index answered (`false`: its labels were scanned, slower).
    pub indexed: bool,
    /// Whether the index is of an older layout (slower than the current one, which adding the
    /// index again writes).
    pub outdated: bool,
}

/// How many matches a community of the map holds.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CommunityCount {
    /// The community's map key (`c<level>:<id>`).
    pub key: String,
    /// Matched entities in it.
    pub count: u64,
}

/// Where all the matches of a search are on the map ("Show all matches").
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SpreadView {
    /// The text searched.
    pub text: String,
    /// Entities matched.
    pub entities: u64,
    /// Of them, those in the pyramid (the map's communities hold them).
    pub placed: u64,
    /// Classes and predicates matched (the legend and the schema hold them).
    pub schema_terms: u64,
    /// Every community holding matches, on every level, top level first, then most matches
    /// first.
    pub communities: Vec<CommunityCount>,
    /// The matched entities' map keys (`e:<id>`), when at most [`crate::engine::MAX_SPREAD_KEYS`]
    /// (else empty: the communities still show where they are).
    pub entity_keys: Vec<String>,
    /// Whether the counts are exact (`false`: a word so common that only its most important
    /// labels were read: the counts are lower bounds).
    pub complete: bool,
}

/// One link of a path's step: its predicate, and whether it points along the path.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PathLinkView {
    /// The predicate.
    pub predicate: TermView,
    /// `true`: the step's first entity is the link's subject; `false`: its object.
    pub forward: bool,
}

/// One step of a path: the links between two consecutive entities.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PathStepView {
    /// The links (at least one).
    pub links: Vec<PathLinkView>,
    /// Links between the same two entities left out.
    pub more_links: usize,
}

/// One path between two entities.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PathView {
    /// Links along it.
    pub hops: usize,
    /// The entities along it, both ends included.
    pub nodes: Vec<TermView>,
    /// `steps[i]` joins `nodes[i]` and `nodes[i + 1]`.
    pub steps: Vec<PathStepView>,
}

/// How two entities are connected: the shortest paths first.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PathsView {
    /// The paths, shortest first.
    pub paths: Vec<PathView>,
    /// Why the search ended: `found`, `exhausted`, `hop_limit`, `visited_limit`, `deadline` or
    /// `cancelled`.
    pub stop: String,
    /// The same for people ("no other path within 6 hops").
    pub reason: String,
    /// Wall time of the search.
    pub elapsed_ms: f64,
}
