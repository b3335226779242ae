//! Native plans: the operators a query compiles to (see [`super::compile`]) and the slot sets
//! the evaluator reads off them.

use super::expr::Func;
use super::row::{Id, UNBOUND};
use super::scalar::Op;
use crate::SparqlError;
use oxrdf::Variable;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// A row position.
pub type Slot = usize;

/// Why a query is not compiled natively.
#[derive(Debug)]
pub struct Unsupported(pub String);

/// Errors while planning: a real failure, or a construct left to the generic evaluator.
#[derive(Debug)]
pub enum PlanError {
    Unsupported(Unsupported),
    Error(SparqlError),
}

impl From<SparqlError> for PlanError {
    fn from(e: SparqlError) -> Self {
        Self::Error(e)
    }
}

impl From<rete_core::Error> for PlanError {
    fn from(e: rete_core::Error) -> Self {
        Self::Error(e.into())
    }
}

pub(super) fn unsupported<T>(what: impl Into<String>) -> Result<T, PlanError> {
    Err(PlanError::Unsupported(Unsupported(what.into())))
}

/// A position of a triple pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PTerm {
    Const(Id),
    Var(Slot),
}

/// A triple pattern over slots and ids.
#[derive(Debug, Clone, Copy)]
pub struct Tp {
    pub s: PTerm,
    pub p: PTerm,
    pub o: PTerm,
}

impl Tp {
    /// How bound the pattern is given the slots `is_bound` names: positions bound (constants
    /// and bound variables), variables, and whether a bound variable connects it to them.
    pub fn bound_shape(&self, is_bound: impl Fn(Slot) -> bool) -> (u8, u8, bool) {
        let (mut bound_pos, mut vars, mut connected) = (0u8, 0u8, false);
        for x in [self.s, self.p, self.o] {
            match x {
                PTerm::Const(_) => bound_pos += 1,
                PTerm::Var(s) => {
                    vars += 1;
                    if is_bound(s) {
                        bound_pos += 1;
                        connected = true;
                    }
                }
            }
        }
        (bound_pos, vars, connected)
    }
}

/// A property path over ids.
#[derive(Debug, Clone)]
pub enum PathE {
    Pred(Id),
    Inv(Box<PathE>),
    Seq(Box<PathE>, Box<PathE>),
    Alt(Box<PathE>, Box<PathE>),
    Star(Box<PathE>),
    Plus(Box<PathE>),
    Opt(Box<PathE>),
    /// Any predicate but these (forward).
    Neg(Vec<Id>),
}

/// An aggregate function.
#[derive(Debug, Clone)]
pub enum AggKind {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Sample,
    GroupConcat(String),
}

/// An aggregate: `expr` is `None` for `COUNT(*)`.
#[derive(Debug, Clone)]
pub struct Agg {
    pub kind: AggKind,
    pub distinct: bool,
    pub expr: Option<Ex>,
}

/// An expression over slots.
#[derive(Debug, Clone)]
pub enum Ex {
    Const(Id),
    Var(Slot),
    Or(Box<Ex>, Box<Ex>),
    And(Box<Ex>, Box<Ex>),
    Not(Box<Ex>),
    Equal(Box<Ex>, Box<Ex>),
    SameTerm(Box<Ex>, Box<Ex>),
    /// `a cmp b` holds when the ordering of `a` vs `b` is one of the accepted ones.
    Cmp(Box<Ex>, Box<Ex>, [bool; 3]),
    In(Box<Ex>, Vec<Ex>),
    Arith(Op, Box<Ex>, Box<Ex>),
    Neg(Box<Ex>),
    Plus(Box<Ex>),
    Bound(Slot),
    If(Box<Ex>, Box<Ex>, Box<Ex>),
    Coalesce(Vec<Ex>),
    Exists(Rc<Plan>),
    Call(Func, Vec<Ex>),
    Regex(Box<Ex>, Rc<regex::Regex>),
    Replace(Box<Ex>, Rc<regex::Regex>, Box<Ex>),
    BNode(Option<Box<Ex>>),
}

