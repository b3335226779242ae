//! The command bodies: what the app asks of its open documents, callable without a running app
//! (the desktop shell wraps each in a command; the tests call these directly).

use crate::engine::sparql_export::{write_run, ExportFormat};
use crate::engine::{report_markdown, AppError, AppResult, Doc};
use crate::key::NodeKey;
use crate::model::{
    CoherenceOutcome, CostEstimate, DocInfo, EntityDetails, GroupDetails, Legend, Located, MapView,
    MemoryView, QueryError, QueryKind, QueryOutcome, QueryStatus, ReadView, RunStatus,
    ShapesOutcome, ShapesProgress, SparqlContext, TermView,
};
use crate::store::{KeptRun, Store};
use rete_sparql::SparqlError;
use std::path::Path;
use std::sync::Arc;

/// Rows sent with a query's outcome; the table asks for the others by page.
pub const FIRST_ROWS: usize = 200;
/// Most rows one page request returns.
pub const MAX_PAGE: usize = 5000;

/// Opens a local `.rete` file and returns its summary.
pub fn open_path(store: &Store, path: &str) -> AppResult<DocInfo> {
    let p = Path::new(path);
    if p.is_dir() {
        return Err(AppError::Invalid(format!(
            "{path}: is a folder, not a .rete file"
        )));
    }
    let doc = Doc::open_path(p)?;
    let (id, doc) = store.insert(doc);
    doc.info(id)
}

/// Opens a `.rete` served over HTTP(S), read in place through range requests.
pub fn open_url(store: &Store, url: &str) -> AppResult<DocInfo> {
    open_url_allowing(store, url, &[])
}

/// [`open_url`], following redirects to `redirect_hosts` too (hosts the user agreed to, see
/// [`asking_for_redirects`]); the document keeps them for all its reads.
pub fn open_url_allowing(
    store: &Store,
    url: &str,
    redirect_hosts: &[String],
) -> AppResult<DocInfo> {
    let url = url.trim();
    if !rete_http::is_url(url) {
        return Err(AppError::Invalid(format!(
            "{url}: only http:// and https:// URLs can be opened"
        )));
    }
    let opts = rete_http::HttpOptions {
        byte_budget: read_budget(),
        redirect_hosts: redirect_hosts.to_vec(),
        ..rete_http::HttpOptions::default()
    };
    let reader = rete_http::HttpReader::open_with(url, opts).map_err(AppError::http)?;
    let doc = Doc::open_http(reader)?;
    let (id, doc) = store.insert(doc);
    doc.info(id)
}

/// What the shell asks before following a redirect from `from` to `to` (URLs): "Follow the
/// redirect from A to B?", A and B their hosts, then the URLs.
pub fn redirect_question(from: &str, to: &str) -> String {
    let host = |u: &str| rete_http::redirect_host(u).unwrap_or_else(|| u.to_owned());
    format!(
        "Follow the redirect from {} to {}?\n\n{from}\nredirects to\n{to}\n\nFollow it only if you trust {}: this document will then read from it.",
        host(from),
        host(to),
        host(to)
    )
}

/// Runs `open` with the redirect hosts agreed so far (none at first). When it fails only because
/// a redirect leads to another host ([`AppError::Redirect`]), asks `ask(from, to)` (the shell: a
/// native dialog the page cannot answer) and, on yes, runs `open` again with that host allowed
/// too; a chain through several hosts asks once per host. Other refusals (a loopback or private
/// address from a public URL, https to http) never ask. A no is [`AppError::Cancelled`].
pub fn asking_for_redirects<T>(
    mut ask: impl FnMut(&str, &str) -> bool,
    mut open: impl FnMut(&[String]) -> AppResult<T>,
) -> AppResult<T> {
    let mut hosts: Vec<String> = Vec::new();
    loop {
        match open(&hosts) {
            Err(AppError::Redirect { error, host }) if !hosts.contains(&host) => {
                let (from, to) = match &error.kind {
                    rete_http::HttpErrorKind::RedirectRefused { from, to, .. } => {
                        (from.as_str(), to.as_str())
                    }
                    _ => (error.url.as_str(), host.as_str()),
                };
                if !ask(from, to) {
                    return Err(AppError::Cancelled(format!(
                        "not opened: the redirect from {from} to {to} was not followed"
                    )));
                }
                hosts.push(host);
            }
            other => return other,
        }
    }
}

