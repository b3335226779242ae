//! Booleans and numbers evaluated without building an `ExpressionTerm` per step: filters such
//! as `?a * 2 > 150 && ?a != 79` or `STRLEN(?n) > 10` compute on small `Copy` values, read
//! from a per-query cache of the typed terms' values (ids of IRIs, blank nodes and strings are
//! told apart by their id range, nothing decoded). Anything else falls back to the general
//! evaluator in `expr`, with the same answers.

use super::ctx::{Active, Row, Text, UNBOUND};
use super::eval::Engine;
use super::expr::{ebv, logic, Func, Op};
use super::plan::Ex;
use crate::SparqlError;
use oxsdatatypes::{Boolean, Decimal, Double, Float, Integer};
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;

/// A boolean or numeric value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sc {
    Bool(bool),
    Int(Integer),
    Dec(Decimal),
    Float(Float),
    Double(Double),
}

impl Sc {
    /// The scalar of a decoded value (`None`: not a boolean or a number).
    pub fn of(e: &E) -> Option<Self> {
        Some(match e {
            E::BooleanLiteral(b) => Self::Bool((*b).into()),
            E::IntegerLiteral(i) => Self::Int(*i),
            E::DecimalLiteral(d) => Self::Dec(*d),
            E::FloatLiteral(f) => Self::Float(*f),
            E::DoubleLiteral(f) => Self::Double(*f),
            _ => return None,
        })
    }

    /// The value as an expression term.
    pub fn term(self) -> E {
        match self {
            Self::Bool(b) => E::BooleanLiteral(Boolean::from(b)),
            Self::Int(i) => E::IntegerLiteral(i),
            Self::Dec(d) => E::DecimalLiteral(d),
            Self::Float(f) => E::FloatLiteral(f),
            Self::Double(f) => E::DoubleLiteral(f),
        }
    }

    fn ebv(self) -> Option<bool> {
        ebv(&self.term())
    }
}

/// A pair of numbers promoted to a common type (XPath numeric type promotion).
pub enum Pair {
    I(Integer, Integer),
    D(Decimal, Decimal),
    F(Float, Float),
    Db(Double, Double),
}

/// `a` and `b` promoted to a common numeric type (`None`: not two numbers).
pub fn promote(a: Sc, b: Sc) -> Option<Pair> {
    use Sc::*;
    Some(match (a, b) {
        (Int(x), Int(y)) => Pair::I(x, y),
        (Int(x), Dec(y)) => Pair::D(x.into(), y),
        (Dec(x), Int(y)) => Pair::D(x, y.into()),
        (Dec(x), Dec(y)) => Pair::D(x, y),
        (Float(x), Float(y)) => Pair::F(x, y),
        (Float(x), Int(y)) => Pair::F(x, y.into()),
        (Int(x), Float(y)) => Pair::F(x.into(), y),
        (Float(x), Dec(y)) => Pair::F(x, y.into()),
        (Dec(x), Float(y)) => Pair::F(x.into(), y),
        (Double(x), Double(y)) => Pair::Db(x, y),
        (Double(x), Float(y)) => Pair::Db(x, y.into()),
        (Float(x), Double(y)) => Pair::Db(x.into(), y),
        (Double(x), Int(y)) => Pair::Db(x, y.into()),
        (Int(x), Double(y)) => Pair::Db(x.into(), y),
        (Double(x), Dec(y)) => Pair::Db(x, y.into()),
        (Dec(x), Double(y)) => Pair::Db(x.into(), y),
        _ => return None,
    })
}

impl Pair {
    /// Whether the two are equal.
    pub fn equal(self) -> bool {
        match self {
            Self::I(x, y) => x == y,
            Self::D(x, y) => x == y,
            Self::F(x, y) => x == y,
            Self::Db(x, y) => x == y,
        }
    }

    /// How the first compares with the second (`None`: NaN).
    pub fn order(self) -> Option<Ordering> {
        match self {
            Self::I(x, y) => x.partial_cmp(&y),
            Self::D(x, y) => x.partial_cmp(&y),
            Self::F(x, y) => x.partial_cmp(&y),
            Self::Db(x, y) => x.partial_cmp(&y),
        }
    }
}

/// `a op b` on numbers (`None`: an error such as an overflow or a division by zero).
pub fn arith(op: Op, a: Sc, b: Sc) -> Option<Sc> {
    Some(match promote(a, b)? {
        Pair::I(x, y) => match op {
            Op::Add => Sc::Int(x.checked_add(y)?),
            Op::Sub => Sc::Int(x.checked_sub(y)?),
            Op::Mul => Sc::Int(x.checked_mul(y)?),
            Op::Div => Sc::Dec(Decimal::from(x).checked_div(y)?),
        },
        Pair::D(x, y) => Sc::Dec(match op {
            Op::Add => x.checked_add(y)?,
            Op::Sub => x.checked_sub(y)?,
            Op::Mul => x.checked_mul(y)?,
            Op::Div => x.checked_div(y)?,
        }),
        Pair::F(x, y) => Sc::Float(match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Div => x / y,
        }),
        Pair::Db(x, y) => Sc::Double(match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Div => x / y,
        }),
    })
}

/// `a = b` as `expr::equals` gives it for booleans and numbers.
fn equals(a: Sc, b: Sc) -> bool {
    match (promote(a, b), a, b) {
        (Some(p), ..) => p.equal(),
        (None, Sc::Bool(x), Sc::Bool(y)) => x == y,
        // A boolean and a number: different values of known types.
        (None, ..) => false,
    }
}

/// `a < b` etc. as `expr::partial_cmp` gives it for booleans and numbers.
pub fn partial_cmp(a: Sc, b: Sc) -> Option<Ordering> {
    match (promote(a, b), a, b) {
        (Some(p), ..) => p.order(),
        (None, Sc::Bool(x), Sc::Bool(y)) => x.partial_cmp(&y),
        (None, ..) => None,
    }
}

