#![doc = include_str!("../README.md")]

mod cache;
mod error;
mod negotiate;
mod pages;
mod protocol;
mod run;

pub use cache::{default_cache, default_cache_for, machine_memory, MIN_CACHE};
pub use error::{ServeError, RETRY_AFTER_SECS};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rete_core::Rete;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutError};

/// One served file: its name (the path `/NAME/sparql`), where it came from, and the open file.
#[derive(Debug)]
pub struct Endpoint {
    name: String,
    source: String,
    rete: Rete,
    /// The prefixes a query may use without declaring them (as in `rete sparql`).
    prefixes: rete_core::vocab::Prefixes,
    /// The prefixes declared in the file's inputs, for Turtle and TriG answers.
    file_prefixes: BTreeMap<String, String>,
}

impl Endpoint {
    /// Serves `rete` (opened from `source`, a path or URL shown on the index page) under `name`.
    /// `name` is a path segment: letters, digits, `-`, `_` and `.`.
    pub fn new(
        name: impl Into<String>,
        source: impl Into<String>,
        rete: Rete,
    ) -> Result<Self, ServeError> {
        let name = name.into();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(ServeError::Config(format!(
                "{name:?} cannot name an endpoint: use letters, digits, '-', '_' and '.'"
            )));
        }
        let prefixes = rete_schema::prefixes_in_effect(&rete)
            .map_err(|e| ServeError::Config(format!("cannot read the schema of {name}: {e}")))?;
        let file_prefixes = rete.card()?.prefixes.clone();
        Ok(Self {
            name,
            source: source.into(),
            rete,
            prefixes,
            file_prefixes,
        })
    }

    /// The prefixes declared in the file's inputs (prefix, namespace).
    fn file_prefixes(&self) -> impl Iterator<Item = (&str, &str)> {
        self.file_prefixes
            .iter()
            .map(|(p, n)| (p.as_str(), n.as_str()))
    }

    /// The endpoint's name: it answers at `/NAME/sparql` and `/NAME/store`.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The endpoint name for a file path or URL: its file name without `.rete` (and without any
/// query string), with characters other than letters, digits, `-`, `_`, `.` replaced by `-`.
pub fn endpoint_name(source: &str) -> String {
    let path = source.split(['?', '#']).next().unwrap_or(source);
    let file = path
        .trim_end_matches('/')
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path);
    let stem = file.strip_suffix(".rete").unwrap_or(file);
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        "data".into()
    } else {
        name
    }
}

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// A query running longer is stopped and answered 503 (`None`: no limit). Default 30 s.
    pub timeout: Option<Duration>,
    /// An answer with more rows (or triples) is refused with 400 (`None`: no cap).
    pub max_rows: Option<u64>,
    /// Queries run at once (the worker pool). Default: the number of cores.
    pub threads: usize,
    /// Queries that may wait for a worker; beyond `threads + queue` a request gets 503 with
    /// `Retry-After`. Default: 4 × `threads`.
    pub queue: usize,
    /// Largest request body in bytes (413 beyond). Default 1 MiB.
    pub max_body: usize,
    /// A request whose headers or body stop arriving for this long is dropped: the connection
    /// is closed (headers) or answered 408 (body). Default 10 s.
    pub read_timeout: Duration,
    /// Origins allowed by CORS (`*` for any; empty: no CORS headers).
    pub cors: Vec<String>,
    /// Bytes one query may hold (see `rete_sparql::QueryOptions::memory_limit`).
    pub memory_limit: Option<usize>,
    /// The default graph of a query is the union of all graphs (a triple stated in several
    /// graphs once; see `rete_sparql::QueryOptions::union_default_graph`); the protocol's
    /// `default-graph-uri` and the query's `FROM` still win. Default: strict SPARQL.
    pub union_default_graph: bool,
    /// `SERVICE` calls to other endpoints (`None`, the default: refused). The hosts allowed,
    /// the time and bytes one call may take.
    pub service: Option<rete_sparql::ServiceOptions>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self {
            timeout: Some(Duration::from_secs(30)),
            max_rows: None,
            threads,
            queue: 4 * threads,
            max_body: 1 << 20,
            read_timeout: Duration::from_secs(10),
            cors: Vec::new(),
            memory_limit: None,
            union_default_graph: false,
            service: None,
        }
    }
}

/// What the handlers share.
#[derive(Debug)]
pub(crate) struct Shared {
    endpoints: BTreeMap<String, Arc<Endpoint>>,
    opts: ServeOptions,
    /// Places for running or waiting queries (`threads + queue`).
    admitted: Arc<Semaphore>,
    /// Workers (`threads`).
    workers: Arc<Semaphore>,
    counters: Arc<run::Counters>,
}

