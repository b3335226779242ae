//! SHACL property paths: parsed from the shapes graph, evaluated over the data graph (set
//! semantics, closures by breadth-first search), written back as RDF for `sh:resultPath`.

use crate::data::DataGraph;
use crate::error::{Error, Result};
use crate::rdf_list::read_list;
use crate::vocab::*;
use oxrdf::{BlankNode, Graph, NamedNode, NamedOrBlankNodeRef, Term, TermRef, Triple};
use rustc_hash::FxHashSet as HashSet;
use std::fmt;

/// A property path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Path {
    /// One predicate.
    Predicate(NamedNode),
    /// `sh:inversePath`.
    Inverse(Box<Path>),
    /// An RDF list of paths, followed in order.
    Sequence(Vec<Path>),
    /// `sh:alternativePath`: the union.
    Alternative(Vec<Path>),
    /// `sh:zeroOrMorePath`.
    ZeroOrMore(Box<Path>),
    /// `sh:oneOrMorePath`.
    OneOrMore(Box<Path>),
    /// `sh:zeroOrOnePath`.
    ZeroOrOne(Box<Path>),
}

/// Paths nest no deeper than this (a blank-node cycle in a path would otherwise never end).
const MAX_DEPTH: usize = 64;

impl Path {
    /// Parses the path at `node` of the shapes graph.
    pub fn parse(g: &Graph, node: TermRef<'_>, shape: &Term) -> Result<Self> {
        Self::parse_at(g, node, shape, 0)
    }

    fn parse_at(g: &Graph, node: TermRef<'_>, shape: &Term, depth: usize) -> Result<Self> {
        if depth > MAX_DEPTH {
            return Err(Error::malformed(
                shape,
                "the path nests too deep (a cycle?)",
            ));
        }
        let subject = match node {
            TermRef::NamedNode(n) => return Ok(Self::Predicate(n.into_owned())),
            TermRef::BlankNode(b) => NamedOrBlankNodeRef::BlankNode(b),
            _ => return Err(Error::malformed(shape, format!("{node} is not a path"))),
        };
        let sub = |n: TermRef<'_>| Self::parse_at(g, n, shape, depth + 1).map(Box::new);
        let list = |n: TermRef<'_>| -> Result<Vec<Path>> {
            read_list(g, n, shape)?
                .iter()
                .map(|m| Self::parse_at(g, m.as_ref(), shape, depth + 1))
                .collect()
        };
        if g.object_for_subject_predicate(subject, RDF_FIRST).is_some() {
            let steps = list(node)?;
            if steps.len() < 2 {
                return Err(Error::malformed(
                    shape,
                    "a sequence path needs two or more members",
                ));
            }
            return Ok(Self::Sequence(steps));
        }
        let one = |p| g.object_for_subject_predicate(subject, p);
        if let Some(n) = one(ALTERNATIVE_PATH) {
            let alts = list(n)?;
            if alts.len() < 2 {
                return Err(Error::malformed(
                    shape,
                    "an alternative path needs two or more members",
                ));
            }
            return Ok(Self::Alternative(alts));
        }
        if let Some(n) = one(INVERSE_PATH) {
            return Ok(Self::Inverse(sub(n)?));
        }
        if let Some(n) = one(ZERO_OR_MORE_PATH) {
            return Ok(Self::ZeroOrMore(sub(n)?));
        }
        if let Some(n) = one(ONE_OR_MORE_PATH) {
            return Ok(Self::OneOrMore(sub(n)?));
        }
        if let Some(n) = one(ZERO_OR_ONE_PATH) {
            return Ok(Self::ZeroOrOne(sub(n)?));
        }
        Err(Error::malformed(shape, format!("{node} is not a path")))
    }

    /// The predicate when the path is one.
    pub fn as_predicate(&self) -> Option<&NamedNode> {
        match self {
            Self::Predicate(p) => Some(p),
            _ => None,
        }
    }

    /// The distinct nodes reached from `focus`.
    pub fn eval(&self, data: &DataGraph<'_>, focus: &Term) -> Result<Vec<Term>> {
        self.step(data, std::slice::from_ref(focus), false)
    }

    /// The distinct nodes reached from any of `nodes`, following the path backwards when
    /// `inverse`.
    fn step(&self, data: &DataGraph<'_>, nodes: &[Term], inverse: bool) -> Result<Vec<Term>> {
        let mut out = Distinct::default();
        match self {
            Self::Predicate(p) => {
                for n in nodes {
                    out.extend(if inverse {
                        data.subjects(p.as_ref(), n)?
                    } else {
                        data.objects(n, p.as_ref())?
                    });
                }
            }
            Self::Inverse(p) => return p.step(data, nodes, !inverse),
            Self::Sequence(steps) => {
                let mut current = nodes.to_vec();
                let ordered: Box<dyn Iterator<Item = &Path>> = if inverse {
                    Box::new(steps.iter().rev())
                } else {
                    Box::new(steps.iter())
                };
                for s in ordered {
                    current = s.step(data, &current, inverse)?;
                }
                return Ok(current);
            }
            Self::Alternative(alts) => {
                for a in alts {
                    out.extend(a.step(data, nodes, inverse)?);
                }
            }
            Self::ZeroOrOne(p) => {
                out.extend(nodes.iter().cloned());
                out.extend(p.step(data, nodes, inverse)?);
            }
            Self::ZeroOrMore(p) | Self::OneOrMore(p) => {
                if matches!(self, Self::ZeroOrMore(_)) {
                    out.extend(nodes.iter().cloned());
                }
                // Breadth-first: each round follows the path once from the nodes first reached
                // in the previous round.
                let mut seen: HashSet<Term> = HashSet::default();
                let mut frontier = nodes.to_vec();
                while !frontier.is_empty() {
                    let next = p.step(data, &frontier, inverse)?;
                    frontier = next
                        .into_iter()
                        .filter(|n| seen.insert(n.clone()))
                        .collect();
                    out.extend(frontier.iter().cloned());
                }
            }
        }
        Ok(out.items)
    }

    /// Writes the path as RDF (its node and the triples describing it) for a report.
    pub fn to_rdf(&self, triples: &mut Vec<Triple>) -> Term {
        let (predicate, inner): (_, &Path) = match self {
            Self::Predicate(p) => return p.clone().into(),
            Self::Sequence(steps) => return list_to_rdf(steps, triples),
            Self::Alternative(alts) => {
                let node = BlankNode::default();
                let list = list_to_rdf(alts, triples);
                triples.push(Triple::new(node.clone(), ALTERNATIVE_PATH, list));
                return node.into();
            }
            Self::Inverse(p) => (INVERSE_PATH, p),
            Self::ZeroOrMore(p) => (ZERO_OR_MORE_PATH, p),
            Self::OneOrMore(p) => (ONE_OR_MORE_PATH, p),
            Self::ZeroOrOne(p) => (ZERO_OR_ONE_PATH, p),
        };
        let node = BlankNode::default();
        let object = inner.to_rdf(triples);
        triples.push(Triple::new(node.clone(), predicate, object));
        node.into()
    }
}

