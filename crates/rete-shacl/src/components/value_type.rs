//! Value type components: `sh:class`, `sh:datatype`, `sh:nodeKind`.

use super::Check;
use crate::error::Result;
use crate::shapes::{Constraint, NodeKind};
use crate::values::well_formed;
use crate::vocab::RDF_LANG_STRING;
use oxrdf::Term;

pub(super) fn check(Check { v, at, c, sink }: Check<'_, '_>) -> Result<()> {
    for value in at.values {
        let ok = match c {
            Constraint::Class(class) => {
                !value.is_literal() && v.data().is_instance(value, class)?
            }
            Constraint::Datatype(dt) => match value {
                Term::Literal(l) => {
                    l.datatype() == dt.as_ref()
                        && (dt.as_ref() == RDF_LANG_STRING || l.language().is_none())
                        && well_formed(l.as_ref())
                }
                _ => false,
            },
            Constraint::NodeKind(kind) => {
                let (iri, blank, lit) = (
                    value.is_named_node(),
                    value.is_blank_node(),
                    value.is_literal(),
                );
                match kind {
                    NodeKind::Iri => iri,
                    NodeKind::BlankNode => blank,
                    NodeKind::Literal => lit,
                    NodeKind::BlankNodeOrIri => blank || iri,
                    NodeKind::BlankNodeOrLiteral => blank || lit,
                    NodeKind::IriOrLiteral => iri || lit,
                }
            }
            _ => true,
        };
        if !ok {
            v.emit(sink, at, c, Some(value.clone()));
        }
    }
    Ok(())
}
