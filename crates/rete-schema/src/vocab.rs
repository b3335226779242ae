//! The RDF, RDFS and OWL terms the schema block is made of.

use oxrdf::vocab::{rdf, rdfs, xsd};
pub use rete_core::vocab::{OWL, RDF, RDFS, XSD};

pub const RDF_TYPE: &str = rdf::TYPE.as_str();
pub const RDF_FIRST: &str = rdf::FIRST.as_str();
pub const RDF_REST: &str = rdf::REST.as_str();
pub const RDF_NIL: &str = rdf::NIL.as_str();
pub const RDF_PROPERTY: &str = rdf::PROPERTY.as_str();
pub const RDF_LANG_STRING: &str = rdf::LANG_STRING.as_str();

pub const RDFS_CLASS: &str = rdfs::CLASS.as_str();
pub const RDFS_SUB_CLASS_OF: &str = rdfs::SUB_CLASS_OF.as_str();
pub const RDFS_SUB_PROPERTY_OF: &str = rdfs::SUB_PROPERTY_OF.as_str();
pub const RDFS_DOMAIN: &str = rdfs::DOMAIN.as_str();
pub const RDFS_RANGE: &str = rdfs::RANGE.as_str();
pub const RDFS_LABEL: &str = rdfs::LABEL.as_str();
pub const RDFS_DATATYPE: &str = rdfs::DATATYPE.as_str();

pub const OWL_CLASS: &str = "http://www.w3.org/2002/07/owl#Class";
pub const OWL_THING: &str = "http://www.w3.org/2002/07/owl#Thing";
pub const OWL_NOTHING: &str = "http://www.w3.org/2002/07/owl#Nothing";
pub const OWL_EQUIVALENT_CLASS: &str = "http://www.w3.org/2002/07/owl#equivalentClass";
pub const OWL_DISJOINT_WITH: &str = "http://www.w3.org/2002/07/owl#disjointWith";
pub const OWL_COMPLEMENT_OF: &str = "http://www.w3.org/2002/07/owl#complementOf";
pub const OWL_ALL_DISJOINT_CLASSES: &str = "http://www.w3.org/2002/07/owl#AllDisjointClasses";
pub const OWL_ALL_DISJOINT_PROPERTIES: &str = "http://www.w3.org/2002/07/owl#AllDisjointProperties";
pub const OWL_MEMBERS: &str = "http://www.w3.org/2002/07/owl#members";
pub const OWL_OBJECT_PROPERTY: &str = "http://www.w3.org/2002/07/owl#ObjectProperty";
pub const OWL_DATATYPE_PROPERTY: &str = "http://www.w3.org/2002/07/owl#DatatypeProperty";
pub const OWL_ANNOTATION_PROPERTY: &str = "http://www.w3.org/2002/07/owl#AnnotationProperty";
pub const OWL_FUNCTIONAL_PROPERTY: &str = "http://www.w3.org/2002/07/owl#FunctionalProperty";
pub const OWL_INVERSE_FUNCTIONAL_PROPERTY: &str =
    "http://www.w3.org/2002/07/owl#InverseFunctionalProperty";
pub const OWL_IRREFLEXIVE_PROPERTY: &str = "http://www.w3.org/2002/07/owl#IrreflexiveProperty";
pub const OWL_ASYMMETRIC_PROPERTY: &str = "http://www.w3.org/2002/07/owl#AsymmetricProperty";
pub const OWL_SYMMETRIC_PROPERTY: &str = "http://www.w3.org/2002/07/owl#SymmetricProperty";
pub const OWL_TRANSITIVE_PROPERTY: &str = "http://www.w3.org/2002/07/owl#TransitiveProperty";
pub const OWL_REFLEXIVE_PROPERTY: &str = "http://www.w3.org/2002/07/owl#ReflexiveProperty";
pub const OWL_INVERSE_OF: &str = "http://www.w3.org/2002/07/owl#inverseOf";
pub const OWL_PROPERTY_DISJOINT_WITH: &str = "http://www.w3.org/2002/07/owl#propertyDisjointWith";
pub const OWL_SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";
pub const OWL_DIFFERENT_FROM: &str = "http://www.w3.org/2002/07/owl#differentFrom";
pub const OWL_ALL_DIFFERENT: &str = "http://www.w3.org/2002/07/owl#AllDifferent";
pub const OWL_DISTINCT_MEMBERS: &str = "http://www.w3.org/2002/07/owl#distinctMembers";

pub const XSD_STRING: &str = xsd::STRING.as_str();
pub const RDFS_LITERAL: &str = rdfs::LITERAL.as_str();

/// `true` for IRIs of the RDF, RDFS, OWL and XSD vocabularies themselves, which are never counted
/// as classes of the data (`owl:Class`, `owl:ObjectProperty`…) except `owl:Thing` and
/// `owl:Nothing`, which take part in class axioms.
pub fn is_meta(iri: &str) -> bool {
    if iri == OWL_THING || iri == OWL_NOTHING {
        return false;
    }
    [RDF, RDFS, OWL, XSD].iter().any(|ns| iri.starts_with(ns))
}

/// `true` for IRIs that name datatypes rather than classes.
pub fn is_builtin_datatype(iri: &str) -> bool {
    iri.starts_with(XSD)
        || iri == RDFS_LITERAL
        || iri == RDF_LANG_STRING
        || iri == "http://www.w3.org/1999/02/22-rdf-syntax-ns#PlainLiteral"
        || iri == rdf::XML_LITERAL.as_str()
        || iri == rdf::HTML.as_str()
        || iri == "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"
}

/// The prefixes used when rendering schema terms compactly, after the document's own.
pub const WELL_KNOWN: [(&str, &str); 4] = rete_core::vocab::CORE_PREFIXES;

/// The prefixes in effect for `rete`: its card's, then its schema block's, then the well-known
/// ones ([`rete_core::vocab::Prefixes::for_file`]). Reads the schema block when there is one.
pub fn prefixes_in_effect(
    rete: &rete_core::Rete,
) -> Result<rete_core::vocab::Prefixes, crate::SchemaError> {
    let schema = crate::Schema::open(rete)?;
    Ok(rete_core::vocab::Prefixes::for_file(
        &rete.card()?.prefixes,
        schema.as_ref().map_or(&[][..], |s| &s.prefixes[..]),
    ))
}
