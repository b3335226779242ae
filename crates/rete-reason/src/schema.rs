//! The schema (TBox) part of materialization: vocabulary ids, the closed class and property
//! hierarchies, domains and ranges, property characteristics and sameAs cliques. All of it is
//! small next to the data and is computed once per pass, in memory.

use crate::rules::{MaterializeOptions, Rule};
use crate::terms::Terms;
use crate::Result;
use rete_core::{Id, IdQuad, DEFAULT_GRAPH};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const OWL: &str = "http://www.w3.org/2002/07/owl#";

/// Ids of the vocabulary the rules read and write (virtual ids when the file lacks a term).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Vocab {
    pub(crate) type_: Id,
    pub(crate) sub_class: Id,
    pub(crate) sub_prop: Id,
    pub(crate) domain: Id,
    pub(crate) range: Id,
    pub(crate) inverse_of: Id,
    pub(crate) equiv_class: Id,
    pub(crate) equiv_prop: Id,
    pub(crate) same_as: Id,
    pub(crate) transitive: Id,
    pub(crate) symmetric: Id,
}

impl Vocab {
    pub(crate) fn resolve(terms: &mut Terms) -> Result<Self> {
        Ok(Self {
            type_: terms.iri(&format!("{RDF}type"))?,
            sub_class: terms.iri(&format!("{RDFS}subClassOf"))?,
            sub_prop: terms.iri(&format!("{RDFS}subPropertyOf"))?,
            domain: terms.iri(&format!("{RDFS}domain"))?,
            range: terms.iri(&format!("{RDFS}range"))?,
            inverse_of: terms.iri(&format!("{OWL}inverseOf"))?,
            equiv_class: terms.iri(&format!("{OWL}equivalentClass"))?,
            equiv_prop: terms.iri(&format!("{OWL}equivalentProperty"))?,
            same_as: terms.iri(&format!("{OWL}sameAs"))?,
            transitive: terms.iri(&format!("{OWL}TransitiveProperty"))?,
            symmetric: terms.iri(&format!("{OWL}SymmetricProperty"))?,
        })
    }

    /// Predicates whose statements are schema axioms (plus `owl:sameAs`).
    pub(crate) fn structural_predicates(&self) -> [Id; 8] {
        [
            self.sub_class,
            self.sub_prop,
            self.domain,
            self.range,
            self.inverse_of,
            self.equiv_class,
            self.equiv_prop,
            self.same_as,
        ]
    }

    /// Whether a statement changes the schema or the sameAs cliques.
    pub(crate) fn is_structural(&self, q: &IdQuad) -> bool {
        self.structural_predicates().contains(&q[1])
            || (q[1] == self.type_ && (q[2] == self.transitive || q[2] == self.symmetric))
    }
}

/// The closed schema used by the instance rules, plus the schema-level conclusions to emit.
#[derive(Debug, Default)]
pub(crate) struct Schema {
    /// Strict superclasses (reflexive pairs left out), transitively closed.
    pub(crate) sup_class: HashMap<Id, Vec<Id>>,
    /// Strict superproperties, transitively closed.
    pub(crate) sup_prop: HashMap<Id, Vec<Id>>,
    /// Classes every subject of a property gets: the domains of the property and of its
    /// superproperties, closed upward along subClassOf.
    pub(crate) dom: HashMap<Id, Vec<Id>>,
    /// Likewise for objects and ranges.
    pub(crate) rng: HashMap<Id, Vec<Id>>,
    /// `p → q` such that `x p y` entails `y q x`.
    pub(crate) inv: HashMap<Id, Vec<Id>>,
    pub(crate) symmetric: HashSet<Id>,
    pub(crate) transitive: HashSet<Id>,
    /// Schema-level conclusions (hierarchy closure, equivalences, domain/range propagation).
    pub(crate) conclusions: Vec<(IdQuad, Rule)>,
}

