//! The `.rete` file seen by spareval: quads come straight from the permutations as dictionary
//! ids; terms are decoded only when an expression or the final projection needs them.

use crate::error::DatasetError;
use oxrdf::Term;
use rete_core::{GraphMatch, Id, Pattern, QuadIter, Rete, DEFAULT_GRAPH};
use spareval::{InternalQuad, QueryableDataset};
use std::cell::OnceCell;
use std::rc::Rc;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How often (in produced items) long loops look at the cancel flag and the clock.
pub(crate) const CHECK_EVERY: u32 = 1024;

/// The cancel flag and deadline of one query.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard {
    pub cancel: Option<Arc<AtomicBool>>,
    pub deadline: Option<Instant>,
}

impl Guard {
    /// Fails if the query was cancelled or ran out of time.
    pub fn check(&self) -> Result<(), DatasetError> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(DatasetError::Cancelled);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(DatasetError::Timeout);
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
}

impl ReteDataset {
    pub fn new(rete: Rete, guard: Guard) -> Self {
        Self {
            rete,
            guard,
            graphs: Rc::new(OnceCell::new()),
        }
    }

    /// Ids of the named graphs, from the card (no scan).
    fn graph_ids(&self) -> Result<&[Id], DatasetError> {
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

/// Streams quads of one pattern as [`InternalQuad`]s, checking the guard as it goes.
struct Quads {
    inner: Option<QuadIter>,
    error: Option<DatasetError>,
    guard: Guard,
    tick: u32,
}

impl Iterator for Quads {
    type Item = Result<InternalQuad<Val>, DatasetError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.error.take() {
            self.inner = None;
            return Some(Err(e));
        }
        let inner = self.inner.as_mut()?;
        self.tick += 1;
        if self.tick >= CHECK_EVERY {
            self.tick = 0;
            if let Err(e) = self.guard.check() {
                self.inner = None;
                return Some(Err(e));
            }
        }
        match inner.next()? {
            Ok([s, p, o, g]) => Some(Ok(InternalQuad {
                subject: Val::Id(s),
                predicate: Val::Id(p),
                object: Val::Id(o),
                graph_name: (g != DEFAULT_GRAPH).then_some(Val::Id(g)),
            })),
            Err(e) => {
                self.inner = None;
                Some(Err(e.into()))
            }
        }
    }
}

impl<'a> QueryableDataset<'a> for ReteDataset {
    type InternalTerm = Val;
    type Error = DatasetError;

    fn internal_quads_for_pattern(
        &self,
        subject: Option<&Val>,
        predicate: Option<&Val>,
        object: Option<&Val>,
        graph_name: Option<Option<&Val>>,
    ) -> impl Iterator<Item = Result<InternalQuad<Val>, DatasetError>> + use<'a> {
        let empty = || Quads {
            inner: None,
            error: None,
            guard: Guard::default(),
            tick: 0,
        };
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
            None => GraphMatch::AnyNamed,
            Some(None) => GraphMatch::Default,
            Some(Some(Val::Id(g))) => GraphMatch::Named(*g),
            Some(Some(Val::Term(_))) => return empty(),
        };
        let pattern = Pattern::new(s, p, o).in_graph(g);
        match self.rete.quads(&pattern) {
            Ok(it) => Quads {
                inner: Some(it),
                error: None,
                guard: self.guard.clone(),
                tick: 0,
            },
            Err(e) => Quads {
                inner: None,
                error: Some(e.into()),
                guard: Guard::default(),
                tick: 0,
            },
        }
    }

    fn internal_named_graphs(&self) -> impl Iterator<Item = Result<Val, DatasetError>> + use<'a> {
        let r: Vec<Result<Val, DatasetError>> = match self.graph_ids() {
            Ok(ids) => ids.iter().map(|&g| Ok(Val::Id(g))).collect(),
            Err(e) => vec![Err(e)],
        };
        r.into_iter()
    }

    fn contains_internal_graph_name(&self, graph_name: &Val) -> Result<bool, DatasetError> {
        Ok(match graph_name {
            Val::Id(g) => self.graph_ids()?.binary_search(g).is_ok(),
            Val::Term(_) => false,
        })
    }

    fn internalize_term(&self, term: Term) -> Result<Val, DatasetError> {
        Ok(match self.rete.id_of(term.as_ref())? {
            Some(id) => Val::Id(id),
            None => Val::Term(Arc::new(term)),
        })
    }

    fn externalize_term(&self, term: Val) -> Result<Term, DatasetError> {
        Ok(match term {
            Val::Id(id) => self.rete.term(id)?,
            Val::Term(t) => Arc::unwrap_or_clone(t),
        })
    }
}