/// The first map: the pyramid's top level, or the class overview without a pyramid.
pub fn overview(store: &Store, doc: u32) -> AppResult<MapView> {
    let d = store.get(doc)?;
    if d.pyramid.is_some() {
        d.pyramid_overview()
    } else {
        d.class_overview()
    }
}

/// What a node of the map opens into when the camera zooms into it.
pub fn expand(store: &Store, doc: u32, key: &str, x: f32, y: f32, r: f32) -> AppResult<MapView> {
    let d = store.get(doc)?;
    match node_key(key)? {
        NodeKey::Class(id) => d.class_members(id, (x, y, r)),
        NodeKey::Community { level, id } => d.community_expand(level, id),
        _ => Err(AppError::Invalid(format!(
            "map node {key} cannot be expanded"
        ))),
    }
}

/// Properties and links of an entity.
pub fn entity(store: &Store, doc: u32, id: u64) -> AppResult<EntityDetails> {
    store.get(doc)?.entity(id)
}

/// An entity with its neighbours.
pub fn neighbourhood(store: &Store, doc: u32, id: u64) -> AppResult<MapView> {
    store.get(doc)?.neighbourhood(id)
}

/// Details of a group node (class group or community).
pub fn group(store: &Store, doc: u32, key: &str) -> AppResult<GroupDetails> {
    let d = store.get(doc)?;
    match node_key(key)? {
        NodeKey::Class(id) => d.class_group(id),
        NodeKey::Community { level, id } => d.community_group(level, id),
        _ => Err(AppError::Invalid(format!("map node {key} is not a group"))),
    }
}

/// The schema legend.
pub fn legend(store: &Store, doc: u32) -> AppResult<Legend> {
    store.get(doc)?.legend()
}

/// Where terms (N-Triples) live on the map.
pub fn locate(store: &Store, doc: u32, terms: &[String]) -> AppResult<Vec<Located>> {
    store.get(doc)?.locate(terms)
}

/// Bytes and requests read from the document's file or server so far.
pub fn read_stats(store: &Store, doc: u32) -> AppResult<ReadView> {
    let d = store.get(doc)?;
    let s = d.bytes.stats();
    let (budget, fetched) = d.bytes.budget();
    Ok(ReadView {
        bytes: s.bytes,
        requests: s.requests,
        remote: d.is_remote(),
        budget,
        fetched,
    })
}

/// What the open documents hold in their caches, with each cache's bound.
pub fn memory_use(store: &Store) -> MemoryView {
    let (kept_results, kept_result_bytes) = store.kept_results();
    MemoryView {
        docs: store.docs().iter().map(|(k, d)| d.memory(*k)).collect(),
        kept_results,
        max_kept_results: crate::store::KEPT_RESULTS,
        kept_result_bytes,
        max_kept_result_bytes: crate::store::KEPT_RESULT_BYTES,
    }
}

/// Lets a remote document fetch `bytes` more than it has fetched so far (the user agreed to a
/// query beyond the budget); never lowers the budget. Returns the new counters.
pub fn raise_read_budget(store: &Store, doc: u32, bytes: u64) -> AppResult<ReadView> {
    let d = store.get(doc)?;
    if let rete_http::CountedReader::Remote(r) = &d.bytes {
        if let Some(b) = r.budget() {
            r.set_budget(Some(b.max(r.fetched().saturating_add(bytes))));
        }
    }
    read_stats(store, doc)
}

/// The byte budget of a remote document: [`READ_BUDGET_ENV`] in bytes (`0`: none), else
/// [`rete_http::DEFAULT_BYTE_BUDGET`].
pub fn read_budget() -> Option<u64> {
    match std::env::var(READ_BUDGET_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        Some(0) => None,
        Some(n) => Some(n),
        None => Some(rete_http::DEFAULT_BYTE_BUDGET),
    }
}

