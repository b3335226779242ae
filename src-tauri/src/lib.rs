#![doc = include_str!("../README.md")]

pub mod commands;
mod commands_list;
mod dialog;
pub mod grant;
mod handoff;
pub mod import;
mod recent;

pub use commands_list::COMMANDS;

use rete_explore::store::{self, Store};
use rete_explore::{cache, import as explore_import};
use std::path::PathBuf;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{Emitter, Manager};

/// Event telling the webview that files wait in the queue (`take_pending`).
pub const EVENT_OPEN: &str = "open-requested";
/// Event carrying the id of a clicked menu item.
pub const EVENT_MENU: &str = "menu";

/// Records a launch mark on the shell's side (see [`rete_explore::trace`]).
pub fn shell_mark(name: &'static str) {
    rete_explore::trace::mark(name);
}

/// Queues files to open and tells the webview, which drains the queue. The queue (rather than the
/// event payload) carries the paths so that files arriving before the page listens are not lost.
fn request_open<R: tauri::Runtime>(app: &tauri::AppHandle<R>, paths: Vec<String>) {
    if paths.is_empty() {
        return;
    }
    // The user handed these over through the shell: the page may open them (see `grant`). A view
    // link is not a source: its file is opened only once the user agreed (`open_link`).
    app.state::<grant::Grants>()
        .grant(paths.iter().filter(|p| !rete_explore::view::is_link(p)));
    app.state::<Store>().push_pending(paths);
    let _ = app.emit(EVENT_OPEN, ());
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.unminimize();
        let _ = w.set_focus();
    }
}

fn build_menu<R: tauri::Runtime>(app: &tauri::AppHandle<R>) -> tauri::Result<Menu<R>> {
    let file = Submenu::with_items(
        app,
        "File",
        true,
        &[
            &MenuItem::with_id(app, "open", "Open…", true, Some("CmdOrCtrl+O"))?,
            &MenuItem::with_id(app, "open-url", "Open URL…", true, Some("CmdOrCtrl+L"))?,
            &MenuItem::with_id(
                app,
                "save-rete",
                "Save as .rete…",
                true,
                Some("CmdOrCtrl+S"),
            )?,
            &MenuItem::with_id(app, "clear-cache", "Clear import cache", true, None::<&str>)?,
            &PredefinedMenuItem::separator(app)?,
            // Their keys (Ctrl+Shift+O, Ctrl+Shift+S) are the page's, with its other shortcuts.
            &MenuItem::with_id(app, "open-view", "Open view…", true, None::<&str>)?,
            &MenuItem::with_id(app, "save-view", "Save view…", true, None::<&str>)?,
            &MenuItem::with_id(
                app,
                "copy-link",
                "Copy link to this view",
                true,
                None::<&str>,
            )?,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, "export-png", "Export view as PNG…", true, None::<&str>)?,
            &MenuItem::with_id(app, "export-svg", "Export view as SVG…", true, None::<&str>)?,
            &PredefinedMenuItem::separator(app)?,
            &PredefinedMenuItem::quit(app, Some("Quit"))?,
        ],
    )?;
    let view = Submenu::with_items(
        app,
        "View",
        true,
        &[
            &MenuItem::with_id(
                app,
                "zoom-out",
                "Back to overview",
                true,
                Some("CmdOrCtrl+0"),
            )?,
            &MenuItem::with_id(app, "toggle-legend", "Legend", true, None::<&str>)?,
        ],
    )?;
    Menu::with_items(app, &[&file, &view])
}

/// If the webview's process ends (on a machine without a GPU, WebKit composites in Mesa's
/// software GL, which has crashed it during long explorations), the page would stay blank: it is
/// loaded again and opens the last document again (see [`Store::reopen_after_crash`]).
#[cfg(target_os = "linux")]
fn reload_after_crash(app: &tauri::App) -> tauri::Result<()> {
    use webkit2gtk::{WebProcessTerminationReason, WebViewExt};
    let Some(window) = app.get_webview_window("main") else {
        return Ok(());
    };
    let handle = app.handle().clone();
    window.with_webview(move |webview| {
        webview
            .inner()
            .connect_web_process_terminated(move |view, reason| {
                // Ended on purpose (the window closing): nothing to recover.
                if reason == WebProcessTerminationReason::TerminatedByApi {
                    return;
                }
                let again = handle.state::<Store>().reopen_after_crash();
                eprintln!(
                    "rete-desktop: the webview's process ended ({reason:?}); loading the page again{}",
                    again.map_or(String::new(), |s| format!(" with {s}"))
                );
                view.reload();
            });
    })
}

