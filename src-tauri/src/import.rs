//! Importing in the desktop shell: the build progress sent to the window as events, and the
//! Tauri commands of importing and the cache (the builds themselves: `rete_explore::import`).

/// The Tauri commands of importing and the cache.
pub mod app {
    use crate::dialog::picked_path;
    use crate::recent::opened;
    use rete_explore::cache::CacheStats;
    use rete_explore::engine::{AppError, AppResult};
    use rete_explore::import::{save_copy, Importer, EVENT_IMPORT};
    use rete_explore::index::{IndexDestination, EVENT_INDEX};
    use rete_explore::model::DocInfo;
    use rete_explore::store::Store;
    use std::sync::Arc;
    use tauri::{AppHandle, Emitter, Manager};
    use tauri_plugin_dialog::DialogExt;

    /// Opens a local file of any kind, sending build progress to the window.
    pub fn open_any(app: &AppHandle, store: &Store, path: &str) -> AppResult<DocInfo> {
        app.state::<Importer>().open(store, path, emitter(app))
    }

    /// Opens a URL: an RDF document is downloaded and built, a `.rete` is read in place. A
    /// redirect to another host is followed only if the user says yes in a native dialog (the
    /// page cannot answer it), for this document.
    pub fn open_url_any(app: &AppHandle, store: &Store, url: &str) -> AppResult<DocInfo> {
        let url = url.trim();
        let ask = |from: &str, to: &str| follow_redirect_dialog(app, from, to);
        rete_explore::ops::asking_for_redirects(ask, |hosts| {
            if rete_explore::import::url_is_rdf(url) {
                app.state::<Importer>()
                    .open_url_allowing(store, url, hosts, emitter(app))
            } else {
                rete_explore::ops::open_url_allowing(store, url, hosts)
            }
        })
    }

    /// The native confirmation of a redirect to another host.
    fn follow_redirect_dialog(app: &AppHandle, from: &str, to: &str) -> bool {
        app.dialog()
            .message(rete_explore::ops::redirect_question(from, to))
            .title("Follow a redirect to another host")
            .buttons(tauri_plugin_dialog::MessageDialogButtons::OkCancelCustom(
                "Follow".into(),
                "Cancel".into(),
            ))
            .blocking_show()
    }

    fn emitter(app: &AppHandle) -> rete_explore::import::Emit {
        emitter_of(app, EVENT_IMPORT)
    }

    fn emitter_of(app: &AppHandle, event: &'static str) -> rete_explore::import::Emit {
        let handle = app.clone();
        Arc::new(move |v| {
            let _ = handle.emit(event, v);
        })
    }

    /// Stops a build; its open request then fails with "import cancelled".
    #[tauri::command]
    // Tauri hands command arguments over by value.
    #[allow(clippy::needless_pass_by_value)]
    pub fn import_cancel(importer: tauri::State<'_, Importer>, job: u32) {
        importer.cancel(job);
    }

    /// Files and bytes in the build cache.
    #[tauri::command]
    pub async fn cache_stats(app: AppHandle) -> AppResult<CacheStats> {
        tauri::async_runtime::spawn_blocking(move || app.state::<Importer>().cache().stats())
            .await
            .map_err(|e| AppError::Invalid(format!("background task failed: {e}")))
    }

    /// Empties the build cache; returns what was freed. Open documents keep reading their files.
    #[tauri::command]
    pub async fn cache_clear(app: AppHandle) -> AppResult<CacheStats> {
        tauri::async_runtime::spawn_blocking(move || app.state::<Importer>().clear_cache())
            .await
            .map_err(|e| AppError::Invalid(format!("background task failed: {e}")))
    }

    /// Asks where to save the open document as a `.rete` (native dialog) and copies its file
    /// there. Returns the written path, `None` if cancelled.
    #[tauri::command]
    pub async fn save_rete(app: AppHandle, doc: u32, name: String) -> AppResult<Option<String>> {
        tauri::async_runtime::spawn_blocking(move || {
            let stem = name
                .split('.')
                .next()
                .filter(|s| !s.is_empty())
                .unwrap_or("graph");
            let picked = app
                .dialog()
                .file()
                .set_title("Save as .rete")
                .set_file_name(format!("{stem}.rete"))
                .add_filter("Rete knowledge graph", &["rete"])
                .blocking_save_file();
            let Some(path) = picked_path(picked)? else {
                return Ok(None);
            };
            save_copy(&app.state::<Store>(), doc, &path)?;
            Ok(Some(path.display().to_string()))
        })
        .await
        .map_err(|e| AppError::Invalid(format!("background task failed: {e}")))?
    }

    /// Adds a search index to the open document `doc` and opens the result (the page closes the
    /// old document): a file the app built gets it in its cache entry; for a user's `.rete` a
    /// native dialog asks where to save it (it proposes a new name beside the file, and asks
    /// before replacing one). Progress arrives as `index-progress` events. `None` if the user
    /// cancelled the dialog; a document read over HTTP is refused (adding an index reads it all).
    #[tauri::command]
    pub async fn index_add(app: AppHandle, doc: u32) -> AppResult<Option<DocInfo>> {
        tauri::async_runtime::spawn_blocking(move || {
            let importer = app.state::<Importer>();
            let store = app.state::<Store>();
            let to = match importer.index_destination(&store, doc)? {
                IndexDestination::Cache => None,
                IndexDestination::Choose { suggested } => {
                    let mut dialog = app
                        .dialog()
                        .file()
                        .set_title("Save with a search index")
                        .add_filter("Rete knowledge graph", &["rete"]);
                    if let Some(dir) = suggested.parent() {
                        dialog = dialog.set_directory(dir);
                    }
                    if let Some(name) = suggested.file_name() {
                        dialog = dialog.set_file_name(name.to_string_lossy());
                    }
                    let picked = picked_path(dialog.blocking_save_file())?;
                    let Some(path) = picked else {
                        return Ok(None);
                    };
                    Some(path)
                }
            };
            let info =
                importer.add_index(&store, doc, to.as_deref(), emitter_of(&app, EVENT_INDEX))?;
            // The user chose this file: it may be opened again (the recent list, a view).
            app.state::<crate::grant::Grants>().grant([&info.source]);
            opened(&app, &info);
            Ok(Some(info))
        })
        .await
        .map_err(|e| AppError::Invalid(format!("background task failed: {e}")))?
    }

    /// Stops adding a search index; `index_add` then fails with a cancel.
    #[tauri::command]
    // Tauri hands command arguments over by value.
    #[allow(clippy::needless_pass_by_value)]
    pub fn index_cancel(importer: tauri::State<'_, Importer>, job: u32) {
        importer.cancel(job);
    }
}
