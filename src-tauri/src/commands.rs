//! The Tauri commands. Each one is a thin async wrapper that runs an [`ops`] function on a
//! blocking worker thread, so the main (UI) thread never waits on file or network reads.

use rete_explore::engine::{AppError, AppResult};
use rete_explore::model::{
    CoherenceOutcome, CoherenceProgress, CostEstimate, DocInfo, EntityDetails, GroupDetails,
    Legend, Located, MapView, MemoryView, QueryOutcome, ReadView, ShapesOutcome, SparqlContext,
    TermView,
};
use rete_explore::store::Store;
use rete_explore::view::{OpenedView, SavedView};
use std::io::Write as _;
use std::path::PathBuf;
use tauri::{AppHandle, Emitter, Manager};
use tauri_plugin_dialog::DialogExt;

/// The local path of what a file dialog returned (`None`: the user cancelled).
pub(crate) fn picked_path(
    picked: Option<tauri_plugin_dialog::FilePath>,
) -> AppResult<Option<PathBuf>> {
    picked
        .map(|p| p.into_path().map_err(|e| AppError::Invalid(e.to_string())))
        .transpose()
}

/// Event carrying a [`CoherenceProgress`] as each tier of a check finishes.
pub const EVENT_COHERENCE: &str = "coherence-progress";

pub use rete_explore::ops;

async fn blocking<T, F>(app: AppHandle, f: F) -> AppResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppHandle, &Store) -> AppResult<T> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || f(&app, &app.state::<Store>()))
        .await
        .map_err(|e| AppError::Invalid(format!("background task failed: {e}")))?
}

/// [`blocking`], and with `RETE_TIMINGS` set in the environment one line on stderr per call:
/// the command, its time from the call to the answer and the size of the answer as JSON (the
/// IPC payload), then its time running on the worker thread, that thread's time on a CPU and
/// waiting in the run queue, and the bytes it read from disk. Used by the scale benchmark to tell the
/// engine's share of a step from the webview's, and a command starved of CPU or waiting for the
/// disk from one doing more work.
async fn timed<T, F>(app: AppHandle, name: &'static str, f: F) -> AppResult<T>
where
    T: serde::Serialize + Send + 'static,
    F: FnOnce(&AppHandle, &Store) -> AppResult<T> + Send + 'static,
{
    if std::env::var_os("RETE_TIMINGS").is_none() {
        return blocking(app, f).await;
    }
    let t0 = std::time::Instant::now();
    let out = blocking(app, move |app, store| {
        let (t, before) = (std::time::Instant::now(), thread_usage());
        let out = f(app, store);
        Ok((out, t.elapsed(), before, thread_usage()))
    })
    .await;
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    let (out, run) = match out {
        Ok((out, took, before, after)) => {
            let run = match (before, after) {
                (Some(b), Some(a)) => format!(
                    " run {:.1} ms cpu {:.1} ms queued {:.1} ms disk {} B",
                    took.as_secs_f64() * 1e3,
                    a.cpu_ns.saturating_sub(b.cpu_ns) as f64 / 1e6,
                    a.queued_ns.saturating_sub(b.queued_ns) as f64 / 1e6,
                    a.disk_bytes.saturating_sub(b.disk_bytes)
                ),
                _ => format!(" run {:.1} ms", took.as_secs_f64() * 1e3),
            };
            (out, run)
        }
        Err(e) => (Err(e), String::new()),
    };
    let bytes = out
        .as_ref()
        .ok()
        .and_then(|v| serde_json::to_vec(v).ok())
        .map_or(0, |b| b.len());
    eprintln!("rete-timing {name} {ms:.1} ms {bytes} B{run}");
    out
}

/// What the calling thread has used so far (for `RETE_TIMINGS`), from `/proc/thread-self`:
/// its time on a CPU and waiting for one (schedstat, ns), and the bytes it had read from disk.
struct Usage {
    cpu_ns: u64,
    queued_ns: u64,
    disk_bytes: u64,
}

fn thread_usage() -> Option<Usage> {
    let sched = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut f = sched.split_whitespace().map(|v| v.parse::<u64>().ok());
    let (cpu_ns, queued_ns) = (f.next()??, f.next()??);
    let io = std::fs::read_to_string("/proc/thread-self/io").ok()?;
    let disk_bytes = io
        .lines()
        .find_map(|l| l.strip_prefix("read_bytes:"))
        .and_then(|v| v.trim().parse().ok())?;
    Some(Usage {
        cpu_ns,
        queued_ns,
        disk_bytes,
    })
}

fn recent_file(app: &AppHandle) -> Option<PathBuf> {
    app.path()
        .app_config_dir()
        .ok()
        .map(|d| d.join("recent.json"))
}

/// The boundary rule ([`crate::grant`]): `Ok` if the user chose `source` (this session or on the
/// recent list). A URL typed in the page's dialog is not known to the shell: it asks the user in
/// a native dialog, which a script in the page cannot answer.
/// When the shell asks the user before opening a source the page names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask {
    /// Never: the source must have been chosen already.
    Never,
    /// A URL typed in the page's Open URL dialog.
    Url,
    /// The source of a saved view or a `rete://` link (someone else may have written it).
    View,
}

