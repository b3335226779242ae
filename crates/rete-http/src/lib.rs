#![doc = include_str!("../README.md")]

mod cache;
mod counted;
mod error;
mod reader;
mod redirect;
#[cfg(feature = "serve-dir")]
pub mod serve_dir;

pub use counted::CountedReader;
pub use error::{HttpError, HttpErrorKind};
pub use reader::{parse_content_range, HttpReader};
pub use redirect::{address_class, redirect_allowed, redirect_host, AddressClass, RedirectRefusal};
pub use rete_core::ReadStats;

use std::time::Duration;

/// Whether `s` is an `http://` or `https://` URL (as opposed to a local path).
pub fn is_url(s: &str) -> bool {
    ["http://", "https://"]
        .iter()
        .any(|p| s.len() > p.len() && s.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p)))
}

/// Tuning of an [`HttpReader`].
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Longest time to establish a connection (TCP and TLS).
    pub connect_timeout: Duration,
    /// Longest silence while waiting for response headers or body bytes: a stalled server fails
    /// (and is retried) after this.
    pub read_timeout: Duration,
    /// Longest time for one whole request (connection, redirects and body included), so a
    /// server that trickles bytes cannot hold a read forever; `None` for no limit.
    pub request_timeout: Option<Duration>,
    /// Retries after a transient failure (reset, timeout, short body, 408/429/500/502/503/504);
    /// `0` disables them.
    pub retries: u32,
    /// Delay before the first retry; doubled for each further retry.
    pub backoff: Duration,
    /// Upper bound on the delay between retries.
    pub max_backoff: Duration,
    /// Redirects followed per request (`0`: a redirect is an error). Every hop is checked: see
    /// [`redirect_allowed`].
    pub max_redirects: u32,
    /// Whether a redirect may lead to any other host or port than the one it comes from (never
    /// to a loopback, private or other non-public address unless the URL given is one). Off by
    /// default: such a redirect fails with [`HttpErrorKind::RedirectRefused`], and the caller
    /// may ask the user and reopen with the target's host in [`Self::redirect_hosts`] (see
    /// [`HttpErrorKind::refused_host`]), or open the target URL itself.
    pub cross_host_redirects: bool,
    /// Hosts a redirect may lead to although they are not the current one: `host` (any port)
    /// or `host:port` (IPv6 in brackets), compared without case. The address rules still
    /// apply: listing `127.0.0.1` does not let a public URL redirect there.
    pub redirect_hosts: Vec<String>,
    /// Bytes of fetched ranges kept in memory (LRU), shared by all queries on the file.
    pub cache_bytes: usize,
    /// Bytes fetched by the request at open and kept in the cache. Covers `Rete::open`'s first
    /// read (8 KiB by default), so opening a `.rete` costs one request.
    pub prefetch: usize,
    /// Missing ranges at most this many bytes apart are fetched in one request (the bytes in
    /// between are fetched too and cached).
    pub coalesce_gap: u64,
    /// Whether a batch of spans goes out as multi-range requests (`Range: bytes=a-b,c-d,…`,
    /// answered `multipart/byteranges`), so that blocks spread over the file cost one request.
    /// A server that refuses (416, only the first range, the whole large file) is then asked one
    /// span per request for the rest of the reader's life; the refusal costs one request.
    pub multi_range: bool,
    /// Most spans in one multi-range request (servers bound it: Apache's `MaxRanges` is 200).
    pub ranges_per_request: usize,
    /// Most requests in flight at once when one read needs several spans (a batch of blocks
    /// fetched ahead): they then cost about one round trip instead of one each. `1` fetches
    /// them one after the other.
    pub parallel: usize,
    /// Largest file accepted from a server that ignores `Range` (answers 200 with the whole
    /// body): such a file is held in memory; a larger one is an error.
    pub whole_body_limit: u64,
    /// Most bytes this reader fetches from the server over its life (cache hits are free);
    /// a read that would pass it fails with [`HttpErrorKind::BudgetExceeded`]. `None` for no
    /// limit. Raise it with [`HttpReader::set_budget`].
    pub byte_budget: Option<u64>,
    /// `User-Agent` header.
    pub user_agent: String,
}

/// The default [`HttpOptions::byte_budget`]: 1 GiB.
pub const DEFAULT_BYTE_BUDGET: u64 = 1 << 30;

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            request_timeout: Some(Duration::from_secs(120)),
            retries: 4,
            backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
            max_redirects: 5,
            cross_host_redirects: false,
            redirect_hosts: Vec::new(),
            cache_bytes: 64 << 20,
            prefetch: 16 << 10,
            coalesce_gap: 16 << 10,
            multi_range: true,
            ranges_per_request: 64,
            parallel: 6,
            whole_body_limit: 16 << 20,
            byte_budget: Some(DEFAULT_BYTE_BUDGET),
            user_agent: concat!("rete-http/", env!("CARGO_PKG_VERSION")).to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert!(is_url("http://example.org/a.rete"));
        assert!(is_url("HTTPS://example.org/a.rete"));
        assert!(!is_url("https://"));
        assert!(!is_url("samples/a.rete"));
        assert!(!is_url("file:///tmp/a.rete"));
        assert!(!is_url("C:\\data\\a.rete"));
        assert!(!is_url("ht€tp://x"));
    }
}
