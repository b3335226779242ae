#![doc = include_str!("../README.md")]

mod cost;
mod dataset;
mod empty_hint;
mod error;
mod lexical;
mod native;
mod results;
mod service;
pub mod syntax_error;
mod text;
mod union;
mod walk;
/// Calls `f` on each expression directly inside a spargebra `Expression`, in written order,
/// stopping at the first error (`EXISTS` holds a pattern, not an expression): one walk for the
/// crates that check queries (SHACL-SPARQL's pre-binding rules).
pub use walk::try_for_each_child as for_each_subexpression;

pub use cost::{
    estimate_cost, estimate_cost_with, estimate_query_cost, estimate_query_cost_with, CostEstimate,
    PatternCost,
};
pub use dataset::Val;
pub use empty_hint::{empty_answer_hint, EmptyAnswerHint};
pub use error::SparqlError;
pub use oxrdf::{Term, Triple, Variable};
pub use results::{write_boolean, write_results, write_solutions, write_triples, ResultFormat};
pub use service::{host_port, services, ServiceError, ServiceOptions};
pub use sparesults::QuerySolution;
pub use text::TEXT_QUERY;

use dataset::{Guard, Memory, ReteDataset};
use rete_core::Rete;
use spargebra::algebra::GraphPattern;
use spargebra::{Query, SparqlParser};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// How a query runs.
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
    /// Raised (set to `true`) from another thread to stop the query; evaluation then fails with
    /// [`SparqlError::Cancelled`].
    pub cancel: Option<Arc<AtomicBool>>,
    /// After this instant evaluation fails with [`SparqlError::Timeout`].
    pub deadline: Option<Instant>,
    /// Base IRI against which relative IRIs of the query are resolved.
    pub base_iri: Option<String>,
    /// Bytes the query may hold in rows, sort keys, group state and kept results before it
    /// fails with [`SparqlError::TooLarge`] (`None`: [`DEFAULT_MEMORY_LIMIT`]).
    pub memory_limit: Option<usize>,
    /// The default graph is the union of all graphs of the file, default and named: their RDF
    /// merge, where a triple stated in several graphs is one triple. A query's own dataset
    /// (`FROM` / `FROM NAMED`) still wins; `GRAPH` patterns are unchanged. Off by default:
    /// strict SPARQL, where the default graph is the file's default graph alone.
    pub union_default_graph: bool,
    /// `SERVICE` calls to other endpoints, to the hosts allowed here (`None`: a query with
    /// `SERVICE` is refused, saying how to allow it).
    pub service: Option<ServiceOptions>,
}

/// The memory bound of a query when [`QueryOptions::memory_limit`] is not set: 2 GiB.
pub const DEFAULT_MEMORY_LIMIT: usize = 2 << 30;

/// The answer to a query. Solutions and triples stream: they are computed as they are pulled.
#[derive(Debug)]
pub enum QueryResults {
    /// `SELECT` solutions.
    Solutions(Solutions),
    /// `ASK` answer.
    Boolean(bool),
    /// `CONSTRUCT` / `DESCRIBE` triples.
    Graph(Triples),
}

/// A stream of `SELECT` solutions.
pub struct Solutions {
    variables: Arc<[Variable]>,
    iter: Box<dyn Iterator<Item = Result<QuerySolution, SparqlError>>>,
}

impl std::fmt::Debug for Solutions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solutions")
            .field("variables", &self.variables)
            .finish_non_exhaustive()
    }
}

impl Solutions {
    /// The projected variables, in `SELECT` order.
    pub fn variables(&self) -> &[Variable] {
        &self.variables
    }
}

impl Iterator for Solutions {
    type Item = Result<QuerySolution, SparqlError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.iter.next()
    }
}

/// A stream of `CONSTRUCT` / `DESCRIBE` triples.
pub struct Triples {
    iter: Box<dyn Iterator<Item = Result<Triple, SparqlError>>>,
}

impl std::fmt::Debug for Triples {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Triples").finish_non_exhaustive()
    }
}

impl Iterator for Triples {
    type Item = Result<Triple, SparqlError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.iter.next()
    }
}

/// Parses a query, reporting syntax errors with their line and column.
pub fn parse(sparql: &str, base_iri: Option<&str>) -> Result<Query, SparqlError> {
    parse_with_prefixes(sparql, base_iri, &rete_core::vocab::Prefixes::new())
}

