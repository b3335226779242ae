//! RDF inputs built to take a parser down: each must end in a clear error naming the input, with
//! nothing left behind, in bounded memory.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_build::{build, BuildOptions, Input, Syntax};
use rete_datagen::hostile::{billion_laughs_rdf_xml, nested_json_ld};

/// Builds `data` as `name`; returns the error's message and checks nothing was left behind.
fn fails(name: &str, data: Vec<u8>, syntax: Syntax) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.rete");
    let opts = BuildOptions {
        inputs: vec![Input::bytes(name, data, syntax)],
        ..BuildOptions::default()
    };
    let e = build(&opts, &out).unwrap_err();
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    e.to_string()
}

#[test]
fn deep_json_ld_is_refused_before_the_parser() {
    // 1,000 levels (7 KB) overflowed the parser's stack; the limit is 128.
    let deep = nested_json_ld(1000);
    let e = fails("deep.jsonld", deep.into_bytes(), Syntax::JsonLd);
    assert!(
        e.contains("deep.jsonld") && e.contains("JSON nested deeper than 128 levels"),
        "{e}"
    );
    // The limit itself parses.
    let dir = tempfile::tempdir().unwrap();
    let ok = nested_json_ld(rete_build::MAX_JSON_DEPTH - 1);
    let opts = BuildOptions {
        inputs: vec![Input::bytes("ok.jsonld", ok.into_bytes(), Syntax::JsonLd)],
        ..BuildOptions::default()
    };
    build(&opts, &dir.path().join("ok.rete")).unwrap();
}

#[test]
fn billion_laughs_is_refused_before_the_parser() {
    let doc = billion_laughs_rdf_xml();
    assert!(doc.len() < 1024);
    let e = fails("laughs.rdf", doc.into_bytes(), Syntax::RdfXml);
    assert!(
        e.contains("laughs.rdf") && e.contains("over the 1048576-byte limit"),
        "{e}"
    );
}

#[test]
fn a_term_over_the_length_limit_is_refused_with_its_size() {
    // The parsers stop at their own 16 MiB buffer before one token reaches the limit; a
    // literal just under it with a long datatype IRI passes them and is refused here.
    let len = rete_core::format::MAX_TERM_LEN;
    let mut doc = b"<http://e/x> <http://e/p> \"".to_vec();
    doc.extend(std::iter::repeat_n(b'a', len - 64));
    doc.extend_from_slice(b"\"^^<http://e/");
    doc.extend(std::iter::repeat_n(b'd', 200));
    doc.extend_from_slice(b"> .\n");
    let e = fails("big.nt", doc, Syntax::NTriples);
    assert!(
        e.starts_with("big.nt: a term of ")
            && e.contains(&format!("exceeds the {len}-byte term length limit"))
            && e.contains("http://e/ddd"),
        "{e}"
    );
}
