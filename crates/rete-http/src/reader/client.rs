//! The HTTP side of [`super::HttpReader`]: ranged GETs with retries, the byte budget and
//! redirects followed hop by hop (each checked, `crate::redirect`), replies parsed, every response
//! checked against the file's first version, and the agent they go through.

use super::*;

/// The identity of the file as first seen: every later response must agree with it.
#[derive(Debug, Clone, Default)]
pub(super) struct Version {
    pub(super) len: u64,
    pub(super) etag: Option<String>,
    pub(super) last_modified: Option<String>,
}

/// One successful response.
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) body: ReplyBody,
    pub(super) etag: Option<String>,
    pub(super) last_modified: Option<String>,
}

#[derive(Debug)]
pub(super) enum ReplyBody {
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

/// The answer to a request for several ranges at once.
#[derive(Debug)]
pub(super) enum Multi {
    /// Pieces (first offset, bytes) in offset order, disjoint, covering every range asked for.
    Parts(Vec<(u64, Vec<u8>)>),
    /// 200: the server ignored `Range` and sent the whole (small) file.
    Whole(Vec<u8>),
    /// The server does not answer several ranges at once (416, only the first range, or the
    /// whole of a large file, left unread): ask one range per request.
    Unsupported,
}

/// [`Client::multi`]: not known yet, answered, refused.
const MULTI_UNKNOWN: u8 = 0;
const MULTI_YES: u8 = 1;
const MULTI_NO: u8 = 2;

/// The HTTP side: one agent (connection pool) and the request counters.
pub(super) struct Client {
    /// The URL as given (named in errors).
    pub(super) url: String,
    /// The URL as parsed: what is requested, and what redirects are checked against.
    pub(super) start: Url,
    /// Whether `start` points at a non-public address (resolved at the first redirect), shared
    /// with the agent's resolver ([`Guard`]).
    pub(super) local_start: Arc<OnceLock<bool>>,
    pub(super) agent: Agent,
    pub(super) opts: HttpOptions,
    pub(super) requests: AtomicU64,
    pub(super) bytes: AtomicU64,
    /// Body bytes received since open (never reset): what the budget counts.
    pub(super) fetched: AtomicU64,
    /// [`HttpOptions::byte_budget`], `u64::MAX` for none; raised by [`HttpReader::set_budget`].
    pub(super) budget: AtomicU64,
    /// Whether the server answers multi-range requests (`MULTI_*`), learnt from the first.
    multi: std::sync::atomic::AtomicU8,
}

impl Client {
    /// A client of `url`; `tls` replaces the TLS configuration (tests trust their own CA).
    pub(super) fn new(
        url: &str,
        opts: HttpOptions,
        tls: Option<ureq::tls::TlsConfig>,
    ) -> Result<Self, HttpErrorKind> {
        let start = Url::parse(url).map_err(|e| HttpErrorKind::InvalidUrl(e.to_string()))?;
        if start.host().is_none() {
            return Err(HttpErrorKind::InvalidUrl("no host".into()));
        }
        let guard = Guard::new(&start);
        Ok(Client {
            url: url.to_owned(),
            local_start: guard.local_start.clone(),
            agent: agent_with(url, &opts, tls, guard),
            start,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            fetched: AtomicU64::new(0),
            budget: AtomicU64::new(opts.byte_budget.unwrap_or(u64::MAX)),
            multi: std::sync::atomic::AtomicU8::new(MULTI_UNKNOWN),
            opts,
        })
    }

    /// GET `[start, end)`, retrying transient failures with exponential backoff.
    pub(super) fn get(
        &self,
        start: u64,
        end: u64,
        known: Option<&Version>,
    ) -> Result<Reply, HttpError> {
        self.retried(|| self.try_get(start, end, known))
    }

    /// GET every span of `spans` (sorted, disjoint) in one request, `Range: bytes=a-b,c-d,…`,
    /// retrying transient failures. Remembers whether the server answers such requests.
    pub(super) fn get_multi(
        &self,
        spans: &[(u64, u64)],
        known: &Version,
    ) -> Result<Multi, HttpError> {
        let got = self.retried(|| self.try_get_multi(spans, known))?;
        let state = match got {
            Multi::Unsupported => MULTI_NO,
            _ => MULTI_YES,
        };
        self.multi.store(state, Ordering::Relaxed);
        Ok(got)
    }