#[cfg(not(target_os = "linux"))]
fn reload_after_crash(_: &tauri::App) -> tauri::Result<()> {
    Ok(())
}

/// Starts the app: plugins, state, menu, window events and the command handlers.
pub fn run() {
    rete_explore::trace::start();
    let context = tauri::generate_context!();
    // A second launch: the running window takes the files; no GUI starts here (see handoff).
    if handoff::to_running_instance(&context.config().identifier) {
        std::process::exit(0);
    }
    let app = tauri::Builder::default()
        // Must be the first plugin: a second launch hands its files to this instance and exits.
        .plugin(tauri_plugin_single_instance::init(|app, argv, cwd| {
            request_open(app, store::file_args(&argv, &PathBuf::from(cwd)));
        }))
        .plugin(tauri_plugin_dialog::init())
        .manage(Store::default())
        .manage(grant::Grants::default())
        .setup(|app| {
            // Tauri has created the configured window and its webview by now.
            shell_mark("setup");
            let cache_dir = explore_import::cache_dir(app.path().app_data_dir().ok());
            app.manage(explore_import::Importer::new(cache::Cache::new(
                cache_dir,
                cache::Cache::limit_from_env(),
            )));
            let argv: Vec<String> = std::env::args().collect();
            let cwd = std::env::current_dir().unwrap_or_default();
            let args = store::file_args(&argv, &cwd);
            app.state::<grant::Grants>()
                .grant(args.iter().filter(|a| !rete_explore::view::is_link(a)));
            app.state::<Store>().push_pending(args);
            let menu = build_menu(app.handle())?;
            app.set_menu(menu)?;
            app.on_menu_event(|app, event| {
                let _ = app.emit(EVENT_MENU, event.id().0.as_str());
            });
            reload_after_crash(app)?;
            shell_mark("setup-done");
            Ok(())
        })
        .on_page_load(|_, payload| match payload.event() {
            tauri::webview::PageLoadEvent::Started => shell_mark("page-started"),
            tauri::webview::PageLoadEvent::Finished => shell_mark("page-finished"),
        })
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = event {
                let paths = paths.iter().map(|p| p.display().to_string()).collect();
                request_open(window.app_handle(), paths);
            }
        })
        .invoke_handler(tauri::generate_handler![
            commands::open_path,
            commands::open_url,
            commands::views::open_link,
            commands::views::copy_link,
            commands::views::save_view,
            commands::views::open_view_file,
            commands::report::shapes_pick,
            commands::report::shapes_run,
            commands::report::shapes_cancel,
            commands::open_dialog,
            commands::take_pending,
            commands::take_notice,
            commands::set_languages,
            commands::recent_files,
            commands::close_doc,
            commands::map::overview,
            commands::map::expand,
            commands::map::entity,
            commands::map::neighbourhood,
            commands::map::group,
            commands::map::legend,
            commands::export::export_view,
            commands::map::locate,
            commands::map::read_stats,
            commands::map::memory_use,
            commands::map::raise_read_budget,
            commands::map::search,
            commands::map::search_spread,
            commands::map::paths,
            commands::map::paths_cancel,
            commands::map::search_cancel,
            commands::query::sparql_context,
            commands::query::sparql_run,
            commands::query::sparql_rows,
            commands::query::sparql_cancel,
            commands::query::sparql_cost,
            commands::query::sparql_export,
            commands::report::coherence_run,
            commands::report::coherence_cancel,
            commands::report::coherence_export,
            commands::launch_drawn,
            import::app::import_cancel,
            import::app::cache_stats,
            import::app::cache_clear,
            import::app::save_rete,
            import::app::index_add,
            import::app::index_cancel,
        ])
        .build(context)
        .unwrap_or_else(|e| {
            eprintln!("rete-desktop: cannot start: {e}");
            std::process::exit(1)
        });
    shell_mark("built");
    app.run(|_app, _event| {
        if let tauri::RunEvent::Ready = &_event {
            shell_mark("ready");
        }
        // macOS delivers "open with" / double-clicked files as an event, not in argv.
        #[cfg(any(target_os = "macos", target_os = "ios"))]
        if let tauri::RunEvent::Opened { urls } = &_event {
            let paths = urls
                .iter()
                .filter_map(|u| u.to_file_path().ok())
                .map(|p| p.display().to_string())
                .collect();
            request_open(_app, paths);
        }
    });
}
