//! The syntax rules of SHACL-SPARQL pre-binding (SHACL §5.3.1): a query whose variables are
//! pre-bound must not use `MINUS`, `VALUES` or `SERVICE`, must not assign a pre-bound variable
//! with `AS`, and every nested `SELECT` must project the pre-bound variables the query uses.

use spargebra::algebra::{AggregateExpression, Expression, GraphPattern, OrderExpression};
use spargebra::term::Variable;
use spargebra::Query;

/// Why `q` breaks the pre-binding rules, `None` when it keeps them. `prebound` are the
/// pre-bound variables the query mentions.
pub(crate) fn violation(q: &Query, prebound: &[Variable]) -> Option<String> {
    let mut why = None;
    let (Query::Select { pattern, .. }
    | Query::Ask { pattern, .. }
    | Query::Construct { pattern, .. }
    | Query::Describe { pattern, .. }) = q;
    // The query's own projection is not a nested SELECT.
    let mut top = pattern;
    while let GraphPattern::Slice { inner, .. }
    | GraphPattern::Distinct { inner }
    | GraphPattern::Reduced { inner } = top
    {
        top = inner;
    }
    if let GraphPattern::Project { inner, .. } = top {
        top = inner;
    }
    pattern_rules(top, prebound, &mut why);
    why
}

fn pattern_rules(p: &GraphPattern, prebound: &[Variable], why: &mut Option<String>) {
    if why.is_some() {
        return;
    }
    let mut fail = |m: String| {
        why.get_or_insert(m);
    };
    match p {
        GraphPattern::Minus { .. } => return fail("MINUS is not allowed".into()),
        GraphPattern::Values { .. } => return fail("VALUES is not allowed".into()),
        GraphPattern::Service { .. } => return fail("SERVICE is not allowed".into()),
        GraphPattern::Extend { variable, .. } if prebound.contains(variable) => {
            return fail(format!(
                "the pre-bound variable {variable} is assigned with AS"
            ))
        }
        GraphPattern::Group { aggregates, .. }
            if aggregates.iter().any(|(v, _)| prebound.contains(v)) =>
        {
            return fail("a pre-bound variable is assigned with AS".into())
        }
        GraphPattern::Project { variables, .. } => {
            if let Some(v) = prebound.iter().find(|v| !variables.contains(v)) {
                return fail(format!(
                    "a nested SELECT does not project the pre-bound {v}"
                ));
            }
        }
        _ => {}
    }
    match p {
        GraphPattern::Bgp { .. } | GraphPattern::Path { .. } | GraphPattern::Values { .. } => {}
        GraphPattern::Join { left, right }
        | GraphPattern::Lateral { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            pattern_rules(left, prebound, why);
            pattern_rules(right, prebound, why);
        }
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            pattern_rules(left, prebound, why);
            pattern_rules(right, prebound, why);
            if let Some(e) = expression {
                expression_rules(e, prebound, why);
            }
        }
        GraphPattern::Filter { expr, inner }
        | GraphPattern::Extend {
            inner,
            expression: expr,
            ..
        } => {
            expression_rules(expr, prebound, why);
            pattern_rules(inner, prebound, why);
        }
        GraphPattern::OrderBy { inner, expression } => {
            for o in expression {
                let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = o;
                expression_rules(e, prebound, why);
            }
            pattern_rules(inner, prebound, why);
        }
        GraphPattern::Group {
            inner, aggregates, ..
        } => {
            for (_, a) in aggregates {
                if let AggregateExpression::FunctionCall { expr, .. } = a {
                    expression_rules(expr, prebound, why);
                }
            }
            pattern_rules(inner, prebound, why);
        }
        GraphPattern::Graph { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Service { inner, .. } => pattern_rules(inner, prebound, why),
    }
}

/// The rules inside `EXISTS` / `NOT EXISTS` of an expression.
fn expression_rules(e: &Expression, prebound: &[Variable], why: &mut Option<String>) {
    if let Expression::Exists(p) = e {
        return pattern_rules(p, prebound, why);
    }
    let Ok(()) =
        rete_sparql::for_each_subexpression(e, |c| -> Result<(), std::convert::Infallible> {
            expression_rules(c, prebound, why);
            Ok(())
        });
}
