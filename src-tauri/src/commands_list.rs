/// The app commands the webview may call (shared by build.rs, which generates their permissions).
pub const COMMANDS: &[&str] = &[
    "open_path",
    "open_url",
    "open_dialog",
    "take_pending",
    "recent_files",
    "close_doc",
    "overview",
    "expand",
    "entity",
    "neighbourhood",
    "group",
    "legend",
    "export_view",
];
