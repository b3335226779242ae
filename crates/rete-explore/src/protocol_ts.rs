//! The UI's TypeScript types of the protocol, generated from the Rust types (ts-rs) into
//! `ui/src/lib/core/protocol.gen.ts`. The test fails when the committed file differs from what
//! the Rust types give, so the two cannot drift apart; `RETE_WRITE_TS=1 cargo test -p
//! rete-explore protocol` writes it anew.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use crate::cache::CacheStats;
use crate::engine::ErrorKind;
use crate::import::ImportView;
use crate::model::*;
use ts_rs::{Config, TS};

/// Every type the UI receives, declaration order.
fn declarations() -> String {
    // serde_json writes 64-bit integers as JSON numbers, which is what the page receives.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        ErrorKind::decl(&cfg),
        TermKind::decl(&cfg),
        TermView::decl(&cfg),
        Counted::decl(&cfg),
        DocInfo::decl(&cfg),
        NodeKind::decl(&cfg),
        MapNode::decl(&cfg),
        MapEdge::decl(&cfg),
        ViewKind::decl(&cfg),
        MapView::decl(&cfg),
        Link::decl(&cfg),
        EntityDetails::decl(&cfg),
        GroupLink::decl(&cfg),
        Located::decl(&cfg),
        GroupDetails::decl(&cfg),
        LegendClass::decl(&cfg),
        LegendRelation::decl(&cfg),
        LegendSource::decl(&cfg),
        Legend::decl(&cfg),
        Vocab::decl(&cfg),
        QueryExample::decl(&cfg),
        SparqlContext::decl(&cfg),
        QueryError::decl(&cfg),
        MemoryView::decl(&cfg),
        DocMemory::decl(&cfg),
        ReadView::decl(&cfg),
        QueryStatus::decl(&cfg),
        QueryKind::decl(&cfg),
        QueryOutcome::decl(&cfg),
        CostEstimate::decl(&cfg),
        RunStatus::decl(&cfg),
        CoherenceProgress::decl(&cfg),
        CoherenceOutcome::decl(&cfg),
        ShapesGroup::decl(&cfg),
        ShapesProgress::decl(&cfg),
        ShapesOutcome::decl(&cfg),
        ImportStatus::decl(&cfg),
        ImportView::decl(&cfg),
        CacheStats::decl(&cfg),
        HitKind::decl(&cfg),
        SearchHit::decl(&cfg),
        SearchView::decl(&cfg),
        PathLinkView::decl(&cfg),
        PathStepView::decl(&cfg),
        PathView::decl(&cfg),
        crate::view::Camera::decl(&cfg),
        crate::view::SavedView::decl(&cfg),
        crate::view::OpenedView::decl(&cfg),
        PathsView::decl(&cfg),
        PathFilters::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from the Rust types of crates/rete-explore (src/protocol_ts.rs): do not edit.\n\
         // RETE_WRITE_TS=1 cargo test -p rete-explore protocol writes it anew.\n\
         // One file, one subject (in place of one algorithm: it holds no code): the app's command\n\
         // protocol as TypeScript types, ts-rs's translation of each Rust type the shell and the\n\
         // page exchange. Its length is the protocol's size. It stays one file because it is\n\
         // generated, written and compared with the Rust types as one unit: split by domain, each\n\
         // part would need imports of the others' types that the generator does not track. The\n\
         // code using these types lives in core/<domain>.\n\
         import type { CoherenceReport } from './types';\n\n",
    );
    for d in decls {
        out.push_str("export ");
        out.push_str(&d);
        out.push('\n');
    }
    out
}

#[test]
fn protocol_types_of_the_ui_are_the_rust_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../ui/src/lib/core/protocol.gen.ts");
    let want = declarations();
    if std::env::var_os("RETE_WRITE_TS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is not what the Rust types give: run RETE_WRITE_TS=1 cargo test -p rete-explore protocol",
        path.display()
    );
}
