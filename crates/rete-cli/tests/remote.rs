//! Every read command gives the same answer for a URL served over HTTP ranges as for the local
//! file (a real server on 127.0.0.1: axum + tower-http `ServeDir`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::serve_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run(args: &[&str]) -> (String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "rete {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// `rete generate social --people <people>` into `dir/<stem>.nt`, then `rete build -q <flags>`
/// of it into `dir/<stem>.rete`; returns both paths.
fn social(dir: &Path, stem: &str, people: &str, flags: &[&str]) -> (PathBuf, PathBuf) {
    let nt = dir.join(format!("{stem}.nt"));
    let file = dir.join(format!("{stem}.rete"));
    run(&[
        "generate",
        "social",
        "--people",
        people,
        "-o",
        nt.to_str().unwrap(),
    ]);
    let mut args = vec!["build", "-q"];
    args.extend_from_slice(flags);
    args.extend([nt.to_str().unwrap(), "-o", file.to_str().unwrap()]);
    run(&args);
    (nt, file)
}

/// The medical sample built into a temporary folder served over HTTP: (folder guard, file, URL).
fn serve_medical() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/medical-1k.ttl");
    let file = dir.path().join("m.rete");
    run(&["build", "-q", src, "-o", file.to_str().unwrap()]);
    let url = format!("{}/m.rete", serve_dir(dir.path().to_path_buf()));
    (dir, file, url)
}

#[test]
fn remote_equals_local_for_every_read_command() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path(), "s", "400", &[]);
    let url = format!("{}/s.rete", serve_dir(dir.path().to_path_buf()));
    let local = file.to_str().unwrap();
    let knows = "<http://xmlns.com/foaf/0.1/knows>";
    let commands: Vec<Vec<&str>> = vec![
        vec!["info", "--json"],
        vec!["query", "-p", knows],
        vec!["query", "-s", "<http://example.org/social/person/3>"],
        vec!["query", "-p", knows, "--count"],
        vec!["export", "--format", "nq"],
        vec!["verify"],
        vec!["cost", "-p", knows],
        vec!["summary", "--json"],
        vec!["schema", "--json"],
        vec!["coherence", "--json"],
        vec!["summary", "--level", "0", "--community", "1", "--json"],
        vec!["search", "ada", "--json", "--limit", "50"],
        vec!["search", "goldwaser radia", "--json"],
        // Compounds: split at the token blocks, read over HTTP as from the file.
        vec!["search", "radiagoldwasser", "--json"],
        vec!["search", "RadiaGold", "--json"],
        vec!["search", "person", "--kind", "class", "--json"],
        vec!["search", "knows", "--json"],
        vec!["sparql", "SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s <http://xmlns.com/foaf/0.1/knows> ?o } GROUP BY ?s ORDER BY DESC(?n) ?s LIMIT 20", "--format", "csv"],
        vec!["sparql", "CONSTRUCT { ?a <http://ex.org/peer> ?b } WHERE { ?a <http://xmlns.com/foaf/0.1/knows> ?b . ?b <http://xmlns.com/foaf/0.1/knows> ?a } ORDER BY ?a ?b", "--format", "ntriples"],
    ];
    for cmd in commands {
        let with = |f: &str| -> Vec<String> {
            let mut v = vec![cmd[0].to_owned(), f.to_owned()];
            v.extend(cmd[1..].iter().map(|s| (*s).to_owned()));
            v
        };
        let (a, _) = run(&with(local).iter().map(String::as_str).collect::<Vec<_>>());
        let (b, _) = run(&with(&url).iter().map(String::as_str).collect::<Vec<_>>());
        if cmd[0] == "coherence" {
            // Timings differ; the findings and bytes must not.
            let a: serde_json::Value = serde_json::from_str(&a).unwrap();
            let b: serde_json::Value = serde_json::from_str(&b).unwrap();
            assert_eq!(a["findings"], b["findings"]);
            assert_eq!(a["bytes_read"], b["bytes_read"]);
        } else if cmd[0] == "info" {
            // The file field names the source; everything else must agree.
            let mut a: serde_json::Value = serde_json::from_str(&a).unwrap();
            let mut b: serde_json::Value = serde_json::from_str(&b).unwrap();
            a["file"] = serde_json::Value::Null;
            b["file"] = serde_json::Value::Null;
            assert_eq!(a, b);
        } else {
            assert_eq!(a, b, "{cmd:?}");
        }
    }
    let (_, err) = run(&["query", &url, "-p", knows, "--count", "--stats"]);
    assert!(err.contains("requests from http://127.0.0.1"), "{err}");
    let missing = Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(["info", &url.replace("s.rete", "nope.rete")])
        .output()
        .unwrap();
    assert_eq!(
        missing.status.code(),
        Some(1),
        "{} / {}",
        String::from_utf8_lossy(&missing.stdout),
        String::from_utf8_lossy(&missing.stderr)
    );
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("404"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
}

