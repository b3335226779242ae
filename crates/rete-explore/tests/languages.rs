//! Community labels in the user's languages: the UI hands the webview's `navigator.languages`
//! over (`set_languages`), the map of a multilingual file then names communities in them.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_build::{build, BuildOptions, Input};
use rete_explore::ops;
use rete_explore::store::Store;
use rete_pyramid::PyramidExtension;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The multilingual fixture of rete-pyramid's tests, built with a pyramid into `dir`.
fn multilingual(dir: &Path) -> PathBuf {
    let ttl =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../rete-pyramid/tests/data/multilingual.ttl");
    let out = dir.join("multilingual.rete");
    let opts = BuildOptions {
        inputs: vec![Input::path(&ttl)],
        extensions: vec![Arc::new(PyramidExtension::default())],
        ..BuildOptions::default()
    };
    build(&opts, &out).unwrap();
    out
}

fn labels(store: &Store, file: &Path) -> Vec<String> {
    let doc = ops::open_path(store, &file.display().to_string()).unwrap();
    let view = ops::overview(store, doc.doc).unwrap();
    assert_eq!(view.kind, "pyramid");
    let mut l: Vec<String> = view.nodes.into_iter().map(|n| n.label).collect();
    l.sort();
    l
}

#[test]
fn the_map_names_communities_in_the_users_languages() {
    let dir = tempfile::tempdir().unwrap();
    let file = multilingual(dir.path());
    let store = Store::default();
    store.set_languages(vec!["fr-FR".into(), "en-US".into()]);
    let fr = labels(&store, &file);
    for l in ["Allemagne", "Rhin", "Personne · 5"] {
        assert!(fr.iter().any(|x| x == l), "{l} in {fr:?}");
    }
    store.set_languages(vec!["de-CH".into()]);
    let de = labels(&store, &file);
    for l in ["Deutschland", "Rhein", "Person · 5"] {
        assert!(de.iter().any(|x| x == l), "{l} in {de:?}");
    }
    // What cannot be a language tag is dropped; nothing left: the OS locale's (here none set
    // that the fixture has labels in, or whatever the test's environment says).
    store.set_languages(vec!["<script>".into(), " ".into()]);
    assert!(store.languages().iter().all(|l| l != "<script>"));
    store.set_languages(vec!["es".into()]);
    let es = labels(&store, &file);
    for l in ["Germany", "Rhein", "person · 5"] {
        assert!(
            es.iter().any(|x| x == l),
            "English, then any: {l} in {es:?}"
        );
    }
    // The details panel names the community the same way.
    let doc = ops::open_path(&store, &file.display().to_string()).unwrap();
    let view = ops::overview(&store, doc.doc).unwrap();
    let germany = view.nodes.iter().find(|n| n.label == "Germany").unwrap();
    let details = ops::group(&store, doc.doc, &germany.key).unwrap();
    let text = serde_json::to_string(&details).unwrap();
    assert!(text.contains("Germany"), "{text}");
}
