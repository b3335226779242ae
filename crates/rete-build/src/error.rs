//! The errors of a build ([`BuildError`]), apart from the phases that raise them.

use crate::BoxError;

/// Errors of a build. Nothing is written at the destination when one occurs.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A syntax error in an input.
    #[error("{input}:{line}:{column}: {message}")]
    Syntax {
        /// Input name.
        input: String,
        /// 1-based line (0 if unknown).
        line: u64,
        /// 1-based column in characters (0 if unknown).
        column: u64,
        /// What was wrong.
        message: String,
    },
    /// The syntax of an input could not be told from its name.
    #[error("{input}: cannot tell the RDF syntax from the file name; use --format (nt, nq, ttl, trig, rdf, jsonld)")]
    UnknownFormat {
        /// Input name.
        input: String,
    },
    /// Reading an input or writing the output failed.
    #[error("{path}: {source}")]
    Io {
        /// Path involved.
        path: String,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Bad options or unsupported data.
    #[error("{0}")]
    Invalid(String),
    /// The format layer failed.
    #[error(transparent)]
    Format(#[from] rete_core::Error),
    /// The build was cancelled through [`Progress::cancelled`](crate::Progress::cancelled);
    /// nothing was left behind.
    #[error("build cancelled")]
    Cancelled,
    /// An extension (pyramid, schema, inference) failed.
    #[error("{name}: {source}")]
    Extension {
        /// Extension name.
        name: String,
        /// Its error.
        #[source]
        source: BoxError,
    },
}
