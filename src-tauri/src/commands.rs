//! The Tauri commands. Each one is a thin async wrapper that runs an [`ops`] function on a
//! blocking worker thread, so the main (UI) thread never waits on file or network reads.

use crate::engine::{AppError, AppResult};
use crate::model::{DocInfo, EntityDetails, GroupDetails, Legend, MapView};
use crate::store::Store;
use std::path::PathBuf;
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::DialogExt;

/// The command bodies, callable without a running app (the Rust tests call these directly).
pub mod ops {
    use crate::engine::{AppError, AppResult, Doc};
    use crate::model::{DocInfo, EntityDetails, GroupDetails, Legend, MapView};
    use crate::store::Store;
    use std::path::Path;

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
        let url = url.trim();
        if !rete_http::is_url(url) {
            return Err(AppError::Invalid(format!(
                "{url}: only http:// and https:// URLs can be opened"
            )));
        }
        let reader =
            rete_http::HttpReader::open(url).map_err(|e| AppError::Invalid(e.to_string()))?;
        let doc = Doc::open_reader(std::sync::Arc::new(reader))?;
        let (id, doc) = store.insert(doc);
        doc.info(id)
    }

    /// The first map: the pyramid's top level, or the class overview without a pyramid.
    pub fn overview(store: &Store, doc: u32) -> AppResult<MapView> {
        store.get(doc)?.class_overview()
    }

    /// What a node of the map opens into when the camera zooms into it.
    pub fn expand(
        store: &Store,
        doc: u32,
        key: &str,
        x: f32,
        y: f32,
        r: f32,
    ) -> AppResult<MapView> {
        let d = store.get(doc)?;
        match key.split_once(':') {
            Some(("k", id)) => d.class_members(parse_id(id)?, (x, y, r)),
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
        match key.split_once(':') {
            Some(("k", id)) => d.class_group(parse_id(id)?),
            _ => Err(AppError::Invalid(format!("map node {key} is not a group"))),
        }
    }

    /// The schema legend.
    pub fn legend(store: &Store, doc: u32) -> AppResult<Legend> {
        store.get(doc)?.card_legend()
    }

    fn parse_id(s: &str) -> AppResult<u64> {
        s.parse()
            .map_err(|_| AppError::Invalid(format!("bad node id {s}")))
    }
}

async fn blocking<T, F>(app: AppHandle, f: F) -> AppResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppHandle, &Store) -> AppResult<T> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || f(&app, &app.state::<Store>()))
        .await
        .map_err(|e| AppError::Invalid(format!("background task failed: {e}")))?
}

fn recent_file(app: &AppHandle) -> Option<PathBuf> {
    app.path()
        .app_config_dir()
        .ok()
        .map(|d| d.join("recent.json"))
}

fn opened(app: &AppHandle, info: &DocInfo) {
    if let Some(f) = recent_file(app) {
        let _ = crate::store::recent_push(&f, &info.source);
    }
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.set_title(&format!("{} — Rete", info.name));
    }
}

/// Opens a local file.
#[tauri::command]
pub async fn open_path(app: AppHandle, path: String) -> AppResult<DocInfo> {
    blocking(app, move |app, s| {
        let info = ops::open_path(s, &path)?;
        opened(app, &info);
        Ok(info)
    })
    .await
}

/// Opens a URL.
#[tauri::command]
pub async fn open_url(app: AppHandle, url: String) -> AppResult<DocInfo> {
    blocking(app, move |app, s| {
        let info = ops::open_url(s, &url)?;
        opened(app, &info);
        Ok(info)
    })
    .await
}

/// Shows the native open dialog (filtered to `.rete`) and opens the chosen file; `None` if the
/// user cancelled. The dialog runs here, so the webview never needs file-system permissions.
#[tauri::command]
pub async fn open_dialog(app: AppHandle) -> AppResult<Option<DocInfo>> {
    blocking(app, |app, s| {
        let picked = app
            .dialog()
            .file()
            .set_title("Open a .rete file")
            .add_filter("Rete knowledge graph", &["rete"])
            .blocking_pick_file();
        let Some(picked) = picked else {
            return Ok(None);
        };
        let path = picked
            .into_path()
            .map_err(|e| AppError::Invalid(e.to_string()))?;
        let info = ops::open_path(s, &path.display().to_string())?;
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

/// The recent-files list, most recent first.
#[tauri::command]
// Tauri hands command arguments over by value.
#[allow(clippy::needless_pass_by_value)]
pub fn recent_files(app: AppHandle) -> Vec<String> {
    recent_file(&app)
        .map(|f| crate::store::recent_load(&f))
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
    blocking(app, move |_, s| ops::overview(s, doc)).await
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
    blocking(app, move |_, s| ops::expand(s, doc, &key, x, y, r)).await
}

/// Details of an entity.
#[tauri::command]
pub async fn entity(app: AppHandle, doc: u32, id: u64) -> AppResult<EntityDetails> {
    blocking(app, move |_, s| ops::entity(s, doc, id)).await
}

/// Neighbourhood of an entity.
#[tauri::command]
pub async fn neighbourhood(app: AppHandle, doc: u32, id: u64) -> AppResult<MapView> {
    blocking(app, move |_, s| ops::neighbourhood(s, doc, id)).await
}

/// Details of a group node.
#[tauri::command]
pub async fn group(app: AppHandle, doc: u32, key: String) -> AppResult<GroupDetails> {
    blocking(app, move |_, s| ops::group(s, doc, &key)).await
}

/// The legend.
#[tauri::command]
pub async fn legend(app: AppHandle, doc: u32) -> AppResult<Legend> {
    blocking(app, move |_, s| ops::legend(s, doc)).await
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
        let Some(picked) = picked else {
            return Ok(None);
        };
        let path = picked
            .into_path()
            .map_err(|e| AppError::Invalid(e.to_string()))?;
        std::fs::write(&path, bytes)
            .map_err(|e| AppError::Invalid(format!("{}: {e}", path.display())))?;
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
