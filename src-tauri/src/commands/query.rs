//! SPARQL in the query pane: context, runs (a run without a time limit, and each endpoint a
//! `SERVICE` calls, asked natively once per document), pages, cost, export.

use super::*;
use crate::dialog::save_dialog;

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
    blocking(app, move |app, s| {
        if timeout_ms == Some(0) {
            unlimited_agreed(app, s, doc)?;
        }
        let options = ops::RunOptions {
            timeout_ms,
            all_graphs: all_graphs.unwrap_or(false),
            allow_service: services_agreed(app, s, doc, &query)?,
        };
        ops::sparql_run_with(s, doc, run, &query, options)
    })
    .await
}

/// Hosts whose endpoints the user let queries of a document call with `SERVICE`.
static SERVICE_HOSTS: std::sync::Mutex<Vec<(u32, String)>> = std::sync::Mutex::new(Vec::new());

/// The hosts the query's `SERVICE` endpoints may be called on: each host asked once per document
/// in a native dialog (a query is text anyone can paste; the page cannot agree for the user).
fn services_agreed(app: &AppHandle, s: &Store, doc: u32, query: &str) -> AppResult<Vec<String>> {
    let endpoints = ops::sparql_services(s, doc, query)?;
    if endpoints.is_empty() {
        return Ok(Vec::new());
    }
    let granted = || {
        SERVICE_HOSTS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(d, _)| *d == doc)
            .map(|(_, h)| h.clone())
            .collect::<Vec<_>>()
    };
    for url in endpoints {
        let Some((host, _)) = rete_sparql::host_port(&url) else {
            continue; // not http(s): the engine refuses it with the reason
        };
        if granted().contains(&host) {
            continue;
        }
        let d = s.get(doc)?;
        let yes = app
            .dialog()
            .message(format!(
                "This query calls another SPARQL endpoint:\n{url}\n\nAllow queries on {} to send queries to {host}? Parts of the query (and values from {}) go to that server.",
                d.origin, d.origin
            ))
            .title("Query another endpoint")
            .buttons(tauri_plugin_dialog::MessageDialogButtons::OkCancelCustom(
                format!("Allow {host}"),
                "Cancel".into(),
            ))
            .blocking_show();
        if !yes {
            return Err(AppError::Cancelled(format!(
                "not run: the query calls {url}, which you did not allow"
            )));
        }
        SERVICE_HOSTS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((doc, host));
    }
    Ok(granted())
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
