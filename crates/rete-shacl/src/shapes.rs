//! The shapes graph read into shapes: targets, an optional path, and one constraint per
//! parameter value. Shapes reference each other by index, so cycles in the graph are fine here
//! (validation guards against recursion).

use crate::error::{Error, Result};
use crate::paths::Path;
use crate::rdf_list::read_list;
use crate::sparql::{self, ComponentConstraint, SparqlConstraint, SparqlQuery};
use crate::vocab::*;
use oxrdf::{Graph, NamedNode, NamedNodeRef, NamedOrBlankNodeRef, Term, TermRef};
use regex::Regex;
use std::collections::{HashMap, HashSet};

/// Index of a shape in [`Shapes`].
pub type ShapeId = usize;

/// A target declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `sh:targetNode`.
    Node(Term),
    /// `sh:targetClass`, or the shape itself as an implicit class target.
    Class(Term),
    /// `sh:targetSubjectsOf`.
    SubjectsOf(NamedNode),
    /// `sh:targetObjectsOf`.
    ObjectsOf(NamedNode),
    /// `sh:target` with a SPARQL-based target (SHACL-AF §5.1): the `?this` of its solutions.
    Sparql(Box<SparqlQuery>),
}

/// `sh:nodeKind` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// `sh:IRI`
    Iri,
    /// `sh:BlankNode`
    BlankNode,
    /// `sh:Literal`
    Literal,
    /// `sh:BlankNodeOrIRI`
    BlankNodeOrIri,
    /// `sh:BlankNodeOrLiteral`
    BlankNodeOrLiteral,
    /// `sh:IRIOrLiteral`
    IriOrLiteral,
}

/// Which bound of a value range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// `sh:minExclusive`: value > bound
    MinExclusive,
    /// `sh:minInclusive`: value >= bound
    MinInclusive,
    /// `sh:maxExclusive`: value < bound
    MaxExclusive,
    /// `sh:maxInclusive`: value <= bound
    MaxInclusive,
}

/// One constraint: a Core constraint component with its parameter values.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum Constraint {
    Class(Term),
    Datatype(NamedNode),
    NodeKind(NodeKind),
    MinCount(u64),
    MaxCount(u64),
    Range(Bound, Term),
    MinLength(u64),
    MaxLength(u64),
    Pattern(Regex),
    LanguageIn(Vec<String>),
    UniqueLang,
    Equals(NamedNode),
    Disjoint(NamedNode),
    LessThan(NamedNode),
    LessThanOrEquals(NamedNode),
    Not(ShapeId),
    And(Vec<ShapeId>),
    Or(Vec<ShapeId>),
    Xone(Vec<ShapeId>),
    Node(ShapeId),
    Property(ShapeId),
    Qualified {
        shape: ShapeId,
        min: Option<u64>,
        max: Option<u64>,
        /// The sibling qualified shapes when `sh:qualifiedValueShapesDisjoint` is true.
        siblings: Vec<ShapeId>,
    },
    Closed(HashSet<NamedNode>),
    HasValue(Term),
    In(Vec<Term>),
    /// `sh:sparql` (SHACL-SPARQL §5).
    Sparql(Box<SparqlConstraint>),
    /// A SPARQL-based constraint component used by the shape (SHACL-SPARQL §6).
    Component(Box<ComponentConstraint>),
}

