//! The SHACL Core constraint components, one file per section of the specification (4.1 value
//! type, 4.2 cardinality, 4.3 value range, 4.4 string-based, 4.5 property pair, 4.6 logical,
//! 4.7 shape-based, 4.8 other), and SHACL-SPARQL (§5 constraints, §6 components).

mod cardinality;
mod logical;
mod other;
mod property_pair;
mod shape_based;
mod sparql;
mod string_based;
mod value_range;
mod value_type;

use crate::error::Result;
use crate::shapes::Constraint;
use crate::validate::{Focus, Sink, Validator};

/// One constraint to check at one focus node: what every component's `check` is given (the
/// validator, for the data and nested shapes; where the results go).
pub(crate) struct Check<'c, 'v> {
    pub v: &'c mut Validator<'v>,
    pub at: &'c Focus<'c>,
    pub c: &'c Constraint,
    pub sink: &'c mut Sink,
}

/// Evaluates one constraint at one focus node.
pub(crate) fn evaluate(check: Check<'_, '_>) -> Result<()> {
    match check.c {
        Constraint::Class(_) | Constraint::Datatype(_) | Constraint::NodeKind(_) => {
            value_type::check(check)
        }
        Constraint::MinCount(_) | Constraint::MaxCount(_) => {
            cardinality::check(check);
            Ok(())
        }
        Constraint::Range(..) => {
            value_range::check(check);
            Ok(())
        }
        Constraint::MinLength(_)
        | Constraint::MaxLength(_)
        | Constraint::Pattern(_)
        | Constraint::LanguageIn(_)
        | Constraint::UniqueLang => {
            string_based::check(check);
            Ok(())
        }
        Constraint::Equals(_)
        | Constraint::Disjoint(_)
        | Constraint::LessThan(_)
        | Constraint::LessThanOrEquals(_) => property_pair::check(check),
        Constraint::Not(_) | Constraint::And(_) | Constraint::Or(_) | Constraint::Xone(_) => {
            logical::check(check)
        }
        Constraint::Node(_) | Constraint::Property(_) | Constraint::Qualified { .. } => {
            shape_based::check(check)
        }
        Constraint::Closed(_) | Constraint::HasValue(_) | Constraint::In(_) => other::check(check),
        Constraint::Sparql(_) | Constraint::Component(_) => sparql::check(check),
    }
}
