//! Why a query found nothing when the file's data is in named graphs: under strict SPARQL the
//! default graph is the file's default graph alone, which such files often leave empty. Clients
//! word the hint their way (`--union-default-graph` on the command line, a switch in the app).

use crate::union::default_graph_is_empty;
use crate::walk::{query_pattern, visit_patterns};
use crate::{QueryOptions, SparqlError};
use oxrdf::Term;
use rete_core::{Pattern, Rete, DEFAULT_GRAPH};
use serde::Serialize;
use spargebra::algebra::{GraphPattern, PropertyPathExpression};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;
use std::collections::HashSet;

/// Quads looked at per pattern before [`empty_answer_hint`] gives up on it (a bound on the work
/// done after an empty answer).
const LOOK_AT: usize = 1 << 20;

/// Why an empty answer may come from the default graph missing the data of named graphs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EmptyAnswerHint {
    /// The default graph holds no quad; the file's data is in named graphs.
    EmptyDefaultGraph {
        /// Named graphs of the file.
        named_graphs: u64,
        /// Quads in them.
        named_quads: u64,
    },
    /// A pattern of the query matches nothing in the default graph, but matches in named graphs.
    OnlyInNamedGraphs {
        /// The pattern, in SPARQL syntax.
        pattern: String,
        /// Named graphs of the file.
        named_graphs: u64,
    },
}

/// After `q` gave an empty answer (no solution, `false`, no triple) under `opts`: whether the
/// default graph is to blame — it is empty, or one of the query's patterns outside `GRAPH`
/// matches nothing in it but matches in named graphs — so that the union default graph
/// ([`QueryOptions::union_default_graph`]) or `GRAPH ?g { … }` would see the data. `None` when
/// the option is already on, the query names its own dataset (`FROM`), it reads no default
/// graph, or the file has no named graph.
pub fn empty_answer_hint(
    rete: &Rete,
    q: &Query,
    opts: &QueryOptions,
) -> Result<Option<EmptyAnswerHint>, SparqlError> {
    if opts.union_default_graph || crate::has_dataset(q) {
        return Ok(None);
    }
    let card = rete.card()?;
    let named_graphs = card.graphs.iter().filter(|g| g.count > 0).count() as u64;
    if named_graphs == 0 {
        return Ok(None);
    }
    let Some(patterns) = default_graph_patterns(query_pattern(q)) else {
        return Ok(None);
    };
    if default_graph_is_empty(rete) {
        return Ok(Some(EmptyAnswerHint::EmptyDefaultGraph {
            named_graphs,
            named_quads: card.quads - card.default_graph_quads,
        }));
    }
    for t in patterns {
        if only_in_named_graphs(rete, &t)? {
            return Ok(Some(EmptyAnswerHint::OnlyInNamedGraphs {
                pattern: t.to_string(),
                named_graphs,
            }));
        }
    }
    Ok(None)
}

/// The triple patterns the query matches against the default graph (outside `GRAPH`, inside
/// `EXISTS` too; a path with one predicate counts as its triple), or `None` when it reads no
/// default graph at all.
fn default_graph_patterns(root: &GraphPattern) -> Option<Vec<TriplePattern>> {
    let mut in_graph: HashSet<*const GraphPattern> = HashSet::new();
    visit_patterns(root, &mut |p| {
        if let GraphPattern::Graph { inner, .. } = p {
            visit_patterns(inner, &mut |c| {
                in_graph.insert(std::ptr::from_ref(c));
            });
        }
    });
    let mut reads = false;
    let mut out = Vec::new();
    visit_patterns(root, &mut |p| {
        if in_graph.contains(&std::ptr::from_ref(p)) {
            return;
        }
        match p {
            GraphPattern::Bgp { patterns } => {
                let data = crate::text::data_patterns(patterns);
                reads |= !data.is_empty();
                out.extend(data);
            }
            GraphPattern::Path {
                subject,
                path,
                object,
            } => {
                reads = true;
                if let PropertyPathExpression::NamedNode(n) = path {
                    out.push(TriplePattern {
                        subject: subject.clone(),
                        predicate: NamedNodePattern::NamedNode(n.clone()),
                        object: object.clone(),
                    });
                }
            }
            _ => {}
        }
    });
    reads.then_some(out)
}

/// Whether `t` (its constants; variables match anything) has a match in a named graph and none
/// in the default graph, looking at [`LOOK_AT`] quads at most (`false` past that).
fn only_in_named_graphs(rete: &Rete, t: &TriplePattern) -> Result<bool, SparqlError> {
    let id = |term: Option<Term>| -> Result<Option<Option<u64>>, SparqlError> {
        Ok(match term {
            None => Some(None),
            Some(term) => rete.id_of(term.as_ref())?.map(Some),
        })
    };
    let constant = |t: &TermPattern| match t {
        TermPattern::NamedNode(n) => Some(Term::from(n.clone())),
        TermPattern::Literal(l) => Some(Term::from(l.clone())),
        _ => None,
    };
    let predicate = match &t.predicate {
        NamedNodePattern::NamedNode(n) => Some(Term::from(n.clone())),
        NamedNodePattern::Variable(_) => None,
    };
    // A constant the file does not hold matches in no graph.
    let (Some(s), Some(p), Some(o)) = (
        id(constant(&t.subject))?,
        id(predicate)?,
        id(constant(&t.object))?,
    ) else {
        return Ok(false);
    };
    let mut seen = 0;
    for q in rete.quads(&Pattern::new(s, p, o))? {
        if seen == LOOK_AT || q?[3] == DEFAULT_GRAPH {
            return Ok(false);
        }
        seen += 1;
    }
    Ok(seen > 0)
}