fn chosen(app: &AppHandle, source: &str, ask: Ask) -> AppResult<()> {
    let grants = app.state::<crate::grant::Grants>();
    let recent = recent_file(app)
        .map(|f| rete_explore::store::recent_load(&f))
        .unwrap_or_default();
    let refused = match grants.check(source, &recent) {
        Ok(()) => return Ok(()),
        Err(refused) => refused,
    };
    let remote = rete_http::is_url(source.trim());
    let (title, text) = match ask {
        Ask::Never => return Err(AppError::Invalid(refused)),
        Ask::Url => (
            "Open URL",
            format!(
                "Open {}?\n\nRete will read this file over the network.",
                source.trim()
            ),
        ),
        Ask::View => (
            "Open a shared view",
            format!(
                "A link or a view file asks to open {}.\n\nOpen it?{}",
                source.trim(),
                if remote {
                    " Rete will read it over the network."
                } else {
                    ""
                }
            ),
        ),
    };
    if (ask == Ask::View || remote)
        && app
            .dialog()
            .message(text)
            .title(title)
            .buttons(tauri_plugin_dialog::MessageDialogButtons::OkCancelCustom(
                "Open".into(),
                "Cancel".into(),
            ))
            .blocking_show()
    {
        grants.grant([source]);
        return Ok(());
    }
    Err(AppError::Invalid(refused))
}

fn opened(app: &AppHandle, info: &DocInfo) {
    if let Some(f) = recent_file(app) {
        let _ = rete_explore::store::recent_push(&f, &info.source);
    }
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.set_title(&format!("{} — Rete", info.name));
    }
}

/// Opens a local file the user chose ([`crate::grant`]).
#[tauri::command]
pub async fn open_path(app: AppHandle, path: String) -> AppResult<DocInfo> {
    blocking(app, move |app, s| {
        chosen(app, &path, Ask::Never)?;
        let info = crate::import::app::open_any(app, s, &path)?;
        opened(app, &info);
        Ok(info)
    })
    .await
}

/// Opens a URL the user chose or confirms ([`crate::grant`]).
#[tauri::command]
pub async fn open_url(app: AppHandle, url: String) -> AppResult<DocInfo> {
    blocking(app, move |app, s| {
        chosen(app, &url, Ask::Url)?;
        let info = crate::import::app::open_url_any(app, s, &url)?;
        opened(app, &info);
        Ok(info)
    })
    .await
}

/// Shows the native open dialog (`.rete` and the RDF syntaxes) and opens the chosen file; `None` if the
/// user cancelled. The dialog runs here, so the webview never needs file-system permissions.
#[tauri::command]
pub async fn open_dialog(app: AppHandle) -> AppResult<Option<DocInfo>> {
    blocking(app, |app, s| {
        let picked = app
            .dialog()
            .file()
            .set_title("Open a .rete or RDF file")
            .add_filter("Knowledge graphs", rete_explore::import::DIALOG_EXTENSIONS)
            .add_filter("Rete knowledge graph", &["rete"])
            .add_filter("RDF", &rete_explore::import::DIALOG_EXTENSIONS[1..])
            .blocking_pick_file();
        let Some(path) = picked_path(picked)? else {
            return Ok(None);
        };
        let path = path.display().to_string();
        app.state::<crate::grant::Grants>().grant([&path]);
        let info = crate::import::app::open_any(app, s, &path)?;
        opened(app, &info);
        Ok(Some(info))
    })
    .await
}

