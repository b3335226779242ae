//! The entity graph of a dataset: nodes are the IRIs and blank nodes used as subjects or as objects
//! of non-`rdf:type` triples; an undirected edge joins two entities linked by at least one triple,
//! weighted by the number of such triples. `rdf:type` triples become class memberships, literal
//! triples are ignored except for labels.

use crate::PyramidError;
use rete_core::vocab::LABEL_PREDICATES;
use rete_core::{Id, Pattern, Perm, Rete, TermKind};
use std::io::Write;

/// The entity graph extracted from a `.rete` file, with the per-entity facts the pyramid stores
/// (classes, labels). Node indices follow increasing term ids, so the node order is fixed.
#[derive(Debug, Clone)]
pub struct EntityGraph {
    /// Node index → term id, increasing.
    pub(crate) ids: Vec<Id>,
    /// Distinct undirected pairs `(a, b)` with `a <= b` and their triple counts, sorted.
    pub(crate) edges: Vec<(u32, u32, u64)>,
    /// One entry per object triple: `(subject node, object node, predicate index)`.
    pub(crate) triples: Vec<(u32, u32, u32)>,
    /// Predicate index → term id, increasing.
    pub(crate) predicates: Vec<Id>,
    /// Class index → term id, increasing.
    pub(crate) classes: Vec<Id>,
    /// `(node, class index)` pairs, sorted, distinct.
    pub(crate) node_classes: Vec<(u32, u32)>,
    /// `(node, literal term id)`: the chosen label of each labelled node, sorted by node.
    pub(crate) labels: Vec<(u32, Id)>,
    /// Weighted degree of each node (self-loops count twice).
    pub(crate) degree: Vec<u64>,
}

impl EntityGraph {
    /// Extracts the entity graph with one scan of the SPO permutation.
    pub fn from_rete(rete: &Rete) -> Result<Self, PyramidError> {
        let terms = rete.term_count();
        if terms >= u64::from(u32::MAX) {
            return Err(PyramidError::TooLarge(format!(
                "{terms} terms; the pyramid supports up to {} terms",
                u32::MAX - 1
            )));
        }
        let lit_start = rete.first_of_kind(TermKind::SimpleLiteral)?;
        let rdf_type = rete.id_of(oxrdf::vocab::rdf::TYPE.into())?;
        let mut label_preds: Vec<(Id, usize)> = Vec::new();
        for (prio, iri) in LABEL_PREDICATES.iter().enumerate() {
            if let Some(id) = rete.id_of(oxrdf::NamedNodeRef::new_unchecked(iri).into())? {
                label_preds.push((id, prio));
            }
        }
        let is_entity = |id: Id| id >= 1 && id < lit_start;
        let mut node = vec![false; lit_start as usize];
        let mut raw_triples: Vec<(u32, u32, u32)> = Vec::new();
        let mut types: Vec<(u32, u32)> = Vec::new();
        let mut label_cands: Vec<(u32, usize, u32)> = Vec::new();
        let mut last: Option<[Id; 3]> = None;
        for q in rete.scan(Perm::Spo, &Pattern::default())? {
            let [s, p, o, _] = q?;
            // SPO order puts the graphs of one triple next to each other: count triples once.
            if last == Some([s, p, o]) {
                continue;
            }
            last = Some([s, p, o]);
            if !is_entity(s) {
                return Err(PyramidError::corrupt(
                    rete.name(),
                    "quads",
                    format!("subject id {s} is not an IRI or blank node"),
                ));
            }
            node[s as usize] = true;
            if Some(p) == rdf_type {
                if is_entity(o) {
                    types.push((s as u32, o as u32));
                }
            } else if is_entity(o) {
                node[o as usize] = true;
                raw_triples.push((s as u32, o as u32, p as u32));
            } else if let Some(&(_, prio)) = label_preds.iter().find(|(id, _)| *id == p) {
                label_cands.push((s as u32, prio, o as u32));
            }
        }
        // Node indices in id order.
        let mut index = vec![u32::MAX; lit_start as usize];
        let mut ids = Vec::new();
        for (id, &is) in node.iter().enumerate() {
            if is {
                index[id] = ids.len() as u32;
                ids.push(id as Id);
            }
        }
        drop(node);
        // Predicates and classes in id order.
        let mut predicates: Vec<Id> = raw_triples.iter().map(|t| Id::from(t.2)).collect();
        predicates.sort_unstable();
        predicates.dedup();
        let mut classes: Vec<Id> = types.iter().map(|t| Id::from(t.1)).collect();
        classes.sort_unstable();
        classes.dedup();
        let pred_index = |p: u32| predicates.binary_search(&Id::from(p)).unwrap_or(0) as u32;
        let triples: Vec<(u32, u32, u32)> = raw_triples
            .iter()
            .map(|&(s, o, p)| (index[s as usize], index[o as usize], pred_index(p)))
            .collect();
        drop(raw_triples);
        let mut pairs: Vec<(u32, u32)> = triples
            .iter()
            .map(|&(a, b, _)| (a.min(b), a.max(b)))
            .collect();
        pairs.sort_unstable();
        let mut edges: Vec<(u32, u32, u64)> = Vec::new();
        for (a, b) in pairs {
            match edges.last_mut() {
                Some(e) if e.0 == a && e.1 == b => e.2 += 1,
                _ => edges.push((a, b, 1)),
            }
        }
        let mut degree = vec![0u64; ids.len()];
        for &(a, b, w) in &edges {
            degree[a as usize] += w;
            degree[b as usize] += w;
        }
        let mut node_classes: Vec<(u32, u32)> = types
            .iter()
            .map(|&(s, c)| {
                (
                    index[s as usize],
                    classes.binary_search(&Id::from(c)).unwrap_or(0) as u32,
                )
            })
            .collect();
        node_classes.sort_unstable();
        node_classes.dedup();
        // Labels: best predicate first; among its literals prefer untagged or English ones.
        label_cands.sort_unstable();
        let mut labels: Vec<(u32, Id)> = Vec::new();
        let mut i = 0;
        while i < label_cands.len() {
            let (s, prio, _) = label_cands[i];
            let mut j = i;
            let mut chosen: Option<u32> = None;
            while j < label_cands.len() && label_cands[j].0 == s && label_cands[j].1 == prio {
                if chosen.is_none() && prefers(&rete.term_bytes(Id::from(label_cands[j].2))?) {
                    chosen = Some(label_cands[j].2);
                }
                j += 1;
            }
            labels.push((
                index[s as usize],
                Id::from(chosen.unwrap_or(label_cands[i].2)),
            ));
            while j < label_cands.len() && label_cands[j].0 == s {
                j += 1;
            }
            i = j;
        }
        Ok(Self {
            ids,
            edges,
            triples,
            predicates,
            classes,
            node_classes,
            labels,
            degree,
        })
    }

