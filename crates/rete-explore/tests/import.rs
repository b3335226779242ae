//! Opening RDF files: built into the cache with progress, found there again, rebuilt when the
//! source changes, cancelled or refused (syntax error) without leaving anything behind.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;
mod fixtures;

use rete_explore::cache::Cache;
use rete_explore::import::{kind_of, url_is_rdf, Emit, ImportView, Importer, Kind};
use rete_explore::model::DocInfo;
use rete_explore::store::Store;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const PERSON: &str = "<http://xmlns.com/foaf/0.1/Person>";

fn medical_turtle(dir: &Path) -> PathBuf {
    let mut data = Vec::new();
    rete_datagen::medical::write_turtle(
        &rete_datagen::medical::MedicalParams::default(),
        &mut data,
    )
    .unwrap();
    write(dir, "medical.ttl", data)
}

/// Writes `text` to `dir/name`; returns the path.
fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn social_ntriples(dir: &Path, people: u64) -> PathBuf {
    let mut data = Vec::new();
    let p = rete_datagen::social::SocialParams {
        people,
        ..rete_datagen::social::SocialParams::default()
    };
    rete_datagen::social::write_ntriples(&p, &mut data).unwrap();
    write(dir, "social.nt", data)
}

type Seen = Arc<Mutex<Vec<ImportView>>>;

fn recorder() -> (Seen, Emit) {
    let seen: Seen = Arc::default();
    let s = seen.clone();
    (
        seen,
        Arc::new(move |v: &ImportView| s.lock().unwrap().push(v.clone())),
    )
}

/// The statuses `seen`, in order.
fn statuses(seen: &Seen) -> Vec<&'static str> {
    let seen = seen.lock().unwrap();
    seen.iter().map(|v| v.status.as_str()).collect()
}

/// A fresh importer (cache in `dir`), store and progress recorder.
fn fresh(dir: &Path) -> (Importer, Store, Seen, Emit) {
    let (seen, emit) = recorder();
    (importer(dir), Store::default(), seen, emit)
}

fn importer(dir: &Path) -> Importer {
    Importer::new(Cache::new(dir.join("cache"), 1 << 30))
}

/// The medical Turtle sample written into `dir` and opened through a fresh importer and store:
/// (source, importer, store, progress seen, document).
fn open_medical(dir: &Path) -> (PathBuf, Importer, Store, Seen, DocInfo) {
    let src = medical_turtle(dir);
    let (imp, store, seen, emit) = fresh(dir);
    let info = imp.open(&store, &src.display().to_string(), emit).unwrap();
    (src, imp, store, seen, info)
}

#[test]
fn a_turtle_file_is_built_with_progress_then_found_in_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (src, imp, store, seen, info) = open_medical(dir.path());
    assert_eq!(info.name, "medical.ttl");
    assert_eq!(info.source, src.display().to_string());
    assert!(info.quads > 1000 && info.has_pyramid && info.has_schema);
    {
        let seen = seen.lock().unwrap();
        let last = seen.last().unwrap();
        assert_eq!(last.status, "built");
        assert!(last.triples >= info.quads, "every parsed triple is counted");
        let phases: Vec<&str> = last.phases.iter().map(|(p, _)| p.as_str()).collect();
        for p in ["parse", "sort", "pyramid", "schema", "write"] {
            assert!(phases.contains(&p), "phase {p} reported: {phases:?}");
        }
        assert!(seen
            .iter()
            .any(|v| v.status == "running" && v.phase == "parse"));
        assert_eq!(last.source_bytes, std::fs::metadata(&src).unwrap().len());
    }
    // The map of the built file opens.
    let map = rete_explore::ops::overview(&store, info.doc).unwrap();
    assert!(!map.nodes.is_empty());
    assert_eq!(imp.cache().stats().files, 1);

    // Reopened unchanged: from the cache, no build.
    let (seen, emit) = recorder();
    let again = imp.open(&store, &src.display().to_string(), emit).unwrap();
    assert_eq!(again.quads, info.quads);
    assert_eq!(statuses(&seen), ["cached"]);

    // Changed: rebuilt, into a second entry.
    let mut text = std::fs::read_to_string(&src).unwrap();
    text.push_str("\n<http://example.org/x> <http://example.org/p> <http://example.org/y> .\n");
    std::fs::write(&src, text).unwrap();
    let (seen, emit) = recorder();
    let changed = imp.open(&store, &src.display().to_string(), emit).unwrap();
    assert_eq!(changed.quads, info.quads + 1);
    assert_eq!(seen.lock().unwrap().last().unwrap().status, "built");
    assert_eq!(imp.cache().stats().files, 2);

    // Cleared: nothing left, and the open documents still answer.
    let freed = imp.clear_cache();
    assert_eq!(freed.files, 2);
    assert!(imp.cache().listing().is_empty());
    assert!(rete_explore::ops::entity(&store, changed.doc, 1).is_ok());
}

