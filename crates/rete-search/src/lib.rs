#![doc = include_str!("../README.md")]

mod build;
mod by_iri;
mod codec;
mod collect;
mod compound;
pub mod fuzzy;
mod lead_runs;
mod merge;
pub mod normalize;
mod places;
mod postings;
mod query;
mod read;
mod reindex;
mod scan;
mod spread;
mod ticker;
mod tier;
mod token_blocks;

pub use build::{build_sections, build_sections_with, BuildStats};
pub use codec::kind;
pub use read::Index;
pub use reindex::{add_index, add_index_with};
pub use spread::{Spread, MAX_SPREAD_DOCUMENTS};

use lru::LruCache;
use rete_core::extension::{BoxError, Extension, ExtensionOutput};
use rete_core::Id;
use rete_core::Rete;
use rete_pyramid::Pyramid;
use serde::{Deserialize, Serialize};
use std::num::NonZeroUsize;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, OnceLock};

/// Header flag bit of a file with a search index (bits 1–8 are `rete_core::format::FLAG_*`).
pub const FLAG_SEARCH: u32 = 16;
/// Classes kept per indexed term (most specific first).
pub const MAX_CLASSES: usize = 8;
/// Label word counts are stored up to this value (enough to tell a whole-label match).
pub const MAX_NTOK: usize = 7;
/// Query words used at most (the rest are ignored).
pub const MAX_QUERY_WORDS: usize = 8;
/// Upper bound on [`Query::limit`].
pub const MAX_LIMIT: usize = 1000;

/// The label predicates indexed by default, in the order their labels are preferred.
pub const DEFAULT_LABEL_PREDICATES: [&str; 11] = [
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://www.w3.org/2000/01/rdf-schema#label",
    "http://xmlns.com/foaf/0.1/name",
    "http://schema.org/name",
    "https://schema.org/name",
    "http://purl.org/dc/terms/title",
    "http://purl.org/dc/elements/1.1/title",
    "http://www.w3.org/2004/02/skos/core#altLabel",
    "http://www.w3.org/2004/02/skos/core#hiddenLabel",
    "http://schema.org/alternateName",
    "http://www.w3.org/2008/05/skos-xl#literalForm",
];

/// Errors of building or reading a search index, or of a query.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The underlying `.rete` file could not be read.
    #[error(transparent)]
    Format(#[from] rete_core::Error),
    /// The query names a class the file does not have.
    #[error("unknown class {0}: no such term in the file")]
    UnknownClass(String),
    /// The query asks for a community but the file has no community pyramid.
    #[error("the file has no community pyramid: a search within a community needs one")]
    NoPyramid,
    /// Reading the community pyramid failed.
    #[error(transparent)]
    Pyramid(#[from] rete_pyramid::PyramidError),
    /// The operation needs the file's search index, which it does not have.
    #[error("the file has no search index: showing all matches needs one (rete index FILE -o NEW adds it)")]
    NoIndex,
    /// The cancel flag was raised.
    #[error("search cancelled")]
    Cancelled,
    /// Options out of their valid range.
    #[error("invalid search options: {0}")]
    Options(String),
    /// The index does not fit the build's limits.
    #[error("search index too large: {0}")]
    TooLarge(String),
    /// A broken invariant of this crate (a bug, not bad input).
    #[error("internal search error: {0}")]
    Internal(String),
}

rete_core::section_errors!(SearchError);

/// What an indexed term is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Anything that is neither a class nor a predicate.
    Entity = 0,
    /// An object of `rdf:type`, or a subject typed `owl:Class` / `rdfs:Class`.
    Class = 1,
    /// A predicate in use, or a subject typed as a property.
    Predicate = 2,
}

impl Kind {
    pub(crate) fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Entity),
            1 => Some(Self::Class),
            2 => Some(Self::Predicate),
            _ => None,
        }
    }
}

impl std::str::FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "entity" => Ok(Self::Entity),
            "class" => Ok(Self::Class),
            "predicate" => Ok(Self::Predicate),
            _ => Err(format!(
                "unknown kind {s:?} (expected entity, class or predicate)"
            )),
        }
    }
}

/// How a hit's label matched the query, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Match {
    /// The whole label is the query's words.
    WholeLabel,
    /// Every query word is a whole word of the label.
    Exact,
    /// Every query word is a word or the start of one (the label has no other word).
    WholePrefix,
    /// Every query word is a word or the start of one.
    Prefix,
    /// At least one word matched with typos.
    Fuzzy,
}

