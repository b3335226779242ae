//! The SHACL, RDF and RDFS terms the validator reads and writes.

use oxrdf::NamedNodeRef;

/// The SHACL namespace.
pub const SH: &str = "http://www.w3.org/ns/shacl#";

macro_rules! terms {
    ($($name:ident = $iri:expr;)*) => {
        $(pub const $name: NamedNodeRef<'static> = NamedNodeRef::new_unchecked($iri);)*
    };
}

terms! {
    RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
    RDF_FIRST = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first";
    RDF_REST = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest";
    RDF_NIL = "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil";
    RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
    RDFS_CLASS = "http://www.w3.org/2000/01/rdf-schema#Class";
    RDFS_SUB_CLASS_OF = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
    XSD_BOOLEAN = "http://www.w3.org/2001/XMLSchema#boolean";
    XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer";

    NODE_SHAPE = "http://www.w3.org/ns/shacl#NodeShape";
    PROPERTY_SHAPE = "http://www.w3.org/ns/shacl#PropertyShape";
    VALIDATION_REPORT = "http://www.w3.org/ns/shacl#ValidationReport";
    VALIDATION_RESULT = "http://www.w3.org/ns/shacl#ValidationResult";
    CONFORMS = "http://www.w3.org/ns/shacl#conforms";
    RESULT = "http://www.w3.org/ns/shacl#result";
    FOCUS_NODE = "http://www.w3.org/ns/shacl#focusNode";
    RESULT_PATH = "http://www.w3.org/ns/shacl#resultPath";
    VALUE = "http://www.w3.org/ns/shacl#value";
    RESULT_SEVERITY = "http://www.w3.org/ns/shacl#resultSeverity";
    SOURCE_SHAPE = "http://www.w3.org/ns/shacl#sourceShape";
    SOURCE_CONSTRAINT_COMPONENT = "http://www.w3.org/ns/shacl#sourceConstraintComponent";
    RESULT_MESSAGE = "http://www.w3.org/ns/shacl#resultMessage";
    VIOLATION = "http://www.w3.org/ns/shacl#Violation";

    TARGET = "http://www.w3.org/ns/shacl#target";
    TARGET_NODE = "http://www.w3.org/ns/shacl#targetNode";
    TARGET_CLASS = "http://www.w3.org/ns/shacl#targetClass";
    TARGET_SUBJECTS_OF = "http://www.w3.org/ns/shacl#targetSubjectsOf";
    TARGET_OBJECTS_OF = "http://www.w3.org/ns/shacl#targetObjectsOf";

    PATH = "http://www.w3.org/ns/shacl#path";
    ALTERNATIVE_PATH = "http://www.w3.org/ns/shacl#alternativePath";
    INVERSE_PATH = "http://www.w3.org/ns/shacl#inversePath";
    ZERO_OR_MORE_PATH = "http://www.w3.org/ns/shacl#zeroOrMorePath";
    ONE_OR_MORE_PATH = "http://www.w3.org/ns/shacl#oneOrMorePath";
    ZERO_OR_ONE_PATH = "http://www.w3.org/ns/shacl#zeroOrOnePath";

    DEACTIVATED = "http://www.w3.org/ns/shacl#deactivated";
    SEVERITY = "http://www.w3.org/ns/shacl#severity";
    MESSAGE = "http://www.w3.org/ns/shacl#message";

    CLASS = "http://www.w3.org/ns/shacl#class";
    DATATYPE = "http://www.w3.org/ns/shacl#datatype";
    NODE_KIND = "http://www.w3.org/ns/shacl#nodeKind";
    MIN_COUNT = "http://www.w3.org/ns/shacl#minCount";
    MAX_COUNT = "http://www.w3.org/ns/shacl#maxCount";
    MIN_EXCLUSIVE = "http://www.w3.org/ns/shacl#minExclusive";
    MIN_INCLUSIVE = "http://www.w3.org/ns/shacl#minInclusive";
    MAX_EXCLUSIVE = "http://www.w3.org/ns/shacl#maxExclusive";
    MAX_INCLUSIVE = "http://www.w3.org/ns/shacl#maxInclusive";
    MIN_LENGTH = "http://www.w3.org/ns/shacl#minLength";
    MAX_LENGTH = "http://www.w3.org/ns/shacl#maxLength";
    PATTERN = "http://www.w3.org/ns/shacl#pattern";
    FLAGS = "http://www.w3.org/ns/shacl#flags";
    LANGUAGE_IN = "http://www.w3.org/ns/shacl#languageIn";
    UNIQUE_LANG = "http://www.w3.org/ns/shacl#uniqueLang";
    EQUALS = "http://www.w3.org/ns/shacl#equals";
    DISJOINT = "http://www.w3.org/ns/shacl#disjoint";
    LESS_THAN = "http://www.w3.org/ns/shacl#lessThan";
    LESS_THAN_OR_EQUALS = "http://www.w3.org/ns/shacl#lessThanOrEquals";
    NOT = "http://www.w3.org/ns/shacl#not";
    AND = "http://www.w3.org/ns/shacl#and";
    OR = "http://www.w3.org/ns/shacl#or";
    XONE = "http://www.w3.org/ns/shacl#xone";
    NODE = "http://www.w3.org/ns/shacl#node";
    PROPERTY = "http://www.w3.org/ns/shacl#property";
    QUALIFIED_VALUE_SHAPE = "http://www.w3.org/ns/shacl#qualifiedValueShape";
    QUALIFIED_MIN_COUNT = "http://www.w3.org/ns/shacl#qualifiedMinCount";
    QUALIFIED_MAX_COUNT = "http://www.w3.org/ns/shacl#qualifiedMaxCount";
    QUALIFIED_VALUE_SHAPES_DISJOINT = "http://www.w3.org/ns/shacl#qualifiedValueShapesDisjoint";
    CLOSED = "http://www.w3.org/ns/shacl#closed";
    IGNORED_PROPERTIES = "http://www.w3.org/ns/shacl#ignoredProperties";
    HAS_VALUE = "http://www.w3.org/ns/shacl#hasValue";
    IN = "http://www.w3.org/ns/shacl#in";

    IRI = "http://www.w3.org/ns/shacl#IRI";
    BLANK_NODE = "http://www.w3.org/ns/shacl#BlankNode";
    LITERAL = "http://www.w3.org/ns/shacl#Literal";
    BLANK_NODE_OR_IRI = "http://www.w3.org/ns/shacl#BlankNodeOrIRI";
    BLANK_NODE_OR_LITERAL = "http://www.w3.org/ns/shacl#BlankNodeOrLiteral";
    IRI_OR_LITERAL = "http://www.w3.org/ns/shacl#IRIOrLiteral";

    SPARQL = "http://www.w3.org/ns/shacl#sparql";
    SELECT = "http://www.w3.org/ns/shacl#select";
    ASK = "http://www.w3.org/ns/shacl#ask";
    PREFIXES = "http://www.w3.org/ns/shacl#prefixes";
    DECLARE = "http://www.w3.org/ns/shacl#declare";
    PREFIX = "http://www.w3.org/ns/shacl#prefix";
    NAMESPACE = "http://www.w3.org/ns/shacl#namespace";
    OWL_IMPORTS = "http://www.w3.org/2002/07/owl#imports";
    OWL_CLASS = "http://www.w3.org/2002/07/owl#Class";
    CONSTRAINT_COMPONENT = "http://www.w3.org/ns/shacl#ConstraintComponent";
    PARAMETER = "http://www.w3.org/ns/shacl#parameter";
    OPTIONAL = "http://www.w3.org/ns/shacl#optional";
    VALIDATOR = "http://www.w3.org/ns/shacl#validator";
    NODE_VALIDATOR = "http://www.w3.org/ns/shacl#nodeValidator";
    PROPERTY_VALIDATOR = "http://www.w3.org/ns/shacl#propertyValidator";
    SOURCE_CONSTRAINT = "http://www.w3.org/ns/shacl#sourceConstraint";
}

/// `sh:` terms that may sit on a shape without being a Core constraint parameter: names,
/// ordering, the parameters read together with a constraint, and vocabulary of other parts.
pub const NON_VALIDATING: &[&str] = &[
    "name",
    "description",
    "order",
    "group",
    "defaultValue",
    "message",
    "severity",
    "deactivated",
    "path",
    "flags",
    "ignoredProperties",
    "qualifiedMinCount",
    "qualifiedMaxCount",
    "qualifiedValueShapesDisjoint",
    "targetNode",
    "targetClass",
    "targetSubjectsOf",
    "targetObjectsOf",
    "prefixes",
    "declare",
    "shapesGraph",
    "suggestedShapesGraph",
    "entailment",
    "labelTemplate",
    "resultAnnotation",
    "editor",
    "viewer",
    "singleLine",
    "select",
    "ask",
    "parameter",
    "validator",
    "nodeValidator",
    "propertyValidator",
    "optional",
];

/// SHACL Advanced Features and SHACL-JS parameters: not supported, refused with an error. (Of
/// SHACL-AF, SPARQL-based targets are read as targets, and rules are counted and not run: they
/// infer triples, they are no constraint.)
pub const UNSUPPORTED: &[&str] = &["js", "jsLibrary", "expression"];
