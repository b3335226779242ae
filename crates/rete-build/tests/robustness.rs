//! Determinism, external sort, bad input and damaged files.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::*;
use rete_build::{build, BuildError, BuildOptions, Input, Syntax};
use rete_core::format::{kind, HEADER_LEN};
use rete_core::{Error, MemReader, Pattern, Rete};
use std::sync::Arc;

fn social_file(
    dir: &std::path::Path,
    people: u64,
    opts: BuildOptions,
) -> (std::path::PathBuf, rete_build::BuildReport) {
    let out = dir.join(format!("social-{people}-{}.rete", opts.memory_budget));
    let opts = BuildOptions {
        inputs: vec![Input::bytes(
            "social.nt",
            social_nt(people),
            Syntax::NTriples,
        )],
        ..opts
    };
    let report = build(&opts, &out).unwrap();
    (out, report)
}

#[test]
fn builds_are_byte_identical_and_spilling_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (a, ra) = social_file(dir.path(), 3000, BuildOptions::default());
    let b = dir.path().join("again.rete");
    std::fs::copy(&a, &b).unwrap();
    let (c, _) = social_file(dir.path(), 3000, BuildOptions::default());
    assert_eq!(std::fs::read(&b).unwrap(), std::fs::read(&c).unwrap());
    // A 1 MiB budget forces the provisional quads to disk; the permutations' keys (8 bytes
    // each) fit it one permutation at a time (tests/spill.rs spills terms and permutation runs).
    let (d, rd) = social_file(
        dir.path(),
        3000,
        BuildOptions {
            memory_budget: 1 << 20,
            ..BuildOptions::default()
        },
    );
    assert_eq!(ra.spilled_runs, 0);
    assert!(rd.quad_runs > 0, "expected spilling, got {rd:?}");
    assert!(rd.permutations_one_at_a_time, "{rd:?}");
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(&d).unwrap(),
        "external sort must give the same file"
    );
    // No temp files left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".rete"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn syntax_error_names_file_line_column_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.ttl");
    std::fs::write(
        &src,
        "@prefix ex: <http://ex.org/> .\nex:a ex:b ex:c .\nex:a ex:b \"unterminated .\n",
    )
    .unwrap();
    let out = dir.path().join("out.rete");
    std::fs::write(&out, b"previous content").unwrap();
    let err = build_inputs(vec![Input::path(&src)], &out).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, BuildError::Syntax { line: 3, .. }), "{msg}");
    assert!(msg.starts_with(&format!("{}:3:", src.display())), "{msg}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"previous content",
        "existing output must be untouched"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temp file may be left: {names:?}");
}

#[test]
fn rdfxml_error_has_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.rdf");
    std::fs::write(&src, "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n  <rdf:Description rdf:about=\"http://a\">\n  </rdf:Oops>\n</rdf:RDF>\n").unwrap();
    let out = dir.path().join("out.rete");
    let err = build_inputs(vec![Input::path(&src)], &out).unwrap_err();
    match &err {
        BuildError::Syntax { line, column, .. } => assert!(*line >= 3 && *column >= 1, "{err}"),
        other => panic!("expected a syntax error, got {other}"),
    }
    assert!(!out.exists());
}

#[test]
fn compressed_inputs_and_unknown_extension() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(50);
    let gz = dir.path().join("s.nt.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    std::io::Write::write_all(&mut enc, &nt).unwrap();
    enc.finish().unwrap();
    let zst = dir.path().join("s.nt.zst");
    std::fs::write(&zst, zstd::encode_all(&nt[..], 3).unwrap()).unwrap();
    let plain = dir.path().join("s.nt");
    std::fs::write(&plain, &nt).unwrap();
    let mut hashes = Vec::new();
    for input in [&plain, &gz, &zst] {
        let out = dir.path().join("o.rete");
        build_inputs(vec![Input::path(input)], &out).unwrap();
        hashes.push(
            Rete::open_path(&out)
                .unwrap()
                .card()
                .unwrap()
                .content_hash
                .clone(),
        );
    }
    assert!(hashes.windows(2).all(|w| w[0] == w[1]));
    let odd = dir.path().join("data.txt");
    std::fs::write(&odd, &nt).unwrap();
    let err = build_inputs(vec![Input::path(&odd)], &dir.path().join("x.rete")).unwrap_err();
    assert!(matches!(err, BuildError::UnknownFormat { .. }), "{err}");
}

