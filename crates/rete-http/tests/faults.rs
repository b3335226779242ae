//! Fault injection: a small HTTP/1.1 server on std threads (127.0.0.1, a free port) that misbehaves
//! on purpose. Transient faults must recover through retries; the others must give the expected
//! error kind, never a silent partial answer.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::noise;
use rete_core::{RangeReader, ReadStats};
use rete_http::{HttpError, HttpErrorKind, HttpOptions, HttpReader, RedirectRefusal};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LEN: usize = 100_000;

/// What the server does with one request.
#[derive(Debug, Clone)]
enum Act {
    /// Honour Range and If-Match / If-Unmodified-Since, send ETag and Last-Modified.
    Serve,
    /// Like `Serve` but never answer 412 (a server that ignores preconditions).
    ServeNoPreconditions,
    /// Ignore Range: 200 with the whole body.
    Whole,
    /// 206 with correct headers but only half the body, then close.
    Short,
    /// 206 whose Content-Range starts one byte late.
    WrongRange,
    /// Close the connection without answering.
    Reset,
    /// Say nothing for longer than the client's read timeout.
    Stall,
    /// Answer with this status and no body.
    Status(u16),
    /// 302 to this path.
    Redirect(&'static str),
    /// 206 with `Content-Encoding: gzip`.
    Gzip,
    /// 206 with `Content-Range: bytes a-b/*`.
    UnknownLength,
    /// Like `ServeNoPreconditions` but without ETag and Last-Modified.
    NoValidator,
    /// Like `ServeNoPreconditions` but with Last-Modified only.
    LastModifiedOnly,
    /// Like `Serve` for one range; several ranges get 416 (tower-http's `ServeDir` does this).
    NoMulti,
    /// Like `Serve` for one range; of several ranges only the first is served, as one 206.
    FirstOnly,
    /// Several ranges get a multipart answer whose first part holds one byte less than its
    /// Content-Range says.
    MultiLying,
    /// 206 with correct headers, the body one byte every 20 ms (each byte well within the read
    /// timeout, the whole beyond the request timeout).
    Trickle,
}

#[derive(Debug)]
struct Request {
    path: String,
    /// The range asked for when there is exactly one.
    range: Option<(u64, u64)>,
    /// Every range asked for (inclusive ends).
    ranges: Vec<(u64, u64)>,
    if_match: Option<String>,
    if_unmodified_since: Option<String>,
}

type Plan = Box<dyn FnMut(usize, &Request) -> Act + Send>;

struct State {
    data: Arc<Vec<u8>>,
    etag: String,
    last_modified: String,
    plan: Plan,
}

struct FaultServer {
    base: String,
    hits: Arc<AtomicUsize>,
    state: Arc<Mutex<State>>,
}

impl FaultServer {
    fn start(plan: impl FnMut(usize, &Request) -> Act + Send + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let state = Arc::new(Mutex::new(State {
            data: Arc::new(noise(7, LEN)),
            etag: "\"v1\"".into(),
            last_modified: "Mon, 01 Jan 2024 00:00:00 GMT".into(),
            plan: Box::new(plan),
        }));
        let (h, s) = (hits.clone(), state.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (h, s) = (h.clone(), s.clone());
                std::thread::spawn(move || {
                    let _ = handle(stream, &h, &s);
                });
            }
        });
        Self { base, hits, state }
    }

    fn url(&self) -> String {
        format!("{}/file.rete", self.base)
    }

    /// Replaces the file on the server with another version.
    fn replace(&self, data: Vec<u8>, etag: &str, last_modified: &str) {
        let mut s = self.state.lock().unwrap();
        s.data = Arc::new(data);
        s.etag = etag.into();
        s.last_modified = last_modified.into();
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

fn handle(stream: TcpStream, hits: &AtomicUsize, state: &Mutex<State>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut r = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut req = Request {
        path,
        range: None,
        ranges: Vec::new(),
        if_match: None,
        if_unmodified_since: None,
    };
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let v = v.trim().to_owned();
        match k.trim().to_ascii_lowercase().as_str() {
            "range" => {
                for r in v.strip_prefix("bytes=").unwrap().split(',') {
                    let (a, b) = r.trim().split_once('-').unwrap();
                    req.ranges.push((a.parse().unwrap(), b.parse().unwrap()));
                }
                if let [one] = req.ranges[..] {
                    req.range = Some(one);
                }
            }
            "if-match" => req.if_match = Some(v),
            "if-unmodified-since" => req.if_unmodified_since = Some(v),
            _ => {}
        }
    }
    let n = hits.fetch_add(1, Ordering::SeqCst);
    let (act, data, etag, lm) = {
        let mut s = state.lock().unwrap();
        let act = (s.plan)(n, &req);
        (act, s.data.clone(), s.etag.clone(), s.last_modified.clone())
    };
    let mut w = stream;
    let len = data.len() as u64;
    let (a, b) = req.range.map_or((0, len - 1), |(a, b)| (a, b.min(len - 1)));
    let body = &data[a as usize..=b as usize];
    let head = |status: &str, extra: &str| {
        format!("HTTP/1.1 {status}\r\nETag: {etag}\r\nLast-Modified: {lm}\r\nConnection: close\r\n{extra}\r\n")
    };
    let partial = |cr: String, n: usize| {
        head(
            "206 Partial Content",
            &format!("Content-Range: {cr}\r\nContent-Length: {n}\r\n"),
        )
    };
    let several = req.ranges.len() > 1;
    let multipart = |lie: bool| {
        let mut out = Vec::new();
        for (i, &(a, b)) in req.ranges.iter().enumerate() {
            out.extend_from_slice(
                format!("\r\n--SEP\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes {a}-{b}/{len}\r\n\r\n").as_bytes(),
            );
            let short = usize::from(lie && i == 0);
            out.extend_from_slice(&data[a as usize..=b as usize - short]);
        }
        out.extend_from_slice(b"\r\n--SEP--\r\n");
        out
    };
    let multi_head = |n: usize| {
        head(
            "206 Partial Content",
            &format!("Content-Type: multipart/byteranges; boundary=SEP\r\nContent-Length: {n}\r\n"),
        )
    };
    match act {
        Act::Serve | Act::ServeNoPreconditions | Act::MultiLying if several => {
            let failed = req.if_match.as_ref().is_some_and(|m| *m != etag);
            if failed && matches!(act, Act::Serve) {
                w.write_all(head("412 Precondition Failed", "Content-Length: 0\r\n").as_bytes())?;
            } else {
                let body = multipart(matches!(act, Act::MultiLying));
                w.write_all(multi_head(body.len()).as_bytes())?;
                w.write_all(&body)?;
            }
        }
        Act::NoMulti if several => {
            w.write_all(
                head(
                    "416 Range Not Satisfiable",
                    &format!("Content-Range: bytes */{len}\r\nContent-Length: 0\r\n"),
                )
                .as_bytes(),
            )?;
        }
        Act::FirstOnly if several => {
            let (a, b) = req.ranges[0];
            let body = &data[a as usize..=b as usize];
            w.write_all(partial(format!("bytes {a}-{b}/{len}"), body.len()).as_bytes())?;
            w.write_all(body)?;
        }
        Act::Serve
        | Act::ServeNoPreconditions
        | Act::NoMulti
        | Act::FirstOnly
        | Act::MultiLying => {
            let failed = req.if_match.as_ref().is_some_and(|m| *m != etag)
                || req.if_unmodified_since.as_ref().is_some_and(|d| *d != lm);
            if failed && !matches!(act, Act::ServeNoPreconditions) {
                w.write_all(head("412 Precondition Failed", "Content-Length: 0\r\n").as_bytes())?;
            } else if req.range.is_some() {
                w.write_all(partial(format!("bytes {a}-{b}/{len}"), body.len()).as_bytes())?;
                w.write_all(body)?;
            } else {
                w.write_all(head("200 OK", &format!("Content-Length: {len}\r\n")).as_bytes())?;
                w.write_all(&data)?;
            }
        }
        Act::Whole => {
            w.write_all(head("200 OK", &format!("Content-Length: {len}\r\n")).as_bytes())?;
            w.write_all(&data)?;
        }
        Act::Short => {
            w.write_all(partial(format!("bytes {a}-{b}/{len}"), body.len()).as_bytes())?;
            w.write_all(&body[..body.len() / 2])?;
        }
        Act::WrongRange => {
            w.write_all(
                partial(format!("bytes {}-{}/{len}", a + 1, b + 1), body.len()).as_bytes(),
            )?;
            w.write_all(body)?;
        }
        Act::Reset => {}
        Act::Stall => std::thread::sleep(Duration::from_millis(2000)),
        Act::Status(s) => {
            w.write_all(
                format!("HTTP/1.1 {s} Oops\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
                    .as_bytes(),
            )?;
        }
        Act::Redirect(to) => {
            w.write_all(format!("HTTP/1.1 302 Found\r\nLocation: {to}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").as_bytes())?;
        }
        Act::Gzip => {
            w.write_all(
                partial(format!("bytes {a}-{b}/{len}"), body.len())
                    .replace("Connection", "Content-Encoding: gzip\r\nConnection")
                    .as_bytes(),
            )?;
            w.write_all(body)?;
        }
        Act::UnknownLength => {
            w.write_all(partial(format!("bytes {a}-{b}/*"), body.len()).as_bytes())?;
            w.write_all(body)?;
        }
        Act::NoValidator | Act::LastModifiedOnly => {
            let lm = if matches!(act, Act::LastModifiedOnly) {
                format!("Last-Modified: {lm}\r\n")
            } else {
                String::new()
            };
            w.write_all(
                format!(
                    "HTTP/1.1 206 Partial Content\r\n{lm}Connection: close\r\nContent-Range: bytes {a}-{b}/{len}\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                )
                .as_bytes(),
            )?;
            w.write_all(body)?;
        }
        Act::Trickle => {
            w.write_all(partial(format!("bytes {a}-{b}/{len}"), body.len()).as_bytes())?;
            for byte in body {
                w.write_all(&[*byte])?;
                w.flush()?;
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    w.flush()
}

fn opts() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(2),
        read_timeout: Duration::from_millis(500),
        request_timeout: Some(Duration::from_secs(5)),
        retries: 3,
        backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        prefetch: 4096,
        ..HttpOptions::default()
    }
}

/// A reader opened on a server that serves by `act`, whose file is then replaced by `body` with
/// `etag` and `modified`: (server, reader).
fn changed_after_open(
    act: Act,
    body: Vec<u8>,
    etag: &str,
    modified: &str,
) -> (FaultServer, HttpReader) {
    let s = FaultServer::start(move |_, _| act.clone());
    let r = open(&s).unwrap();
    s.replace(body, etag, modified);
    (s, r)
}

/// Reads `len` bytes at `at` through `r` and checks them against the served body.
fn assert_reads_body(r: &HttpReader, at: u64, len: usize) {
    let at_ = at as usize;
    assert_eq!(r.read_at(at, len).unwrap(), noise(7, LEN)[at_..at_ + len]);
}

fn open(s: &FaultServer) -> Result<HttpReader, HttpError> {
    HttpReader::open_with(&s.url(), opts())
}

fn kind<T: std::fmt::Debug>(r: Result<T, HttpError>) -> (HttpErrorKind, u32) {
    let e = r.unwrap_err();
    assert!(
        e.to_string().contains("/file.rete"),
        "error names the URL: {e}"
    );
    (e.kind, e.attempts)
}

/// Every request after the open one (request 0) gets `act`.
fn after_open(act: Act) -> impl FnMut(usize, &Request) -> Act + Send {
    move |n, _| if n == 0 { Act::Serve } else { act.clone() }
}

/// Requests `from..from + k` get `act`, the others are served.
fn burst(from: usize, k: usize, act: Act) -> impl FnMut(usize, &Request) -> Act + Send {
    move |n, _| {
        if (from..from + k).contains(&n) {
            act.clone()
        } else {
            Act::Serve
        }
    }
}

#[test]
fn serves_correct_bytes_and_counts() {
    let s = FaultServer::start(|_, _| Act::Serve);
    let r = open(&s).unwrap();
    let want = noise(7, LEN);
    assert_eq!(r.len(), LEN as u64);
    assert_eq!(r.etag(), Some("\"v1\""));
    assert_eq!(
        r.stats(),
        ReadStats {
            requests: 1,
            bytes: 4096
        }
    );
    assert_eq!(r.read_at(100, 50).unwrap(), want[100..150]); // inside the prefetch
    assert_eq!(r.stats().requests, 1);
    assert_eq!(r.read_at(50_000, 1000).unwrap(), want[50_000..51_000]);
    assert_eq!(
        r.stats(),
        ReadStats {
            requests: 2,
            bytes: 5096
        }
    );
    assert_eq!(r.read_at(LEN as u64 - 10, 10).unwrap(), want[LEN - 10..]);
    assert_eq!(r.read_at(LEN as u64, 0).unwrap(), Vec::<u8>::new());
}

#[test]
fn ignored_range_small_file_is_taken_whole() {
    let s = FaultServer::start(|_, _| Act::Whole);
    let r = open(&s).unwrap();
    assert!(!r.ranges_supported());
    assert_eq!(r.len(), LEN as u64);
    let want = noise(7, LEN);
    assert_eq!(r.read_at(70_000, 500).unwrap(), want[70_000..70_500]);
    assert_eq!(
        r.stats(),
        ReadStats {
            requests: 1,
            bytes: LEN as u64
        }
    );
}

#[test]
fn ignored_range_large_file_is_an_error() {
    let s = FaultServer::start(|_, _| Act::Whole);
    let small = HttpOptions {
        whole_body_limit: 10_000,
        ..opts()
    };
    let (k, attempts) = kind(HttpReader::open_with(&s.url(), small.clone()));
    assert_eq!(
        k,
        HttpErrorKind::RangeNotSupported {
            len: Some(LEN as u64),
            limit: 10_000
        }
    );
    assert_eq!(attempts, 1);

    // The server honours Range at open, then stops: too large to take whole.
    let s = FaultServer::start(after_open(Act::Whole));
    let r = HttpReader::open_with(&s.url(), small).unwrap();
    let (k, _) = kind(r.fetch(&[(50_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::RangeNotSupported { .. }),
        "{k:?}"
    );

    // ... but a small file is switched to whole-file mode, with correct bytes.
    let s = FaultServer::start(after_open(Act::Whole));
    let r = open(&s).unwrap();
    assert!(r.ranges_supported());
    assert_reads_body(&r, 50_000, 10);
    assert!(!r.ranges_supported());
}

#[test]
fn short_body_is_retried() {
    let s = FaultServer::start(burst(1, 2, Act::Short));
    let r = open(&s).unwrap();
    assert_reads_body(&r, 60_000, 2000);
    assert_eq!(r.stats().requests, 4);

    let s = FaultServer::start(after_open(Act::Short));
    let r = open(&s).unwrap();
    let (k, attempts) = kind(r.fetch(&[(60_000, 2000)]));
    assert_eq!(
        k,
        HttpErrorKind::ShortBody {
            expected: 2000,
            got: 1000
        }
    );
    assert_eq!(attempts, 4);
    assert_eq!(s.hits(), 5);
}

#[test]
fn wrong_content_range_is_an_error() {
    let s = FaultServer::start(after_open(Act::WrongRange));
    let r = open(&s).unwrap();
    let (k, attempts) = kind(r.fetch(&[(10_000, 100)]));
    assert!(
        matches!(k, HttpErrorKind::Protocol(ref m) if m.contains("Content-Range")),
        "{k:?}"
    );
    assert_eq!(attempts, 1);
    let (k, _) = kind(HttpReader::open_with(
        &FaultServer::start(|_, _| Act::WrongRange).url(),
        opts(),
    ));
    assert!(matches!(k, HttpErrorKind::Protocol(_)), "{k:?}");
}

#[test]
fn reset_connection_is_retried() {
    let s = FaultServer::start(burst(0, 2, Act::Reset));
    let r = open(&s).unwrap();
    assert_eq!(r.stats().requests, 3);
    assert_reads_body(&r, 90_000, 10);

    let s = FaultServer::start(after_open(Act::Reset));
    let r = open(&s).unwrap();
    let (k, attempts) = kind(r.fetch(&[(90_000, 10)]));
    assert!(matches!(k, HttpErrorKind::Connection(_)), "{k:?}");
    assert_eq!(attempts, 4);
}

#[test]
fn stalled_server_times_out_and_is_retried() {
    let s = FaultServer::start(burst(1, 1, Act::Stall));
    let r = open(&s).unwrap();
    assert_reads_body(&r, 30_000, 10);
    assert_eq!(r.stats().requests, 3);

    let s = FaultServer::start(after_open(Act::Stall));
    let r = HttpReader::open_with(
        &s.url(),
        HttpOptions {
            retries: 1,
            ..opts()
        },
    )
    .unwrap();
    let (k, attempts) = kind(r.fetch(&[(30_000, 10)]));
    assert!(matches!(k, HttpErrorKind::Timeout(_)), "{k:?}");
    assert_eq!(attempts, 2);
}

#[test]
fn server_errors_are_retried() {
    let s = FaultServer::start(burst(1, 2, Act::Status(503)));
    let r = open(&s).unwrap();
    assert_reads_body(&r, 20_000, 10);
    assert_eq!(r.stats().requests, 4);

    let s = FaultServer::start(|_, _| Act::Status(500));
    let (k, attempts) = kind(open(&s));
    assert_eq!(k, HttpErrorKind::Status { status: 500 });
    assert_eq!(attempts, 4);
    assert_eq!(s.hits(), 4);
}

#[test]
fn not_found_is_not_retried() {
    let s = FaultServer::start(|_, _| Act::Status(404));
    let e = open(&s).unwrap_err();
    assert_eq!(e.kind, HttpErrorKind::Status { status: 404 });
    assert_eq!(e.attempts, 1);
    assert_eq!(s.hits(), 1);
    assert!(
        e.to_string().ends_with("/file.rete: HTTP 404 Not Found"),
        "{e}"
    );
}

#[test]
fn changed_file_is_detected() {
    // A server that honours If-Match answers 412.
    let (_s, r) = changed_after_open(
        Act::Serve,
        noise(8, LEN),
        "\"v2\"",
        "Tue, 02 Jan 2024 00:00:00 GMT",
    );
    let (k, attempts) = kind(r.fetch(&[(40_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::Changed(ref m) if m.contains("412")),
        "{k:?}"
    );
    assert_eq!(attempts, 1);

    // A server that ignores preconditions: the new ETag gives it away.
    let (_s, r) = changed_after_open(
        Act::ServeNoPreconditions,
        noise(8, LEN),
        "\"v2\"",
        "Tue, 02 Jan 2024 00:00:00 GMT",
    );
    let (k, _) = kind(r.fetch(&[(40_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::Changed(ref m) if m.contains("\"v2\"")),
        "{k:?}"
    );

    // Same ETag but another length.
    let (_s, r) = changed_after_open(
        Act::ServeNoPreconditions,
        noise(7, LEN + 5),
        "\"v1\"",
        "Mon, 01 Jan 2024 00:00:00 GMT",
    );
    let (k, _) = kind(r.fetch(&[(40_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::Changed(ref m) if m.contains("length")),
        "{k:?}"
    );

    // Through the RangeReader trait, the typed error is still reachable.
    let (_s, r) = changed_after_open(
        Act::Serve,
        noise(8, LEN),
        "\"v2\"",
        "Tue, 02 Jan 2024 00:00:00 GMT",
    );
    let e = r.read_at(40_000, 10).unwrap_err();
    assert!(e.to_string().contains("changed on the server"), "{e}");
    let http = HttpError::from_range_error(&e).unwrap();
    assert!(matches!(http.kind, HttpErrorKind::Changed(_)));
}

#[test]
fn redirects_are_followed_up_to_a_bound() {
    let s = FaultServer::start(|_, req| match req.path.as_str() {
        "/a" => Act::Redirect("/b"),
        "/b" => Act::Redirect("/file.rete"),
        "/loop" => Act::Redirect("/loop"),
        _ => Act::Serve,
    });
    let r = HttpReader::open_with(&format!("{}/a", s.base), opts()).unwrap();
    assert_reads_body(&r, 80_000, 100);
    assert_eq!(r.stats().requests, 2); // redirects are followed inside one request

    let e = HttpReader::open_with(&format!("{}/loop", s.base), opts()).unwrap_err();
    assert_eq!(e.kind, HttpErrorKind::TooManyRedirects(5));
    let e = HttpReader::open_with(
        &format!("{}/a", s.base),
        HttpOptions {
            max_redirects: 1,
            ..opts()
        },
    )
    .unwrap_err();
    assert_eq!(e.kind, HttpErrorKind::TooManyRedirects(1));
}

/// A `&'static str` for `Act::Redirect` to a URL known at run time.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

#[test]
fn a_redirect_to_another_host_is_followed_only_when_that_host_is_allowed() {
    // Host and port make the origin: 127.0.0.1:A → 127.0.0.1:B is another host.
    let b = FaultServer::start(|_, _| Act::Serve);
    let to = leak(b.url());
    let a = FaultServer::start(move |_, _| Act::Redirect(to));
    let b_host = b.base.trim_start_matches("http://").to_owned();
    // Refused by default, before B is contacted, naming both URLs and the host to allow.
    let e = HttpReader::open_with(&a.url(), opts()).unwrap_err();
    assert_eq!(
        e.kind,
        HttpErrorKind::RedirectRefused {
            from: a.url(),
            to: b.url(),
            why: RedirectRefusal::OtherHost,
        }
    );
    assert_eq!(
        e.kind.refused_host(),
        Some((a.url().as_str(), b.url().as_str(), b_host.clone()))
    );
    assert!(
        e.to_string()
            .contains("cross-host redirects are not allowed"),
        "{e}"
    );
    assert_eq!((e.attempts, a.hits(), b.hits()), (1, 1, 0));
    // Another allowed host does not open the way.
    let other = HttpOptions {
        redirect_hosts: vec!["127.0.0.1:1".into()],
        ..opts()
    };
    let e = HttpReader::open_with(&a.url(), other).unwrap_err();
    assert!(e.kind.refused_host().is_some(), "{e}");
    assert_eq!(b.hits(), 0);
    // Followed once B's host is allowed, on every request of the reader.
    let allowed = HttpOptions {
        redirect_hosts: vec![b_host],
        ..opts()
    };
    let r = HttpReader::open_with(&a.url(), allowed).unwrap();
    assert_reads_body(&r, 80_000, 100);
    assert_eq!((a.hits(), b.hits()), (4, 2));
    // Or with every host allowed.
    let any = HttpOptions {
        cross_host_redirects: true,
        ..opts()
    };
    let r = HttpReader::open_with(&a.url(), any).unwrap();
    assert_reads_body(&r, 80_000, 100);
    assert_eq!((a.hits(), b.hits()), (6, 4));
    // Off the local network a cross-host redirect is refused the same way, before any
    // connection (the public address here is never contacted, so the test needs no network).
    let a = FaultServer::start(|_, _| Act::Redirect("http://8.8.8.8/file.rete"));
    let e = HttpReader::open_with(&a.url(), opts()).unwrap_err();
    assert_eq!(
        e.kind,
        HttpErrorKind::RedirectRefused {
            from: a.url(),
            to: "http://8.8.8.8/file.rete".into(),
            why: RedirectRefusal::OtherHost,
        }
    );
    assert_eq!(e.kind.refused_host().map(|h| h.2), Some("8.8.8.8".into()));
    assert_eq!((e.attempts, a.hits()), (1, 1));
}

#[test]
fn a_chain_across_hosts_longer_than_the_bound_is_refused() {
    // A → B → A → B…: every hop is allowed, the count is not.
    let b_url: Arc<Mutex<String>> = Arc::default();
    let to_b = b_url.clone();
    let a = FaultServer::start(move |_, _| Act::Redirect(leak(to_b.lock().unwrap().clone())));
    let to_a = leak(a.url());
    let b = FaultServer::start(move |_, _| Act::Redirect(to_a));
    *b_url.lock().unwrap() = b.url();
    let e = HttpReader::open_with(
        &a.url(),
        HttpOptions {
            max_redirects: 3,
            cross_host_redirects: true,
            ..opts()
        },
    )
    .unwrap_err();
    assert_eq!(e.kind, HttpErrorKind::TooManyRedirects(3));
    assert_eq!((a.hits(), b.hits()), (2, 2));
}

#[test]
fn untrustworthy_responses_are_errors() {
    let s = FaultServer::start(after_open(Act::Gzip));
    let r = open(&s).unwrap();
    let (k, _) = kind(r.fetch(&[(10_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::Protocol(ref m) if m.contains("gzip")),
        "{k:?}"
    );

    let s = FaultServer::start(|_, _| Act::UnknownLength);
    let (k, _) = kind(open(&s));
    assert!(
        matches!(k, HttpErrorKind::Protocol(ref m) if m.contains("length")),
        "{k:?}"
    );

    let s = FaultServer::start(|_, _| Act::Serve);
    let r = open(&s).unwrap();
    let (k, _) = kind(r.fetch(&[(LEN as u64 - 5, 10)]));
    assert!(matches!(k, HttpErrorKind::OutOfBounds { .. }), "{k:?}");
    assert_eq!(s.hits(), 1);
}

#[test]
fn unreachable_server_and_bad_urls() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let e = HttpReader::open_with(&format!("http://127.0.0.1:{port}/x.rete"), opts()).unwrap_err();
    assert!(matches!(e.kind, HttpErrorKind::Connection(_)), "{e:?}");
    assert_eq!(e.attempts, 4);
    let e = HttpReader::open("samples/x.rete").unwrap_err();
    assert!(matches!(e.kind, HttpErrorKind::InvalidUrl(_)));
}

#[test]
fn read_many_coalesces_and_caches() {
    let s = FaultServer::start(|_, _| Act::Serve);
    let r = HttpReader::open_with(
        &s.url(),
        HttpOptions {
            coalesce_gap: 100,
            // One span per request, so that the counts show the coalescing alone.
            multi_range: false,
            ..opts()
        },
    )
    .unwrap();
    r.reset_stats();
    let want = noise(7, LEN);
    // Three neighbours (gaps of 0 and 50 bytes) and one far away: two requests.
    let ranges = [(10_000, 100), (10_100, 100), (10_250, 100), (50_000, 10)];
    let got = r.read_many(&ranges).unwrap();
    for (&(o, l), g) in ranges.iter().zip(&got) {
        assert_eq!(g[..], want[o as usize..o as usize + l]);
    }
    assert_eq!(
        r.stats(),
        ReadStats {
            requests: 2,
            bytes: 360
        }
    );
    // All cached now, overlapping reads included.
    assert_eq!(r.read_at(10_050, 300).unwrap(), want[10_050..10_350]);
    assert_eq!(r.stats().requests, 2);
    // A read straddling cached and missing bytes fetches only the missing part.
    assert_eq!(r.read_at(10_300, 200).unwrap(), want[10_300..10_500]);
    assert_eq!(
        r.stats(),
        ReadStats {
            requests: 3,
            bytes: 510
        }
    );
}

/// Spans far apart, as a search's hits sit over a file.
const SPREAD: [(u64, usize); 5] = [
    (10_000, 100),
    (30_000, 7),
    (50_000, 1000),
    (70_000, 1),
    (99_000, 1000),
];

/// Reads `ranges` through `r` in one batch and checks them against the served body.
fn assert_reads_many(r: &HttpReader, ranges: &[(u64, usize)]) {
    let want = noise(7, LEN);
    let got = r.read_many(ranges).unwrap();
    for (&(o, l), g) in ranges.iter().zip(&got) {
        assert_eq!(g[..], want[o as usize..o as usize + l], "bytes {o}+{l}");
    }
}

#[test]
fn spans_far_apart_cost_one_request_when_the_server_answers_multipart() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let s = FaultServer::start(move |_, req| {
        log.lock().unwrap().push(req.ranges.len());
        Act::Serve
    });
    let r = open(&s).unwrap();
    r.reset_stats();
    assert_reads_many(&r, &SPREAD);
    let stats = r.stats();
    assert_eq!(stats.requests, 1);
    let wanted: u64 = SPREAD.iter().map(|r| r.1 as u64).sum();
    // The bytes asked for plus each part's framing.
    assert!(
        stats.bytes > wanted && stats.bytes < wanted + 200 * 5,
        "{stats:?}"
    );
    assert_eq!(*asked.lock().unwrap(), vec![1, 5]);
    // A batch larger than `ranges_per_request` goes out as several multi-range requests.
    let r = HttpReader::open_with(
        &s.url(),
        HttpOptions {
            ranges_per_request: 2,
            ..opts()
        },
    )
    .unwrap();
    r.reset_stats();
    assert_reads_many(&r, &SPREAD);
    assert_eq!(r.stats().requests, 3);
    // Cached now: nothing more is asked.
    assert_reads_many(&r, &SPREAD);
    assert_eq!(r.stats().requests, 3);
}

#[test]
fn a_server_refusing_several_ranges_is_asked_one_range_at_a_time() {
    for act in [Act::NoMulti, Act::FirstOnly] {
        let served = act.clone();
        let s = FaultServer::start(move |_, _| served.clone());
        let r = open(&s).unwrap();
        r.reset_stats();
        assert_reads_many(&r, &SPREAD);
        // The refused request, then one per span.
        assert_eq!(r.stats().requests, 6, "{act:?}");
        // Learnt: the next batch asks one range per request straight away.
        r.reset_stats();
        assert_reads_many(&r, &[(20_000, 10), (40_000, 10), (60_000, 10)]);
        assert_eq!(r.stats().requests, 3, "{act:?}");
        assert!(r.ranges_supported());
    }
}

#[test]
fn a_server_answering_several_ranges_with_the_whole_file() {
    let whole_for_several = |_: usize, req: &Request| {
        if req.ranges.len() > 1 {
            Act::Whole
        } else {
            Act::Serve
        }
    };
    // A file too large to hold: its body is left unread, and each span is asked alone.
    let s = FaultServer::start(whole_for_several);
    let r = HttpReader::open_with(
        &s.url(),
        HttpOptions {
            whole_body_limit: 50_000,
            ..opts()
        },
    )
    .unwrap();
    r.reset_stats();
    assert_reads_many(&r, &SPREAD);
    let stats = r.stats();
    assert_eq!(stats.requests, 6);
    assert_eq!(stats.bytes, SPREAD.iter().map(|r| r.1 as u64).sum::<u64>());
    assert!(r.ranges_supported());
    // A small file is kept whole, as when a server ignores Range at open.
    let s = FaultServer::start(whole_for_several);
    let r = open(&s).unwrap();
    assert_reads_many(&r, &SPREAD);
    assert!(!r.ranges_supported());
    assert_eq!(r.stats().requests, 2);
}

#[test]
fn a_lying_multipart_answer_is_an_error_never_wrong_bytes() {
    let s = FaultServer::start(|_, _| Act::MultiLying);
    let r = open(&s).unwrap();
    let (k, _) = kind(r.fetch(&SPREAD));
    let HttpErrorKind::Protocol(what) = &k else {
        panic!("{k:?}");
    };
    assert!(
        what.contains("multipart answer") && what.contains("10000-10099"),
        "{what}"
    );
}

#[test]
fn a_file_changed_under_a_multi_range_read_is_detected() {
    let (_s, r) = changed_after_open(
        Act::Serve,
        noise(8, LEN),
        "\"v2\"",
        "Tue, 02 Jan 2024 00:00:00 GMT",
    );
    let (k, attempts) = kind(r.fetch(&SPREAD));
    assert!(matches!(k, HttpErrorKind::Changed(_)), "{k:?}");
    assert_eq!(attempts, 1);
}

#[test]
fn a_trickling_server_hits_the_overall_request_timeout() {
    // Every byte arrives well within the read timeout; the request as a whole does not.
    let s = FaultServer::start(after_open(Act::Trickle));
    let r = HttpReader::open_with(
        &s.url(),
        HttpOptions {
            request_timeout: Some(Duration::from_millis(600)),
            retries: 0,
            ..opts()
        },
    )
    .unwrap();
    let (k, attempts) = kind(r.fetch(&[(50_000, 200)]));
    assert!(matches!(k, HttpErrorKind::Timeout(_)), "{k:?}");
    assert_eq!(attempts, 1);
    // The default has an overall timeout too.
    assert!(HttpOptions::default().request_timeout.is_some());
}

#[test]
fn the_validator_is_required_on_every_response() {
    // No ETag and no Last-Modified at open: a change could never be noticed, so no open.
    let s = FaultServer::start(|_, _| Act::NoValidator);
    let (k, _) = kind(open(&s));
    assert_eq!(k, HttpErrorKind::NoValidator);

    // Opened with an ETag, then a response without it: the file may have changed.
    let s = FaultServer::start(after_open(Act::NoValidator));
    let r = open(&s).unwrap();
    let (k, attempts) = kind(r.fetch(&[(40_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::Changed(ref m) if m.contains("ETag") && m.contains("missing")),
        "{k:?}"
    );
    assert_eq!(attempts, 1);

    // Opened with Last-Modified only: later responses must carry the same date.
    let s = FaultServer::start(|_, _| Act::LastModifiedOnly);
    let r = open(&s).unwrap();
    assert_eq!(r.etag(), None);
    assert_reads_body(&r, 40_000, 10);
    s.replace(noise(7, LEN), "\"v1\"", "Tue, 02 Jan 2024 00:00:00 GMT");
    let (k, _) = kind(r.fetch(&[(60_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::Changed(ref m) if m.contains("Last-Modified")),
        "{k:?}"
    );
    let s = FaultServer::start(|n, _| {
        if n == 0 {
            Act::LastModifiedOnly
        } else {
            Act::NoValidator
        }
    });
    let r = open(&s).unwrap();
    let (k, _) = kind(r.fetch(&[(40_000, 10)]));
    assert!(
        matches!(k, HttpErrorKind::Changed(ref m) if m.contains("missing")),
        "{k:?}"
    );
}

#[test]
fn reads_beyond_the_byte_budget_fail_without_a_request() {
    assert_eq!(
        HttpOptions::default().byte_budget,
        Some(rete_http::DEFAULT_BYTE_BUDGET)
    );
    assert_eq!(rete_http::DEFAULT_BYTE_BUDGET, 1 << 30);
    let s = FaultServer::start(|_, _| Act::Serve);
    let r = HttpReader::open_with(
        &s.url(),
        HttpOptions {
            byte_budget: Some(10_000),
            ..opts()
        },
    )
    .unwrap();
    assert_eq!((r.fetched(), r.budget()), (4096, Some(10_000)));
    let want = noise(7, LEN);
    assert_eq!(r.read_at(20_000, 5000).unwrap(), want[20_000..25_000]);
    assert_eq!(r.fetched(), 9096);
    // Resetting the displayed counters does not reset the budget.
    r.reset_stats();
    assert_eq!(r.fetched(), 9096);
    let hits = s.hits();
    let (k, _) = kind(r.fetch(&[(60_000, 2000)]));
    assert_eq!(
        k,
        HttpErrorKind::BudgetExceeded {
            budget: 10_000,
            fetched: 9096,
            wanted: 2000
        }
    );
    assert_eq!(s.hits(), hits, "a refused read sends no request");
    // Through the RangeReader trait the typed error is reachable.
    let e = r.read_at(60_000, 2000).unwrap_err();
    assert!(e.to_string().contains("read budget"), "{e}");
    assert!(matches!(
        HttpError::from_range_error(&e).unwrap().kind,
        HttpErrorKind::BudgetExceeded { .. }
    ));
    // Cached bytes cost nothing.
    assert_eq!(r.read_at(21_000, 1000).unwrap(), want[21_000..22_000]);
    // Raised by the caller (the user agreed): the read goes through.
    r.set_budget(Some(20_000));
    assert_eq!(r.read_at(60_000, 2000).unwrap(), want[60_000..62_000]);
    r.set_budget(None);
    assert_eq!(r.budget(), None);
    assert_eq!(r.read_at(70_000, 20_000).unwrap(), want[70_000..90_000]);

    // A server that ignores Range sends the whole file: that must fit the budget too.
    let s = FaultServer::start(|_, _| Act::Whole);
    let (k, _) = kind(HttpReader::open_with(
        &s.url(),
        HttpOptions {
            byte_budget: Some(50_000),
            ..opts()
        },
    ));
    assert!(
        matches!(k, HttpErrorKind::BudgetExceeded { wanted, .. } if wanted == LEN as u64),
        "{k:?}"
    );
}
