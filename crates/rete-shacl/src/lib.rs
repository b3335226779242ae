#![doc = include_str!("../README.md")]

mod components;
mod data;
mod error;
mod load;
mod paths;
mod rdf_list;
mod report;
mod shapes;
mod sparql;
mod summary;
mod targets;
mod validate;
mod values;
pub mod vocab;

pub use error::{Error, Result};
pub use load::{dataset_graph, format_of, parse_graph, read_graph};
pub use oxrdfio::RdfFormat;
pub use paths::Path;
pub use report::{Report, ValidationResult};
pub use shapes::{Bound, Constraint, NodeKind, Shape, ShapeId, Shapes, Target};
pub use sparql::{ComponentConstraint, SparqlConstraint, SparqlQuery, ValidatorQuery};
pub use summary::{Group, Summary};

use rete_core::Rete;
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Where a validation is, reported after each shape with targets and, within one, after a
/// focus node once [`ValidateOptions::progress_interval`] has passed since the last report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Shapes with targets validated so far.
    pub shapes_done: usize,
    /// Shapes with targets in all.
    pub shapes_total: usize,
    /// Focus nodes validated so far (all shapes).
    pub focus_nodes_done: u64,
    /// Focus nodes of the shape being validated, and how many of them are done.
    pub shape_focus_nodes: u64,
    /// Of [`Progress::shape_focus_nodes`], how many are done.
    pub shape_focus_nodes_done: u64,
    /// Results so far.
    pub results: usize,
}

/// Within a shape, progress is reported at most this often: by time, not by a count of focus
/// nodes, since a focus node takes a microsecond on a core constraint and seconds on a costly
/// SPARQL one.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Options of [`validate`].
#[derive(Clone)]
pub struct ValidateOptions {
    /// Set it to stop the validation: [`validate`] then returns [`Error::Cancelled`]. Checked
    /// before each focus node.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Called after each shape with targets, and within one after a focus node once
    /// `progress_interval` has passed since the last call.
    pub progress: Option<ProgressFn>,
    /// How often `progress` hears within a shape ([`PROGRESS_INTERVAL`] by default).
    pub progress_interval: Duration,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        Self {
            cancel: None,
            progress: None,
            progress_interval: PROGRESS_INTERVAL,
        }
    }
}

impl fmt::Debug for ValidateOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidateOptions")
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("progress_interval", &self.progress_interval)
            .finish()
    }
}

/// Validates the data of `rete` (the union of its graphs) against `shapes`.
pub fn validate(rete: &Rete, shapes: &Shapes, opts: &ValidateOptions) -> Result<Report> {
    validate::run(data::DataGraph::new(rete), shapes, opts)
}
