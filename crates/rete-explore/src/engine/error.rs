//! The errors of the engine's calls and the kind by which the UI tells them apart.

/// Errors of the app's engine calls; shown verbatim in the window. They cross to the UI as
/// `{"kind": …, "message": …}` ([`ErrorKind`]), so the UI tells a cancelled build from a failure by
/// its kind, never by its wording.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The engine refused the file or a read failed (its own message).
    #[error(transparent)]
    Engine(#[from] rete_core::Error),
    /// No open document has this handle (it was closed).
    #[error("document {0} is not open")]
    NoDoc(u32),
    /// The community pyramid could not be read.
    #[error(transparent)]
    Pyramid(#[from] rete_pyramid::PyramidError),
    /// The schema block could not be read.
    #[error(transparent)]
    Schema(#[from] rete_schema::SchemaError),
    /// The label search failed.
    #[error(transparent)]
    Search(#[from] rete_search::SearchError),
    /// A request from the UI that does not make sense for this document.
    #[error("{0}")]
    Invalid(String),
    /// The user stopped the work (the message says which).
    #[error("{0}")]
    Cancelled(String),
    /// A URL redirected to another host, which is followed only once the user agrees
    /// ([`crate::ops::asking_for_redirects`]).
    #[error("{error}")]
    Redirect {
        /// The reader's error (it names both URLs).
        error: Box<rete_http::HttpError>,
        /// The host to allow in [`rete_http::HttpOptions::redirect_hosts`] to follow it.
        host: String,
    },
}

impl AppError {
    /// The error of an HTTP open: [`AppError::Redirect`] when only the redirect's host stood in
    /// the way, else its message.
    pub fn http(e: rete_http::HttpError) -> Self {
        match e.kind.refused_host() {
            Some((_, _, host)) => Self::Redirect {
                error: Box::new(e),
                host,
            },
            None => Self::Invalid(e.to_string()),
        }
    }
}

/// What kind of failure an [`AppError`] is, as the UI receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The file or its reads failed (corrupt, missing, a server's error).
    File,
    /// The document was closed.
    NotOpen,
    /// The request does not make sense here.
    Invalid,
    /// The user stopped it.
    Cancelled,
}

impl AppError {
    /// The kind the UI acts on.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Search(rete_search::SearchError::Cancelled) => ErrorKind::Cancelled,
            Self::Search(
                rete_search::SearchError::NoIndex
                | rete_search::SearchError::NoPyramid
                | rete_search::SearchError::UnknownClass(_),
            ) => ErrorKind::Invalid,
            Self::Engine(_) | Self::Pyramid(_) | Self::Schema(_) | Self::Search(_) => {
                ErrorKind::File
            }
            Self::NoDoc(_) => ErrorKind::NotOpen,
            Self::Invalid(_) | Self::Redirect { .. } => ErrorKind::Invalid,
            Self::Cancelled(_) => ErrorKind::Cancelled,
        }
    }
}

impl serde::Serialize for AppError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("AppError", 2)?;
        st.serialize_field("kind", &self.kind())?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}

/// Result alias of the app.
pub type AppResult<T> = Result<T, AppError>;
