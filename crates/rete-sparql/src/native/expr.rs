//! SPARQL expression semantics over decoded values: effective boolean value, comparisons,
//! arithmetic, the ordering used by ORDER BY / MIN / MAX, and the built-in functions the native
//! evaluator handles. `None` is an evaluation error (which SPARQL turns into "unbound" or
//! "filter false").

use super::ctx::{Active, Id, Row, Text, Value, UNBOUND};
use super::eval::Engine;
use super::plan::Ex;
use super::scalar::{self, Fast, Pair, Sc};
use crate::SparqlError;
use oxrdf::Literal;
use oxsdatatypes::{Boolean, Decimal, Double, Float, Integer};
use rustc_hash::FxHashMap;
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;
use std::rc::Rc;

/// Built-in functions evaluated natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Str,
    Lang,
    LangMatches,
    Datatype,
    Abs,
    Ceil,
    Floor,
    Round,
    Concat,
    SubStr,
    StrLen,
    UCase,
    LCase,
    Contains,
    StrStarts,
    StrEnds,
    StrBefore,
    StrAfter,
    IsIri,
    IsBlank,
    IsLiteral,
    IsNumeric,
    StrLang,
    StrDt,
    EncodeForUri,
}

impl Func {
    /// The native counterpart of a spargebra function, if any.
    pub fn from_spargebra(f: &spargebra::algebra::Function) -> Option<Self> {
        use spargebra::algebra::Function as F;
        Some(match f {
            F::Str => Self::Str,
            F::Lang => Self::Lang,
            F::LangMatches => Self::LangMatches,
            F::Datatype => Self::Datatype,
            F::Abs => Self::Abs,
            F::Ceil => Self::Ceil,
            F::Floor => Self::Floor,
            F::Round => Self::Round,
            F::Concat => Self::Concat,
            F::SubStr => Self::SubStr,
            F::StrLen => Self::StrLen,
            F::UCase => Self::UCase,
            F::LCase => Self::LCase,
            F::Contains => Self::Contains,
            F::StrStarts => Self::StrStarts,
            F::StrEnds => Self::StrEnds,
            F::StrBefore => Self::StrBefore,
            F::StrAfter => Self::StrAfter,
            F::IsIri => Self::IsIri,
            F::IsBlank => Self::IsBlank,
            F::IsLiteral => Self::IsLiteral,
            F::IsNumeric => Self::IsNumeric,
            F::StrLang => Self::StrLang,
            F::StrDt => Self::StrDt,
            F::EncodeForUri => Self::EncodeForUri,
            _ => return None,
        })
    }
}

/// Effective boolean value.
pub fn ebv(t: &E) -> Option<bool> {
    match t {
        E::BooleanLiteral(b) => Some((*b).into()),
        E::StringLiteral(s) => Some(!s.is_empty()),
        E::IntegerLiteral(i) => Some(*i != Integer::from(0)),
        E::DecimalLiteral(d) => Some(*d != Decimal::from(0)),
        E::FloatLiteral(f) => Some(!(f.is_nan() || *f == Float::from(0.0_f32))),
        E::DoubleLiteral(f) => Some(!(f.is_nan() || *f == Double::from(0.0))),
        _ => None,
    }
}

/// `a` and `b` promoted to a common numeric type (`None`: not two numbers).
fn promote(a: &E, b: &E) -> Option<Pair> {
    scalar::promote(Sc::of(a)?, Sc::of(b)?)
}

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// `a op b` on numbers.
pub fn arith(op: Op, a: &E, b: &E) -> Option<E> {
    scalar::arith(op, Sc::of(a)?, Sc::of(b)?).map(Sc::term)
}

/// `x || y` (`decisive` true) or `x && y` (`decisive` false) in SPARQL's three-valued logic
/// (`None`: an error): the decisive value on either side wins even over an error on the other;
/// `y` is not evaluated when `x` decides.
pub fn logic(
    x: Option<bool>,
    y: impl FnOnce() -> Result<Option<bool>, SparqlError>,
    decisive: bool,
) -> Result<Option<bool>, SparqlError> {
    if x == Some(decisive) {
        return Ok(x);
    }
    Ok(match (x, y()?) {
        (_, Some(v)) if v == decisive => Some(decisive),
        (Some(_), Some(_)) => Some(!decisive),
        _ => None,
    })
}

