//! Lexical forms on the generic evaluator.
//!
//! spareval turns every literal it reads into its value (`"01"^^xsd:integer` becomes the
//! integer 1), so its `STR` returns the canonical spelling, while RDF (and the `.rete` file)
//! keep the lexical form. Before a query runs on spareval, each `STR(?v)` is replaced by a
//! fresh variable bound to the lexical form of `?v`'s term. The binding comes from the dataset:
//! the pattern `?v <LEXICAL> ?lex`, evaluated per row (`LATERAL`) under an `OPTIONAL` so a row
//! whose `?v` is unbound or a blank node keeps going with `?lex` unbound (as `STR` would
//! fail). Value operations (`=`, `<`, `ORDER BY`, aggregates) are untouched: they still see
//! values, and `sameTerm` still sees terms.

use crate::walk::{for_each_child_pattern_mut, try_for_each_child_mut};
use oxrdf::{Literal, NamedNode, Variable};
use spargebra::algebra::{
    AggregateExpression, Expression, Function, GraphPattern, OrderExpression,
};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;
use std::convert::Infallible;

/// The predicate the dataset answers with a term's lexical form (never in a file).
pub(crate) const LEXICAL: &str = "urn:x-rete:lexical-form";

/// The predicate the dataset answers with the literal `STRDT` makes: subject
/// `"<datatype IRI> <lexical form>"`, object the typed literal with that very lexical form
/// (spareval's own `STRDT` goes through the value, so `STRDT("2.50", xsd:decimal)` would come
/// out canonical, `"2.5"`).
pub(crate) const STRDT: &str = "urn:x-rete:strdt";

/// The query with `STR` reading lexical forms (`None`: it has no `STR`, nothing to change).
pub(crate) fn rewrite(q: &Query) -> Option<Query> {
    let mut q = q.clone();
    let mut r = Rewriter {
        changed: false,
        fresh: 0,
    };
    match &mut q {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => r.pattern(pattern),
    }
    r.changed.then_some(q)
}

struct Rewriter {
    changed: bool,
    /// Variables made for `STRDT` lookups so far.
    fresh: usize,
}

fn lex_var(v: &Variable) -> Variable {
    Variable::new_unchecked(format!("__rete_lex_{}", v.as_str()))
}

/// `inner` followed, per row, by `OPTIONAL { ?v <LEXICAL> ?lex }` for each of `vars`.
fn with_lexical(inner: GraphPattern, vars: &[Variable]) -> GraphPattern {
    vars.iter().fold(inner, |acc, v| {
        lateral_optional(acc, v.clone(), LEXICAL, lex_var(v))
    })
}

/// `left` followed, per row, by `OPTIONAL { ?subject <predicate> ?object }`.
fn lateral_optional(
    left: GraphPattern,
    subject: Variable,
    predicate: &str,
    object: Variable,
) -> GraphPattern {
    GraphPattern::Lateral {
        left: Box::new(left),
        right: Box::new(GraphPattern::LeftJoin {
            left: Box::new(GraphPattern::Bgp {
                patterns: Vec::new(),
            }),
            right: Box::new(GraphPattern::Bgp {
                patterns: vec![TriplePattern {
                    subject: TermPattern::Variable(subject),
                    predicate: NamedNodePattern::NamedNode(NamedNode::new_unchecked(predicate)),
                    object: TermPattern::Variable(object),
                }],
            }),
            expression: None,
        }),
    }
}

impl Rewriter {
    fn pattern(&mut self, p: &mut GraphPattern) {
        match p {
            GraphPattern::Filter { expr, inner } => self.over(inner, [expr]),
            GraphPattern::Extend {
                inner, expression, ..
            } => {
                self.over(inner, [&mut *expression]);
                self.strdt(inner, expression);
            }
            GraphPattern::OrderBy { inner, expression } => self.over(
                inner,
                expression.iter_mut().map(|o| {
                    let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = o;
                    e
                }),
            ),
            GraphPattern::Group {
                inner, aggregates, ..
            } => self.over(
                inner,
                aggregates.iter_mut().filter_map(|(_, a)| match a {
                    AggregateExpression::FunctionCall { expr, .. } => Some(expr),
                    AggregateExpression::CountSolutions { .. } => None,
                }),
            ),
            GraphPattern::LeftJoin {
                left,
                right,
                expression,
            } => {
                self.pattern(left);
                self.pattern(right);
                let mut vars = Vec::new();
                if let Some(e) = expression {
                    self.expr(e, &mut vars);
                }
                if !vars.is_empty() {
                    // The variable may come from either side: both look its lexical form up.
                    wrap(left, &vars);
                    wrap(right, &vars);
                }
            }
            _ => for_each_child_pattern_mut(p, |c| self.pattern(c)),
        }
    }