impl Schema {
    /// Builds the schema from the structural statements of every graph (the schema is global).
    pub(crate) fn build(structural: &[IdQuad], vocab: &Vocab, opts: &MaterializeOptions) -> Self {
        let mut class_edges = Vec::new();
        let mut prop_edges = Vec::new();
        let mut dom_direct: HashMap<Id, BTreeSet<Id>> = HashMap::default();
        let mut rng_direct: HashMap<Id, BTreeSet<Id>> = HashMap::default();
        let mut s = Schema::default();
        let mut schema_graphs = BTreeSet::new();
        for q in structural {
            let [a, p, b, g] = *q;
            if p == vocab.same_as {
                continue;
            }
            schema_graphs.insert(g);
            if opts.rdfs && p == vocab.sub_class && a != b {
                class_edges.push((a, b));
            } else if opts.rdfs && p == vocab.sub_prop && a != b {
                prop_edges.push((a, b));
            } else if opts.rdfs && p == vocab.domain {
                dom_direct.entry(a).or_default().insert(b);
            } else if opts.rdfs && p == vocab.range {
                rng_direct.entry(a).or_default().insert(b);
            } else if opts.owl_equivalence && p == vocab.equiv_class && a != b {
                class_edges.push((a, b));
                class_edges.push((b, a));
            } else if opts.owl_equivalence && p == vocab.equiv_prop && a != b {
                prop_edges.push((a, b));
                prop_edges.push((b, a));
            } else if opts.owl_properties && p == vocab.inverse_of {
                s.inv.entry(a).or_default().push(b);
                s.inv.entry(b).or_default().push(a);
            } else if opts.owl_properties && p == vocab.type_ && b == vocab.transitive {
                s.transitive.insert(a);
            } else if opts.owl_properties && p == vocab.type_ && b == vocab.symmetric {
                s.symmetric.insert(a);
            }
        }
        for v in s.inv.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        s.sup_class = closure(&class_edges);
        s.sup_prop = closure(&prop_edges);
        s.dom = propagate(&dom_direct, &s.sup_prop, &s.sup_class);
        s.rng = propagate(&rng_direct, &s.sup_prop, &s.sup_class);

        // Schema conclusions go to the one graph holding the whole schema, else the default graph.
        let g = match (schema_graphs.len(), schema_graphs.first()) {
            (1, Some(&g)) => g,
            _ => DEFAULT_GRAPH,
        };
        let mut out = Vec::new();
        let mut emit_hierarchy =
            |sup: &HashMap<Id, Vec<Id>>, pred: Id, equiv: Id, r: Rule, e: Rule| {
                for (&a, sups) in sup {
                    for &c in sups {
                        out.push(([a, pred, c, g], r));
                        // Mutual subsumption is equivalence (scm-eqc2, scm-eqp2).
                        if opts.owl_equivalence
                            && sup.get(&c).is_some_and(|v| v.binary_search(&a).is_ok())
                        {
                            out.push(([a, equiv, c, g], e));
                        }
                    }
                }
            };
        emit_hierarchy(
            &s.sup_class,
            vocab.sub_class,
            vocab.equiv_class,
            Rule::SubClassOf,
            Rule::EquivalentClass,
        );
        emit_hierarchy(
            &s.sup_prop,
            vocab.sub_prop,
            vocab.equiv_prop,
            Rule::SubPropertyOf,
            Rule::EquivalentProperty,
        );
        if opts.owl_schema {
            for (&p, cs) in &s.dom {
                out.extend(
                    cs.iter()
                        .map(|&c| ([p, vocab.domain, c, g], Rule::DomainPropagation)),
                );
            }
            for (&p, cs) in &s.rng {
                out.extend(
                    cs.iter()
                        .map(|&c| ([p, vocab.range, c, g], Rule::RangePropagation)),
                );
            }
        }
        // Hash-map order is random; the engine's output order should not be.
        out.sort_unstable();
        s.conclusions = out;
        s
    }

    /// Classes whose `rdf:type` statements the rules read or may write.
    pub(crate) fn relevant_classes(&self) -> BTreeSet<Id> {
        let mut out = BTreeSet::new();
        for (&c, sups) in &self.sup_class {
            out.insert(c);
            out.extend(sups);
        }
        for cs in self.dom.values().chain(self.rng.values()) {
            out.extend(cs);
        }
        out
    }

    /// Predicates (other than by class) whose statements the rules read or may write.
    pub(crate) fn relevant_predicates(&self) -> BTreeSet<Id> {
        let mut out = BTreeSet::new();
        for (&p, sups) in &self.sup_prop {
            out.insert(p);
            out.extend(sups);
        }
        out.extend(self.dom.keys());
        out.extend(self.rng.keys());
        for (&p, qs) in &self.inv {
            out.insert(p);
            out.extend(qs);
        }
        out.extend(&self.symmetric);
        out.extend(&self.transitive);
        out
    }