impl Ex {
    /// The term id a variable or constant stands for in `row` (`UNBOUND` for an unbound
    /// variable or any other expression).
    pub fn id_in(&self, row: &[Id]) -> Id {
        match self {
            Self::Var(s) => row[*s],
            Self::Const(c) => *c,
            _ => UNBOUND,
        }
    }
}

/// A native plan node.
#[derive(Debug)]
pub enum Plan {
    /// Triple patterns joined in this order.
    Bgp(Vec<Tp>),
    Path {
        s: PTerm,
        path: PathE,
        o: PTerm,
    },
    Join(Rc<Plan>, Rc<Plan>),
    /// `risky`: slots that, bound by a parent, force bottom-up evaluation.
    LeftJoin {
        left: Rc<Plan>,
        right: Rc<Plan>,
        expr: Option<Ex>,
        risky: Vec<Slot>,
    },
    Filter {
        inner: Rc<Plan>,
        expr: Ex,
        risky: Vec<Slot>,
    },
    Union(Rc<Plan>, Rc<Plan>),
    Graph {
        name: PTerm,
        inner: Rc<Plan>,
    },
    Extend {
        inner: Rc<Plan>,
        binds: Vec<(Slot, Ex)>,
        risky: Vec<Slot>,
    },
    Minus {
        left: Rc<Plan>,
        right: Rc<Plan>,

        /// Slots certainly bound on both sides (hash keys).
        shared: Vec<Slot>,
        risky: Vec<Slot>,
    },
    Values {
        slots: Vec<Slot>,
        rows: Vec<Vec<Id>>,
    },
    /// Boundary nodes (subquery, aggregation, solution modifiers): `outputs` are the slots they
    /// bind.
    Project {
        inner: Rc<Plan>,
        keep: Vec<Slot>,
    },
    Distinct(Rc<Plan>, Vec<Slot>),
    Slice {
        inner: Rc<Plan>,
        start: usize,
        len: Option<usize>,
        outputs: Vec<Slot>,
    },
    OrderBy {
        inner: Rc<Plan>,
        keys: Vec<(Ex, bool)>,
        /// Only the first `limit` rows are needed (ORDER BY + LIMIT).
        limit: Option<usize>,
        outputs: Vec<Slot>,
    },
    Group {
        inner: Rc<Plan>,
        keys: Vec<Slot>,
        aggs: Vec<(Slot, Agg)>,
    },
}

/// The compiled query.
#[derive(Debug)]
pub struct Compiled {
    pub root: Rc<Plan>,
    pub slots: usize,
    /// Projected variables and their slots (SELECT).
    pub projection: Vec<(Variable, Slot)>,
    /// Scope of the top level (CONSTRUCT templates).
    pub top: FxHashMap<String, Slot>,
}

