//! The Tauri commands. Each one is a thin async wrapper that runs an [`ops`] function on a
//! blocking worker thread, so the main (UI) thread never waits on file or network reads.

use crate::dialog::{grant_chosen, pick_file};
use crate::recent::{opened, recent_file};
use rete_explore::engine::{AppError, AppResult};
use rete_explore::model::{
    CoherenceOutcome, CoherenceProgress, CostEstimate, DocInfo, EntityDetails, GroupDetails,
    Legend, Located, MapView, MemoryView, QueryOutcome, ReadView, ShapesOutcome, ShapesProgress,
    SparqlContext, TermView,
};
use rete_explore::store::Store;
use rete_explore::view::{OpenedView, SavedView};
use std::io::Write as _;
use tauri::{AppHandle, Emitter, Manager};
use tauri_plugin_dialog::DialogExt;

/// Event carrying a [`CoherenceProgress`] as each tier of a check finishes.
pub const EVENT_COHERENCE: &str = "coherence-progress";

/// Event carrying a [`ShapesProgress`] as a SHACL validation advances.
pub const EVENT_SHAPES: &str = "shapes-progress";

pub use rete_explore::ops;

pub mod export;
pub mod map;
pub mod query;
pub mod report;
pub mod views;
pub use export::decode_export;

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
        use rete_explore::import::DIALOG_EXTENSIONS;
        let filters: [(&str, &[&str]); 3] = [
            ("Knowledge graphs", DIALOG_EXTENSIONS),
            ("Rete knowledge graph", &["rete"]),
            ("RDF", &DIALOG_EXTENSIONS[1..]),
        ];
        let Some(path) = pick_file(app, "Open a .rete or RDF file", &filters)? else {
            return Ok(None);
        };
        let path = grant_chosen(app, &path);
        let info = crate::import::app::open_any(app, s, &path)?;
        opened(app, &info);
        Ok(Some(info))
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
