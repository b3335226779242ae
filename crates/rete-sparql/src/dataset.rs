//! The `.rete` file seen by spareval: quads come straight from the permutations as dictionary
//! ids; terms are decoded only when an expression or the final projection needs them.

use crate::error::SparqlError;
use crate::union::{InGraph, Scan};
use oxrdf::Term;
use rete_core::human::bytes as human_bytes;
use rete_core::{GraphMatch, Id, Rete, DEFAULT_GRAPH};
use spareval::{InternalQuad, QueryableDataset};
use std::cell::OnceCell;
use std::rc::Rc;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How often (in produced items) long loops look at the cancel flag and the clock.
pub(crate) const CHECK_EVERY: u32 = 1024;
/// [`CHECK_EVERY`] under the generic evaluator.
const GENERIC_CHECK_EVERY: u32 = 64;

/// The cancel flag, deadline and memory budget of one query.
#[derive(Clone, Default)]
pub(crate) struct Guard {
    pub cancel: Option<Arc<AtomicBool>>,
    pub deadline: Option<Instant>,
    pub memory: Arc<Memory>,
    /// spareval's token, cancelled when a check fails so that every spareval iterator of the
    /// query stops at its next look (generic evaluator only).
    pub token: Option<spareval::CancellationToken>,
    /// Resident size when the generic evaluator started: its joins and sorts hold rows this
    /// crate cannot count, so their growth is read from the process's resident size.
    pub resident: Option<u64>,
    /// Why the token was cancelled: spareval then reports only "cancelled".
    pub tripped: Arc<std::sync::OnceLock<Tripped>>,
}

/// The check that failed, kept to report it in place of spareval's "cancelled".
#[derive(Debug, Clone)]
pub(crate) enum Tripped {
    Cancelled,
    Timeout,
    TooLarge(String),
}

impl Tripped {
    pub fn error(&self) -> SparqlError {
        match self {
            Self::Cancelled => SparqlError::Cancelled,
            Self::Timeout => SparqlError::Timeout,
            Self::TooLarge(m) => SparqlError::TooLarge(m.clone()),
        }
    }
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("deadline", &self.deadline)
            .field("memory", &self.memory)
            .field("resident", &self.resident)
            .finish_non_exhaustive()
    }
}

/// The process's resident size in bytes (`VmRSS`, Linux), `None` elsewhere.
pub(crate) fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Bytes held by one query's materializing operators, against a limit. Shared by both
/// evaluators and the result stream (atomic: a `Guard` is `Send`).
#[derive(Debug)]
pub(crate) struct Memory {
    used: AtomicUsize,
    limit: usize,
}

impl Default for Memory {
    fn default() -> Self {
        Self::new(crate::DEFAULT_MEMORY_LIMIT)
    }
}

impl Memory {
    pub fn new(limit: usize) -> Self {
        Self {
            used: AtomicUsize::new(0),
            limit,
        }
    }

    /// Counts `bytes` more; fails once the total passes the limit (`what` says what grew).
    #[inline]
    pub fn charge(&self, bytes: usize, what: &str) -> Result<(), SparqlError> {
        let used = self
            .used
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if used > self.limit {
            return Err(SparqlError::TooLarge(format!(
                "{what} passed the memory limit of {} ({} counted); add LIMIT or more selective patterns, or raise the limit",
                human_bytes(self.limit as u64),
                human_bytes(used as u64)
            )));
        }
        Ok(())
    }

    /// Gives `bytes` back (rows an operator dropped).
    pub fn release(&self, bytes: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }
}

impl Guard {
    /// A spareval error as this crate reports it: "cancelled" after a failed check is that
    /// check's error.
    pub fn evaluation_error(&self, e: spareval::QueryEvaluationError) -> SparqlError {
        match (&e, self.tripped.get()) {
            (spareval::QueryEvaluationError::Cancelled, Some(t)) => t.error(),
            _ => e.into(),
        }
    }

    /// Fails if the query was cancelled, ran out of time or (generic evaluator) grew the
    /// resident size past the memory limit; a failure cancels spareval's token too.
    pub fn check(&self) -> Result<(), SparqlError> {
        let r = self.check_inner();
        if let (Err(e), Some(t)) = (&r, &self.token) {
            let _ = self.tripped.set(match e {
                SparqlError::Timeout => Tripped::Timeout,
                SparqlError::TooLarge(m) => Tripped::TooLarge(m.clone()),
                _ => Tripped::Cancelled,
            });
            t.cancel();
        }
        r
    }

