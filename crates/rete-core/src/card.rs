//! The dataset card: a JSON summary stored in the file, readable without the dictionary.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Summary of a dataset, written at build time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// Number of distinct quads.
    pub quads: u64,
    /// Number of quads in the default graph.
    pub default_graph_quads: u64,
    /// Number of dictionary terms.
    pub terms: u64,
    /// Distinct subjects.
    pub distinct_subjects: u64,
    /// Distinct predicates.
    pub distinct_predicates: u64,
    /// Distinct objects.
    pub distinct_objects: u64,
    /// Distinct triples: a triple stated in several graphs counts once (`None` in files built
    /// before it was recorded). Equal to `quads` when no triple is in two graphs, so that
    /// counts over every graph are counts of their merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct_triples: Option<u64>,
    /// Named graphs with their quad counts (the default graph is not listed).
    pub graphs: Vec<NamedCount>,
    /// Classes (objects of `rdf:type`) with instance counts, most used first.
    pub classes: Vec<NamedCount>,
    /// Predicates with triple counts, most used first.
    pub predicates: Vec<NamedCount>,
    /// Prefixes declared in the Turtle/TriG inputs (prefix → namespace).
    pub prefixes: BTreeMap<String, String>,
    /// How the file was built.
    pub build: BuildInfo,
    /// xxh3-128 (hex) over the dictionary and the SPOG quads: equal for equal content whatever
    /// the build options.
    pub content_hash: String,
}

/// A term (N-Triples syntax) with a count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedCount {
    /// The term in N-Triples syntax.
    pub term: String,
    /// The count.
    pub count: u64,
}

/// Provenance of a build. Holds no timestamp so that builds are reproducible.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// Tool that wrote the file.
    pub tool: String,
    /// Its version.
    pub version: String,
    /// Inputs in order.
    pub inputs: Vec<InputInfo>,
    /// Options that affect the output.
    pub options: BTreeMap<String, serde_json::Value>,
    /// Whether RDFS/OWL-RL materialization was applied.
    pub materialized: bool,
    /// Quads added by materialization.
    pub inferred_quads: u64,
}

/// One input of a build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputInfo {
    /// Path as given (or `-` for stdin).
    pub name: String,
    /// Syntax it was parsed as.
    pub format: String,
    /// Statements parsed from it (before de-duplication).
    pub statements: u64,
}
