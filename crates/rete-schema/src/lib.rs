#![doc = include_str!("../README.md")]

mod block;
mod codec;
mod extract;
mod hierarchy;
mod text;
pub mod vocab;

pub use extract::{extract, ExtractOptions};
pub use hierarchy::subclass_cycles;
pub use vocab::prefixes_in_effect;

use rete_core::extension::{BoxError, Extension, ExtensionOutput};
use rete_core::format::FLAG_SCHEMA;
use rete_core::writer::SectionSpec;
use rete_core::{Charge, Rete};
use serde::Serialize;
use std::sync::Arc;

/// Section kinds of the schema block (inside the 32–47 range reserved for it). The builder places
/// them, in this order, right after the header and the section directory.
pub mod kind {
    /// Classes, their hierarchy and the class axioms (disjointness, equivalence, complement), plus
    /// the prefixes for rendering. All a Tier-0 coherence check needs.
    pub const CLASSES: u16 = 32;
    /// Properties and their axioms (characteristics, domain, range, inverse, disjointness).
    pub const PROPERTIES: u16 = 33;
    /// Counts: instances per class and per level, class→predicate→class relations, literal-valued
    /// predicates, triples per property, labels.
    pub const STATISTICS: u16 = 34;
}

/// zstd level of the schema sections: they are small and read first, so every byte counts.
const ZSTD_LEVEL: i32 = 19;

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// Reading the file failed (I/O, checksum, decompression).
    #[error(transparent)]
    Format(#[from] rete_core::Error),
    /// The dataset cannot be summarized (e.g. more classes than indexes).
    #[error("{0}")]
    Invalid(String),
}

rete_core::section_errors!(SchemaError);

/// Which parts of the schema block to read (by default [`Parts::CLASSES`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Parts {
    /// Section [`kind::PROPERTIES`].
    pub properties: bool,
    /// Section [`kind::STATISTICS`].
    pub statistics: bool,
}

impl Parts {
    /// Everything.
    pub const ALL: Parts = Parts {
        properties: true,
        statistics: true,
    };
    /// Classes and class axioms only (what Tier-0 coherence reads).
    pub const CLASSES: Parts = Parts {
        properties: false,
        statistics: false,
    };
    /// Classes and properties with their axioms, no counts.
    pub const AXIOMS: Parts = Parts {
        properties: true,
        statistics: false,
    };
}

/// The schema of a dataset. Class and property references are indexes into `classes` and
/// `properties`, which are sorted by IRI in dictionary order. The default is empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Schema {
    /// Named classes: declared (`owl:Class`, `rdfs:Class`), used as `rdf:type` objects, or named
    /// in class axioms, domains and ranges. RDF/RDFS/OWL/XSD terms themselves are left out,
    /// except `owl:Thing` and `owl:Nothing`.
    pub classes: Vec<Class>,
    /// Triples counted by the direct classes of their subject and object.
    pub relations: Vec<Relation>,
    /// Triples with literal objects counted by the direct classes of their subject and datatype.
    pub literal_properties: Vec<LiteralProperty>,
    /// `owl:disjointWith` axioms `(subject, object)`, as asserted.
    pub disjoint: Vec<(u32, u32)>,
    /// `owl:AllDisjointClasses` axioms: members are pairwise disjoint.
    pub disjoint_groups: Vec<Vec<u32>>,
    /// `owl:equivalentClass` axioms between named classes, as asserted.
    pub equivalent: Vec<(u32, u32)>,
    /// Complement axioms `(a, b)`: `a ≡ ¬b`, asserted as `a owl:complementOf b` or as
    /// `a owl:equivalentClass [ owl:complementOf b ]` (those are also listed in
    /// `anonymous_complement`).
    pub complement: Vec<(u32, u32)>,
    /// The complement axioms asserted through an anonymous class.
    pub anonymous_complement: Vec<(u32, u32)>,
    /// Properties: used as predicates, declared, or named in property axioms.
    pub properties: Vec<PropertyAxioms>,
    /// `owl:AllDisjointProperties` axioms.
    pub property_disjoint_groups: Vec<Vec<u32>>,
    /// Instance rollups per depth of the class tree (index = depth).
    pub levels: Vec<LevelCount>,
    /// Prefixes of the source documents that the class and property IRIs use.
    pub prefixes: Vec<(String, String)>,
    /// Distinct subjects with at least one `rdf:type` to a class.
    pub typed_instances: u64,
    /// Which optional parts were read (without `statistics`, counts are zero and labels absent).
    pub parts: Parts,
    /// What a schema read from a document holds of its decode budget, given back when the last
    /// clone is dropped (none for a schema built in memory; never compared or serialized).
    #[serde(skip)]
    charge: Arc<Charge>,
}

