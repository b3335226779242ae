//! The expression interpreter: evaluating a compiled expression ([`Ex`]) over a row, to an id,
//! a truth value or a value, on the fast scalar path where it can and through the value
//! semantics of `expr` otherwise. EXISTS asks the pattern evaluator through [`Exists`], so the
//! interpreter sits below the evaluator that calls it.

use super::ctx::{Ctx, Text, Value};
use super::expr::{
    arith, boolean, call, ebv, equals, integer, is_numeric, logic, negate, partial_cmp, string,
    substr, with_lang, Func,
};
use super::plan::{Ex, Plan};
use super::row::{Active, Id, Row, UNBOUND};
use super::scalar::{self, Sc};
use crate::SparqlError;
use oxrdf::Literal;
use oxsdatatypes::Integer;
use rustc_hash::FxHashMap;
use spareval::ExpressionTerm as E;
use std::cmp::Ordering;
use std::rc::Rc;

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

/// The pattern evaluator as expressions see it: EXISTS asks it whether a pattern has a
/// solution (implemented by the evaluator above, called once per EXISTS evaluation).
pub trait Exists {
    /// Whether `plan` has a solution compatible with `row` in graph `g`, the row's values
    /// substituted everywhere (the spec's `substitute`).
    fn exists(&self, plan: &Rc<Plan>, row: &Row, g: Active) -> Result<bool, SparqlError>;
}

/// The interpreter of one query's expressions: its state, and the evaluator of EXISTS
/// patterns (a type parameter: calls stay static).
#[derive(Debug)]
pub struct Interp<'a, P> {
    ctx: &'a Ctx,
    patterns: &'a P,
}

impl<'a, P: Exists> Interp<'a, P> {
    pub fn new(ctx: &'a Ctx, patterns: &'a P) -> Self {
        Self { ctx, patterns }
    }

    /// The query's state.
    pub fn ctx(&self) -> &'a Ctx {
        self.ctx
    }
}

// Expression evaluation over rows: what the operators call.

impl<P: Exists> Interp<'_, P> {
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
    fn general_ebv(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<bool>, SparqlError> {
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
            Ex::Exists(p) => Some(boolean(self.patterns.exists(p, r, g)?)),
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

    // The fast path: filters such as `?a * 2 > 150 && ?a != 79` or `STRLEN(?n) > 10` compute
    // on scalars read from the per-query cache of typed terms' values (IRIs, blank nodes and
    // strings are told apart by their id range, nothing decoded); anything else goes through
    // the value semantics, with the same answers.

    /// The value of `e` if it is a boolean or a number computed from booleans and numbers.
    fn scalar(&self, e: &Ex, r: &Row, g: Active) -> Result<Fast, SparqlError> {
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
                    (Fast::Val(x), Fast::Val(y)) => Fast::Val(Sc::Bool(scalar::equals(x, y))),
                    (Fast::No, _) | (_, Fast::No) => Fast::No,
                    _ => Fast::Err,
                }
            }
            Ex::Cmp(a, b, accept) => match (self.scalar(a, r, g)?, self.scalar(b, r, g)?) {
                (Fast::Val(x), Fast::Val(y)) => opt(scalar::partial_cmp(x, y).map(|o| {
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
                (Fast::Val(x), Fast::Val(y)) => opt(scalar::arith(*op, x, y)),
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
    fn ebv_of(&self, e: &Ex, r: &Row, g: Active) -> Result<Option<bool>, SparqlError> {
        Ok(match self.scalar(e, r, g)? {
            Fast::Val(v) => ebv(&v.term()),
            Fast::Err => None,
            Fast::No => self.general_ebv(e, r, g)?,
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