    /// Number of entities (nodes).
    pub fn node_count(&self) -> usize {
        self.ids.len()
    }

    /// Number of distinct linked entity pairs (undirected edges, self-loops included).
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Number of object triples between entities (the total edge weight).
    pub fn triple_count(&self) -> usize {
        self.triples.len()
    }

    /// Term id of node `i`.
    pub fn entity(&self, i: usize) -> Option<Id> {
        self.ids.get(i).copied()
    }

    /// Node index of term `id`, if it is an entity.
    pub fn node_of(&self, id: Id) -> Option<usize> {
        self.ids.binary_search(&id).ok()
    }

    /// Edges as `(entity id, entity id, triple count)`.
    pub fn edges(&self) -> impl Iterator<Item = (Id, Id, u64)> + '_ {
        self.edges
            .iter()
            .map(|&(a, b, w)| (self.ids[a as usize], self.ids[b as usize], w))
    }

    /// Writes the edge list as `source\ttarget\tweight` lines of term ids (for reference tools).
    pub fn write_edge_list(&self, mut out: impl Write) -> std::io::Result<()> {
        for (a, b, w) in self.edges() {
            writeln!(out, "{a}\t{b}\t{w}")?;
        }
        Ok(())
    }
}

/// Whether a literal encoding is untagged or tagged English.
fn prefers(enc: &[u8]) -> bool {
    match TermKind::of_encoded(enc) {
        Some(TermKind::SimpleLiteral) => true,
        Some(TermKind::LangLiteral) => {
            let tag = enc[1..].split(|&b| b == 0).next().unwrap_or_default();
            tag.eq_ignore_ascii_case(b"en") || tag.to_ascii_lowercase().starts_with(b"en-")
        }
        _ => false,
    }
}
