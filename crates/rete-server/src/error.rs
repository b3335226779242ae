//! What can go wrong with a request or with starting the server, and the HTTP status of each.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// Seconds a refused client is told to wait (`Retry-After`) when every worker and queue place
/// is taken.
pub const RETRY_AFTER_SECS: u64 = 1;

/// An error of the server: a request it refuses (each with its HTTP status, see
/// [`ServeError::status`]) or a failure to start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The request breaks the SPARQL 1.1 Protocol (400).
    #[error("{0}")]
    BadRequest(String),
    /// The query text is not valid SPARQL 1.1 (400).
    #[error("syntax error at {line}:{column}: {message}")]
    Syntax {
        /// 1-based line (0 if unknown).
        line: u64,
        /// 1-based column (0 if unknown).
        column: u64,
        /// What the parser found and expected.
        message: String,
    },
    /// The answer has more rows (or triples) than the server's cap (400): never a partial answer.
    #[error("the answer has more than {0} rows, the server's --max-rows: add LIMIT {0} (or less) to the query")]
    RowLimit(u64),
    /// A SPARQL Update or another write (403): the server is read-only.
    #[error("this endpoint is read-only: {0}")]
    ReadOnly(String),
    /// No such endpoint or graph (404).
    #[error("{0}")]
    NotFound(String),
    /// No format the client accepts can hold this answer (406).
    #[error("{0}")]
    NotAcceptable(String),
    /// The request body's media type or charset is not one the protocol allows (415).
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// A feature the engine refuses on purpose, such as `SERVICE` (501).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The query ran past its deadline and was stopped (503).
    #[error("the query did not finish within the server's timeout of {0} and was stopped")]
    Timeout(String),
    /// Every worker is busy and the queue is full (503 with `Retry-After`).
    #[error("the server is busy: {0} queries are running or waiting; retry in a moment")]
    Overloaded(usize),
    /// The query needs more memory than the server allows one query (503).
    #[error("the query needs too much memory: {0}")]
    TooLarge(String),
    /// The client went away or the server is stopping (503).
    #[error("the query was cancelled")]
    Cancelled,
    /// A `SERVICE` call to another endpoint failed (502).
    #[error("{0}")]
    Upstream(String),
    /// The query failed inside the engine (500).
    #[error(transparent)]
    Query(rete_sparql::SparqlError),
    /// Reading the `.rete` file failed (500).
    #[error(transparent)]
    Store(#[from] rete_core::Error),
    /// The server cannot start: bad options, an unusable name, a file whose schema cannot be read.
    #[error("{0}")]
    Config(String),
    /// Binding the address or running the HTTP server failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl ServeError {
    /// The HTTP status this error is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::BadRequest(_) | Self::Syntax { .. } | Self::RowLimit(_) => {
                StatusCode::BAD_REQUEST
            }
            Self::ReadOnly(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::NotAcceptable(_) => StatusCode::NOT_ACCEPTABLE,
            Self::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Unsupported(_) => StatusCode::NOT_IMPLEMENTED,
            Self::Timeout(_) | Self::Overloaded(_) | Self::TooLarge(_) | Self::Cancelled => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::Upstream(_) => StatusCode::BAD_GATEWAY,
            Self::Query(_) | Self::Store(_) | Self::Config(_) | Self::Io(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }
}

impl From<rete_sparql::SparqlError> for ServeError {
    fn from(e: rete_sparql::SparqlError) -> Self {
        use rete_sparql::SparqlError as E;
        match e {
            E::Syntax {
                line,
                column,
                message,
            } => Self::Syntax {
                line,
                column,
                message,
            },
            E::Unsupported(m) => Self::Unsupported(m),
            E::Cancelled => Self::Cancelled,
            E::TooLarge(m) => Self::TooLarge(m),
            E::Format(m) => Self::NotAcceptable(m),
            E::Store(e) => Self::Store(e),
            E::Service(m) => Self::Upstream(m),
            other => Self::Query(other),
        }
    }
}

/// The error as a plain-text answer with its status (and `Retry-After` when busy).
impl IntoResponse for ServeError {
    fn into_response(self) -> Response {
        let mut r = (self.status(), format!("{self}\n")).into_response();
        if matches!(self, Self::Overloaded(_)) {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        }
        r
    }
}