/// ABS, CEIL, FLOOR and ROUND, which keep the argument's numeric type (`None`: not a number,
/// or an overflow).
fn rounding(f: Func, e: &E) -> Option<E> {
    use Func::{Abs, Ceil, Floor};
    Some(match e {
        E::IntegerLiteral(i) if f == Abs => E::IntegerLiteral(i.checked_abs()?),
        E::IntegerLiteral(i) => E::IntegerLiteral(*i),
        E::DecimalLiteral(d) => E::DecimalLiteral(match f {
            Abs => d.checked_abs(),
            Ceil => d.checked_ceil(),
            Floor => d.checked_floor(),
            _ => d.checked_round(),
        }?),
        E::FloatLiteral(x) => E::FloatLiteral(match f {
            Abs => x.abs(),
            Ceil => x.ceil(),
            Floor => x.floor(),
            _ => x.round(),
        }),
        E::DoubleLiteral(x) => E::DoubleLiteral(match f {
            Abs => x.abs(),
            Ceil => x.ceil(),
            Floor => x.floor(),
            _ => x.round(),
        }),
        _ => return None,
    })
}

/// Unary minus.
pub fn negate(a: &E) -> Option<E> {
    Some(match a {
        E::IntegerLiteral(i) => E::IntegerLiteral(i.checked_neg()?),
        E::DecimalLiteral(d) => E::DecimalLiteral(d.checked_neg()?),
        E::FloatLiteral(f) => E::FloatLiteral(-*f),
        E::DoubleLiteral(f) => E::DoubleLiteral(-*f),
        _ => return None,
    })
}

/// Whether a value is numeric.
pub fn is_numeric(a: &E) -> bool {
    matches!(
        a,
        E::IntegerLiteral(_) | E::DecimalLiteral(_) | E::FloatLiteral(_) | E::DoubleLiteral(_)
    )
}

fn is_literal(a: &E) -> bool {
    !matches!(a, E::NamedNode(_) | E::BlankNode(_))
}

/// `a = b` (value equality, `None` for a type error).
pub fn equals(a: &E, b: &E) -> Option<bool> {
    if let Some(n) = promote(a, b) {
        return Some(n.equal());
    }
    match (a, b) {
        (E::StringLiteral(x), E::StringLiteral(y)) => Some(x == y),
        (E::BooleanLiteral(x), E::BooleanLiteral(y)) => Some(x == y),
        (E::DateTimeLiteral(x), E::DateTimeLiteral(y)) => Some(x == y),
        (E::NamedNode(x), E::NamedNode(y)) => Some(x == y),
        (E::BlankNode(x), E::BlankNode(y)) => Some(x == y),
        (
            E::LangStringLiteral {
                value: v1,
                language: l1,
            },
            E::LangStringLiteral {
                value: v2,
                language: l2,
            },
        ) => Some(v1 == v2 && l1 == l2),
        _ if a == b => Some(true),
        // Two literals of types whose values we do not know: not comparable.
        (E::OtherTypedLiteral { .. }, _) | (_, E::OtherTypedLiteral { .. })
            if is_literal(a) && is_literal(b) =>
        {
            None
        }
        _ => Some(false),
    }
}

/// `a < b` etc.: the ordering of comparable values (`None` for a type error).
pub fn partial_cmp(a: &E, b: &E) -> Option<Ordering> {
    if let Some(n) = promote(a, b) {
        return n.order();
    }
    match (a, b) {
        (E::StringLiteral(x), E::StringLiteral(y)) => x.partial_cmp(y),
        (E::BooleanLiteral(x), E::BooleanLiteral(y)) => x.partial_cmp(y),
        (E::DateTimeLiteral(x), E::DateTimeLiteral(y)) => x.partial_cmp(y),
        (
            E::LangStringLiteral {
                value: v1,
                language: l1,
            },
            E::LangStringLiteral {
                value: v2,
                language: l2,
            },
        ) if l1 == l2 => v1.partial_cmp(v2),
        _ => None,
    }
}

