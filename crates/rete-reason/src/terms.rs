//! Term kinds by id and id → term conversion, including vocabulary terms the dictionary lacks.

use crate::Result;
use oxrdf::{NamedNode, Quad, Term};
use rayon::prelude::*;
use rete_core::{quad_of_terms, Id, IdQuad, Rete, TermKind, DEFAULT_GRAPH};

/// Which ids are IRIs, blank nodes and literals. The dictionary sorts terms by their tag byte
/// first, so each kind is one contiguous id range: IRIs, then blank nodes, then literals. Ids above
/// the dictionary are *virtual*: vocabulary IRIs (say `rdf:type`) a conclusion needs but the file
/// does not contain.
#[derive(Debug)]
pub(crate) struct Terms {
    rete: Rete,
    first_bnode: Id,
    first_literal: Id,
    count: Id,
    virtuals: Vec<NamedNode>,
}

impl Terms {
    pub(crate) fn new(rete: &Rete) -> Result<Self> {
        let count = rete.term_count();
        let first_bnode = rete.first_of_kind(TermKind::BlankNode)?;
        let first_literal = rete.first_of_kind(TermKind::SimpleLiteral)?;
        Ok(Self {
            rete: rete.clone(),
            first_bnode,
            first_literal,
            count,
            virtuals: Vec::new(),
        })
    }

    /// The id of an IRI, allocating a virtual id if the dictionary lacks it.
    pub(crate) fn iri(&mut self, iri: &str) -> Result<Id> {
        let node = NamedNode::new_unchecked(iri);
        if let Some(id) = self.rete.id_of(node.as_ref().into())? {
            return Ok(id);
        }
        if let Some(i) = self.virtuals.iter().position(|v| *v == node) {
            return Ok(self.count + 1 + i as Id);
        }
        self.virtuals.push(node);
        Ok(self.count + self.virtuals.len() as Id)
    }

    /// Whether the dictionary holds `id` (virtual ids are not stored anywhere).
    pub(crate) fn stored(&self, id: Id) -> bool {
        id >= 1 && id <= self.count
    }

    pub(crate) fn is_literal(&self, id: Id) -> bool {
        id >= self.first_literal && id <= self.count
    }

    pub(crate) fn is_iri(&self, id: Id) -> bool {
        (id >= 1 && id < self.first_bnode) || id > self.count
    }

    /// Whether `[s, p, o, _]` is an RDF triple: no literal subject, an IRI predicate.
    pub(crate) fn valid(&self, q: &IdQuad) -> bool {
        !self.is_literal(q[0]) && self.is_iri(q[1])
    }

    fn term(&self, id: Id) -> Result<Term> {
        if id > self.count {
            let v = self
                .virtuals
                .get((id - self.count - 1) as usize)
                .ok_or_else(|| crate::ReasonError::Invalid(format!("unknown term id {id}")))?;
            return Ok(Term::NamedNode(v.clone()));
        }
        Ok(self.rete.term(id)?)
    }

    /// The oxrdf quads of id quads, leaving out any that is not a valid RDF quad. Each distinct
    /// id is decoded once (in parallel when asked), then the quads are assembled.
    pub(crate) fn quads(&self, ids: &[IdQuad], parallel: bool) -> Result<Vec<Quad>> {
        let mut distinct: Vec<Id> = ids
            .iter()
            .flat_map(|q| q.iter().copied())
            .filter(|&i| i != DEFAULT_GRAPH)
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        let decoded: Vec<Term> = if parallel {
            distinct
                .par_iter()
                .map(|&i| self.term(i))
                .collect::<Result<_>>()?
        } else {
            distinct
                .iter()
                .map(|&i| self.term(i))
                .collect::<Result<_>>()?
        };
        let get = |id: Id| -> Option<&Term> {
            distinct
                .binary_search(&id)
                .ok()
                .and_then(|i| decoded.get(i))
        };
        let build = |q: &IdQuad| -> Option<Quad> {
            let graph = if q[3] == DEFAULT_GRAPH {
                None
            } else {
                Some(get(q[3])?.clone())
            };
            quad_of_terms(
                get(q[0])?.clone(),
                get(q[1])?.clone(),
                get(q[2])?.clone(),
                graph,
            )
            .ok()
        };
        Ok(if parallel {
            ids.par_iter().filter_map(build).collect()
        } else {
            ids.iter().filter_map(build).collect()
        })
    }
}
