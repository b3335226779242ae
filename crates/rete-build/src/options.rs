//! What a caller gives a build and gets back: its options, the progress and cancellation sink,
//! and the report. Kept apart from the phases so the interface reads on its own.

use crate::{BuildError, Extension, Inference, Input};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Progress reporting and cancellation; the CLI draws bars with it, the app a progress bar,
/// libraries stay silent.
///
/// A build announces its phases with [`start`](Progress::start), in this order:
///
/// | phase | `total` | `inc(n)` counts |
/// |---|---|---|
/// | `"parse"` | bytes of all inputs as stored (compressed size for `.gz`/`.zst`), `None` if one is unknown (stdin) | quads parsed, every 65,536 |
/// | `"dictionary"` | terms to merge: the distinct terms, counted once per spilled chunk holding them | — |
/// | `"sort"` | 6 (permutations) | permutations sorted |
/// | `"permutations"` | 6 | permutations written |
/// | each extension's [`Extension::name`] (`"pyramid"`, `"schema"`) | `None` | — |
/// | `"write"` | `None` | — |
///
/// With materialization, `"inference (<name>)"` follows the first `"permutations"`, then
/// `"parse"` to `"permutations"` run again on the materialized data. During `"parse"`,
/// [`parsed_bytes`](Progress::parsed_bytes) reports the bytes read so far (same unit as `total`),
/// so a UI can show a fraction and estimate the time left.
pub trait Progress: Send + Sync {
    /// A phase begins, with its amount of work if known (see the table above).
    fn start(&self, phase: &str, total: Option<u64>);
    /// Work was done in the current phase.
    fn inc(&self, n: u64);
    /// The phase ended.
    fn finish(&self);
    /// During `"parse"`: bytes of the inputs read so far, cumulative over inputs (same unit as
    /// the phase's `total`). Called along with `inc`.
    fn parsed_bytes(&self, _bytes: u64) {}
    /// Polled by the build (every 65,536 quads and before every read of an input while parsing,
    /// so one statement that never ends stops too; between phases and
    /// permutations, around each extension and before writing); when it returns `true` the
    /// build stops with [`BuildError::Cancelled`], removing its temp files and writing no output.
    fn cancelled(&self) -> bool {
        false
    }
}

/// `Err(Cancelled)` when the progress sink asks to stop.
pub(crate) fn check_cancel(progress: &dyn Progress) -> Result<(), BuildError> {
    if progress.cancelled() {
        Err(BuildError::Cancelled)
    } else {
        Ok(())
    }
}

/// A [`Progress`] that reports nothing.
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: Option<u64>) {}
    fn inc(&self, _: u64) {}
    fn finish(&self) {}
}

/// What to build and how.
#[derive(Clone)]
pub struct BuildOptions {
    /// Inputs, merged into one dataset.
    pub inputs: Vec<Input>,
    /// Base IRI for relative IRIs (Turtle, TriG, RDF/XML).
    pub base_iri: Option<String>,
    /// Memory for the parse, dictionary, sort and permutation phases (interned terms, buffered
    /// quads, sort runs); above it they spill to `temp_dir`. Extensions get it too.
    pub memory_budget: usize,
    /// Where temporary files go (default: next to the output).
    pub temp_dir: Option<PathBuf>,
    /// zstd level of blocks.
    pub zstd_level: i32,
    /// Target raw size of a dictionary block.
    pub dict_block_bytes: usize,
    /// Target raw size of a dictionary block when the blocks share a trained zstd dictionary.
    pub trained_dict_block_bytes: usize,
    /// The dictionary's raw size (its front-coded terms' bytes) from which its blocks share a zstd
    /// dictionary trained on them (format 1.2); `u64::MAX`: never.
    pub train_dict_above: u64,
    /// Quads per permutation block.
    pub perm_block_quads: usize,
    /// Sections added after the base dataset is built.
    pub extensions: Vec<Arc<dyn Extension>>,
    /// Materialization applied before the final build.
    pub inference: Option<Arc<dyn Inference>>,
    /// Progress sink.
    pub progress: Arc<dyn Progress>,
    /// Extra options recorded in the card (e.g. what the CLI was asked).
    pub recorded_options: BTreeMap<String, serde_json::Value>,
}

impl std::fmt::Debug for BuildOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildOptions")
            .field("inputs", &self.inputs)
            .field("base_iri", &self.base_iri)
            .field("memory_budget", &self.memory_budget)
            .field("zstd_level", &self.zstd_level)
            .field(
                "extensions",
                &self
                    .extensions
                    .iter()
                    .map(|e| e.name().to_owned())
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            inputs: Vec::new(),
            base_iri: None,
            memory_budget: 2 << 30,
            temp_dir: None,
            zstd_level: 6,
            dict_block_bytes: 16 << 10,
            trained_dict_block_bytes: 4 << 10,
            train_dict_above: 1 << 20,
            perm_block_quads: 4096,
            extensions: Vec::new(),
            inference: None,
            progress: Arc::new(NoProgress),
            recorded_options: BTreeMap::new(),
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BuildReport {
    /// Distinct quads stored.
    pub quads: u64,
    /// Terms stored.
    pub terms: u64,
    /// Size of the file.
    pub file_bytes: u64,
    /// Quads added by inference.
    pub inferred_quads: u64,
    /// Spill files written (0 when everything fit the memory budget).
    pub spilled_runs: usize,
    /// Wall time of each phase in milliseconds.
    pub phases: Vec<(String, f64)>,
    /// Wall time of the steps inside extension phases, milliseconds, named
    /// `extension/step` (`pyramid/louvain`…), in the order they ran.
    pub steps: Vec<(String, f64)>,
    /// Peak resident memory of the process during each phase, bytes (sampled `VmRSS` every
    /// 5 ms on Linux; 0 elsewhere): tells which phase holds the most.
    pub peak_rss: Vec<(String, u64)>,
    /// Bytes written to spill files by each phase of the base build (`parse`, `dictionary`,
    /// `sort`, `permutations`; with materialization also the `(materialized)` ones).
    pub spill_bytes: Vec<(String, u64)>,
    /// Largest number of spill bytes on disk at once (the dictionary and permutation files
    /// being written, which become the output, are not counted).
    pub peak_spill_bytes: u64,
    /// Sorted dictionary runs spilled (one per chunk of terms; 0 when the terms fit).
    pub dictionary_runs: usize,
    /// Chunks of parsed quads spilled (as many as dictionary runs).
    pub quad_runs: usize,
    /// Sorted permutation runs spilled (over the six permutations).
    pub permutation_runs: usize,
    /// The six permutations' keys did not fit the sort's share of the budget together but one
    /// permutation's did: each was sorted in memory on every thread and written before the
    /// next, and none spilled.
    pub permutations_one_at_a_time: bool,
}