    /// Whether a batch of spans may go out as one multi-range request: allowed by the options
    /// and not yet refused by the server.
    pub(super) fn multi_allowed(&self) -> bool {
        self.opts.multi_range && self.multi.load(Ordering::Relaxed) != MULTI_NO
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries are spent, sleeping
    /// with exponential backoff between attempts.
    fn retried<T>(&self, attempt: impl Fn() -> Result<T, HttpErrorKind>) -> Result<T, HttpError> {
        let mut attempts = 1;
        loop {
            match attempt() {
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

    /// Sends the GET with `range` (a `Range` header value) and follows redirects hop by hop,
    /// each checked ([`redirect_allowed`]) before it is contacted.
    fn send(
        &self,
        range: &str,
        known: Option<&Version>,
    ) -> Result<ureq::http::Response<ureq::Body>, HttpErrorKind> {
        // One time budget for the whole request, redirects included (the body is read within
        // the last hop's).
        let deadline = self.opts.request_timeout.map(|t| Instant::now() + t);
        let mut url = self.start.clone();
        let mut from: Option<Url> = None;
        let mut hops = 0;
        // One request in the stats, however many hops it takes.
        self.requests.fetch_add(1, Ordering::Relaxed);
        loop {
            let mut req = self
                .agent
                .get(url.as_str())
                .header("Range", range)
                // Ranges address the stored bytes: a compressed representation would shift them.
                .header("Accept-Encoding", "identity");
            if let Some(v) = known {
                // Preconditions make the server refuse (412) to serve another version of the
                // file. `If-Match` needs a strong ETag; Last-Modified is the fallback.
                if let Some(tag) = v.etag.as_deref().filter(|t| !t.starts_with("W/")) {
                    req = req.header("If-Match", tag);
                } else if let Some(lm) = &v.last_modified {
                    req = req.header("If-Unmodified-Since", lm);
                }
            }
            if let Some(deadline) = deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(HttpErrorKind::Timeout(format!(
                        "the request took too long (after {hops} redirects)"
                    )));
                }
                req = req.config().timeout_global(Some(left)).build();
            }
            let resp = req.call().map_err(|e| match e {
                // The guard refused the address a redirect target resolved to when connecting.
                ureq::Error::Io(io) if io.get_ref().is_some_and(|i| i.is::<Rebound>()) => {
                    let r = io
                        .into_inner()
                        .and_then(|i| i.downcast::<Rebound>().ok())
                        .map_or(RedirectRefusal::OtherHost, |r| RedirectRefusal::Address {
                            ip: r.ip,
                            class: r.class,
                        });
                    HttpErrorKind::RedirectRefused {
                        from: from.as_ref().map_or_else(String::new, Url::to_string),
                        to: url.to_string(),
                        why: r,
                    }
                }
                e => self.transport_error(e),
            })?;
            if !matches!(resp.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
                return Ok(resp);
            }
            let location = header(resp.headers(), "location").ok_or_else(|| {
                HttpErrorKind::Protocol(format!("redirect {} without Location", resp.status()))
            })?;
            if hops >= self.opts.max_redirects {
                return Err(HttpErrorKind::TooManyRedirects(self.opts.max_redirects));
            }
            let to = url.join(&location).map_err(|e| {
                HttpErrorKind::Protocol(format!("cannot follow the redirect to {location:?}: {e}"))
            })?;
            // The hop's DNS lookups share the request's time: a name server that never
            // answers cannot hold the request past its deadline.
            let lookup = |u: &Url| {
                let wait = deadline.map_or(self.opts.connect_timeout, |d| {
                    d.saturating_duration_since(Instant::now())
                        .min(self.opts.connect_timeout)
                });
                resolve(u, wait).ok_or_else(|| {
                    HttpErrorKind::Timeout(format!(
                        "no answer from the name server for {} within {wait:?} (checking a redirect)",
                        u.host_str().unwrap_or_default()
                    ))
                })
            };
            let local_start = match self.local_start.get() {
                Some(&l) => l,
                None => {
                    let l = is_local(&lookup(&self.start)?);
                    *self.local_start.get_or_init(|| l)
                }
            };
            match redirect_allowed(&url, &to, &lookup(&to)?, local_start, &self.opts) {
                Ok(()) => {}
                Err(RedirectRefusal::Downgrade) => {
                    return Err(HttpErrorKind::Downgrade(to.to_string()))
                }
                Err(why) => {
                    return Err(HttpErrorKind::RedirectRefused {
                        from: url.to_string(),
                        to: to.to_string(),
                        why,
                    })
                }
            }
            hops += 1;
            from = Some(std::mem::replace(&mut url, to));
        }
    }

    fn try_get(
        &self,
        start: u64,
        end: u64,
        known: Option<&Version>,
    ) -> Result<Reply, HttpErrorKind> {
        self.spend(end - start)?;
        let resp = self.send(&format!("bytes={start}-{}", end - 1), known)?;
        let status = resp.status().as_u16();
        let headers = resp.headers();
        let etag = header(headers, "etag");
        let last_modified = header(headers, "last-modified");
        check_success(status, headers, known)?;
        let body = match status {
            206 => {
                let (cr, (a, b, total)) = content_range(headers)?;
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
                if let Some(n) = len {
                    // The whole body is more than was asked for: it must fit the budget too.
                    self.spend(n)?;
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

    fn try_get_multi(&self, spans: &[(u64, u64)], known: &Version) -> Result<Multi, HttpErrorKind> {
        let (Some(&(first, _)), Some(&(_, last))) = (spans.first(), spans.last()) else {
            return Ok(Multi::Parts(Vec::new()));
        };
        let wanted: u64 = spans.iter().map(|(s, e)| e - s).sum();
        self.spend(wanted)?;
        let list: Vec<String> = spans
            .iter()
            .map(|(s, e)| format!("{s}-{}", e - 1))
            .collect();
        let resp = self.send(&format!("bytes={}", list.join(",")), Some(known))?;
        let status = resp.status().as_u16();
        let headers = resp.headers();
        check_success(status, headers, Some(known))?;
        // The most a faithful answer takes: the bytes asked for plus each part's framing.
        let limit = wanted + 1024 * spans.len() as u64 + 4096;
        let declared: Option<u64> = header(headers, "content-length").and_then(|s| s.parse().ok());
        match status {
            206 => {
                let content_type = header(headers, "content-type").unwrap_or_default();
                if let Some(boundary) = multipart::boundary(&content_type) {
                    if declared.is_some_and(|d| d > limit) {
                        return Err(HttpErrorKind::Protocol(format!(
                            "a multipart answer of {} bytes to a request for {wanted} bytes",
                            declared.unwrap_or_default()
                        )));
                    }
                    let body = self.read_up_to(resp, limit + 1)?;
                    if body.len() as u64 > limit {
                        return Err(HttpErrorKind::Protocol(format!(
                            "a multipart answer of more than {limit} bytes to a request for {wanted} bytes"
                        )));
                    }
                    if let Some(d) = declared.filter(|&d| d != body.len() as u64) {
                        return Err(HttpErrorKind::ShortBody {
                            expected: d,
                            got: body.len() as u64,
                        });
                    }
                    let parts = multipart::parts(&body, &boundary, known.len)
                        .map_err(|e| HttpErrorKind::Protocol(format!("multipart answer: {e}")))?;
                    return covering(parts, spans).map(Multi::Parts);
                }
                // One range for all of them: the server merged the ranges (RFC 9110 allows it).
                let (_, (a, b, total)) = content_range(headers)?;
                if total.is_some_and(|t| t != known.len) {
                    return Err(HttpErrorKind::Changed(format!(
                        "its length went from {} to {} bytes",
                        known.len,
                        total.unwrap_or_default()
                    )));
                }
                if a > first || b + 1 < last || b + 1 - a > limit {
                    // Only some of the ranges (a server that serves the first one), or far more
                    // than asked: ask one range at a time instead.
                    return Ok(Multi::Unsupported);
                }
                let data = self.read_body(resp, b + 1 - a)?;
                Ok(Multi::Parts(vec![(a, data)]))
            }
            200 => {
                if declared.is_some_and(|d| d != known.len) {
                    return Err(HttpErrorKind::Changed(format!(
                        "its length went from {} to {} bytes",
                        known.len,
                        declared.unwrap_or_default()
                    )));
                }
                if known.len > self.opts.whole_body_limit {
                    // Some servers and object stores answer several ranges with the whole
                    // file: leave its body unread and ask one range at a time.
                    return Ok(Multi::Unsupported);
                }
                self.spend(known.len)?;
                Ok(Multi::Whole(self.read_body(resp, known.len)?))
            }
            412 => Err(HttpErrorKind::Changed(
                "the server answered 412 Precondition Failed".into(),
            )),
            416 => {
                let total = header(headers, "content-range")
                    .and_then(|cr| cr.strip_prefix("bytes */")?.trim().parse::<u64>().ok());
                match total {
                    Some(t) if t != known.len => Err(HttpErrorKind::Changed(format!(
                        "its length went from {} to {t} bytes",
                        known.len
                    ))),
                    // Ranges within the file refused: the server does not serve several at once.
                    _ => Ok(Multi::Unsupported),
                }
            }
            status => Err(HttpErrorKind::Status { status }),
        }
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
        self.fetched.fetch_add(data.len() as u64, Ordering::Relaxed);
        match res {
            Ok(_) => Ok(data),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Err(HttpErrorKind::Timeout(
                format!("body stalled after {} bytes: {e}", data.len()),
            )),
            // The overall request timeout fires while the body arrives (ureq wraps its error).
            Err(e)
                if e.get_ref()
                    .and_then(|i| i.downcast_ref::<ureq::Error>())
                    .is_some_and(|u| matches!(u, ureq::Error::Timeout(_))) =>
            {
                Err(HttpErrorKind::Timeout(format!(
                    "the request took too long ({e}) after {} body bytes",
                    data.len()
                )))
            }
            Err(_) => Err(HttpErrorKind::ShortBody {
                expected: max,
                got: data.len() as u64,
            }),
        }
    }

    /// Whether `wanted` more bytes fit the budget.
    pub(super) fn spend(&self, wanted: u64) -> Result<(), HttpErrorKind> {
        let budget = self.budget.load(Ordering::Relaxed);
        let fetched = self.fetched.load(Ordering::Relaxed);
        if fetched.saturating_add(wanted) > budget {
            return Err(HttpErrorKind::BudgetExceeded {
                budget,
                fetched,
                wanted,
            });
        }
        Ok(())
    }

    pub(super) fn transport_error(&self, e: ureq::Error) -> HttpErrorKind {
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
            ureq::Error::RequireHttpsOnly(to) => HttpErrorKind::Downgrade(to),
            e => HttpErrorKind::Protocol(e.to_string()),
        }
    }
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)?.to_str().ok().map(|s| s.trim().to_owned())
}

/// A `Content-Range` as sent, and parsed: first and last byte, file length if given.
type ContentRange = (String, (u64, u64, Option<u64>));

/// The `Content-Range` of a 206 answer.
fn content_range(headers: &HeaderMap) -> Result<ContentRange, HttpErrorKind> {
    let cr = header(headers, "content-range").ok_or_else(|| {
        HttpErrorKind::Protocol("206 Partial Content without Content-Range".into())
    })?;
    let parsed = parse_content_range(&cr)
        .ok_or_else(|| HttpErrorKind::Protocol(format!("cannot parse Content-Range {cr:?}")))?;
    Ok((cr, parsed))
}

/// The checks every 2xx answer passes: the file's version unchanged, the stored bytes.
fn check_success(
    status: u16,
    headers: &HeaderMap,
    known: Option<&Version>,
) -> Result<(), HttpErrorKind> {
    if !(200..300).contains(&status) {
        return Ok(());
    }
    if let Some(v) = known {
        same_version(
            v,
            header(headers, "etag").as_deref(),
            header(headers, "last-modified").as_deref(),
        )?;
    }
    if let Some(enc) = header(headers, "content-encoding") {
        if !enc.eq_ignore_ascii_case("identity") {
            return Err(HttpErrorKind::Protocol(format!(
                "the body is encoded ({enc}); byte ranges need the stored bytes"
            )));
        }
    }
    Ok(())
}

/// The parts of a multi-range answer in offset order, checked: disjoint, each within the
/// ranges asked for (`spans`, sorted), and every span inside one part.
fn covering(
    mut parts: Vec<(u64, Vec<u8>)>,
    spans: &[(u64, u64)],
) -> Result<Vec<(u64, Vec<u8>)>, HttpErrorKind> {
    parts.sort_by_key(|p| p.0);
    let bad = |what: String| Err(HttpErrorKind::Protocol(format!("multipart answer: {what}")));
    let (lo, hi) = (spans[0].0, spans[spans.len() - 1].1);
    let mut prev_end = 0;
    for (i, (s, d)) in parts.iter().enumerate() {
        let e = s + d.len() as u64;
        if i > 0 && *s < prev_end {
            return bad(format!("parts overlap at byte {s}"));
        }
        if *s < lo || e > hi {
            return bad(format!("bytes {s}-{} were not asked for", e - 1));
        }
        prev_end = e;
    }
    for &(s, e) in spans {
        let i = parts.partition_point(|p| p.0 <= s);
        if i == 0 || parts[i - 1].0 + (parts[i - 1].1.len() as u64) < e {
            return bad(format!("bytes {s}-{} are missing", e - 1));
        }
    }
    Ok(parts)
}

/// Weak comparison (RFC 9110 §8.8.3.2): `W/"x"` and `"x"` name the same version.
fn same_etag(a: &str, b: &str) -> bool {
    a.trim_start_matches("W/") == b.trim_start_matches("W/")
}

/// Checks a response against the version seen at open: the validator the file was opened with
/// (its ETag, else its Last-Modified) must come back unchanged on every response. A response
/// without it cannot vouch for the bytes, so it counts as a change.
pub(super) fn same_version(
    v: &Version,
    etag: Option<&str>,
    last_modified: Option<&str>,
) -> Result<(), HttpErrorKind> {
    match (v.etag.as_deref(), v.last_modified.as_deref()) {
        (Some(a), _) => match etag {
            Some(b) if same_etag(a, b) => Ok(()),
            Some(b) => Err(HttpErrorKind::Changed(format!("ETag {a} became {b}"))),
            None => Err(HttpErrorKind::Changed(format!(
                "ETag {a} is missing from a response"
            ))),
        },
        (None, Some(a)) => match last_modified {
            Some(b) if a == b => Ok(()),
            Some(b) => Err(HttpErrorKind::Changed(format!(
                "Last-Modified {a} became {b}"
            ))),
            None => Err(HttpErrorKind::Changed(format!(
                "Last-Modified {a} is missing from a response"
            ))),
        },
        // Only a file taken whole at open has no validator, and it sends no further requests.
        (None, None) => Ok(()),
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

/// The HTTP agent of a reader of `url`.
#[cfg(test)]
pub(super) fn agent(url: &str, opts: &HttpOptions) -> Agent {
    agent_with(url, opts, None, Guard::new(&Url::parse(url).unwrap()))
}

/// [`agent`] with another TLS configuration (the tests trust their own certificate authority).
fn agent_with(
    url: &str,
    opts: &HttpOptions,
    tls: Option<ureq::tls::TlsConfig>,
    guard: Guard,
) -> Agent {
    // An https file stays https: the agent refuses any plain-http request (redirects are
    // followed by `Client::send`, which refuses them first).
    let https = url
        .get(..8)
        .is_some_and(|p| p.eq_ignore_ascii_case("https://"));
    let mut config = Agent::config_builder()
        .http_status_as_error(false)
        .https_only(https)
        // Redirects are followed by hand, each hop checked (`Client::send`).
        .max_redirects(0)
        .timeout_connect(Some(opts.connect_timeout))
        .timeout_per_read(Some(opts.read_timeout))
        // Global: one budget for the whole request and its body (`Client::send` gives each
        // redirect hop what is left of it).
        .timeout_global(opts.request_timeout)
        // Parallel fetches keep their connections for the next batch.
        .max_idle_connections_per_host(opts.parallel.max(3))
        .user_agent(opts.user_agent.as_str());
    if let Some(tls) = tls {
        config = config.tls_config(tls);
    }
    Agent::with_parts(
        config.build(),
        ureq::unversioned::transport::DefaultConnector::default(),
        guard,
    )
}
