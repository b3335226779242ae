//! SHACL-SPARQL in the shapes graph: `sh:sparql` constraints, prefix declarations
//! (`sh:prefixes`, `sh:declare`, followed through `owl:imports`), and the definitions of
//! SPARQL-based constraint components with their parameters and validators.

use super::{
    prepare, ComponentConstraint, SparqlConstraint, SparqlQuery, ValidatorQuery, CURRENT_SHAPE,
    SHAPES_GRAPH, THIS,
};
use crate::error::{Error, Result};
use crate::shapes::is_instance;
use crate::vocab::*;
use oxrdf::{Graph, NamedNode, NamedOrBlankNodeRef, Term, TermRef, Variable};
use std::collections::HashSet;

fn subject(t: TermRef<'_>) -> Option<NamedOrBlankNodeRef<'_>> {
    match t {
        TermRef::NamedNode(n) => Some(n.into()),
        TermRef::BlankNode(b) => Some(b.into()),
        TermRef::Literal(_) => None,
    }
}

fn string(t: TermRef<'_>) -> Option<&str> {
    match t {
        TermRef::Literal(l) => Some(l.value()),
        _ => None,
    }
}

fn is_true(t: Option<TermRef<'_>>) -> bool {
    matches!(t, Some(TermRef::Literal(l)) if l.datatype() == XSD_BOOLEAN && l.value() == "true")
}

/// The `PREFIX` lines declared by the `sh:prefixes` values of `node`.
fn prefixes(g: &Graph, node: NamedOrBlankNodeRef<'_>, shape: &Term) -> Result<String> {
    let mut out = String::new();
    let mut seen = HashSet::new();
    let mut queue: Vec<TermRef<'_>> = g.objects_for_subject_predicate(node, PREFIXES).collect();
    while let Some(t) = queue.pop() {
        let Some(s) = subject(t) else { continue };
        if !seen.insert(t) {
            continue;
        }
        for d in g.objects_for_subject_predicate(s, DECLARE) {
            let Some(d) = subject(d) else { continue };
            let prefix = g.object_for_subject_predicate(d, PREFIX).and_then(string);
            let namespace = g
                .object_for_subject_predicate(d, NAMESPACE)
                .and_then(string);
            let (Some(p), Some(ns)) = (prefix, namespace) else {
                return Err(Error::malformed(
                    shape,
                    format!("sh:declare {d} needs one sh:prefix and one sh:namespace"),
                ));
            };
            out.push_str(&format!("PREFIX {p}: <{ns}>\n"));
        }
        queue.extend(g.objects_for_subject_predicate(s, OWL_IMPORTS));
    }
    Ok(out)
}

/// The node of a SPARQL constraint or target (the object of `parameter`); `None` when it is
/// deactivated.
fn active<'g>(
    g: &'g Graph,
    shape: &Term,
    node: TermRef<'g>,
    parameter: &str,
) -> Result<Option<NamedOrBlankNodeRef<'g>>> {
    let Some(s) = subject(node) else {
        return Err(Error::malformed(
            shape,
            format!("{parameter} needs a node, not a literal"),
        ));
    };
    if is_true(g.object_for_subject_predicate(s, DEACTIVATED)) {
        return Ok(None);
    }
    Ok(Some(s))
}

/// The `sh:sparql` constraint at `node` of shape `shape`; `None` when it is deactivated.
pub(crate) fn sparql_constraint(
    g: &Graph,
    shape: &Term,
    path: Option<&str>,
    node: TermRef<'_>,
) -> Result<Option<SparqlConstraint>> {
    let Some(s) = active(g, shape, node, "sh:sparql")? else {
        return Ok(None);
    };
    let Some(select) = g.object_for_subject_predicate(s, SELECT).and_then(string) else {
        return Err(Error::malformed(
            shape,
            format!("the sh:sparql constraint {node} has no sh:select string"),
        ));
    };
    let select = prepare(
        shape,
        &format!("sh:select of {node}"),
        &prefixes(g, s, shape)?,
        select,
        path,
        &[THIS, CURRENT_SHAPE, SHAPES_GRAPH],
    )?;
    if !matches!(select.query, spargebra::Query::Select { .. }) {
        return Err(Error::malformed(shape, "sh:select must be a SELECT query"));
    }
    Ok(Some(SparqlConstraint {
        node: node.into_owned(),
        select,
        messages: g
            .objects_for_subject_predicate(s, MESSAGE)
            .map(TermRef::into_owned)
            .collect(),
    }))
}