    fn check_inner(&self) -> Result<(), SparqlError> {
        if let (Some(base), Some(now)) = (self.resident, self.resident.and(resident_bytes())) {
            let grown = now.saturating_sub(base);
            if grown > self.memory.limit as u64 {
                return Err(SparqlError::TooLarge(format!(
                    "the generic evaluator's rows passed the memory limit of {} ({} more \
                     resident memory); add LIMIT or more selective patterns, or raise the limit",
                    human_bytes(self.memory.limit as u64),
                    human_bytes(grown)
                )));
            }
        }
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(SparqlError::Cancelled);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(SparqlError::Timeout);
        }
        Ok(())
    }

    /// Counts one more item on `tick` and, every [`CHECK_EVERY`] items, [`Self::check`]s.
    pub fn check_every(&self, tick: &mut u32) -> Result<(), SparqlError> {
        *tick += 1;
        // Under the generic evaluator one scanned quad may stand for thousands of joined rows
        // that nothing else sees: its scans look more often.
        let every = if self.resident.is_some() {
            GENERIC_CHECK_EVERY
        } else {
            CHECK_EVERY
        };
        if *tick >= every {
            *tick = 0;
            self.check()?;
        }
        Ok(())
    }
}

/// A term during evaluation: a dictionary id, or a term the file does not hold (created by
/// `BIND`, `VALUES`, functions, or written in the query). A term is stored as `Term` only when
/// it is *not* in the dictionary, so equality of `Val`s is RDF term equality.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Val {
    /// A dictionary id.
    Id(Id),
    /// A term absent from the dictionary.
    Term(Arc<Term>),
}

/// The dataset adapter handed to spareval.
#[derive(Debug, Clone)]
pub(crate) struct ReteDataset {
    rete: Rete,
    guard: Guard,
    graphs: Rc<OnceCell<Vec<Id>>>,
    /// The default graph is the union of every graph (see [`crate::union`]).
    union: bool,
    /// Terms decoded since the guard was last looked at: a filter over a join decodes terms in
    /// loops that touch the dataset nowhere else.
    tick: Rc<std::cell::Cell<u32>>,
}

impl ReteDataset {
    pub fn new(rete: Rete, guard: Guard, union: bool) -> Self {
        Self {
            rete,
            guard,
            graphs: Rc::new(OnceCell::new()),
            union,
            tick: Rc::new(std::cell::Cell::new(0)),
        }
    }

    /// Ids of the named graphs, from the card (no scan).
    fn graph_ids(&self) -> Result<&[Id], SparqlError> {
        if let Some(g) = self.graphs.get() {
            return Ok(g);
        }
        let card = self.rete.card()?;
        let mut ids = Vec::with_capacity(card.graphs.len());
        for g in &card.graphs {
            let term = Term::from_str(&g.term).map_err(|e| {
                rete_core::Error::Invalid(format!("card names an invalid graph {}: {e}", g.term))
            })?;
            if let Some(id) = self.rete.id_of(term.as_ref())? {
                ids.push(id);
            }
        }
        ids.sort_unstable();
        Ok(self.graphs.get_or_init(|| ids))
    }
}

impl ReteDataset {
    /// The computed quad `subject predicate object` for a bound subject, where `object` is
    /// what `object_of` makes of the subject's term (`None` when it makes nothing of it, and
    /// when the graph is not given).
    fn computed_quad(
        &self,
        subject: Option<&Val>,
        predicate: Option<&Val>,
        graph_name: Option<Option<&Val>>,
        object_of: fn(Term) -> Option<Term>,
    ) -> Result<Option<InternalQuad<Val>>, SparqlError> {
        let (Some(s), Some(p), Some(g)) = (subject, predicate, graph_name) else {
            return Ok(None);
        };
        let term = match s {
            Val::Id(id) => self.rete.term(*id)?,
            Val::Term(t) => (**t).clone(),
        };
        let Some(object) = object_of(term) else {
            return Ok(None);
        };
        let object = self.internalize_term(object)?;
        Ok(Some(InternalQuad {
            subject: s.clone(),
            predicate: p.clone(),
            object,
            graph_name: g.cloned(),
        }))
    }
}

/// The object of `term <LEXICAL> "lexical form"` for a term that is an IRI or a literal.
fn lexical_object(term: Term) -> Option<Term> {
    let text = match term {
        Term::NamedNode(n) => n.into_string(),
        Term::Literal(l) => l.destruct().0,
        _ => return None,
    };
    Some(oxrdf::Literal::new_simple_literal(text).into())
}

/// The object of `"<datatype> <lexical form>" <STRDT> literal` for a key of that shape.
fn strdt_object(key: Term) -> Option<Term> {
    let Term::Literal(key) = key else {
        return None;
    };
    let (dt, lexical) = key.value().split_once(' ')?;
    let dt = oxrdf::NamedNode::new(dt).ok()?;
    Some(oxrdf::Literal::new_typed_literal(lexical, dt).into())
}

/// What spareval can hold per quad it reads: three or four terms in a tuple. spareval's hash
/// joins and sorts are not instrumented, so the generic evaluator counts every quad it reads
/// (an upper bound of what it keeps) and every term it creates.
const QUAD_BYTES: usize = 4 * size_of::<Option<Val>>();

/// Streams quads of one pattern as [`InternalQuad`]s, checking the guard as it goes.
struct Quads {
    inner: Option<Scan>,
    error: Option<SparqlError>,
    guard: Guard,
    tick: u32,
    /// A computed quad (the lexical form of a term, see [`crate::lexical`]).
    extra: Option<InternalQuad<Val>>,
}

