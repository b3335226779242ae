//! The native file dialogs and the paths they return, shared by the commands and the import ones.

use rete_explore::engine::{AppError, AppResult};
use std::path::PathBuf;
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::DialogExt;

/// The local path of what a file dialog returned (`None`: the user cancelled).
pub(crate) fn picked_path(
    picked: Option<tauri_plugin_dialog::FilePath>,
) -> AppResult<Option<PathBuf>> {
    picked
        .map(|p| p.into_path().map_err(|e| AppError::Invalid(e.to_string())))
        .transpose()
}

/// Shows the native open dialog titled `title` with `filters` (a name and its extensions, in
/// order); the chosen file, or `None` if the user cancelled.
pub(crate) fn pick_file(
    app: &AppHandle,
    title: &str,
    filters: &[(&str, &[&str])],
) -> AppResult<Option<PathBuf>> {
    let mut dialog = app.dialog().file().set_title(title);
    for &(name, extensions) in filters {
        dialog = dialog.add_filter(name, extensions);
    }
    picked_path(dialog.blocking_pick_file())
}

/// The native save dialog; `None` if cancelled.
pub(crate) fn save_dialog(
    app: &AppHandle,
    title: &str,
    name: &str,
    ext: &str,
) -> AppResult<Option<PathBuf>> {
    let picked = app
        .dialog()
        .file()
        .set_title(title)
        .set_file_name(name)
        .add_filter(ext.to_uppercase(), &[ext])
        .blocking_save_file();
    picked_path(picked)
}

/// Grants the page the file the user chose in a dialog ([`crate::grant`]); its path as the page
/// names it.
pub(crate) fn grant_chosen(app: &AppHandle, path: &std::path::Path) -> String {
    let path = path.display().to_string();
    app.state::<crate::grant::Grants>().grant([&path]);
    path
}
