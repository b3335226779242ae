//! Booleans and numbers as small `Copy` values: XPath numeric promotion, arithmetic and
//! comparison without building an `ExpressionTerm` per step. The value semantics in `expr` and
//! the interpreter's fast path both compute on them; a leaf, so the per-query context can cache
//! them too.

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

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
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
pub fn equals(a: Sc, b: Sc) -> bool {
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