    /// Whether any instance rule can produce an `rdf:type` statement.
    pub(crate) fn types_anything(&self) -> bool {
        !self.sup_class.is_empty() || !self.dom.is_empty() || !self.rng.is_empty()
    }
}

/// Strict transitive closure of `edges`: for each node with an outgoing edge, every node
/// reachable in one or more steps except itself, sorted.
fn closure(edges: &[(Id, Id)]) -> HashMap<Id, Vec<Id>> {
    let mut adj: HashMap<Id, Vec<Id>> = HashMap::default();
    for &(a, b) in edges {
        adj.entry(a).or_default().push(b);
    }
    let mut out = HashMap::default();
    let mut seen = HashSet::default();
    let mut queue = VecDeque::new();
    for &start in adj.keys() {
        seen.clear();
        queue.clear();
        queue.push_back(start);
        while let Some(n) = queue.pop_front() {
            for &m in adj.get(&n).map_or(&[][..], Vec::as_slice) {
                if seen.insert(m) {
                    queue.push_back(m);
                }
            }
        }
        seen.remove(&start);
        let mut v: Vec<Id> = seen.iter().copied().collect();
        v.sort_unstable();
        if !v.is_empty() {
            out.insert(start, v);
        }
    }
    out
}

/// Domain (or range) classes per property: the property's own and its superproperties', each
/// with its superclasses (the closure of scm-dom1/scm-dom2, likewise for ranges).
fn propagate(
    direct: &HashMap<Id, BTreeSet<Id>>,
    sup_prop: &HashMap<Id, Vec<Id>>,
    sup_class: &HashMap<Id, Vec<Id>>,
) -> HashMap<Id, Vec<Id>> {
    let props: BTreeSet<Id> = direct.keys().chain(sup_prop.keys()).copied().collect();
    let mut out = HashMap::default();
    for p in props {
        let mut cs = BTreeSet::new();
        let supers = sup_prop.get(&p).map_or(&[][..], Vec::as_slice);
        for q in std::iter::once(&p).chain(supers) {
            for &c in direct.get(q).into_iter().flatten() {
                cs.insert(c);
                cs.extend(sup_class.get(&c).into_iter().flatten());
            }
        }
        if !cs.is_empty() {
            out.insert(p, cs.into_iter().collect());
        }
    }
    out
}

/// sameAs cliques: connected components of the `owl:sameAs` statements (two or more members,
/// sorted), and the graph their closure goes to.
#[derive(Debug, Default)]
pub(crate) struct Cliques {
    pub(crate) cliques: Vec<Arc<[Id]>>,
    pub(crate) graph: Id,
}

impl Cliques {
    pub(crate) fn build(structural: &[IdQuad], same_as: Id) -> Self {
        let mut parent: HashMap<Id, Id> = HashMap::default();
        fn find(parent: &mut HashMap<Id, Id>, x: Id) -> Id {
            let mut root = x;
            while let Some(&p) = parent.get(&root) {
                if p == root {
                    break;
                }
                root = p;
            }
            // Path compression keeps later finds short.
            let mut cur = x;
            while let Some(&p) = parent.get(&cur) {
                if p == root {
                    break;
                }
                parent.insert(cur, root);
                cur = p;
            }
            root
        }
        let mut graphs = BTreeSet::new();
        for q in structural
            .iter()
            .filter(|q| q[1] == same_as && q[0] != q[2])
        {
            graphs.insert(q[3]);
            parent.entry(q[0]).or_insert(q[0]);
            parent.entry(q[2]).or_insert(q[2]);
            let (a, b) = (find(&mut parent, q[0]), find(&mut parent, q[2]));
            if a != b {
                // Smaller id as root: deterministic.
                let (r, c) = if a < b { (a, b) } else { (b, a) };
                parent.insert(c, r);
            }
        }
        let nodes: Vec<Id> = parent.keys().copied().collect();
        let mut groups: HashMap<Id, Vec<Id>> = HashMap::default();
        for n in nodes {
            let r = find(&mut parent, n);
            groups.entry(r).or_default().push(n);
        }
        let mut cliques: Vec<Arc<[Id]>> = groups
            .into_values()
            .map(|mut v| {
                v.sort_unstable();
                Arc::from(v)
            })
            .collect();
        cliques.sort_unstable();
        let graph = match (graphs.len(), graphs.first()) {
            (1, Some(&g)) => g,
            _ => DEFAULT_GRAPH,
        };
        Self { cliques, graph }
    }
}
