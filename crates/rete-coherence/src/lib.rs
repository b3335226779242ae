#![doc = include_str!("../README.md")]

mod engine;
mod logic;
mod markdown;
mod prefixes;
mod render;

pub use markdown::report_markdown;

use rete_core::{CountingReader, RangeReader, ReadStats, Rete};
use rete_http::CountedReader;
use serde::Serialize;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// How much of the file a check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Tier {
    /// The schema block only: unsatisfiable classes, `rdfs:subClassOf` cycles. Touches neither
    /// the dictionary nor the permutations.
    Schema = 0,
    /// Also the `rdf:type`, `owl:sameAs` and `owl:differentFrom` slices: individuals in disjoint
    /// classes (after type propagation), members of unsatisfiable classes, sameAs/differentFrom
    /// clashes.
    Selective = 1,
    /// Also the triples of every property with an axiom: functional, inverse functional,
    /// irreflexive, asymmetric and disjoint-property violations, domain/range-induced clashes.
    Full = 2,
}

impl Tier {
    /// The tier numbered `n` (0, 1 or 2).
    pub fn from_number(n: u8) -> Option<Tier> {
        match n {
            0 => Some(Tier::Schema),
            1 => Some(Tier::Selective),
            2 => Some(Tier::Full),
            _ => None,
        }
    }
}

/// Errors of a check.
#[derive(Debug, thiserror::Error)]
pub enum CoherenceError {
    /// Reading the file failed.
    #[error(transparent)]
    Format(#[from] rete_core::Error),
    /// The schema block is damaged.
    #[error(transparent)]
    Schema(#[from] rete_schema::SchemaError),
    /// The cancel flag was raised.
    #[error("coherence check cancelled")]
    Cancelled,
}

/// The outcome of a check.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The tier that was run (it includes the lower tiers' checks).
    pub tier: u8,
    /// What was found, lower tiers first.
    pub findings: Vec<Finding>,
    /// Bytes read from the file (`0` when not measured, see [`Measure`]).
    pub bytes_read: u64,
    /// Read requests made (`0` when not measured).
    pub requests: u64,
    /// Wall time of the whole check.
    pub elapsed_ms: f64,
    /// The same numbers for each tier that ran.
    pub phases: Vec<Phase>,
    /// `block` when the schema came from the schema block, `triples` when the file has none and
    /// the schema was read from the axiom triples (which needs the dictionary and permutations).
    pub schema_source: String,
    /// Named classes in the schema.
    pub classes: usize,
    /// Whether `bytes_read` and `requests` were measured.
    pub measured: bool,
    /// The prefixes the texts use (`prefix`, `namespace`): declared by the input, well known, or
    /// made up for a namespace the input gave no prefix; `""` only when the input declared it.
    pub prefixes: Vec<(String, String)>,
    /// The findings grouped by root cause (indices into `findings`, which keeps every finding).
    pub groups: Groups,
    /// The files the `.rete` file was built from, as the build recorded them (when the sources
    /// were looked up). The file does not record which input a quad came from: a step's named
    /// graph is its provenance.
    pub inputs: Vec<String>,
    /// The cost of looking up the steps' named graphs and the declared prefixes, done after the
    /// check (not included in `bytes_read`, `requests` or `phases`).
    pub lookup: Lookup,
}

/// The cost of the look-ups that annotate a report (see [`CheckOptions::annotate`]).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Lookup {
    /// Whether the look-ups were made.
    pub done: bool,
    /// Bytes read.
    pub bytes_read: u64,
    /// Requests made.
    pub requests: u64,
    /// Wall time.
    pub elapsed_ms: f64,
}

/// Findings grouped by what causes them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Groups {
    /// Root causes: unsatisfiable classes whose explanation goes through no other unsatisfiable
    /// class (equivalent ones together).
    pub roots: usize,
    /// Unsatisfiable classes that are so because of a root (their explanation goes through it).
    pub derived: usize,
    /// Findings about individuals (Tier 1 and 2).
    pub instance_findings: usize,
    /// One entry per root cause, largest first.
    pub causes: Vec<RootCause>,
    /// Instance findings that share one clash of classes (`disjoint-class-clash`,
    /// `domain-range-clash`), largest first.
    pub clashes: Vec<ClashGroup>,
}

/// A root cause and what follows from it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RootCause {
    /// The `unsatisfiable-class` findings of the root classes (several when they are equivalent);
    /// the first one's explanation is the cause's.
    pub roots: Vec<usize>,
    /// The root classes' IRIs.
    pub classes: Vec<String>,
    /// The `unsatisfiable-class` findings that follow from the root.
    pub derived: Vec<usize>,
    /// The derived classes' IRIs.
    pub derived_classes: Vec<String>,
    /// `unsatisfiable-member` findings of the root's or derived classes.
    pub instances: Vec<usize>,
}

