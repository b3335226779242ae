//! Computing a [`Schema`] from a dataset: the T-Box comes from a few predicate slices; the
//! statistics from one pass over the `rdf:type` slice and one over all triples.

mod stats;

use crate::hierarchy::{self};
use crate::vocab::*;
use crate::{Parts, PropertyAxioms, PropertyKind, Schema, SchemaError};
use oxrdf::{NamedNodeRef, Term};
use rete_core::{Id, Pattern, Rete};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What to compute.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Scan the dataset for instance counts, relations, literal properties and labels. Without
    /// it only the slices of the schema predicates are read, which is what a coherence check
    /// does on a file built without a schema block.
    pub statistics: bool,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        Self { statistics: true }
    }
}

/// Upper bound on the length of an RDF list (`owl:members`); longer or cyclic lists are cut.
const MAX_LIST: usize = 1 << 20;

/// The OWL classes of properties with the characteristic any property may have (with
/// [`OBJECT_ONLY`], every OWL class of properties).
const PROPERTY_KINDS: [&str; 4] = [
    OWL_OBJECT_PROPERTY,
    OWL_DATATYPE_PROPERTY,
    OWL_ANNOTATION_PROPERTY,
    OWL_FUNCTIONAL_PROPERTY,
];

/// The characteristics only object properties have: declaring one makes a property an object
/// property.
const OBJECT_ONLY: [&str; 6] = [
    OWL_INVERSE_FUNCTIONAL_PROPERTY,
    OWL_IRREFLEXIVE_PROPERTY,
    OWL_ASYMMETRIC_PROPERTY,
    OWL_SYMMETRIC_PROPERTY,
    OWL_TRANSITIVE_PROPERTY,
    OWL_REFLEXIVE_PROPERTY,
];

/// Computes the schema of `rete`.
pub fn extract(rete: &Rete, opts: &ExtractOptions) -> Result<Schema, SchemaError> {
    Extractor::new(rete)?.run(opts)
}

struct Extractor<'a> {
    rete: &'a Rete,
    ids: HashMap<&'static str, Option<Id>>,
    iris: HashMap<Id, Option<String>>,
}

impl<'a> Extractor<'a> {
    fn new(rete: &'a Rete) -> Result<Self, SchemaError> {
        let mut ids = HashMap::new();
        for iri in [
            RDF_TYPE,
            RDF_FIRST,
            RDF_REST,
            RDF_NIL,
            RDF_PROPERTY,
            RDFS_CLASS,
            RDFS_SUB_CLASS_OF,
            RDFS_SUB_PROPERTY_OF,
            RDFS_DOMAIN,
            RDFS_RANGE,
            RDFS_LABEL,
            RDFS_DATATYPE,
            OWL_CLASS,
            OWL_EQUIVALENT_CLASS,
            OWL_DISJOINT_WITH,
            OWL_COMPLEMENT_OF,
            OWL_ALL_DISJOINT_CLASSES,
            OWL_ALL_DISJOINT_PROPERTIES,
            OWL_MEMBERS,
            OWL_INVERSE_OF,
            OWL_PROPERTY_DISJOINT_WITH,
        ]
        .into_iter()
        .chain(PROPERTY_KINDS)
        .chain(OBJECT_ONLY)
        {
            ids.insert(iri, rete.id_of(NamedNodeRef::new_unchecked(iri).into())?);
        }
        Ok(Self {
            rete,
            ids,
            iris: HashMap::new(),
        })
    }

    fn id(&self, iri: &'static str) -> Option<Id> {
        self.ids.get(iri).copied().flatten()
    }

    /// `(s, o)` of every triple with predicate `p`, without duplicates across graphs.
    fn pairs(&self, p: &'static str) -> Result<Vec<(Id, Id)>, SchemaError> {
        let Some(p) = self.id(p) else {
            return Ok(Vec::new());
        };
        let mut v = Vec::new();
        for q in self.rete.quads(&Pattern::new(None, Some(p), None))? {
            let q = q?;
            v.push((q[0], q[2]));
        }
        v.dedup();
        Ok(v)
    }

    /// Subjects of `rdf:type class`.
    fn instances(&self, class: &'static str) -> Result<Vec<Id>, SchemaError> {
        let (Some(t), Some(c)) = (self.id(RDF_TYPE), self.id(class)) else {
            return Ok(Vec::new());
        };
        let mut v = Vec::new();
        for q in self.rete.quads(&Pattern::new(None, Some(t), Some(c)))? {
            v.push(q?[0]);
        }
        v.sort_unstable();
        v.dedup();
        Ok(v)
    }

