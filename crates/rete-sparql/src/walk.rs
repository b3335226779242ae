//! Walks over the query algebra.

use crate::SparqlError;
use spargebra::algebra::{AggregateExpression, Expression, GraphPattern, OrderExpression};
use spargebra::Query;
use std::convert::Infallible;

/// The main pattern of a query.
pub(crate) fn query_pattern(q: &Query) -> &GraphPattern {
    match q {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    }
}

/// Refuses `SERVICE` unless federated calls are on: a `.rete` file is queried offline unless the
/// user allowed the endpoints a query may call.
pub(crate) fn check_supported(q: &Query, federated: bool) -> Result<(), SparqlError> {
    if federated {
        return Ok(());
    }
    let mut service = None;
    visit_patterns(query_pattern(q), &mut |p| {
        if let GraphPattern::Service { name, .. } = p {
            service.get_or_insert_with(|| name.to_string());
        }
    });
    match service {
        Some(name) => Err(SparqlError::Unsupported(format!(
            "SERVICE {name}: federated queries are off; allow the endpoint's host to call it (rete sparql or rete serve --allow-service HOST)"
        ))),
        None => Ok(()),
    }
}

/// Calls `f` on `p` and every pattern nested in it, including those inside `EXISTS`.
pub(crate) fn visit_patterns<'a>(p: &'a GraphPattern, f: &mut impl FnMut(&'a GraphPattern)) {
    f(p);
    match p {
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            visit_patterns(left, f);
            visit_patterns(right, f);
            if let Some(e) = expression {
                visit_expression_patterns(e, f);
            }
        }
        GraphPattern::Filter { expr, inner } => {
            visit_expression_patterns(expr, f);
            visit_patterns(inner, f);
        }
        GraphPattern::Extend {
            inner, expression, ..
        } => {
            visit_expression_patterns(expression, f);
            visit_patterns(inner, f);
        }
        GraphPattern::OrderBy { inner, expression } => {
            for o in expression {
                let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = o;
                visit_expression_patterns(e, f);
            }
            visit_patterns(inner, f);
        }
        GraphPattern::Group {
            inner, aggregates, ..
        } => {
            for (_, a) in aggregates {
                if let AggregateExpression::FunctionCall { expr, .. } = a {
                    visit_expression_patterns(expr, f);
                }
            }
            visit_patterns(inner, f);
        }
        _ => for_each_child_pattern(p, |c| visit_patterns(c, f)),
    }
}