#[test]
fn selective_query_on_a_large_remote_file_reads_under_one_percent() {
    let dir = tempfile::tempdir().unwrap();
    let (nt, file) = social(dir.path(), "big", "100000", &["--no-pyramid"]);
    std::fs::remove_file(&nt).unwrap();
    let size = std::fs::metadata(&file).unwrap().len();
    let url = format!("{}/big.rete", serve_dir(dir.path().to_path_buf()));
    let q = "PREFIX foaf: <http://xmlns.com/foaf/0.1/> SELECT ?n WHERE { <http://example.org/social/person/4242> foaf:knows ?f . ?f foaf:name ?n } ORDER BY ?n";
    let (local, _) = run(&["sparql", file.to_str().unwrap(), q, "--format", "csv"]);
    let (remote, stats) = run(&["sparql", &url, q, "--format", "csv", "--stats"]);
    assert_eq!(local, remote);
    assert!(local.lines().count() > 2, "{local}");
    let bytes: u64 = stats.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(bytes * 100 <= size, "read {bytes} of {size} bytes: {stats}");
}

#[test]
fn summary_and_legend_in_three_requests_tier0_in_one() {
    let (_dir, _, url) = serve_medical();
    let requests = |err: &str| -> u64 { err.split_whitespace().nth(4).unwrap().parse().unwrap() };
    let (_, err) = run(&["summary", &url, "--stats"]);
    assert!(requests(&err) <= 3, "summary: {err}");
    let (_, err) = run(&["schema", &url, "--stats"]);
    assert!(requests(&err) <= 3, "legend: {err}");
    let (out, err) = run(&["coherence", &url, "--tier", "0", "--json", "--stats"]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(requests(&err), 1, "tier 0 must be one request: {err}");
    assert!(
        report["bytes_read"].as_u64().unwrap() <= 8192,
        "{}",
        report["bytes_read"]
    );
    assert_eq!(report["findings"][0]["kind"], "unsatisfiable-class");
}

#[test]
fn coherence_over_http_looks_up_sources_only_when_asked() {
    let (_dir, file, url) = serve_medical();
    let (out, _) = run(&["coherence", &url, "--tier", "0", "--json"]);
    let plain: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(plain["lookup"]["done"], false);
    let (out, _) = run(&["coherence", &url, "--tier", "0", "--json", "--sources"]);
    let with: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(with["lookup"]["done"], true);
    let (local, _) = run(&["coherence", file.to_str().unwrap(), "--tier", "0", "--json"]);
    let local: serde_json::Value = serde_json::from_str(&local).unwrap();
    assert_eq!(local["lookup"]["done"], true);
    assert_eq!(with["findings"], local["findings"]);
    let (text, _) = run(&["coherence", &url, "--tier", "0"]);
    assert!(text.contains("add --sources"), "{text}");
}

/// A search over HTTP answers as on the local file and reads a small part of the file.
#[test]
fn search_over_http_reads_a_few_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path(), "s", "3000", &[]);
    let url = format!("{}/s.rete", serve_dir(dir.path().to_path_buf()));
    let size = std::fs::metadata(&file).unwrap().len();
    let fetched = |err: &str| -> (u64, u64) {
        let w: Vec<&str> = err.split_whitespace().collect();
        let i = w.iter().position(|x| *x == "fetched").unwrap();
        (w[i + 1].parse().unwrap(), w[i + 4].parse().unwrap())
    };
    for q in ["a", "ada", "ada le", "goldwaser"] {
        let (out, err) = run(&["search", &url, q, "--stats"]);
        let (local, _) = run(&["search", file.to_str().unwrap(), q]);
        assert_eq!(out, local, "{q}");
        // A fresh process: open, search meta, token block, postings, document directory and
        // blocks, then each hit's term, class and pyramid path.
        let (bytes, requests) = fetched(&err);
        assert!(
            requests <= 16 && bytes <= size / 5,
            "{q}: {bytes} bytes in {requests} requests of a {size}-byte file"
        );
    }
}
/// A file whose document blocks take more than the first 64 KiB the search's open always
/// fetches but under 256 KiB: the open brings all of them, so no keystroke reads one; the
/// answers are the local file's.
#[test]
fn the_search_open_brings_every_document_block_of_a_small_index() {
    use rete_search::{Query, Searcher};
    use std::sync::atomic::AtomicBool;
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path(), "d", "40000", &["--no-pyramid", "--no-schema"]);
    let base = serve_dir(dir.path().to_path_buf());
    let src = rete_http::CountedReader::open(&format!("{base}/d.rete")).unwrap();
    let rete = rete_core::Rete::open(src.reader()).unwrap();
    let remote = Searcher::open(&rete).unwrap();
    let docs = *rete.section(rete_search::kind::DOCS, 0).unwrap();
    assert!((64 << 10..=256 << 10).contains(&docs.len), "{}", docs.len);
    let opened = src.stats();
    rete.reader()
        .read_many(&[(docs.offset, docs.len as usize)])
        .unwrap();
    assert_eq!(src.stats().requests, opened.requests);
    let local = Searcher::open(&rete_core::Rete::open_path(&file).unwrap()).unwrap();
    let cancel = AtomicBool::new(false);
    for text in ["z", "zo", "zoe", "zoe b"] {
        let q = Query::new(text);
        assert_eq!(
            remote.search(&q, &cancel).unwrap(),
            local.search(&q, &cancel).unwrap(),
            "{text}"
        );
    }
}