    fn objects(&self, s: Id, p: Option<Id>) -> Result<Vec<Id>, SchemaError> {
        let Some(p) = p else {
            return Ok(Vec::new());
        };
        let mut v = Vec::new();
        for q in self.rete.quads(&Pattern::new(Some(s), Some(p), None))? {
            v.push(q?[2]);
        }
        v.dedup();
        Ok(v)
    }

    /// The members of an RDF list (cycles and overlong lists are cut).
    fn list(&self, head: Id) -> Result<Vec<Id>, SchemaError> {
        let (first, rest, nil) = (self.id(RDF_FIRST), self.id(RDF_REST), self.id(RDF_NIL));
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut node = head;
        while Some(node) != nil && seen.insert(node) && out.len() < MAX_LIST {
            out.extend(self.objects(node, first)?.first().copied());
            match self.objects(node, rest)?.first() {
                Some(&next) => node = next,
                None => break,
            }
        }
        Ok(out)
    }

    /// Members of the lists of every `rdf:type group_class` node through `owl:members`.
    fn groups(&self, group_class: &'static str) -> Result<Vec<Vec<Id>>, SchemaError> {
        let mut out = Vec::new();
        for g in self.instances(group_class)? {
            for head in self.objects(g, self.id(OWL_MEMBERS))? {
                out.push(self.list(head)?);
            }
        }
        Ok(out)
    }

    /// The IRI of `id`, or `None` for blank nodes and literals.
    fn iri(&mut self, id: Id) -> Result<Option<&str>, SchemaError> {
        if !self.iris.contains_key(&id) {
            let iri = match self.rete.term(id)? {
                Term::NamedNode(n) => Some(n.into_string()),
                _ => None,
            };
            self.iris.insert(id, iri);
        }
        Ok(self.iris.get(&id).and_then(|o| o.as_deref()))
    }

