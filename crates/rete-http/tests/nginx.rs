//! Reading through nginx, the most common static file server: several ranges in one request
//! (`multipart/byteranges`), and a `.rete` answering as the local file does.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;
mod server;

use common::noise;
use rete_core::{Id, Pattern, RangeReader, Rete, TermKind};
use rete_http::serve_dir::serve_dir_nginx;
use rete_http::HttpReader;
use std::sync::Arc;

#[test]
fn nginx_answers_spans_far_apart_in_one_request() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let data = noise(3, 1 << 20);
    std::fs::write(dir.path().join("f.bin"), &data).unwrap();
    let (_nginx, base) = serve_dir_nginx(dir.path(), work.path()).unwrap();
    let r = HttpReader::open(&format!("{base}/f.bin")).unwrap();
    r.reset_stats();
    // 40 spans 20 KiB apart (beyond the 16 KiB gap that is fetched through).
    let ranges: Vec<(u64, usize)> = (0..40)
        .map(|i| (100_000 + i * 20_000, 1 + i as usize * 37))
        .collect();
    let got = r.read_many(&ranges).unwrap();
    for (&(o, l), g) in ranges.iter().zip(&got) {
        assert_eq!(g[..], data[o as usize..o as usize + l], "bytes {o}+{l}");
    }
    assert_eq!(r.stats().requests, 1, "{:?}", r.stats());
    // Batches of every shape (overlapping, adjacent, cached in part) give the file's bytes.
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for _ in 0..50 {
        let ranges: Vec<(u64, usize)> = (0..8)
            .map(|_| {
                let l = next(3000) as usize + 1;
                (next(data.len() as u64 - l as u64), l)
            })
            .collect();
        for (&(o, l), g) in ranges.iter().zip(r.read_many(&ranges).unwrap()) {
            assert_eq!(g[..], data[o as usize..o as usize + l], "bytes {o}+{l}");
        }
    }
}

#[test]
fn a_rete_answers_alike_through_nginx_and_a_server_of_one_range_per_request() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rete");
    server::build_social(&path, 300, rete_build::BuildOptions::default());
    let (_nginx, base) = serve_dir_nginx(dir.path(), work.path()).unwrap();
    let local = Rete::open_path(&path).unwrap();
    let quads: Vec<_> = local
        .quads(&Pattern::default())
        .unwrap()
        .step_by(97)
        .map(Result::unwrap)
        .collect();
    for base in [base, server::serve_dir(dir.path().to_path_buf())] {
        let remote = Rete::open(Arc::new(
            HttpReader::open(&format!("{base}/s.rete")).unwrap(),
        ))
        .unwrap();
        for q in &quads {
            let [s, p, o, _]: [Id; 4] = *q;
            server::assert_patterns_agree(&local, &remote, [s, p, o]);
        }
        for id in 1..=local.term_count() {
            assert_eq!(remote.term(id).unwrap(), local.term(id).unwrap(), "{base}");
        }
    }
}

/// 30,000 subjects that do not compress (and as many literals), in small dictionary blocks: a
/// directory of thousands of blocks in pages, as a large file's. Built into `dir`.
fn spread_terms(dir: &std::path::Path) -> std::path::PathBuf {
    let bytes = noise(5, 30_000 * 32);
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let nt: String = bytes
        .chunks(32)
        .map(|c| {
            format!(
                "<http://example.org/{}> <http://example.org/p> \"{}\" .\n",
                hex(&c[..16]),
                hex(&c[16..])
            )
        })
        .collect();
    let path = dir.join("terms.rete");
    let opts = rete_build::BuildOptions {
        inputs: vec![rete_build::Input::bytes(
            "terms.nt",
            nt.into_bytes(),
            rete_build::Syntax::NTriples,
        )],
        dict_block_bytes: 512,
        trained_dict_block_bytes: 512,
        ..rete_build::BuildOptions::default()
    };
    rete_build::build(&opts, &path).unwrap();
    // 30,000 random terms: their small blocks share a trained zstd dictionary (format 1.2), which
    // the remote reader fetches with the directories.
    let rete = Rete::open_path(&path).unwrap();
    assert!(rete
        .section(rete_core::format::kind::DICT_ZSTD, 0)
        .is_some());
    path
}

/// What serves [`spread_terms`] through nginx, kept alive with it (nginx stopped first).
type Served = (
    rete_http::serve_dir::Nginx,
    tempfile::TempDir,
    tempfile::TempDir,
);

/// [`spread_terms`] served by nginx: the local file, the reader (its counts reset once the
/// directory's page table, read on first use, is in) and the file opened through it.
fn served_terms() -> (Served, Rete, Arc<HttpReader>, Rete) {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = spread_terms(dir.path());
    let (nginx, base) = serve_dir_nginx(dir.path(), work.path()).unwrap();
    let local = Rete::open_path(&path).unwrap();
    let reader = Arc::new(HttpReader::open(&format!("{base}/terms.rete")).unwrap());
    let remote = Rete::open(reader.clone()).unwrap();
    assert_eq!(remote.term(1).unwrap(), local.term(1).unwrap());
    reader.reset_stats();
    ((nginx, dir, work), local, reader, remote)
}

#[test]
fn a_page_of_results_costs_two_requests_for_its_terms() {
    let (_served, local, reader, remote) = served_terms();
    // Ids spread over the whole dictionary, each on a directory page and a block of its own.
    let n = local.term_count();
    let ids: Vec<Id> = (1..=20).map(|i| i * n / 20).collect();
    assert_eq!(remote.prefetch_terms(&ids).unwrap(), 20);
    // The pages in one request, then the blocks in one.
    assert_eq!(reader.stats().requests, 2, "{:?}", reader.stats());
    for id in ids {
        assert_eq!(remote.term(id).unwrap(), local.term(id).unwrap());
    }
    assert_eq!(reader.stats().requests, 2, "the lookups read nothing more");
}

#[test]
fn the_lookups_a_command_starts_with_cost_two_requests() {
    let (_served, local, reader, remote) = served_terms();
    // Terms spread over the whole dictionary, one the file lacks, and where the literals begin.
    let n = local.term_count();
    let mut terms: Vec<oxrdf::Term> = (1..=20)
        .map(|i| local.term(i * (n / 2) / 20).unwrap())
        .collect();
    terms.push(
        oxrdf::NamedNode::new("http://example.org/not-there")
            .unwrap()
            .into(),
    );
    let refs: Vec<oxrdf::TermRef<'_>> = terms.iter().map(oxrdf::Term::as_ref).collect();
    let kinds = [TermKind::SimpleLiteral, TermKind::TypedLiteral];
    assert!(remote.prefetch_lookups(&refs, &kinds).unwrap() >= 20);
    // The pages in one request, then the blocks in one.
    assert_eq!(reader.stats().requests, 2, "{:?}", reader.stats());
    for t in &refs {
        assert_eq!(remote.id_of(*t).unwrap(), local.id_of(*t).unwrap(), "{t}");
    }
    for k in kinds {
        assert_eq!(
            remote.first_of_kind(k).unwrap(),
            local.first_of_kind(k).unwrap()
        );
    }
    assert_eq!(reader.stats().requests, 2, "the lookups read nothing more");
    // A local file fetches nothing ahead.
    assert_eq!(local.prefetch_lookups(&refs, &kinds).unwrap(), 0);
}
