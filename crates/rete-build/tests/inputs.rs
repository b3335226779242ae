//! The newer inputs: JSON-LD, upstream rete files, and telling files apart by content.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::all_quads;
use rete_build::{build, detect, BuildError, BuildOptions, Compression, Detected, Input, Syntax};
use rete_core::Rete;
use std::io::Write;
use std::path::Path;

fn build_file(input: Input, out: &Path) -> Result<rete_build::BuildReport, BuildError> {
    build(
        &BuildOptions {
            inputs: vec![input],
            zstd_level: 1,
            ..BuildOptions::default()
        },
        out,
    )
}

const JSONLD: &str = r#"{
  "@context": {"schema": "http://schema.org/", "name": "schema:name",
               "knows": {"@id": "schema:knows", "@type": "@id"}},
  "@graph": [
    {"@id": "http://e.org/alice", "@type": "schema:Person", "name": "Alice",
     "knows": "http://e.org/bob"},
    {"@id": "http://e.org/bob", "name": {"@value": "Bob", "@language": "en"}},
    {"@id": "http://e.org/g", "@graph": {"@id": "http://e.org/x", "name": "in a graph"}}
  ]
}"#;

const JSONLD_AS_NQ: &str = r#"<http://e.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Person> .
<http://e.org/alice> <http://schema.org/name> "Alice" .
<http://e.org/alice> <http://schema.org/knows> <http://e.org/bob> .
<http://e.org/bob> <http://schema.org/name> "Bob"@en .
<http://e.org/x> <http://schema.org/name> "in a graph" <http://e.org/g> .
"#;

#[test]
fn jsonld_builds_like_its_nquads() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["data.jsonld", "data.json", "data.jsonld.gz"] {
        let src = dir.path().join(name);
        if name.ends_with(".gz") {
            let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            w.write_all(JSONLD.as_bytes()).unwrap();
            std::fs::write(&src, w.finish().unwrap()).unwrap();
        } else {
            std::fs::write(&src, JSONLD).unwrap();
        }
        let out = dir.path().join(format!("{name}.rete"));
        build_file(Input::path(&src), &out).unwrap();
        let nq = dir.path().join("same.nq");
        std::fs::write(&nq, JSONLD_AS_NQ).unwrap();
        let out2 = dir.path().join("same.rete");
        build_file(Input::path(&nq), &out2).unwrap();
        let a = all_quads(&Rete::open_path(&out).unwrap());
        assert_eq!(a.len(), 5, "{name}");
        assert_eq!(a, all_quads(&Rete::open_path(&out2).unwrap()), "{name}");
        let r = Rete::open_path(&out).unwrap();
        assert_eq!(r.card().unwrap().build.inputs[0].format, "JSON-LD");
    }
}