/// A named class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Class {
    /// Position in [`Schema::classes`].
    pub index: u32,
    /// The IRI.
    pub iri: String,
    /// Its `rdfs:label` (English or untagged preferred).
    pub label: Option<String>,
    /// Direct superclasses (`rdfs:subClassOf` between named classes).
    pub parents: Vec<u32>,
    /// Longest `rdfs:subClassOf` path up to a root (roots are 0; a cycle shares one depth).
    pub depth: u32,
    /// Distinct subjects typed with this class.
    pub direct_instances: u64,
    /// Distinct subjects typed with this class or any subclass or equivalent class of it.
    pub total_instances: u64,
}

/// Triples `s p o` with `s` of class `domain` and `o` of class `range` (direct types).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Relation {
    /// Class index of the subjects.
    pub domain: u32,
    /// Predicate IRI.
    pub predicate: String,
    /// Class index of the objects.
    pub range: u32,
    /// Number of triples.
    pub count: u64,
}

/// Triples `s p "literal"` with `s` of class `class`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LiteralProperty {
    /// Class index of the subjects.
    pub class: u32,
    /// Predicate IRI.
    pub predicate: String,
    /// Datatype IRI of the literals (`rdf:langString` for language-tagged strings).
    pub datatype: String,
    /// Number of triples.
    pub count: u64,
}

/// What kind of property an IRI was declared as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PropertyKind {
    /// `owl:ObjectProperty` (or implied by an object-property characteristic).
    Object,
    /// `owl:DatatypeProperty`.
    Datatype,
    /// `owl:AnnotationProperty`.
    Annotation,
    /// Anything else (`rdf:Property`, or just used as a predicate).
    Property,
}

/// A property with its axioms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PropertyAxioms {
    /// Position in [`Schema::properties`].
    pub index: u32,
    /// The IRI.
    pub iri: String,
    /// Its `rdfs:label`.
    pub label: Option<String>,
    /// Declared kind.
    pub kind: PropertyKind,
    /// `owl:FunctionalProperty`.
    pub functional: bool,
    /// `owl:InverseFunctionalProperty`.
    pub inverse_functional: bool,
    /// `owl:IrreflexiveProperty`.
    pub irreflexive: bool,
    /// `owl:AsymmetricProperty`.
    pub asymmetric: bool,
    /// `owl:SymmetricProperty`.
    pub symmetric: bool,
    /// `owl:TransitiveProperty`.
    pub transitive: bool,
    /// `owl:ReflexiveProperty`.
    pub reflexive: bool,
    /// `rdfs:domain` classes.
    pub domain: Vec<u32>,
    /// `rdfs:range` classes.
    pub range: Vec<u32>,
    /// `rdfs:range` datatypes.
    pub range_datatypes: Vec<String>,
    /// `owl:inverseOf` (this property is the subject of the axiom).
    pub inverse_of: Vec<u32>,
    /// `owl:propertyDisjointWith` (this property is the subject of the axiom).
    pub disjoint_with: Vec<u32>,
    /// `rdfs:subPropertyOf` parents.
    pub parents: Vec<u32>,
    /// Triples using it as predicate.
    pub triples: u64,
}

/// Instance totals at one depth of the class tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LevelCount {
    /// The depth.
    pub depth: u32,
    /// Classes at this depth.
    pub classes: u64,
    /// Distinct subjects typed directly with a class at this depth.
    pub direct_instances: u64,
    /// Distinct subjects belonging to a class at this depth, directly or through a subclass.
    pub total_instances: u64,
}

impl Schema {
    /// Reads the whole schema block, or `None` if the file was built without one. The sections
    /// lie right behind the header, so this usually costs no read beyond the one made at open.
    pub fn open(rete: &Rete) -> Result<Option<Schema>, SchemaError> {
        Self::open_parts(rete, Parts::ALL)
    }

