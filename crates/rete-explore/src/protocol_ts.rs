//! The UI's TypeScript types of the protocol, generated from the Rust types (ts-rs) into
//! `ui/src/lib/core/protocol/*.gen.ts` (a file per part), re-exported by `protocol.gen.ts`. The
//! test fails when a committed file differs from what the Rust types give, so the two cannot
//! drift apart; `RETE_WRITE_TS=1 cargo test -p rete-explore protocol` writes them anew.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use crate::cache::CacheStats;
use crate::engine::ErrorKind;
use crate::import::ImportView;
use crate::model::*;
use ts_rs::{Config, TS};

/// A part of the protocol: its file name, what it holds, and its types' names and declarations.
type Part = (&'static str, &'static str, Vec<(String, String)>);

/// Every type the UI receives, by part of the protocol (a file each), in declaration order.
fn parts() -> Vec<Part> {
    // serde_json writes 64-bit integers as JSON numbers, which is what the page receives.
    let cfg = Config::new().with_large_int("number");
    macro_rules! decls {
        ($($t:ty),* $(,)?) => {
            vec![$((<$t as TS>::name(&cfg), <$t as TS>::decl(&cfg))),*]
        };
    }
    vec![
        (
            "document",
            "an open document: what it is, what it holds in memory, how it was imported",
            decls![
                ErrorKind,
                TermKind,
                TermView,
                Counted,
                DocInfo,
                MemoryView,
                DocMemory,
                ReadView,
                ImportStatus,
                ImportView,
                CacheStats,
            ],
        ),
        (
            "map",
            "the map: its views, nodes and links, and the details and legend beside it",
            decls![
                NodeKind,
                MapNode,
                MapEdge,
                ViewKind,
                MapView,
                Link,
                EntityDetails,
                GroupLink,
                Located,
                GroupDetails,
                LegendClass,
                LegendRelation,
                LegendSource,
                Legend,
            ],
        ),
        (
            "query",
            "SPARQL: the editor's context, a query's cost, status and answer",
            decls![
                Vocab,
                QueryExample,
                SparqlContext,
                QueryError,
                QueryStatus,
                QueryKind,
                QueryOutcome,
                CostEstimate,
            ],
        ),
        (
            "reports",
            "the coherence and shapes reports: their progress and outcome",
            decls![
                RunStatus,
                CoherenceProgress,
                CoherenceOutcome,
                ShapesGroup,
                ShapesProgress,
                ShapesOutcome,
            ],
        ),
        (
            "find",
            "search hits and the paths between two entities",
            decls![
                HitKind,
                SearchHit,
                SearchView,
                CommunityCount,
                SpreadView,
                PathLinkView,
                PathStepView,
                PathView,
                PathsView,
                PathFilters,
            ],
        ),
        (
            "views",
            "saved views: the camera and what a view reopens",
            decls![
                crate::view::Camera,
                crate::view::SavedView,
                crate::view::OpenedView,
            ],
        ),
    ]
}

/// The files the parts are written to (`ui/src/lib/core/protocol/PART.gen.ts`, each importing
/// the other parts' types it names) and the index `protocol.gen.ts` that re-exports them all.
fn files() -> Vec<(String, String)> {
    const HEAD: &str = "// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.\n\
                        // RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.\n";
    let parts = parts();
    let mut out = Vec::new();
    let mut index = format!(
        "{HEAD}// The app's command protocol as TypeScript types (ts-rs's translation of each Rust type the\n\
         // shell and the page exchange), one file per part under protocol/.\n"
    );
    for (part, what, decls) in &parts {
        let text: String = decls.iter().map(|(_, d)| d.as_str()).collect();
        let mut imports = String::new();
        if names(&text, "CoherenceReport") {
            imports.push_str("import type { CoherenceReport } from '../types';\n");
        }
        for (other, _, theirs) in &parts {
            let used: Vec<&str> = theirs
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| other != part && names(&text, n))
                .collect();
            if !used.is_empty() {
                imports.push_str(&format!(
                    "import type {{ {} }} from './{other}.gen';\n",
                    used.join(", ")
                ));
            }
        }
        let mut file = format!("{HEAD}// The protocol's types of {what}.\n{imports}\n");
        for (_, d) in decls {
            file.push_str("export ");
            file.push_str(d);
            file.push('\n');
        }
        out.push((format!("protocol/{part}.gen.ts"), file));
        index.push_str(&format!("export type * from './protocol/{part}.gen';\n"));
    }
    out.push(("protocol.gen.ts".to_owned(), index));
    out
}

/// Whether `text` names the type `name` (as a whole word).
fn names(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        !text[..i].ends_with(word) && !text[i + name.len()..].starts_with(word)
    })
}

#[test]
fn protocol_types_of_the_ui_are_the_rust_types() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/core");
    for (name, want) in files() {
        let path = dir.join(&name);
        if std::env::var_os("RETE_WRITE_TS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is not what the Rust types give: run RETE_WRITE_TS=1 cargo test -p rete-explore protocol",
            path.display()
        );
    }
}
