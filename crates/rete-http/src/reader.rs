//! [`HttpReader`]: a [`RangeReader`] over HTTP range requests.

use crate::cache::{Lookup, RangeCache};
use crate::error::{HttpError, HttpErrorKind};
use crate::redirect::{is_local, redirect_allowed, resolve, Guard, Rebound, RedirectRefusal};
use crate::{is_url, HttpOptions};
use rete_core::{RangeError, RangeReader, ReadStats};
use std::fmt;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use ureq::http::HeaderMap;
use ureq::Agent;
use url::Url;

mod client;
mod multipart;
pub use client::parse_content_range;
use client::*;

/// Merges sorted `[start, end)` ranges that overlap or lie at most `gap` bytes apart. With
/// `bounded` (the spans go out in multi-range requests, where a span more costs a few bytes, not
/// a request), also no further apart than the larger of the two is long: the bytes fetched
/// between them are then a readahead worth a block of their size (16 KiB blocks are read through
/// up to 16 KiB, 2 KiB dictionary blocks through 2 KiB).
fn coalesce(sorted: &[(u64, u64)], gap: u64, bounded: bool) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut prev_len = 0;
    for &(s, e) in sorted {
        let len = e.saturating_sub(s);
        let gap = if bounded {
            gap.min(prev_len.max(len))
        } else {
            gap
        };
        match out.last_mut() {
            Some(last) if s <= last.1.saturating_add(gap) => {
                last.1 = last.1.max(e);
            }
            _ => out.push((s, e)),
        }
        prev_len = len;
    }
    out
}

/// What a batch of spans brought.
enum Fetched {
    /// (first offset, bytes), sorted by offset, disjoint.
    Pieces(Vec<(u64, Arc<[u8]>)>),
    /// The whole file: the server ignored `Range`.
    Whole(Vec<u8>),
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
        let client = Client::new(url, opts, None).map_err(|kind| HttpError::new(url, kind))?;
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
                if reader.version.etag.is_none() && reader.version.last_modified.is_none() {
                    return Err(HttpError::new(url, HttpErrorKind::NoValidator));
                }
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

    /// Body bytes fetched since open, the ones counted against the budget (not reset by
    /// [`HttpReader::reset_stats`]).
    pub fn fetched(&self) -> u64 {
        self.client.fetched.load(Ordering::Relaxed)
    }

    /// The byte budget ([`HttpOptions::byte_budget`]); `None` for no limit.
    pub fn budget(&self) -> Option<u64> {
        Some(self.client.budget.load(Ordering::Relaxed)).filter(|&b| b != u64::MAX)
    }

    /// Sets the byte budget (`None`: no limit), for example once the user agreed to a large read.
    pub fn set_budget(&self, budget: Option<u64>) {
        self.client
            .budget
            .store(budget.unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Resets the counters of [`HttpReader::stats`] to zero.
    pub fn reset_stats(&self) {
        self.client.requests.store(0, Ordering::Relaxed);
        self.client.bytes.store(0, Ordering::Relaxed);
    }

    /// Bytes of fetched ranges held in the cache now, and its bound ([`HttpOptions::cache_bytes`]).
    pub fn cache_use(&self) -> (usize, usize) {
        let c = self.cache();
        (c.bytes(), c.cap())
    }

    /// Drops every cached range (the open prefetch included).
    pub fn clear_cache(&self) {
        *self.cache() = RangeCache::new(self.client.opts.cache_bytes);
    }

    /// Runs `get` on every item, several at once on up to [`HttpOptions::parallel`]
    /// connections (each thread taking every n-th item); answers in the items' order.
    fn in_parallel<T: Sync, R: Send>(
        &self,
        items: &[T],
        get: impl Fn(&T) -> Result<R, HttpError> + Sync,
    ) -> Result<Vec<R>, HttpError> {
        let threads = self.client.opts.parallel.clamp(1, items.len().max(1));
        if threads == 1 {
            return items.iter().map(get).collect();
        }
        let mut slots: Vec<Option<Result<R, HttpError>>> = Vec::new();
        slots.resize_with(items.len(), || None);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    let get = &get;
                    scope.spawn(move || {
                        items
                            .iter()
                            .enumerate()
                            .skip(t)
                            .step_by(threads)
                            .map(|(i, item)| (i, get(item)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for w in workers {
                // A worker only panics if `get` does; then the item is reported missing below.
                if let Ok(done) = w.join() {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                }
            }
        });
        slots
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    Err(HttpError {
                        url: self.client.url.clone(),
                        kind: HttpErrorKind::Protocol("a parallel fetch did not finish".into()),
                        attempts: 1,
                    })
                })
            })
            .collect()
    }