    /// Rewrites `inner`, then the expressions evaluated over its rows, then makes `inner` bind the
    /// lexical forms they read.
    fn over<'e>(
        &mut self,
        inner: &mut GraphPattern,
        exprs: impl IntoIterator<Item = &'e mut Expression>,
    ) {
        self.pattern(inner);
        let mut vars = Vec::new();
        for e in exprs {
            self.expr(e, &mut vars);
        }
        wrap(inner, &vars);
    }

    /// `BIND(STRDT(a, b) AS ?x)` becomes `BIND(?out AS ?x)`, `?out` looked up per row from the
    /// dataset (see [`STRDT`]) with the key `"b a"`, made only when `a` is a simple literal
    /// and `b` an IRI (otherwise the key, and so `?x`, stays unbound, as `STRDT` fails).
    fn strdt(&mut self, inner: &mut GraphPattern, expression: &mut Expression) {
        let Expression::FunctionCall(Function::StrDt, args) = expression else {
            return;
        };
        let [a, b] = args.as_slice() else {
            return;
        };
        self.fresh += 1;
        let key = Variable::new_unchecked(format!("__rete_strdt_key{}", self.fresh));
        let out = Variable::new_unchecked(format!("__rete_strdt{}", self.fresh));
        let never = Variable::new_unchecked(format!("__rete_strdt_none{}", self.fresh));
        let xsd_string = NamedNode::new_unchecked("http://www.w3.org/2001/XMLSchema#string");
        let key_expr = Expression::If(
            Box::new(Expression::And(
                Box::new(Expression::FunctionCall(Function::IsIri, vec![b.clone()])),
                Box::new(Expression::SameTerm(
                    Box::new(Expression::FunctionCall(
                        Function::Datatype,
                        vec![a.clone()],
                    )),
                    Box::new(Expression::NamedNode(xsd_string)),
                )),
            )),
            Box::new(Expression::FunctionCall(
                Function::Concat,
                vec![
                    Expression::FunctionCall(Function::Str, vec![b.clone()]),
                    Expression::Literal(Literal::new_simple_literal(" ")),
                    a.clone(),
                ],
            )),
            // An unbound variable: an error, as STRDT of anything else is.
            Box::new(Expression::Variable(never)),
        );
        let keyed = GraphPattern::Extend {
            inner: Box::new(std::mem::replace(
                inner,
                GraphPattern::Bgp {
                    patterns: Vec::new(),
                },
            )),
            variable: key.clone(),
            expression: key_expr,
        };
        *inner = lateral_optional(keyed, key, STRDT, out.clone());
        *expression = Expression::Variable(out);
        self.changed = true;
    }

    /// Replaces `STR(?v)` by the lexical variable of `?v` (collected in `vars`) and `STR` of a
    /// literal constant by its lexical form.
    fn expr(&mut self, e: &mut Expression, vars: &mut Vec<Variable>) {
        if let Expression::FunctionCall(Function::Str, args) = e {
            match args.as_slice() {
                [Expression::Variable(v)] => {
                    let v = v.clone();
                    *e = Expression::Variable(lex_var(&v));
                    if !vars.contains(&v) {
                        vars.push(v);
                    }
                    self.changed = true;
                    return;
                }
                [Expression::Literal(l)] => {
                    *e = Expression::Literal(Literal::new_simple_literal(l.value()));
                    self.changed = true;
                    return;
                }
                _ => {}
            }
        }
        match e {
            Expression::Exists(p) => self.pattern(p),
            _ => {
                let Ok(()) = try_for_each_child_mut(e, |c| -> Result<(), Infallible> {
                    self.expr(c, vars);
                    Ok(())
                });
            }
        }
    }
}

fn wrap(p: &mut GraphPattern, vars: &[Variable]) {
    if vars.is_empty() {
        return;
    }
    let inner = std::mem::replace(
        p,
        GraphPattern::Bgp {
            patterns: Vec::new(),
        },
    );
    *p = with_lexical(inner, vars);
}
