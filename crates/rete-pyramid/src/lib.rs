#![doc = include_str!("../README.md")]

mod builder;
mod coarsen;
mod codec;
mod force;
pub mod graph;
mod holds;
mod human_label;
mod labels;
pub mod lang;
mod layout;
mod louvain;
mod names;
mod read;
mod records;
mod split;
mod stream;
mod summary;
mod tally;

pub use builder::build_sections;
pub use codec::kind;
pub use force::ROUNDS as MEMBER_LAYOUT_ROUNDS;
pub use graph::EntityGraph;
pub use read::Pyramid;
pub use summary::Summary;

use rete_core::extension::{BoxError, Extension, ExtensionOutput};
use rete_core::{Id, Rete};
use serde::{Deserialize, Serialize};

/// Errors of building or reading a pyramid.
#[derive(Debug, thiserror::Error)]
pub enum PyramidError {
    /// The underlying `.rete` file could not be read.
    #[error(transparent)]
    Format(#[from] rete_core::Error),
    /// The caller asked for a level or community that does not exist.
    #[error("{0}")]
    NotFound(String),
    /// Options out of their valid range.
    #[error("invalid pyramid options: {0}")]
    Options(String),
    /// The dataset exceeds what the pyramid supports.
    #[error("dataset too large for the pyramid: {0}")]
    TooLarge(String),
    /// A temporary file of the build (names, spilled links) could not be written or read.
    #[error("pyramid build: {0}")]
    Io(String),
    /// A broken invariant of this crate (a bug, not bad input).
    #[error("internal pyramid error: {0}")]
    Internal(String),
}

rete_core::section_errors!(PyramidError);

impl PyramidError {
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::Internal(message.into())
    }
}

/// How the pyramid is computed.
#[derive(Debug, Clone, PartialEq)]
pub struct PyramidOptions {
    /// At most this many communities on the top level.
    pub max_top: usize,
    /// Louvain resolution of level 0 (1.0 is classic modularity; higher gives smaller
    /// communities).
    pub resolution: f64,
    /// Each coarser level re-runs Louvain at the previous resolution times this factor.
    pub coarsening: f64,
    /// A level has at least about `1 / branching` of the communities of the level below.
    pub branching: usize,
    /// Upper bound on the number of levels (at least 2).
    pub max_levels: usize,
    /// Entities without links are grouped by class into level-0 communities of at most this size.
    pub isolated_group: usize,
    /// Level 0's linked entities a community on average, aimed at: Louvain stops at the pass
    /// that would leave more than this many, and of that pass and the one before keeps the one
    /// whose mean is nearer this in ratio (on the social graphs the one before, on LUBM the
    /// pass itself, which jumps from ~5 a community to ~1,100). Modularity's converged
    /// communities grow with the graph (its resolution limit: ~100 members at 20 k people,
    /// ~3,600 at 12.7 M on the social graph), and a level-0 community is what the app draws
    /// member by member; `usize::MAX`: no bound.
    pub mean_members: usize,
    /// The most children (entities at level 0, communities above) a community may have: a
    /// larger one is split by structure into pieces of at most this many, which form a level
    /// between it and its children (see docs/semantic-zoom.md); `usize::MAX`: no bound.
    pub max_children: usize,
    /// Classes kept in each community's histogram.
    pub max_classes: usize,
    /// Predicates kept per super-edge.
    pub max_predicates: usize,
    /// Force-relaxation rounds when packing sibling circles.
    pub layout_iterations: usize,
    /// Rounds of the force-directed layout of each level-0 community's members by their links,
    /// on the coarsest graph of its coarse-to-fine start (the finer levels get a few each; fewer
    /// for large communities: the work is bounded). [`MEMBER_LAYOUT_ROUNDS`], the default; 0
    /// (`rete build --no-member-layout`): members on the sunflower by degree rank.
    pub member_rounds: usize,
    /// zstd level of the sections (the base build's default too: 12 made the pyramid encode
    /// 40 % slower for 1.7 % smaller member blocks).
    pub zstd_level: i32,
    /// Bytes the pyramid build may hold (about; `rete build --memory-budget`). The entity
    /// graph's edges are held in memory when they take at most half of it; beyond, Louvain's
    /// first pass streams them from the file and continues in memory on the coarse graph.
    pub memory_budget: u64,
    /// Where the build writes its temporary files (entity names, the links of a streamed first
    /// pass); the system's temporary directory when `None` (`rete build --temp-dir`).
    pub temp_dir: Option<std::path::PathBuf>,
}

