//! Compiling SPARQL expressions: variables to slots, constants to ids, built-in calls to
//! [`Func`], regular expressions compiled once (a computed pattern is left to the generic
//! evaluator).

use super::compile::{Planner, Scope};
use super::expr::Func;
use super::plan::{unsupported, Ex, PlanError, Slot};
use super::scalar::Op;
use spargebra::algebra::{Expression, Function};
use std::rc::Rc;

impl Planner<'_> {
    pub(super) fn expr(
        &mut self,
        scope: &mut Scope,
        e: &Expression,
        bound: &[Slot],
    ) -> Result<Ex, PlanError> {
        let b =
            |x: &Expression, this: &mut Self, scope: &mut Scope| -> Result<Box<Ex>, PlanError> {
                Ok(Box::new(this.expr(scope, x, bound)?))
            };
        Ok(match e {
            Expression::NamedNode(n) => Ex::Const(self.constant(n.clone().into())?),
            Expression::Literal(l) => Ex::Const(self.constant(l.clone().into())?),
            Expression::Variable(v) => Ex::Var(self.slot(scope, v.as_str())),
            Expression::Or(x, y) => Ex::Or(b(x, self, scope)?, b(y, self, scope)?),
            Expression::And(x, y) => Ex::And(b(x, self, scope)?, b(y, self, scope)?),
            Expression::Equal(x, y) => Ex::Equal(b(x, self, scope)?, b(y, self, scope)?),
            Expression::SameTerm(x, y) => Ex::SameTerm(b(x, self, scope)?, b(y, self, scope)?),
            Expression::Greater(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [false, false, true])
            }
            Expression::GreaterOrEqual(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [false, true, true])
            }
            Expression::Less(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [true, false, false])
            }
            Expression::LessOrEqual(x, y) => {
                Ex::Cmp(b(x, self, scope)?, b(y, self, scope)?, [true, true, false])
            }
            Expression::In(x, list) => {
                let mut l = Vec::with_capacity(list.len());
                for y in list {
                    l.push(self.expr(scope, y, bound)?);
                }
                Ex::In(b(x, self, scope)?, l)
            }
            Expression::Add(x, y) => Ex::Arith(Op::Add, b(x, self, scope)?, b(y, self, scope)?),
            Expression::Subtract(x, y) => {
                Ex::Arith(Op::Sub, b(x, self, scope)?, b(y, self, scope)?)
            }
            Expression::Multiply(x, y) => {
                Ex::Arith(Op::Mul, b(x, self, scope)?, b(y, self, scope)?)
            }
            Expression::Divide(x, y) => Ex::Arith(Op::Div, b(x, self, scope)?, b(y, self, scope)?),
            Expression::UnaryPlus(x) => Ex::Plus(b(x, self, scope)?),
            Expression::UnaryMinus(x) => Ex::Neg(b(x, self, scope)?),
            Expression::Not(x) => Ex::Not(b(x, self, scope)?),
            Expression::Exists(p) => Ex::Exists(self.compile(scope, p, bound)?),
            Expression::Bound(v) => Ex::Bound(self.slot(scope, v.as_str())),
            Expression::If(x, y, z) => {
                Ex::If(b(x, self, scope)?, b(y, self, scope)?, b(z, self, scope)?)
            }
            Expression::Coalesce(list) => {
                let mut l = Vec::with_capacity(list.len());
                for y in list {
                    l.push(self.expr(scope, y, bound)?);
                }
                Ex::Coalesce(l)
            }
            Expression::FunctionCall(f, args) => {
                let mut a = Vec::with_capacity(args.len());
                for y in args {
                    a.push(self.expr(scope, y, bound)?);
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
