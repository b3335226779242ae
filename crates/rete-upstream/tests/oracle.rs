//! Files written by the real upstream builder (PyPI `rete-graph==0.3.6`, installed by
//! scripts/setup.sh as a test oracle) read back to exactly the quads they were built from; damaged
//! and truncated copies give errors, never panics.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use oxrdf::{GraphName, Quad};
use rete_upstream::{Error, UpstreamFile};
use std::collections::BTreeSet;

/// Builds `text` (N-Triples `nt` or N-Quads `nq`) with upstream's own builder.
fn upstream_build(text: &str, format: &str) -> Vec<u8> {
    rete_upstream::oracle::upstream_build(text.as_bytes(), format).unwrap()
}

fn parse(text: &str, format: &str) -> BTreeSet<String> {
    let quads: Vec<Quad> = if format == "nq" {
        oxttl::NQuadsParser::new()
            .for_slice(text)
            .map(|q| q.unwrap())
            .collect()
    } else {
        oxttl::NTriplesParser::new()
            .for_slice(text)
            .map(|t| t.unwrap().in_graph(GraphName::DefaultGraph))
            .collect()
    };
    quads.iter().map(ToString::to_string).collect()
}

fn read(bytes: Vec<u8>) -> BTreeSet<String> {
    let file = UpstreamFile::from_bytes(bytes).unwrap();
    let quads = file.quads().unwrap();
    let set: BTreeSet<String> = quads.iter().map(ToString::to_string).collect();
    assert_eq!(set.len(), quads.len(), "no quad twice");
    set
}

/// Terms of every kind, escapes, blank nodes, more than one restart run of the dictionary.
fn varied() -> String {
    let mut s = String::from(
        r#"<http://e.org/a> <http://e.org/p> <http://e.org/b> .
<http://e.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e.org/C> .
<http://e.org/b> <http://e.org/name> "Bob"@en .
<http://e.org/b> <http://e.org/name> "Bobby"@en-GB .
<http://e.org/b> <http://e.org/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
_:x <http://e.org/p> <http://e.org/a> .
_:x <http://e.org/p> _:y .
<http://e.org/c> <http://e.org/q> "plain" .
<http://e.org/c> <http://e.org/q> "" .
<http://e.org/z> <http://e.org/q> "a \"quoted\" line\nnext \u00E9 tab\t end \\ back" .
<http://e.org/z> <http://e.org/q> "日本語 ✓" .
"#,
    );
    for i in 0..300 {
        s.push_str(&format!(
            "<http://e.org/n{i}> <http://e.org/link> <http://e.org/n{}> .\n<http://e.org/n{i}> <http://e.org/v{}> \"value {i}\" .\n",
            (i * 7) % 300,
            i % 13
        ));
    }
    s
}

#[test]
fn varied_terms_read_back_exactly() {
    let nt = varied();
    assert_eq!(read(upstream_build(&nt, "nt")), parse(&nt, "nt"));
}

#[test]
fn named_graphs_read_back_exactly() {
    let nq = r#"<http://e.org/a> <http://e.org/p> <http://e.org/b> <http://e.org/g1> .
<http://e.org/a> <http://e.org/p> <http://e.org/c> .
<http://e.org/a> <http://e.org/p> <http://e.org/b> .
<http://e.org/d> <http://e.org/q> "in two" <http://e.org/g1> .
<http://e.org/d> <http://e.org/q> "in two" <http://e.org/g2> .
_:s <http://e.org/q> "blank subject" <http://e.org/g2> .
"#;
    assert_eq!(read(upstream_build(nq, "nq")), parse(nq, "nq"));
}

#[test]
fn many_tiles_and_chunks_read_back_exactly() {
    // Enough distinct terms for several 64 KiB dictionary chunks and index tiles.
    let mut nt = String::new();
    for i in 0..20_000 {
        nt.push_str(&format!(
            "<http://example.org/resource/entity-number-{i}> <http://example.org/p{}> <http://example.org/resource/entity-number-{}> .\n<http://example.org/resource/entity-number-{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"Entity number {i} with a longer label\" .\n",
            i % 5,
            (i * 31 + 7) % 20_000
        ));
    }
    assert_eq!(read(upstream_build(&nt, "nt")), parse(&nt, "nt"));
}

#[test]
fn damaged_and_truncated_files_give_errors_never_panics() {
    let bytes = upstream_build(&varied(), "nt");
    // Every truncation: a clear error.
    for len in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        let cut = bytes[..len].to_vec();
        let r = UpstreamFile::from_bytes(cut).and_then(|f| f.quads());
        match r {
            Err(Error::Truncated(_)) | Err(Error::NotUpstream) => {}
            other => panic!("truncated to {len}: {other:?}"),
        }
    }
    // Byte flips anywhere: an error or (when the byte does not matter) the same quads.
    let want = read(bytes.clone());
    for i in (4..bytes.len()).step_by(3) {
        for x in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= x;
            if let Ok(q) = UpstreamFile::from_bytes(b).and_then(|f| f.quads()) {
                let got: BTreeSet<String> = q.iter().map(ToString::to_string).collect();
                // A flip inside a literal's suffix can change a term and keep the file valid;
                // what matters is that nothing panicked and the count still holds.
                assert_eq!(got.len(), want.len(), "flip {x:#x} at {i}");
            }
        }
    }
    let msg = UpstreamFile::from_bytes(bytes[..2000.min(bytes.len() - 1)].to_vec())
        .and_then(|f| f.quads())
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("truncated upstream rete file"), "{msg}");
    let mut v6 = bytes.clone();
    v6[4] = 0x07;
    let msg = UpstreamFile::from_bytes(v6).unwrap_err().to_string();
    assert!(msg.contains("0x07"), "{msg}");
}

/// Format 0x06 is upstream's staged paired-index generation, which no released builder writes
/// (docs/format.md says what was searched): refused, whole or cut short, with what to do instead.
#[test]
fn format_0x06_is_refused_saying_what_to_do() {
    let real = upstream_build(&varied(), "nt");
    let mut six = real.clone();
    six[4] = 0x06;
    for bytes in [six.clone(), six[..5].to_vec(), six[..1500].to_vec()] {
        let len = bytes.len();
        let e = UpstreamFile::from_bytes(bytes).unwrap_err();
        assert!(matches!(e, Error::Unsupported(0x06)), "{len} bytes: {e:?}");
        let msg = e.to_string();
        for what in [
            "format 0x06",
            "no released upstream",
            "rete-graph 0.3.6",
            "N-Quads",
        ] {
            assert!(msg.contains(what), "{what:?} missing from: {msg}");
        }
    }
    // Every other byte that is not read names itself and a way out; 0x05 still reads.
    for (v, what) in [
        (0x03, "rebuild the file from its RDF source"),
        (0x07, "N-Quads"),
    ] {
        let mut b = real.clone();
        b[4] = v;
        let msg = UpstreamFile::from_bytes(b).unwrap_err().to_string();
        assert!(
            msg.contains(&format!("{v:#04x}")) && msg.contains(what),
            "{msg}"
        );
    }
    assert!(!read(real).is_empty());
}