impl Constraint {
    /// The IRI of the constraint component (`sh:sourceConstraintComponent`).
    pub fn component(&self) -> NamedNode {
        let local = match self {
            Self::Component(c) => return c.component.clone(),
            Self::Sparql(_) => "SPARQLConstraintComponent",
            Self::Class(_) => "ClassConstraintComponent",
            Self::Datatype(_) => "DatatypeConstraintComponent",
            Self::NodeKind(_) => "NodeKindConstraintComponent",
            Self::MinCount(_) => "MinCountConstraintComponent",
            Self::MaxCount(_) => "MaxCountConstraintComponent",
            Self::Range(Bound::MinExclusive, _) => "MinExclusiveConstraintComponent",
            Self::Range(Bound::MinInclusive, _) => "MinInclusiveConstraintComponent",
            Self::Range(Bound::MaxExclusive, _) => "MaxExclusiveConstraintComponent",
            Self::Range(Bound::MaxInclusive, _) => "MaxInclusiveConstraintComponent",
            Self::MinLength(_) => "MinLengthConstraintComponent",
            Self::MaxLength(_) => "MaxLengthConstraintComponent",
            Self::Pattern(_) => "PatternConstraintComponent",
            Self::LanguageIn(_) => "LanguageInConstraintComponent",
            Self::UniqueLang => "UniqueLangConstraintComponent",
            Self::Equals(_) => "EqualsConstraintComponent",
            Self::Disjoint(_) => "DisjointConstraintComponent",
            Self::LessThan(_) => "LessThanConstraintComponent",
            Self::LessThanOrEquals(_) => "LessThanOrEqualsConstraintComponent",
            Self::Not(_) => "NotConstraintComponent",
            Self::And(_) => "AndConstraintComponent",
            Self::Or(_) => "OrConstraintComponent",
            Self::Xone(_) => "XoneConstraintComponent",
            Self::Node(_) => "NodeConstraintComponent",
            Self::Property(_) => "PropertyConstraintComponent",
            Self::Qualified { min: Some(_), .. } => "QualifiedMinCountConstraintComponent",
            Self::Qualified { .. } => "QualifiedMaxCountConstraintComponent",
            Self::Closed(_) => "ClosedConstraintComponent",
            Self::HasValue(_) => "HasValueConstraintComponent",
            Self::In(_) => "InConstraintComponent",
        };
        NamedNode::new_unchecked(format!("{SH}{local}"))
    }
}

/// One shape.
#[derive(Debug, Clone)]
pub struct Shape {
    /// The shape's node in the shapes graph.
    pub node: Term,
    /// `sh:path`: a property shape when set.
    pub path: Option<Path>,
    /// Its targets (explicit and implicit).
    pub targets: Vec<Target>,
    /// `sh:deactivated true`.
    pub deactivated: bool,
    /// `sh:severity`, `sh:Violation` by default.
    pub severity: NamedNode,
    /// `sh:message` values.
    pub messages: Vec<Term>,
    /// Its constraints.
    pub constraints: Vec<Constraint>,
    /// Its `sh:rule`s (SHACL-AF §8): rules infer triples, which this validator does not; the
    /// data is validated as given, and the count said with the report.
    pub rules: usize,
}

impl Shape {
    /// A shape with nothing read yet: a node shape, violations by default.
    fn empty(node: Term) -> Self {
        Self {
            node,
            path: None,
            targets: Vec::new(),
            deactivated: false,
            severity: VIOLATION.into_owned(),
            messages: Vec::new(),
            constraints: Vec::new(),
            rules: 0,
        }
    }
}

/// A parsed shapes graph.
#[derive(Debug, Clone, Default)]
pub struct Shapes {
    shapes: Vec<Shape>,
}

impl Shapes {
    /// Reads every shape of a shapes graph.
    pub fn from_graph(g: &Graph) -> Result<Self> {
        let mut reader = Reader {
            g,
            index: HashMap::new(),
            shapes: Vec::new(),
            components: sparql::components(g)?,
        };
        // Shapes that are validated on their own: typed shapes and subjects of targets. Shapes
        // only referenced by others are read when reached.
        let mut roots: Vec<Term> = Vec::new();
        for class in [NODE_SHAPE, PROPERTY_SHAPE] {
            roots.extend(
                g.subjects_for_predicate_object(RDF_TYPE, class)
                    .map(|s| s.into_owned().into()),
            );
        }
        for p in [
            TARGET,
            TARGET_NODE,
            TARGET_CLASS,
            TARGET_SUBJECTS_OF,
            TARGET_OBJECTS_OF,
        ] {
            roots.extend(
                g.triples_for_predicate(p)
                    .map(|t| t.subject.into_owned().into()),
            );
        }
        for root in roots {
            reader.shape(root.as_ref())?;
        }
        Ok(Self {
            shapes: reader.shapes,
        })
    }

    /// All shapes.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// The shape at `id`.
    pub fn get(&self, id: ShapeId) -> &Shape {
        &self.shapes[id]
    }

    /// How many `sh:rule`s the shapes have: not run (see [`Shape::rules`]).
    pub fn rules_not_run(&self) -> usize {
        self.shapes.iter().map(|s| s.rules).sum()
    }

    /// How many shapes.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Whether there are no shapes.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }
}

struct Reader<'g> {
    g: &'g Graph,
    index: HashMap<Term, ShapeId>,
    shapes: Vec<Shape>,
    /// The SPARQL-based constraint components of the shapes graph.
    components: Vec<sparql::Component>,
}

