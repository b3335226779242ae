//! Compiling SPARQL expressions: variables to slots, constants to ids, built-in calls to
//! [`Func`], regular expressions compiled once (a computed pattern is left to the generic
//! evaluator).

use super::expr::Func;
use super::plan::{unsupported, Ex, Plan, PlanError, Slot};
use super::row::Id;
use super::scalar::Op;
use oxrdf::Term;
use spargebra::algebra::{Expression, Function, GraphPattern};
use std::rc::Rc;

/// The pattern planner as expressions see it: ids of constants, slots of variables, and the
/// plans of EXISTS patterns (implemented by the planner in `compile.rs`).
pub(super) trait PatternPlanner {
    /// Variables → slots.
    type Scope;
    /// The id of a constant.
    fn constant(&mut self, t: Term) -> Result<Id, PlanError>;
    /// The slot of variable `name` in `scope` (a new one the first time).
    fn slot(&mut self, scope: &mut Self::Scope, name: &str) -> Slot;
    /// The plan of `p`, with the slots `bound` certainly bound where it runs.
    fn compile(
        &mut self,
        scope: &mut Self::Scope,
        p: &GraphPattern,
        bound: &[Slot],
    ) -> Result<Rc<Plan>, PlanError>;
}

/// `e` compiled in `scope` (`bound`: the slots certainly bound where it is evaluated).
pub(super) fn expr<P: PatternPlanner>(
    this: &mut P,
    scope: &mut P::Scope,
    e: &Expression,
    bound: &[Slot],
) -> Result<Ex, PlanError> {
    let b = |x: &Expression, this: &mut P, scope: &mut P::Scope| -> Result<Box<Ex>, PlanError> {
        Ok(Box::new(expr(this, scope, x, bound)?))
    };
    Ok(match e {
        Expression::NamedNode(n) => Ex::Const(this.constant(n.clone().into())?),
        Expression::Literal(l) => Ex::Const(this.constant(l.clone().into())?),
        Expression::Variable(v) => Ex::Var(this.slot(scope, v.as_str())),
        Expression::Or(x, y) => Ex::Or(b(x, this, scope)?, b(y, this, scope)?),
        Expression::And(x, y) => Ex::And(b(x, this, scope)?, b(y, this, scope)?),
        Expression::Equal(x, y) => Ex::Equal(b(x, this, scope)?, b(y, this, scope)?),
        Expression::SameTerm(x, y) => Ex::SameTerm(b(x, this, scope)?, b(y, this, scope)?),
        Expression::Greater(x, y) => {
            Ex::Cmp(b(x, this, scope)?, b(y, this, scope)?, [false, false, true])
        }
        Expression::GreaterOrEqual(x, y) => {
            Ex::Cmp(b(x, this, scope)?, b(y, this, scope)?, [false, true, true])
        }
        Expression::Less(x, y) => {
            Ex::Cmp(b(x, this, scope)?, b(y, this, scope)?, [true, false, false])
        }
        Expression::LessOrEqual(x, y) => {
            Ex::Cmp(b(x, this, scope)?, b(y, this, scope)?, [true, true, false])
        }
        Expression::In(x, list) => {
            let mut l = Vec::with_capacity(list.len());
            for y in list {
                l.push(expr(this, scope, y, bound)?);
            }
            Ex::In(b(x, this, scope)?, l)
        }
        Expression::Add(x, y) => Ex::Arith(Op::Add, b(x, this, scope)?, b(y, this, scope)?),
        Expression::Subtract(x, y) => Ex::Arith(Op::Sub, b(x, this, scope)?, b(y, this, scope)?),
        Expression::Multiply(x, y) => Ex::Arith(Op::Mul, b(x, this, scope)?, b(y, this, scope)?),
        Expression::Divide(x, y) => Ex::Arith(Op::Div, b(x, this, scope)?, b(y, this, scope)?),
        Expression::UnaryPlus(x) => Ex::Plus(b(x, this, scope)?),
        Expression::UnaryMinus(x) => Ex::Neg(b(x, this, scope)?),
        Expression::Not(x) => Ex::Not(b(x, this, scope)?),
        Expression::Exists(p) => Ex::Exists(this.compile(scope, p, bound)?),
        Expression::Bound(v) => Ex::Bound(this.slot(scope, v.as_str())),
        Expression::If(x, y, z) => {
            Ex::If(b(x, this, scope)?, b(y, this, scope)?, b(z, this, scope)?)
        }
        Expression::Coalesce(list) => {
            let mut l = Vec::with_capacity(list.len());
            for y in list {
                l.push(expr(this, scope, y, bound)?);
            }
            Ex::Coalesce(l)
        }
        Expression::FunctionCall(f, args) => {
            let mut a = Vec::with_capacity(args.len());
            for y in args {
                a.push(expr(this, scope, y, bound)?);
            }
            match f {
                Function::Regex => {
                    let re = constant_regex(args, 2, args.len() <= 3, "REGEX")?;
                    Ex::Regex(Box::new(a.swap_remove(0)), Rc::new(re))
                }
                Function::Replace => {
                    let re = constant_regex(args, 3, args.len() >= 3, "REPLACE")?;
                    // An empty-matching pattern is an error in XPath replace.
                    if re.is_match("") {
                        return unsupported("REPLACE pattern matching the empty string");
                    }
                    let repl = a.swap_remove(2);
                    Ex::Replace(Box::new(a.swap_remove(0)), Rc::new(re), Box::new(repl))
                }
                Function::BNode => Ex::BNode(a.pop().map(Box::new)),
                other => match Func::from_spargebra(other) {
                    Some(func) => Ex::Call(func, a),
                    None => return unsupported(format!("function {other}")),
                },
            }
        }
    })
}

/// The regular expression of a `REGEX` or `REPLACE` call named `what`: its pattern (argument
/// 1) and flags (argument `flags`, when given) must be literals and `arity_ok` hold.
fn constant_regex(
    args: &[Expression],
    flags: usize,
    arity_ok: bool,
    what: &str,
) -> Result<regex::Regex, PlanError> {
    let flags = match args.get(flags) {
        None => Some(String::new()),
        Some(Expression::Literal(l)) => Some(l.value().to_owned()),
        Some(_) => None,
    };
    match (args.get(1), flags) {
        (Some(Expression::Literal(p)), Some(flags)) if arity_ok => {
            let Some(re) = compile_regex(p.value(), &flags) else {
                return unsupported("invalid regular expression");
            };
            Ok(re)
        }
        _ => unsupported(format!("{what} with a computed pattern")),
    }
}

/// Translates XPath regex flags and compiles (`None` if the pattern or flags are invalid).
pub fn compile_regex(pattern: &str, flags: &str) -> Option<regex::Regex> {
    let mut b = regex::RegexBuilder::new(pattern);
    let mut literal = false;
    for f in flags.chars() {
        match f {
            'i' => {
                b.case_insensitive(true);
            }
            's' => {
                b.dot_matches_new_line(true);
            }
            'm' => {
                b.multi_line(true);
            }
            'x' => {
                b.ignore_whitespace(true);
            }
            'q' => literal = true,
            _ => return None,
        }
    }
    if literal {
        let mut b2 = regex::RegexBuilder::new(&regex::escape(pattern));
        b2.case_insensitive(flags.contains('i'));
        return b2.size_limit(1 << 20).build().ok();
    }
    b.size_limit(1 << 20).build().ok()
}