/// Environment variable setting the byte budget of remote documents (bytes; `0`: no limit).
pub const READ_BUDGET_ENV: &str = "RETE_READ_BUDGET";

/// The search box's hits for `text` as search run `run` (a newer keystroke cancels the run
/// before it with [`search_cancel`]).
pub fn search(
    store: &Store,
    doc: u32,
    run: u32,
    req: &crate::engine::SearchRequest,
) -> AppResult<crate::model::SearchView> {
    let d = store.get(doc)?;
    store.while_running(&format!("s{run}"), |flag| d.search(req, &flag))
}

/// Where all the matches of `req` are on the map, as search run `run` (cancelled with
/// [`search_cancel`], as a keystroke's search is).
pub fn search_spread(
    store: &Store,
    doc: u32,
    run: u32,
    req: &crate::engine::SearchRequest,
) -> AppResult<crate::model::SpreadView> {
    let d = store.get(doc)?;
    store.while_running(&format!("s{run}"), |flag| d.spread(req, &flag))
}

/// How entity `from` and entity `to` are connected: the `k` shortest paths of at most
/// `max_hops` links, as path run `run` (cancel it with [`paths_cancel`]).
pub fn paths(
    store: &Store,
    doc: u32,
    run: u32,
    q: &PathQuery,
) -> AppResult<crate::model::PathsView> {
    let d = store.get(doc)?;
    store.while_running(&format!("p{run}"), |flag| {
        d.paths(q.from, q.to, q.k, q.max_hops, &q.filters, flag)
    })
}

/// A path search: between which two entities, how many paths, how long, through what.
#[derive(Debug, Clone)]
pub struct PathQuery {
    /// One end (a term id).
    pub from: u64,
    /// The other end.
    pub to: u64,
    /// How many paths, shortest first.
    pub k: usize,
    /// At most this many links per path.
    pub max_hops: u32,
    /// What the search may follow.
    pub filters: crate::model::PathFilters,
}

impl PathQuery {
    /// The `k` shortest paths of at most `max_hops` links, no filter but the default ones.
    pub fn new(from: u64, to: u64, k: usize, max_hops: u32) -> Self {
        Self {
            from,
            to,
            k,
            max_hops,
            filters: crate::model::PathFilters::default(),
        }
    }
}

/// Stops a path search; it answers with the paths found so far.
pub fn paths_cancel(store: &Store, run: u32) {
    store.cancel(&format!("p{run}"));
}

/// Stops a search (a label scan of a file without an index).
pub fn search_cancel(store: &Store, run: u32) {
    store.cancel(&format!("s{run}"));
}

/// Prefixes, vocabulary and examples for the query editor.
pub fn sparql_context(store: &Store, doc: u32) -> AppResult<SparqlContext> {
    store.get(doc)?.sparql_context()
}

fn query_error(e: &SparqlError) -> QueryError {
    match e {
        SparqlError::Syntax {
            line,
            column,
            message,
        } => QueryError {
            message: message.clone(),
            line: *line,
            column: *column,
        },
        other => QueryError {
            message: other.to_string(),
            line: 0,
            column: 0,
        },
    }
}

/// Runs a query as run `run` (cancel it with [`sparql_cancel`]); keeps its result for pages
/// and export. Query errors and cancellation are part of the outcome, not errors.
pub fn sparql_run(store: &Store, doc: u32, run: u32, query: &str) -> AppResult<QueryOutcome> {
    sparql_run_within(store, doc, run, query, None)
}

/// [`sparql_run`] with the pane's time limit in milliseconds (`None`: the default limit,
/// `0`: none). A query stopped by it has the status `timeout`.
pub fn sparql_run_within(
    store: &Store,
    doc: u32,
    run: u32,
    query: &str,
    timeout_ms: Option<u64>,
) -> AppResult<QueryOutcome> {
    sparql_run_with(
        store,
        doc,
        run,
        query,
        RunOptions {
            timeout_ms,
            ..RunOptions::default()
        },
    )
}