fn subject_of(t: TermRef<'_>) -> Option<NamedOrBlankNodeRef<'_>> {
    match t {
        TermRef::NamedNode(n) => Some(n.into()),
        TermRef::BlankNode(b) => Some(b.into()),
        _ => None,
    }
}

impl<'g> Reader<'g> {
    /// The id of the shape at `node`, reading it on first use.
    fn shape(&mut self, node: TermRef<'_>) -> Result<ShapeId> {
        if let Some(id) = self.index.get(&node.into_owned()) {
            return Ok(*id);
        }
        let term = node.into_owned();
        let id = self.shapes.len();
        self.index.insert(term.clone(), id);
        self.shapes.push(Shape::empty(term.clone()));
        let shape = self.read(&term)?;
        self.shapes[id] = shape;
        Ok(id)
    }

    fn read(&mut self, term: &Term) -> Result<Shape> {
        let g = self.g;
        let mut shape = Shape::empty(term.clone());
        let Some(subject) = subject_of(term.as_ref()) else {
            return Err(Error::malformed(term, "a literal cannot be a shape"));
        };
        let values = |p: NamedNodeRef<'_>| -> Vec<TermRef<'g>> {
            g.objects_for_subject_predicate(subject, p).collect()
        };
        if let Some(p) = values(PATH).first() {
            shape.path = Some(Path::parse(g, *p, term)?);
        }
        for t in values(TARGET_NODE) {
            shape.targets.push(Target::Node(t.into_owned()));
        }
        for t in values(TARGET_CLASS) {
            shape.targets.push(Target::Class(t.into_owned()));
        }
        for t in values(TARGET_SUBJECTS_OF) {
            shape.targets.push(Target::SubjectsOf(iri(term, t)?));
        }
        for t in values(TARGET_OBJECTS_OF) {
            shape.targets.push(Target::ObjectsOf(iri(term, t)?));
        }
        for t in values(TARGET) {
            if let Some(q) = sparql::sparql_target(g, term, t)? {
                shape.targets.push(Target::Sparql(Box::new(q)));
            }
        }
        // An `owl:Class` too, as pyshacl reads it: OWL makes it a subclass of `rdfs:Class`, which
        // the shapes graph does not say, and ontologies that are their own shapes (Brick: every
        // class an `owl:Class` and a `sh:NodeShape`) would otherwise validate nothing.
        if term.is_named_node()
            && (is_instance(g, term.as_ref(), RDFS_CLASS)
                || is_instance(g, term.as_ref(), OWL_CLASS))
        {
            shape.targets.push(Target::Class(term.clone()));
        }
        shape.deactivated = values(DEACTIVATED)
            .iter()
            .any(|v| boolean(*v) == Some(true));
        if let Some(s) = values(SEVERITY).first() {
            shape.severity = iri(term, *s)?;
        }
        shape.messages = values(MESSAGE)
            .into_iter()
            .map(TermRef::into_owned)
            .collect();

        let triples: Vec<_> = g.triples_for_subject(subject).collect();
        for t in triples {
            let p = t.predicate;
            let Some(local) = p.as_str().strip_prefix(SH) else {
                continue;
            };
            let v = t.object;
            let c = match local {
                "class" => Constraint::Class(v.into_owned()),
                "datatype" => Constraint::Datatype(iri(term, v)?),
                "nodeKind" => Constraint::NodeKind(node_kind(term, v)?),
                "minCount" => Constraint::MinCount(count(term, v)?),
                "maxCount" => Constraint::MaxCount(count(term, v)?),
                "minExclusive" => Constraint::Range(Bound::MinExclusive, v.into_owned()),
                "minInclusive" => Constraint::Range(Bound::MinInclusive, v.into_owned()),
                "maxExclusive" => Constraint::Range(Bound::MaxExclusive, v.into_owned()),
                "maxInclusive" => Constraint::Range(Bound::MaxInclusive, v.into_owned()),
                "minLength" => Constraint::MinLength(count(term, v)?),
                "maxLength" => Constraint::MaxLength(count(term, v)?),
                "pattern" => {
                    let flags = values(FLAGS)
                        .first()
                        .map(|f| literal_str(*f))
                        .unwrap_or_default();
                    Constraint::Pattern(pattern(term, &literal_str(v), &flags)?)
                }
                "languageIn" => Constraint::LanguageIn(
                    read_list(g, v, term)?
                        .iter()
                        .map(|t| literal_str(t.as_ref()))
                        .collect(),
                ),
                "uniqueLang" => match boolean(v) {
                    Some(true) => Constraint::UniqueLang,
                    Some(false) => continue,
                    None => return Err(Error::malformed(term, "sh:uniqueLang needs a boolean")),
                },
                "equals" => Constraint::Equals(iri(term, v)?),
                "disjoint" => Constraint::Disjoint(iri(term, v)?),
                "lessThan" => Constraint::LessThan(iri(term, v)?),
                "lessThanOrEquals" => Constraint::LessThanOrEquals(iri(term, v)?),
                "not" => Constraint::Not(self.shape(v)?),
                "and" => Constraint::And(self.shape_list(v, term)?),
                "or" => Constraint::Or(self.shape_list(v, term)?),
                "xone" => Constraint::Xone(self.shape_list(v, term)?),
                "node" => Constraint::Node(self.shape(v)?),
                "property" => Constraint::Property(self.shape(v)?),
                "qualifiedValueShape" => {
                    let qualified = self.shape(v)?;
                    let disjoint = values(QUALIFIED_VALUE_SHAPES_DISJOINT)
                        .iter()
                        .any(|b| boolean(*b) == Some(true));
                    let siblings = if disjoint {
                        self.siblings(term, qualified)?
                    } else {
                        Vec::new()
                    };
                    let min = values(QUALIFIED_MIN_COUNT)
                        .first()
                        .map(|c| count(term, *c))
                        .transpose()?;
                    let max = values(QUALIFIED_MAX_COUNT)
                        .first()
                        .map(|c| count(term, *c))
                        .transpose()?;
                    // Each bound is its own component, so each reports separately.
                    if let Some(min) = min {
                        shape.constraints.push(Constraint::Qualified {
                            shape: qualified,
                            min: Some(min),
                            max: None,
                            siblings: siblings.clone(),
                        });
                    }
                    if max.is_some() {
                        shape.constraints.push(Constraint::Qualified {
                            shape: qualified,
                            min: None,
                            max,
                            siblings,
                        });
                    }
                    continue;
                }
                "closed" => match boolean(v) {
                    Some(true) => Constraint::Closed(self.allowed(term)?),
                    Some(false) => continue,
                    None => return Err(Error::malformed(term, "sh:closed needs a boolean")),
                },
                "hasValue" => Constraint::HasValue(v.into_owned()),
                "in" => Constraint::In(read_list(g, v, term)?),
                "sparql" => {
                    let path = shape.path.as_ref().map(ToString::to_string);
                    match sparql::sparql_constraint(g, term, path.as_deref(), v)? {
                        Some(c) => Constraint::Sparql(Box::new(c)),
                        None => continue,
                    }
                }
                "rule" => {
                    shape.rules += 1;
                    continue;
                }
                // Read with the targets above.
                "target" => continue,
                other if NON_VALIDATING.contains(&other) => continue,
                other if UNSUPPORTED.contains(&other) => {
                    return Err(Error::Unsupported {
                        shape: term.to_string(),
                        parameter: p.as_str().to_owned(),
                    })
                }
                _ => {
                    return Err(Error::UnknownParameter {
                        shape: term.to_string(),
                        parameter: p.as_str().to_owned(),
                    })
                }
            };
            shape.constraints.push(c);
        }
        let path = shape.path.as_ref().map(ToString::to_string);
        for c in &self.components {
            for used in c.constraints_for(g, term, path.as_deref())? {
                shape
                    .constraints
                    .push(Constraint::Component(Box::new(used)));
            }
        }
        Ok(shape)
    }

    fn shape_list(&mut self, list: TermRef<'_>, shape: &Term) -> Result<Vec<ShapeId>> {
        let members = read_list(self.g, list, shape)?;
        members.iter().map(|m| self.shape(m.as_ref())).collect()
    }

    /// The qualified value shapes of the other property shapes of the shapes holding `property`.
    fn siblings(&mut self, property: &Term, own: ShapeId) -> Result<Vec<ShapeId>> {
        let g = self.g;
        let mut out = Vec::new();
        for parent in g.subjects_for_predicate_object(PROPERTY, property.as_ref()) {
            for other in g.objects_for_subject_predicate(parent, PROPERTY) {
                let Some(o) = subject_of(other) else { continue };
                for q in g.objects_for_subject_predicate(o, QUALIFIED_VALUE_SHAPE) {
                    let id = self.shape(q)?;
                    if id != own && !out.contains(&id) {
                        out.push(id);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The predicates a closed shape allows: the IRIs of its property shapes' paths and
    /// `sh:ignoredProperties`.
    fn allowed(&self, shape: &Term) -> Result<HashSet<NamedNode>> {
        let g = self.g;
        let mut out = HashSet::new();
        let Some(s) = subject_of(shape.as_ref()) else {
            return Ok(out);
        };
        for prop in g.objects_for_subject_predicate(s, PROPERTY) {
            let Some(ps) = subject_of(prop) else { continue };
            if let Some(TermRef::NamedNode(p)) = g.object_for_subject_predicate(ps, PATH) {
                out.insert(p.into_owned());
            }
        }
        for list in g.objects_for_subject_predicate(s, IGNORED_PROPERTIES) {
            for t in read_list(g, list, shape)? {
                if let Term::NamedNode(n) = t {
                    out.insert(n);
                }
            }
        }
        Ok(out)
    }
}

/// Whether `node` is a SHACL instance of `class` in the shapes graph (a type of it is `class`
/// or a subclass of it).
pub(crate) fn is_instance(g: &Graph, node: TermRef<'_>, class: NamedNodeRef<'_>) -> bool {
    let Some(s) = subject_of(node) else {
        return false;
    };
    let mut seen = HashSet::new();
    let mut queue: Vec<TermRef<'_>> = g.objects_for_subject_predicate(s, RDF_TYPE).collect();
    while let Some(t) = queue.pop() {
        if t == class.into() {
            return true;
        }
        if let Some(ts) = subject_of(t) {
            if seen.insert(t) {
                queue.extend(g.objects_for_subject_predicate(ts, RDFS_SUB_CLASS_OF));
            }
        }
    }
    false
}

fn iri(shape: &Term, t: TermRef<'_>) -> Result<NamedNode> {
    match t {
        TermRef::NamedNode(n) => Ok(n.into_owned()),
        _ => Err(Error::malformed(shape, format!("{t} should be an IRI"))),
    }
}

fn literal_str(t: TermRef<'_>) -> String {
    match t {
        TermRef::Literal(l) => l.value().to_owned(),
        other => other.to_string(),
    }
}

/// An `xsd:boolean` parameter: only the literal `true` activates (the W3C suite's reading: `"1"`
/// is a different literal); `None` when the value is not a boolean at all.
fn boolean(t: TermRef<'_>) -> Option<bool> {
    match t {
        TermRef::Literal(l) if l.datatype() == XSD_BOOLEAN => Some(l.value() == "true"),
        _ => None,
    }
}

fn count(shape: &Term, t: TermRef<'_>) -> Result<u64> {
    match t {
        TermRef::Literal(l) => {
            l.value().trim().parse::<u64>().map_err(|_| {
                Error::malformed(shape, format!("{t} should be a non-negative integer"))
            })
        }
        _ => Err(Error::malformed(
            shape,
            format!("{t} should be a non-negative integer"),
        )),
    }
}

fn node_kind(shape: &Term, t: TermRef<'_>) -> Result<NodeKind> {
    let kinds = [
        (IRI, NodeKind::Iri),
        (BLANK_NODE, NodeKind::BlankNode),
        (LITERAL, NodeKind::Literal),
        (BLANK_NODE_OR_IRI, NodeKind::BlankNodeOrIri),
        (BLANK_NODE_OR_LITERAL, NodeKind::BlankNodeOrLiteral),
        (IRI_OR_LITERAL, NodeKind::IriOrLiteral),
    ];
    kinds
        .iter()
        .find(|(iri, _)| TermRef::from(*iri) == t)
        .map(|(_, k)| *k)
        .ok_or_else(|| Error::malformed(shape, format!("{t} is not a sh:nodeKind value")))
}

/// Compiles `sh:pattern` with its XPath flags (`i`, `m`, `s`, `x`, and `q` for a literal
/// pattern) onto the regex crate.
fn pattern(shape: &Term, source: &str, flags: &str) -> Result<Regex> {
    let mut b = String::new();
    let mut quote = false;
    for f in flags.chars() {
        match f {
            'i' | 'm' | 's' | 'x' => b.push(f),
            'q' => quote = true,
            _ => {
                return Err(Error::Pattern {
                    shape: shape.to_string(),
                    pattern: source.to_owned(),
                    message: format!("unknown flag {f:?} in sh:flags {flags:?}"),
                })
            }
        }
    }
    let body = if quote {
        regex::escape(source)
    } else {
        source.to_owned()
    };
    let full = if b.is_empty() {
        body
    } else {
        format!("(?{b}){body}")
    };
    Regex::new(&full).map_err(|e| Error::Pattern {
        shape: shape.to_string(),
        pattern: source.to_owned(),
        message: e.to_string(),
    })
}
