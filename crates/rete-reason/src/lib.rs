#![doc = include_str!("../README.md")]

mod materialize;
mod reach;
mod rules;
mod schema;
mod terms;

pub use materialize::{materialize, MaterializeReport, Materialized, Materializer, RuleCount};
pub use reach::{
    reach, Adjacency, Collect, Direction, ReachOptions, ReachReport, Reached, SeedReach,
};
pub use rules::{MaterializeOptions, Rule, RULE_SETS};

/// Errors of materialization and reachability.
#[derive(Debug, thiserror::Error)]
pub enum ReasonError {
    /// Reading the `.rete` file failed.
    #[error(transparent)]
    Format(#[from] rete_core::Error),
    /// The input cannot be handled (for example a graph with more than 2³² nodes).
    #[error("{0}")]
    Invalid(String),
}

/// Result alias of this crate.
pub type Result<T, E = ReasonError> = std::result::Result<T, E>;