/// How the query pane runs a query.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// The time limit in milliseconds (`None`: the default limit, `0`: none).
    pub timeout_ms: Option<u64>,
    /// The default graph is the union of all graphs (the switch "all graphs"; what the map
    /// shows of a file whose data is in named graphs), not only the file's default graph.
    pub all_graphs: bool,
    /// Hosts `SERVICE` may call (the user agreed to each; empty: `SERVICE` is refused).
    pub allow_service: Vec<String>,
}

/// The endpoints a query of document `doc` calls with `SERVICE` (the shell asks the user
/// before any of them is called).
pub fn sparql_services(store: &Store, doc: u32, query: &str) -> AppResult<Vec<String>> {
    Ok(store.get(doc)?.query_services(query))
}

/// [`sparql_run`] with the pane's options.
pub fn sparql_run_with(
    store: &Store,
    doc: u32,
    run: u32,
    query: &str,
    options: RunOptions,
) -> AppResult<QueryOutcome> {
    let RunOptions {
        timeout_ms,
        all_graphs,
        allow_service,
    } = options;
    let service = (!allow_service.is_empty()).then(|| rete_sparql::ServiceOptions {
        allow: allow_service,
        ..rete_sparql::ServiceOptions::default()
    });
    let timeout = match timeout_ms {
        None => Some(crate::engine::sparql_export::DEFAULT_TIMEOUT),
        Some(0) => None,
        Some(ms) => Some(std::time::Duration::from_millis(ms)),
    };
    let d = store.get(doc)?;
    let before = d.bytes.stats();
    let started = std::time::Instant::now();
    let result = store.while_running(&format!("q{run}"), |flag| {
        d.run_query_within(query, flag, timeout, all_graphs, service)
    });
    let after = d.bytes.stats();
    let (budget, fetched) = d.bytes.budget();
    let read = ReadView {
        bytes: after.bytes.saturating_sub(before.bytes),
        requests: after.requests.saturating_sub(before.requests),
        remote: d.is_remote(),
        budget,
        fetched,
    };
    let mut out = QueryOutcome {
        run,
        status: QueryStatus::Ok,
        kind: QueryKind::Select,
        columns: Vec::new(),
        total: 0,
        rows: Vec::new(),
        boolean: None,
        graph: None,
        truncated: false,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        error: None,
        read,
        hint: None,
    };
    match result {
        Ok(r) => {
            out.kind = r.kind;
            out.columns = r.columns.clone();
            out.total = r.rows.len();
            out.boolean = r.boolean;
            out.truncated = r.truncated;
            out.elapsed_ms = r.elapsed_ms;
            out.hint.clone_from(&r.hint);
            out.rows = d.rows_page(&r, 0, FIRST_ROWS)?;
            if r.kind == QueryKind::Graph {
                out.graph = Some(d.graph_view(&r)?);
            }
            store.keep_result(
                run,
                KeptRun {
                    doc: d.clone(),
                    run: Arc::new(r),
                },
            );
        }
        Err(SparqlError::Cancelled) => {
            out.status = QueryStatus::Cancelled;
            out.error = Some(QueryError {
                message: "the query was cancelled".into(),
                line: 0,
                column: 0,
            });
        }
        Err(SparqlError::Timeout) => {
            out.status = QueryStatus::Timeout;
            out.error = Some(QueryError {
                message: format!(
                    "the query was stopped at its time limit of {} s",
                    timeout.map_or(0.0, |t| t.as_secs_f64())
                ),
                line: 0,
                column: 0,
            });
        }
        Err(SparqlError::Store(e)) => return Err(e.into()),
        Err(e) => {
            out.status = QueryStatus::Error;
            out.error = Some(query_error(&e));
        }
    }
    Ok(out)
}

/// Rows `offset..offset + limit` of a kept result.
pub fn sparql_rows(
    store: &Store,
    run: u32,
    offset: usize,
    limit: usize,
) -> AppResult<Vec<Vec<Option<TermView>>>> {
    let k = store.result(run)?;
    k.doc.rows_page(&k.run, offset, limit.min(MAX_PAGE))
}

/// Stops a running query (or one about to start).
pub fn sparql_cancel(store: &Store, run: u32) {
    store.cancel(&format!("q{run}"));
}