/// Restricts a search to one community of the pyramid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Within {
    /// Pyramid level (0 = finest).
    pub level: u32,
    /// Community id at that level.
    pub community: u32,
}

impl Within {
    /// Whether a term with community path `path` (finest level first) lies in this community.
    pub(crate) fn holds(&self, path: Option<&Vec<u32>>) -> bool {
        path.and_then(|p| p.get(self.level as usize))
            .is_some_and(|&c| c == self.community)
    }
}

/// A search: text and filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// What the user typed: words in any order, each matched as a word prefix.
    pub text: String,
    /// Only terms of this kind.
    pub kind: Option<Kind>,
    /// Only instances of this class (an IRI, without angle brackets).
    pub class: Option<String>,
    /// Preferred label languages (BCP 47), most preferred first: their labels rank first.
    pub languages: Vec<String>,
    /// At most this many hits (capped at [`MAX_LIMIT`]).
    pub limit: usize,
    /// Only entities in this community.
    pub within: Option<Within>,
    /// Only labels of this predicate (an IRI; SPARQL's `text:query (rdfs:label 'text')`).
    #[serde(default)]
    pub label_predicate: Option<String>,
}

impl Query {
    /// A query for `text` with no filter and 10 hits.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            kind: None,
            class: None,
            languages: Vec::new(),
            limit: 10,
            within: None,
            label_predicate: None,
        }
    }
}

/// One result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// 1 for the best.
    pub rank: usize,
    /// The term in N-Triples syntax (`<iri>` or `_:b`).
    pub term: String,
    /// What the term is.
    pub kind: Kind,
    /// The label that matched.
    pub label: String,
    /// Its language tag, if any.
    pub lang: Option<String>,
    /// The predicate the label comes from (an IRI), or `None` for the IRI's local name.
    pub source: Option<String>,
    /// How it matched.
    #[serde(rename = "match")]
    pub matched: Match,
    /// The term's most specific class (N-Triples), if it has one.
    pub class: Option<String>,
    /// Its community at every pyramid level, finest first; `None` when the file has no pyramid
    /// or the term is not in its entity graph.
    pub path: Option<Vec<u32>>,
}

/// The answer to a [`Query`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Hits, best first.
    pub hits: Vec<Hit>,
    /// Whether the file's search index answered (`false`: its labels were scanned).
    pub indexed: bool,
}

/// How the index is built.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// Predicates whose literal objects are labels (IRIs), in order of preference.
    pub label_predicates: Vec<String>,
    /// Whether the local names of unlabelled IRIs are indexed (those of classes and predicates
    /// always are).
    pub local_names: bool,
    /// Bytes the build may hold, about (`rete build --memory-budget`).
    pub memory_budget: u64,
    /// zstd level of the blocks.
    pub zstd_level: i32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            label_predicates: DEFAULT_LABEL_PREDICATES.map(str::to_owned).to_vec(),
            local_names: true,
            memory_budget: 2 << 30,
            zstd_level: 6,
        }
    }
}

/// The build extension that adds the search sections and sets [`FLAG_SEARCH`].
#[derive(Debug, Clone, Default)]
pub struct SearchExtension {
    /// How the index is built.
    pub options: SearchOptions,
}

impl Extension for SearchExtension {
    fn name(&self) -> &str {
        "search"
    }

    fn flags(&self) -> u32 {
        FLAG_SEARCH
    }

    fn sections_with_steps(&self, base: &Rete) -> Result<ExtensionOutput, BoxError> {
        let (sections, stats) = build_sections(base, &self.options)?;
        Ok(ExtensionOutput {
            sections,
            steps: stats.steps,
        })
    }
}

/// Searches one open file: through its index when it has one, else by scanning its labels.
/// Cheap to share between threads.
#[derive(Debug)]
pub struct Searcher {
    rete: Rete,
    index: Option<Index>,
    pyramid: OnceLock<Option<Pyramid>>,
    /// Community paths of recent hits: a path is found by scanning a membership block, which
    /// costs more than the rest of a keystroke, and consecutive keystrokes show the same hits.
    paths: Mutex<LruCache<Id, Option<Vec<u32>>>>,
}

/// Community paths kept per searcher.
const CACHE_PATHS: usize = 4096;

