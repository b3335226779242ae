//! One command, one name in every list: the handlers registered in `lib.rs`, the permission list
//! (`COMMANDS`, from which build.rs generates the permissions), the capability the window is
//! granted, and the UI's backend. A command added to one list and missed in another fails here,
//! not at run time in the webview.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use std::collections::BTreeSet;
use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The last path segment of each entry of `tauri::generate_handler![…]` in lib.rs.
fn handlers() -> BTreeSet<String> {
    let lib = read("src/lib.rs");
    let start = lib
        .find("generate_handler![")
        .expect("lib.rs registers its handlers");
    let body = &lib[start + "generate_handler![".len()..];
    let body = &body[..body.find(']').unwrap()];
    body.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.rsplit("::").next().unwrap().to_owned())
        .collect()
}

/// `allow-<name>` permissions of the window's capability, as command names.
fn granted() -> BTreeSet<String> {
    let cap: serde_json::Value = serde_json::from_str(&read("capabilities/default.json")).unwrap();
    cap["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str())
        .filter_map(|p| p.strip_prefix("allow-"))
        .map(|p| p.replace('-', "_"))
        .collect()
}

/// Commands the UI calls: `call('name'` in backend.ts.
fn called_by_ui() -> BTreeSet<String> {
    let ts = read("../ui/src/lib/core/backend.ts");
    ts.split("call(")
        .chain(
            ts.split("call<")
                .map(|s| s.split_once(">(").map_or("", |x| x.1)),
        )
        .skip(1)
        .filter_map(|rest| rest.strip_prefix('\''))
        .filter_map(|rest| rest.split_once('\''))
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// Commands only the benchmarks and e2e tests call (through `invoke` in the page).
const NOT_IN_THE_UI: &[&str] = &["memory_use"];

#[test]
fn every_list_of_commands_names_the_same_commands() {
    let listed: BTreeSet<String> = rete_desktop::COMMANDS
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(
        listed.len(),
        rete_desktop::COMMANDS.len(),
        "COMMANDS lists a name twice"
    );
    assert_eq!(handlers(), listed, "generate_handler! vs COMMANDS");
    assert_eq!(granted(), listed, "capabilities/default.json vs COMMANDS");
    let mut ui = called_by_ui();
    assert!(
        ui.is_subset(&listed),
        "the UI calls commands that are not registered: {:?}",
        ui.difference(&listed).collect::<Vec<_>>()
    );
    ui.extend(NOT_IN_THE_UI.iter().map(|s| (*s).to_owned()));
    assert_eq!(ui, listed, "backend.ts (+ {NOT_IN_THE_UI:?}) vs COMMANDS");
}
