//! The report pane: the coherence check and SHACL validation, with their exports.

use super::*;
use crate::dialog::{grant_chosen, pick_file, save_dialog};

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
        let rdf = &rete_explore::import::DIALOG_EXTENSIONS[1..];
        let picked = pick_file(app, "Validate with SHACL shapes", &[("RDF", rdf)])?;
        Ok(picked.map(|path| grant_chosen(app, &path)))
    })
    .await
}

/// Validates `doc` against the shapes file `shapes` (one the user chose) or, without it, against
/// the shapes the dataset holds; progress arrives as [`EVENT_SHAPES`] events.
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
        let emitter = app.clone();
        ops::shapes_run(
            s,
            doc,
            run,
            shapes.as_deref().map(std::path::Path::new),
            move |p: ShapesProgress| {
                let _ = emitter.emit(EVENT_SHAPES, p);
            },
        )
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
