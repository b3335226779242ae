//! Per-query state of the native evaluator: the file, query-local terms, decode caches, the
//! guard, and the memory bound.

use super::adjacency::StepCache;
use super::row::{Active, Held, Id, Row, UNBOUND};
use super::scalar::Sc;
use crate::dataset::{Guard, CHECK_EVERY};
use crate::union::{InGraph, Scan};
use crate::SparqlError;
use oxrdf::{BlankNode, Term};
use rete_core::{GraphMatch, Rete, TermDecoder, TermKind, DEFAULT_GRAPH};
use rustc_hash::FxHashMap;
use spareval::ExpressionTerm;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use std::str::FromStr;

/// The text of a dictionary term, borrowed from its block.
#[derive(Debug, Clone, Copy)]
pub enum Text<'a> {
    /// An IRI.
    Iri(&'a str),
    /// A blank node.
    Blank,
    /// A simple literal's lexical form.
    Simple(&'a str),
    /// A language-tagged literal's lexical form and language.
    Lang(&'a str, &'a str),
    /// A typed literal's lexical form.
    Typed(&'a str),
}

/// The text of an encoded term (see `rete_core::term`), `None` if it is malformed.
fn text_of(bytes: &[u8]) -> Option<Text<'_>> {
    let rest = bytes.get(1..)?;
    let utf8 = |b| std::str::from_utf8(b).ok();
    let nul = || rest.iter().position(|&c| c == 0);
    Some(match TermKind::of_encoded(bytes)? {
        TermKind::Iri => Text::Iri(utf8(rest)?),
        TermKind::BlankNode => Text::Blank,
        TermKind::SimpleLiteral => Text::Simple(utf8(rest)?),
        TermKind::LangLiteral => {
            let n = nul()?;
            Text::Lang(utf8(&rest[n + 1..])?, utf8(&rest[..n])?)
        }
        TermKind::TypedLiteral => Text::Typed(utf8(&rest[nul()? + 1..])?),
    })
}

/// Marks the ids of projection-only values (see [`Ctx::intern_unchecked`]).
pub const ONCE: Id = 1 << 63;

/// Projection-only values, and how many of them no row has given back yet.
#[derive(Debug, Default)]
struct Once {
    terms: Vec<Term>,
    live: usize,
}

/// Key of [`Ctx::intern_scalar`]'s cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ScKey {
    Int(oxsdatatypes::Integer),
    Bool(bool),
}

/// Decoded terms kept per query before the caches are reset.
const CACHE_LIMIT: usize = 1 << 18;

/// A value read by an expression: shared with the cache, or decoded / computed for one use.
#[allow(missing_debug_implementations, reason = "ExpressionTerm has no Debug")]
pub enum Value {
    Shared(Rc<ExpressionTerm>),
    Own(ExpressionTerm),
}

impl Value {
    pub fn into_rc(self) -> Rc<ExpressionTerm> {
        match self {
            Self::Shared(v) => v,
            Self::Own(v) => Rc::new(v),
        }
    }
}

impl std::ops::Deref for Value {
    type Target = ExpressionTerm;
    fn deref(&self) -> &ExpressionTerm {
        match self {
            Self::Shared(v) => v,
            Self::Own(v) => v,
        }
    }
}

/// Sub-plan results by (plan address, graph).
pub type Memo = FxHashMap<(usize, Active), Rc<Vec<Row>>>;