/// The search box over HTTP in one long-lived reader and the user's languages (the app's): the
/// first search reads at most 3 requests after the file is open, and each later keystroke at
/// most 2 requests and 64 KiB, answering as the local file does; with the community pyramid
/// too, whose hits' paths read its membership blocks in one batch.
#[test]
fn search_keystrokes_over_http_read_few_requests() {
    use rete_search::{Query, Searcher};
    use std::sync::atomic::AtomicBool;
    let dir = tempfile::tempdir().unwrap();
    let (nt, _) = social(dir.path(), "k", "3000", &["--no-pyramid"]);
    let with_pyramid = dir.path().join("p.rete");
    run(&[
        "build",
        "-q",
        nt.to_str().unwrap(),
        "-o",
        with_pyramid.to_str().unwrap(),
    ]);
    let base = serve_dir(dir.path().to_path_buf());
    let typed = [
        "a", "ad", "ada", "ada ", "ada l", "ada le", "g", "go", "gol", "gold", "goldw", "r", "ra",
        "rad", "radia", "radia g",
    ];
    for (stem, pyramid) in [("k", false), ("p", true)] {
        let src = rete_http::CountedReader::open(&format!("{base}/{stem}.rete")).unwrap();
        let rete = rete_core::Rete::open(src.reader()).unwrap();
        let mut before = src.stats();
        let remote = Searcher::open(&rete).unwrap();
        let local = rete_core::Rete::open_path(dir.path().join(format!("{stem}.rete"))).unwrap();
        let paths = rete_pyramid::Pyramid::open(&local).unwrap();
        assert_eq!(paths.is_some(), pyramid);
        let local_rete = local.clone();
        let local = Searcher::open(&local).unwrap();
        let cancel = AtomicBool::new(false);
        for (i, text) in typed.into_iter().enumerate() {
            // The app passes the user's languages.
            let q = Query {
                languages: vec!["en-US".into(), "en".into()],
                ..Query::new(text)
            };
            let answer = remote.search(&q, &cancel).unwrap();
            assert!(!answer.hits.is_empty(), "{stem} {text}");
            assert_eq!(answer, local.search(&q, &cancel).unwrap(), "{stem} {text}");
            let entity = |h: &&rete_search::Hit| h.kind == rete_search::Kind::Entity;
            assert!(
                answer.hits.iter().any(|h| entity(&h)),
                "{stem} {text}: no person found"
            );
            assert!(
                answer
                    .hits
                    .iter()
                    .all(|h| h.path.is_some() == (pyramid && entity(&h))),
                "{stem} {text}: every person has a path with the pyramid, nothing else has one"
            );
            // Each path is the pyramid's own, read one entity at a time.
            for h in &answer.hits {
                if let (Some(path), Some(p)) = (&h.path, &paths) {
                    let iri = h.term.trim_start_matches('<').trim_end_matches('>');
                    let node = oxrdf::NamedNodeRef::new(iri).unwrap();
                    let id = local_rete.id_of(node.into()).unwrap().unwrap();
                    assert_eq!(Some(path), p.community_path(id).unwrap().as_ref());
                }
            }
            let now = src.stats();
            let (requests, bytes) = (now.requests - before.requests, now.bytes - before.bytes);
            let most = if i == 0 { 3 } else { 2 };
            assert!(
                requests <= most && bytes <= 64 << 10,
                "{stem} {text}: {requests} requests, {bytes} bytes"
            );
            before = now;
        }
        // Within the top-level community of the first person found: the same answer, inside it.
        let first = local.search(&Query::new("ada"), &cancel).unwrap().hits;
        if let Some(path) = first.iter().find_map(|h| h.path.clone()) {
            let level = path.len() - 1;
            let q = Query {
                within: Some(rete_search::Within {
                    level: level as u32,
                    community: path[level],
                }),
                ..Query::new("a")
            };
            let answer = remote.search(&q, &cancel).unwrap();
            assert_eq!(answer, local.search(&q, &cancel).unwrap());
            assert!(!answer.hits.is_empty());
            assert!(answer
                .hits
                .iter()
                .all(|h| h.path.as_ref().is_some_and(|p| p[level] == path[level])));
        }
        assert_eq!(pyramid, first.iter().any(|h| h.path.is_some()));
    }
}