/// Opens the source of a saved view once the user agreed ([`Ask::View`]); the page restores the view.
fn open_view_source(app: &AppHandle, s: &Store, view: SavedView) -> AppResult<OpenedView> {
    chosen(app, &view.source, Ask::View)?;
    let doc = if rete_http::is_url(view.source.trim()) {
        crate::import::app::open_url_any(app, s, &view.source)?
    } else {
        crate::import::app::open_any(app, s, &view.source)?
    };
    opened(app, &doc);
    Ok(OpenedView { doc, view })
}

/// Opens a `rete://` link (from the command line, the OS or a second launch): its file, after the
/// user agreed, and the view it describes.
#[tauri::command]
pub async fn open_link(app: AppHandle, link: String) -> AppResult<OpenedView> {
    blocking(app, move |app, s| {
        let view = SavedView::from_link(&link)
            .map_err(|e| AppError::Invalid(format!("This link cannot be opened: {e}")))?;
        open_view_source(app, s, view)
    })
    .await
}

/// Puts the `rete://` link to `view` on the clipboard and returns it (checked as a link's reader
/// would check it).
#[tauri::command]
pub async fn copy_link(app: AppHandle, view: SavedView) -> AppResult<String> {
    view.check().map_err(|e| AppError::Invalid(e.to_string()))?;
    let link = view.to_link();
    copy_text(&app, link.clone())?;
    Ok(link)
}

/// Text on the desktop's clipboard (GTK's, on the main thread, where GTK runs).
#[cfg(target_os = "linux")]
fn copy_text(app: &AppHandle, text: String) -> AppResult<()> {
    app.run_on_main_thread(move || {
        gtk::Clipboard::get(&gtk::gdk::SELECTION_CLIPBOARD).set_text(&text);
    })
    .map_err(|e| AppError::Invalid(format!("the clipboard: {e}")))
}

#[cfg(not(target_os = "linux"))]
fn copy_text(_: &AppHandle, _: String) -> AppResult<()> {
    Err(AppError::Invalid(
        "the clipboard is only reached on Linux in this build".into(),
    ))
}

/// Saves `view` as a view file where the user says (native save dialog); `None` if cancelled.
#[tauri::command]
pub async fn save_view(app: AppHandle, view: SavedView, name: String) -> AppResult<Option<String>> {
    blocking(app, move |app, _| {
        view.check().map_err(|e| AppError::Invalid(e.to_string()))?;
        let Some(path) = save_dialog(app, "Save view", &format!("{name}.rete-view.json"), "json")?
        else {
            return Ok(None);
        };
        rete_explore::store::write_atomic(&path, |w| w.write_all(view.to_json().as_bytes()))
            .map_err(|e: std::io::Error| AppError::Invalid(format!("{}: {e}", path.display())))?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// Opens a view file the user picks (native dialog): its source, after the user agreed, and the
/// view. `None` if cancelled.
#[tauri::command]
pub async fn open_view_file(app: AppHandle) -> AppResult<Option<OpenedView>> {
    blocking(app, |app, s| {
        let picked = app
            .dialog()
            .file()
            .set_title("Open a saved view")
            .add_filter("Rete view", &["json"])
            .blocking_pick_file();
        let Some(path) = picked_path(picked)? else {
            return Ok(None);
        };
        let view = rete_explore::view::read_file(&path)
            .map_err(|e| AppError::Invalid(format!("{}: {e}", path.display())))?;
        open_view_source(app, s, view).map(Some)
    })
    .await
}

/// Files waiting to be opened (command line, second launch, drag and drop, OS open events).
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn take_pending(store: tauri::State<'_, Store>) -> Vec<String> {
    store.take_pending()
}

/// What happened before this page started, told once (the webview's process ended and the
/// page was loaded again).
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn take_notice(store: tauri::State<'_, Store>) -> Option<String> {
    store.take_notice()
}

/// The user's languages (the webview's `navigator.languages`, most preferred first): community
/// labels of the documents opened from now on are shown in them, then English, then any.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn set_languages(store: tauri::State<'_, Store>, languages: Vec<String>) {
    store.set_languages(languages);
}

/// The recent-files list, most recent first.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn recent_files(app: AppHandle) -> Vec<String> {
    recent_file(&app)
        .map(|f| rete_explore::store::recent_load(&f))
        .unwrap_or_default()
}

/// Closes a document.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn close_doc(store: tauri::State<'_, Store>, doc: u32) {
    store.close(doc);
}