    /// Fetches `spans` (`[start, end)`, sorted, disjoint). Several spans go out as multi-range
    /// requests of up to [`HttpOptions::ranges_per_request`] spans each, or, once the server
    /// has refused one, one span per request; either way several requests run at once (see
    /// [`Self::in_parallel`]). The budget is checked for the whole batch first, so a batch that
    /// cannot fit fetches nothing.
    fn get_spans(&self, spans: &[(u64, u64)]) -> Result<Fetched, HttpError> {
        if spans.len() > 1 {
            let total = spans.iter().map(|(s, e)| e - s).sum();
            self.client.spend(total).map_err(|kind| HttpError {
                url: self.client.url.clone(),
                kind,
                attempts: 1,
            })?;
        }
        let mut pieces: Vec<(u64, Arc<[u8]>)> = Vec::with_capacity(spans.len());
        let mut singles: Vec<(u64, u64)> = Vec::new();
        if spans.len() > 1 && self.client.multi_allowed() {
            let groups: Vec<&[(u64, u64)]> = spans
                .chunks(self.client.opts.ranges_per_request.max(2))
                .collect();
            let answers = self.in_parallel(&groups, |g| self.client.get_multi(g, &self.version))?;
            for (group, answer) in groups.iter().zip(answers) {
                match answer {
                    Multi::Parts(parts) => {
                        pieces.extend(parts.into_iter().map(|(s, d)| (s, Arc::from(d))));
                    }
                    Multi::Whole(data) => return Ok(Fetched::Whole(data)),
                    Multi::Unsupported => singles.extend_from_slice(group),
                }
            }
            // A server without multi-range requests: one request a span, so merged as far as
            // the gap allows.
            singles = coalesce(&singles, self.client.opts.coalesce_gap, false);
        } else {
            singles = spans.to_vec();
        }
        let replies = self.in_parallel(&singles, |&(s, e)| {
            self.client.get(s, e, Some(&self.version))
        })?;
        for (&(start, _), reply) in singles.iter().zip(replies) {
            match reply.body {
                ReplyBody::Range { data, .. } => pieces.push((start, data.into())),
                ReplyBody::Whole(data) => return Ok(Fetched::Whole(data)),
                ReplyBody::Empty => {
                    return Err(HttpError::new(
                        &self.client.url,
                        HttpErrorKind::Protocol("unexpected empty-file answer".into()),
                    ))
                }
            }
        }
        pieces.sort_unstable_by_key(|p| p.0);
        Ok(Fetched::Pieces(pieces))
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
        let spans = coalesce(
            &gaps,
            self.client.opts.coalesce_gap,
            self.client.multi_allowed(),
        );
        let fetched = match self.get_spans(&spans)? {
            Fetched::Pieces(pieces) => pieces,
            Fetched::Whole(data) => {
                // The server stopped honouring Range; the file is small enough to keep.
                self.whole.get_or_init(|| data.into());
                return self.fetch(ranges);
            }
        };
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

    fn is_remote(&self) -> bool {
        true
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
        for bounded in [false, true] {
            let spans = coalesce(
                &[(0, 10), (5, 20), (20, 30), (40, 50), (100, 110)],
                10,
                bounded,
            );
            assert_eq!(spans, vec![(0, 50), (100, 110)]);
            let apart = coalesce(&[(0, 10), (11, 20)], 0, bounded);
            assert_eq!(apart, vec![(0, 10), (11, 20)]);
        }
        // Bounded: no further than the larger neighbour is long.
        assert_eq!(
            coalesce(&[(0, 10), (30, 40), (45, 50)], 100, true),
            vec![(0, 10), (30, 50)]
        );
        assert_eq!(coalesce(&[(0, 10), (30, 60)], 100, true), vec![(0, 60)]);
        assert_eq!(coalesce(&[(0, 10), (30, 40)], 100, false), vec![(0, 40)]);
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
        // Once the file is open, its validator must be on every response.
        assert!(same_version(&v, None, None).is_err());
        assert!(same_version(&v, None, Some("x")).is_err());
        let lm = Version {
            len: 1,
            etag: None,
            last_modified: Some("x".into()),
        };
        assert!(same_version(&lm, None, Some("x")).is_ok());
        assert!(same_version(&lm, Some("\"a\""), Some("y")).is_err());
        assert!(same_version(&lm, Some("\"a\""), None).is_err());
    }

    #[test]
    fn https_never_redirects_to_http() {
        let opts = HttpOptions::default();
        assert!(agent("https://example.org/a.rete", &opts)
            .config()
            .https_only());
        assert!(agent("HTTPS://example.org/a.rete", &opts)
            .config()
            .https_only());
        // Plain http may be upgraded to https by a redirect.
        assert!(!agent("http://example.org/a.rete", &opts)
            .config()
            .https_only());
        assert_eq!(
            Client::new("https://x/", opts.clone(), None)
                .unwrap()
                .transport_error(ureq::Error::RequireHttpsOnly("http://x/".into())),
            HttpErrorKind::Downgrade("http://x/".into())
        );
    }

    /// A TLS server on 127.0.0.1 (certificate for 127.0.0.1 from `tests/tls`, signed by the test
    /// CA) answering every request with a redirect to `location`.
    fn tls_redirect_server(location: String) -> u16 {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        use std::io::{BufRead, BufReader, Write};
        let certs =
            vec![CertificateDer::from_pem_slice(include_bytes!("../tests/tls/leaf.pem")).unwrap()];
        let key = PrivateKeyDer::from_pem_slice(include_bytes!("../tests/tls/leaf.key")).unwrap();
        let config = Arc::new(
            rustls::ServerConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap(),
        );
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for tcp in listener.incoming().flatten() {
                let conn = rustls::ServerConnection::new(config.clone()).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                let mut line = String::new();
                let mut r = BufReader::new(&mut tls);
                while r.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let _ = write!(
                    tls,
                    "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = tls.flush();
                tls.conn.send_close_notify();
                let _ = tls.flush();
            }
        });
        port
    }

