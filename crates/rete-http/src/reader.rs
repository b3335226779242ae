//! [`HttpReader`]: a [`RangeReader`] over HTTP range requests.

use crate::cache::{Lookup, RangeCache};
use crate::error::{HttpError, HttpErrorKind};
use crate::{is_url, HttpOptions};
use rete_core::{RangeError, RangeReader, ReadStats};
use std::fmt;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;
use ureq::http::HeaderMap;
use ureq::Agent;

/// The identity of the file as first seen: every later response must agree with it.
#[derive(Debug, Clone, Default)]
struct Version {
    len: u64,
    etag: Option<String>,
    last_modified: Option<String>,
}

/// One successful response.
#[derive(Debug)]
struct Reply {
    body: ReplyBody,
    etag: Option<String>,
    last_modified: Option<String>,
}

#[derive(Debug)]
enum ReplyBody {
    /// 206: bytes at `start`; `total` from `Content-Range` (`None` for `bytes a-b/*`).
    Range {
        start: u64,
        data: Vec<u8>,
        total: Option<u64>,
    },
    /// 200 to a ranged request: the server ignored `Range`; this is the whole file.
    Whole(Vec<u8>),
    /// 416 with `Content-Range: bytes */0` at open: the file is empty.
    Empty,
}

/// The HTTP side: one agent (connection pool) and the request counters.
struct Client {
    url: String,
    agent: Agent,
    opts: HttpOptions,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl Client {
    /// GET `[start, end)`, retrying transient failures with exponential backoff.
    fn get(&self, start: u64, end: u64, known: Option<&Version>) -> Result<Reply, HttpError> {
        let mut attempts = 1;
        loop {
            match self.try_get(start, end, known) {
                Ok(reply) => return Ok(reply),
                Err(kind) if kind.is_transient() && attempts <= self.opts.retries => {
                    std::thread::sleep(self.backoff(attempts));
                    attempts += 1;
                }
                Err(kind) => {
                    return Err(HttpError {
                        url: self.url.clone(),
                        kind,
                        attempts,
                    })
                }
            }
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32 << (attempt.saturating_sub(1)).min(16);
        self.opts
            .backoff
            .saturating_mul(factor)
            .min(self.opts.max_backoff)
    }

    fn try_get(
        &self,
        start: u64,
        end: u64,
        known: Option<&Version>,
    ) -> Result<Reply, HttpErrorKind> {
        let mut req = self
            .agent
            .get(&self.url)
            .header("Range", format!("bytes={start}-{}", end - 1))
            // Ranges address the stored bytes: a compressed representation would shift them.
            .header("Accept-Encoding", "identity");
        if let Some(v) = known {
            // Preconditions make the server refuse (412) to serve another version of the file.
            // `If-Match` needs a strong ETag; Last-Modified is the fallback.
            if let Some(tag) = v.etag.as_deref().filter(|t| !t.starts_with("W/")) {
                req = req.header("If-Match", tag);
            } else if let Some(lm) = &v.last_modified {
                req = req.header("If-Unmodified-Since", lm);
            }
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let resp = req.call().map_err(|e| self.transport_error(e))?;
        let status = resp.status().as_u16();
        let headers = resp.headers();
        let etag = header(headers, "etag");
        let last_modified = header(headers, "last-modified");
        if (200..300).contains(&status) {
            if let Some(v) = known {
                same_version(v, etag.as_deref(), last_modified.as_deref())?;
            }
            if let Some(enc) = header(headers, "content-encoding") {
                if !enc.eq_ignore_ascii_case("identity") {
                    return Err(HttpErrorKind::Protocol(format!(
                        "the body is encoded ({enc}); byte ranges need the stored bytes"
                    )));
                }
            }
        }
        let body = match status {
            206 => {
                let cr = header(headers, "content-range").ok_or_else(|| {
                    HttpErrorKind::Protocol("206 Partial Content without Content-Range".into())
                })?;
                let (a, b, total) = parse_content_range(&cr).ok_or_else(|| {
                    HttpErrorKind::Protocol(format!("cannot parse Content-Range {cr:?}"))
                })?;
                if let (Some(v), Some(t)) = (known, total) {
                    if t != v.len {
                        return Err(HttpErrorKind::Changed(format!(
                            "its length went from {} to {t} bytes",
                            v.len
                        )));
                    }
                }
                // At open the length is unknown and the server clips the range at the end.
                let want_end = match (known, total) {
                    (None, Some(t)) => end.min(t),
                    _ => end,
                };
                if a != start || b.checked_add(1) != Some(want_end) {
                    return Err(HttpErrorKind::Protocol(format!(
                        "asked for bytes {start}-{}, got Content-Range {cr:?}",
                        want_end.saturating_sub(1)
                    )));
                }
                let data = self.read_body(resp, want_end - start)?;
                ReplyBody::Range { start, data, total }
            }
            200 => {
                let limit = self.opts.whole_body_limit;
                let declared = header(headers, "content-length").and_then(|s| s.parse().ok());
                if let (Some(v), Some(d)) = (known, declared) {
                    if d != v.len {
                        return Err(HttpErrorKind::Changed(format!(
                            "its length went from {} to {d} bytes",
                            v.len
                        )));
                    }
                }
                let len = known.map(|v| v.len).or(declared);
                if len.is_some_and(|n| n > limit) {
                    return Err(HttpErrorKind::RangeNotSupported { len, limit });
                }
                match len {
                    Some(n) => ReplyBody::Whole(self.read_body(resp, n)?),
                    None => {
                        // No length announced (chunked): read one byte past the limit to know.
                        let data = self.read_up_to(resp, limit + 1)?;
                        if data.len() as u64 > limit {
                            return Err(HttpErrorKind::RangeNotSupported { len: None, limit });
                        }
                        ReplyBody::Whole(data)
                    }
                }
            }
            412 => {
                return Err(HttpErrorKind::Changed(
                    "the server answered 412 Precondition Failed".into(),
                ))
            }
            416 => {
                let total = header(headers, "content-range")
                    .and_then(|cr| cr.strip_prefix("bytes */")?.trim().parse::<u64>().ok());
                return match (known, total) {
                    (None, Some(0)) => Ok(Reply {
                        body: ReplyBody::Empty,
                        etag,
                        last_modified,
                    }),
                    (Some(v), Some(t)) if t != v.len => Err(HttpErrorKind::Changed(format!(
                        "its length went from {} to {t} bytes",
                        v.len
                    ))),
                    _ => Err(HttpErrorKind::Protocol(format!(
                        "416 Range Not Satisfiable for bytes {start}-{}",
                        end - 1
                    ))),
                };
            }
            status => return Err(HttpErrorKind::Status { status }),
        };
        Ok(Reply {
            body,
            etag,
            last_modified,
        })
    }

    /// Reads exactly `n` body bytes: fewer is a (retryable) short body, more a protocol error.
    fn read_body(
        &self,
        resp: ureq::http::Response<ureq::Body>,
        n: u64,
    ) -> Result<Vec<u8>, HttpErrorKind> {
        let data = self.read_up_to(resp, n + 1).map_err(|e| match e {
            HttpErrorKind::ShortBody { got, .. } => HttpErrorKind::ShortBody { expected: n, got },
            e => e,
        })?;
        match (data.len() as u64).cmp(&n) {
            std::cmp::Ordering::Equal => Ok(data),
            std::cmp::Ordering::Less => Err(HttpErrorKind::ShortBody {
                expected: n,
                got: data.len() as u64,
            }),
            std::cmp::Ordering::Greater => Err(HttpErrorKind::Protocol(format!(
                "the body is longer than the {n} bytes announced"
            ))),
        }
    }

    fn read_up_to(
        &self,
        resp: ureq::http::Response<ureq::Body>,
        max: u64,
    ) -> Result<Vec<u8>, HttpErrorKind> {
        let mut data = Vec::with_capacity(usize::try_from(max.min(1 << 24)).unwrap_or(0));
        let res = resp
            .into_body()
            .into_reader()
            .take(max)
            .read_to_end(&mut data);
        self.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
        match res {
            Ok(_) => Ok(data),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Err(HttpErrorKind::Timeout(
                format!("body stalled after {} bytes: {e}", data.len()),
            )),
            Err(_) => Err(HttpErrorKind::ShortBody {
                expected: max,
                got: data.len() as u64,
            }),
        }
    }

    fn transport_error(&self, e: ureq::Error) -> HttpErrorKind {
        use std::io::ErrorKind as K;
        match e {
            ureq::Error::Timeout(t) => HttpErrorKind::Timeout(t.to_string()),
            ureq::Error::Io(e) if matches!(e.kind(), K::TimedOut | K::WouldBlock) => {
                HttpErrorKind::Timeout(e.to_string())
            }
            ureq::Error::Io(e) => HttpErrorKind::Connection(e.to_string()),
            ureq::Error::ConnectionFailed => HttpErrorKind::Connection("no connection".into()),
            ureq::Error::HostNotFound => HttpErrorKind::HostNotFound,
            ureq::Error::BadUri(s) => HttpErrorKind::InvalidUrl(s),
            ureq::Error::TooManyRedirects => {
                HttpErrorKind::TooManyRedirects(self.opts.max_redirects)
            }
            ureq::Error::Tls(s) => HttpErrorKind::Tls(s.to_owned()),
            ureq::Error::Rustls(e) => HttpErrorKind::Tls(e.to_string()),
            ureq::Error::StatusCode(status) => HttpErrorKind::Status { status },
            e => HttpErrorKind::Protocol(e.to_string()),
        }
    }
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)?.to_str().ok().map(|s| s.trim().to_owned())
}

/// Weak comparison (RFC 9110 §8.8.3.2): `W/"x"` and `"x"` name the same version.
fn same_etag(a: &str, b: &str) -> bool {
    a.trim_start_matches("W/") == b.trim_start_matches("W/")
}

/// Checks a response against the version seen at open. ETags win when both sides have one;
/// Last-Modified is compared otherwise.
fn same_version(
    v: &Version,
    etag: Option<&str>,
    last_modified: Option<&str>,
) -> Result<(), HttpErrorKind> {
    match (v.etag.as_deref(), etag) {
        (Some(a), Some(b)) if !same_etag(a, b) => {
            Err(HttpErrorKind::Changed(format!("ETag {a} became {b}")))
        }
        (Some(_), Some(_)) => Ok(()),
        _ => match (v.last_modified.as_deref(), last_modified) {
            (Some(a), Some(b)) if a != b => Err(HttpErrorKind::Changed(format!(
                "Last-Modified {a} became {b}"
            ))),
            _ => Ok(()),
        },
    }
}

/// Parses `bytes a-b/total` or `bytes a-b/*` (public for the fuzz target).
pub fn parse_content_range(s: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = s.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (a, b) = range.trim().split_once('-')?;
    let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    if a > b || total.is_some_and(|t| b >= t) {
        return None;
    }
    Some((a, b, total))
}

/// Merges sorted `[start, end)` ranges that overlap or lie at most `gap` bytes apart.
fn coalesce(sorted: &[(u64, u64)], gap: u64) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &(s, e) in sorted {
        match out.last_mut() {
            Some(last) if s <= last.1.saturating_add(gap) => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// A `.rete` (or any file) on a web server, read through HTTP range requests.
///
/// Opening costs one request (a ranged GET of the first [`HttpOptions::prefetch`] bytes, which
/// also tells the length and the ETag/Last-Modified). Every read then goes through a shared,
/// byte-bounded LRU cache of fetched ranges; `read_many` fetches the missing parts of all its
/// ranges with as few requests as possible. Cheap to share between threads (`Arc<HttpReader>`).
pub struct HttpReader {
    client: Client,
    version: Version,
    /// The whole file, when the server ignores `Range` and the file is small enough.
    whole: OnceLock<Arc<[u8]>>,
    cache: Mutex<RangeCache>,
}

impl fmt::Debug for HttpReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpReader")
            .field("url", &self.client.url)
            .field("len", &self.version.len)
            .field("etag", &self.version.etag)
            .field("last_modified", &self.version.last_modified)
            .field("ranges_supported", &self.ranges_supported())
            .field("stats", &self.stats())
            .finish()
    }
}

impl HttpReader {
    /// Opens `url` with default options.
    pub fn open(url: &str) -> Result<Self, HttpError> {
        Self::open_with(url, HttpOptions::default())
    }

    /// Opens `url`: one ranged GET of the first `opts.prefetch` bytes, kept in the cache.
    pub fn open_with(url: &str, opts: HttpOptions) -> Result<Self, HttpError> {
        if !is_url(url) {
            return Err(HttpError::new(
                url,
                HttpErrorKind::InvalidUrl("expected an http:// or https:// URL".into()),
            ));
        }
        let agent: Agent = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(opts.max_redirects)
            .timeout_connect(Some(opts.connect_timeout))
            .timeout_per_read(Some(opts.read_timeout))
            .timeout_per_call(opts.request_timeout)
            .user_agent(opts.user_agent.as_str())
            .build()
            .into();
        let client = Client {
            url: url.to_owned(),
            agent,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            opts,
        };
        let cache = RangeCache::new(client.opts.cache_bytes);
        let reply = client.get(0, client.opts.prefetch.max(1) as u64, None)?;
        let mut reader = Self {
            version: Version {
                len: 0,
                etag: reply.etag,
                last_modified: reply.last_modified,
            },
            client,
            whole: OnceLock::new(),
            cache: Mutex::new(cache),
        };
        match reply.body {
            ReplyBody::Range { total: None, .. } => {
                return Err(HttpError::new(
                    url,
                    HttpErrorKind::Protocol(
                        "the server does not tell the file length (Content-Range bytes a-b/*)"
                            .into(),
                    ),
                ));
            }
            ReplyBody::Range {
                start,
                data,
                total: Some(total),
            } => {
                reader.version.len = total;
                reader.cache().insert(start, data.into());
            }
            ReplyBody::Whole(data) => {
                reader.version.len = data.len() as u64;
                let _ = reader.whole.set(data.into());
            }
            ReplyBody::Empty => {}
        }
        Ok(reader)
    }

    /// The URL this reader was opened with.
    pub fn url(&self) -> &str {
        &self.client.url
    }

    /// The ETag the server gave at open, if any.
    pub fn etag(&self) -> Option<&str> {
        self.version.etag.as_deref()
    }

    /// The Last-Modified date the server gave at open, if any.
    pub fn last_modified(&self) -> Option<&str> {
        self.version.last_modified.as_deref()
    }

    /// `false` when the server ignored `Range` and the whole (small) file is held in memory.
    pub fn ranges_supported(&self) -> bool {
        self.whole.get().is_none()
    }

    /// HTTP requests sent (every attempt counts) and body bytes received since open or the last
    /// [`HttpReader::reset_stats`].
    pub fn stats(&self) -> ReadStats {
        ReadStats {
            requests: self.client.requests.load(Ordering::Relaxed),
            bytes: self.client.bytes.load(Ordering::Relaxed),
        }
    }

    /// Resets the counters of [`HttpReader::stats`] to zero.
    pub fn reset_stats(&self) {
        self.client.requests.store(0, Ordering::Relaxed);
        self.client.bytes.store(0, Ordering::Relaxed);
    }

    /// Drops every cached range (the open prefetch included).
    pub fn clear_cache(&self) {
        *self.cache() = RangeCache::new(self.client.opts.cache_bytes);
    }

    fn cache(&self) -> MutexGuard<'_, RangeCache> {
        // The cache holds no invariant a panicking reader could break halfway.
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads `[offset, offset + len)` for every range: cached bytes are reused, the missing parts
    /// of all ranges are merged (overlapping, adjacent or within `coalesce_gap`) and fetched,
    /// one request per merged span.
    pub fn fetch(&self, ranges: &[(u64, usize)]) -> Result<Vec<Vec<u8>>, HttpError> {
        for &(offset, len) in ranges {
            if offset
                .checked_add(len as u64)
                .is_none_or(|e| e > self.version.len)
            {
                return Err(HttpError::new(
                    &self.client.url,
                    HttpErrorKind::OutOfBounds {
                        offset,
                        len: len as u64,
                        file_len: self.version.len,
                    },
                ));
            }
        }
        if let Some(whole) = self.whole.get() {
            return Ok(ranges
                .iter()
                .map(|&(o, l)| whole[o as usize..o as usize + l].to_vec())
                .collect());
        }
        let lookups: Vec<Lookup> = {
            let mut cache = self.cache();
            ranges
                .iter()
                .map(|&(o, l)| {
                    if l == 0 {
                        Lookup::default()
                    } else {
                        cache.lookup(o, o + l as u64)
                    }
                })
                .collect()
        };
        let mut gaps: Vec<(u64, u64)> = lookups.iter().flat_map(|l| l.gaps.clone()).collect();
        gaps.sort_unstable();
        let mut fetched: Vec<(u64, Arc<[u8]>)> = Vec::new();
        for (start, end) in coalesce(&gaps, self.client.opts.coalesce_gap) {
            let reply = self.client.get(start, end, Some(&self.version))?;
            match reply.body {
                ReplyBody::Range { data, .. } => fetched.push((start, data.into())),
                ReplyBody::Whole(data) => {
                    // The server stopped honouring Range; the file is small enough to keep.
                    self.whole.get_or_init(|| data.into());
                    return self.fetch(ranges);
                }
                ReplyBody::Empty => {
                    return Err(HttpError::new(
                        &self.client.url,
                        HttpErrorKind::Protocol("unexpected empty-file answer".into()),
                    ))
                }
            }
        }
        if !fetched.is_empty() {
            let mut cache = self.cache();
            for (start, data) in &fetched {
                cache.insert(*start, data.clone());
            }
        }
        ranges
            .iter()
            .zip(&lookups)
            .map(|(&(o, l), lookup)| {
                assemble(o, l, &lookup.hits, &fetched).ok_or_else(|| {
                    HttpError::new(
                        &self.client.url,
                        HttpErrorKind::Protocol(format!(
                            "bytes {o}+{l} were not covered by the fetched ranges"
                        )),
                    )
                })
            })
            .collect()
    }
}

/// Copies `[offset, offset + len)` out of cached `hits` and `fetched` spans (both sorted by
/// start); `None` if some byte is covered by neither.
fn assemble(
    offset: u64,
    len: usize,
    hits: &[(u64, Arc<[u8]>)],
    fetched: &[(u64, Arc<[u8]>)],
) -> Option<Vec<u8>> {
    let end = offset + len as u64;
    let first = fetched.partition_point(|(s, d)| s + d.len() as u64 <= offset);
    let mut parts: Vec<&(u64, Arc<[u8]>)> = hits
        .iter()
        .chain(fetched[first..].iter().take_while(|(s, _)| *s < end))
        .collect();
    parts.sort_by_key(|p| p.0);
    let mut out = Vec::with_capacity(len);
    let mut pos = offset;
    for (s, d) in parts {
        if pos == end || *s > pos {
            break;
        }
        let e = (s + d.len() as u64).min(end);
        if e > pos {
            out.extend_from_slice(&d[(pos - s) as usize..(e - s) as usize]);
            pos = e;
        }
    }
    (pos == end).then_some(out)
}

impl RangeReader for HttpReader {
    fn len(&self) -> u64 {
        self.version.len
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        Ok(self
            .fetch(&[(offset, len)])?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    fn read_many(&self, ranges: &[(u64, usize)]) -> Result<Vec<Vec<u8>>, RangeError> {
        Ok(self.fetch(ranges)?)
    }

    fn name(&self) -> &str {
        &self.client.url
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range() {
        assert_eq!(
            parse_content_range("bytes 0-99/1000"),
            Some((0, 99, Some(1000)))
        );
        assert_eq!(parse_content_range("bytes 5-5/*"), Some((5, 5, None)));
        assert_eq!(parse_content_range("bytes 10-5/100"), None);
        assert_eq!(parse_content_range("bytes 0-100/100"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
        assert_eq!(parse_content_range("bytes */100"), None);
    }

    #[test]
    fn coalescing() {
        let spans = coalesce(&[(0, 10), (5, 20), (20, 30), (40, 50), (100, 110)], 10);
        assert_eq!(spans, vec![(0, 50), (100, 110)]);
        assert_eq!(coalesce(&[(0, 10), (11, 20)], 0), vec![(0, 10), (11, 20)]);
    }

    #[test]
    fn versions() {
        let v = Version {
            len: 1,
            etag: Some("\"a\"".into()),
            last_modified: Some("x".into()),
        };
        assert!(same_version(&v, Some("W/\"a\""), Some("y")).is_ok());
        assert!(same_version(&v, Some("\"b\""), Some("x")).is_err());
        assert!(same_version(&v, None, Some("y")).is_err());
        assert!(same_version(&v, None, None).is_ok());
    }

    #[test]
    fn assembling() {
        let a: Arc<[u8]> = Arc::from(&[0u8, 1, 2, 3][..]);
        let b: Arc<[u8]> = Arc::from(&[4u8, 5, 6][..]);
        let parts = [(0, a), (4, b)];
        assert_eq!(
            assemble(2, 4, &parts[..1], &parts[1..]),
            Some(vec![2, 3, 4, 5])
        );
        assert_eq!(assemble(2, 6, &parts[..1], &parts[1..]), None);
        assert_eq!(assemble(5, 0, &[], &[]), Some(vec![]));
    }
}
