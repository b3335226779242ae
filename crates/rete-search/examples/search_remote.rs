//! The HTTP reads of typing into the search box of a remote file (not a test): every keystroke
//! of QUERIES.txt (one a line, as `search_bench` writes them) in one long-lived reader, with the
//! requests and bytes each one costs and the sections the reads fell in.
//!
//! `search_remote URL QUERIES.txt [--all]`: prints the first search and every keystroke above
//! 2 requests or 64 KiB (`--all`: every keystroke), then a summary line.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "measurement tool")]

use rete_core::{RangeError, RangeReader, Rete};
use rete_http::HttpReader;
use rete_search::{Query, Searcher};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

/// Passes reads to the HTTP reader and notes, for each call, the requests it cost and the
/// sections its ranges lie in.
#[derive(Debug)]
struct Traced {
    http: Arc<HttpReader>,
    sections: OnceLock<Vec<(u64, u64, String)>>,
    log: Mutex<Vec<String>>,
}

impl Traced {
    fn note(&self, ranges: &[(u64, usize)], before: u64) {
        let requests = self.http.stats().requests - before;
        if requests == 0 {
            return;
        }
        let mut names: Vec<String> = ranges
            .iter()
            .map(|&(o, _)| {
                self.sections
                    .get()
                    .and_then(|s| s.iter().find(|(a, b, _)| (*a..*b).contains(&o)))
                    .map_or_else(|| "head".to_owned(), |s| s.2.clone())
            })
            .collect();
        names.dedup();
        let bytes: usize = ranges.iter().map(|r| r.1).sum();
        self.log.lock().unwrap().push(format!(
            "{requests} req for {} range(s), {bytes} B asked: {}",
            ranges.len(),
            names.join(", ")
        ));
    }
}

impl RangeReader for Traced {
    fn len(&self) -> u64 {
        self.http.len()
    }
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        let before = self.http.stats().requests;
        let r = self.http.read_at(offset, len);
        self.note(&[(offset, len)], before);
        r
    }
    fn read_many(&self, ranges: &[(u64, usize)]) -> Result<Vec<Vec<u8>>, RangeError> {
        let before = self.http.stats().requests;
        let r = self.http.read_many(ranges);
        self.note(ranges, before);
        r
    }
    fn name(&self) -> &str {
        self.http.name()
    }
    fn is_remote(&self) -> bool {
        true
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (url, queries, all) = match &args[..] {
        [_, u, q] => (u, q, false),
        [_, u, q, a] if a == "--all" => (u, q, true),
        _ => {
            eprintln!("usage: search_remote URL QUERIES.txt [--all]");
            std::process::exit(2);
        }
    };
    let queries = std::fs::read_to_string(queries).unwrap();
    let http = Arc::new(HttpReader::open(url).unwrap());
    let traced = Arc::new(Traced {
        http: http.clone(),
        sections: OnceLock::new(),
        log: Mutex::new(Vec::new()),
    });
    let rete = Rete::open(traced.clone()).unwrap();
    let names = rete
        .sections()
        .iter()
        .map(|e| {
            (
                e.offset,
                e.offset + e.len,
                format!("{}:{}", e.kind, e.index),
            )
        })
        .collect();
    traced.sections.set(names).unwrap();
    traced.log.lock().unwrap().clear();
    let opened = http.stats();
    let s = Searcher::open(&rete).unwrap();
    let cancel = AtomicBool::new(false);
    let mut prev = opened;
    let mut later: Vec<(u64, u64)> = Vec::new();
    for (i, q) in queries.lines().enumerate() {
        s.search(&Query::new(q), &cancel).unwrap();
        let now = http.stats();
        let (req, bytes) = (now.requests - prev.requests, now.bytes - prev.bytes);
        prev = now;
        let log = std::mem::take(&mut *traced.log.lock().unwrap());
        let bad = req > 2 || bytes > 64 << 10;
        if i > 0 {
            later.push((req, bytes));
        }
        if i == 0 || bad || all {
            println!("{q:?}: {req} requests, {bytes} B");
            for l in log {
                println!("    {l}");
            }
        }
    }
    let over = later.iter().filter(|k| k.0 > 2 || k.1 > 64 << 10).count();
    let mut req: Vec<u64> = later.iter().map(|k| k.0).collect();
    let mut bytes: Vec<u64> = later.iter().map(|k| k.1).collect();
    req.sort_unstable();
    bytes.sort_unstable();
    let pct = |v: &[u64], p: f64| v[((v.len().max(1) - 1) as f64 * p).round() as usize];
    if later.is_empty() {
        return;
    }
    println!(
        "{} later keystrokes: {over} above 2 requests or 64 KiB; p99 {} requests, {} B; most {} requests, {} B; in all {} requests, {} B",
        later.len(),
        pct(&req, 0.99),
        pct(&bytes, 0.99),
        pct(&req, 1.0),
        pct(&bytes, 1.0),
        req.iter().sum::<u64>(),
        bytes.iter().sum::<u64>(),
    );
}