/// The first map of a document.
#[tauri::command]
pub async fn overview(app: AppHandle, doc: u32) -> AppResult<MapView> {
    timed(app, "overview", move |_, s| ops::overview(s, doc)).await
}

/// Children of a map node.
#[tauri::command]
pub async fn expand(
    app: AppHandle,
    doc: u32,
    key: String,
    x: f32,
    y: f32,
    r: f32,
) -> AppResult<MapView> {
    timed(app, "expand", move |_, s| {
        ops::expand(s, doc, &key, x, y, r)
    })
    .await
}

/// Details of an entity.
#[tauri::command]
pub async fn entity(app: AppHandle, doc: u32, id: u64) -> AppResult<EntityDetails> {
    timed(app, "entity", move |_, s| ops::entity(s, doc, id)).await
}

/// Neighbourhood of an entity.
#[tauri::command]
pub async fn neighbourhood(app: AppHandle, doc: u32, id: u64) -> AppResult<MapView> {
    timed(app, "neighbourhood", move |_, s| {
        ops::neighbourhood(s, doc, id)
    })
    .await
}

/// Details of a group node.
#[tauri::command]
pub async fn group(app: AppHandle, doc: u32, key: String) -> AppResult<GroupDetails> {
    timed(app, "group", move |_, s| ops::group(s, doc, &key)).await
}

/// The legend.
#[tauri::command]
pub async fn legend(app: AppHandle, doc: u32) -> AppResult<Legend> {
    blocking(app, move |_, s| ops::legend(s, doc)).await
}

/// Where terms live on the map.
#[tauri::command]
pub async fn locate(app: AppHandle, doc: u32, terms: Vec<String>) -> AppResult<Vec<Located>> {
    blocking(app, move |_, s| ops::locate(s, doc, &terms)).await
}

/// What the open documents hold in their caches (the scale bench reads it beside the process's
/// memory). On a worker: it waits for the caches' locks.
#[tauri::command]
pub async fn memory_use(app: AppHandle) -> AppResult<MemoryView> {
    blocking(app, move |_, s| Ok(ops::memory_use(s))).await
}

/// Read counters of a document.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn read_stats(store: tauri::State<'_, Store>, doc: u32) -> AppResult<ReadView> {
    ops::read_stats(&store, doc)
}

/// Lets a remote document fetch `bytes` more than its read budget, once the user agreed in a
/// native dialog (the page cannot answer it: a script in the page must not lift the budget).
#[tauri::command]
pub async fn raise_read_budget(app: AppHandle, doc: u32, bytes: u64) -> AppResult<ReadView> {
    blocking(app, move |app, s| {
        let d = s.get(doc)?;
        let stats = ops::read_stats(s, doc)?;
        let (Some(budget), true) = (stats.budget, stats.remote) else {
            return Ok(stats);
        };
        let left = budget.saturating_sub(stats.fetched);
        let human = rete_coherence::human_bytes;
        let agreed = app
            .dialog()
            .message(format!(
                "This query may fetch about {} from {}, more than the {} left of its read budget ({}).\n\nFetch it?",
                human(bytes),
                d.origin,
                human(left),
                human(budget)
            ))
            .title("Read beyond the budget")
            .buttons(tauri_plugin_dialog::MessageDialogButtons::OkCancelCustom(
                "Fetch and run".into(),
                "Cancel".into(),
            ))
            .blocking_show();
        if !agreed {
            return Err(AppError::Cancelled("not run: the read budget was kept".into()));
        }
        ops::raise_read_budget(s, doc, bytes)
    })
    .await
}

