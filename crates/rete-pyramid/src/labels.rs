//! What a community is called on the map: the most central member with a human label (of the
//! community's dominant class, when one class holds most members and one of them has such a
//! label), with what the community holds when one kind of term or one class has a large share of
//! it; a vocabulary's name and term count when most members are terms of one vocabulary; the
//! dominant class and its count when no member has a human label. Never a literal that is a code,
//! a number, a boolean or a file name, nor a blank node's label.

use crate::graph::EntityGraph;
use crate::human_label::{is_human, one_line};
use crate::PyramidError;
use rete_core::vocab::LABEL_PREDICATES;
use rete_core::{Id, Pattern, Perm, Rete, TermKind};
use std::collections::HashMap;

/// Members considered per community, most central first.
const CANDIDATES: usize = 24;
/// Members whose labels in other languages are looked at, most central first.
const LANGUAGE_CANDIDATES: usize = 8;
/// Languages a community stores labels in, at most: the most frequent in the dataset's naming
/// members.
pub(crate) const MAX_LANGUAGES: usize = 16;

/// A share of the members above which they are "mostly" one vocabulary or one class (60 %).
fn mostly(part: u64, whole: u64) -> bool {
    whole >= 3 && part * 10 >= whole * 6
}

/// Classes whose instances are vocabulary terms.
const TERM_CLASSES: &[&str] = &[
    "<http://www.w3.org/2002/07/owl#Class>",
    "<http://www.w3.org/2000/01/rdf-schema#Class>",
    "<http://www.w3.org/1999/02/22-rdf-syntax-ns#Property>",
    "<http://www.w3.org/2002/07/owl#ObjectProperty>",
    "<http://www.w3.org/2002/07/owl#DatatypeProperty>",
    "<http://www.w3.org/2002/07/owl#AnnotationProperty>",
    "<http://www.w3.org/2002/07/owl#FunctionalProperty>",
    "<http://www.w3.org/2004/02/skos/core#Concept>",
];

/// What a group of a vocabulary class's instances is called, for the classes whose instances
/// are vocabulary terms (`· 2,735 properties`).
fn term_noun(class_nt: &str) -> Option<&'static str> {
    let local = class_nt.strip_prefix("<http://www.w3.org/")?;
    Some(match local {
        "1999/02/22-rdf-syntax-ns#Property>"
        | "2002/07/owl#ObjectProperty>"
        | "2002/07/owl#DatatypeProperty>"
        | "2002/07/owl#AnnotationProperty>"
        | "2002/07/owl#FunctionalProperty>" => "properties",
        "2002/07/owl#Class>" | "2000/01/rdf-schema#Class>" => "classes",
        "2000/01/rdf-schema#Datatype>" => "datatypes",
        "2004/02/skos/core#Concept>" => "concepts",
        "2002/07/owl#NamedIndividual>" => "individuals",
        _ => return None,
    })
}

/// A community named after a member gets what it holds after the name (`· 2,735 properties`)
/// when it has at least this many members…
const HOLDS_MIN: u64 = 20;

/// …and one term class (else one class, unless most of the graph is of it) holds at least 30 % of
/// them.
fn holds(part: u64, whole: u64) -> bool {
    whole >= HOLDS_MIN && part * 10 >= whole * 3
}

/// What a community mostly of RDF list cells is called when no member has a human label: not
/// `nil`, the local name of `rdf:nil`, the hub every list ends in.
const LISTS: &str = "RDF lists";

/// `9015` → `9,015`.
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The namespace of an N-Triples IRI (`<…#x>` → `…#`).
fn namespace(nt: &str) -> Option<&str> {
    let iri = nt.strip_prefix('<')?.strip_suffix('>')?;
    let end = iri.trim_end_matches(['/', '#']).rfind(['/', '#'])?;
    Some(&iri[..=end])
}

/// The local name of an IRI (after the last `#` or `/`), or a blank node's `_:label`, from the
/// term in N-Triples.
fn local_name(nt: &str) -> String {
    match nt.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
        Some(iri) => {
            let cut = iri
                .trim_end_matches(['/', '#'])
                .rfind(['/', '#', ':'])
                .map_or(0, |i| i + 1);
            let name = iri[cut..].trim_end_matches(['/', '#']);
            if name.is_empty() {
                iri.to_owned()
            } else {
                name.to_owned()
            }
        }
        None => nt.to_owned(),
    }
}