    /// A plain-http server on 127.0.0.1 answering every request with a redirect to `location`.
    fn redirect_server(location: String) -> u16 {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for mut tcp in listener.incoming().flatten() {
                let mut line = String::new();
                let mut r = BufReader::new(&mut tcp);
                while r.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let _ = write!(
                    tcp,
                    "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
        });
        port
    }

    #[test]
    fn a_public_start_is_never_redirected_to_a_local_address_on_the_wire() {
        // The loopback target counts the connections it gets: it must get none.
        let target = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        target.set_nonblocking(true).unwrap();
        let b = target.local_addr().unwrap().port();
        for (to, ip) in [
            (format!("http://127.0.0.1:{b}/admin"), "127.0.0.1"),
            // A host name is resolved first: `localhost` is loopback too.
            (format!("http://localhost:{b}/admin"), ""),
        ] {
            let a = redirect_server(to.clone());
            let url = format!("http://127.0.0.1:{a}/file.rete");
            let opts = HttpOptions {
                retries: 0,
                // Not even another host allowed explicitly makes a local address reachable.
                cross_host_redirects: true,
                ..HttpOptions::default()
            };
            let client = Client::new(&url, opts, None).unwrap();
            // As if the user had given a public URL (no test can reach one).
            client.local_start.set(false).unwrap();
            let e = client.get(0, 100, None).unwrap_err();
            let HttpErrorKind::RedirectRefused {
                from,
                to: refused,
                why: RedirectRefusal::Address { ip: got, class },
            } = &e.kind
            else {
                panic!("{e}");
            };
            assert_eq!((from, refused), (&url, &to));
            assert_eq!(class, &crate::AddressClass::Loopback, "{e}");
            if !ip.is_empty() {
                assert_eq!(got.to_string(), ip);
            }
            let msg = e.to_string();
            assert!(
                msg.contains(&format!(
                    "refused a redirect from {url} to {to}: a loopback address"
                )),
                "{msg}"
            );
            assert_eq!(e.attempts, 1, "a refusal is not retried");
            assert!(target.accept().is_err(), "the local target was contacted");
        }
    }

    #[test]
    fn a_redirect_from_https_to_http_is_refused_on_the_wire() {
        // The plain-http target counts the connections it gets: it must get none.
        let plain = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        plain.set_nonblocking(true).unwrap();
        let to = format!("http://{}/file.rete", plain.local_addr().unwrap());
        let port = tls_redirect_server(to.clone());
        let url = format!("https://127.0.0.1:{port}/file.rete");
        let ca = ureq::tls::Certificate::from_pem(include_bytes!("../tests/tls/ca.pem")).unwrap();
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::Specific(Arc::new(vec![ca])))
            .build();
        let opts = HttpOptions {
            retries: 0,
            ..HttpOptions::default()
        };
        let client = Client::new(&url, opts, Some(tls)).unwrap();
        let e = client.get(0, 100, None).unwrap_err();
        assert_eq!(e.kind, HttpErrorKind::Downgrade(to), "{e}");
        assert!(e.to_string().contains("https to plain http"), "{e}");
        assert!(
            plain.accept().is_err(),
            "the plain-http target was contacted"
        );
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
