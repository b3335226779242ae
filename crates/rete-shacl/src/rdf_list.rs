//! RDF collections (`rdf:first`/`rdf:rest`) in the shapes graph, with a guard against cycles.

use crate::error::{Error, Result};
use crate::vocab::{RDF_FIRST, RDF_NIL, RDF_REST};
use oxrdf::{Graph, NamedOrBlankNodeRef, Term, TermRef};
use std::collections::HashSet;

/// The members of the list starting at `head`; `shape` names the shape in errors.
pub fn read_list(g: &Graph, head: TermRef<'_>, shape: &Term) -> Result<Vec<Term>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut node = head;
    loop {
        let subject = match node {
            TermRef::NamedNode(n) if n == RDF_NIL => return Ok(out),
            TermRef::NamedNode(n) => NamedOrBlankNodeRef::NamedNode(n),
            TermRef::BlankNode(b) => NamedOrBlankNodeRef::BlankNode(b),
            _ => {
                return Err(Error::malformed(
                    shape,
                    format!("{node} is not an RDF list"),
                ))
            }
        };
        if !seen.insert(subject.into_owned()) {
            return Err(Error::malformed(
                shape,
                format!("the list at {head} is cyclic"),
            ));
        }
        let first = g.object_for_subject_predicate(subject, RDF_FIRST);
        let rest = g.object_for_subject_predicate(subject, RDF_REST);
        match (first, rest) {
            (Some(f), Some(r)) => {
                out.push(f.into_owned());
                node = r;
            }
            _ => {
                return Err(Error::malformed(
                    shape,
                    format!("{node} is not a well-formed RDF list node"),
                ))
            }
        }
    }
}