/// Labels of many distinct words (as a real vocabulary has: 30 000 words where the social graph
/// has 70), so that the token blocks and the directories a first search reads before its postings
/// exceed the open's 64 KiB batch: the open fetches them whole (they stay within 512 KiB), and
/// the first search over nginx still reads at most 3 requests after the open, answering as the
/// local file does.
/// `data` written to `dir/name`, built without a pyramid and served from `dir`: its reader over
/// HTTP (counting requests), and searchers over HTTP and on the local file.
fn searched_both_ways(
    dir: &Path,
    name: &str,
    data: &str,
) -> (
    rete_http::CountedReader,
    rete_search::Searcher,
    rete_search::Searcher,
) {
    use rete_search::Searcher;
    let src = dir.join(name);
    std::fs::write(&src, data).unwrap();
    let stem = name.split('.').next().unwrap();
    let file = dir.join(format!("{stem}.rete"));
    let args = ["build", "-q", "--no-pyramid", src.to_str().unwrap(), "-o"];
    run(&[&args[..], &[file.to_str().unwrap()]].concat());
    let url = format!("{}/{stem}.rete", serve_dir(dir.to_path_buf()));
    let counted = rete_http::CountedReader::open(&url).unwrap();
    let remote = Searcher::open(&rete_core::Rete::open(counted.reader()).unwrap()).unwrap();
    let local = Searcher::open(&rete_core::Rete::open_path(&file).unwrap()).unwrap();
    (counted, remote, local)
}

/// A query of two common words whose best tiers hold nothing (`ada fran`: both are first
/// names, no label is exactly both) walks both words' lists to the end to prove it: over HTTP
/// it answers as the local file does, and the lists' chunks come together — the walk's
/// requests do not grow with the number of lists walked.
#[test]
fn a_walk_through_whole_lists_over_http_fetches_them_together() {
    use rete_search::Query;
    use std::fmt::Write;
    use std::sync::atomic::AtomicBool;
    let dir = tempfile::tempdir().unwrap();
    let (first, last) = (
        ["Ada", "Alan", "Fran", "Karen"],
        ["Franklin", "Smith", "Jones", "Frances"],
    );
    let mut ttl = String::from("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n");
    // 60 000 labels a first name (15 posting chunks each), names and IRIs drawn at random
    // (a file that does not compress to a few blocks).
    let mut x = 42u64;
    for _ in 0..240_000 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let (f, l) = (first[(x >> 33) as usize % 4], last[(x >> 40) as usize % 4]);
        writeln!(
            ttl,
            "<http://example.org/{x:016x}> rdfs:label \"{f} {l}\" ."
        )
        .unwrap();
    }
    let (counted, remote, local) = searched_both_ways(dir.path(), "w.ttl", &ttl);
    let cancel = AtomicBool::new(false);
    // `ada fran` after `ada`: 7 requests, of which the walk takes 3 (the first chunks of `fran`,
    // `franklin` and `frances`, then the next 4 and 10 chunks of `ada` and `fran` together;
    // fetched list by list, 5), then the hits' documents, terms and their directory pages.
    for (text, most) in [
        ("ada", 5),
        ("ada fran", 7),
        ("fran ada", 0),
        ("ada franc", 0),
    ] {
        let before = counted.stats().requests;
        let q = Query::new(text);
        let answer = remote.search(&q, &cancel).unwrap();
        assert_eq!(answer, local.search(&q, &cancel).unwrap(), "{text}");
        assert!(answer.hits[0].label.starts_with("Ada "), "{text}");
        let requests = counted.stats().requests - before;
        assert!(requests <= most, "{text}: {requests} requests");
    }
}

