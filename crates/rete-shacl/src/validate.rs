//! The validation loop: each shape with targets over its focus nodes, each constraint over the
//! value nodes; nested shapes (`sh:node`, `sh:not`, …) are checked for conformance only, with a
//! guard against recursion.

use crate::components::{self, Context, Focus, Sink};
use crate::data::DataGraph;
use crate::error::{Error, Result};
use crate::paths::Path;
use crate::report::Report;
use crate::shapes::{ShapeId, Shapes};
use crate::targets::{focus_nodes, FocusNode};
use crate::{Progress, ValidateOptions};
use oxrdf::Term;
use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Nested shape references deeper than this are refused (a stack overflow otherwise).
const MAX_DEPTH: usize = 64;

pub(crate) struct Validator<'a> {
    pub data: DataGraph<'a>,
    pub shapes: &'a Shapes,
    stack: Vec<(ShapeId, Term)>,
    /// The value nodes of the paths evaluated at `cached_focus`: the property shapes of one
    /// node shape often share a path (a name's count, datatype and pattern), so each is read
    /// once per focus node.
    cached_focus: Option<Term>,
    path_values: HashMap<Path, Rc<[Term]>>,
}

impl<'a> Validator<'a> {
    /// The value nodes of `path` at `focus`, cached for the current focus node.
    fn values_of(&mut self, path: &Path, focus: &Term) -> Result<Rc<[Term]>> {
        if self.cached_focus.as_ref() != Some(focus) {
            self.cached_focus = Some(focus.clone());
            self.path_values.clear();
        }
        if let Some(v) = self.path_values.get(path) {
            return Ok(Rc::clone(v));
        }
        let v: Rc<[Term]> = path.eval(&self.data, focus)?.into();
        self.path_values.insert(path.clone(), Rc::clone(&v));
        Ok(v)
    }
}

impl<'a> Context<'a> for Validator<'a> {
    fn data(&self) -> &DataGraph<'a> {
        &self.data
    }

    fn shapes(&self) -> &'a Shapes {
        self.shapes
    }

    fn validate_shape(&mut self, shape: ShapeId, focus: &Term, sink: &mut Sink) -> Result<()> {
        let s = self.shapes.get(shape);
        if s.deactivated {
            return Ok(());
        }
        let key = (shape, focus.clone());
        if self.stack.contains(&key) {
            return Err(Error::Recursion {
                shape: s.node.to_string(),
                focus: focus.to_string(),
                message: "the shape is reached again from itself on the same focus node".into(),
            });
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Error::Recursion {
                shape: s.node.to_string(),
                focus: focus.to_string(),
                message: format!("shape references nest deeper than {MAX_DEPTH}"),
            });
        }
        let values: Rc<[Term]> = match &s.path {
            Some(p) => self.values_of(p, focus)?,
            None => Rc::from([focus.clone()]),
        };
        self.stack.push(key);
        let at = Focus {
            shape,
            node: focus,
            values: &values,
        };
        let shapes = self.shapes;
        let mut outcome = Ok(());
        for c in &shapes.get(shape).constraints {
            outcome = components::evaluate(components::Check {
                v: self,
                at: &at,
                c,
                sink,
            });
            if outcome.is_err() || sink.done() {
                break;
            }
        }
        self.stack.pop();
        outcome
    }

    fn conforms(&mut self, shape: ShapeId, node: &Term) -> Result<bool> {
        let mut sink = Sink::first();
        self.validate_shape(shape, node, &mut sink)?;
        Ok(sink.results.is_empty())
    }
}

/// Validates the data graph against every shape with targets.
pub(crate) fn run(data: DataGraph<'_>, shapes: &Shapes, opts: &ValidateOptions) -> Result<Report> {
    let mut v = Validator {
        data,
        shapes,
        stack: Vec::new(),
        cached_focus: None,
        path_values: HashMap::default(),
    };
    let mut sink = Sink::default();
    let with_targets: Vec<ShapeId> = (0..shapes.len())
        .filter(|&i| !shapes.get(i).targets.is_empty() && !shapes.get(i).deactivated)
        .collect();
    let mut progress = Progress {
        shapes_done: 0,
        shapes_total: with_targets.len(),
        focus_nodes_done: 0,
        shape_focus_nodes: 0,
        shape_focus_nodes_done: 0,
        results: 0,
    };
    let mut last_report = Instant::now();
    for shape in with_targets {
        let focus = focus_nodes(&v.data, &shapes.get(shape).node, &shapes.get(shape).targets)?;
        progress.shape_focus_nodes = focus.len() as u64;
        progress.shape_focus_nodes_done = 0;
        let ids = focus.ids.into_iter().map(FocusNode::Id);
        for node in ids.chain(focus.absent.into_iter().map(FocusNode::Absent)) {
            let focus = match node {
                FocusNode::Id(id) => v.data.term(id)?,
                FocusNode::Absent(t) => t,
            };
            if opts
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
            {
                return Err(Error::Cancelled);
            }
            v.validate_shape(shape, &focus, &mut sink)?;
            progress.focus_nodes_done += 1;
            progress.shape_focus_nodes_done += 1;
            if let Some(f) = &opts.progress {
                if last_report.elapsed() >= opts.progress_interval {
                    progress.results = sink.results.len();
                    f(&progress);
                    last_report = Instant::now();
                }
            }
        }
        progress.shapes_done += 1;
        progress.results = sink.results.len();
        if let Some(f) = &opts.progress {
            f(&progress);
            last_report = Instant::now();
        }
    }
    Ok(Report {
        conforms: sink.results.is_empty(),
        results: sink.results,
    })
}
