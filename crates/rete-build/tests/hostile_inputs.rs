//! RDF inputs built to take a parser down: each must end in a clear error naming the input, with
//! nothing left behind, in bounded memory.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_build::{build, BuildOptions, Input, Syntax};

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
    let deep = format!(
        "{{\"@id\": \"http://e/x\", \"http://e/p\": {}1{}}}",
        "[".repeat(1000),
        "]".repeat(1000)
    );
    let e = fails("deep.jsonld", deep.into_bytes(), Syntax::JsonLd);
    assert!(
        e.contains("deep.jsonld") && e.contains("JSON nested deeper than 128 levels"),
        "{e}"
    );
    // The limit itself parses.
    let dir = tempfile::tempdir().unwrap();
    let ok = format!(
        "{{\"@id\": \"http://e/x\", \"http://e/p\": {}1{}}}",
        "[".repeat(rete_build::MAX_JSON_DEPTH - 1),
        "]".repeat(rete_build::MAX_JSON_DEPTH - 1)
    );
    let opts = BuildOptions {
        inputs: vec![Input::bytes("ok.jsonld", ok.into_bytes(), Syntax::JsonLd)],
        ..BuildOptions::default()
    };
    build(&opts, &dir.path().join("ok.rete")).unwrap();
}

#[test]
fn billion_laughs_is_refused_before_the_parser() {
    let mut doc =
        String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n<!ENTITY lol \"lol\">\n");
    let mut prev = "lol".to_owned();
    for i in 1..10 {
        let name = format!("lol{i}");
        doc.push_str(&format!(
            "<!ENTITY {name} \"{}\">\n",
            format!("&{prev};").repeat(10)
        ));
        prev = name;
    }
    doc.push_str(&format!(
        "]>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
         xmlns:e=\"http://e/\"><rdf:Description rdf:about=\"http://e/x\"><e:p>&{prev};</e:p>\
         </rdf:Description></rdf:RDF>\n"
    ));
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