    fn run(mut self, opts: &ExtractOptions) -> Result<Schema, SchemaError> {
        // 1. The T-Box slices.
        let sub = self.pairs(RDFS_SUB_CLASS_OF)?;
        let eq = self.pairs(OWL_EQUIVALENT_CLASS)?;
        let dis = self.pairs(OWL_DISJOINT_WITH)?;
        let comp = self.pairs(OWL_COMPLEMENT_OF)?;
        let domain = self.pairs(RDFS_DOMAIN)?;
        let range = self.pairs(RDFS_RANGE)?;
        let sub_prop = self.pairs(RDFS_SUB_PROPERTY_OF)?;
        let inverse = self.pairs(OWL_INVERSE_OF)?;
        let prop_dis = self.pairs(OWL_PROPERTY_DISJOINT_WITH)?;
        let class_groups = self.groups(OWL_ALL_DISJOINT_CLASSES)?;
        let prop_groups = self.groups(OWL_ALL_DISJOINT_PROPERTIES)?;
        let declared_datatypes: HashSet<Id> = self.instances(RDFS_DATATYPE)?.into_iter().collect();
        let mut declared = HashMap::new();
        for k in PROPERTY_KINDS
            .into_iter()
            .chain(OBJECT_ONLY)
            .chain([RDF_PROPERTY])
        {
            declared.insert(k, self.instances(k)?.into_iter().collect::<HashSet<Id>>());
        }
        let datatype_props = &declared[OWL_DATATYPE_PROPERTY];

        // 2. The statistics pass (keyed by ids until classes have indexes).
        let raw = if opts.statistics {
            Some(self.raw_stats()?)
        } else {
            None
        };

        // 3. Classes.
        let mut cand: BTreeSet<Id> = BTreeSet::new();
        cand.extend(self.instances(OWL_CLASS)?);
        cand.extend(self.instances(RDFS_CLASS)?);
        for (s, o) in sub.iter().chain(&eq).chain(&dis).chain(&comp) {
            cand.insert(*s);
            cand.insert(*o);
        }
        cand.extend(class_groups.iter().flatten());
        cand.extend(domain.iter().map(|p| p.1));
        cand.extend(
            range
                .iter()
                .filter(|(p, _)| !datatype_props.contains(p))
                .map(|p| p.1),
        );
        if let Some(raw) = &raw {
            cand.extend(raw.typesets.iter().flatten());
        }
        let mut class_ids = Vec::new();
        let mut classes = Vec::new();
        for id in cand {
            if declared_datatypes.contains(&id) {
                continue;
            }
            if let Some(iri) = self.iri(id)? {
                if !is_meta(iri) && !is_builtin_datatype(iri) {
                    let iri = iri.to_owned();
                    class_ids.push(id);
                    classes.push(iri);
                }
            }
        }
        let cix = dense_index(&class_ids, "classes")?;
        let n = classes.len();
        let pair_ix = |v: &[(Id, Id)]| -> Vec<(u32, u32)> {
            let mut out: Vec<(u32, u32)> = v
                .iter()
                .filter_map(|(a, b)| Some((*cix.get(a)?, *cix.get(b)?)))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        let mut parents = vec![Vec::new(); n];
        for (a, b) in pair_ix(&sub) {
            if a != b {
                parents[a as usize].push(b);
            }
        }
        let equivalent: Vec<(u32, u32)> =
            pair_ix(&eq).into_iter().filter(|(a, b)| a != b).collect();
        let disjoint = pair_ix(&dis);
        let disjoint_groups = index_groups(&class_groups, &cix);
        let mut complement = pair_ix(&comp);
        // `a owl:equivalentClass [ owl:complementOf b ]`, in either direction.
        let mut anonymous_complement = Vec::new();
        let comp_id = self.id(OWL_COMPLEMENT_OF);
        for &(x, y) in &eq {
            for (named, anon) in [(x, y), (y, x)] {
                let Some(&a) = cix.get(&named) else { continue };
                if cix.contains_key(&anon) || self.iri(anon)?.is_some() {
                    continue;
                }
                for b in self.objects(anon, comp_id)? {
                    if let Some(&b) = cix.get(&b) {
                        anonymous_complement.push((a, b));
                    }
                }
            }
        }
        anonymous_complement.sort_unstable();
        anonymous_complement.dedup();
        complement.extend(&anonymous_complement);
        complement.sort_unstable();
        complement.dedup();

        // 4. Properties.
        let mut pcand: BTreeSet<Id> = BTreeSet::new();
        for set in declared.values() {
            pcand.extend(set);
        }
        for (s, o) in sub_prop.iter().chain(&inverse).chain(&prop_dis) {
            pcand.insert(*s);
            pcand.insert(*o);
        }
        pcand.extend(domain.iter().chain(&range).map(|p| p.0));
        pcand.extend(prop_groups.iter().flatten());
        if let Some(raw) = &raw {
            pcand.extend(raw.predicate_triples.keys());
        }
        let mut prop_ids = Vec::new();
        let mut props = Vec::new();
        for id in pcand {
            if let Some(iri) = self.iri(id)? {
                let iri = iri.to_owned();
                prop_ids.push(id);
                props.push(iri);
            }
        }
        let pix = dense_index(&prop_ids, "properties")?;
        let has = |k: &str, id: Id| declared.get(k).is_some_and(|s| s.contains(&id));
        let mut properties: Vec<PropertyAxioms> = Vec::with_capacity(props.len());
        for (i, (iri, &id)) in props.into_iter().zip(&prop_ids).enumerate() {
            let object_only = OBJECT_ONLY.iter().any(|k| has(k, id));
            let kind = if has(OWL_OBJECT_PROPERTY, id) || object_only {
                PropertyKind::Object
            } else if has(OWL_DATATYPE_PROPERTY, id) {
                PropertyKind::Datatype
            } else if has(OWL_ANNOTATION_PROPERTY, id) {
                PropertyKind::Annotation
            } else {
                PropertyKind::Property
            };
            properties.push(PropertyAxioms {
                index: i as u32,
                iri,
                label: None,
                kind,
                functional: has(OWL_FUNCTIONAL_PROPERTY, id),
                inverse_functional: has(OWL_INVERSE_FUNCTIONAL_PROPERTY, id),
                irreflexive: has(OWL_IRREFLEXIVE_PROPERTY, id),
                asymmetric: has(OWL_ASYMMETRIC_PROPERTY, id),
                symmetric: has(OWL_SYMMETRIC_PROPERTY, id),
                transitive: has(OWL_TRANSITIVE_PROPERTY, id),
                reflexive: has(OWL_REFLEXIVE_PROPERTY, id),
                domain: Vec::new(),
                range: Vec::new(),
                range_datatypes: Vec::new(),
                inverse_of: Vec::new(),
                disjoint_with: Vec::new(),
                parents: Vec::new(),
                triples: 0,
            });
        }
        for &(p, c) in &domain {
            if let (Some(&p), Some(&c)) = (pix.get(&p), cix.get(&c)) {
                properties[p as usize].domain.push(c);
            }
        }
        for &(p, r) in &range {
            let Some(&pi) = pix.get(&p) else { continue };
            if let Some(&c) = cix.get(&r) {
                properties[pi as usize].range.push(c);
            } else if let Some(iri) = self.iri(r)? {
                if is_builtin_datatype(iri)
                    || declared_datatypes.contains(&r)
                    || datatype_props.contains(&p)
                {
                    let iri = iri.to_owned();
                    properties[pi as usize].range_datatypes.push(iri);
                }
            }
        }
        for (list, field) in [(&inverse, 0), (&prop_dis, 1), (&sub_prop, 2)] {
            for &(a, b) in list.iter() {
                if let (Some(&a), Some(&b)) = (pix.get(&a), pix.get(&b)) {
                    let p = &mut properties[a as usize];
                    match field {
                        0 => p.inverse_of.push(b),
                        1 => p.disjoint_with.push(b),
                        _ if a != b => p.parents.push(b),
                        _ => {}
                    }
                }
            }
        }
        for p in &mut properties {
            for v in [
                &mut p.domain,
                &mut p.range,
                &mut p.inverse_of,
                &mut p.disjoint_with,
                &mut p.parents,
            ] {
                v.sort_unstable();
                v.dedup();
            }
            p.range_datatypes.sort();
            p.range_datatypes.dedup();
        }
        let property_disjoint_groups = index_groups(&prop_groups, &pix);

        // 5. Prefixes of the inputs that the schema's IRIs use.
        let card = self.rete.card()?;
        let prefixes: Vec<(String, String)> = card
            .prefixes
            .iter()
            .filter(|(p, ns)| {
                !ns.is_empty()
                    && !WELL_KNOWN.contains(&(p.as_str(), ns.as_str()))
                    && classes
                        .iter()
                        .chain(properties.iter().map(|p| &p.iri))
                        .any(|i| i.starts_with(ns.as_str()))
            })
            .map(|(p, ns)| (p.clone(), ns.clone()))
            .collect();
        let mut prefixes = prefixes;
        // Inputs without prefixes (N-Triples): the classes' most common namespace becomes `:`.
        if !prefixes
            .iter()
            .any(|(_, ns)| classes.iter().any(|c| c.starts_with(ns.as_str())))
        {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for c in classes.iter().filter(|c| !is_meta(c)) {
                if let Some(end) = c.rfind(['#', '/']) {
                    *counts.entry(&c[..=end]).or_default() += 1;
                }
            }
            let best = counts
                .into_iter()
                .max_by_key(|&(ns, n)| (n, std::cmp::Reverse(ns)));
            if let Some((ns, n)) = best {
                if n >= 2 && !prefixes.iter().any(|(p, _)| p.is_empty()) {
                    prefixes.push((String::new(), ns.to_owned()));
                }
            }
        }

        let mut schema = Schema {
            classes: hierarchy::classes(classes, parents),
            disjoint,
            disjoint_groups,
            equivalent,
            complement,
            anonymous_complement,
            properties,
            property_disjoint_groups,
            prefixes,
            parts: Parts::AXIOMS,
            ..Schema::default()
        };
        if let Some(raw) = raw {
            self.apply_stats(&mut schema, raw, &cix, &pix)?;
            self.labels(&mut schema, &class_ids, &prop_ids)?;
            schema.parts.statistics = true;
        }
        Ok(schema)
    }
}

/// Each id's position in `ids`, as the `u32` index the schema block stores (at most 2^32 `what`).
fn dense_index(ids: &[Id], what: &str) -> Result<HashMap<Id, u32>, SchemaError> {
    if u32::try_from(ids.len()).is_err() {
        return Err(SchemaError::Invalid(format!("more than 2^32 {what}")));
    }
    Ok(ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32))
        .collect())
}

/// `owl:AllDisjoint…` groups as sorted, distinct index lists of at least two members (members
/// without an index dropped), the groups themselves sorted and distinct.
fn index_groups(groups: &[Vec<Id>], ix: &HashMap<Id, u32>) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = groups
        .iter()
        .map(|g| {
            let mut m: Vec<u32> = g.iter().filter_map(|i| ix.get(i).copied()).collect();
            m.sort_unstable();
            m.dedup();
            m
        })
        .filter(|m| m.len() > 1)
        .collect();
    out.sort();
    out.dedup();
    out
}