/// What a query will read before it runs; a query that does not parse comes back with its
/// syntax error.
pub fn sparql_cost(store: &Store, doc: u32, query: &str) -> AppResult<CostEstimate> {
    sparql_cost_with(store, doc, query, false)
}

/// [`sparql_cost`] of a query run over all graphs (`all_graphs`) or the default graph only.
pub fn sparql_cost_with(
    store: &Store,
    doc: u32,
    query: &str,
    all_graphs: bool,
) -> AppResult<CostEstimate> {
    let d = store.get(doc)?;
    match d.query_cost(query, all_graphs) {
        Ok(c) => Ok(c),
        Err(SparqlError::Store(e)) => Err(e.into()),
        Err(e) => Ok(CostEstimate {
            error: Some(query_error(&e)),
            ..CostEstimate::default()
        }),
    }
}

/// Writes a kept result to `path` as `csv`, `tsv` or `json`.
pub fn sparql_write(store: &Store, run: u32, format: &str, path: &Path) -> AppResult<()> {
    let k = store.result(run)?;
    let f = ExportFormat::from_name(format)?;
    // Atomic: a failed export never leaves a half-written file in place of an old one.
    crate::store::write_atomic(path, |w| {
        write_run(&k.run, f, &mut *w).map_err(|e| std::io::Error::other(e.to_string()))?;
        w.flush()
    })
    .map_err(|e| AppError::Invalid(format!("{}: {e}", path.display())))
}

/// Runs the coherence check Tier 0 → 1 → 2 as run `run`; `on_tier` gets each tier's report.
pub fn coherence_run(
    store: &Store,
    doc: u32,
    run: u32,
    on_tier: impl FnMut(&rete_coherence::Report),
) -> AppResult<CoherenceOutcome> {
    let d = store.get(doc)?;
    let result = store.while_running(&format!("c{run}"), |flag| d.coherence(&flag, on_tier));
    let r = result?;
    if let Some(report) = &r.report {
        store.keep_report(doc, report.clone());
    }
    Ok(CoherenceOutcome {
        run,
        status: if r.cancelled {
            RunStatus::Cancelled
        } else {
            RunStatus::Ok
        },
        report: r.report,
    })
}

/// Validates `doc` against the shapes file `shapes` (a path the shell checked), or against the
/// shapes the dataset holds; run `run` can be stopped with [`shapes_cancel`], and `on_progress`
/// hears where it is.
pub fn shapes_run(
    store: &Store,
    doc: u32,
    run: u32,
    shapes: Option<&Path>,
    on_progress: impl Fn(ShapesProgress) + Send + Sync + 'static,
) -> AppResult<ShapesOutcome> {
    let d = store.get(doc)?;
    let progress: rete_shacl::ProgressFn =
        Arc::new(move |p: &rete_shacl::Progress| on_progress(ShapesProgress::of(run, p)));
    store.while_running(&format!("s{run}"), |flag| {
        d.shapes(shapes, flag, run, Some(progress))
    })
}

/// Stops a running SHACL validation.
pub fn shapes_cancel(store: &Store, run: u32) {
    store.cancel(&format!("s{run}"));
}

/// Stops a running coherence check.
pub fn coherence_cancel(store: &Store, run: u32) {
    store.cancel(&format!("c{run}"));
}

/// Writes the last coherence report of `doc` to `path` as `json` or `md`.
pub fn coherence_write(store: &Store, doc: u32, format: &str, path: &Path) -> AppResult<()> {
    let d = store.get(doc)?;
    let report = store.report(doc)?;
    let bytes = match format {
        "json" => {
            serde_json::to_vec_pretty(&report).map_err(|e| AppError::Invalid(e.to_string()))?
        }
        "md" => report_markdown(&d.origin, &report).into_bytes(),
        other => {
            return Err(AppError::Invalid(format!(
                "cannot export the report as {other}"
            )))
        }
    };
    crate::store::write_atomic(path, |w| w.write_all(&bytes))
        .map_err(|e: std::io::Error| AppError::Invalid(format!("{}: {e}", path.display())))
}

fn node_key(key: &str) -> AppResult<NodeKey> {
    key.parse()
        .map_err(|e: crate::key::BadKey| AppError::Invalid(e.to_string()))
}