#[test]
fn a_syntax_error_names_file_line_and_column_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "broken.ttl",
        "@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:d ex:e \"unterminated .\n",
    );
    let (imp, store, seen, emit) = fresh(dir.path());
    let err = imp
        .open(&store, &src.display().to_string(), emit)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!("{}:3:", src.display())),
        "file and line in {err}"
    );
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.status, "failed");
    assert_eq!(last.error.as_deref(), Some(err.as_str()));
    assert!(
        imp.cache().listing().is_empty(),
        "{:?}",
        imp.cache().listing()
    );
}

#[test]
fn a_cancelled_build_stops_and_leaves_nothing_in_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let src = social_ntriples(dir.path(), 5000);
    let imp = Arc::new(importer(dir.path()));
    let store = Store::default();
    let seen: Seen = Arc::default();
    let (s, i) = (seen.clone(), imp.clone());
    // Cancel once parsing has begun (the window's Cancel button does this through the command).
    let emit = Arc::new(move |v: &ImportView| {
        if v.status == "running" && v.phase == "parse" {
            i.cancel(v.job);
        }
        s.lock().unwrap().push(v.clone());
    });
    let err = imp
        .open(&store, &src.display().to_string(), emit)
        .unwrap_err();
    // The UI acts on the kind, never on the wording.
    assert_eq!(err.kind(), rete_explore::engine::ErrorKind::Cancelled);
    let wire = serde_json::to_value(&err).unwrap();
    assert_eq!(wire["kind"], "cancelled");
    let err = err.to_string();
    assert_eq!(wire["message"], err.as_str());
    assert!(err.ends_with("import cancelled"), "{err}");
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.status, "cancelled");
    assert!(!imp.busy());
    assert!(
        imp.cache().listing().is_empty(),
        "{:?}",
        imp.cache().listing()
    );
    // The same file opens afterwards.
    let (_, emit) = recorder();
    let info = imp.open(&store, &src.display().to_string(), emit).unwrap();
    let located = rete_explore::ops::locate(&store, info.doc, &[PERSON.to_owned()]).unwrap();
    assert!(info.quads > 10_000 && !located.is_empty());
}