impl Searcher {
    /// Opens the search index of `rete` (one read: its meta section), if it has one.
    pub fn open(rete: &Rete) -> Result<Self, SearchError> {
        Ok(Self {
            rete: rete.clone(),
            index: Index::open(rete)?,
            pyramid: OnceLock::new(),
            paths: Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHE_PATHS).unwrap_or(NonZeroUsize::MIN),
            )),
        })
    }

    /// Whether the file has a search index (else searches scan the labels).
    pub fn is_indexed(&self) -> bool {
        self.index.is_some()
    }

    /// The index, if the file has one.
    pub fn index(&self) -> Option<&Index> {
        self.index.as_ref()
    }

    /// Answers `q`; a text that is an IRI (`<…>`, `https://…`, `urn:…`) or a prefixed name of a
    /// term of the file finds that term. A raised `cancel` stops a label scan with
    /// [`SearchError::Cancelled`].
    pub fn search(&self, q: &Query, cancel: &AtomicBool) -> Result<Answer, SearchError> {
        // A pasted IRI or prefixed name: that term.
        if let Some(answer) = by_iri::search(self, q)? {
            return Ok(answer);
        }
        query::run(self, q, cancel)
    }

    /// Where all the matches of `q` are: every entity whose labels match its words (the hits the
    /// typeahead would give with no limit; typos only when nothing matches as typed), counted per
    /// community on every pyramid level, for the map to light. Needs the index
    /// ([`SearchError::NoIndex`] without one); `q.limit` and `q.languages` play no part. A raised
    /// `cancel` stops it with [`SearchError::Cancelled`].
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use rete_search::{Query, Searcher};
    /// use std::sync::atomic::AtomicBool;
    /// let rete = rete_core::Rete::open_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/social-1k.rete"))?;
    /// let spread = Searcher::open(&rete)?.spread(&Query::new("ada"), &AtomicBool::new(false))?;
    /// // Every community on the top level holding a match, and how many it holds.
    /// let top = spread.levels.last().map_or(&[][..], Vec::as_slice);
    /// assert_eq!(top.iter().map(|c| c.1).sum::<u64>(), spread.placed.len() as u64);
    /// # Ok(())
    /// # }
    /// ```
    pub fn spread(&self, q: &Query, cancel: &AtomicBool) -> Result<Spread, SearchError> {
        spread::run(self, q, cancel)
    }

    pub(crate) fn rete(&self) -> &Rete {
        &self.rete
    }

    /// The community path of `term` in the pyramid, if the file has one and the term is in it.
    pub(crate) fn community_path(&self, term: Id) -> Result<Option<Vec<u32>>, SearchError> {
        Ok(self.community_paths(&[term])?.pop().flatten())
    }

    /// The community paths of `terms`, in their order: those not kept from recent hits are read
    /// together (their membership blocks in one batch).
    pub(crate) fn community_paths(
        &self,
        terms: &[Id],
    ) -> Result<Vec<Option<Vec<u32>>>, SearchError> {
        let lock = || self.paths.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<Option<Option<Vec<u32>>>> = {
            let mut kept = lock();
            terms.iter().map(|t| kept.get(t).cloned()).collect()
        };
        let missing: Vec<Id> = terms
            .iter()
            .zip(&out)
            .filter(|(_, p)| p.is_none())
            .map(|(&t, _)| t)
            .collect();
        if !missing.is_empty() {
            let paths = match self.pyramid()? {
                Some(p) => p.community_paths(&missing)?,
                None => vec![None; missing.len()],
            };
            let mut kept = lock();
            let mut found = missing.iter().zip(paths);
            for slot in out.iter_mut().filter(|p| p.is_none()) {
                if let Some((&t, path)) = found.next() {
                    kept.put(t, path.clone());
                    *slot = Some(path);
                }
            }
        }
        Ok(out.into_iter().map(Option::flatten).collect())
    }

    /// The file ranges that [`Self::community_paths`] of `terms` would read now (see
    /// [`Pyramid::membership_ranges`]).
    pub(crate) fn path_ranges(&self, terms: &[Id]) -> Result<Vec<(u64, usize)>, SearchError> {
        let missing: Vec<Id> = {
            let kept = self.paths.lock().unwrap_or_else(|p| p.into_inner());
            terms
                .iter()
                .copied()
                .filter(|t| !kept.contains(t))
                .collect()
        };
        Ok(match self.pyramid()? {
            Some(p) if !missing.is_empty() => p.membership_ranges(&missing)?,
            _ => Vec::new(),
        })
    }

    pub(crate) fn pyramid(&self) -> Result<Option<&Pyramid>, SearchError> {
        if let Some(p) = self.pyramid.get() {
            return Ok(p.as_ref());
        }
        let p = Pyramid::open(&self.rete)?;
        Ok(self.pyramid.get_or_init(|| p).as_ref())
    }
}