/// Defines a function calling `f` on each pattern directly inside `p` (both sides of a join,
/// else the inner pattern), in written order. Patterns inside `EXISTS` expressions are not
/// children: callers that go into expressions handle them. One match serves both walks.
macro_rules! for_each_child_pattern {
    ($(#[$doc:meta])* $name:ident, $($mutability:tt)?) => {
        $(#[$doc])*
        pub(crate) fn $name<'a>(
            p: &'a $($mutability)? GraphPattern,
            mut f: impl FnMut(&'a $($mutability)? GraphPattern),
        ) {
            match p {
                GraphPattern::Bgp { .. } | GraphPattern::Path { .. } | GraphPattern::Values { .. } => {}
                GraphPattern::Join { left, right }
                | GraphPattern::Union { left, right }
                | GraphPattern::Minus { left, right }
                | GraphPattern::Lateral { left, right }
                | GraphPattern::LeftJoin { left, right, .. } => {
                    f(left);
                    f(right);
                }
                GraphPattern::Filter { inner, .. }
                | GraphPattern::Extend { inner, .. }
                | GraphPattern::OrderBy { inner, .. }
                | GraphPattern::Group { inner, .. }
                | GraphPattern::Graph { inner, .. }
                | GraphPattern::Project { inner, .. }
                | GraphPattern::Distinct { inner }
                | GraphPattern::Reduced { inner }
                | GraphPattern::Slice { inner, .. }
                | GraphPattern::Service { inner, .. } => f(inner),
            }
        }
    };
}

for_each_child_pattern!(
    /// Calls `f` on each pattern directly inside `p` (see the macro).
    for_each_child_pattern,
);
for_each_child_pattern!(
    /// [`for_each_child_pattern`] with mutable access, for rewrites.
    for_each_child_pattern_mut,
    mut
);

/// Calls `f` on the patterns of every `EXISTS` inside `e`.
fn visit_expression_patterns<'a>(e: &'a Expression, f: &mut impl FnMut(&'a GraphPattern)) {
    match e {
        Expression::Exists(p) => visit_patterns(p, f),
        _ => {
            let Ok(()) = try_for_each_child(e, |c| -> Result<(), Infallible> {
                visit_expression_patterns(c, f);
                Ok(())
            });
        }
    }
}

/// Defines a function calling `f` on each expression directly inside `e`, in written order,
/// stopping at the first error. `EXISTS` holds a pattern, not an expression: callers that go
/// into patterns handle it themselves. One match serves the shared and the `mut` walk.
macro_rules! try_for_each_child {
    ($(#[$doc:meta])* $name:ident, $($mutability:tt)?) => {
        $(#[$doc])*
        pub fn $name<'a, E>(
            e: &'a $($mutability)? Expression,
            mut f: impl FnMut(&'a $($mutability)? Expression) -> Result<(), E>,
        ) -> Result<(), E> {
            match e {
                Expression::Or(a, b)
                | Expression::And(a, b)
                | Expression::Equal(a, b)
                | Expression::SameTerm(a, b)
                | Expression::Greater(a, b)
                | Expression::GreaterOrEqual(a, b)
                | Expression::Less(a, b)
                | Expression::LessOrEqual(a, b)
                | Expression::Add(a, b)
                | Expression::Subtract(a, b)
                | Expression::Multiply(a, b)
                | Expression::Divide(a, b) => {
                    f(a)?;
                    f(b)
                }
                Expression::In(a, list) => {
                    f(a)?;
                    list.into_iter().try_for_each(f)
                }
                Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => f(a),
                Expression::If(a, b, c) => {
                    f(a)?;
                    f(b)?;
                    f(c)
                }
                Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
                    list.into_iter().try_for_each(f)
                }
                Expression::NamedNode(_)
                | Expression::Literal(_)
                | Expression::Variable(_)
                | Expression::Bound(_)
                | Expression::Exists(_) => Ok(()),
            }
        }
    };
}

try_for_each_child!(
    /// Calls `f` on each expression directly inside `e` (see the macro), stopping at an error.
    try_for_each_child,
);
try_for_each_child!(
    /// [`try_for_each_child`] with mutable access, for rewrites.
    try_for_each_child_mut,
    mut
);

/// Whether the query's first `SELECT` is `SELECT *` (`DISTINCT`/`REDUCED` allowed), looking past
/// comments, strings and IRIs.
pub(crate) fn is_select_star(text: &str) -> bool {
    // One pass over tokens, no allocation: `last` is the previous token (`None` at the start),
    // `after` tells whether the first SELECT has been seen.
    let b = text.as_bytes();
    let mut i = 0;
    let mut last: Option<&str> = None;
    let mut after = false;
    while i < b.len() {
        let token: &str = match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                "\""
            }
            b'<' if last.is_some_and(|w| !w.eq_ignore_ascii_case("SELECT")) => {
                while i < b.len() && b[i] != b'>' && !b[i].is_ascii_whitespace() {
                    i += 1;
                }
                i += 1;
                "<>"
            }
            c if c.is_ascii_alphabetic() => {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b':')
                {
                    i += 1;
                }
                &text[s..i]
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            c => {
                let s = i;
                i += 1;
                if c.is_ascii() {
                    &text[s..i]
                } else {
                    // Not a token that can follow SELECT: stands for the whole character.
                    "?"
                }
            }
        };
        if after {
            if !token.eq_ignore_ascii_case("DISTINCT") && !token.eq_ignore_ascii_case("REDUCED") {
                return token == "*";
            }
        } else if token.eq_ignore_ascii_case("SELECT") {
            after = true;
        }
        last = Some(token);
    }
    false
}

/// spargebra sorts the variables of `SELECT *`; put them back in order of appearance, as other
/// engines (and the W3C CSV/TSV tests) do.
pub(crate) fn star_in_appearance_order(q: &mut Query) {
    let Query::Select { pattern, .. } = q else {
        return;
    };
    let mut p = pattern;
    loop {
        match p {
            GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Slice { inner, .. } => p = inner,
            GraphPattern::Project { inner, variables } => {
                let mut seen: Vec<spargebra::term::Variable> = Vec::new();
                inner.on_in_scope_variable(|v| {
                    if !seen.contains(v) {
                        seen.push(v.clone());
                    }
                });
                if seen.len() == variables.len() && seen.iter().all(|v| variables.contains(v)) {
                    *variables = seen;
                }
                return;
            }
            _ => return,
        }
    }
}
