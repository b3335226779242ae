//! What "Show all matches" costs (not a test): for each query, where all its matches are
//! (`Searcher::spread`) on a local file — the first call in a fresh searcher and the median of
//! five warm ones — and, given a URL of the same file, over HTTP in a fresh reader: the requests
//! and bytes of the spread alone, after the open. Prints one JSON object a query.
//!
//! `spread_bench FILE [--url URL] QUERY...`

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "measurement tool")]

use rete_core::Rete;
use rete_http::HttpReader;
use rete_search::{Query, Searcher};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: spread_bench FILE [--url URL] QUERY...");
        std::process::exit(2);
    }
    let file = args.remove(0);
    let url = match args.iter().position(|a| a == "--url") {
        Some(i) => {
            args.remove(i);
            Some(args.remove(i))
        }
        None => None,
    };
    let no = AtomicBool::new(false);
    let rete = Rete::open_path(&file).unwrap();
    for text in &args {
        let q = Query::new(text.as_str());
        let fresh = Searcher::open(&rete).unwrap();
        let t = Instant::now();
        let spread = fresh.spread(&q, &no).unwrap();
        let first_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut warm: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                fresh.spread(&q, &no).unwrap();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        warm.sort_by(f64::total_cmp);
        let remote = url.as_ref().map(|u| {
            let http = Arc::new(HttpReader::open(u).unwrap());
            let r = Rete::open(http.clone()).unwrap();
            let s = Searcher::open(&r).unwrap();
            let before = http.stats();
            let t = Instant::now();
            let there = s.spread(&q, &no).unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let after = http.stats();
            assert_eq!(there, spread, "{text}: over HTTP as from the disk");
            serde_json::json!({
                "requests": after.requests - before.requests,
                "bytes": after.bytes - before.bytes,
                "ms": ms,
            })
        });
        let communities: usize = spread.levels.iter().map(Vec::len).sum();
        let top = spread.levels.last().map_or(0, Vec::len);
        println!(
            "{}",
            serde_json::json!({
                "query": text,
                "entities": spread.entities,
                "placed": spread.placed.len(),
                "schema_terms": spread.schema_terms,
                "complete": spread.complete,
                "communities": communities,
                "top_level_communities": top,
                "first_ms": first_ms,
                "warm_ms": warm[2],
                "remote": remote,
            })
        );
    }
}
