//! Replays the fuzz corpus (`fuzz/corpus/<target>/`) and every crash the fuzzers found
//! (`fuzz/regressions/<target>/`) through the same calls as the fuzz targets in `fuzz/`, in the
//! normal test suite: each input must give `Ok` or an error, never a panic. The fixed file is
//! built here the way `fuzz/src/lib.rs` builds it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_build::{build, BuildOptions, Input, Syntax};
use rete_core::dict::{DictBlock, DictIndex};
use rete_core::perm::{decode_block, PermIndex};
use rete_core::{MemReader, Pattern, Rete};
use rete_pyramid::{Pyramid, PyramidExtension, PyramidOptions};
use rete_schema::{Schema, SchemaExtension};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

const ONTOLOGY: &str = r#"<http://example.org/Person> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Agent> .
<http://example.org/Agent> <http://www.w3.org/2000/01/rdf-schema#label> "Agent"@en .
<http://example.org/Robot> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Agent> .
<http://example.org/Robot> <http://www.w3.org/2002/07/owl#disjointWith> <http://example.org/Person> .
<http://example.org/knows> <http://www.w3.org/2000/01/rdf-schema#domain> <http://example.org/Person> .
<http://example.org/age> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#DatatypeProperty> .
"#;

fn fixture() -> &'static (Vec<u8>, Rete, Pyramid) {
    static F: OnceLock<(Vec<u8>, Rete, Pyramid)> = OnceLock::new();
    F.get_or_init(|| {
        let mut nt = Vec::new();
        let params = rete_datagen::social::SocialParams {
            people: 60,
            ..Default::default()
        };
        rete_datagen::social::write_ntriples(&params, &mut nt).unwrap();
        nt.extend_from_slice(ONTOLOGY.as_bytes());
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("fixture.rete");
        let opts = BuildOptions {
            inputs: vec![Input::bytes("fixture.nt", nt, Syntax::NTriples)],
            extensions: vec![
                Arc::new(PyramidExtension {
                    options: PyramidOptions::default(),
                }),
                Arc::new(SchemaExtension),
            ],
            ..BuildOptions::default()
        };
        build(&opts, &out).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        let rete = open(&bytes).unwrap();
        let pyramid = Pyramid::open(&rete).unwrap().unwrap();
        (bytes, rete, pyramid)
    })
}

fn open(bytes: &[u8]) -> rete_core::Result<Rete> {
    Rete::open(Arc::new(MemReader::new(bytes.to_vec(), "fuzz.rete")))
}

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

#[test]
fn header() {
    replay("header", |data| {
        let mut img = data.to_vec();
        rete_core::craft::reseal_all(&mut img);
        if let Ok(rete) = open(&img) {
            let _ = rete.card();
            let _ = rete.verify();
            let _ = rete.term(1);
            if let Ok(it) = rete.quads(&Pattern::default()) {
                for q in it.take(64) {
                    if q.is_err() {
                        break;
                    }
                }
            }
        }
    });
}

fn split4(data: &[u8]) -> Option<(u8, u32, &[u8])> {
    let [sel, a, b, c, d, rest @ ..] = data else {
        return None;
    };
    Some((*sel, u32::from_le_bytes([*a, *b, *c, *d]), rest))
}

#[test]
fn perm() {
    replay("perm", |data| {
        let Some((sel, n, rest)) = split4(data) else {
            return;
        };
        if sel & 1 == 0 {
            let _ = decode_block(rest, n, "s", "f");
        } else {
            let _ = PermIndex::decode(rest, u64::from(n), "s", "f");
        }
    });
}

#[test]
fn dict() {
    replay("dict", |data| {
        let Some((sel, n, rest)) = split4(data) else {
            return;
        };
        if sel & 1 == 0 {
            if let Ok(block) = DictBlock::decode(rest, n, "f") {
                for i in 0..block.len() {
                    if let Some(t) = block.get(i) {
                        let _ = block.find(t);
                    }
                }
            }
        } else if let Ok(index) =
            DictIndex::decode(rest, u64::from(n & 0xffff), u64::from(n >> 16), "f")
        {
            let _ = index.block_of_id(u64::from(n & 0xff));
            let _ = index.block_for_term(rest);
        }
    });
}

#[test]
fn pyramid() {
    replay("pyramid", |data| {
        let _ = fixture().2.fuzz_decode(data);
    });
}

#[test]
fn schema() {
    replay("schema", |data| {
        let mut parts: Vec<&[u8]> = Vec::new();
        let mut rest = data;
        for _ in 0..2 {
            let Some((len, tail)) = rest.split_first_chunk::<2>() else {
                break;
            };
            let len = usize::from(u16::from_le_bytes(*len)).min(tail.len());
            parts.push(&tail[..len]);
            rest = &tail[len..];
        }
        parts.push(rest);
        parts.resize(3, &[]);
        let (bytes, rete, _) = fixture();
        let kinds = [
            rete_schema::kind::CLASSES,
            rete_schema::kind::PROPERTIES,
            rete_schema::kind::STATISTICS,
        ];
        let mut sections: Vec<rete_core::craft::RawSection> = rete
            .sections()
            .iter()
            .filter(|e| !(kinds.contains(&e.kind) && e.index == 0))
            .map(|e| {
                let stored = bytes[e.offset as usize..(e.offset + e.len) as usize].to_vec();
                rete_core::craft::RawSection::new(e.kind, e.index, e.codec, e.raw_len, stored)
            })
            .collect();
        for (k, p) in kinds.iter().zip(&parts) {
            sections.push(rete_core::craft::RawSection::raw(*k, 0, p.to_vec()));
        }
        let h = rete.header();
        let img = rete_core::craft::assemble(h.flags, h.quads, h.terms, &sections);
        if let Ok(r) = open(&img) {
            if let Ok(Some(s)) = Schema::open(&r) {
                let _ = s.to_string();
            }
        }
    });
}

#[test]
fn content_range() {
    replay("content_range", |data| {
        if let Ok(s) = std::str::from_utf8(data) {
            if let Some((a, b, total)) = rete_http::parse_content_range(s) {
                assert!(a <= b);
                assert!(total.is_none_or(|t| b < t));
            }
        }
    });
}

#[test]
fn sparql() {
    replay("sparql", |data| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let Ok(q) = rete_sparql::parse(text, None) else {
            return;
        };
        let opts = rete_sparql::QueryOptions {
            deadline: Some(Instant::now() + Duration::from_millis(500)),
            ..Default::default()
        };
        match rete_sparql::evaluate(&fixture().1, &q, &opts) {
            Ok(rete_sparql::QueryResults::Solutions(s)) => {
                for r in s.take(256) {
                    if r.is_err() {
                        break;
                    }
                }
            }
            Ok(rete_sparql::QueryResults::Graph(t)) => {
                for r in t.take(256) {
                    if r.is_err() {
                        break;
                    }
                }
            }
            _ => {}
        }
    });
}