#[test]
fn files_are_told_apart_by_content_then_name() {
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, bytes: &[u8]| write(dir.path(), name, bytes);
    assert_eq!(
        kind_of(&w("ours.rete", b"\x89rete\r\n\x1a\0\0")).unwrap(),
        Kind::Rete
    );
    assert_eq!(
        kind_of(&w("theirs.rete", b"RETE\x05\0\0\0")).unwrap(),
        Kind::Upstream
    );
    // Our magic under another name is ours: the content decides.
    assert_eq!(
        kind_of(&w("misnamed.ttl", b"\x89rete\r\n\x1a")).unwrap(),
        Kind::Rete
    );
    // RDF under a name that says nothing.
    assert_eq!(
        kind_of(&w(
            "download",
            b"<http://a/b> <http://a/c> <http://a/d> .\n"
        ))
        .unwrap(),
        Kind::Rdf
    );
    // Text named .rete goes to the reader, which names the problem.
    assert_eq!(
        kind_of(&w(
            "data.rete",
            b"<http://a/b> <http://a/c> <http://a/d> .\n"
        ))
        .unwrap(),
        Kind::Rete
    );
    let ttl = b"@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n";
    let jsonld = br#"{"@context": {"@vocab": "http://example.org/"}, "@id": "http://example.org/a", "b": "c"}"#;
    let rdfxml = br#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">
  <rdf:Description rdf:about="http://example.org/a"><ex:b>c</ex:b></rdf:Description>
</rdf:RDF>"#;
    let nt = b"<http://a/b> <http://a/c> <http://a/d> .\n";
    let nq = b"<http://a/b> <http://a/c> <http://a/d> <http://a/g> .\n";
    for (name, data) in [
        ("a.ttl", &ttl[..]),
        ("a.nt", &nt[..]),
        ("a.nq", &nq[..]),
        ("a.trig", &ttl[..]),
        ("a.rdf", &rdfxml[..]),
        ("a.owl", &rdfxml[..]),
        ("a.xml", &rdfxml[..]),
        ("a.jsonld", &jsonld[..]),
        ("a.json", &jsonld[..]),
    ] {
        assert_eq!(kind_of(&w(name, data)).unwrap(), Kind::Rdf, "{name}");
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, ttl).unwrap();
    assert_eq!(
        kind_of(&w("a.ttl.gz", &gz.finish().unwrap())).unwrap(),
        Kind::Rdf
    );
    // Neither a .rete nor RDF: refused with the reason.
    let err = kind_of(&w("notes.txt", b"Dear diary,\ntoday I met RDF.\n"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("notes.txt: not a .rete file and not RDF"),
        "{err}"
    );
    assert!(url_is_rdf("https://h/x/data.ttl?x=1"));
    assert!(url_is_rdf("http://h/d.nt.gz"));
    assert!(!url_is_rdf("http://h/d.rete"));
}

#[test]
fn an_rdf_url_is_downloaded_once_then_built() {
    let dir = tempfile::tempdir().unwrap();
    let src = medical_turtle(dir.path());
    let data = std::fs::read(&src).unwrap();
    let server = common::serve(data, 20);
    // The server answers any path; the name tells the app it is Turtle.
    let url = format!("{}/medical.ttl", server.rsplit_once('/').unwrap().0);
    let (imp, store, _, emit) = fresh(dir.path());
    let info = imp.open_url(&store, &url, emit).unwrap();
    assert_eq!(info.source, url);
    assert_eq!(info.name, "medical.ttl");
    assert!(info.has_pyramid);
    let (seen, emit) = recorder();
    imp.open_url(&store, &url, emit).unwrap();
    assert_eq!(statuses(&seen), ["cached"]);
}

/// Runs `script` (Python, after `import rete_graph, sys`; the files are `sys.argv[1..]`) with
/// the real upstream builder, which must succeed.
fn upstream_build(script: &str, files: &[&Path]) {
    let status = std::process::Command::new("python3")
        .args(["-c", &format!("import rete_graph, sys; {script}")])
        .args(files)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "rete-graph builds the upstream file");
}

#[test]
fn an_upstream_rete_file_is_built_into_ours() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_ntriples(dir.path(), 500);
    let file = dir.path().join("upstream.rete");
    // Written by the real upstream builder (PyPI rete-graph 0.3.6, installed by scripts/setup.sh).
    upstream_build(
        "open(sys.argv[2], 'wb').write(rete_graph.build(open(sys.argv[1]).read(), 'nt'))",
        &[&nt, &file],
    );
    assert_eq!(kind_of(&file).unwrap(), Kind::Upstream);
    let (imp, store, seen, emit) = fresh(dir.path());
    let info = imp.open(&store, &file.display().to_string(), emit).unwrap();
    assert_eq!(seen.lock().unwrap().last().unwrap().status, "built");
    assert_eq!(info.name, "upstream.rete");
    assert!(info.has_pyramid);
    // The same triples as the N-Triples it came from.
    let (_, emit) = recorder();
    let direct = imp.open(&store, &nt.display().to_string(), emit).unwrap();
    assert_eq!(info.quads, direct.quads);
}

#[test]
fn a_json_ld_file_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "people.jsonld",
        r#"{"@context": {"foaf": "http://xmlns.com/foaf/0.1/", "knows": {"@id": "foaf:knows", "@type": "@id"}},
            "@graph": [
              {"@id": "http://example.org/a", "@type": "foaf:Person", "foaf:name": "A", "knows": "http://example.org/b"},
              {"@id": "http://example.org/b", "@type": "foaf:Person", "foaf:name": "B", "knows": "http://example.org/a"}
            ]}"#,
    );
    let (imp, store, _, emit) = fresh(dir.path());
    let info = imp.open(&store, &src.display().to_string(), emit).unwrap();
    assert_eq!(info.quads, 6);
    assert_eq!(info.classes[0].nt, PERSON);
}