/// The search box's hits as run `run`; `kind`: `entity`, `class` or `predicate`; `within`: a
/// community's map key.
#[tauri::command]
pub async fn search(
    app: AppHandle,
    doc: u32,
    run: u32,
    text: String,
    kind: Option<rete_explore::model::HitKind>,
    within: Option<String>,
    limit: Option<usize>,
) -> AppResult<rete_explore::model::SearchView> {
    let req = rete_explore::engine::SearchRequest {
        text,
        kind,
        within,
        limit: limit.unwrap_or(12),
    };
    timed(app, "search", move |_, s| ops::search(s, doc, run, &req)).await
}

/// How two entities are connected: the `k` shortest paths, as path run `run`.
#[tauri::command]
#[allow(clippy::too_many_arguments)]
pub async fn paths(
    app: AppHandle,
    doc: u32,
    run: u32,
    from: u64,
    to: u64,
    k: Option<usize>,
    max_hops: Option<u32>,
    filters: Option<rete_explore::model::PathFilters>,
) -> AppResult<rete_explore::model::PathsView> {
    timed(app, "paths", move |_, s| {
        let q = ops::PathQuery {
            filters: filters.unwrap_or_default(),
            ..ops::PathQuery::new(from, to, k.unwrap_or(5), max_hops.unwrap_or(6))
        };
        ops::paths(s, doc, run, &q)
    })
    .await
}

/// Stops a path search (it answers with the paths found so far).
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn paths_cancel(store: tauri::State<'_, Store>, run: u32) {
    ops::paths_cancel(&store, run);
}

/// Stops a search.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn search_cancel(store: tauri::State<'_, Store>, run: u32) {
    ops::search_cancel(&store, run);
}

/// The query editor's context.
#[tauri::command]
pub async fn sparql_context(app: AppHandle, doc: u32) -> AppResult<SparqlContext> {
    blocking(app, move |_, s| ops::sparql_context(s, doc)).await
}

/// Runs a query on a worker thread; `all_graphs`: the default graph is the union of all graphs.
#[tauri::command]
pub async fn sparql_run(
    app: AppHandle,
    doc: u32,
    run: u32,
    query: String,
    timeout_ms: Option<u64>,
    all_graphs: Option<bool>,
) -> AppResult<QueryOutcome> {
    let options = ops::RunOptions {
        timeout_ms,
        all_graphs: all_graphs.unwrap_or(false),
    };
    blocking(app, move |app, s| {
        if timeout_ms == Some(0) {
            unlimited_agreed(app, s, doc)?;
        }
        ops::sparql_run_with(s, doc, run, &query, options)
    })
    .await
}

/// Documents whose queries the user let run without a time limit (asked once per document, in a
/// native dialog: the page alone cannot remove the deadline).
static UNLIMITED: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

fn unlimited_agreed(app: &AppHandle, s: &Store, doc: u32) -> AppResult<()> {
    let agreed = || {
        UNLIMITED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&doc)
    };
    if agreed() {
        return Ok(());
    }
    let d = s.get(doc)?;
    let yes = app
        .dialog()
        .message(format!(
            "Run queries on {} without a time limit?\n\nA query then runs until it ends or you cancel it.",
            d.origin
        ))
        .title("No time limit")
        .buttons(tauri_plugin_dialog::MessageDialogButtons::OkCancelCustom(
            "Run without a limit".into(),
            "Cancel".into(),
        ))
        .blocking_show();
    if !yes {
        return Err(AppError::Cancelled(
            "not run: set a time limit, or agree to run without one".into(),
        ));
    }
    UNLIMITED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(doc);
    Ok(())
}

/// A page of a kept result.
#[tauri::command]
pub async fn sparql_rows(
    app: AppHandle,
    run: u32,
    offset: usize,
    limit: usize,
) -> AppResult<Vec<Vec<Option<TermView>>>> {
    blocking(app, move |_, s| ops::sparql_rows(s, run, offset, limit)).await
}

/// Cancels a query.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn sparql_cancel(store: tauri::State<'_, Store>, run: u32) {
    ops::sparql_cancel(&store, run);
}

/// The read cost of a query before it runs.
#[tauri::command]
pub async fn sparql_cost(
    app: AppHandle,
    doc: u32,
    query: String,
    all_graphs: Option<bool>,
) -> AppResult<CostEstimate> {
    blocking(app, move |_, s| {
        ops::sparql_cost_with(s, doc, &query, all_graphs.unwrap_or(false))
    })
    .await
}