/// Local names typed whole as one word (`UndergraduateStudent31`, as LUBM names its people)
/// are split into `undergraduate`, `student` and `31`: the rare numbers drive the walk deep into
/// the long lists of the two words. Over HTTP it answers as the local file does, and the walk
/// reads its postings in one request: the lists' small chunks come with their first, then the
/// hits' documents and terms (`UndergraduateStudent3`: 3 requests; 5 when each list's next
/// chunks were fetched as the walk reached them).
#[test]
fn a_compound_typed_whole_over_http_reads_few_requests() {
    use rete_search::Query;
    use std::fmt::Write;
    use std::sync::atomic::AtomicBool;
    let dir = tempfile::tempdir().unwrap();
    let mut nt = String::new();
    for d in 0..100 {
        let dept = format!("http://www.Department{d}.University0.edu");
        for (kind, n) in [
            ("UndergraduateStudent", 300),
            ("GraduateStudent", 100),
            ("Course", 50),
        ] {
            for i in 0..n {
                writeln!(
                    nt,
                    "<{dept}/{kind}{i}> <http://example.org/memberOf> <{dept}> ."
                )
                .unwrap();
            }
        }
    }
    // Labelled people besides, their words drawn at random: posting chunks beyond what the
    // open reads ahead.
    let syllables = [
        "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "va", "ze", "bri", "cha",
    ];
    let mut x = 7u64;
    for i in 0..40_000 {
        let mut label = String::new();
        for _ in 0..2 {
            for _ in 0..3 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                label.push_str(syllables[(x >> 33) as usize % syllables.len()]);
            }
            label.push(' ');
        }
        writeln!(
            nt,
            "<http://example.org/p{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"{}\" .",
            label.trim_end()
        )
        .unwrap();
    }
    let (counted, remote, local) = searched_both_ways(dir.path(), "u.nt", &nt);
    let cancel = AtomicBool::new(false);
    let typed = "UndergraduateStudent31";
    for n in 1..=typed.len() {
        let text = &typed[..n];
        let before = counted.stats().requests;
        let q = Query::new(text);
        let answer = remote.search(&q, &cancel).unwrap();
        assert_eq!(answer, local.search(&q, &cancel).unwrap(), "{text}");
        assert!(!answer.hits.is_empty(), "{text}");
        let requests = counted.stats().requests - before;
        assert!(n == 1 || requests <= 3, "{text}: {requests} requests");
    }
    let top = &remote.search(&Query::new(typed), &cancel).unwrap().hits[0];
    assert!(
        top.term.ends_with("/UndergraduateStudent31>"),
        "{}",
        top.term
    );
    assert_eq!(top.matched, rete_search::Match::WholeLabel);
}

