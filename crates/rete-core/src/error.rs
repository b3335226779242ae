//! Typed errors of the format crate.

use crate::range::RangeError;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Anything that can go wrong reading or writing a `.rete` file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The byte source failed (I/O, truncation, network).
    #[error(transparent)]
    Range(#[from] RangeError),
    /// The file does not start with the `.rete` magic.
    #[error("{file}: not a .rete file (bad magic bytes{hint})")]
    NotRete {
        /// File path or URL.
        file: String,
        /// Extra hint, e.g. that this is an upstream rete file.
        hint: String,
    },
    /// A format version this reader does not know.
    #[error("{file}: unsupported .rete format version {major}.{minor} (this reader reads {supported}.x)")]
    UnsupportedVersion {
        /// File path or URL.
        file: String,
        /// Major version found.
        major: u16,
        /// Minor version found.
        minor: u16,
        /// Major version this reader supports.
        supported: u16,
    },
    /// A section is damaged: checksum mismatch, truncated, absurd length, undecodable.
    #[error("{file}: corrupt {section}: {message}")]
    Corrupt {
        /// File path or URL.
        file: String,
        /// The section (or header) where the damage was found.
        section: String,
        /// What is wrong.
        message: String,
    },
    /// The caller asked for something that is not valid (unknown term syntax, bad option...).
    #[error("{0}")]
    Invalid(String),
    /// A local I/O error while writing.
    #[error("{path}: {source}")]
    Io {
        /// Path involved.
        path: String,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Decoding a section would take the document past its decode budget
    /// ([`crate::budget::DecodeBudget`], [`crate::ReteOptions::decode_budget`]).
    #[error(
        "{file}: {section}: decoding this section would hold {bytes} bytes, past the document's \
         decode budget of {limit} bytes ({held} bytes held already)"
    )]
    DecodeBudget {
        /// File path or URL.
        file: String,
        /// The section being decoded.
        section: String,
        /// Bytes it would hold.
        bytes: u64,
        /// Bytes the document held already.
        held: u64,
        /// The budget.
        limit: u64,
    },
    /// The operation was cancelled through a cancel flag.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    /// A damaged or inconsistent `section` of `file`: what every decoder (this crate's and the
    /// extensions') reports.
    pub fn corrupt(file: &str, section: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Corrupt {
            file: file.to_owned(),
            section: section.into(),
            message: message.into(),
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl std::fmt::Display, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_string(),
            source,
        }
    }
}