/// Parses a query that may use `prefixes` without declaring them (for a file:
/// [`rete_core::vocab::Prefixes::for_file`]); the query's own `PREFIX` declarations win.
pub fn parse_with_prefixes(
    sparql: &str,
    base_iri: Option<&str>,
    prefixes: &rete_core::vocab::Prefixes,
) -> Result<Query, SparqlError> {
    let mut parser = SparqlParser::new();
    for p in prefixes {
        parser = parser
            .with_prefix(p.prefix.as_str(), p.namespace.as_str())
            .map_err(|e| SparqlError::Syntax {
                line: 0,
                column: 0,
                message: format!("invalid namespace of prefix {}: {e}", p.prefix),
            })?;
    }
    if let Some(b) = base_iri {
        parser = parser.with_base_iri(b).map_err(|e| SparqlError::Syntax {
            line: 0,
            column: 0,
            message: format!("invalid base IRI {b}: {e}"),
        })?;
    }
    let mut q = parser
        .parse_query(sparql)
        .map_err(|e| SparqlError::from(syntax_error::explain(sparql, &e.to_string(), prefixes)))?;
    if walk::is_select_star(sparql) {
        walk::star_in_appearance_order(&mut q);
    }
    Ok(q)
}

/// Runs a SPARQL 1.1 query on `rete`.
pub fn query(rete: &Rete, sparql: &str, opts: &QueryOptions) -> Result<QueryResults, SparqlError> {
    let q = parse(sparql, opts.base_iri.as_deref())?;
    evaluate(rete, &q, opts)
}

/// Adds `vars` to the query's own projection (under any LIMIT / DISTINCT / REDUCED); returns
/// the projection as it was, `None` when the pattern has no projection.
fn widen_projection(pattern: &mut GraphPattern, vars: &[Variable]) -> Option<Arc<[Variable]>> {
    let mut top = pattern;
    while let GraphPattern::Slice { inner, .. }
    | GraphPattern::Distinct { inner }
    | GraphPattern::Reduced { inner } = top
    {
        top = inner;
    }
    let GraphPattern::Project { variables, .. } = top else {
        return None;
    };
    let projected: Arc<[Variable]> = variables.as_slice().into();
    for v in vars {
        if !variables.contains(v) {
            variables.push(v.clone());
        }
    }
    Some(projected)
}

/// Which evaluator runs a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evaluator {
    /// The native id pipeline.
    Native,
    /// The generic evaluator (spareval over the same id dataset), with the reason the native
    /// one does not cover the query.
    Generic(String),
}

/// Tells which evaluator [`evaluate`] will use for `q` (plans the query, runs nothing).
pub fn evaluator_for(rete: &Rete, q: &Query) -> Result<Evaluator, SparqlError> {
    Ok(match native::unsupported_reason(rete, q)? {
        None => Evaluator::Native,
        Some(why) => Evaluator::Generic(why),
    })
}

/// Runs an already parsed query.
pub fn evaluate(rete: &Rete, q: &Query, opts: &QueryOptions) -> Result<QueryResults, SparqlError> {
    evaluate_with(rete, q, opts, true, &[])
}