/// The total order of ORDER BY (and MIN / MAX): unbound < blank nodes < IRIs < literals,
/// comparable literals by value, others by lexical form, datatype, language.
pub fn order(a: Option<&E>, b: Option<&E>) -> Ordering {
    let (a, b) = match (a, b) {
        (None, None) => return Ordering::Equal,
        (None, _) => return Ordering::Less,
        (_, None) => return Ordering::Greater,
        (Some(a), Some(b)) => (a, b),
    };
    let rank = |t: &E| match t {
        E::BlankNode(_) => 0,
        E::NamedNode(_) => 1,
        _ => 2,
    };
    match rank(a).cmp(&rank(b)) {
        Ordering::Equal => {}
        o => return o,
    }
    match (a, b) {
        (E::BlankNode(x), E::BlankNode(y)) => x.as_str().cmp(y.as_str()),
        (E::NamedNode(x), E::NamedNode(y)) => x.as_str().cmp(y.as_str()),
        _ => match partial_cmp(a, b) {
            Some(o) => o,
            None => {
                let (oxrdf::Term::Literal(x), oxrdf::Term::Literal(y)) =
                    (oxrdf::Term::from(a.clone()), oxrdf::Term::from(b.clone()))
                else {
                    return Ordering::Equal;
                };
                (x.value(), x.datatype(), x.language()).cmp(&(
                    y.value(),
                    y.datatype(),
                    y.language(),
                ))
            }
        },
    }
}

/// The string and language of a string literal.
fn string(a: &E) -> Option<(&str, Option<&str>)> {
    match a {
        E::StringLiteral(s) => Some((s, None)),
        E::LangStringLiteral { value, language } => Some((value, Some(language))),
        _ => None,
    }
}

fn with_lang(s: String, lang: Option<&str>) -> E {
    match lang {
        Some(l) => E::LangStringLiteral {
            value: s,
            language: l.to_owned(),
        },
        None => E::StringLiteral(s),
    }
}

/// Argument compatibility of the two-string functions (CONTAINS, STRSTARTS…).
fn compatible<'a>(a: &'a E, b: &'a E) -> Option<(&'a str, &'a str, Option<&'a str>)> {
    let (x, lx) = string(a)?;
    let (y, ly) = string(b)?;
    match (lx, ly) {
        (_, None) => Some((x, y, lx)),
        (Some(l1), Some(l2)) if l1 == l2 => Some((x, y, lx)),
        _ => None,
    }
}

/// The lexical form of a term (STR).
pub fn str_of(a: &E) -> Option<String> {
    Some(match a {
        E::NamedNode(n) => n.as_str().to_owned(),
        E::BlankNode(_) => return None,
        E::StringLiteral(s) => s.clone(),
        E::LangStringLiteral { value, .. } => value.clone(),
        other => match oxrdf::Term::from(other.clone()) {
            oxrdf::Term::Literal(l) => l.value().to_owned(),
            _ => return None,
        },
    })
}