#[test]
fn save_as_rete_copies_the_built_file() {
    let dir = tempfile::tempdir().unwrap();
    let (_, imp, store, _, info) = open_medical(dir.path());
    let to = dir.path().join("saved.rete");
    rete_explore::import::save_copy(&store, info.doc, &to).unwrap();
    let built = &imp.cache().entries()[0].file;
    assert_eq!(std::fs::read(&to).unwrap(), std::fs::read(built).unwrap());
    let saved = rete_explore::ops::open_path(&store, &to.display().to_string()).unwrap();
    assert_eq!(saved.quads, info.quads);
    // Nothing but the file itself is left next to it.
    assert!(!std::fs::read_dir(dir.path()).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".tmp")));
}

#[test]
fn an_upstream_file_of_format_0x06_is_refused_saying_what_to_do() {
    // A real upstream file (rete-graph 0.3.6 writes 0x05) given the format byte of upstream's
    // staged, never released 0x06 layout (docs/format.md).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("six.rete");
    upstream_build(
        "b = bytearray(rete_graph.build('<http://e.org/a> <http://e.org/p> <http://e.org/b> .', 'nt')); b[4] = 6; open(sys.argv[1], 'wb').write(b)",
        &[&file],
    );
    assert_eq!(kind_of(&file).unwrap(), Kind::Upstream);
    let imp = importer(dir.path());
    let store = Store::default();
    let (seen, emit) = recorder();
    let err = imp
        .open(&store, &file.display().to_string(), emit)
        .unwrap_err()
        .to_string();
    for want in ["six.rete", "format 0x06", "N-Quads", "rete-graph 0.3.6"] {
        assert!(err.contains(want), "{want:?} missing from {err}");
    }
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.status, "failed");
    assert!(imp.cache().listing().is_empty());
}

#[test]
fn an_imported_document_is_named_by_its_source_everywhere() {
    // One identity: the title, the coherence report and a reopen after a web-view crash name
    // the Turtle file the user opened, never its build in the cache (which was never granted).
    let dir = tempfile::tempdir().unwrap();
    let (src, _imp, store, _seen, info) = open_medical(dir.path());
    let src = src.display().to_string();
    let d = store.get(info.doc).unwrap();
    assert_eq!(d.origin, src);
    assert!(d.source.contains("cache"), "{}", d.source);
    rete_explore::ops::coherence_run(&store, info.doc, 1, |_| {}).unwrap();
    let md = dir.path().join("report.md");
    rete_explore::ops::coherence_write(&store, info.doc, "md", &md).unwrap();
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("medical.ttl"), "{}", &md[..200.min(md.len())]);
    assert!(!md.contains(&d.source), "the report names the cache path");
    assert_eq!(store.reopen_after_crash().as_deref(), Some(src.as_str()));
    assert_eq!(store.take_pending(), vec![src]);
}

#[test]
fn crafted_inputs_are_refused_with_a_message_and_leave_nothing() {
    // What the e2e suite opens in the real app (`fixtures::CRAFTED`).
    let dir = tempfile::tempdir().unwrap();
    let files = fixtures::write_crafted(dir.path()).unwrap();
    let (imp, store, _, emit) = fresh(dir.path());
    let expect = [
        "shared bytes",
        "over the 1048576-byte limit",
        "JSON nested deeper than 128 levels",
    ];
    for (file, expect) in files.iter().zip(expect) {
        let err = imp
            .open(&store, &file.display().to_string(), emit.clone())
            .unwrap_err()
            .to_string();
        let name = file.file_name().unwrap().to_str().unwrap();
        assert!(err.contains(name) && err.contains(expect), "{name}: {err}");
    }
    assert!(
        imp.cache().listing().is_empty(),
        "{:?}",
        imp.cache().listing()
    );
}