/// Runs a parsed query with variables pre-bound: each `(variable, term)` is the variable's
/// value from the start, seen by every pattern and expression that mentions it, as if the term
/// were written there (SHACL-SPARQL's pre-binding). Blank nodes of the file can be bound too.
/// Runs on the generic evaluator; a variable the query does not use is ignored.
pub fn evaluate_prebound(
    rete: &Rete,
    q: &Query,
    opts: &QueryOptions,
    bindings: &[(Variable, Term)],
) -> Result<QueryResults, SparqlError> {
    // spareval pre-binds only projected variables: the query is run with them projected too
    // (constants, so neither the number of solutions nor DISTINCT changes), then narrowed back.
    let vars: Vec<Variable> = bindings.iter().map(|(v, _)| v.clone()).collect();
    // The widened pattern as a SELECT: its solutions (`None` if it answered otherwise).
    let run_select = |dataset: &Option<spargebra::algebra::QueryDataset>,
                      pattern: GraphPattern,
                      base_iri: &Option<oxiri::Iri<String>>|
     -> Result<Option<Solutions>, SparqlError> {
        let select = Query::Select {
            dataset: dataset.clone(),
            pattern,
            base_iri: base_iri.clone(),
        };
        Ok(match evaluate_with(rete, &select, opts, false, bindings)? {
            QueryResults::Solutions(s) => Some(s),
            _ => None,
        })
    };
    match q {
        Query::Ask {
            dataset,
            pattern,
            base_iri,
        } => {
            let mut pattern = pattern.clone();
            if widen_projection(&mut pattern, &vars).is_none() {
                pattern = GraphPattern::Project {
                    inner: Box::new(pattern),
                    variables: vars,
                };
            }
            let Some(solutions) = run_select(dataset, pattern, base_iri)? else {
                return Ok(QueryResults::Boolean(false));
            };
            // ASK's table: true on any valid solution, else the first error, else false.
            let mut error = None;
            for s in solutions {
                match s {
                    Ok(_) => return Ok(QueryResults::Boolean(true)),
                    Err(e) => {
                        error.get_or_insert(e);
                    }
                }
            }
            error.map_or(Ok(QueryResults::Boolean(false)), Err)
        }
        Query::Select {
            dataset,
            pattern,
            base_iri,
        } => {
            let mut pattern = pattern.clone();
            let Some(projected) = widen_projection(&mut pattern, &vars) else {
                return evaluate_with(rete, q, opts, false, bindings);
            };
            let Some(solutions) = run_select(dataset, pattern, base_iri)? else {
                return evaluate_with(rete, q, opts, false, bindings);
            };
            let keep = Arc::clone(&projected);
            Ok(QueryResults::Solutions(Solutions {
                variables: projected,
                iter: Box::new(solutions.map(move |s| {
                    s.map(|s| {
                        let values: Vec<Option<Term>> =
                            keep.iter().map(|v| s.get(v).cloned()).collect();
                        QuerySolution::from((Arc::clone(&keep), values))
                    })
                })),
            }))
        }
        _ => evaluate_with(rete, q, opts, false, bindings),
    }
}

/// Runs a parsed query on the generic evaluator only (for differential testing of the native
/// one).
pub fn evaluate_generic(
    rete: &Rete,
    q: &Query,
    opts: &QueryOptions,
) -> Result<QueryResults, SparqlError> {
    evaluate_with(rete, q, opts, false, &[])
}

fn evaluate_with(
    rete: &Rete,
    q: &Query,
    opts: &QueryOptions,
    native: bool,
    bindings: &[(Variable, Term)],
) -> Result<QueryResults, SparqlError> {
    walk::check_supported(q, opts.service.is_some())?;
    let guard = Guard {
        cancel: opts.cancel.clone(),
        deadline: opts.deadline,
        memory: Arc::new(Memory::new(
            opts.memory_limit.unwrap_or(DEFAULT_MEMORY_LIMIT),
        )),
        token: None,
        resident: None,
        tripped: Arc::default(),
    };
    guard.check()?;
    // A query's own dataset wins over the option.
    let union = opts.union_default_graph && !has_dataset(q);
    // `text:query` is answered first, by the label search, and becomes inline data.
    let never = AtomicBool::new(false);
    let rewritten = text::rewrite(rete, q, opts.cancel.as_deref().unwrap_or(&never))?;
    let q = rewritten.as_ref().unwrap_or(q);
    if native {
        if let Some(r) = native::try_evaluate(rete, q, &guard, union)? {
            // The native DESCRIBE and CONSTRUCT are sets already: each node is described
            // once, by the distinct quads of the default graph whose subject it is, and a
            // CONSTRUCT compares id triples before decoding them.
            if matches!(q, Query::Describe { .. } | Query::Construct { .. }) {
                return Ok(r);
            }
            return Ok(as_set(r, &guard));
        }
    }
    let token = spareval::CancellationToken::new();
    let guard = Guard {
        token: Some(token.clone()),
        resident: dataset::resident_bytes(),
        ..guard
    };
    let dataset = ReteDataset::new(rete.clone(), guard.clone(), union);
    let mut evaluator = spareval::QueryEvaluator::new().with_cancellation_token(token);
    if !bindings.is_empty() {
        // The optimiser folds what it sees as never bound (`BOUND(?x)`, a filter on ?x) before
        // the pre-bound values arrive.
        evaluator = evaluator.without_optimizations();
    }
    if let Some(s) = &opts.service {
        evaluator = evaluator
            .with_default_service_handler(service::ServiceClient::new(s.clone(), opts.deadline));
    }
    let lexical = lexical::rewrite(q);
    let q = lexical.as_ref().unwrap_or(q);
    let mut bindings = bindings.to_vec();
    let results = loop {
        let mut prepared = evaluator.prepare(q);
        for (v, t) in &bindings {
            prepared = prepared.substitute_variable(v.clone(), t.clone());
        }
        match prepared.execute(dataset.clone()) {
            // spareval refuses a binding of a variable its plan does not hold (unused, or
            // optimised away): it cannot change the answer, so it is dropped.
            Err(spareval::QueryEvaluationError::NotExistingSubstitutedVariable(v)) => {
                bindings.retain(|(b, _)| *b != v);
            }
            r => break r.map_err(|e| guard.evaluation_error(e))?,
        }
    };
    Ok(match results {
        spareval::QueryResults::Boolean(b) => QueryResults::Boolean(b),
        spareval::QueryResults::Solutions(s) => {
            let variables: Arc<[Variable]> = s.variables().into();
            QueryResults::Solutions(Solutions {
                variables,
                iter: Box::new(Checked::new(s, guard)),
            })
        }
        spareval::QueryResults::Graph(t) => {
            let memory = guard.clone();
            as_set(
                QueryResults::Graph(Triples {
                    iter: Box::new(Checked::new(t, guard)),
                }),
                &memory,
            )
        }
    })
}