impl Default for PyramidOptions {
    fn default() -> Self {
        Self {
            max_top: 64,
            resolution: 1.0,
            coarsening: 0.5,
            branching: 8,
            max_levels: 8,
            isolated_group: 1000,
            mean_members: 500,
            max_children: 1000,
            max_classes: 8,
            max_predicates: 3,
            layout_iterations: 60,
            member_rounds: MEMBER_LAYOUT_ROUNDS,
            zstd_level: 6,
            memory_budget: 2 << 30,
            temp_dir: None,
        }
    }
}

impl PyramidOptions {
    /// Checks the ranges of the options.
    pub fn validate(&self) -> Result<(), PyramidError> {
        let bad = |m: &str| Err(PyramidError::Options(m.to_owned()));
        if self.max_top < 1 {
            return bad("max_top must be at least 1");
        }
        if !(self.resolution.is_finite() && self.resolution > 0.0) {
            return bad("resolution must be a positive number");
        }
        if !(self.coarsening > 0.0 && self.coarsening <= 1.0) {
            return bad("coarsening must be in (0, 1]");
        }
        if self.branching < 2 {
            return bad("branching must be at least 2");
        }
        if self.max_levels < 2 {
            return bad("max_levels must be at least 2");
        }
        if self.isolated_group < 1 {
            return bad("isolated_group must be at least 1");
        }
        if self.max_children < 2 {
            return bad("max_children must be at least 2");
        }
        if self.mean_members < 1 {
            return bad("mean_members must be at least 1");
        }
        Ok(())
    }
}

/// The build extension that adds the pyramid sections and sets
/// [`rete_core::format::FLAG_PYRAMID`].
#[derive(Debug, Clone, Default)]
pub struct PyramidExtension {
    /// How the pyramid is computed.
    pub options: PyramidOptions,
}

impl Extension for PyramidExtension {
    fn name(&self) -> &str {
        "pyramid"
    }

    fn flags(&self) -> u32 {
        rete_core::format::FLAG_PYRAMID
    }

    fn sections_with_steps(&self, base: &Rete) -> Result<ExtensionOutput, BoxError> {
        let (sections, stats) = build_sections(base, &self.options)?;
        Ok(ExtensionOutput {
            sections,
            steps: stats.phases,
        })
    }
}

/// One level, or the children of one community: communities and the super-edges among them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// Level number, 0 = finest.
    pub level: u32,
    /// Communities, by id.
    pub communities: Vec<Community>,
    /// Super-edges, by `(source, target)`.
    pub edges: Vec<SuperEdge>,
    /// Modularity of this level's partition of the entity graph.
    pub modularity: f64,
}

/// A community with its place on the map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Community {
    /// Id, unique within its level.
    pub id: u32,
    /// Level.
    pub level: u32,
    /// Community at the next coarser level (`None` on the top level).
    pub parent: Option<u32>,
    /// Number of entities.
    pub size: u64,
    /// What it is, in the reader's languages ([`Pyramid::with_languages`]; see
    /// [`Community::label_for`]): the most central member with a human label (of the dominant
    /// class when one class holds most members, followed by `· N properties` or the like when
    /// vocabulary terms of one kind are a good part of it), `<vocabulary> · N terms` (or
    /// `· N classes`…) when most members are terms of one vocabulary, else
    /// `<dominant class> · N`.
    pub label: String,
    /// The label the builder chose: English or untagged, then any language.
    #[serde(default)]
    pub default_label: String,
    /// The label in other languages, `(lowercase BCP 47 tag, label)` sorted by tag: for each
    /// language, the most central member with a human label in it (files written before label
    /// languages existed have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels_by_language: Vec<(String, String)>,
    /// Most frequent class (N-Triples).
    pub dominant_class: Option<String>,
    /// Classes (N-Triples) with member counts, most frequent first (a bounded number).
    pub classes: Vec<(String, u64)>,
    /// Centre, x.
    pub x: f32,
    /// Centre, y.
    pub y: f32,
    /// Radius; children lie inside this circle.
    pub r: f32,
}