impl Iterator for Quads {
    type Item = Result<InternalQuad<Val>, SparqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.error.take() {
            self.inner = None;
            return Some(Err(e));
        }
        if let Some(q) = self.extra.take() {
            return Some(Ok(q));
        }
        let inner = self.inner.as_mut()?;
        if let Err(e) = self.guard.check_every(&mut self.tick) {
            self.inner = None;
            return Some(Err(e));
        }
        match inner.next()? {
            Ok([s, p, o, g]) => {
                if let Err(e) = self.guard.memory.charge(QUAD_BYTES, "the quads read") {
                    self.inner = None;
                    return Some(Err(e));
                }
                Some(Ok(InternalQuad {
                    subject: Val::Id(s),
                    predicate: Val::Id(p),
                    object: Val::Id(o),
                    graph_name: (g != DEFAULT_GRAPH).then_some(Val::Id(g)),
                }))
            }
            Err(e) => {
                self.inner = None;
                Some(Err(e.into()))
            }
        }
    }
}

impl<'a> QueryableDataset<'a> for ReteDataset {
    type InternalTerm = Val;
    type Error = SparqlError;

    fn internal_quads_for_pattern(
        &self,
        subject: Option<&Val>,
        predicate: Option<&Val>,
        object: Option<&Val>,
        graph_name: Option<Option<&Val>>,
    ) -> impl Iterator<Item = Result<InternalQuad<Val>, SparqlError>> + use<'a> {
        let empty = || Quads {
            inner: None,
            error: None,
            guard: Guard::default(),
            tick: 0,
            extra: None,
        };
        if let Some(Val::Term(t)) = predicate {
            let computed = match &**t {
                Term::NamedNode(n) if n.as_str() == crate::lexical::LEXICAL => {
                    Some(self.computed_quad(subject, predicate, graph_name, lexical_object))
                }
                Term::NamedNode(n) if n.as_str() == crate::lexical::STRDT => {
                    Some(self.computed_quad(subject, predicate, graph_name, strdt_object))
                }
                _ => None,
            };
            if let Some(q) = computed {
                return match q {
                    Ok(q) => Quads {
                        extra: q,
                        ..empty()
                    },
                    Err(e) => Quads {
                        error: Some(e),
                        ..empty()
                    },
                };
            }
        }
        // A term outside the dictionary matches no quad.
        let id = |v: Option<&Val>| match v {
            None => Some(None),
            Some(Val::Id(i)) => Some(Some(*i)),
            Some(Val::Term(_)) => None,
        };
        let (Some(s), Some(p), Some(o)) = (id(subject), id(predicate), id(object)) else {
            return empty();
        };
        let g = match graph_name {
            None => InGraph::Quads(GraphMatch::AnyNamed),
            Some(None) if self.union => InGraph::Union,
            Some(None) => InGraph::Quads(GraphMatch::Default),
            Some(Some(Val::Id(g))) => InGraph::Quads(GraphMatch::Named(*g)),
            Some(Some(Val::Term(_))) => return empty(),
        };
        match crate::union::scan(&self.rete, s, p, o, g) {
            Ok(it) => Quads {
                inner: Some(it),
                guard: self.guard.clone(),
                ..empty()
            },
            Err(e) => Quads {
                error: Some(e.into()),
                ..empty()
            },
        }
    }

    fn internal_named_graphs(&self) -> impl Iterator<Item = Result<Val, SparqlError>> + use<'a> {
        let r: Vec<Result<Val, SparqlError>> = match self.graph_ids() {
            Ok(ids) => ids.iter().map(|&g| Ok(Val::Id(g))).collect(),
            Err(e) => vec![Err(e)],
        };
        r.into_iter()
    }

    fn contains_internal_graph_name(&self, graph_name: &Val) -> Result<bool, SparqlError> {
        Ok(match graph_name {
            Val::Id(g) => self.graph_ids()?.binary_search(g).is_ok(),
            Val::Term(_) => false,
        })
    }

    fn internalize_term(&self, term: Term) -> Result<Val, SparqlError> {
        Ok(match self.rete.id_of(term.as_ref())? {
            Some(id) => Val::Id(id),
            None => {
                self.guard
                    .memory
                    .charge(term_bytes(&term), "the terms computed")?;
                Val::Term(Arc::new(term))
            }
        })
    }

    fn externalize_term(&self, term: Val) -> Result<Term, SparqlError> {
        let mut tick = self.tick.get();
        self.guard.check_every(&mut tick)?;
        self.tick.set(tick);
        Ok(match term {
            Val::Id(id) => self.rete.term(id)?,
            Val::Term(t) => Arc::unwrap_or_clone(t),
        })
    }
}

/// Bytes a term takes on the heap and inline (an estimate from its strings).
pub(crate) fn term_bytes(t: &Term) -> usize {
    size_of::<Term>()
        + match t {
            Term::NamedNode(n) => n.as_str().len(),
            Term::BlankNode(b) => b.as_str().len(),
            Term::Literal(l) => {
                l.value().len() + l.language().map_or(0, str::len) + l.datatype().as_str().len()
            }
            #[allow(unreachable_patterns)]
            _ => 64,
        }
}
