//! The map and what it asks: views of the pyramid and classes, details, the read budget, search
//! and paths.

use super::*;

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
        let human = rete_core::human::bytes;
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

/// Where all the matches of `text` are on the map, as search run `run` (`search_cancel` stops it).
#[tauri::command]
pub async fn search_spread(
    app: AppHandle,
    doc: u32,
    run: u32,
    text: String,
    kind: Option<rete_explore::model::HitKind>,
    within: Option<String>,
) -> AppResult<rete_explore::model::SpreadView> {
    let req = rete_explore::engine::SearchRequest {
        text,
        kind,
        within,
        limit: 1,
    };
    timed(app, "search_spread", move |_, s| {
        ops::search_spread(s, doc, run, &req)
    })
    .await
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