    /// Reads the class section and the chosen optional parts, or `None` without a schema block.
    /// Never touches the dictionary or the permutations.
    pub fn open_parts(rete: &Rete, parts: Parts) -> Result<Option<Schema>, SchemaError> {
        // One charge to the document's decode budget for the whole schema, grown by each section
        // (its payload was charged while it was decoded) and what is made of it.
        let Some((classes, mut charge)) = rete.kept_section(kind::CLASSES, 0)? else {
            return Ok(None);
        };
        let mut schema = block::decode_classes(&classes, rete.name(), &mut charge)?;
        if parts.properties || parts.statistics {
            let props = rete
                .section_payload(kind::PROPERTIES, 0)?
                .ok_or_else(|| missing(rete, kind::PROPERTIES))?;
            charge.grow("schema properties", props.len() as u64)?;
            block::decode_properties(&mut schema, &props, rete.name(), &mut charge)?;
        }
        if parts.statistics {
            let stats = rete
                .section_payload(kind::STATISTICS, 0)?
                .ok_or_else(|| missing(rete, kind::STATISTICS))?;
            charge.grow("schema statistics", stats.len() as u64)?;
            block::decode_statistics(&mut schema, &stats, rete.name(), &mut charge)?;
        }
        schema.charge = Arc::new(charge);
        Ok(Some(schema))
    }

    /// Encodes the schema as its three sections (what [`SchemaExtension`] writes).
    pub fn to_sections(&self) -> Result<Vec<SectionSpec>, SchemaError> {
        let (c, p, s) = block::encode(self);
        Ok(vec![
            SectionSpec::zstd(kind::CLASSES, 0, &c, ZSTD_LEVEL)?,
            SectionSpec::zstd(kind::PROPERTIES, 0, &p, ZSTD_LEVEL)?,
            SectionSpec::zstd(kind::STATISTICS, 0, &s, ZSTD_LEVEL)?,
        ])
    }

    /// Index of the class with this IRI.
    pub fn class_index(&self, iri: &str) -> Option<u32> {
        self.classes
            .iter()
            .position(|c| c.iri == iri)
            .map(|i| i as u32)
    }

    /// Index of the property with this IRI.
    pub fn property_index(&self, iri: &str) -> Option<u32> {
        self.properties
            .iter()
            .position(|p| p.iri == iri)
            .map(|i| i as u32)
    }

    /// `owl:Thing`, if it is named anywhere in the schema.
    pub fn thing(&self) -> Option<u32> {
        self.class_index(vocab::OWL_THING)
    }

    /// `owl:Nothing`, if it is named anywhere in the schema.
    pub fn nothing(&self) -> Option<u32> {
        self.class_index(vocab::OWL_NOTHING)
    }

    /// Direct subclasses of every class.
    pub fn children(&self) -> Vec<Vec<u32>> {
        let mut ch = vec![Vec::new(); self.classes.len()];
        for c in &self.classes {
            for &p in &c.parents {
                ch[p as usize].push(c.index);
            }
        }
        ch
    }

    /// Every pair of classes declared disjoint, by `owl:disjointWith` or `owl:AllDisjointClasses`,
    /// as `(min, max)`, sorted and without duplicates.
    pub fn disjoint_pairs(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self
            .disjoint
            .iter()
            .map(|&(a, b)| (a.min(b), a.max(b)))
            .collect();
        for g in &self.disjoint_groups {
            for (i, &a) in g.iter().enumerate() {
                for &b in &g[i + 1..] {
                    v.push((a.min(b), a.max(b)));
                }
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// A compact rendering of an IRI: `prefix:local` with the document's prefixes or the
    /// well-known ones (the longest namespace leaving a local part Turtle takes unescaped), else
    /// `<iri>`.
    pub fn compact(&self, iri: &str) -> String {
        let namespaces = self
            .prefixes
            .iter()
            .map(|(p, n)| (p.as_str(), n.as_str()))
            .chain(vocab::WELL_KNOWN.iter().copied());
        rete_core::vocab::compact_or_bracketed(namespaces, iri, is_local_name)
    }
}

/// A conservative check that `s` can follow `prefix:` in Turtle unescaped.
fn is_local_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

fn missing(rete: &Rete, kind: u16) -> SchemaError {
    SchemaError::Format(rete_core::Error::corrupt(
        rete.name(),
        rete_core::format::section_name(kind, 0),
        "the schema block is incomplete: section missing",
    ))
}

/// The builder extension that writes the schema block (sets [`FLAG_SCHEMA`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct SchemaExtension;

impl Extension for SchemaExtension {
    fn name(&self) -> &str {
        "schema"
    }

    fn flags(&self) -> u32 {
        FLAG_SCHEMA
    }

    fn sections_with_steps(&self, base: &Rete) -> Result<ExtensionOutput, BoxError> {
        let schema = extract(base, &ExtractOptions::default())?;
        Ok(schema.to_sections()?.into())
    }
}
