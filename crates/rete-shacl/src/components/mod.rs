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

use crate::data::DataGraph;
use crate::error::Result;
use crate::paths::Path;
use crate::report::ValidationResult;
use crate::shapes::{Constraint, ShapeId, Shapes};
use oxrdf::Term;

/// Collects results; in conformance checks it stops at the first one.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub results: Vec<ValidationResult>,
    first_only: bool,
}

impl Sink {
    pub fn first() -> Self {
        Self {
            results: Vec::new(),
            first_only: true,
        }
    }

    pub fn done(&self) -> bool {
        self.first_only && !self.results.is_empty()
    }
}

/// What a constraint sees: the shape, the focus node and its value nodes.
pub(crate) struct Focus<'f> {
    pub shape: ShapeId,
    pub node: &'f Term,
    pub values: &'f [Term],
}

/// What a component reads and calls back: the data, the shapes, where results go, and nested
/// shapes validated. The validator implements it, so the components do not depend on the
/// validation loop that calls them (`sh:node` → shape → component → … recurses through here).
pub(crate) trait Context<'a> {
    /// The data graph validated.
    fn data(&self) -> &DataGraph<'a>;

    /// The shapes it is validated against.
    fn shapes(&self) -> &'a Shapes;

    /// Validates `focus` against `shape`, adding results to `sink`.
    fn validate_shape(&mut self, shape: ShapeId, focus: &Term, sink: &mut Sink) -> Result<()>;

    /// Whether `node` conforms to `shape`.
    fn conforms(&mut self, shape: ShapeId, node: &Term) -> Result<bool>;

    /// Adds a result of `constraint` for `at`.
    fn emit(&self, sink: &mut Sink, at: &Focus<'_>, c: &Constraint, value: Option<Term>) {
        self.emit_result(sink, at, c, value, None, Vec::new(), None);
    }

    /// Adds a result with an explicit path (`sh:closed` reports the predicate), its own messages
    /// (none: the shape's) and the constraint it comes from (SHACL-SPARQL's
    /// `sh:sourceConstraint`).
    #[allow(clippy::too_many_arguments, reason = "one result's parts")]
    fn emit_result(
        &self,
        sink: &mut Sink,
        at: &Focus<'_>,
        c: &Constraint,
        value: Option<Term>,
        path: Option<Path>,
        messages: Vec<Term>,
        source: Option<Term>,
    ) {
        let shape = self.shapes().get(at.shape);
        sink.results.push(ValidationResult {
            focus: at.node.clone(),
            path: path.or_else(|| shape.path.clone()),
            value,
            severity: shape.severity.clone(),
            source_shape: shape.node.clone(),
            component: c.component(),
            source_constraint: source,
            messages: if messages.is_empty() {
                shape.messages.clone()
            } else {
                messages
            },
        });
    }
}

/// One constraint to check at one focus node: what every component's `check` is given (the
/// validator, for the data and nested shapes; where the results go).
pub(crate) struct Check<'c, 'v> {
    pub v: &'c mut dyn Context<'v>,
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