/// Instance findings that share one clash.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClashGroup {
    /// The findings.
    pub findings: Vec<usize>,
    /// The classes of the clash (those the contradiction starts from and the two that conflict).
    pub classes: Vec<String>,
}

/// The cost and yield of one tier.
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    /// Tier number.
    pub tier: u8,
    /// Bytes read during this tier.
    pub bytes_read: u64,
    /// Requests made during this tier.
    pub requests: u64,
    /// Wall time of this tier.
    pub elapsed_ms: f64,
    /// Findings this tier added.
    pub findings: usize,
}

/// One defect with its explanation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// `unsatisfiable-class`, `inconsistent-ontology`, `subclass-cycle`, `disjoint-class-clash`,
    /// `unsatisfiable-member`, `same-different-clash`, `functional-violation`,
    /// `inverse-functional-violation`, `irreflexive-violation`, `asymmetric-violation`,
    /// `domain-range-clash`, `disjoint-property-violation`, or `omitted` (findings over the cap).
    pub kind: String,
    /// `error` (a logical contradiction), `warning` (suspicious, e.g. a functional property with
    /// two resource values, which OWL reads as an `owl:sameAs`), or `info`.
    pub severity: String,
    /// One line for people.
    pub message: String,
    /// IRIs of the classes involved.
    pub classes: Vec<String>,
    /// The individuals involved (N-Triples syntax).
    pub entities: Vec<String>,
    /// The axioms and triples that produce it, in reading order.
    pub explanation: Vec<Step>,
}

/// One axiom or triple of an explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The step, compactly written (`:Relapsed rdfs:subClassOf :Sick`).
    pub text: String,
    /// The triple in N-Triples syntax, when the step is one triple of the data.
    pub triple: Option<[String; 3]>,
    /// The named graphs holding the triple (N-Triples syntax), when the sources were looked up:
    /// in N-Quads or TriG input, the vocabulary or dataset the step comes from.
    pub graphs: Vec<String>,
    /// Whether the default graph holds the triple (when the sources were looked up).
    pub default_graph: bool,
}

/// How a check measures what it reads.
#[derive(Clone, Default)]
pub enum Measure {
    /// Open a second, cold view of the same byte source through a [`CountingReader`] and run on
    /// it: exact bytes and requests, the open's read included, unaffected by the caller's cache.
    #[default]
    FreshView,
    /// Run on the caller's `Rete` (reusing its cache); read counts come from the counted source
    /// the caller opened it with, or are not reported.
    InPlace(Option<CountedReader>),
}

impl std::fmt::Debug for Measure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Measure::FreshView => f.write_str("FreshView"),
            Measure::InPlace(s) => write!(f, "InPlace(counted: {})", s.is_some()),
        }
    }
}

/// Options of [`check_with`].
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// At most this many findings of one kind are listed; the rest are summed up in one
    /// `omitted` finding.
    pub max_findings_per_kind: usize,
    /// How reads are measured.
    pub measure: Measure,
    /// After the check, when there are findings: look up the named graphs of each explanation
    /// step (dictionary and permutation reads) and, in the card, whether the input declared the
    /// default prefix. Its cost is reported apart, in [`Report::lookup`]. Off, no step has a
    /// source and the schema block's prefixes are taken as declared.
    pub annotate: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            max_findings_per_kind: 10_000,
            measure: Measure::FreshView,
            annotate: true,
        }
    }
}

/// Runs the checks of `tier` (and the tiers below) on `rete`, measuring reads through a fresh
/// counting view of the file. Raise `cancel` from another thread to stop it.
pub fn check(rete: &Rete, tier: Tier, cancel: &AtomicBool) -> Result<Report, CoherenceError> {
    check_with(rete, tier, cancel, &CheckOptions::default())
}

/// [`check`] with options.
pub fn check_with(
    rete: &Rete,
    tier: Tier,
    cancel: &AtomicBool,
    opts: &CheckOptions,
) -> Result<Report, CoherenceError> {
    let start = Instant::now();
    match &opts.measure {
        Measure::FreshView => {
            let counter = Arc::new(CountingReader::new(rete.reader().clone()));
            let stats = {
                let c = counter.clone();
                move || c.stats()
            };
            // The view's open is the first read of the check.
            let view = Rete::open(counter as Arc<dyn RangeReader>)?;
            engine::run(
                &view,
                tier,
                cancel,
                opts,
                Some(&stats),
                ReadStats::default(),
                start,
            )
        }
        Measure::InPlace(counted) => {
            let stats = counted.as_ref().map(|c| move || c.stats());
            let f = stats.as_ref().map(|s| s as &dyn Fn() -> ReadStats);
            let base = f.map(|f| f()).unwrap_or_default();
            engine::run(rete, tier, cancel, opts, f, base, start)
        }
    }
}
