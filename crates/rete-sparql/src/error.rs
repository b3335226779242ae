//! Errors of parsing, evaluating and writing queries.

use spareval::QueryEvaluationError;

/// Everything that can go wrong with a query.
#[derive(Debug, thiserror::Error)]
pub enum SparqlError {
    /// The query text is not valid SPARQL 1.1.
    #[error("syntax error at {line}:{column}: {message}")]
    Syntax {
        /// 1-based line (0 if unknown).
        line: u64,
        /// 1-based column (0 if unknown).
        column: u64,
        /// What the parser expected.
        message: String,
    },
    /// A feature this engine refuses on purpose (e.g. `SERVICE`).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The cancel flag was raised.
    #[error("the query was cancelled")]
    Cancelled,
    /// The deadline passed.
    #[error("the query timed out")]
    Timeout,
    /// An intermediate result grew beyond the engine's memory bound.
    #[error("the query needs too much memory: {0}")]
    TooLarge(String),
    /// The evaluator failed (other than on purpose).
    #[error("evaluation failed: {0}")]
    Evaluation(String),
    /// A `SERVICE` call failed (not allowed, unreachable, an error status, too long an answer).
    #[error("{0}")]
    Service(String),
    /// Reading the `.rete` file failed.
    #[error(transparent)]
    Store(#[from] rete_core::Error),
    /// Writing results failed.
    #[error("cannot write results: {0}")]
    Io(#[from] std::io::Error),
    /// The results cannot be written in the requested format.
    #[error("{0}")]
    Format(String),
}

impl From<QueryEvaluationError> for SparqlError {
    fn from(e: QueryEvaluationError) -> Self {
        match e {
            QueryEvaluationError::Dataset(inner) => match inner.downcast::<SparqlError>() {
                Ok(d) => *d,
                Err(other) => Self::Evaluation(other.to_string()),
            },
            QueryEvaluationError::Cancelled => Self::Cancelled,
            QueryEvaluationError::Service(e) => Self::Service(e.to_string()),
            e @ (QueryEvaluationError::UnsupportedService(_)
            | QueryEvaluationError::UnboundService
            | QueryEvaluationError::InvalidServiceName(_)) => {
                Self::Unsupported(format!("SERVICE (federated query): {e}"))
            }
            other => Self::Evaluation(other.to_string()),
        }
    }
}
