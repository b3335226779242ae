//! Typed errors of a path search: bad input, or a failed read. Limits reached are not errors
//! (see [`crate::Stop`]).

/// Why a path search could not start or could not read the file.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// An endpoint is not a term of the file.
    #[error("{0} is not in the file")]
    UnknownEntity(String),
    /// An endpoint is a literal: paths join entities (IRIs and blank nodes).
    #[error("{0} is a literal: paths join entities (IRIs or blank nodes)")]
    LiteralEndpoint(String),
    /// Both endpoints are the same entity.
    #[error("both ends are {0}: give two different entities")]
    SameEntity(String),
    /// A `via` predicate is not a predicate of the file, so no link could use it.
    #[error("the predicate {0} (in via) is not in the file")]
    UnknownPredicate(String),
    /// `k` is outside `1..=MAX_K`.
    #[error("k = {k} is out of range: ask for 1 to {max} paths")]
    BadK {
        /// The value given.
        k: usize,
        /// The largest accepted value ([`crate::MAX_K`]).
        max: usize,
    },
    /// `max_hops` is outside `1..=MAX_HOPS`.
    #[error("max hops = {hops} is out of range: 1 to {max}")]
    BadHops {
        /// The value given.
        hops: u32,
        /// The largest accepted value ([`crate::MAX_HOPS`]).
        max: u32,
    },
    /// Reading the `.rete` file failed (I/O, HTTP, corrupt block).
    #[error(transparent)]
    Read(#[from] rete_core::Error),
}
