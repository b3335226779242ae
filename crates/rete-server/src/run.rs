//! Running a query on the bounded worker pool and streaming its answer.
//!
//! A request is admitted if a worker or a queue place is free (else 503 with `Retry-After`),
//! waits for a worker until its deadline, then runs on tokio's blocking pool. The answer is
//! written into chunks: the status is decided when the first chunk is full or the answer ends,
//! so an error before that (the usual case: a timeout, a row cap, a memory bound) is a clean
//! error response. An error after the first chunk left cuts the response (no final chunk), which
//! every HTTP client reports as an error: an answer is never silently partial. When the client
//! goes away the response body is dropped and that raises the query's cancel flag.

use crate::negotiate::{self, Kind, Output};
use crate::protocol::{Operation, StoreTarget};
use crate::{Endpoint, ServeError, Shared};
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use oxrdf::{GraphName, NamedOrBlankNode, Quad, Term, Triple};
use oxrdfio::RdfSerializer;
use rete_core::{GraphMatch, Pattern, Rete};
use rete_sparql::{QueryOptions, QueryResults, SparqlError};
use std::cell::Cell;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;

/// Bytes gathered before the first chunk is sent (and so before the status is decided).
const CHUNK: usize = 64 << 10;
/// Chunks waiting for a slow client before the query itself waits.
const CHANNEL: usize = 4;

/// What a worker runs.
#[derive(Debug)]
pub(crate) enum Work {
    /// A query (never [`Operation::Description`]).
    Query(Operation),
    /// The service description's triples.
    Describe(Vec<Triple>),
    /// A Graph Store read.
    Store(StoreTarget),
}

/// Counters of the queries the server ran, for [`crate::Server::stats`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub running: std::sync::atomic::AtomicU64,
    pub completed: std::sync::atomic::AtomicU64,
    pub failed: std::sync::atomic::AtomicU64,
    pub cancelled: std::sync::atomic::AtomicU64,
    pub timed_out: std::sync::atomic::AtomicU64,
    pub refused: std::sync::atomic::AtomicU64,
}

