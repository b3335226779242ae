//! SHACL validation of an open document (rete-shacl) against a shapes file the user chose, or
//! against the shapes the dataset holds: the summary grouped by shape and constraint component,
//! which the coherence panel's Shapes part lists and highlights on the map.

use super::{AppError, AppResult, Doc};
use crate::model::{RunStatus, ShapesGroup, ShapesOutcome};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// At most this many focus nodes of a group cross to the page (the count says how many in all):
/// they are what `locate` lights up on the map.
pub const FOCUS_NODES_SENT: usize = 500;

impl Doc {
    /// Validates the document's data (the union of its graphs) against the shapes of `shapes`
    /// (a file in any RDF syntax), or against the shapes the dataset itself holds;
    /// `on_progress` hears after each shape and, within one, every tenth of a second.
    pub fn shapes(
        &self,
        shapes: Option<&Path>,
        cancel: Arc<AtomicBool>,
        run: u32,
        on_progress: Option<rete_shacl::ProgressFn>,
    ) -> AppResult<ShapesOutcome> {
        let start = Instant::now();
        let shacl = |e: rete_shacl::Error| match e {
            rete_shacl::Error::Cancelled => AppError::Cancelled("validation cancelled".into()),
            e => AppError::Invalid(e.to_string()),
        };
        let graph = match shapes {
            Some(p) => rete_shacl::read_graph(p),
            None => rete_shacl::dataset_graph(&self.rete),
        }
        .map_err(shacl)?;
        let shapes_graph = rete_shacl::Shapes::from_graph(&graph).map_err(shacl)?;
        let opts = rete_shacl::ValidateOptions {
            cancel: Some(cancel),
            progress: on_progress,
            ..rete_shacl::ValidateOptions::default()
        };
        let (status, summary) = match rete_shacl::validate(&self.rete, &shapes_graph, &opts) {
            Ok(report) => (RunStatus::Ok, Some(rete_shacl::Summary::of(&report))),
            Err(rete_shacl::Error::Cancelled) => (RunStatus::Cancelled, None),
            Err(e) => return Err(shacl(e)),
        };
        let groups = summary
            .as_ref()
            .map(|s| {
                s.groups
                    .iter()
                    .map(|g| ShapesGroup {
                        shape: g.shape.clone(),
                        component: g.component.clone(),
                        severity: g.severity.clone(),
                        path: g.path.clone(),
                        count: g.count as u64,
                        focus_count: g.focus_nodes.len() as u64,
                        focus_nodes: g
                            .focus_nodes
                            .iter()
                            .take(FOCUS_NODES_SENT)
                            .cloned()
                            .collect(),
                        messages: g.messages.iter().take(5).cloned().collect(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(ShapesOutcome {
            run,
            status,
            source: shapes.map_or_else(
                || "the shapes in the file".to_owned(),
                |p| p.display().to_string(),
            ),
            conforms: summary.as_ref().map(|s| s.conforms),
            results: summary.as_ref().map_or(0, |s| s.results as u64),
            groups,
            rules_not_run: shapes_graph.rules_not_run() as u64,
            elapsed_ms: start.elapsed().as_millis() as u64,
        })
    }
}
