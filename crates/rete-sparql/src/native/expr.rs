//! SPARQL expression semantics over decoded values: effective boolean value, comparisons,
//! arithmetic, the ordering used by ORDER BY / MIN / MAX, and the built-in functions the native
//! evaluator handles. `None` is an evaluation error (which SPARQL turns into "unbound" or
//! "filter false").

use super::scalar::{self, Op, Pair, Sc};
use crate::SparqlError;
use oxrdf::Literal;
use oxsdatatypes::{Boolean, Decimal, Double, Float, Integer};
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;

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
        // Language-tagged strings too: equal when value and tag are.
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
pub(super) fn string(a: &E) -> Option<(&str, Option<&str>)> {
    match a {
        E::StringLiteral(s) => Some((s, None)),
        E::LangStringLiteral { value, language } => Some((value, Some(language))),
        _ => None,
    }
}

pub(super) fn with_lang(s: String, lang: Option<&str>) -> E {
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
pub(super) fn substr<'a>(s: &'a str, start: &E, len: Option<&E>) -> Option<&'a str> {
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