/// Applies a built-in function to evaluated arguments.
pub fn call<V: std::ops::Deref<Target = E>>(f: Func, args: &[V]) -> Option<E> {
    let arg = |i: usize| args.get(i).map(|a| &**a);
    Some(match f {
        Func::Str => E::StringLiteral(str_of(arg(0)?)?),
        Func::Lang => match arg(0)? {
            E::LangStringLiteral { language, .. } => E::StringLiteral(language.clone()),
            E::NamedNode(_) | E::BlankNode(_) => return None,
            _ => E::StringLiteral(String::new()),
        },
        Func::LangMatches => {
            let (E::StringLiteral(tag), E::StringLiteral(range)) = (arg(0)?, arg(1)?) else {
                return None;
            };
            let ok = if range == "*" {
                !tag.is_empty()
            } else {
                let (t, r) = (tag.to_ascii_lowercase(), range.to_ascii_lowercase());
                t == r || t.strip_prefix(&r).is_some_and(|rest| rest.starts_with('-'))
            };
            E::BooleanLiteral(ok.into())
        }
        Func::Datatype => match oxrdf::Term::from(arg(0)?.clone()) {
            oxrdf::Term::Literal(l) => E::NamedNode(l.datatype().into_owned()),
            _ => return None,
        },
        Func::Abs | Func::Ceil | Func::Floor | Func::Round => rounding(f, arg(0)?)?,
        Func::Concat => {
            let len = args
                .iter()
                .map(|a| string(a).map_or(0, |(s, _)| s.len()))
                .sum();
            let mut out = String::with_capacity(len);
            let mut lang: Option<Option<&str>> = None;
            for a in args {
                let (s, l) = string(a)?;
                out.push_str(s);
                lang = match lang {
                    None => Some(l),
                    Some(prev) if prev == l => Some(prev),
                    Some(_) => Some(None),
                };
            }
            with_lang(out, lang.flatten())
        }
        Func::SubStr => {
            let (s, l) = string(arg(0)?)?;
            with_lang(substr(s, arg(1)?, arg(2))?.to_owned(), l)
        }
        Func::StrLen => E::IntegerLiteral(Integer::from(
            i64::try_from(string(arg(0)?)?.0.chars().count()).ok()?,
        )),
        Func::UCase => {
            let (s, l) = string(arg(0)?)?;
            with_lang(s.to_uppercase(), l)
        }
        Func::LCase => {
            let (s, l) = string(arg(0)?)?;
            with_lang(s.to_lowercase(), l)
        }
        Func::Contains => {
            let (a, b, _) = compatible(arg(0)?, arg(1)?)?;
            E::BooleanLiteral(a.contains(b).into())
        }
        Func::StrStarts => {
            let (a, b, _) = compatible(arg(0)?, arg(1)?)?;
            E::BooleanLiteral(a.starts_with(b).into())
        }
        Func::StrEnds => {
            let (a, b, _) = compatible(arg(0)?, arg(1)?)?;
            E::BooleanLiteral(a.ends_with(b).into())
        }
        Func::StrBefore => {
            let (a, b, l) = compatible(arg(0)?, arg(1)?)?;
            match a.find(b) {
                Some(i) => with_lang(a[..i].to_owned(), l),
                None => E::StringLiteral(String::new()),
            }
        }
        Func::StrAfter => {
            let (a, b, l) = compatible(arg(0)?, arg(1)?)?;
            match a.find(b) {
                Some(i) => with_lang(a[i + b.len()..].to_owned(), l),
                None => E::StringLiteral(String::new()),
            }
        }
        Func::IsIri => E::BooleanLiteral(matches!(arg(0)?, E::NamedNode(_)).into()),
        Func::IsBlank => E::BooleanLiteral(matches!(arg(0)?, E::BlankNode(_)).into()),
        Func::IsLiteral => E::BooleanLiteral(is_literal(arg(0)?).into()),
        Func::IsNumeric => E::BooleanLiteral(is_numeric(arg(0)?).into()),
        Func::StrLang => {
            let (E::StringLiteral(s), E::StringLiteral(l)) = (arg(0)?, arg(1)?) else {
                return None;
            };
            let lit = Literal::new_language_tagged_literal(s.clone(), l.clone()).ok()?;
            E::from(oxrdf::Term::from(lit))
        }
        Func::StrDt => {
            let (E::StringLiteral(s), E::NamedNode(dt)) = (arg(0)?, arg(1)?) else {
                return None;
            };
            E::from(oxrdf::Term::from(Literal::new_typed_literal(
                s.clone(),
                dt.clone(),
            )))
        }
        Func::EncodeForUri => {
            let (s, _) = string(arg(0)?)?;
            let mut out = String::with_capacity(s.len());
            for b in s.bytes() {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                    out.push(char::from(b));
                } else {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            E::StringLiteral(out)
        }
    })
}

/// XPath fn:substring of `s`: the characters at positions p with
/// round(start) <= p < round(start) + round(len), positions from 1 (`None`: a non-numeric
/// argument). The kept characters are contiguous: one slice of the borrowed text.
fn substr<'a>(s: &'a str, start: &E, len: Option<&E>) -> Option<&'a str> {
    let num = |v: &E| -> Option<f64> {
        Some(match v {
            E::IntegerLiteral(i) => f64::from(Double::from(*i)),
            E::DecimalLiteral(d) => f64::from(Double::from(*d)),
            E::FloatLiteral(f) => f64::from(Double::from(*f)),
            E::DoubleLiteral(d) => f64::from(*d),
            _ => return None,
        })
    };
    let first = num(start)?.round();
    let end = match len {
        Some(n) => first + num(n)?.round(),
        None => f64::INFINITY,
    };
    if first.is_nan() || end.is_nan() {
        return Some("");
    }
    let mut from = s.len();
    let mut to = s.len();
    for (i, (at, _)) in s.char_indices().enumerate() {
        let p = (i + 1) as f64;
        if p >= end {
            to = at;
            break;
        }
        if p >= first && from == s.len() {
            from = at;
        }
    }
    Some(&s[from..to.max(from)])
}

/// Bytes a computed value holds (inline and its strings).
pub fn value_bytes(v: &E) -> usize {
    size_of::<E>()
        + match v {
            E::StringLiteral(s) => s.len(),
            E::LangStringLiteral { value, language } => value.len() + language.len(),
            E::OtherTypedLiteral { value, datatype } => value.len() + datatype.as_str().len(),
            E::NamedNode(n) => n.as_str().len(),
            E::BlankNode(b) => b.as_str().len(),
            _ => 0,
        }
}

pub fn boolean(b: bool) -> E {
    E::BooleanLiteral(Boolean::from(b))
}