enum Msg {
    Start(&'static str, Bytes),
    Data(Bytes),
    Fail(ServeError),
}

/// Raises the cancel flag when dropped: held by the request, then by the response body.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` on `endpoint` and answers with its result or its error.
pub(crate) async fn execute(
    shared: Arc<Shared>,
    endpoint: Arc<Endpoint>,
    work: Work,
    accept: Option<String>,
    base: String,
) -> Response {
    let opts = &shared.opts;
    let deadline = opts.timeout.map(|t| Instant::now() + t);
    let counters = shared.counters.clone();
    let Ok(admitted) = shared.admitted.clone().try_acquire_owned() else {
        counters.refused.fetch_add(1, Ordering::Relaxed);
        return ServeError::Overloaded(opts.threads + opts.queue).into_response();
    };
    let worker = shared.workers.clone().acquire_owned();
    let worker = match deadline {
        Some(d) => match tokio::time::timeout_at(d.into(), worker).await {
            Ok(w) => w,
            Err(_) => {
                counters.timed_out.fetch_add(1, Ordering::Relaxed);
                return ServeError::Timeout(shared.timeout_text()).into_response();
            }
        },
        None => worker.await,
    };
    let Ok(worker) = worker else {
        return ServeError::Cancelled.into_response();
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let guard = CancelOnDrop(cancel.clone());
    let (tx, mut rx) = mpsc::channel(CHANNEL);
    let job = Job {
        endpoint,
        accept,
        base,
        deadline,
        cancel,
        max_rows: opts.max_rows,
        memory_limit: opts.memory_limit,
        union_default_graph: opts.union_default_graph,
        service: opts.service.clone(),
        timeout_text: shared.timeout_text(),
    };
    tokio::task::spawn_blocking(move || {
        let _permits = (admitted, worker);
        counters.running.fetch_add(1, Ordering::Relaxed);
        let mut out = ChunkWriter {
            tx,
            buf: Vec::with_capacity(CHUNK),
            content_type: None,
            closed: false,
        };
        let result = job.run(work, &mut out).and_then(|()| out.finish());
        counters.running.fetch_sub(1, Ordering::Relaxed);
        let counter = match &result {
            Ok(()) => &counters.completed,
            Err(ServeError::Cancelled) => &counters.cancelled,
            Err(ServeError::Timeout(_)) => &counters.timed_out,
            Err(_) => &counters.failed,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = result {
            // The receiver is gone when the client is: nothing to tell then.
            let _ = out.tx.blocking_send(Msg::Fail(e));
        }
    });
    match rx.recv().await {
        Some(Msg::Start(content_type, first)) => {
            let stream = futures_util::stream::unfold(
                (Some(first), rx, guard),
                |(first, mut rx, guard)| async move {
                    if let Some(first) = first {
                        return Some((Ok(first), (None, rx, guard)));
                    }
                    match rx.recv().await? {
                        Msg::Data(b) | Msg::Start(_, b) => Some((Ok(b), (None, rx, guard))),
                        // Cuts the response: the client sees an incomplete body, not a short one.
                        Msg::Fail(e) => {
                            Some((Err(io::Error::other(e.to_string())), (None, rx, guard)))
                        }
                    }
                },
            );
            let mut r = Body::from_stream(stream).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            r
        }
        Some(Msg::Data(_)) | None => ServeError::Query(SparqlError::Evaluation(
            "the worker stopped without an answer".into(),
        ))
        .into_response(),
        Some(Msg::Fail(e)) => e.into_response(),
    }
}

/// A failure on the worker: the engine's (classified once the row cap and the client are known)
/// or the server's own.
enum Failure {
    Sparql(SparqlError),
    Serve(ServeError),
}

impl From<SparqlError> for Failure {
    fn from(e: SparqlError) -> Self {
        Self::Sparql(e)
    }
}

impl From<ServeError> for Failure {
    fn from(e: ServeError) -> Self {
        Self::Serve(e)
    }
}

impl From<rete_core::Error> for Failure {
    fn from(e: rete_core::Error) -> Self {
        Self::Sparql(e.into())
    }
}

/// One query's context on its worker.
struct Job {
    endpoint: Arc<Endpoint>,
    accept: Option<String>,
    /// The endpoint's URL, against which relative IRIs of the query are resolved.
    base: String,
    deadline: Option<Instant>,
    cancel: Arc<AtomicBool>,
    max_rows: Option<u64>,
    memory_limit: Option<usize>,
    union_default_graph: bool,
    service: Option<rete_sparql::ServiceOptions>,
    timeout_text: String,
}

impl Job {
    fn run(&self, work: Work, out: &mut ChunkWriter) -> Result<(), ServeError> {
        let hit = Cell::new(false);
        let r = match work {
            Work::Query(Operation::Query {
                text,
                default_graphs,
                named_graphs,
            }) => self.query(&text, default_graphs, named_graphs, out, &hit),
            Work::Describe(triples) => {
                let (output, media) = negotiate::choose(self.accept.as_deref(), Kind::Graph)?;
                out.content_type = Some(media);
                let quads = triples
                    .into_iter()
                    .map(|t| Ok(t.in_graph(GraphName::DefaultGraph)));
                write_rdf(quads, output, crate::pages::PREFIXES.iter().copied(), out)
                    .map_err(Failure::from)
            }
            Work::Store(target) => self.store(&target, out, &hit),
            Work::Query(Operation::Description) => {
                Err(ServeError::BadRequest("no query".into()).into())
            }
        };
        r.map_err(|e| match e {
            Failure::Serve(e) => e,
            Failure::Sparql(e) => self.classify(e, out, hit.get()),
        })
    }

    fn classify(&self, e: SparqlError, out: &ChunkWriter, hit: bool) -> ServeError {
        match (e, self.max_rows) {
            (_, Some(n)) if hit => ServeError::RowLimit(n),
            (SparqlError::Timeout, _) => ServeError::Timeout(self.timeout_text.clone()),
            (SparqlError::Io(_), _) if out.closed => ServeError::Cancelled,
            (SparqlError::Format(m), _) => ServeError::NotAcceptable(m),
            (e, _) => e.into(),
        }
    }

    fn options(&self) -> QueryOptions {
        QueryOptions {
            cancel: Some(self.cancel.clone()),
            deadline: self.deadline,
            memory_limit: self.memory_limit,
            union_default_graph: self.union_default_graph,
            service: self.service.clone(),
            ..Default::default()
        }
    }

    fn query(
        &self,
        text: &str,
        default_graphs: Vec<oxrdf::NamedNode>,
        named_graphs: Vec<oxrdf::NamedNode>,
        out: &mut ChunkWriter,
        hit: &Cell<bool>,
    ) -> Result<(), Failure> {
        let ep = &self.endpoint;
        let mut q = rete_sparql::parse_with_prefixes(text, Some(&self.base), &ep.prefixes)?;
        if !default_graphs.is_empty() || !named_graphs.is_empty() {
            // The protocol's dataset replaces the query's FROM / FROM NAMED.
            let dataset = Some(spargebra::algebra::QueryDataset {
                default: default_graphs,
                named: Some(named_graphs),
            });
            match &mut q {
                spargebra::Query::Select { dataset: d, .. }
                | spargebra::Query::Construct { dataset: d, .. }
                | spargebra::Query::Describe { dataset: d, .. }
                | spargebra::Query::Ask { dataset: d, .. } => *d = dataset,
            }
        }
        let kind = match &q {
            spargebra::Query::Select { .. } => Kind::Solutions,
            spargebra::Query::Ask { .. } => Kind::Boolean,
            _ => Kind::Graph,
        };
        let (output, media) = negotiate::choose(self.accept.as_deref(), kind)?;
        out.content_type = Some(media);
        let results = rete_sparql::evaluate(&ep.rete, &q, &self.options())?;
        Ok(match (results, output) {
            (QueryResults::Boolean(b), Output::Results(f)) => rete_sparql::write_boolean(b, f, out),
            (QueryResults::Solutions(s), Output::Results(f)) => {
                let vars = s.variables().to_vec();
                let rows = Capped::new(s, self.max_rows, hit);
                rete_sparql::write_solutions(&vars, rows, |s| s.values(), f, out)
            }
            (QueryResults::Graph(t), output) => {
                let quads = Capped::new(t, self.max_rows, hit)
                    .map(|t| t.map(|t| t.in_graph(GraphName::DefaultGraph)));
                write_rdf(quads, output, ep.file_prefixes(), out)
            }
            _ => Err(SparqlError::Format(
                "the answer does not fit the chosen format".into(),
            )),
        }?)
    }

    fn store(
        &self,
        target: &StoreTarget,
        out: &mut ChunkWriter,
        hit: &Cell<bool>,
    ) -> Result<(), Failure> {
        let rete = &self.endpoint.rete;
        let (graph, kind) = match target {
            StoreTarget::Default => (GraphMatch::Default, Kind::Graph),
            StoreTarget::All => (GraphMatch::Any, Kind::Dataset),
            StoreTarget::Named(g) => {
                match rete.id_of_graph(oxrdf::GraphNameRef::NamedNode(g.as_ref()))? {
                    Some(id)
                        if rete.count(&Pattern {
                            g: GraphMatch::Named(id),
                            ..Pattern::default()
                        })? > 0 =>
                    {
                        (GraphMatch::Named(id), Kind::Graph)
                    }
                    _ => {
                        return Err(ServeError::NotFound(format!(
                            "no graph {g} in {}",
                            self.endpoint.name
                        ))
                        .into())
                    }
                }
            }
        };
        let (output, media) = negotiate::choose(self.accept.as_deref(), kind)?;
        out.content_type = Some(media);
        let pattern = Pattern {
            g: graph,
            ..Pattern::default()
        };
        let quads = rete.quads(&pattern)?;
        let guard = self.options();
        let mut tick = 0u32;
        let quads = quads.map(move |q| {
            tick = tick.wrapping_add(1);
            if tick % 1024 == 0 {
                check(&guard)?;
            }
            decode(rete, q?, matches!(target, StoreTarget::All))
        });
        Ok(write_rdf(
            Capped::new(quads, self.max_rows, hit),
            output,
            self.endpoint.file_prefixes(),
            out,
        )?)
    }
}

/// Stops a Graph Store read like a query: on the cancel flag or past the deadline.
fn check(opts: &QueryOptions) -> Result<(), SparqlError> {
    if opts
        .cancel
        .as_ref()
        .is_some_and(|c| c.load(Ordering::Relaxed))
    {
        return Err(SparqlError::Cancelled);
    }
    if opts.deadline.is_some_and(|d| Instant::now() > d) {
        return Err(SparqlError::Timeout);
    }
    Ok(())
}

fn decode(
    rete: &Rete,
    [s, p, o, g]: rete_core::IdQuad,
    keep_graph: bool,
) -> Result<Quad, SparqlError> {
    let corrupt = |what: &str| {
        SparqlError::Evaluation(format!(
            "{}: a quad's {what} is not a valid term",
            rete.name()
        ))
    };
    let subject: NamedOrBlankNode = match rete.term(s)? {
        Term::NamedNode(n) => n.into(),
        Term::BlankNode(b) => b.into(),
        _ => return Err(corrupt("subject")),
    };
    let Term::NamedNode(predicate) = rete.term(p)? else {
        return Err(corrupt("predicate"));
    };
    let graph = if keep_graph {
        rete.graph_name(g)?
    } else {
        GraphName::DefaultGraph
    };
    Ok(Quad::new(subject, predicate, rete.term(o)?, graph))
}

/// Writes quads (triples in the default graph for the graph formats) in an RDF syntax, with the
/// file's prefixes.
fn write_rdf<'a>(
    quads: impl Iterator<Item = Result<Quad, SparqlError>>,
    output: Output,
    prefixes: impl IntoIterator<Item = (&'a str, &'a str)>,
    out: &mut ChunkWriter,
) -> Result<(), SparqlError> {
    let Output::Rdf(format) = output else {
        return Err(SparqlError::Format(
            "a graph is written in an RDF syntax".into(),
        ));
    };
    let mut serializer = RdfSerializer::from_format(format);
    if matches!(
        format,
        oxrdfio::RdfFormat::Turtle | oxrdfio::RdfFormat::TriG
    ) {
        for (prefix, ns) in prefixes {
            // A namespace the serializer refuses is only left out of the prefixes.
            if let Ok(s) = serializer.clone().with_prefix(prefix, ns) {
                serializer = s;
            }
        }
    }
    let mut w = serializer.for_writer(out);
    for q in quads {
        w.serialize_quad(&q?)?;
    }
    w.finish()?;
    Ok(())
}

/// Passes at most `cap` items; the item after them marks `hit` and ends the stream with an error,
/// so an answer past the cap is refused rather than cut short.
struct Capped<'a, I> {
    inner: I,
    left: Option<u64>,
    hit: &'a Cell<bool>,
}

impl<'a, I> Capped<'a, I> {
    fn new(inner: I, cap: Option<u64>, hit: &'a Cell<bool>) -> Self {
        Self {
            inner,
            left: cap,
            hit,
        }
    }
}

impl<T, I: Iterator<Item = Result<T, SparqlError>>> Iterator for Capped<'_, I> {
    type Item = Result<T, SparqlError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.next()?;
        if let (Some(left), Ok(_)) = (&mut self.left, &item) {
            if *left == 0 {
                self.hit.set(true);
                return Some(Err(SparqlError::TooLarge("past --max-rows".into())));
            }
            *left -= 1;
        }
        Some(item)
    }
}

/// Gathers the answer into chunks and hands them to the response body.
struct ChunkWriter {
    tx: mpsc::Sender<Msg>,
    buf: Vec<u8>,
    content_type: Option<&'static str>,
    /// The client is gone (the body was dropped).
    closed: bool,
}

impl ChunkWriter {
    fn send(&mut self) -> io::Result<()> {
        let bytes = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        let msg = match self.content_type.take() {
            Some(ct) => Msg::Start(ct, bytes),
            None => Msg::Data(bytes),
        };
        self.tx.blocking_send(msg).map_err(|_| {
            self.closed = true;
            io::Error::new(io::ErrorKind::BrokenPipe, "the client went away")
        })
    }

    fn finish(&mut self) -> Result<(), ServeError> {
        if self.content_type.is_none() && self.buf.is_empty() {
            return Ok(()); // everything was sent already
        }
        self.send().map_err(|_| ServeError::Cancelled)
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