#[test]
fn several_inputs_keep_blank_nodes_apart_and_graphs() {
    let dir = tempfile::tempdir().unwrap();
    let a = Input::bytes("a.ttl", &b"_:x <http://p> \"a\" ."[..], Syntax::Turtle);
    let b = Input::bytes(
        "b.trig",
        &b"<http://g> { _:x <http://p> \"b\" . }"[..],
        Syntax::TriG,
    );
    let out = dir.path().join("m.rete");
    build_inputs(vec![a, b], &out).unwrap();
    let rete = Rete::open_path(&out).unwrap();
    let subjects: std::collections::BTreeSet<_> = rete
        .quads(&Pattern::default())
        .unwrap()
        .map(|q| q.unwrap()[0])
        .collect();
    assert_eq!(
        subjects.len(),
        2,
        "blank nodes of different inputs must not merge"
    );
    assert_eq!(rete.card().unwrap().graphs.len(), 1);
    assert_eq!(
        rete.header().flags & rete_core::format::FLAG_NAMED_GRAPHS,
        1
    );
}

/// Reads everything the file holds through every API; returns the first error.
fn read_all(bytes: Vec<u8>) -> Result<(), Error> {
    let rete = Rete::open(Arc::new(MemReader::new(bytes, "damaged.rete")))?;
    rete.card()?;
    for q in rete.quads(&Pattern::default())? {
        let q = q?;
        rete.term(q[0])?;
    }
    rete.verify()?;
    Ok(())
}

#[test]
fn damaged_files_give_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = social_file(
        dir.path(),
        300,
        BuildOptions {
            perm_block_quads: 64,
            dict_block_bytes: 512,
            ..BuildOptions::default()
        },
    );
    let good = std::fs::read(&path).unwrap();
    read_all(good.clone()).unwrap();
    let rete = Rete::open_path(&path).unwrap();
    let mut cuts: Vec<usize> = vec![0, 7, 8, HEADER_LEN - 1, HEADER_LEN, good.len() - 1];
    for e in rete.sections() {
        cuts.extend([
            e.offset as usize,
            e.offset as usize + 1,
            (e.offset + e.len / 2) as usize,
            (e.offset + e.len) as usize - 1,
        ]);
    }
    // Truncation at every section boundary (and inside each section).
    for &cut in &cuts {
        if cut < good.len() {
            let err = read_all(good[..cut].to_vec());
            assert!(err.is_err(), "truncation at {cut} was not detected");
        }
    }
    // Bit flips at the same places and on a stride through the whole file.
    let mut flips = cuts.clone();
    flips.extend((0..good.len()).step_by(97));
    for &at in &flips {
        if at >= good.len() {
            continue;
        }
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        let err = read_all(bad);
        assert!(err.is_err(), "flip at {at} was not detected");
    }
}

#[test]
fn bad_magic_version_and_absurd_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = social_file(dir.path(), 50, BuildOptions::default());
    let good = std::fs::read(&path).unwrap();
    let msg = |b: Vec<u8>| {
        Rete::open(Arc::new(MemReader::new(b, "x.rete")))
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let mut upstream = good.clone();
    upstream[..5].copy_from_slice(b"RETE\x06");
    assert!(msg(upstream).contains("upstream rete"));
    assert!(
        msg(b"hello, world! this is not a rete file at all, just some text....".to_vec())
            .contains("not a .rete file")
    );
    let mut v2 = good.clone();
    v2[8] = 9;
    assert!(msg(v2).contains("unsupported .rete format version 9"));
    // A section claiming a 1 TiB decoded size (zstd bomb) is refused before decompression.
    let rete = Rete::open_path(&path).unwrap();
    let card = rete.section(kind::CARD, 0).copied().unwrap();
    let mut spec = Vec::new();
    for e in rete.sections() {
        let mut e = *e;
        if e.kind == kind::CARD {
            e.raw_len = 1 << 40;
        }
        spec.push(e);
    }
    let mut bomb = good.clone();
    let mut dir_bytes = Vec::new();
    for e in &spec {
        dir_bytes.extend_from_slice(&e.to_bytes());
    }
    bomb[HEADER_LEN..HEADER_LEN + dir_bytes.len()].copy_from_slice(&dir_bytes);
    let mut h = rete.header().clone();
    h.dir_checksum = xxhash_rust::xxh3::xxh3_64(&dir_bytes);
    bomb[..HEADER_LEN].copy_from_slice(&h.to_bytes());
    let m = msg(bomb);
    assert!(
        m.contains("card") && m.contains("exceeds"),
        "{m} ({card:?})"
    );
}

#[test]
fn pattern_cost_is_exact_for_single_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = social_file(
        dir.path(),
        2000,
        BuildOptions {
            perm_block_quads: 256,
            ..BuildOptions::default()
        },
    );
    let counting = Arc::new(rete_core::CountingReader::new(
        rete_core::FileReader::open(&path).unwrap(),
    ));
    let rete = Rete::open(counting.clone()).unwrap();
    let knows = rete
        .id_of(
            oxrdf::NamedNode::new_unchecked("http://xmlns.com/foaf/0.1/knows")
                .as_ref()
                .into(),
        )
        .unwrap();
    let someone = rete
        .id_of(
            oxrdf::NamedNode::new_unchecked("http://example.org/social/person/77")
                .as_ref()
                .into(),
        )
        .unwrap();
    for pattern in [
        Pattern::new(someone, None, None),
        Pattern::new(None, knows, someone),
        Pattern::new(None, knows, None),
        Pattern::default(),
    ] {
        rete.clear_cache();
        let cost = rete.pattern_cost(&pattern).unwrap();
        counting.reset();
        let n = rete.quads(&pattern).unwrap().count();
        let got = counting.stats();
        assert!(n > 0);
        assert_eq!(
            (cost.bytes, cost.requests),
            (got.bytes, got.requests),
            "{pattern:?}"
        );
    }
}