/// `xsd:integer` value.
pub fn integer(i: i64) -> E {
    E::IntegerLiteral(Integer::from(i))
}

// Expression evaluation over rows: what the operators call.

impl Engine {
    /// The id of an expression's value (`None` on error / unbound).
    pub fn value_id(
        &self,
        e: &Ex,
        r: &Row,
        g: Active,
        bnodes: &mut FxHashMap<String, Id>,
    ) -> Result<Option<Id>, SparqlError> {
        match e {
            Ex::Var(s) => Ok((r[*s] != UNBOUND).then_some(r[*s])),
            Ex::Const(c) => Ok(Some(*c)),
            Ex::BNode(arg) => {
                let key = match arg {
                    None => None,
                    Some(a) => match self.value(a, r, g)? {
                        Some(v) => match &*v {
                            E::StringLiteral(s) => Some(s.clone()),
                            _ => return Ok(None),
                        },
                        None => return Ok(None),
                    },
                };
                if let Some(k) = &key {
                    if let Some(&id) = bnodes.get(k) {
                        return Ok(Some(id));
                    }
                }
                let id = self.ctx.intern(self.ctx.fresh_bnode().into())?;
                if let Some(k) = key {
                    bnodes.insert(k, id);
                }
                Ok(Some(id))
            }
            // STRDT makes a literal with the given lexical form (SPARQL 1.1 §17.4.3.14):
            // interned as that term, not through its value, which is canonical
            // (STRDT("2.50", xsd:decimal) is "2.50"^^xsd:decimal, not "2.5").
            Ex::Call(Func::StrDt, args) => {
                let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
                    return Ok(None);
                };
                let (Some(lex), Some(dt)) = (self.arg(a, r, g)?, self.arg(b, r, g)?) else {
                    return Ok(None);
                };
                let (E::StringLiteral(lex), E::NamedNode(dt)) = (&*lex, &*dt) else {
                    return Ok(None);
                };
                let lit = Literal::new_typed_literal(lex.as_str(), dt.clone());
                Ok(Some(self.ctx.intern(lit.into())?))
            }
            Ex::If(c, a, b) => match self.value(c, r, g)?.as_deref().and_then(ebv) {
                Some(true) => self.value_id(a, r, g, bnodes),
                Some(false) => self.value_id(b, r, g, bnodes),
                None => Ok(None),
            },
            Ex::Coalesce(list) => {
                for x in list {
                    if let Some(v) = self.value_id(x, r, g, bnodes)? {
                        return Ok(Some(v));
                    }
                }
                Ok(None)
            }
            other => {
                // A boolean or a number: its id from the scalar, no term built per row.
                if matches!(
                    other,
                    Ex::Arith(..)
                        | Ex::Cmp(..)
                        | Ex::Equal(..)
                        | Ex::And(..)
                        | Ex::Or(..)
                        | Ex::Not(_)
                        | Ex::Neg(_)
                        | Ex::Call(Func::StrLen, _)
                ) {
                    match self.scalar(other, r, g)? {
                        Fast::Val(v) => return Ok(Some(self.ctx.intern_scalar(v)?)),
                        Fast::Err => return Ok(None),
                        Fast::No => {}
                    }
                }
                match self.value(other, r, g)? {
                    Some(v) => Ok(Some(self.ctx.intern_expr(Rc::unwrap_or_clone(v))?)),
                    None => Ok(None),
                }
            }
        }
    }

    /// Whether a filter expression holds (errors count as false).
    pub fn truth(&self, e: &Ex, r: &Row, g: Active) -> Result<bool, SparqlError> {
        Ok(self.ebv_of(e, r, g)? == Some(true))
    }

    /// The effective boolean value of `e` through the general evaluator.
    pub(super) fn general_ebv(
        &self,
        e: &Ex,
        r: &Row,
        g: Active,
    ) -> Result<Option<bool>, SparqlError> {
        Ok(self.arg(e, r, g)?.as_deref().and_then(ebv))
    }

    fn operand(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<Value>, SparqlError> {
        self.arg(e, r, g)
    }

    /// The value of an expression (`None` on error / unbound).
    pub fn value(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<Rc<E>>, SparqlError> {
        match e {
            Ex::Const(c) => Ok(Some(self.ctx.expr(*c)?)),
            Ex::Var(s) => {
                if r[*s] == UNBOUND {
                    Ok(None)
                } else {
                    Ok(Some(self.ctx.value(r[*s])?.into_rc()))
                }
            }
            Ex::If(c, a, b) => match self.value(c, r, g)?.as_deref().and_then(ebv) {
                Some(true) => self.value(a, r, g),
                Some(false) => self.value(b, r, g),
                None => Ok(None),
            },
            Ex::Coalesce(list) => {
                for x in list {
                    if let Some(v) = self.value(x, r, g)? {
                        return Ok(Some(v));
                    }
                }
                Ok(None)
            }
            _ => Ok(self.compute(e, r, g)?.map(Rc::new)),
        }
    }

    /// The value of a function argument: a term's cached value is shared, a value computed
    /// for this row is used as it is (no `Rc` allocated around it).
    fn arg(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<Value>, SparqlError> {
        Ok(match e {
            Ex::Var(s) if r[*s] == UNBOUND => None,
            Ex::Var(s) => Some(self.ctx.value(r[*s])?),
            Ex::Const(_) | Ex::If(..) | Ex::Coalesce(_) => self.value(e, r, g)?.map(Value::Shared),
            _ => self.compute(e, r, g)?.map(Value::Own),
        })
    }

    /// Appends the string `e` evaluates to (a simple or language-tagged literal) to `out`;
    /// returns its language (`Some(None)`: none), `None` when it is not a string (an error).
    fn append_str(
        &self,
        e: &Ex,
        r: &Row,
        g: Active,
        out: &mut String,
    ) -> Result<Option<Option<String>>, SparqlError> {
        let id_of = |x: &Ex| match x {
            Ex::Var(s) => Some(r[*s]),
            Ex::Const(c) => Some(*c),
            _ => None,
        };
        match e {
            Ex::Var(_) | Ex::Const(_) => {
                let id = id_of(e).unwrap_or(UNBOUND);
                if id == UNBOUND {
                    return Ok(None);
                }
                if let Some(done) = self.ctx.with_text(id, |text| match text {
                    Text::Simple(s) => {
                        out.push_str(s);
                        Some(None)
                    }
                    Text::Lang(s, l) => {
                        out.push_str(s);
                        Some(Some(l.to_owned()))
                    }
                    _ => None,
                })? {
                    return Ok(done);
                }
            }
            Ex::Call(Func::Str, args) if args.len() == 1 && id_of(&args[0]).is_some() => {
                let id = id_of(&args[0]).unwrap_or(UNBOUND);
                if id == UNBOUND {
                    return Ok(None);
                }
                if let Some(done) = self.ctx.with_text(id, |text| match text {
                    Text::Iri(s) | Text::Simple(s) | Text::Lang(s, _) | Text::Typed(s) => {
                        out.push_str(s);
                        Some(None)
                    }
                    Text::Blank => None,
                })? {
                    return Ok(done);
                }
            }
            Ex::Call(Func::SubStr, args)
                if (2..=3).contains(&args.len()) && id_of(&args[0]).is_some() =>
            {
                let id = id_of(&args[0]).unwrap_or(UNBOUND);
                let (Some(start), len) = (
                    self.value(&args[1], r, g)?,
                    match args.get(2) {
                        Some(x) => match self.value(x, r, g)? {
                            Some(v) => Some(v),
                            None => return Ok(None),
                        },
                        None => None,
                    },
                ) else {
                    return Ok(None);
                };
                if id == UNBOUND {
                    return Ok(None);
                }
                if let Some(done) = self.ctx.with_text(id, |text| {
                    let (s, l) = match text {
                        Text::Simple(s) => (s, None),
                        Text::Lang(s, l) => (s, Some(l.to_owned())),
                        _ => return None,
                    };
                    out.push_str(substr(s, &start, len.as_deref())?);
                    Some(l)
                })? {
                    return Ok(done);
                }
            }
            _ => {}
        }
        // Anything else (and query-local terms): through the value.
        let Some(v) = self.arg(e, r, g)? else {
            return Ok(None);
        };
        Ok(string(&v).map(|(s, l)| {
            out.push_str(s);
            l.map(str::to_owned)
        }))
    }

    /// The value of an expression, owned (no `Rc` around a value computed for this row).
    pub fn value_owned(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<E>, SparqlError> {
        match e {
            Ex::Const(_) | Ex::Var(_) | Ex::If(..) | Ex::Coalesce(_) => {
                Ok(self.value(e, r, g)?.map(Rc::unwrap_or_clone))
            }
            _ => self.compute(e, r, g),
        }
    }

    /// The value of a non-trivial expression.
    fn compute(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<E>, SparqlError> {
        // Booleans and numbers from booleans and numbers: no `ExpressionTerm` per step.
        if let Ex::Or(..)
        | Ex::And(..)
        | Ex::Not(_)
        | Ex::Equal(..)
        | Ex::Cmp(..)
        | Ex::Arith(..)
        | Ex::Neg(_) = e
        {
            match self.scalar(e, r, g)? {
                Fast::Val(v) => return Ok(Some(v.term())),
                Fast::Err => return Ok(None),
                Fast::No => {}
            }
        }
        Ok(match e {
            Ex::Const(_) | Ex::Var(_) | Ex::If(..) | Ex::Coalesce(_) => {
                self.value(e, r, g)?.map(Rc::unwrap_or_clone)
            }
            Ex::Or(a, b) | Ex::And(a, b) => logic(
                self.arg(a, r, g)?.as_deref().and_then(ebv),
                || Ok(self.arg(b, r, g)?.as_deref().and_then(ebv)),
                matches!(e, Ex::Or(..)),
            )?
            .map(boolean),
            Ex::Not(a) => self
                .arg(a, r, g)?
                .as_deref()
                .and_then(ebv)
                .map(|b| boolean(!b)),
            Ex::Equal(a, b) => {
                // Same id: same term, so equal (NaN aside, which the value path handles).
                if let (Ex::Var(_) | Ex::Const(_), Ex::Var(_) | Ex::Const(_)) = (&**a, &**b) {
                    let (x, y) = (a.id_in(r), b.id_in(r));
                    if x == UNBOUND || y == UNBOUND {
                        return Ok(None);
                    }
                    if x == y {
                        let t = self.ctx.expr(x)?;
                        return Ok(equals(&t, &t).map(boolean));
                    }
                    // Different IRIs, blank nodes, strings: unequal, nothing to decode.
                    if self.ctx.untyped(x)? && self.ctx.untyped(y)? {
                        return Ok(Some(boolean(false)));
                    }
                }
                match (self.operand(a, r, g)?, self.operand(b, r, g)?) {
                    (Some(x), Some(y)) => equals(&x, &y).map(boolean),
                    _ => None,
                }
            }
            Ex::SameTerm(a, b) => {
                let mut scratch = FxHashMap::default();
                match (
                    self.value_id(a, r, g, &mut scratch)?,
                    self.value_id(b, r, g, &mut scratch)?,
                ) {
                    (Some(x), Some(y)) => Some(boolean(x == y)),
                    _ => None,
                }
            }
            Ex::Cmp(a, b, accept) => match (self.operand(a, r, g)?, self.operand(b, r, g)?) {
                (Some(x), Some(y)) => partial_cmp(&x, &y).map(|o| {
                    boolean(match o {
                        Ordering::Less => accept[0],
                        Ordering::Equal => accept[1],
                        Ordering::Greater => accept[2],
                    })
                }),
                _ => None,
            },
            Ex::In(a, list) => {
                let Some(x) = self.arg(a, r, g)? else {
                    return Ok(None);
                };
                let mut error = false;
                for y in list {
                    match self.arg(y, r, g)?.and_then(|y| equals(&x, &y)) {
                        Some(true) => return Ok(Some(boolean(true))),
                        Some(false) => {}
                        None => error = true,
                    }
                }
                if error {
                    None
                } else {
                    Some(boolean(false))
                }
            }
            Ex::Arith(op, a, b) => match (self.arg(a, r, g)?, self.arg(b, r, g)?) {
                (Some(x), Some(y)) => arith(*op, &x, &y),
                _ => None,
            },
            Ex::Neg(a) => self.arg(a, r, g)?.and_then(|x| negate(&x)),
            Ex::Plus(a) => self
                .value(a, r, g)?
                .filter(|x| is_numeric(x))
                .map(Rc::unwrap_or_clone),
            Ex::Bound(s) => Some(boolean(r[*s] != UNBOUND)),
            Ex::Exists(p) => {
                let sub = Engine {
                    substitute: true,
                    ..self.clone()
                };
                let found = match sub.eval(p, r.clone(), g).next() {
                    Some(Ok(_)) => true,
                    Some(Err(e)) => return Err(e),
                    None => false,
                };
                Some(boolean(found))
            }
            // STR of a term reads its lexical form, which the decoded value may have lost
            // ("01"^^xsd:integer decodes to the integer 1).
            Ex::Call(Func::Str, args)
                if matches!(
                    args.first(),
                    Some(
                        Ex::Var(_)
                            | Ex::Const(_)
                            | Ex::If(..)
                            | Ex::Coalesce(_)
                            | Ex::Call(Func::StrDt, _)
                    )
                ) =>
            {
                let mut scratch = FxHashMap::default();
                match self.value_id(&args[0], r, g, &mut scratch)? {
                    Some(id) => self.ctx.lexical(id)?,
                    None => None,
                }
            }
            // STRLEN and REGEX of a term read its text in place (no decoded copy).
            Ex::Call(Func::StrLen, args)
                if matches!(args.as_slice(), [Ex::Var(_) | Ex::Const(_)]) =>
            {
                let id = args[0].id_in(r);
                if id == UNBOUND {
                    return Ok(None);
                }
                let len = self.ctx.with_text(id, |t| match t {
                    Text::Simple(s) | Text::Lang(s, _) => i64::try_from(s.chars().count()).ok(),
                    _ => None,
                })?;
                match len {
                    Some(n) => n.map(integer),
                    None => self
                        .arg(&args[0], r, g)?
                        .and_then(|v| call(Func::StrLen, &[v])),
                }
            }
            Ex::Regex(a, re) if matches!(&**a, Ex::Var(_) | Ex::Const(_)) => {
                let id = a.id_in(r);
                if id == UNBOUND {
                    return Ok(None);
                }
                let hit = self.ctx.with_text(id, |t| match t {
                    Text::Simple(s) | Text::Lang(s, _) => Some(re.is_match(s)),
                    _ => None,
                })?;
                match hit {
                    Some(h) => h.map(boolean),
                    None => match self.arg(a, r, g)?.as_deref() {
                        Some(E::StringLiteral(s)) | Some(E::LangStringLiteral { value: s, .. }) => {
                            Some(boolean(re.is_match(s)))
                        }
                        _ => None,
                    },
                }
            }
            // CONCAT writes every piece straight into its result: the text of terms is read
            // in place from the dictionary, SUBSTR and STR of a term are slices of it.
            Ex::Call(Func::Concat, args) => {
                let mut out = String::with_capacity(64);
                let mut lang: Option<Option<String>> = None;
                for a in args {
                    let Some(l) = self.append_str(a, r, g, &mut out)? else {
                        return Ok(None);
                    };
                    lang = match lang {
                        None => Some(l),
                        Some(prev) if prev == l => Some(prev),
                        Some(_) => Some(None),
                    };
                }
                Some(with_lang(out, lang.flatten().as_deref()))
            }
            Ex::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    match self.arg(a, r, g)? {
                        Some(v) => vals.push(v),
                        None => return Ok(None),
                    }
                }
                call(*f, &vals)
            }
            Ex::Regex(a, re) => match self.arg(a, r, g)?.as_deref() {
                Some(E::StringLiteral(s)) | Some(E::LangStringLiteral { value: s, .. }) => {
                    Some(boolean(re.is_match(s)))
                }
                _ => None,
            },
            Ex::Replace(a, re, repl) => {
                let v = self.value(a, r, g)?;
                let (s, lang) = match v.as_deref() {
                    Some(E::StringLiteral(s)) => (s.as_str(), None),
                    Some(E::LangStringLiteral { value, language }) => {
                        (value.as_str(), Some(language.clone()))
                    }
                    _ => return Ok(None),
                };
                let rv = self.value(repl, r, g)?;
                let Some(E::StringLiteral(rep)) = rv.as_deref() else {
                    return Ok(None);
                };
                // XPath uses $1, the regex crate ${1}; `\$` escapes a dollar in XPath.
                let rep = xpath_replacement(rep);
                let out = re.replace_all(s, rep.as_str()).into_owned();
                Some(match lang {
                    Some(language) => E::LangStringLiteral {
                        value: out,
                        language,
                    },
                    None => E::StringLiteral(out),
                })
            }
            Ex::BNode(_) => {
                let mut scratch = FxHashMap::default();
                match self.value_id(e, r, g, &mut scratch)? {
                    Some(id) => Some((*self.ctx.expr(id)?).clone()),
                    None => None,
                }
            }
        })
    }
}

fn xpath_replacement(rep: &str) -> String {
    let mut out = String::with_capacity(rep.len());
    let mut chars = rep.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    if n == '$' {
                        out.push_str("$$");
                    } else {
                        out.push(n);
                    }
                }
            }
            '$' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                out.push_str(&format!("${{{digits}}}"));
            }
            c => out.push(c),
        }
    }
    out
}
