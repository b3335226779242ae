#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a tool")]

fn main() {
    // Only these app commands exist for the webview; the capability file grants them.
    let manifest = tauri_build::AppManifest::new().commands(rete_desktop_commands::COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("tauri-build failed");
}

mod rete_desktop_commands {
    include!("src/commands_list.rs");
}