/// The outcome of the fast path.
#[derive(Debug, Clone, Copy)]
pub enum Fast {
    /// Not a boolean / numeric expression over such values: ask the general evaluator.
    No,
    /// An evaluation error or an unbound variable (SPARQL's error value).
    Err,
    /// The value.
    Val(Sc),
}

impl Engine {
    /// The value of `e` if it is a boolean or a number computed from booleans and numbers.
    pub fn scalar(&self, e: &Ex, r: &Row, g: Active) -> Result<Fast, SparqlError> {
        let opt = |v: Option<Sc>| match v {
            Some(v) => Fast::Val(v),
            None => Fast::Err,
        };
        Ok(match e {
            Ex::Var(s) => {
                let id = r[*s];
                if id == UNBOUND {
                    Fast::Err
                } else {
                    match self.ctx.scalar(id)? {
                        Some(v) => Fast::Val(v),
                        None => Fast::No,
                    }
                }
            }
            Ex::Const(c) => match self.ctx.scalar(*c)? {
                Some(v) => Fast::Val(v),
                None => Fast::No,
            },
            Ex::Bound(s) => Fast::Val(Sc::Bool(r[*s] != UNBOUND)),
            Ex::Or(a, b) | Ex::And(a, b) => opt(logic(
                self.ebv_of(a, r, g)?,
                || self.ebv_of(b, r, g),
                matches!(e, Ex::Or(..)),
            )?
            .map(Sc::Bool)),
            Ex::Not(a) => opt(self.ebv_of(a, r, g)?.map(|b| Sc::Bool(!b))),
            Ex::Equal(a, b) => {
                if let (Ex::Var(_) | Ex::Const(_), Ex::Var(_) | Ex::Const(_)) = (&**a, &**b) {
                    let (x, y) = (a.id_in(r), b.id_in(r));
                    if x == UNBOUND || y == UNBOUND {
                        return Ok(Fast::Err);
                    }
                    // IRIs, blank nodes and strings: equal exactly when they are the same term.
                    if self.ctx.untyped(x)? && self.ctx.untyped(y)? {
                        return Ok(Fast::Val(Sc::Bool(x == y)));
                    }
                }
                match (self.scalar(a, r, g)?, self.scalar(b, r, g)?) {
                    (Fast::Val(x), Fast::Val(y)) => Fast::Val(Sc::Bool(equals(x, y))),
                    (Fast::No, _) | (_, Fast::No) => Fast::No,
                    _ => Fast::Err,
                }
            }
            Ex::Cmp(a, b, accept) => match (self.scalar(a, r, g)?, self.scalar(b, r, g)?) {
                (Fast::Val(x), Fast::Val(y)) => opt(partial_cmp(x, y).map(|o| {
                    Sc::Bool(match o {
                        Ordering::Less => accept[0],
                        Ordering::Equal => accept[1],
                        Ordering::Greater => accept[2],
                    })
                })),
                (Fast::No, _) | (_, Fast::No) => Fast::No,
                _ => Fast::Err,
            },
            Ex::Arith(op, a, b) => match (self.scalar(a, r, g)?, self.scalar(b, r, g)?) {
                (Fast::Val(x), Fast::Val(y)) => opt(arith(*op, x, y)),
                (Fast::No, _) | (_, Fast::No) => Fast::No,
                _ => Fast::Err,
            },
            Ex::Neg(a) => match self.scalar(a, r, g)? {
                Fast::Val(Sc::Bool(_)) => Fast::Err,
                Fast::Val(Sc::Int(i)) => opt(i.checked_neg().map(Sc::Int)),
                Fast::Val(Sc::Dec(d)) => opt(d.checked_neg().map(Sc::Dec)),
                Fast::Val(Sc::Float(f)) => Fast::Val(Sc::Float(-f)),
                Fast::Val(Sc::Double(f)) => Fast::Val(Sc::Double(-f)),
                other => other,
            },
            // STRLEN of a term counts the characters of its text in place.
            Ex::Call(Func::StrLen, args)
                if matches!(args.as_slice(), [Ex::Var(_) | Ex::Const(_)]) =>
            {
                let id = args[0].id_in(r);
                if id == UNBOUND {
                    return Ok(Fast::Err);
                }
                match self.ctx.with_text(id, |t| match t {
                    Text::Simple(s) | Text::Lang(s, _) => {
                        Some(i64::try_from(s.chars().count()).ok())
                    }
                    _ => None,
                })? {
                    Some(Some(n)) => opt(n.map(|n| Sc::Int(Integer::from(n)))),
                    // Typed literals (xsd:string among them) and query-local terms.
                    _ => Fast::No,
                }
            }
            Ex::Regex(a, re) if matches!(&**a, Ex::Var(_) | Ex::Const(_)) => {
                let id = a.id_in(r);
                if id == UNBOUND {
                    return Ok(Fast::Err);
                }
                match self.ctx.with_text(id, |t| match t {
                    Text::Simple(s) | Text::Lang(s, _) => Some(re.is_match(s)),
                    _ => None,
                })? {
                    Some(Some(hit)) => Fast::Val(Sc::Bool(hit)),
                    _ => Fast::No,
                }
            }
            _ => Fast::No,
        })
    }

    /// The effective boolean value of `e` (`None`: an error), through the fast path when it
    /// applies.
    pub fn ebv_of(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<bool>, SparqlError> {
        Ok(match self.scalar(e, r, g)? {
            Fast::Val(v) => v.ebv(),
            Fast::Err => None,
            Fast::No => self.general_ebv(e, r, g)?,
        })
    }
}