/// What the labeller needs about the entities.
pub(crate) struct Facts<'a> {
    /// The dataset (labels in every language are read from it).
    pub(crate) rete: &'a Rete,
    pub(crate) eg: &'a EntityGraph,
    /// N-Triples and label of each node (labels already without typed literals), on disk.
    pub(crate) names: &'a crate::names::NameStore,
    /// N-Triples of each class.
    pub(crate) classes: &'a [String],
}

impl Facts<'_> {
    fn human(&self, node: usize) -> Result<Option<String>, PyramidError> {
        self.names.human(node)
    }

    fn node_of(&self, id: Id) -> Option<usize> {
        self.eg.ids.binary_search(&id).ok()
    }

    /// A class's name: its human label, else its local name.
    fn class_name(&self, c: u32) -> Result<String, PyramidError> {
        let Some(&id) = self.eg.classes.get(c as usize) else {
            return Ok(String::new());
        };
        if let Some(n) = self.node_of(id) {
            if let Some(l) = self.human(n)? {
                return Ok(l);
            }
        }
        let nt = &self.classes[c as usize];
        let iri = nt.trim_start_matches('<').trim_end_matches('>');
        let cut = iri
            .trim_end_matches(['/', '#'])
            .rfind(['/', '#', ':'])
            .map_or(0, |i| i + 1);
        Ok(iri[cut..].trim_end_matches(['/', '#']).to_owned())
    }

    /// The entity whose IRI is `iri`, looked up in the dictionary.
    fn entity_named(&self, iri: &str) -> Result<Option<usize>, PyramidError> {
        let id = self
            .rete
            .id_of(oxrdf::NamedNodeRef::new_unchecked(iri).into())?;
        Ok(id.and_then(|id| self.node_of(id)))
    }

    /// A vocabulary's name: the label of its ontology node, a well-known name, or its namespace
    /// without the scheme.
    fn vocabulary_name(&self, ns: &str) -> Result<String, PyramidError> {
        let bare = ns.trim_end_matches(['/', '#']);
        for key in [ns, bare] {
            if let Some(n) = self.entity_named(key)? {
                if let Some(l) = self.human(n)? {
                    return Ok(l);
                }
            }
        }
        if let Some(name) = rete_core::vocab::vocabulary(ns).and_then(|v| v.name) {
            return Ok((*name).to_owned());
        }
        Ok(bare.split_once("://").map_or(bare, |x| x.1).to_owned())
    }
}

/// A community's label as stored: the builder's choice and its other languages.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Label {
    /// English or untagged, then any language.
    pub(crate) text: String,
    /// `(lowercase language tag, label)`, sorted by tag.
    pub(crate) alt: Vec<(String, String)>,
}

/// What names a community, before the languages of the labels are known.
enum Choice {
    /// `<vocabulary> · N terms` (or `· N classes`…): the same in every language.
    Fixed(String),
    /// Members with a human label, most central first, and what the community holds.
    Members(Vec<u32>, Held),
    /// `<class> · N`.
    Class(u32, u64),
}

/// What a community named after a member holds, said after the name.
enum Held {
    Nothing,
    /// ` · 2,735 properties`: the same in every language.
    Terms(String),
    /// ` · 495 Person`: its dominant class (by its label in each language) and how many of its
    /// members are instances of it.
    Class(u32, u64),
}