impl Community {
    /// The label for the languages `prefs` (BCP 47 tags, most preferred first): the first
    /// preference with a label (basic filtering, then the tag shortened: `de-CH` finds `de`), else
    /// the builder's label (English or untagged, then any).
    pub fn label_for(&self, prefs: &[&str]) -> &str {
        lang::pick(&self.default_label, &self.labels_by_language, prefs)
    }
}

/// Links between two communities of one level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuperEdge {
    /// Community with the smaller id.
    pub source: u32,
    /// Community with the larger id.
    pub target: u32,
    /// Number of triples linking members of the two.
    pub weight: u64,
    /// Predicates (N-Triples) carrying most of these triples, with counts.
    pub top_predicates: Vec<(String, u64)>,
}

/// An entity of a level-0 community, placed inside the community's circle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// Term id.
    pub id: Id,
    /// The term in N-Triples syntax.
    pub term: String,
    /// Its label (rdfs:label, skos:prefLabel, foaf:name, schema:name, dc titles).
    pub label: Option<String>,
    /// Its primary class (N-Triples): the one with most instances in the dataset.
    pub class: Option<String>,
    /// Position, x.
    pub x: f32,
    /// Position, y.
    pub y: f32,
}

/// Facts about one level, stored in the top section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelInfo {
    /// Level number.
    pub level: u32,
    /// Communities on it.
    pub communities: u64,
    /// Super-edges on it.
    pub super_edges: u64,
    /// Modularity of its partition of the entity graph (at the base resolution).
    pub modularity: f64,
    /// Louvain resolution used to form it.
    pub resolution: f64,
    /// `louvain`, `louvain+merge` or `merge` (forced merges after Louvain stopped merging), or
    /// `split` (the pieces of communities with too many children; see
    /// [`PyramidOptions::max_children`]).
    pub method: String,
}

/// Size of one pyramid section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionSize {
    /// Section kind.
    pub kind: u16,
    /// Human name.
    pub name: String,
    /// Bytes in the file.
    pub stored: u64,
    /// Bytes decoded (equal to `stored` for block sections).
    pub raw: u64,
}

/// What an open pyramid's block cache holds ([`Pyramid::cache_use`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheUse {
    /// Decoded blocks (community records, super-edges, members) held.
    pub blocks: usize,
    /// Their decoded bytes.
    pub bytes: usize,
    /// The most blocks it holds: past it, the least recently used is dropped.
    pub max_blocks: usize,
    /// The most decoded bytes it holds: past them, the least recently used blocks are dropped
    /// (the block just read stays).
    #[serde(default)]
    pub max_bytes: usize,
}

/// What a pyramid build computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyramidStats {
    /// Entities (nodes of the entity graph).
    pub entities: u64,
    /// Distinct linked entity pairs.
    pub edges: u64,
    /// Object triples between entities.
    pub triples: u64,
    /// Levels, finest first.
    pub levels: Vec<LevelInfo>,
    /// Sections written.
    pub sections: Vec<SectionSize>,
    /// Wall time of each phase, milliseconds.
    pub phases: Vec<(String, f64)>,
    /// Peak resident memory of the process at the end of each phase, bytes (Linux; 0 where
    /// unknown): the phase where it grows set the peak.
    pub peak_rss: Vec<(String, u64)>,
    /// Louvain local-moving sweeps streamed from the file because the edges did not fit the
    /// memory budget (0: the entity graph was held in memory).
    pub streamed_sweeps: u32,
    /// Bytes of the graph Louvain held: the entity graph, or the coarse graph when streamed.
    pub graph_bytes: u64,
}