/// Asks where to save a kept result (native dialog) and writes it as CSV, TSV or JSON.
#[tauri::command]
pub async fn sparql_export(app: AppHandle, run: u32, format: String) -> AppResult<Option<String>> {
    blocking(app, move |app, s| {
        let Some(path) = save_dialog(app, "Export results", &format!("results.{format}"), &format)?
        else {
            return Ok(None);
        };
        ops::sparql_write(s, run, &format, &path)?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// Runs the coherence check; progress arrives as [`EVENT_COHERENCE`] events.
#[tauri::command]
pub async fn coherence_run(app: AppHandle, doc: u32, run: u32) -> AppResult<CoherenceOutcome> {
    let timings = std::env::var_os("RETE_TIMINGS").is_some();
    blocking(app, move |app, s| {
        let t0 = std::time::Instant::now();
        ops::coherence_run(s, doc, run, |report| {
            if timings {
                let ms = t0.elapsed().as_secs_f64() * 1000.0;
                eprintln!("rete-timing coherence-tier{} {ms:.1} ms", report.tier);
            }
            let _ = app.emit(
                EVENT_COHERENCE,
                CoherenceProgress {
                    run,
                    tier: report.tier,
                    report: report.clone(),
                },
            );
        })
    })
    .await
}

/// Shows the native open dialog for a shapes file (any RDF syntax); the chosen path, which the
/// page may then validate with, or `None` if cancelled.
#[tauri::command]
pub async fn shapes_pick(app: AppHandle) -> AppResult<Option<String>> {
    blocking(app, |app, _| {
        let picked = app
            .dialog()
            .file()
            .set_title("Validate with SHACL shapes")
            .add_filter("RDF", &rete_explore::import::DIALOG_EXTENSIONS[1..])
            .blocking_pick_file();
        let Some(path) = picked_path(picked)? else {
            return Ok(None);
        };
        let path = path.display().to_string();
        app.state::<crate::grant::Grants>().grant([&path]);
        Ok(Some(path))
    })
    .await
}

/// Validates `doc` against the shapes file `shapes` (one the user chose) or, without it, against
/// the shapes the dataset holds.
#[tauri::command]
pub async fn shapes_run(
    app: AppHandle,
    doc: u32,
    run: u32,
    shapes: Option<String>,
) -> AppResult<ShapesOutcome> {
    blocking(app, move |app, s| {
        if let Some(p) = &shapes {
            chosen(app, p, Ask::Never)?;
        }
        ops::shapes_run(s, doc, run, shapes.as_deref().map(std::path::Path::new))
    })
    .await
}

/// Cancels a SHACL validation.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn shapes_cancel(store: tauri::State<'_, Store>, run: u32) {
    ops::shapes_cancel(&store, run);
}

/// Cancels a coherence check.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn coherence_cancel(store: tauri::State<'_, Store>, run: u32) {
    ops::coherence_cancel(&store, run);
}

/// Asks where to save the last coherence report and writes it as JSON or Markdown.
#[tauri::command]
pub async fn coherence_export(
    app: AppHandle,
    doc: u32,
    format: String,
) -> AppResult<Option<String>> {
    blocking(app, move |app, s| {
        let Some(path) = save_dialog(
            app,
            "Export coherence report",
            &format!("coherence.{format}"),
            &format,
        )?
        else {
            return Ok(None);
        };
        ops::coherence_write(s, doc, &format, &path)?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// The native save dialog; `None` if cancelled.
fn save_dialog(app: &AppHandle, title: &str, name: &str, ext: &str) -> AppResult<Option<PathBuf>> {
    let picked = app
        .dialog()
        .file()
        .set_title(title)
        .set_file_name(name)
        .add_filter(ext.to_uppercase(), &[ext])
        .blocking_save_file();
    picked
        .map(|p| p.into_path().map_err(|e| AppError::Invalid(e.to_string())))
        .transpose()
}

/// Saves an exported view: asks where (native save dialog), then writes the PNG (sent as a
/// `data:` URL) or SVG text. Returns the written path, `None` if cancelled.
#[tauri::command]
pub async fn export_view(
    app: AppHandle,
    format: String,
    data: String,
    name: String,
) -> AppResult<Option<String>> {
    blocking(app, move |app, _| {
        let bytes = decode_export(&format, &data)?;
        let picked = app
            .dialog()
            .file()
            .set_title("Export view")
            .set_file_name(format!("{name}.{format}"))
            .add_filter(format.to_uppercase(), &[format.as_str()])
            .blocking_save_file();
        let Some(path) = picked_path(picked)? else {
            return Ok(None);
        };
        rete_explore::store::write_atomic(&path, |w| w.write_all(&bytes))
            .map_err(|e: std::io::Error| AppError::Invalid(format!("{}: {e}", path.display())))?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// The bytes of an export: SVG text as is, PNG from a base64 `data:` URL.
pub fn decode_export(format: &str, data: &str) -> AppResult<Vec<u8>> {
    use base64::Engine as _;
    match format {
        "svg"
            if data.trim_start().starts_with("<svg") || data.trim_start().starts_with("<?xml") =>
        {
            Ok(data.as_bytes().to_vec())
        }
        "png" => {
            let b64 = data
                .strip_prefix("data:image/png;base64,")
                .ok_or_else(|| AppError::Invalid("PNG export is not a PNG data URL".into()))?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| AppError::Invalid(format!("PNG export: {e}")))?;
            if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
                Ok(bytes)
            } else {
                Err(AppError::Invalid("PNG export is not a PNG image".into()))
            }
        }
        _ => Err(AppError::Invalid(format!("cannot export as {format}"))),
    }
}

pub use rete_explore::trace::LAUNCH_TRACE;

/// The UI's first view is on screen. With [`LAUNCH_TRACE`] set, prints one JSON line on stdout:
/// the wall-clock time, the time since the process started, the shell's marks (ms since the
/// process started), the page's own marks (ms since the webview began loading it) and when that
/// was on the process's clock.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn launch_drawn(
    app: AppHandle,
    marks: std::collections::BTreeMap<String, f64>,
    origin_unix_ms: f64,
) {
    let Ok(mode) = std::env::var(LAUNCH_TRACE) else {
        return;
    };
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1e3);
    let since = rete_explore::trace::since_start_ms();
    let round = |x: f64| (x * 10.0).round() / 10.0;
    let shell: serde_json::Map<String, serde_json::Value> = rete_explore::trace::marks()
        .into_iter()
        .map(|(k, v)| (k.to_string(), round(v).into()))
        .collect();
    let line = serde_json::json!({
        "drawn_unix_ms": wall.round(),
        "since_start_ms": round(since),
        "shell_ms": shell,
        "page_origin_ms": round(origin_unix_ms - (wall - since)),
        "page_ms": marks,
    });
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    if mode == "exit" {
        app.exit(0);
    }
}

#[cfg(test)]
mod tests {
    use super::{decode_export, thread_usage};

    #[test]
    fn exports_accept_only_real_png_and_svg() {
        let png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
        assert!(decode_export("png", png).unwrap().starts_with(b"\x89PNG"));
        assert!(decode_export("png", "data:image/png;base64,aGVsbG8=").is_err());
        assert!(decode_export("svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>").is_ok());
        assert!(decode_export("svg", "hello").is_err());
        assert!(decode_export("exe", "x").is_err());
    }

    #[test]
    fn a_threads_cpu_time_grows_with_its_work() {
        let before = thread_usage().expect("/proc/thread-self is readable on Linux");
        // Busy until 10 ms of CPU are counted (however long a loaded machine takes to give them).
        let t = std::time::Instant::now();
        let mut x = 0u64;
        let after = loop {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            let now = thread_usage().expect("/proc/thread-self is readable on Linux");
            if now.cpu_ns >= before.cpu_ns + 10_000_000 {
                break now;
            }
            assert!(
                t.elapsed() < std::time::Duration::from_secs(60),
                "no CPU time counted: {} → {} ns",
                before.cpu_ns,
                now.cpu_ns
            );
        };
        assert!(after.queued_ns >= before.queued_ns);
        assert!(after.disk_bytes >= before.disk_bytes);
    }
}