#[test]
fn jsonld_syntax_error_has_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.jsonld");
    std::fs::write(
        &src,
        "{\n  \"@id\": \"http://e.org/a\",\n  \"http://e.org/p\": [1, 2,,]\n}",
    )
    .unwrap();
    let out = dir.path().join("out.rete");
    let err = build_file(Input::path(&src), &out).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, BuildError::Syntax { line: 3, .. }), "{msg}");
    assert!(msg.starts_with(&format!("{}:3:", src.display())), "{msg}");
    assert!(!out.exists());
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn detect_tells_files_apart_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nt = b"<http://a> <http://p> \"x\" .\n";
    let rdfxml = br#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="http://a"/></rdf:RDF>"#;
    // Ours.
    let ours = d.join("ours.rete");
    build_file(Input::bytes("x.nt", nt.to_vec(), Syntax::NTriples), &ours).unwrap();
    assert_eq!(detect(&ours).unwrap(), Detected::Rete);
    // Upstream's header, same extension.
    let mut up = b"RETE\x05".to_vec();
    up.resize(1100, 0);
    let upstream = write(d, "theirs.rete", &up);
    assert_eq!(
        detect(&upstream).unwrap(),
        Detected::UpstreamRete { version: 5 }
    );
    up[4] = 0x06;
    let upstream6 = write(d, "theirs6.rete", &up);
    assert_eq!(
        detect(&upstream6).unwrap(),
        Detected::UpstreamRete { version: 6 }
    );
    up[4] = 0x02;
    let old = write(d, "old.rete", &up);
    assert!(detect(&old).unwrap_err().to_string().contains("0x02"));
    // Syntaxes by name, compression by magic bytes.
    let rdf = |syntax, compression| Detected::Rdf {
        syntax,
        compression,
    };
    let ttl = write(d, "a.ttl", b"@prefix ex: <http://e/> .\nex:a ex:p ex:b .\n");
    assert_eq!(
        detect(&ttl).unwrap(),
        rdf(Syntax::Turtle, Compression::None)
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(nt).unwrap();
    let ntgz = write(d, "a.nt.gz", &gz.finish().unwrap());
    assert_eq!(
        detect(&ntgz).unwrap(),
        rdf(Syntax::NTriples, Compression::Gzip)
    );
    let zst = write(d, "a.nq.zst", &zstd::encode_all(&nt[..], 1).unwrap());
    assert_eq!(
        detect(&zst).unwrap(),
        rdf(Syntax::NQuads, Compression::Zstd)
    );
    let owl = write(d, "o.owl", rdfxml);
    assert_eq!(
        detect(&owl).unwrap(),
        rdf(Syntax::RdfXml, Compression::None)
    );
    // Ambiguous names: the content decides.
    let xml = write(d, "data.xml", rdfxml);
    assert_eq!(
        detect(&xml).unwrap(),
        rdf(Syntax::RdfXml, Compression::None)
    );
    let html = write(d, "page.xml", b"<?xml version=\"1.0\"?>\n<html/>");
    assert!(detect(&html).is_err());
    let json = write(d, "data.json", JSONLD.as_bytes());
    assert_eq!(
        detect(&json).unwrap(),
        rdf(Syntax::JsonLd, Compression::None)
    );
    let jsonld = write(d, "data.jsonld", JSONLD.as_bytes());
    assert_eq!(
        detect(&jsonld).unwrap(),
        rdf(Syntax::JsonLd, Compression::None)
    );
    // No extension at all.
    let bare = write(
        d,
        "dump",
        b"<http://a> <http://p> <http://o> <http://g> .\n",
    );
    assert_eq!(
        detect(&bare).unwrap(),
        rdf(Syntax::NQuads, Compression::None)
    );
    let text = write(d, "notes.txt", b"hello");
    assert!(detect(&text)
        .unwrap_err()
        .to_string()
        .contains("not a .rete file and not RDF"));
    // A build takes an unnamed file by its content too.
    let out = d.join("bare.rete");
    build_file(Input::path(&bare), &out).unwrap();
    assert_eq!(Rete::open_path(&out).unwrap().card().unwrap().quads, 1);
}

/// Builds N-Triples with the real upstream builder (PyPI rete-graph 0.3.6, from scripts/setup.sh).
fn upstream_build(nt: &str) -> Vec<u8> {
    rete_upstream::oracle::upstream_build(nt.as_bytes(), "nt").unwrap()
}

#[test]
fn upstream_files_build_into_the_same_quads() {
    let dir = tempfile::tempdir().unwrap();
    let nt = String::from_utf8(common::social_nt(200)).unwrap();
    let up = write(dir.path(), "social.rete", &upstream_build(&nt));
    let ours_from_nt = dir.path().join("from-nt.rete");
    build_file(
        Input::bytes("s.nt", nt.into_bytes(), Syntax::NTriples),
        &ours_from_nt,
    )
    .unwrap();
    let ours_from_up = dir.path().join("from-upstream.rete");
    let report = build_file(Input::path(&up), &ours_from_up).unwrap();
    let a = Rete::open_path(&ours_from_nt).unwrap();
    let b = Rete::open_path(&ours_from_up).unwrap();
    assert_eq!(report.quads, a.card().unwrap().quads);
    assert_eq!(all_quads(&a), all_quads(&b));
    assert_eq!(b.card().unwrap().build.inputs[0].format, "upstream rete");
    // Damage gives a clear error naming the file.
    let bytes = std::fs::read(&up).unwrap();
    let cut = write(dir.path(), "cut.rete", &bytes[..bytes.len() / 2]);
    let err = build_file(Input::path(&cut), &dir.path().join("x.rete")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("cut.rete") && msg.contains("truncated"),
        "{msg}"
    );
}
