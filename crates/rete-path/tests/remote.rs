//! Path searches over HTTP (nginx on 127.0.0.1, which answers several ranges in one request):
//! the same answers as the local file, and each layer of the search fetched in one batch, so a
//! search costs about two requests per layer (directory pages, then blocks) whatever the number
//! of entities it reads. Needs nginx (`apt-get install nginx-light`, scripts/setup.sh).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use oxrdf::{NamedNode, Term};
use rete_build::{build, BuildOptions, Input, Syntax};
use rete_core::{Rete, ReteOptions};
use rete_http::serve_dir::serve_dir_nginx;
use rete_http::HttpReader;
use rete_path::{find_paths, PathOptions, Stop};
use std::sync::Arc;

fn person(i: u64) -> Term {
    NamedNode::new(format!("http://example.org/social/person/{i}"))
        .unwrap()
        .into()
}

/// Requests a search costs besides its layers: the open, the page tables, the lookups it
/// starts with (pages, then blocks) and the terms of the answer (the same two).
const FIXED: u64 = 6;

#[test]
fn a_remote_search_reads_a_layer_per_batch_and_answers_as_the_local_file() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.rete");
    let mut nt = Vec::new();
    let params = rete_datagen::social::SocialParams {
        people: 20_000,
        ..Default::default()
    };
    rete_datagen::social::write_ntriples(&params, &mut nt).unwrap();
    // Small blocks: a pattern touches one block of many, as in a large file.
    build(
        &BuildOptions {
            inputs: vec![Input::bytes("s.nt", nt, Syntax::NTriples)],
            perm_block_quads: 256,
            dict_block_bytes: 4 << 10,
            ..Default::default()
        },
        &file,
    )
    .unwrap();
    let local = Rete::open_path(&file).unwrap();
    let (_nginx, base) = serve_dir_nginx(dir.path(), work.path()).unwrap();
    let url = format!("{base}/s.rete");
    let pairs = [
        (1, 7),
        (3, 450),
        (12, 19_999),
        (200, 201),
        (1500, 17),
        (42, 12_048),
    ];
    let mut read = 0;
    let mut requests = 0;
    for (a, b) in pairs {
        let (a, b) = (person(a), person(b));
        for opts in [
            PathOptions {
                k: 1,
                ..Default::default()
            },
            PathOptions {
                k: 1,
                max_degree: Some(40),
                ..Default::default()
            },
            PathOptions::default(),
        ] {
            let want = find_paths(&local, a.as_ref(), b.as_ref(), &opts).unwrap();
            let reader = Arc::new(HttpReader::open(&url).unwrap());
            // Directories read page by page, as a large file's are.
            let remote = Rete::open_with(
                reader.clone(),
                ReteOptions {
                    lazy_directories: Some(true),
                    ..Default::default()
                },
            )
            .unwrap();
            let got = find_paths(&remote, a.as_ref(), b.as_ref(), &opts).unwrap();
            assert_eq!(got.paths, want.paths, "{a} {b} {opts:?}");
            // The terms of the answer too, fetched in a batch (counted below).
            let text = got.decode(&remote).unwrap();
            assert_eq!(
                text.paths,
                want.decode(&local).unwrap().paths,
                "{a} {b} {opts:?}"
            );
            assert_eq!(got.stop, want.stop, "{a} {b} {opts:?}");
            assert_eq!(got.stats.expanded, want.stats.expanded, "{a} {b} {opts:?}");
            if got.stop != Stop::Found && opts.k > 1 {
                // Telling `exhausted` from `hop_limit` may grow a small ball further.
                continue;
            }
            // Layers: one per link of the longest path found (each longer length adds the
            // layer its walk reads), or up to the hop limit; each costs a batch of directory
            // pages and one of blocks at most (the two ends go in one batch).
            let layers = got
                .paths
                .last()
                .map_or(u64::from(opts.max_hops), |p| p.hops as u64);
            let spent = reader.stats().requests;
            assert!(
                spent <= 2 * layers + FIXED,
                "{a} {b} {opts:?}: {spent} requests for {layers} layers, {} entities read",
                got.stats.expanded
            );
            read += got.stats.expanded;
            requests += spent;
        }
    }
    // One read per entity would cost at least one request each.
    assert!(
        read > 3 * requests,
        "{read} entities read in {requests} requests"
    );
}
