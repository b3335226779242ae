//! Saved views: `rete://` links and view files, opened once the user agreed, and the clipboard.

use super::*;
use crate::dialog::{pick_file, save_dialog};
use crate::recent::opened;

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
        let Some(path) = pick_file(app, "Open a saved view", &[("Rete view", &["json"])])? else {
            return Ok(None);
        };
        let view = rete_explore::view::read_file(&path)
            .map_err(|e| AppError::Invalid(format!("{}: {e}", path.display())))?;
        open_view_source(app, s, view).map(Some)
    })
    .await
}
