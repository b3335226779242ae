//! Replays the fuzz corpus (`fuzz/corpus/<target>/`) and every crash the fuzzers found
//! (`fuzz/regressions/<target>/`) through the fuzz targets' own bodies (`fuzz/src/lib.rs`,
//! included below as a module), in the normal test suite: each input must give `Ok` or an
//! error, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

#[path = "../../../fuzz/src/lib.rs"]
#[allow(dead_code, reason = "the fuzz-only helpers are not replayed here")]
mod rete_fuzz;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Committed inputs of one target: its corpus and its crash regressions.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = Vec::new();
    for sub in ["corpus", "regressions"] {
        let Ok(dir) = std::fs::read_dir(root.join(sub).join(target)) else {
            continue;
        };
        for e in dir.flatten() {
            out.push((e.path(), std::fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

fn replay(target: &str, run: impl Fn(&[u8])) {
    let all = inputs(target);
    assert!(
        !all.is_empty(),
        "no committed inputs for the {target} target"
    );
    for (path, data) in all {
        eprintln!("{target}: {}", path.display());
        run(&data);
    }
}

/// One test per target, named after it, replaying its inputs through its body.
macro_rules! replay_tests {
    ($($target:ident),*) => {$(
        #[test]
        fn $target() {
            replay(stringify!($target), rete_fuzz::$target);
        }
    )*};
}

replay_tests!(
    header,
    perm,
    dict,
    pyramid,
    schema,
    search,
    content_range,
    rdf,
    lenient,
    detect,
    upstream,
    http
);

#[test]
fn sparql() {
    replay("sparql", |data| {
        rete_fuzz::sparql(data, Duration::from_millis(500))
    });
}