/// Whether `q` names its own dataset (`FROM` / `FROM NAMED`).
pub(crate) fn has_dataset(q: &Query) -> bool {
    match q {
        Query::Select { dataset, .. }
        | Query::Construct { dataset, .. }
        | Query::Describe { dataset, .. }
        | Query::Ask { dataset, .. } => dataset.is_some(),
    }
}

/// A CONSTRUCT / DESCRIBE result is an RDF graph, a set: a triple the template produces twice
/// is given once (the seen triples are kept while the stream is read).
fn as_set(r: QueryResults, guard: &Guard) -> QueryResults {
    match r {
        QueryResults::Graph(t) => {
            let mut seen: rustc_hash::FxHashSet<Triple> = rustc_hash::FxHashSet::default();
            let memory = guard.memory.clone();
            QueryResults::Graph(Triples {
                iter: Box::new(t.filter_map(move |t| match t {
                    Ok(t) => {
                        if seen.contains(&t) {
                            return None;
                        }
                        let subject = match &t.subject {
                            oxrdf::NamedOrBlankNode::NamedNode(n) => n.as_str().len(),
                            oxrdf::NamedOrBlankNode::BlankNode(b) => b.as_str().len(),
                        };
                        let bytes = 2 * size_of::<Term>()
                            + subject
                            + t.predicate.as_str().len()
                            + dataset::term_bytes(&t.object);
                        if let Err(e) =
                            memory.charge(bytes, "the CONSTRUCT result kept to remove duplicates")
                        {
                            return Some(Err(e));
                        }
                        seen.insert(t.clone());
                        Some(Ok(t))
                    }
                    Err(e) => Some(Err(e)),
                })),
            })
        }
        other => other,
    }
}

/// Maps errors and looks at the guard every [`dataset::CHECK_EVERY`] items; stops after the first
/// error.
struct Checked<I> {
    inner: Option<I>,
    guard: Guard,
    tick: u32,
}

impl<I> Checked<I> {
    fn new(inner: I, guard: Guard) -> Self {
        Self {
            inner: Some(inner),
            guard,
            tick: 0,
        }
    }
}

impl<T, I: Iterator<Item = Result<T, spareval::QueryEvaluationError>>> Iterator for Checked<I> {
    type Item = Result<T, SparqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        if let Err(e) = self.guard.check_every(&mut self.tick) {
            self.inner = None;
            return Some(Err(e));
        }
        match inner.next()? {
            Ok(v) => Some(Ok(v)),
            Err(e) => {
                self.inner = None;
                Some(Err(self.guard.evaluation_error(e)))
            }
        }
    }
}