/// A file without a search index gets one from the search box's offer: written where the user
/// says (or over itself), with progress in phases and a cancel that leaves nothing; the result
/// answers as the same data built with an index. A file the app built gets it in its cache
/// entry; a document read over HTTP is not offered one.
#[test]
fn a_file_without_a_search_index_gets_one_with_progress_and_cancel() {
    use rete_explore::engine::SearchRequest;
    use rete_explore::index::IndexDestination;
    use rete_explore::ops;
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("people.rete");
    std::fs::copy(fixtures::fixture("social-1k-plain.rete"), &plain).unwrap();
    let imp = Arc::new(importer(dir.path()));
    let store = Store::default();
    let info = imp
        .open(&store, &plain.display().to_string(), recorder().1)
        .unwrap();
    let req = |text: &str| SearchRequest {
        text: text.to_owned(),
        limit: 10,
        ..SearchRequest::default()
    };
    assert!(
        !ops::search(&store, info.doc, 1, &req("ali"))
            .unwrap()
            .indexed
    );
    let suggested = dir.path().join("people-indexed.rete");
    assert_eq!(
        imp.index_destination(&store, info.doc).unwrap(),
        IndexDestination::Choose {
            suggested: suggested.clone()
        }
    );
    // Cancelled at its first progress event: an error of kind cancelled, no file, no temp file.
    let canceller = imp.clone();
    let stop: Emit = Arc::new(move |v: &ImportView| canceller.cancel(v.job));
    let err = imp
        .add_index(&store, info.doc, Some(&suggested), stop)
        .unwrap_err();
    assert_eq!(
        err.kind(),
        rete_explore::engine::ErrorKind::Cancelled,
        "{err}"
    );
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.retain(|f| f != "cache");
    assert_eq!(files, ["people.rete"]);
    assert!(!suggested.exists());
    // Added: the phases in order, then built; the new document answers from its index as the
    // same data built with one does.
    let (seen, emit) = recorder();
    let added = imp
        .add_index(&store, info.doc, Some(&suggested), emit)
        .unwrap();
    assert_eq!(added.source, suggested.display().to_string());
    assert_eq!(added.name, "people-indexed.rete");
    assert_eq!(statuses(&seen).last(), Some(&"built"));
    let last = seen.lock().unwrap().last().unwrap().clone();
    let phases: Vec<&str> = last.phases.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        phases,
        ["labels", "degrees", "classes", "tokens", "encode", "write"]
    );
    // The same data built with an index (and, like the plain fixture, no pyramid or schema).
    let fresh = dir.path().join("fresh.rete");
    let sub = tempfile::tempdir().unwrap();
    let opts = rete_build::BuildOptions {
        inputs: vec![rete_build::Input::path(social_ntriples(sub.path(), 1000))],
        extensions: vec![Arc::new(rete_search::SearchExtension::default())],
        ..rete_build::BuildOptions::default()
    };
    rete_build::build(&opts, &fresh).unwrap();
    let built = ops::open_path(&store, &fresh.display().to_string()).unwrap();
    for (run, text) in ["ada", "hop ada", "person", "knows"]
        .into_iter()
        .enumerate()
    {
        let a = ops::search(&store, added.doc, run as u32, &req(text)).unwrap();
        let b = ops::search(&store, built.doc, run as u32, &req(text)).unwrap();
        assert!(a.indexed && !a.outdated, "{text}");
        assert!(!a.hits.is_empty(), "{text}");
        assert_eq!(a, b, "{text}");
    }
    // Over the file itself: replaced once complete, still named as opened.
    let again = imp
        .add_index(&store, info.doc, Some(&plain), recorder().1)
        .unwrap();
    assert_eq!(again.source, plain.display().to_string());
    assert!(
        ops::search(&store, again.doc, 9, &req("ali"))
            .unwrap()
            .indexed
    );
    // An index of the first layout is answered from, and offered the current one.
    let old = dir.path().join("v1.rete");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../rete-search/tests/data/v1-layout.rete"),
        &old,
    )
    .unwrap();
    let v1 = ops::open_path(&store, &old.display().to_string()).unwrap();
    let a = ops::search(&store, v1.doc, 10, &req("einstein")).unwrap();
    assert!(a.indexed && a.outdated && !a.hits.is_empty());
    let v2 = imp
        .add_index(&store, v1.doc, Some(&old), recorder().1)
        .unwrap();
    let b = ops::search(&store, v2.doc, 11, &req("einstein")).unwrap();
    assert!(b.indexed && !b.outdated);
    assert_eq!(a.hits, b.hits);
    // A file the app built: its cache entry, named by its source.
    let (src, imp2, store2, _, medical) = open_medical(dir.path());
    assert_eq!(
        imp2.index_destination(&store2, medical.doc).unwrap(),
        IndexDestination::Cache
    );
    let redone = imp2
        .add_index(&store2, medical.doc, None, recorder().1)
        .unwrap();
    assert_eq!(redone.source, src.display().to_string());
    assert_eq!(imp2.cache().stats().files, 1);
    // Read over HTTP: refused, saying why.
    let (_, remote) = common::open_served(&store, &plain, 40);
    let err = imp.index_destination(&store, remote.doc).unwrap_err();
    assert!(err.to_string().contains("reads the whole file"), "{err}");
}