impl Shared {
    fn timeout_text(&self) -> String {
        match self.opts.timeout {
            Some(t) => format!("{} s", t.as_secs_f64()),
            None => "none".into(),
        }
    }

    fn endpoint(&self, name: &str) -> Result<Arc<Endpoint>, ServeError> {
        self.endpoints.get(name).cloned().ok_or_else(|| {
            ServeError::NotFound(format!(
                "no endpoint {name:?}: this server has {}",
                self.endpoints
                    .keys()
                    .map(|n| format!("/{n}/sparql"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }
}

/// The HTTP routes for `endpoints`: `/` (an HTML index), `/NAME/sparql` (SPARQL 1.1 Protocol,
/// GET and POST; with no query, the service description), `/NAME/store` (Graph Store Protocol,
/// GET). With a single endpoint, `/sparql` and `/store` serve it too.
pub fn router(endpoints: Vec<Endpoint>, opts: ServeOptions) -> Result<Router, ServeError> {
    Ok(build(endpoints, opts)?.0)
}

fn build(
    endpoints: Vec<Endpoint>,
    opts: ServeOptions,
) -> Result<(Router, Arc<run::Counters>), ServeError> {
    if endpoints.is_empty() {
        return Err(ServeError::Config("no file to serve".into()));
    }
    if opts.threads == 0 {
        return Err(ServeError::Config("threads must be at least 1".into()));
    }
    let mut map = BTreeMap::new();
    for ep in endpoints {
        let name = ep.name.clone();
        if map.insert(name.clone(), Arc::new(ep)).is_some() {
            return Err(ServeError::Config(format!(
                "two files are named {name:?}: serve them as NAME=FILE with different names"
            )));
        }
    }
    let single = map.len() == 1;
    let cors = cors_layer(&opts.cors)?;
    let shared = Arc::new(Shared {
        admitted: Arc::new(Semaphore::new(opts.threads + opts.queue)),
        workers: Arc::new(Semaphore::new(opts.threads)),
        endpoints: map,
        counters: Arc::default(),
        opts,
    });
    let mut app = Router::new()
        .route("/", get(index))
        .route("/{name}/sparql", get(sparql).post(sparql))
        .route("/{name}/store", get(store));
    if single {
        app = app
            .route("/sparql", get(sparql_single).post(sparql_single))
            .route("/store", get(store_single));
    }
    let counters = shared.counters.clone();
    let mut app = app
        .layer(DefaultBodyLimit::max(shared.opts.max_body))
        .layer(RequestBodyTimeoutLayer::new(shared.opts.read_timeout))
        .with_state(shared);
    if let Some(cors) = cors {
        app = app.layer(cors);
    }
    Ok((app, counters))
}

fn cors_layer(origins: &[String]) -> Result<Option<CorsLayer>, ServeError> {
    if origins.is_empty() {
        return Ok(None);
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        let list = origins
            .iter()
            .map(|o| {
                HeaderValue::from_str(o.trim_end_matches('/'))
                    .map_err(|_| ServeError::Config(format!("{o:?} is not an origin")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(list)
    };
    Ok(Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST])
            .allow_headers([header::CONTENT_TYPE, header::ACCEPT])
            .expose_headers([header::RETRY_AFTER])
            .max_age(Duration::from_secs(3600)),
    ))
}

fn accept(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The URL the client used to reach `path` (from the `Host` header).
fn absolute(headers: &HeaderMap, path: &str) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{host}{path}")
}

/// A request body that could not be read: too large (413, from the body limit), too slow (408,
/// from the body timeout), or cut.
fn body_error(rejection: BytesRejection) -> Response {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&rejection);
    while let Some(e) = source {
        if e.is::<TimeoutError>() {
            return (
                StatusCode::REQUEST_TIMEOUT,
                "the request body stopped arriving: send it at once\n",
            )
                .into_response();
        }
        source = e.source();
    }
    rejection.into_response()
}

async fn sparql(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match body {
        Ok(body) => answer(shared, &name, method, headers, uri, body).await,
        Err(e) => body_error(e),
    }
}

async fn sparql_single(
    State(shared): State<Arc<Shared>>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(b) => b,
        Err(e) => return body_error(e),
    };
    let Some(name) = shared.endpoints.keys().next().cloned() else {
        return ServeError::NotFound("no endpoint".into()).into_response();
    };
    answer(shared, &name, method, headers, uri, body).await
}

async fn answer(
    shared: Arc<Shared>,
    name: &str,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Response {
    let endpoint = match shared.endpoint(name) {
        Ok(e) => e,
        Err(e) => return e.into_response(),
    };
    let url = absolute(&headers, uri.path());
    let work = match protocol::parse(&method, &headers, uri.query(), &body) {
        Ok(protocol::Operation::Description) => {
            run::Work::Describe(pages::description(&endpoint, &url))
        }
        Ok(op) => run::Work::Query(op),
        Err(e) => return e.into_response(),
    };
    run::execute(shared, endpoint, work, accept(&headers), url).await
}

async fn store(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    read_store(shared, &name, headers, uri).await
}

async fn store_single(State(shared): State<Arc<Shared>>, headers: HeaderMap, uri: Uri) -> Response {
    let Some(name) = shared.endpoints.keys().next().cloned() else {
        return ServeError::NotFound("no endpoint".into()).into_response();
    };
    read_store(shared, &name, headers, uri).await
}

async fn read_store(shared: Arc<Shared>, name: &str, headers: HeaderMap, uri: Uri) -> Response {
    let endpoint = match shared.endpoint(name) {
        Ok(e) => e,
        Err(e) => return e.into_response(),
    };
    match protocol::parse_store(uri.query()) {
        Ok(target) => {
            let url = absolute(&headers, uri.path());
            run::execute(
                shared,
                endpoint,
                run::Work::Store(target),
                accept(&headers),
                url,
            )
            .await
        }
        Err(e) => e.into_response(),
    }
}

async fn index(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let base = absolute(&headers, "");
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        pages::index(shared.endpoints.values().map(AsRef::as_ref), &base),
    )
        .into_response()
}

/// Accepts connections until `stop` fires, then lets the requests in flight finish. Each
/// connection is served by hyper with a header read timeout (axum::serve sets none).
async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: Router,
    read_timeout: Duration,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let stream = tokio::select! {
            conn = listener.accept() => match conn {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: the next accept may succeed.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        // An answer streams in chunks: without TCP_NODELAY its last small write (the final
        // chunk) waits for the client's delayed ACK, adding up to 40 ms to a short query.
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(read_timeout)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A connection that fails (reset, timeout) concerns only its client.
            let _ = conn.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// Counts of the queries a server has seen (Graph Store reads and service descriptions
/// included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// On a worker now.
    pub running: u64,
    /// Answered in full.
    pub completed: u64,
    /// Stopped because the client went away.
    pub cancelled: u64,
    /// Stopped at their deadline (or still waiting for a worker then).
    pub timed_out: u64,
    /// Refused because every worker and queue place was taken.
    pub refused: u64,
    /// Failed otherwise (syntax, row cap, memory, …).
    pub failed: u64,
}

/// A server running on its own threads. Dropping it stops it like [`Server::stop`].
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    counters: Arc<run::Counters>,
}

impl Server {
    /// Binds `bind` (port 0: any free port) and serves `endpoints` on a tokio runtime of its own:
    /// two threads for connections, `opts.threads` for queries.
    pub fn start(
        endpoints: Vec<Endpoint>,
        opts: ServeOptions,
        bind: &str,
    ) -> Result<Self, ServeError> {
        let threads = opts.threads;
        let read_timeout = opts.read_timeout;
        let (app, counters) = build(endpoints, opts)?;
        let listener = std::net::TcpListener::bind(bind).map_err(|e| {
            ServeError::Io(std::io::Error::new(
                e.kind(),
                format!("cannot listen on {bind}: {e}"),
            ))
        })?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(threads + 1)
            .thread_name("rete-serve")
            .enable_all()
            .build()?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("rete-serve".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)?;
                    accept_loop(listener, app, read_timeout, rx).await;
                    Ok(())
                })
            })?;
        Ok(Self {
            addr,
            shutdown: Some(tx),
            thread: Some(thread),
            counters,
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What the server has done so far.
    pub fn stats(&self) -> Stats {
        let c = &self.counters;
        Stats {
            running: c.running.load(Ordering::Relaxed),
            completed: c.completed.load(Ordering::Relaxed),
            cancelled: c.cancelled.load(Ordering::Relaxed),
            timed_out: c.timed_out.load(Ordering::Relaxed),
            refused: c.refused.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
        }
    }

    /// Stops accepting connections, lets the requests in flight finish, and returns.
    pub fn stop(mut self) -> Result<(), ServeError> {
        self.shut()
    }

    fn shut(&mut self) -> Result<(), ServeError> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(r)) => Ok(r?),
            Some(Err(_)) => Err(ServeError::Config("the server thread panicked".into())),
            None => Ok(()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.shut();
    }
}
