//! The HTTP reads of typing into the search box of a remote file (not a test): every keystroke
//! of QUERIES.txt (one a line, as `search_bench` writes them) in one long-lived reader, with the
//! requests and bytes each one costs and the sections the reads fell in.
//!
//! `search_remote URL QUERIES.txt [--all] [--lang TAGS] [--limit N] [--json OUT]`: prints the
//! first search and every keystroke above 2 requests or 64 KiB (`--all`: every keystroke), then
//! a summary line. `--lang en,de`: the preferred languages, as the app passes the user's;
//! `--limit`: the hits asked (the app asks 12; default 10, `Query::new`'s). `--json`: the
//! summary as JSON too.

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
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    args.retain(|a| a != "--all");
    let mut option = |name: &str| match args.iter().position(|a| a == name) {
        Some(i) if i + 1 < args.len() => {
            let value = args.remove(i + 1);
            args.remove(i);
            Some(value)
        }
        _ => None,
    };
    let languages: Vec<String> = option("--lang")
        .map(|tags| tags.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let json = option("--json");
    let limit: Option<usize> = option("--limit").map(|n| n.parse().expect("--limit N"));
    let [url, queries] = &args[..] else {
        eprintln!(
            "usage: search_remote URL QUERIES.txt [--all] [--lang TAGS] [--limit N] [--json OUT]"
        );
        std::process::exit(2);
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
    // The app opens a remote file's index with the file: the open counts it.
    let s = Searcher::open(&rete).unwrap();
    traced.log.lock().unwrap().clear();
    let opened = http.stats();
    let cancel = AtomicBool::new(false);
    let mut prev = opened;
    let mut later: Vec<(u64, u64)> = Vec::new();
    let (mut first, mut above) = (serde_json::Value::Null, Vec::new());
    for (i, q) in queries.lines().enumerate() {
        let mut query = Query::new(q);
        query.languages.clone_from(&languages);
        query.limit = limit.unwrap_or(query.limit);
        s.search(&query, &cancel).unwrap();
        let now = http.stats();
        let (req, bytes) = (now.requests - prev.requests, now.bytes - prev.bytes);
        prev = now;
        let log = std::mem::take(&mut *traced.log.lock().unwrap());
        let bad = req > 2 || bytes > 64 << 10;
        let record = serde_json::json!({"query": q, "requests": req, "bytes": bytes});
        if i > 0 {
            later.push((req, bytes));
            if bad {
                above.push(record);
            }
        } else {
            first = record;
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
    if let Some(out) = json {
        let summary = serde_json::json!({
            "url": url,
            "languages": languages,
            "limit": limit.unwrap_or(Query::new("").limit),
            "open_requests": opened.requests,
            "open_bytes": opened.bytes,
            "first_search": first,
            "keystrokes": later.len(),
            "keystrokes_above_2_requests_or_64_kib": above,
            "keystroke_requests_p99": pct(&req, 0.99),
            "keystroke_bytes_p99": pct(&bytes, 0.99),
            "keystroke_requests_max": pct(&req, 1.0),
            "keystroke_bytes_max": pct(&bytes, 1.0),
            "keystrokes_requests": req.iter().sum::<u64>(),
            "keystrokes_bytes": bytes.iter().sum::<u64>(),
        });
        std::fs::write(out, serde_json::to_string_pretty(&summary).unwrap() + "\n").unwrap();
    }
}
