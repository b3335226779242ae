//! Reader helpers built on the dictionary: term-kind ranges, id quads as oxrdf quads, header
//! flags. One place for what every consumer of a `.rete` needs.

use crate::error::{Error, Result};
use crate::term::TermKind;
use crate::{Id, IdQuad, Rete, DEFAULT_GRAPH};
use oxrdf::{GraphName, NamedOrBlankNode, Quad, Term};

impl Rete {
    /// The smallest id whose term is of kind `kind` or a later one in dictionary order
    /// (`term_count() + 1` if there is none). The dictionary sorts terms by their tag first, so
    /// IRIs are ids `1..first_of_kind(BlankNode)`, blank nodes follow, then the literals. The
    /// tag byte alone sorts before every term of its kind and after every term of an earlier
    /// one, so the boundary is where it would be inserted: one directory lookup and one
    /// dictionary block (over HTTP one or two requests, not one per step of a binary search
    /// over the ids).
    pub fn first_of_kind(&self, kind: TermKind) -> Result<Id> {
        self.first_id_from(&[kind as u8])
    }

    /// The ids of the IRIs that start with `prefix` (a namespace): a range, since the
    /// dictionary sorts IRIs by their bytes. Two lookups as [`Rete::first_of_kind`] reads.
    pub fn iri_ids_starting_with(&self, prefix: &str) -> Result<std::ops::Range<Id>> {
        let mut from = vec![TermKind::Iri as u8];
        from.extend_from_slice(prefix.as_bytes());
        let start = self.first_id_from(&from)?;
        // No UTF-8 text holds the byte 0xFF: every IRI that starts with `prefix` sorts below.
        from.push(0xFF);
        Ok(start..self.first_id_from(&from)?)
    }

    /// Whether the header sets flag bit(s) `flag` (one of the `format::FLAG_*` constants).
    pub fn has_flag(&self, flag: u32) -> bool {
        self.header().flags & flag != 0
    }

    /// The oxrdf quad of an id quad.
    pub fn decode_quad(&self, q: &IdQuad) -> Result<Quad> {
        self.decode_quad_with(q, |id| self.term(id))
    }

    /// [`Rete::decode_quad`] with terms from `term` (a memo, or ids the dictionary does not
    /// hold). A literal subject or graph name, or a predicate that is not an IRI, is corruption.
    pub fn decode_quad_with<E: From<Error>>(
        &self,
        q: &IdQuad,
        mut term: impl FnMut(Id) -> Result<Term, E>,
    ) -> Result<Quad, E> {
        let g = if q[3] == DEFAULT_GRAPH {
            None
        } else {
            Some(term(q[3])?)
        };
        let quad = quad_of_terms(term(q[0])?, term(q[1])?, term(q[2])?, g);
        quad.map_err(|what| {
            Error::corrupt(
                self.name(),
                "dictionary blocks",
                format!("quad {q:?}: {what}"),
            )
            .into()
        })
    }
}

/// The oxrdf quad of decoded terms (`graph` `None` for the default graph), or what keeps them
/// from being one: a literal subject or graph name, a predicate that is not an IRI.
pub fn quad_of_terms(
    subject: Term,
    predicate: Term,
    object: Term,
    graph: Option<Term>,
) -> Result<Quad, String> {
    let subject = match subject {
        Term::NamedNode(n) => NamedOrBlankNode::NamedNode(n),
        Term::BlankNode(b) => NamedOrBlankNode::BlankNode(b),
        other => return Err(format!("{other} in subject position")),
    };
    let Term::NamedNode(predicate) = predicate else {
        return Err(format!("{predicate} in predicate position"));
    };
    let graph_name = match graph {
        None => GraphName::DefaultGraph,
        Some(Term::NamedNode(n)) => GraphName::NamedNode(n),
        Some(Term::BlankNode(b)) => GraphName::BlankNode(b),
        Some(other) => return Err(format!("{other} in graph position")),
    };
    Ok(Quad {
        subject,
        predicate,
        object,
        graph_name,
    })
}