#[test]
fn a_first_search_reads_few_requests_when_the_token_blocks_are_large() {
    use rete_search::{kind, Query, Searcher};
    use std::sync::atomic::AtomicBool;
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // Words of three syllables drawn by a fixed generator: about 20 000 distinct words.
    let syllables = [
        "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "va", "ze", "bri", "cha", "dro", "fle",
        "gru", "ish", "jor", "kel", "mon", "nar", "ost", "pra", "quo", "ril", "sta", "tru", "ul",
        "vex", "wen", "yor", "zan", "aph", "eld", "iv", "orn", "ush", "yl", "ech", "im", "ob",
    ];
    let mut x: u64 = 47;
    let mut word = || {
        (0..3)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                syllables[(x >> 33) as usize % syllables.len()]
            })
            .collect::<String>()
    };
    let mut nt = String::new();
    for i in 0..12_000 {
        let label = format!("{} {}", word(), word());
        nt.push_str(&format!(
            "<http://example.org/v/t{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"{label}\"@en .\n"
        ));
    }
    let src = dir.path().join("v.nt");
    std::fs::write(&src, &nt).unwrap();
    let file = dir.path().join("v.rete");
    run(&[
        "build",
        "-q",
        src.to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let local = rete_core::Rete::open_path(&file).unwrap();
    let chain: u64 = [
        (kind::TOKENS, 0),
        (kind::DOC_DIR, 0),
        (rete_core::format::kind::DICT_INDEX, 0),
    ]
    .iter()
    .filter_map(|&(k, i)| local.section(k, i))
    .map(|e| e.len)
    .sum();
    assert!(
        (64 << 10) < chain && chain <= 512 << 10,
        "the sections before the postings: {chain} bytes"
    );
    let (_nginx, base) = rete_http::serve_dir::serve_dir_nginx(dir.path(), work.path()).unwrap();
    let src = rete_http::CountedReader::open(&format!("{base}/v.rete")).unwrap();
    let rete = rete_core::Rete::open(src.reader()).unwrap();
    let remote = Searcher::open(&rete).unwrap();
    let local = Searcher::open(&local).unwrap();
    let cancel = AtomicBool::new(false);
    // Words from the middle of the token list, typed as a user would.
    let typed = nt
        .lines()
        .nth(6_000)
        .and_then(|l| l.split('"').nth(1))
        .unwrap()
        .to_owned();
    let mut before = src.stats();
    for (i, end) in [3, 5, typed.len()].into_iter().enumerate() {
        let q = Query::new(&typed[..end]);
        let answer = remote.search(&q, &cancel).unwrap();
        assert!(!answer.hits.is_empty(), "{}", &typed[..end]);
        assert_eq!(
            answer,
            local.search(&q, &cancel).unwrap(),
            "{}",
            &typed[..end]
        );
        let now = src.stats();
        let requests = now.requests - before.requests;
        let most = if i == 0 { 3 } else { 2 };
        assert!(requests <= most, "{}: {requests} requests", &typed[..end]);
        before = now;
    }
}

/// `rete serve` of a local file and of the same file by URL (the replica set-up of
/// docs/serve.md): both endpoints answer alike, and SIGTERM stops the server cleanly.
#[test]
fn serve_a_file_and_a_url_then_stop_on_sigterm() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path(), "s", "200", &[]);
    let url = format!("{}/s.rete", serve_dir(dir.path().to_path_buf()));
    let local = format!("local={}", file.display());
    let remote = format!("remote={url}");
    let args = [&*local, &remote, "--bind", "127.0.0.1:0", "--threads", "2"];
    let mut server = Serving::start(&args);
    let base = server.base.clone();
    let listing = server.line();
    assert!(
        listing.contains(&format!("{base}/local/sparql")),
        "{listing}"
    );
    // A small file and a URL both get the floor of the default cache.
    assert!(listing.contains("(cache 256.0 MiB)"), "{listing}");
    let listing = server.line();
    assert!(
        listing.contains(&format!("{base}/remote/sparql  {url}  (cache 256.0 MiB)")),
        "{listing}"
    );
    let query = "SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }";
    let (cli, _) = run(&["sparql", file.to_str().unwrap(), query, "--format", "csv"]);
    for name in ["local", "remote"] {
        let mut r = ureq::post(&format!("{base}/{name}/sparql"))
            .header("Content-Type", "application/sparql-query")
            .header("Accept", "text/csv")
            .send(query)
            .unwrap();
        let mut body = String::new();
        r.body_mut().as_reader().read_to_string(&mut body).unwrap();
        assert_eq!(body, cli, "{name}");
    }
    let err = server.stop();
    assert!(err.contains("stopping"), "{err}");
}

/// A process this test started, killed if the test ends early.
struct Process(std::process::Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `rete serve` process; its base URL from the first line it prints.
struct Serving {
    process: Process,
    out: std::io::BufReader<std::process::ChildStdout>,
    base: String,
}

impl Serving {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rete"))
            .arg("serve")
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut serving = Self {
            process: Process(child),
            out,
            base: String::new(),
        };
        // "serving 2 files at http://127.0.0.1:PORT/ (Ctrl-C to stop)"
        let first = serving.line();
        serving.base = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("{first}"))
            .trim_end_matches('/')
            .to_owned();
        serving
    }

    /// The next line it prints.
    fn line(&mut self) -> String {
        use std::io::BufRead;
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        line
    }

    /// SIGTERM, then asserts a clean exit; returns what it wrote to standard error.
    fn stop(mut self) -> String {
        use std::io::Read;
        let child = &mut self.process.0;
        let kill = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = child.wait().unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(status.success(), "{status:?}: {err}");
        err
    }
}