pub(super) fn union_sets(a: &[Slot], b: &[Slot]) -> Vec<Slot> {
    let mut v: Vec<Slot> = a.iter().chain(b).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

pub(super) fn inter_sets(a: &[Slot], b: &[Slot]) -> Vec<Slot> {
    let mut v: Vec<Slot> = a.iter().filter(|x| b.contains(x)).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

pub(super) fn minus_sets(a: &[Slot], b: &[Slot]) -> Vec<Slot> {
    let mut v: Vec<Slot> = a.iter().filter(|x| !b.contains(x)).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

pub(super) fn tp_slots(t: &Tp) -> impl Iterator<Item = Slot> {
    [t.s, t.p, t.o].into_iter().filter_map(|x| match x {
        PTerm::Var(s) => Some(s),
        PTerm::Const(_) => None,
    })
}

/// Slots certainly bound by every solution of `p`.
pub fn certain(p: &Plan) -> Vec<Slot> {
    match p {
        Plan::Bgp(tps) => {
            let v: Vec<Slot> = tps.iter().flat_map(tp_slots).collect();
            union_sets(&v, &[])
        }
        Plan::Path { s, o, .. } => tp_slots(&Tp {
            s: *s,
            p: PTerm::Const(UNBOUND),
            o: *o,
        })
        .collect::<Vec<_>>(),
        Plan::Join(a, b) => union_sets(&certain(a), &certain(b)),
        Plan::LeftJoin { left, .. } => certain(left),
        Plan::Filter { inner, .. } | Plan::Extend { inner, .. } => certain(inner),
        Plan::Union(a, b) => inter_sets(&certain(a), &certain(b)),
        Plan::Graph { name, inner } => match name {
            PTerm::Var(s) => union_sets(&certain(inner), &[*s]),
            PTerm::Const(_) => certain(inner),
        },
        Plan::Minus { left, .. } => certain(left),
        Plan::Values { slots, rows } => slots
            .iter()
            .enumerate()
            .filter(|(i, _)| rows.iter().all(|r| r[*i] != UNBOUND))
            .map(|(_, s)| *s)
            .collect(),
        Plan::Project { inner, keep } => inter_sets(&certain(inner), keep),
        Plan::Distinct(inner, _) | Plan::Slice { inner, .. } | Plan::OrderBy { inner, .. } => {
            certain(inner)
        }
        Plan::Group { .. } => Vec::new(),
    }
}

/// Every slot `p` may bind or read.
pub fn all_slots(p: &Plan) -> Vec<Slot> {
    let mut v = Vec::new();
    collect_slots(p, &mut v);
    union_sets(&v, &[])
}

fn collect_slots(p: &Plan, v: &mut Vec<Slot>) {
    match p {
        Plan::Bgp(tps) => v.extend(tps.iter().flat_map(tp_slots)),
        Plan::Path { s, o, .. } => {
            for t in [s, o] {
                if let PTerm::Var(x) = t {
                    v.push(*x);
                }
            }
        }
        Plan::Join(a, b) | Plan::Union(a, b) => {
            collect_slots(a, v);
            collect_slots(b, v);
        }
        Plan::LeftJoin {
            left, right, expr, ..
        } => {
            collect_slots(left, v);
            collect_slots(right, v);
            if let Some(e) = expr {
                ex_slots(e, v);
            }
        }
        Plan::Filter { inner, expr, .. } => {
            collect_slots(inner, v);
            ex_slots(expr, v);
        }
        Plan::Graph { name, inner } => {
            if let PTerm::Var(s) = name {
                v.push(*s);
            }
            collect_slots(inner, v);
        }
        Plan::Extend { inner, binds, .. } => {
            collect_slots(inner, v);
            for (s, e) in binds {
                v.push(*s);
                ex_slots(e, v);
            }
        }
        Plan::Minus { left, right, .. } => {
            collect_slots(left, v);
            collect_slots(right, v);
        }
        Plan::Values { slots, .. } => v.extend(slots),
        Plan::Project { keep, .. } => v.extend(keep),
        Plan::Distinct(_, outputs)
        | Plan::Slice { outputs, .. }
        | Plan::OrderBy { outputs, .. } => v.extend(outputs),
        Plan::Group { keys, aggs, .. } => {
            v.extend(keys);
            v.extend(aggs.iter().map(|(s, _)| *s));
        }
    }
}

/// Slots an expression reads (including inside EXISTS).
pub fn ex_slots(e: &Ex, v: &mut Vec<Slot>) {
    match e {
        Ex::Var(s) | Ex::Bound(s) => v.push(*s),
        Ex::Exists(p) => collect_slots(p, v),
        _ => e.children(&mut |c| ex_slots(c, v)),
    }
}

impl Ex {
    /// Calls `f` on each direct sub-expression (an EXISTS's pattern is not one).
    pub fn children(&self, f: &mut dyn FnMut(&Ex)) {
        match self {
            Ex::Const(_) | Ex::BNode(None) | Ex::Var(_) | Ex::Bound(_) | Ex::Exists(_) => {}
            Ex::Or(a, b)
            | Ex::And(a, b)
            | Ex::Equal(a, b)
            | Ex::SameTerm(a, b)
            | Ex::Cmp(a, b, _)
            | Ex::Arith(_, a, b)
            | Ex::Replace(a, _, b) => {
                f(a);
                f(b);
            }
            Ex::Not(a) | Ex::Neg(a) | Ex::Plus(a) | Ex::Regex(a, _) | Ex::BNode(Some(a)) => f(a),
            Ex::In(a, l) => {
                f(a);
                l.iter().for_each(&mut *f);
            }
            Ex::If(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            Ex::Coalesce(l) | Ex::Call(_, l) => l.iter().for_each(f),
        }
    }
}
