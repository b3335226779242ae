//! Typed errors: every failure names the URL and says what went wrong.

use rete_core::RangeError;
use std::fmt;

/// A failed HTTP read: the URL, what went wrong, and how many attempts were made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url}: {kind}{}", Attempts(*attempts))]
pub struct HttpError {
    /// The URL the reader was opened with.
    pub url: String,
    /// What went wrong.
    pub kind: HttpErrorKind,
    /// Requests sent before giving up (more than one when transient failures were retried).
    pub attempts: u32,
}

struct Attempts(u32);

impl fmt::Display for Attempts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 > 1 {
            write!(f, " (gave up after {} attempts)", self.0)
        } else {
            Ok(())
        }
    }
}

/// What went wrong in an HTTP read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpErrorKind {
    /// Not an `http://` or `https://` URL, or one the client cannot parse.
    #[error("not a valid http(s) URL: {0}")]
    InvalidUrl(String),
    /// The host name does not resolve.
    #[error("host not found")]
    HostNotFound,
    /// The server answered with an unexpected status (404, 403, 500…).
    #[error("HTTP {status}{}", reason(*status))]
    Status {
        /// The HTTP status code.
        status: u16,
    },
    /// Connecting, waiting for the response or reading the body took too long.
    #[error("timed out ({0})")]
    Timeout(String),
    /// The connection failed or was reset.
    #[error("connection failed: {0}")]
    Connection(String),
    /// TLS failed (certificate, handshake).
    #[error("TLS error: {0}")]
    Tls(String),
    /// The response body ended before the promised length.
    #[error("the response body ended after {got} of {expected} bytes")]
    ShortBody {
        /// Bytes promised (by Content-Range or the file length).
        expected: u64,
        /// Bytes received.
        got: u64,
    },
    /// The file on the server is not the one that was opened (ETag, Last-Modified or length
    /// changed, or the server answered 412 to `If-Match`/`If-Unmodified-Since`).
    #[error("the file changed on the server since it was opened ({0}); reopen it")]
    Changed(String),
    /// The server ignores `Range` and the file is too large to take whole.
    #[error("the server ignores Range requests and the file ({}) is larger than the {limit} bytes this reader takes in one piece; serve it from a host that supports byte ranges", len.map_or_else(|| "unknown length".to_owned(), |n| format!("{n} bytes")))]
    RangeNotSupported {
        /// File length, when the server told it.
        len: Option<u64>,
        /// [`crate::HttpOptions::whole_body_limit`].
        limit: u64,
    },
    /// The server answered something this reader cannot trust: a wrong `Content-Range`, an
    /// encoded body, a missing length, a body longer than announced.
    #[error("invalid response: {0}")]
    Protocol(String),
    /// More redirects than [`crate::HttpOptions::max_redirects`].
    #[error("too many redirects (more than {0})")]
    TooManyRedirects(u32),
    /// An `https://` file redirected to plain `http://`: its bytes would travel unprotected.
    #[error("refused a redirect from https to plain http ({0})")]
    Downgrade(String),
    /// A redirect the reader does not follow: to a loopback, private or other non-public
    /// address while the URL given is public, or to another host (see
    /// [`crate::HttpOptions::cross_host_redirects`]).
    #[error("refused a redirect from {from} to {to}: {why}")]
    RedirectRefused {
        /// The URL that answered with the redirect.
        from: String,
        /// Where it pointed.
        to: String,
        /// Why it is refused.
        why: crate::RedirectRefusal,
    },
    /// The server sends neither `ETag` nor `Last-Modified`, so a change of the file between two
    /// range reads could not be noticed.
    #[error("the server gives no ETag or Last-Modified for the file, so a change between two reads could not be noticed; serve it from a host that sends one")]
    NoValidator,
    /// The read would pass the reader's byte budget ([`crate::HttpOptions::byte_budget`]).
    #[error("reading {wanted} more bytes would pass this file's read budget ({fetched} of {budget} bytes already fetched); raise the budget to read on")]
    BudgetExceeded {
        /// The budget in bytes.
        budget: u64,
        /// Bytes fetched so far.
        fetched: u64,
        /// Bytes the refused read needed.
        wanted: u64,
    },
    /// A read outside the file.
    #[error(
        "read of {len} bytes at offset {offset} is past the end of the file ({file_len} bytes)"
    )]
    OutOfBounds {
        /// Requested offset.
        offset: u64,
        /// Requested length.
        len: u64,
        /// File length.
        file_len: u64,
    },
}

fn reason(status: u16) -> String {
    ureq::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map_or_else(String::new, |r| format!(" {r}"))
}

impl HttpErrorKind {
    /// For a redirect refused only because it leads to another host: `(from, to, host)`, the
    /// host being what to add to [`crate::HttpOptions::redirect_hosts`] (after asking the user)
    /// to follow it. `None` for every other error, other refusals (a loopback or private
    /// address, a downgrade) included: those stay refused.
    pub fn refused_host(&self) -> Option<(&str, &str, String)> {
        match self {
            Self::RedirectRefused {
                from,
                to,
                why: crate::RedirectRefusal::OtherHost,
            } => Some((from, to, crate::redirect_host(to)?)),
            _ => None,
        }
    }

    /// Whether retrying the same request may succeed: timeouts, resets, short bodies, 5xx
    /// gateway/server errors, 408 and 429.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Timeout(_) | Self::Connection(_) | Self::ShortBody { .. } => true,
            Self::Status { status } => matches!(status, 408 | 429 | 500 | 502 | 503 | 504),
            _ => false,
        }
    }

    fn io_kind(&self) -> std::io::ErrorKind {
        use std::io::ErrorKind as K;
        match self {
            Self::InvalidUrl(_) => K::InvalidInput,
            Self::Status { status: 404 | 410 } => K::NotFound,
            Self::Status { status: 401 | 403 } => K::PermissionDenied,
            Self::Timeout(_) => K::TimedOut,
            Self::Connection(_) => K::ConnectionReset,
            Self::ShortBody { .. } | Self::OutOfBounds { .. } => K::UnexpectedEof,
            Self::Protocol(_) | Self::Changed(_) | Self::NoValidator => K::InvalidData,
            Self::Downgrade(_) | Self::RedirectRefused { .. } => K::PermissionDenied,
            _ => K::Other,
        }
    }
}

impl HttpError {
    pub(crate) fn new(url: &str, kind: HttpErrorKind) -> Self {
        Self {
            url: url.to_owned(),
            kind,
            attempts: 1,
        }
    }

    /// The `HttpError` carried by a [`RangeError`] that an [`crate::HttpReader`] returned (for
    /// example inside [`rete_core::Error::Range`]), to tell a 404 from a changed file.
    pub fn from_range_error(e: &RangeError) -> Option<&HttpError> {
        e.io.as_ref()?.get_ref()?.downcast_ref()
    }
}

impl From<HttpError> for RangeError {
    fn from(e: HttpError) -> Self {
        RangeError {
            source_name: e.url.clone(),
            message: format!("{}{}", e.kind, Attempts(e.attempts)),
            io: Some(std::io::Error::new(e.kind.io_kind(), e)),
        }
    }
}