/// The SPARQL-based target at `node` of shape `shape` (SHACL-AF §5.1: `sh:target [ a
/// sh:SPARQLTarget ; sh:select "SELECT ?this …" ]`); `None` when it is deactivated. A target of
/// a SPARQL-based target type (parameters, `sh:SPARQLTargetType`) is refused: its nodes would be
/// left out without a word.
pub(crate) fn sparql_target(
    g: &Graph,
    shape: &Term,
    node: TermRef<'_>,
) -> Result<Option<SparqlQuery>> {
    let Some(s) = active(g, shape, node, "sh:target")? else {
        return Ok(None);
    };
    let Some(select) = g.object_for_subject_predicate(s, SELECT).and_then(string) else {
        return Err(Error::Unsupported {
            shape: shape.to_string(),
            parameter: format!(
                "{} of a target type (only SPARQL targets with sh:select)",
                TARGET.as_str()
            ),
        });
    };
    let q = prepare(
        shape,
        &format!("sh:select of the target {node}"),
        &prefixes(g, s, shape)?,
        select,
        None,
        &[CURRENT_SHAPE, SHAPES_GRAPH],
    )?;
    let mut selects_this = false;
    if let spargebra::Query::Select { pattern, .. } = &q.query {
        pattern.on_in_scope_variable(|v| selects_this |= v.as_str() == THIS);
    }
    if !selects_this {
        return Err(Error::malformed(
            shape,
            format!("the target {node} needs a SELECT query of ?this"),
        ));
    }
    Ok(Some(q))
}

/// A parameter of a constraint component.
#[derive(Debug)]
struct Parameter {
    path: NamedNode,
    name: String,
    optional: bool,
}

/// A validator: its node, `sh:ask` or `sh:select`, prefixes and messages.
#[derive(Debug)]
struct Validator {
    node: Term,
    ask: bool,
    body: String,
    prefixes: String,
    messages: Vec<Term>,
}

/// A SPARQL-based constraint component of the shapes graph.
#[derive(Debug)]
pub(crate) struct Component {
    iri: NamedNode,
    parameters: Vec<Parameter>,
    messages: Vec<Term>,
    validator: Option<Validator>,
    node_validator: Option<Validator>,
    property_validator: Option<Validator>,
}

/// The local name of a parameter's path: the variable it is pre-bound to (SHACL §6.2.1).
fn local_name(iri: &str) -> &str {
    iri.rsplit(['#', '/', ':']).next().unwrap_or(iri)
}

fn validator(g: &Graph, component: &Term, node: Option<TermRef<'_>>) -> Result<Option<Validator>> {
    let Some(node) = node else { return Ok(None) };
    let Some(s) = subject(node) else {
        return Err(Error::malformed(component, "a validator must be a node"));
    };
    let ask = g.object_for_subject_predicate(s, ASK).and_then(string);
    let select = g.object_for_subject_predicate(s, SELECT).and_then(string);
    let (ask, body) = match (ask, select) {
        (Some(a), None) => (true, a),
        (None, Some(q)) => (false, q),
        _ => {
            return Err(Error::malformed(
                component,
                format!("validator {node} needs exactly one of sh:ask and sh:select"),
            ))
        }
    };
    Ok(Some(Validator {
        node: node.into_owned(),
        ask,
        body: body.to_owned(),
        prefixes: prefixes(g, s, component)?,
        messages: g
            .objects_for_subject_predicate(s, MESSAGE)
            .map(TermRef::into_owned)
            .collect(),
    }))
}

