//! Typed errors: malformed shapes, unreadable files, and cancellation.

use oxrdf::Term;

/// What went wrong while reading shapes or validating.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The `.rete` file could not be read.
    #[error(transparent)]
    Rete(#[from] rete_core::Error),
    /// The shapes file could not be read.
    #[error("cannot read the shapes {file}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The shapes file is not valid RDF (the message says where).
    #[error("shapes {file}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message with line and column.
        message: String,
    },
    /// A shape is malformed: a parameter with a value of the wrong kind, a bad list or path.
    #[error("shape {shape}: {message}")]
    Malformed {
        /// The shape (N-Triples form).
        shape: String,
        /// What is wrong.
        message: String,
    },
    /// A shape uses a `sh:` parameter that is not part of SHACL (a typo or an unknown
    /// constraint component).
    #[error("shape {shape}: unknown SHACL parameter <{parameter}>")]
    UnknownParameter {
        /// The shape.
        shape: String,
        /// The parameter's IRI.
        parameter: String,
    },
    /// A shape uses a SHACL feature this validator does not implement (SHACL-AF, SHACL-JS).
    #[error("shape {shape}: <{parameter}> is not supported (SHACL Core and SHACL-SPARQL only)")]
    Unsupported {
        /// The shape.
        shape: String,
        /// The parameter's IRI.
        parameter: String,
    },
    /// A SHACL-SPARQL query of a shape is malformed (syntax, a pre-binding rule, `$PATH` in a
    /// node shape), its evaluation failed, or a solution bound `?failure` to true.
    #[error("shape {shape}: {message}")]
    Sparql {
        /// The shape.
        shape: String,
        /// The query (`sh:select of …`) and what is wrong, with line and column for syntax.
        message: String,
    },
    /// `sh:pattern` is not a valid regular expression.
    #[error("shape {shape}: invalid sh:pattern {pattern:?}: {message}")]
    Pattern {
        /// The shape.
        shape: String,
        /// The pattern.
        pattern: String,
        /// The regex compiler's message.
        message: String,
    },
    /// Validating a node against a shape needed the same node against the same shape again
    /// (a recursive shape; undefined in SHACL 1.0), or nesting went deeper than the limit.
    #[error("recursive shape {shape} on focus node {focus}: {message}")]
    Recursion {
        /// The shape.
        shape: String,
        /// The focus node.
        focus: String,
        /// The cycle or the limit.
        message: String,
    },
    /// The cancel flag was set.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    pub(crate) fn malformed(shape: &Term, message: impl Into<String>) -> Self {
        Self::Malformed {
            shape: shape.to_string(),
            message: message.into(),
        }
    }
}

/// A result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