fn list_to_rdf(members: &[Path], triples: &mut Vec<Triple>) -> Term {
    let mut rest: Term = RDF_NIL.into_owned().into();
    for m in members.iter().rev() {
        let node = BlankNode::default();
        let first = m.to_rdf(triples);
        triples.push(Triple::new(node.clone(), RDF_FIRST, first));
        triples.push(Triple::new(node.clone(), RDF_REST, rest));
        rest = node.into();
    }
    rest
}

/// SPARQL property path syntax, for summaries and comparisons.
impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, items: &[Path], sep: &str| {
            write!(f, "(")?;
            for (i, p) in items.iter().enumerate() {
                if i > 0 {
                    write!(f, "{sep}")?;
                }
                write!(f, "{p}")?;
            }
            write!(f, ")")
        };
        match self {
            Self::Predicate(p) => write!(f, "{p}"),
            Self::Inverse(p) => write!(f, "^{p}"),
            Self::Sequence(s) => join(f, s, "/"),
            Self::Alternative(a) => join(f, a, "|"),
            Self::ZeroOrMore(p) => write!(f, "({p})*"),
            Self::OneOrMore(p) => write!(f, "({p})+"),
            Self::ZeroOrOne(p) => write!(f, "({p})?"),
        }
    }
}

/// Items in first-seen order without repeats.
#[derive(Default)]
struct Distinct {
    items: Vec<Term>,
    seen: HashSet<Term>,
}

impl Distinct {
    fn extend(&mut self, terms: impl IntoIterator<Item = Term>) {
        for t in terms {
            if self.seen.insert(t.clone()) {
                self.items.push(t);
            }
        }
    }
}
