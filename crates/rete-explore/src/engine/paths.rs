//! How two entities are connected: the k shortest paths between them over links in either
//! direction (`rete-path`), each entity and predicate as the details panel shows terms.

use super::{AppError, AppResult, Doc};
use crate::model::{PathFilters, PathLinkView, PathStepView, PathView, PathsView, TermView};
use oxrdf::Term;
use rete_path::{find_paths, PathOptions, Stop};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a path search may run in the app before it answers with what it found.
pub const PATH_DEADLINE: Duration = Duration::from_secs(30);

/// Neighbour entries a path search may hold (about 40 bytes each: ~160 MB).
pub const PATH_MEMORY: usize = 4_000_000;

impl Doc {
    /// The `k` shortest paths (at most `max_hops` links) from entity `from` to entity `to`;
    /// `cancel` stops the search, keeping the paths found so far.
    pub fn paths(
        &self,
        from: u64,
        to: u64,
        k: usize,
        max_hops: u32,
        filters: &PathFilters,
        cancel: Arc<AtomicBool>,
    ) -> AppResult<PathsView> {
        let term = |id: u64| -> AppResult<Term> { Ok(self.rete.term(id)?) };
        let (a, b) = (term(from)?, term(to)?);
        let iris = |list: &[String]| -> AppResult<Vec<oxrdf::NamedNode>> {
            list.iter()
                .map(|nt| {
                    nt.strip_prefix('<')
                        .and_then(|r| r.strip_suffix('>'))
                        .and_then(|iri| oxrdf::NamedNode::new(iri).ok())
                        .ok_or_else(|| {
                            AppError::Invalid(format!("{nt}: not a predicate IRI (<…>)"))
                        })
                })
                .collect()
        };
        let opts = PathOptions {
            k,
            max_hops,
            via: iris(&filters.via)?,
            without: iris(&filters.without)?,
            include_schema: filters.include_schema,
            max_degree: filters.max_degree,
            max_visited: PATH_MEMORY,
            deadline: Some(Instant::now() + PATH_DEADLINE),
            cancel: Some(cancel),
            ..PathOptions::default()
        };
        let report = find_paths(&self.rete, a.as_ref(), b.as_ref(), &opts)
            .map_err(|e| AppError::Invalid(e.to_string()))?;
        // The paths of an answer share their ends, often more entities, and a few predicates:
        // each term's view (its label looked up) is made once.
        let mut views: HashMap<(u64, bool), TermView> = HashMap::new();
        let mut view = |id: u64, labelled: bool| -> AppResult<TermView> {
            if let Some(v) = views.get(&(id, labelled)) {
                return Ok(v.clone());
            }
            let v = self.term_view(id, labelled)?;
            views.insert((id, labelled), v.clone());
            Ok(v)
        };
        let mut paths = Vec::with_capacity(report.paths.len());
        for p in &report.paths {
            let mut nodes = Vec::with_capacity(p.ids.len());
            for id in &p.ids {
                nodes.push(view(*id, true)?);
            }
            let mut steps = Vec::with_capacity(p.steps.len());
            for s in &p.steps {
                let mut links = Vec::with_capacity(s.links.len());
                for l in &s.links {
                    links.push(PathLinkView {
                        predicate: view(l.predicate, false)?,
                        forward: l.forward,
                    });
                }
                steps.push(PathStepView {
                    links,
                    more_links: s.more_links,
                });
            }
            paths.push(PathView {
                hops: p.hops,
                nodes,
                steps,
            });
        }
        Ok(PathsView {
            paths,
            stop: match report.stop {
                Stop::Found => "found",
                Stop::Exhausted => "exhausted",
                Stop::HopLimit => "hop_limit",
                Stop::VisitedLimit => "visited_limit",
                Stop::Deadline => "deadline",
                Stop::Cancelled => "cancelled",
            }
            .to_owned(),
            reason: report.reason,
            elapsed_ms: report.stats.millis,
        })
    }
}
