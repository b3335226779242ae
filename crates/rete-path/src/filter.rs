//! Which links and which entities a path may use: the predicate filter (`via`, `without`, the
//! schema links left out by default) and the node filter (literals, hubs, excluded classes).
//! Both memoize per id: a search asks about the same few predicates and the same nodes often.

use crate::{PathError, PathOptions};
use oxrdf::vocab::{rdf, rdfs};
use oxrdf::{NamedNode, NamedNodeRef, Term, TermRef};
use rete_core::vocab::OWL;
use rete_core::{Id, Pattern, Rete, TermKind};
use rustc_hash::{FxHashMap, FxHashSet};

/// The schema predicates left out unless asked for: they tie everything together through
/// classes. Besides these, every `owl:` predicate but `owl:sameAs` is schema.
pub const SCHEMA_PREDICATES: [NamedNodeRef<'static>; 5] = [
    rdf::TYPE,
    rdfs::SUB_CLASS_OF,
    rdfs::SUB_PROPERTY_OF,
    rdfs::DOMAIN,
    rdfs::RANGE,
];

/// Whether `iri` is a schema predicate (left out by default).
pub fn is_schema_predicate(iri: &str) -> bool {
    SCHEMA_PREDICATES.iter().any(|p| p.as_str() == iri)
        || iri.strip_prefix(OWL).is_some_and(|local| local != "sameAs")
}

/// At most this many of the card's predicates are looked up ahead on a remote file (a file
/// with more pays a read per predicate it meets instead).
const CARD_PREDICATES: usize = 1024;

/// The predicates a search with `opts` sorts by name: every predicate of the file (from its
/// card) when schema links are left out by name, on a remote file only (where a term read is a
/// request; a local one reads the few a search meets).
fn card_predicates(rete: &Rete, opts: &PathOptions) -> Result<Vec<NamedNode>, PathError> {
    if !rete.reader().is_remote() || !opts.via.is_empty() || opts.include_schema {
        return Ok(Vec::new());
    }
    let card = rete.card()?;
    if card.predicates.len() > CARD_PREDICATES {
        return Ok(Vec::new());
    }
    Ok(card
        .predicates
        .iter()
        .filter_map(|p| {
            let iri = p.term.strip_prefix('<')?.strip_suffix('>')?;
            NamedNode::new(iri).ok()
        })
        .collect())
}

/// Every term the filters of a search with `opts` look up when they start, for a caller that
/// fetches them in one batch first ([`Rete::prefetch_lookups`]).
pub(crate) fn lookups(rete: &Rete, opts: &PathOptions) -> Result<Vec<Term>, PathError> {
    let mut terms: Vec<Term> = opts
        .via
        .iter()
        .chain(&opts.without)
        .chain(&opts.without_classes)
        .cloned()
        .map(Term::from)
        .collect();
    if !opts.without_classes.is_empty() {
        terms.push(rdf::TYPE.into_owned().into());
    }
    terms.extend(card_predicates(rete, opts)?.into_iter().map(Term::from));
    Ok(terms)
}

/// Decides per predicate id whether its links count.
#[derive(Debug)]
pub(crate) struct PredicateFilter {
    /// Only these, when given (they override the schema default).
    via: Option<FxHashSet<Id>>,
    without: FxHashSet<Id>,
    include_schema: bool,
    memo: FxHashMap<Id, bool>,
    /// The last predicate asked about and its answer (id 0 is no term): an entity's links out
    /// come sorted by predicate, so the same one is asked about many times in a row.
    last: (Id, bool),
}

impl PredicateFilter {
    pub(crate) fn new(rete: &Rete, opts: &PathOptions) -> Result<Self, PathError> {
        let via = if opts.via.is_empty() {
            None
        } else {
            let mut ids = FxHashSet::default();
            for p in &opts.via {
                match rete.id_of(p.as_ref().into())? {
                    Some(id) => ids.insert(id),
                    None => return Err(PathError::UnknownPredicate(p.to_string())),
                };
            }
            Some(ids)
        };
        let mut without = FxHashSet::default();
        // A predicate the file lacks excludes nothing: a shared exclusion list may name it.
        for p in &opts.without {
            if let Some(id) = rete.id_of(p.as_ref().into())? {
                without.insert(id);
            }
        }
        let mut memo = FxHashMap::default();
        // On a remote file, the file's predicates sorted now, from their names on the card:
        // their ids come from the lookups fetched in one batch, and no term is read per
        // predicate met. A predicate the card lacks is still read when met.
        for p in card_predicates(rete, opts)? {
            if let Some(id) = rete.id_of(p.as_ref().into())? {
                memo.insert(
                    id,
                    !without.contains(&id) && !is_schema_predicate(p.as_str()),
                );
            }
        }
        Ok(Self {
            via,
            without,
            include_schema: opts.include_schema,
            memo,
            last: (0, false),
        })
    }