#[test]
fn open_reads_one_prefix_and_directories_come_in_one_read() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = social_file(dir.path(), 2000, BuildOptions::default());
    let counting = Arc::new(rete_core::CountingReader::new(
        rete_core::FileReader::open(&path).unwrap(),
    ));
    let rete = Rete::open(counting.clone()).unwrap();
    assert_eq!(counting.stats().requests, 1, "open must be one read");
    assert!(counting.stats().bytes <= 8192);
    rete.card().unwrap();
    let before = counting.stats().requests;
    rete.count(&Pattern::default()).unwrap();
    let id = rete
        .id_of(
            oxrdf::NamedNode::new_unchecked("http://xmlns.com/foaf/0.1/knows")
                .as_ref()
                .into(),
        )
        .unwrap();
    assert!(id.is_some());
    // Directories: at most one read; the term lookup: at most one dictionary block (both may
    // already lie in the prefix read at open).
    assert!(
        counting.stats().requests - before <= 2,
        "{:?}",
        counting.stats()
    );
}

/// The social graph of 3,000 people in blocks of 128 quads, read with a block cache of
/// `cache_bytes`: many more blocks than the cache holds.
fn small_blocks_small_cache(dir: &std::path::Path, cache_bytes: usize) -> Rete {
    let (path, _) = social_file(
        dir,
        3000,
        BuildOptions {
            perm_block_quads: 128,
            ..BuildOptions::default()
        },
    );
    Rete::open_with(
        Arc::new(rete_core::FileReader::open(&path).unwrap()),
        rete_core::ReteOptions {
            cache_bytes,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn concurrent_readers_agree() {
    let dir = tempfile::tempdir().unwrap();
    // A small cache forces evictions while threads race on the same blocks.
    let rete = small_blocks_small_cache(dir.path(), 64 << 10);
    let expected: Vec<u64> = (1..=40u64)
        .map(|s| {
            rete.quads(&Pattern::new(Some(s * 7), None, None))
                .unwrap()
                .count() as u64
        })
        .collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let rete = rete.clone();
            let expected = &expected;
            scope.spawn(move || {
                for round in 0..20 {
                    for (i, s) in (1..=40u64).enumerate() {
                        if (i + t + round) % 3 == 0 {
                            let n = rete
                                .quads(&Pattern::new(Some(s * 7), None, None))
                                .unwrap()
                                .count() as u64;
                            assert_eq!(n, expected[i]);
                            assert_eq!(
                                rete.count(&Pattern::new(Some(s * 7), None, None)).unwrap(),
                                expected[i]
                            );
                        }
                    }
                }
            });
        }
    });
}

#[test]
fn the_block_cache_keeps_within_its_bound_and_reports_its_fill() {
    let dir = tempfile::tempdir().unwrap();
    let limit = 256 << 10;
    let rete = small_blocks_small_cache(dir.path(), limit);
    let fresh = rete.memory_use();
    assert_eq!((fresh.cached_blocks, fresh.cached_bytes), (0, 0));
    assert_eq!(fresh.cache_limit, limit);
    // Every quad through several orders, and every term: far more blocks than the bound holds.
    let mut read = 0usize;
    for (s, p, o) in [
        (true, false, false),
        (false, true, false),
        (false, false, true),
        (true, false, true),
        (false, true, true),
    ] {
        for q in rete.quads(&Pattern::default()).unwrap() {
            let q = q.unwrap();
            let pat = Pattern::new(s.then_some(q[0]), p.then_some(q[1]), o.then_some(q[2]));
            read += rete.quads(&pat).unwrap().take(1).count();
            let u = rete.memory_use();
            assert!(u.cached_bytes <= limit, "{u:?}");
        }
    }
    for id in 1..=rete.term_count() {
        rete.term(id).unwrap();
        assert!(rete.memory_use().cached_bytes <= limit);
    }
    assert!(read > 0);
    let full = rete.memory_use();
    // Filled near its bound, with the directories of the six orders loaded.
    assert!(full.cached_bytes > limit / 2, "{full:?}");
    assert!(full.cached_blocks > 1, "{full:?}");
    assert!(full.directory_bytes > 0, "{full:?}");
    rete.clear_cache();
    let cleared = rete.memory_use();
    assert_eq!((cleared.cached_blocks, cleared.cached_bytes), (0, 0));
    assert_eq!(cleared.directory_bytes, full.directory_bytes);
}