pub struct Ctx {
    pub rete: Rete,
    /// Number of dictionary terms.
    pub n: u64,
    locals: RefCell<Vec<Term>>,
    local_ids: RefCell<FxHashMap<Term, Id>>,
    once: RefCell<Once>,
    /// Dictionary terms are decoded through the query's own block table: a decode is cheaper
    /// than a cache of decoded terms would be (a hit clones the term all the same).
    decoder: RefCell<TermDecoder>,
    exprs: RefCell<FxHashMap<Id, Rc<ExpressionTerm>>>,
    /// Boolean / numeric values of typed terms (`None`: another type), for the fast path.
    scalars: RefCell<FxHashMap<Id, Option<Sc>>>,
    /// Ids of computed integers and booleans (a term made and looked up once per value).
    scalar_ids: RefCell<FxHashMap<ScKey, Id>>,
    guard: Guard,
    tick: Cell<u32>,
    graphs: OnceCell<Vec<Id>>,
    plain_union: OnceCell<bool>,
    /// The first typed-literal id (the dictionary sorts terms by kind, typed literals last).
    first_typed: OnceCell<Id>,
    bnodes: Cell<u64>,
    /// Results of sub-plans evaluated once and reused (keyed by plan address and graph).
    pub memo: RefCell<Memo>,
    /// Transitive-path state per (step path address, graph, direction): probes so far and the
    /// step's adjacency once loaded (see `path.rs`).
    pub paths: RefCell<FxHashMap<(usize, Active, bool), Rc<StepCache>>>,
    /// Slots whose values are only projected (never joined or compared by id): terms computed
    /// for them skip the dictionary lookup.
    pub free: RefCell<Vec<bool>>,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("file", &self.rete.name())
            .field("locals", &self.locals.borrow().len())
            .finish_non_exhaustive()
    }
}

impl Ctx {
    pub fn new(rete: Rete, guard: Guard) -> Self {
        Self {
            n: rete.term_count(),
            decoder: RefCell::new(TermDecoder::new(rete.clone())),
            rete,
            locals: RefCell::default(),
            local_ids: RefCell::default(),
            once: RefCell::default(),
            exprs: RefCell::default(),
            scalars: RefCell::default(),
            scalar_ids: RefCell::default(),
            guard,
            tick: Cell::new(0),
            graphs: OnceCell::new(),
            plain_union: OnceCell::new(),
            first_typed: OnceCell::new(),
            bnodes: Cell::new(0),
            memo: RefCell::default(),
            paths: RefCell::default(),
            free: RefCell::default(),
        }
    }

    /// Looks at the cancel flag and the clock every [`CHECK_EVERY`] calls.
    #[inline]
    pub fn check(&self) -> Result<(), SparqlError> {
        let t = self.tick.get() + 1;
        if t >= CHECK_EVERY {
            self.tick.set(0);
            self.guard.check()?;
        } else {
            self.tick.set(t);
        }
        Ok(())
    }

    /// Whether `id` is a dictionary id (so it can appear in the file's quads).
    #[inline]
    pub fn in_dict(&self, id: Id) -> bool {
        id != UNBOUND && id <= self.n
    }

    /// The id of a term: its dictionary id, or a query-local one.
    pub fn intern(&self, t: Term) -> Result<Id, SparqlError> {
        if let Some(&id) = self.local_ids.borrow().get(&t) {
            return Ok(id);
        }
        let id = match self.rete.id_of(t.as_ref())? {
            Some(id) => id,
            None => {
                let mut l = self.locals.borrow_mut();
                l.push(t.clone());
                self.n + l.len() as u64
            }
        };
        // Dictionary hits are remembered too: literals computed per row repeat a lot.
        let mut ids = self.local_ids.borrow_mut();
        if ids.len() < CACHE_LIMIT || id > self.n {
            ids.insert(t, id);
        }
        Ok(id)
    }

    /// A query-local id for `t` without looking it up in the dictionary: only for values that
    /// are never compared by id (see [`Ctx::free`]).
    /// The id is marked [`ONCE`]: the projection takes the term out instead of copying it.
    pub fn intern_unchecked(&self, t: Term) -> Id {
        let mut o = self.once.borrow_mut();
        o.terms.push(t);
        o.live += 1;
        ONCE | (o.terms.len() - 1) as u64
    }

    /// The term of `id` for the final projection, which reads each row once: a projection-only
    /// value ([`ONCE`]) is moved out, not copied.
    pub fn take(&self, id: Id) -> Result<Term, SparqlError> {
        if id & ONCE == 0 {
            return self.term(id);
        }
        let mut o = self.once.borrow_mut();
        let t = o
            .terms
            .get_mut((id & !ONCE) as usize)
            .map(|t| std::mem::replace(t, Term::NamedNode(oxrdf::NamedNode::new_unchecked(""))))
            .ok_or_else(|| SparqlError::Evaluation(format!("unknown term id {id}")))?;
        o.live -= 1;
        // Every value handed out was taken: no row holds one of these ids any more.
        if o.live == 0 {
            o.terms.clear();
        }
        Ok(t)
    }