/// Every SPARQL-based constraint component declared in the shapes graph (the Core components,
/// in the `sh:` namespace, are built in and skipped).
pub(crate) fn components(g: &Graph) -> Result<Vec<Component>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for t in g.triples_for_predicate(PARAMETER) {
        let c = t.subject;
        if !seen.insert(c) || !is_instance(g, c.into(), CONSTRAINT_COMPONENT) {
            continue;
        }
        let term: Term = c.into_owned().into();
        let NamedOrBlankNodeRef::NamedNode(iri) = c else {
            return Err(Error::malformed(
                &term,
                "a constraint component must be an IRI",
            ));
        };
        if iri.as_str().starts_with(SH) {
            continue;
        }
        let mut parameters = Vec::new();
        for p in g.objects_for_subject_predicate(c, PARAMETER) {
            let Some(ps) = subject(p) else { continue };
            let Some(TermRef::NamedNode(path)) = g.object_for_subject_predicate(ps, PATH) else {
                return Err(Error::malformed(
                    &term,
                    format!("parameter {p} needs an IRI sh:path"),
                ));
            };
            parameters.push(Parameter {
                name: local_name(path.as_str()).to_owned(),
                path: path.into_owned(),
                optional: is_true(g.object_for_subject_predicate(ps, OPTIONAL)),
            });
        }
        let one = |p| g.object_for_subject_predicate(c, p);
        out.push(Component {
            iri: iri.into_owned(),
            parameters,
            messages: g
                .objects_for_subject_predicate(c, MESSAGE)
                .map(TermRef::into_owned)
                .collect(),
            validator: validator(g, &term, one(VALIDATOR))?,
            node_validator: validator(g, &term, one(NODE_VALIDATOR))?,
            property_validator: validator(g, &term, one(PROPERTY_VALIDATOR))?,
        });
    }
    Ok(out)
}

impl Component {
    /// The constraints this component puts on `shape` (with `path` for a property shape): one
    /// per combination of its parameter values, none when a mandatory parameter is missing or
    /// no validator suits the kind of shape.
    pub(crate) fn constraints_for(
        &self,
        g: &Graph,
        shape: &Term,
        path: Option<&str>,
    ) -> Result<Vec<ComponentConstraint>> {
        let Some(s) = subject(shape.as_ref()) else {
            return Ok(Vec::new());
        };
        let mut combos: Vec<Vec<(Variable, Term)>> = vec![Vec::new()];
        for p in &self.parameters {
            let values: Vec<Term> = g
                .objects_for_subject_predicate(s, p.path.as_ref())
                .map(TermRef::into_owned)
                .collect();
            if values.is_empty() {
                if p.optional {
                    continue;
                }
                return Ok(Vec::new());
            }
            let var = Variable::new_unchecked(p.name.clone());
            let mut next = Vec::with_capacity(combos.len() * values.len());
            for c in &combos {
                for v in &values {
                    let mut c = c.clone();
                    c.push((var.clone(), v.clone()));
                    next.push(c);
                }
            }
            combos = next;
        }
        let specific = if path.is_some() {
            &self.property_validator
        } else {
            &self.node_validator
        };
        let Some(v) = specific.as_ref().or(self.validator.as_ref()) else {
            return Ok(Vec::new());
        };
        let mut prebound = vec![THIS, CURRENT_SHAPE, SHAPES_GRAPH];
        if v.ask {
            prebound.push("value");
        }
        prebound.extend(self.parameters.iter().map(|p| p.name.as_str()));
        let kind = format!(
            "{} of {} (component {})",
            if v.ask { "sh:ask" } else { "sh:select" },
            v.node,
            self.iri
        );
        let q = prepare(shape, &kind, &v.prefixes, &v.body, path, &prebound)?;
        let validator = match (&q.query, v.ask) {
            (spargebra::Query::Ask { .. }, true) => ValidatorQuery::Ask(q),
            (spargebra::Query::Select { .. }, false) => ValidatorQuery::Select(q),
            _ => {
                return Err(Error::Sparql {
                    shape: shape.to_string(),
                    message: format!("{kind}: sh:ask needs an ASK query, sh:select a SELECT"),
                })
            }
        };
        let messages = if v.messages.is_empty() {
            self.messages.clone()
        } else {
            v.messages.clone()
        };
        Ok(combos
            .into_iter()
            .map(|parameters| ComponentConstraint {
                component: self.iri.clone(),
                validator: validator.clone(),
                parameters,
                messages: messages.clone(),
            })
            .collect())
    }
}