    /// Whether links with predicate `p` count.
    pub(crate) fn allows(&mut self, rete: &Rete, p: Id) -> Result<bool, PathError> {
        if self.last.0 == p {
            return Ok(self.last.1);
        }
        if let Some(&known) = self.memo.get(&p) {
            self.last = (p, known);
            return Ok(known);
        }
        let allowed = if let Some(via) = &self.via {
            via.contains(&p) && !self.without.contains(&p)
        } else if self.without.contains(&p) {
            false
        } else if self.include_schema {
            true
        } else {
            match rete.term(p)? {
                Term::NamedNode(n) => !is_schema_predicate(n.as_str()),
                _ => true,
            }
        };
        self.memo.insert(p, allowed);
        self.last = (p, allowed);
        Ok(allowed)
    }
}

/// Decides per node whether a path may pass through it (endpoints always may).
#[derive(Debug)]
pub(crate) struct NodeFilter {
    /// Ids from here on are literals (the dictionary sorts terms by kind).
    first_literal: Id,
    max_degree: Option<u64>,
    rdf_type: Option<Id>,
    classes: Vec<Id>,
    /// With schema links followed, the ids of the terms of RDF itself (`rdf:`, `rdfs:`, `owl:`,
    /// `xsd:`) and of SHACL (ranges, as the dictionary sorts IRIs): every class is an
    /// `owl:Class` and below `owl:Thing` (in Brick, a `sh:NodeShape` too), so through them any
    /// two classes are two hops apart.
    core: Vec<std::ops::Range<Id>>,
    memo: FxHashMap<Id, bool>,
}

impl NodeFilter {
    pub(crate) fn new(rete: &Rete, opts: &PathOptions) -> Result<Self, PathError> {
        let mut classes = Vec::new();
        for c in &opts.without_classes {
            if let Some(id) = rete.id_of(c.as_ref().into())? {
                classes.push(id);
            }
        }
        Ok(Self {
            first_literal: rete.first_of_kind(TermKind::SimpleLiteral)?,
            max_degree: opts.max_degree,
            // Only the class filter needs it: a lookup saved otherwise.
            rdf_type: if classes.is_empty() {
                None
            } else {
                rete.id_of(TermRef::from(rdf::TYPE))?
            },
            classes,
            core: if opts.include_schema {
                rete_core::vocab::CORE_PREFIXES
                    .iter()
                    .map(|&(_, ns)| ns)
                    .chain([rete_core::vocab::SH])
                    .map(|ns| rete.iri_ids_starting_with(ns))
                    .collect::<Result<_, _>>()?
            } else {
                Vec::new()
            },
            memo: FxHashMap::default(),
        })
    }

    /// Whether `id` is a literal (never expanded, never on a path).
    pub(crate) fn is_literal(&self, id: Id) -> bool {
        id >= self.first_literal
    }

    /// Whether a path may pass through `id`: not a hub above the degree bound (links as subject
    /// plus as object, all predicates: counted from the permutation directories, without reading
    /// the links), not an instance of an excluded class, and no term of RDF itself when schema
    /// links are followed.
    pub(crate) fn admits(&mut self, rete: &Rete, id: Id) -> Result<bool, PathError> {
        if self.is_literal(id) || self.core.iter().any(|r| r.contains(&id)) {
            return Ok(false);
        }
        if self.max_degree.is_none() && self.classes.is_empty() {
            return Ok(true);
        }
        if let Some(&known) = self.memo.get(&id) {
            return Ok(known);
        }
        let mut ok = true;
        if let Some(max) = self.max_degree {
            let out = rete.count(&Pattern::new(Some(id), None, None))?;
            ok = out <= max && out + rete.count(&Pattern::new(None, None, Some(id)))? <= max;
        }
        if ok {
            if let Some(ty) = self.rdf_type {
                for &c in &self.classes {
                    if rete.count(&Pattern::new(Some(id), Some(ty), Some(c)))? > 0 {
                        ok = false;
                        break;
                    }
                }
            }
        }
        self.memo.insert(id, ok);
        Ok(ok)
    }
}