/// The body of a GET of `query` from `endpoint`, asserting 200.
fn http_get(endpoint: &str, query: &str, accept: &str) -> String {
    use std::io::Read;
    let mut r = ureq::get(endpoint)
        .query("query", query)
        .header("Accept", accept)
        .call()
        .unwrap();
    let mut body = String::new();
    r.body_mut().as_reader().read_to_string(&mut body).unwrap();
    body
}

/// The replica set-up of docs/serve.md, its nginx configuration as written there: two
/// `rete serve` reading one file from a third HTTP server, nginx in front, all on 127.0.0.1.
#[test]
fn replicas_behind_nginx_answer_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path(), "s", "200", &[]);
    let url = format!("{}/s.rete", serve_dir(dir.path().to_path_buf()));
    let source = format!("social={url}");
    let a = Serving::start(&[&source, "--bind", "127.0.0.1:0"]);
    let b = Serving::start(&[&source, "--bind", "127.0.0.1:0"]);

    // The doc's block, with the replicas' and nginx's ports put in.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/serve.md"))
        .unwrap();
    let start = doc.find("```nginx\n").unwrap() + "```nginx\n".len();
    let block = &doc[start..start + doc[start..].find("```").unwrap()];
    let port = rete_http::serve_dir::free_port().unwrap();
    let block = block
        .replace("127.0.0.1:7878", a.base.trim_start_matches("http://"))
        .replace("127.0.0.1:7879", b.base.trim_start_matches("http://"))
        .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"));
    let proxy = rete_http::serve_dir::Nginx::start(dir.path(), &block, port).unwrap();
    let front = format!("http://127.0.0.1:{port}/social/sparql");

    let query = "SELECT ?p (COUNT(?f) AS ?n) WHERE { ?p foaf:knows ?f } GROUP BY ?p ORDER BY DESC(?n) ?p LIMIT 5";
    let (cli, _) = run(&["sparql", file.to_str().unwrap(), query, "--format", "csv"]);
    // Round robin: these go to both replicas.
    for _ in 0..4 {
        assert_eq!(http_get(&front, query, "text/csv"), cli);
    }
    a.stop();
    // The other replica answers alone.
    for _ in 0..2 {
        assert_eq!(http_get(&front, query, "text/csv"), cli);
    }
    b.stop();
    drop(proxy);
}

/// A server on 127.0.0.1 that answers every request with a 302 to `target` + the request's path.
fn redirect_to(target: String) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut tcp in listener.incoming().flatten() {
            let mut line = String::new();
            let mut r = BufReader::new(tcp.try_clone().unwrap());
            r.read_line(&mut line).unwrap();
            let path = line.split(' ').nth(1).unwrap_or("/").to_owned();
            // The rest of the request head.
            while r.read_line(&mut line).is_ok_and(|n| n > 2) {}
            let _ = write!(
                tcp,
                "HTTP/1.1 302 Found\r\nLocation: {target}{path}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    base
}

#[test]
fn a_redirect_to_another_host_names_the_flag_and_is_followed_when_allowed() {
    let (_dir, file, url) = serve_medical();
    let target = url.trim_end_matches("/m.rete").to_owned();
    let host = target.trim_start_matches("http://").to_owned();
    let start = format!("{}/m.rete", redirect_to(target));
    let o = Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(["info", &start])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("refused a redirect from {start} to {url}"))
            && err.contains(&format!("--allow-redirect-host {host}")),
        "{err}"
    );
    let (local, _) = run(&["info", file.to_str().unwrap()]);
    let (allowed, _) = run(&["info", &start, "--allow-redirect-host", &host]);
    let (any, _) = run(&["--follow-redirects", "info", &start]);
    // `info` names its source; everything else is the same.
    let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&allowed), body(&local));
    assert_eq!(body(&any), body(&local));
    // Another host allowed is not this one.
    let o = Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(["info", &start, "--allow-redirect-host", "127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}
