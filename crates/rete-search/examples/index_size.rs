//! What the search index of an existing `.rete` costs with this version's layout (not a test;
//! docs/BENCHMARK.md's 100 M row): builds the sections from the file's data as `rete build`
//! would, and prints their sizes, the time and the peak RSS as JSON. With `OUT.rete`, also
//! writes the file with that index ([`rete_search::add_index`]).
//!
//! `index_size FILE.rete [OUT.rete]`

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benchmark tool")]

use rete_search::{build_sections, SearchOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(file) = args.get(1) else {
        eprintln!("usage: index_size FILE.rete [OUT.rete]");
        std::process::exit(2);
    };
    let opts = SearchOptions::default();
    let rete = rete_core::Rete::open_path(file).unwrap();
    let t = Instant::now();
    let (sections, stats) = build_sections(&rete, &opts).unwrap();
    let seconds = t.elapsed().as_secs_f64();
    let sizes: Vec<(u16, u64)> = sections
        .iter()
        .map(|s| {
            let len = match &s.payload {
                rete_core::writer::Payload::Bytes(b) => b.len() as u64,
                rete_core::writer::Payload::File(p) => std::fs::metadata(p).unwrap().len(),
                rete_core::writer::Payload::Copy { len, .. } => *len,
            };
            (s.kind, len)
        })
        .collect();
    let index: u64 = sizes.iter().map(|s| s.1).sum();
    // The base sections: the file's own, less any index it has.
    let base: u64 = std::fs::metadata(file).unwrap().len()
        - rete
            .sections()
            .iter()
            .filter(|e| (48..=52).contains(&e.kind))
            .map(|e| e.len)
            .sum::<u64>();
    let peak_rss_kib = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        });
    let written = args.get(2).map(|out| {
        let t = Instant::now();
        rete_search::add_index(std::path::Path::new(file), std::path::Path::new(out), &opts)
            .unwrap();
        serde_json::json!({"file": out, "seconds": t.elapsed().as_secs_f64()})
    });
    let json = serde_json::json!({
        "written": written,
        "file": file,
        "file_without_index_bytes": base,
        "index_bytes": index,
        "index_share_of_file_without_it": index as f64 / base as f64,
        "sections": sizes.iter().map(|(k, l)| serde_json::json!({"kind": k, "bytes": l})).collect::<Vec<_>>(),
        "documents": stats.documents,
        "tokens": stats.tokens,
        "seconds": seconds,
        "steps_ms": stats.steps,
        "peak_rss_bytes": peak_rss_kib.map(|k| k * 1024),
    });
    println!("{}", serde_json::to_string_pretty(&json).unwrap());
}
