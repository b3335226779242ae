//! The recent-files list and the window's title, which every way of opening a document updates.

use rete_explore::model::DocInfo;
use std::path::PathBuf;
use tauri::{AppHandle, Manager};

/// The recent-files list's file in the app's config folder.
pub(crate) fn recent_file(app: &AppHandle) -> Option<PathBuf> {
    app.path()
        .app_config_dir()
        .ok()
        .map(|d| d.join("recent.json"))
}

/// A document was opened: on the recent list, its name in the window's title.
pub(crate) fn opened(app: &AppHandle, info: &DocInfo) {
    if let Some(f) = recent_file(app) {
        let _ = rete_explore::store::recent_push(&f, &info.source);
    }
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.set_title(&format!("{} — Rete", info.name));
    }
}