/// The label of every community at every level (`sizes[l][c]` members, `node_comm[l][node]`,
/// `top_class[l][c]`: the community's most frequent class and its count).
pub(crate) fn community_labels(
    f: &Facts<'_>,
    node_comm: &[Vec<u32>],
    sizes: &[Vec<u64>],
    top_class: &[Vec<Option<(u32, u64)>>],
) -> Result<Vec<Vec<Label>>, PyramidError> {
    let eg = f.eg;
    let n = eg.node_count();
    // Per node: its classes (node_classes is sorted by node; u32 offsets, 4 bytes a node).
    let mut class_start = vec![0u32; n + 1];
    for &(node, _) in &eg.node_classes {
        class_start[node as usize + 1] += 1;
    }
    for i in 0..n {
        class_start[i + 1] += class_start[i];
    }
    let classes_of =
        |node: usize| &eg.node_classes[class_start[node] as usize..class_start[node + 1] as usize];
    // A class most of the graph's entities are instances of (everyone a foaf:Person) tells no
    // group from another: a group's name does not say it.
    let mut class_total = vec![0u64; f.classes.len()];
    for &(_, c) in &eg.node_classes {
        if let Some(t) = class_total.get_mut(c as usize) {
            *t += 1;
        }
    }
    let everywhere = |cls: u32| {
        mostly(
            class_total.get(cls as usize).copied().unwrap_or(0),
            n as u64,
        )
    };
    let term_class: Vec<bool> = f
        .classes
        .iter()
        .map(|c| TERM_CLASSES.contains(&c.as_str()))
        .collect();
    // Vocabulary terms: classes, predicates, and members of the term classes.
    let is_term = |node: usize| {
        let id = eg.ids[node];
        eg.classes.binary_search(&id).is_ok()
            || eg.predicates.binary_search(&id).is_ok()
            || classes_of(node)
                .iter()
                .any(|&(_, c)| term_class[c as usize])
    };
    // The namespace of each vocabulary term, as `(node, namespace index)` in node order: only
    // these nodes' terms are read back (most entities are no vocabulary term).
    let mut namespaces: Vec<String> = Vec::new();
    let mut ns_index: HashMap<String, u32> = HashMap::new();
    let mut term_ns: Vec<(u32, u32)> = Vec::new();
    for node in 0..n {
        if is_term(node) {
            let nt = f.names.term(node)?;
            if let Some(ns) = namespace(&nt) {
                let k = *ns_index.entry(ns.to_owned()).or_insert_with(|| {
                    namespaces.push(ns.to_owned());
                    namespaces.len() as u32 - 1
                });
                term_ns.push((node as u32, k));
            }
        }
    }
    drop(ns_index);
    let cells = list_cells(f)?;
    // Terms of RDF itself are hubs every vocabulary points to (`rdf:nil` ends every list,
    // `rdfs:Literal` is the range of most datatype properties): they name no community of other
    // terms ("nil", "Literal"). One of theirs is named by rule 1, its vocabulary.
    let core: Vec<std::ops::Range<Id>> = rete_core::vocab::CORE_PREFIXES
        .iter()
        .map(|(_, ns)| f.rete.iri_ids_starting_with(ns))
        .collect::<Result<_, _>>()?;
    let is_core = |node: usize| core.iter().any(|r| r.contains(&eg.ids[node]));
    let blank = f.rete.first_of_kind(TermKind::BlankNode)?
        ..f.rete.first_of_kind(TermKind::SimpleLiteral)?;
    let better = |a: usize, b: usize| {
        let (da, db) = (eg.degree[a], eg.degree[b]);
        da > db || (da == db && a < b)
    };
    let mut choices: Vec<Vec<Choice>> = Vec::with_capacity(node_comm.len());
    for (l, comm) in node_comm.iter().enumerate() {
        let count = sizes[l].len();
        // Most central members with a human label, of the dominant class when there is one.
        let mut best: Vec<Vec<usize>> = vec![Vec::new(); count];
        // The same of the other classes: they name a community whose dominant class has no
        // member with a human label (Brick's groups of its classes' blank `sh:TripleRule`s were
        // all "TripleRule · N").
        let mut others: Vec<Vec<usize>> = vec![Vec::new(); count];
        // The most central member that is no blank node (its label is no name) nor a term of RDF
        // itself, and the most central such term (`rdf:nil` ends every list).
        let mut central: Vec<Option<usize>> = vec![None; count];
        let mut central_core: Vec<Option<usize>> = vec![None; count];
        let mut vocab: Vec<HashMap<&str, u64>> = vec![HashMap::new(); count];
        let mut lists: Vec<u64> = vec![0; count];
        let mut next_term = term_ns.iter().peekable();
        let mut next_cell = cells.iter().peekable();
        for (node, &c) in comm.iter().enumerate().take(n) {
            let c = c as usize;
            if next_cell.next_if(|&&x| x as usize == node).is_some() {
                lists[c] += 1;
            }
            if !blank.contains(&eg.ids[node]) {
                let central = if is_core(node) {
                    &mut central_core[c]
                } else {
                    &mut central[c]
                };
                if central.is_none_or(|x| better(node, x)) {
                    *central = Some(node);
                }
            }
            if let Some(&(_, ns)) = next_term.next_if(|t| t.0 as usize == node) {
                *vocab[c]
                    .entry(namespaces[ns as usize].as_str())
                    .or_default() += 1;
            }
            if !f.names.is_human(node) || is_core(node) {
                continue;
            }
            let dominant = top_class[l][c].filter(|&(_, k)| mostly(k, sizes[l][c]));
            let b = if dominant
                .is_some_and(|(dc, _)| !classes_of(node).iter().any(|&(_, x)| x == dc))
            {
                &mut others[c]
            } else {
                &mut best[c]
            };
            if b.len() < CANDIDATES || better(node, b[b.len() - 1]) {
                let at = b.iter().position(|&x| better(node, x)).unwrap_or(b.len());
                b.insert(at, node);
                b.truncate(CANDIDATES);
            }
        }
        let level = (0..count)
            .map(|c| -> Result<Choice, PyramidError> {
                let size = sizes[l][c];
                let top_vocab = vocab[c]
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                    .map(|(ns, k)| (*ns, *k));
                // The term class most members are instances of, with its noun and count.
                let noun = top_class[l][c].and_then(|(cls, k)| {
                    let noun = term_noun(f.classes.get(cls as usize)?)?;
                    Some((noun, k))
                });
                if let Some((ns, k)) = top_vocab.filter(|&(_, k)| mostly(k, size)) {
                    // `DBpedia ontology · 2,735 properties` when one kind of term dominates.
                    let (n, what) = match noun.filter(|&(_, kc)| mostly(kc, size)) {
                        Some((noun, kc)) => (kc, noun),
                        None => (k, "terms"),
                    };
                    return Ok(Choice::Fixed(format!(
                        "{} · {} {what}",
                        f.vocabulary_name(ns)?,
                        thousands(n)
                    )));
                }
                let named = if best[c].is_empty() {
                    &others[c]
                } else {
                    &best[c]
                };
                if !named.is_empty() {
                    let held = match noun.filter(|&(_, kc)| holds(kc, size)) {
                        Some((noun, kc)) => Held::Terms(format!(" · {} {noun}", thousands(kc))),
                        None => match top_class[l][c]
                            .filter(|&(cls, k)| holds(k, size) && !everywhere(cls))
                        {
                            Some((cls, k)) => Held::Class(cls, k),
                            None if holds(lists[c], size) => {
                                Held::Terms(format!(" · {} list cells", thousands(lists[c])))
                            }
                            None => Held::Nothing,
                        },
                    };
                    return Ok(Choice::Members(
                        named
                            .iter()
                            .take(LANGUAGE_CANDIDATES)
                            .map(|&x| x as u32)
                            .collect(),
                        held,
                    ));
                }
                if mostly(lists[c], size) {
                    return Ok(Choice::Fixed(LISTS.to_owned()));
                }
                if let Some((cls, k)) = top_class[l][c] {
                    return Ok(Choice::Class(cls, k));
                }
                if holds(lists[c], size) {
                    return Ok(Choice::Fixed(LISTS.to_owned()));
                }
                if let Some(x) = central[c] {
                    return Ok(Choice::Fixed(local_name(&f.names.term(x)?)));
                }
                // Only blank nodes and terms of RDF: list cells around `rdf:nil` and datatypes.
                if lists[c] > 0 {
                    return Ok(Choice::Fixed(LISTS.to_owned()));
                }
                Ok(Choice::Fixed(match central_core[c] {
                    Some(x) => local_name(&f.names.term(x)?),
                    None if size == 1 => "a blank node".to_owned(),
                    None => format!("{} blank nodes", thousands(size)),
                }))
            })
            .collect::<Result<Vec<_>, _>>()?;
        choices.push(level);
    }
    // The labels by language of the members and classes that name communities.
    let class_node = |cls: u32| {
        eg.classes
            .get(cls as usize)
            .and_then(|&id| f.node_of(id))
            .map(|x| x as u32)
    };
    let mut wanted: Vec<u32> = Vec::new();
    for choice in choices.iter().flatten() {
        match choice {
            Choice::Members(m, held) => {
                wanted.extend_from_slice(m);
                if let Held::Class(cls, _) = held {
                    wanted.extend(class_node(*cls));
                }
            }
            Choice::Class(cls, _) => wanted.extend(class_node(*cls)),
            Choice::Fixed(_) => {}
        }
    }
    let (langs, english_labels) = language_labels(f, wanted)?;
    let english = |node: u32| english_labels.get(&node).cloned();
    let out = choices
        .into_iter()
        .map(|level| {
            level
                .into_iter()
                .map(|choice| -> Result<Label, PyramidError> {
                    Ok(match choice {
                        Choice::Fixed(text) => Label {
                            text,
                            alt: Vec::new(),
                        },
                        Choice::Members(members, held) => {
                            // English or untagged first: the most central member that has one.
                            let text = match members.iter().find_map(|&m| english(m)) {
                                Some(t) => t,
                                None => match members.first() {
                                    Some(&m) => f.human(m as usize)?.unwrap_or_default(),
                                    None => String::new(),
                                },
                            };
                            let mut alt: Vec<(String, String)> = Vec::new();
                            for m in &members {
                                for (tag, label) in langs.get(m).into_iter().flatten() {
                                    if !tag.is_empty() && !alt.iter().any(|(t, _)| t == tag) {
                                        alt.push((tag.clone(), label.clone()));
                                    }
                                }
                            }
                            alt.sort();
                            // What it holds, in each label's language where the class has one.
                            let (held, held_in): (String, LangHeld) = match held {
                                Held::Nothing => (String::new(), Vec::new()),
                                Held::Terms(t) => (t, Vec::new()),
                                Held::Class(cls, k) => {
                                    let count = thousands(k);
                                    let in_langs = class_node(cls)
                                        .and_then(|x| langs.get(&x))
                                        .into_iter()
                                        .flatten()
                                        .map(|(tag, l)| (tag.clone(), format!(" · {count} {l}")))
                                        .collect();
                                    (format!(" · {count} {}", f.class_name(cls)?), in_langs)
                                }
                            };
                            if !held.is_empty() {
                                for (tag, label) in alt.iter_mut() {
                                    let h = held_in.iter().find(|(t, _)| t == tag);
                                    label.push_str(h.map_or(&held, |(_, h)| h));
                                }
                            }
                            Label {
                                text: text + &held,
                                alt,
                            }
                        }
                        Choice::Class(cls, k) => {
                            let count = thousands(k);
                            let node = eg.classes.get(cls as usize).and_then(|&id| f.node_of(id));
                            let alt = node
                                .and_then(|x| langs.get(&(x as u32)))
                                .into_iter()
                                .flatten()
                                .filter(|(tag, _)| !tag.is_empty())
                                .map(|(tag, label)| (tag.clone(), format!("{label} · {count}")))
                                .collect();
                            Label {
                                text: format!("{} · {count}", f.class_name(cls)?),
                                alt,
                            }
                        }
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(out
        .into_iter()
        .map(|level| {
            level
                .into_iter()
                .map(|l| Label {
                    text: one_line(&l.text),
                    alt: l.alt.into_iter().map(|(t, x)| (t, one_line(&x))).collect(),
                })
                .collect()
        })
        .collect())
}

/// The nodes that are RDF list cells (subjects of `rdf:first`), in node order.
fn list_cells(f: &Facts<'_>) -> Result<Vec<u32>, PyramidError> {
    let Some(first) = f.rete.id_of(oxrdf::vocab::rdf::FIRST.into())? else {
        return Ok(Vec::new());
    };
    let mut cells = Vec::new();
    for q in f
        .rete
        .scan(Perm::Pso, &Pattern::new(None, Some(first), None))?
    {
        let [s, ..] = q?;
        cells.extend(f.node_of(s).map(|x| x as u32));
    }
    // Subjects come in id order, which is node order; a cell in several graphs comes again.
    cells.dedup();
    Ok(cells)
}

/// Labels by language of each node.
type LanguageLabels = HashMap<u32, Vec<(String, String)>>;

/// `(language tag, what a community holds in it)`.
type LangHeld = Vec<(String, String)>;

/// The language tag (`""` when untagged) and the text of an encoded literal that can be a label
/// (`xsd:string` or language-tagged); `None` for anything else.
fn label_literal(enc: &[u8]) -> Option<(&[u8], &str)> {
    match TermKind::of_encoded(enc)? {
        TermKind::SimpleLiteral | TermKind::LangLiteral => {
            let (text, lang) = rete_core::term::literal_value(enc).ok()??;
            Some((lang.unwrap_or("").as_bytes(), text))
        }
        _ => None,
    }
}

/// Human labels of `nodes` by language: `(lowercase tag, label)` sorted by tag, `""` for
/// untagged ones, each language's label from the first label predicate that has one (then the
/// first literal); and each node's English label: the first untagged or English one in that
/// order (the order the entity graph picks labels in). Only the [`MAX_LANGUAGES`] languages with
/// most labels among these nodes are kept, so every community stores a bounded number; a first
/// pass counts them, so memory stays bounded by that too, whatever the number of languages in the
/// data. Two scans of the PSO permutation per label predicate.
fn language_labels(
    f: &Facts<'_>,
    mut nodes: Vec<u32>,
) -> Result<(LanguageLabels, HashMap<u32, String>), PyramidError> {
    nodes.sort_unstable();
    nodes.dedup();
    let mut out: LanguageLabels = HashMap::new();
    let mut english: HashMap<u32, String> = HashMap::new();
    if nodes.is_empty() {
        return Ok((out, english));
    }
    let rete = f.rete;
    let mut preds = Vec::new();
    for iri in LABEL_PREDICATES {
        if let Some(p) = rete.id_of(oxrdf::NamedNodeRef::new_unchecked(iri).into())? {
            preds.push(p);
        }
    }
    // Every label triple's subject is looked up: a dense index, not a binary search each.
    let index = f.eg.node_index();
    // Calls `visit(node, tag, text)` for every label literal of the wanted nodes, in predicate
    // order, then subject and literal id order; a triple in several graphs once.
    let each = |visit: &mut dyn FnMut(u32, &[u8], &str)| -> Result<(), PyramidError> {
        for &p in &preds {
            let mut last: Option<(Id, Id)> = None;
            for q in rete.scan(Perm::Pso, &Pattern::new(None, Some(p), None))? {
                let [s, _, o, _] = q?;
                if last == Some((s, o)) {
                    continue;
                }
                last = Some((s, o));
                let Some(node) = usize::try_from(s)
                    .ok()
                    .and_then(|s| index.get(s))
                    .copied()
                    .filter(|&x| x != crate::graph::NOT_A_NODE && nodes.binary_search(&x).is_ok())
                else {
                    continue;
                };
                let enc = rete.term_bytes(o)?;
                if let Some((tag, text)) = label_literal(&enc) {
                    if is_human(text) {
                        visit(node, tag, text);
                    }
                }
            }
        }
        Ok(())
    };
    // Pass 1: how many of these nodes have a label in each language.
    let mut freq: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut seen: std::collections::HashSet<(u32, Vec<u8>)> = std::collections::HashSet::new();
    each(&mut |node, tag, _| {
        let tag = tag.to_ascii_lowercase();
        if !tag.is_empty() && seen.insert((node, tag.clone())) {
            *freq.entry(tag).or_default() += 1;
        }
    })?;
    drop(seen);
    let mut ranked: Vec<(Vec<u8>, u64)> = freq.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(MAX_LANGUAGES);
    let keep: std::collections::HashSet<Vec<u8>> = ranked.into_iter().map(|(t, _)| t).collect();
    // Pass 2: the labels in those languages, and the English (or untagged) one.
    each(&mut |node, tag, text| {
        let tag = tag.to_ascii_lowercase();
        if tag.is_empty() || crate::lang::matches("en", &String::from_utf8_lossy(&tag)) {
            english.entry(node).or_insert_with(|| text.to_owned());
        }
        if !tag.is_empty() && !keep.contains(&tag) {
            return;
        }
        let tag = String::from_utf8_lossy(&tag).into_owned();
        let v = out.entry(node).or_default();
        if !v.iter().any(|(t, _)| *t == tag) {
            v.push((tag, text.to_owned()));
        }
    })?;
    for v in out.values_mut() {
        v.sort();
    }
    Ok((out, english))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_labels_are_names_not_codes() {
        for ok in [
            "Alice Smith",
            "Person",
            "Marie Curie",
            "DBpedia ontology",
            "Zürich",
            "Back pain",
            "日本",
            "東京",
            "ドイツ",
        ] {
            assert!(is_human(ok), "{ok}");
        }
        for bad in [
            "S",
            "H",
            "DE",
            "true",
            "false",
            "42",
            "3.5",
            "Q42",
            "AB-12",
            "report.pdf",
            "http://x.org/a",
            "ISO_3166",
            "--",
        ] {
            assert!(!is_human(bad), "{bad}");
        }
        assert_eq!(thousands(9015), "9,015");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }
}
