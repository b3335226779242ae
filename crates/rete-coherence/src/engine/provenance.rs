//! Tier 2's provenance of inferred types: the triple and the chain of property axioms behind
//! each. Tier 2 records it and Tier 1's judge explains clashes with it, so it stands apart from
//! both.

use super::Ctx;
use crate::render;
use crate::Step;
use rete_core::Id;
use rete_schema::vocab::*;

/// A property axiom on the way from a triple to a type it implies.
#[derive(Debug, Clone, Copy)]
pub(super) enum PAx {
    Sub(u32, u32),
    Inverse(u32, u32),
    Domain(u32, u32),
    Range(u32, u32),
}

/// A class implied for the subject (or object) of a property's triples.
#[derive(Debug, Clone)]
pub(super) struct Constraint {
    pub(super) class: u32,
    pub(super) on_object: bool,
    pub(super) chain: Vec<PAx>,
}

/// One triple that implied a type.
#[derive(Debug, Clone, Copy)]
pub(super) struct Prov {
    pub(super) prop: u32,
    pub(super) s: Id,
    pub(super) o: Id,
    pub(super) constraint: u32,
}

impl Ctx<'_> {
    pub(super) fn pax_step(&self, ax: PAx) -> Step {
        let property = |p| render::property(&self.schema, p);
        let class = |c| render::class(&self.schema, c);
        let (a, pred, b) = match ax {
            PAx::Sub(a, b) => (property(a), RDFS_SUB_PROPERTY_OF, property(b)),
            PAx::Inverse(a, b) => (property(a), OWL_INVERSE_OF, property(b)),
            PAx::Domain(p, c) => (property(p), RDFS_DOMAIN, class(c)),
            PAx::Range(p, c) => (property(p), RDFS_RANGE, class(c)),
        };
        render::triple(&a, &render::vocab(&self.schema, pred), &b)
    }
}

/// Tier-2 provenance of inferred types.
pub(super) struct Full {
    pub(super) constraints: Vec<Vec<Constraint>>,
    pub(super) provs: Vec<Prov>,
}