    /// Whether `slot` holds projection-only values.
    pub fn is_free(&self, slot: usize) -> bool {
        self.free.borrow().get(slot).copied().unwrap_or(false)
    }

    /// The id of an expression value.
    pub fn intern_expr(&self, t: ExpressionTerm) -> Result<Id, SparqlError> {
        self.intern(t.into())
    }

    /// The term of `id` (which must not be [`UNBOUND`]).
    pub fn term(&self, id: Id) -> Result<Term, SparqlError> {
        if id & ONCE != 0 {
            return self
                .once
                .borrow()
                .terms
                .get((id & !ONCE) as usize)
                .cloned()
                .ok_or_else(|| SparqlError::Evaluation(format!("unknown term id {id}")));
        }
        if id > self.n {
            return self
                .locals
                .borrow()
                .get((id - self.n - 1) as usize)
                .cloned()
                .ok_or_else(|| SparqlError::Evaluation(format!("unknown term id {id}")));
        }
        Ok(self.decoder.borrow_mut().term(id)?)
    }

    /// The decoded value of `id`, for expressions (cached: for constants and values read often).
    pub fn expr(&self, id: Id) -> Result<Rc<ExpressionTerm>, SparqlError> {
        if let Some(t) = self.exprs.borrow().get(&id) {
            return Ok(t.clone());
        }
        let t = Rc::new(ExpressionTerm::from(self.term(id)?));
        self.remember(id, &t);
        Ok(t)
    }

    fn remember(&self, id: Id, t: &Rc<ExpressionTerm>) {
        let mut c = self.exprs.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(id, t.clone());
    }

    /// The decoded value of a variable's `id`. Only parsed values (numbers, dates, booleans…)
    /// are cached: a string or an IRI decodes with one allocation, as a cache entry would take,
    /// and a stream of distinct names would only fill the cache.
    pub fn value(&self, id: Id) -> Result<Value, SparqlError> {
        if let Some(t) = self.exprs.borrow().get(&id) {
            return Ok(Value::Shared(t.clone()));
        }
        let t = ExpressionTerm::from(self.term(id)?);
        Ok(match t {
            ExpressionTerm::StringLiteral(_)
            | ExpressionTerm::LangStringLiteral { .. }
            | ExpressionTerm::NamedNode(_)
            | ExpressionTerm::BlankNode(_) => Value::Own(t),
            t => {
                let t = Rc::new(t);
                self.remember(id, &t);
                Value::Shared(t)
            }
        })
    }

    /// The boolean or numeric value of the term `id` (`None` for any other term; IRIs, blank
    /// nodes and strings are told by their id, without decoding).
    pub fn scalar(&self, id: Id) -> Result<Option<Sc>, SparqlError> {
        if self.untyped(id)? {
            return Ok(None);
        }
        if let Some(v) = self.scalars.borrow().get(&id) {
            return Ok(*v);
        }
        let v = Sc::of(&ExpressionTerm::from(self.term(id)?));
        let mut c = self.scalars.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(id, v);
        Ok(v)
    }

    /// The id of a computed boolean or number.
    pub fn intern_scalar(&self, v: Sc) -> Result<Id, SparqlError> {
        let key = match v {
            Sc::Int(i) => ScKey::Int(i),
            Sc::Bool(b) => ScKey::Bool(b),
            _ => return self.intern_expr(v.term()),
        };
        if let Some(&id) = self.scalar_ids.borrow().get(&key) {
            return Ok(id);
        }
        let id = self.intern_expr(v.term())?;
        let mut c = self.scalar_ids.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(key, id);
        Ok(id)
    }

    /// `STR` of the term `id`: its lexical form as a simple literal (`None` for a blank node).
    /// Read from the term, not from its decoded value, which is canonical (`"01"^^xsd:integer`
    /// decodes to 1) while RDF keeps the lexical form.
    pub fn lexical(&self, id: Id) -> Result<Option<ExpressionTerm>, SparqlError> {
        Ok(match self.term(id)? {
            Term::NamedNode(n) => Some(ExpressionTerm::StringLiteral(n.into_string())),
            Term::Literal(l) => Some(ExpressionTerm::StringLiteral(l.destruct().0)),
            _ => None,
        })
    }

