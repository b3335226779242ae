//! Where shapes come from: an RDF file in any syntax (told by its name), bytes, or the dataset
//! itself (the shapes it holds and what they reference).

use crate::error::{Error, Result};
use crate::vocab::*;
use oxrdf::{Graph, NamedNodeRef, Term};
use oxrdfio::{RdfFormat, RdfParser};
use rete_core::{Pattern, Rete};
use std::collections::{HashSet, VecDeque};
use std::io::Read;
use std::path::Path;

/// Parses a shapes graph from `reader` in `format`; `name` is used in messages and as the base
/// IRI when it is one.
pub fn parse_graph(reader: impl Read, format: RdfFormat, name: &str) -> Result<Graph> {
    let mut parser = RdfParser::from_format(format).without_named_graphs();
    if name.contains("://") {
        parser = parser.with_base_iri(name).map_err(|e| Error::Syntax {
            file: name.to_owned(),
            message: e.to_string(),
        })?;
    }
    let mut g = Graph::new();
    for q in parser.for_reader(reader) {
        let q = q.map_err(|e| Error::Syntax {
            file: name.to_owned(),
            message: e.to_string(),
        })?;
        g.insert(oxrdf::TripleRef::from(q.as_ref()));
    }
    Ok(g)
}

/// The RDF syntax of a file name (`.ttl`, `.nt`, `.nq`, `.trig`, `.rdf`, `.jsonld`, …).
pub fn format_of(name: &str) -> Option<RdfFormat> {
    let ext = name.rsplit('.').next()?;
    RdfFormat::from_extension(ext)
}

/// Reads a shapes file.
pub fn read_graph(path: &Path) -> Result<Graph> {
    let name = path.display().to_string();
    let format = format_of(&name).ok_or_else(|| Error::Syntax {
        file: name.clone(),
        message: "unknown RDF syntax: name the file .ttl, .nt, .nq, .trig, .rdf or .jsonld".into(),
    })?;
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        file: name.clone(),
        source,
    })?;
    parse_graph(std::io::BufReader::new(file), format, &name)
}

/// Predicates whose IRI objects are shapes, lists or prefix declarations to read with the shape
/// (Brick's SPARQL constraints and targets declare theirs on its ontology node, `sh:prefixes
/// <https://brickschema.org/schema/1.5/Brick>`).
const REFERENCES: [NamedNodeRef<'static>; 10] = [
    NODE,
    PROPERTY,
    NOT,
    QUALIFIED_VALUE_SHAPE,
    AND,
    OR,
    XONE,
    RDF_FIRST,
    PREFIXES,
    OWL_IMPORTS,
];

/// The shapes the dataset holds: subjects typed `sh:NodeShape` / `sh:PropertyShape` or with a
/// target, with every triple of theirs and of the blank nodes and shapes they reference (in
/// any graph). Reads only those subjects' ranges.
pub fn dataset_graph(rete: &Rete) -> Result<Graph> {
    let mut queue: VecDeque<u64> = VecDeque::new();
    let id = |n: NamedNodeRef<'_>| rete.id_of(n.into());
    if let Some(ty) = id(RDF_TYPE)? {
        for class in [NODE_SHAPE, PROPERTY_SHAPE] {
            if let Some(c) = id(class)? {
                for q in rete.quads(&Pattern::new(None, Some(ty), Some(c)))? {
                    queue.push_back(q?[0]);
                }
            }
        }
    }
    for p in [
        TARGET,
        TARGET_NODE,
        TARGET_CLASS,
        TARGET_SUBJECTS_OF,
        TARGET_OBJECTS_OF,
    ] {
        if let Some(p) = id(p)? {
            for q in rete.quads(&Pattern::new(None, Some(p), None))? {
                queue.push_back(q?[0]);
            }
        }
    }
    let mut seen: HashSet<u64> = queue.iter().copied().collect();
    let mut g = Graph::new();
    while let Some(s) = queue.pop_front() {
        for q in rete.quads(&Pattern::new(Some(s), None, None))? {
            let q = q?;
            let quad = rete.decode_quad(&q)?;
            let follow = match &quad.object {
                Term::BlankNode(_) => true,
                Term::NamedNode(_) => REFERENCES.contains(&quad.predicate.as_ref()),
                _ => false,
            };
            if follow && seen.insert(q[2]) {
                queue.push_back(q[2]);
            }
            g.insert(&oxrdf::Triple::new(
                quad.subject,
                quad.predicate,
                quad.object,
            ));
        }
    }
    Ok(g)
}