    /// Runs `f` on the text of dictionary term `id`, read in place from its block (`None`
    /// for a query-local term: the caller goes through its value).
    pub fn with_text<R>(
        &self,
        id: Id,
        f: impl FnOnce(Text<'_>) -> R,
    ) -> Result<Option<R>, SparqlError> {
        if !self.in_dict(id) {
            return Ok(None);
        }
        let mut f = Some(f);
        let r = self.decoder.borrow_mut().with_bytes(id, |bytes| {
            text_of(bytes).and_then(|t| f.take().map(|f| f(t)))
        })?;
        match r {
            Some(r) => Ok(Some(r)),
            None => Err(SparqlError::Evaluation(format!(
                "term {id} of the dictionary is not well formed"
            ))),
        }
    }

    /// Whether the term `id` is certainly not a literal with a datatype other than `xsd:string`
    /// / `rdf:langString`. Between such terms, `=` is term equality: different ids are
    /// unequal without decoding either.
    pub fn untyped(&self, id: Id) -> Result<bool, SparqlError> {
        if id & ONCE != 0 {
            return Ok(false);
        }
        if id > self.n {
            return Ok(match self.locals.borrow().get((id - self.n - 1) as usize) {
                Some(Term::Literal(l)) => {
                    l.language().is_some()
                        || l.datatype().as_str() == "http://www.w3.org/2001/XMLSchema#string"
                }
                Some(_) => true,
                None => false,
            });
        }
        let first = match self.first_typed.get() {
            Some(f) => *f,
            None => *self
                .first_typed
                .get_or_init(|| self.rete.first_of_kind(TermKind::TypedLiteral).unwrap_or(0)),
        };
        Ok(id < first)
    }

    /// The quads of `s p o` in the active graph (each triple once over the union).
    pub fn scan(
        &self,
        s: Option<Id>,
        p: Option<Id>,
        o: Option<Id>,
        g: Active,
    ) -> Result<Scan, SparqlError> {
        let graph = match g {
            Active::Default => InGraph::Quads(GraphMatch::Default),
            Active::Named(n) => InGraph::Quads(GraphMatch::Named(n)),
            Active::Union => InGraph::Union,
        };
        Ok(crate::union::scan(&self.rete, s, p, o, graph)?)
    }

    /// Whether block counts over every graph count the union's triples (see
    /// [`crate::union::union_is_plain`]).
    pub fn union_is_plain(&self) -> Result<bool, SparqlError> {
        if let Some(&b) = self.plain_union.get() {
            return Ok(b);
        }
        let b = crate::union::union_is_plain(&self.rete)?;
        Ok(*self.plain_union.get_or_init(|| b))
    }

    /// Ids of the named graphs (from the card).
    pub fn named_graphs(&self) -> Result<&[Id], SparqlError> {
        if let Some(g) = self.graphs.get() {
            return Ok(g);
        }
        let card = self.rete.card()?;
        let mut ids = Vec::new();
        for g in &card.graphs {
            let term = Term::from_str(&g.term)
                .map_err(|e| SparqlError::Evaluation(format!("invalid graph name in card: {e}")))?;
            if let Some(id) = self.rete.id_of(term.as_ref())? {
                if id != DEFAULT_GRAPH {
                    ids.push(id);
                }
            }
        }
        ids.sort_unstable();
        Ok(self.graphs.get_or_init(|| ids))
    }

    /// A fresh blank node.
    pub fn fresh_bnode(&self) -> BlankNode {
        let n = self.bnodes.get();
        self.bnodes.set(n + 1);
        BlankNode::new_unchecked(format!(
            "rq{n:x}x{:x}",
            std::ptr::from_ref(self) as usize & 0xffff
        ))
    }

    /// Counts `bytes` against the query's memory limit until the query ends.
    pub fn charge(&self, bytes: usize, what: &'static str) -> Result<(), SparqlError> {
        self.guard.memory.charge(bytes, what)
    }

    /// A counter of the bytes one operator holds (given back when it is dropped).
    pub fn held(&self, what: &'static str) -> Held {
        Held::new(self.guard.memory.clone(), what)
    }
}
