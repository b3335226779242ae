//! Typeahead benchmark of the label search (not a test; `scripts/bench-search.sh` runs it in
//! release mode next to SQLite FTS5 on the same labels).
//!
//! `search_bench FILE.rete LABELS.tsv QUERIES.txt OUT.json [URL]`: writes the file's labels (term,
//! label) and a typeahead query set (every keystroke of sampled labels: one to three words, the
//! last a prefix), then times each query warm and the first query of a fresh open, and writes
//! JSON. With `URL` (the same file on a real HTTP server), it also counts the requests and bytes
//! of opening it, of the first search and of every later keystroke in one long-lived reader.
//! Every query's hits go to `OUT-hits.tsv` (the query, the term and label it was typed from,
//! the hits' terms), which `scripts/bench-search-upstream.py` compares with upstream rete's answers.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benchmark tool")]

use oxrdf::{NamedNodeRef, Term, TermRef};
use rete_core::{Pattern, Rete};
use rete_search::{Query, Searcher, DEFAULT_LABEL_PREDICATES};
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, labels_out, queries_out, json_out, url) = match &args[..] {
        [_, f, l, q, j] => (f, l, q, j, None),
        [_, f, l, q, j, u] => (f, l, q, j, Some(u)),
        _ => {
            eprintln!("usage: search_bench FILE.rete LABELS.tsv QUERIES.txt OUT.json [URL]");
            std::process::exit(2);
        }
    };
    // First query of a fresh open (the OS cache is warm: engine time, not disk).
    let t = Instant::now();
    let rete = Rete::open_path(file).unwrap();
    let s = Searcher::open(&rete).unwrap();
    let cancel = AtomicBool::new(false);
    s.search(&Query::new("ma"), &cancel).unwrap();
    let first_ms = t.elapsed().as_secs_f64() * 1e3;

    let mut labels = Vec::new();
    for iri in DEFAULT_LABEL_PREDICATES {
        let Some(p) = rete
            .id_of(TermRef::NamedNode(NamedNodeRef::new_unchecked(iri)))
            .unwrap()
        else {
            continue;
        };
        for q in rete.quads(&Pattern::new(None, Some(p), None)).unwrap() {
            let [subj, _, o, _] = q.unwrap();
            if let Term::Literal(l) = rete.term(o).unwrap() {
                labels.push((rete.term(subj).unwrap().to_string(), l.value().to_owned()));
            }
        }
    }
    if let (true, Some(ty)) = (labels.is_empty(), rdf_type(&rete)) {
        // No label predicate (LUBM names things with ub:name): the index holds the local names
        // of typed subjects, and the queries type those.
        let mut seen = std::collections::HashSet::new();
        for q in rete.quads(&Pattern::new(None, Some(ty), None)).unwrap() {
            let s = q.unwrap()[0];
            if let (true, Term::NamedNode(n)) = (seen.insert(s), rete.term(s).unwrap()) {
                let name = rete_core::vocab::local_name(n.as_str()).to_owned();
                labels.push((n.to_string(), name));
            }
        }
    }
    let mut w = std::io::BufWriter::new(std::fs::File::create(labels_out).unwrap());
    for (t, l) in &labels {
        writeln!(w, "{t}\t{}", l.replace(['\t', '\n'], " ")).unwrap();
    }
    drop(w);

    // Every keystroke of up to three words of 100 labels spread over the file.
    let step = (labels.len() / 100).max(1);
    let mut queries: Vec<String> = Vec::new();
    // The term and label each query was typed from, for the answers' comparison with other
    // engines.
    let mut sources: Vec<(&str, &str)> = Vec::new();
    for (term, l) in labels.iter().step_by(step).take(100) {
        let words: Vec<&str> = l
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(3)
            .collect();
        let mut done = String::new();
        for w in words {
            for (i, _) in w.char_indices().skip(1).chain([(w.len(), ' ')]) {
                let q = format!("{done}{}", &w[..i]);
                if queries.last() != Some(&q) {
                    queries.push(q);
                    sources.push((term, l));
                }
            }
            done.push_str(w);
            done.push(' ');
        }
    }
    std::fs::write(queries_out, queries.join("\n") + "\n").unwrap();

    for q in &queries {
        s.search(&Query::new(q.as_str()), &cancel).unwrap();
    }
    let mut times: Vec<f64> = Vec::with_capacity(queries.len());
    let mut top: Vec<(String, Vec<String>)> = Vec::new();
    let mut terms: Vec<Vec<String>> = Vec::new();
    for q in &queries {
        let t = Instant::now();
        let a = s.search(&Query::new(q.as_str()), &cancel).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        // Each query's hits' terms, written below (the JSON keeps the first 40 queries' labels).
        terms.push(a.hits.iter().map(|h| h.term.clone()).collect::<Vec<_>>());
        top.push((q.clone(), a.hits.into_iter().map(|h| h.label).collect()));
    }
    let mut w = std::io::BufWriter::new(std::fs::File::create(hits_out(json_out)).unwrap());
    for ((q, (term, label)), hits) in queries.iter().zip(&sources).zip(&terms) {
        let label = label.replace(['\t', '\n'], " ");
        writeln!(w, "{q}\t{term}\t{label}\t{}", hits.join("\t")).unwrap();
    }
    drop(w);
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    let ix = s
        .index()
        .expect("the benchmark file must have a search index");
    let index_bytes: u64 = rete
        .sections()
        .iter()
        .filter(|e| (48..=52).contains(&e.kind))
        .map(|e| e.len)
        .sum();
    let file_bytes = std::fs::metadata(file).unwrap().len();
    let remote = url.map(|u| remote(u, &queries));
    let json = serde_json::json!({
        "file": file,
        "file_bytes": file_bytes,
        "index_bytes": index_bytes,
        "index_share": index_bytes as f64 / file_bytes as f64,
        "documents": ix.documents(),
        "tokens": ix.tokens(),
        "labels": labels.len(),
        "queries": queries.len(),
        "first_query_ms": first_ms,
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "max_ms": pct(1.0),
        "remote": remote,
        "top10": top.iter().take(40).map(|(q, h)| serde_json::json!({"query": q, "labels": h})).collect::<Vec<_>>(),
    });
    std::fs::write(json_out, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    println!("{}", serde_json::to_string(&json["p50_ms"]).unwrap());
}

/// Where the hits of every query go: `OUT-hits.tsv` beside `OUT.json`, one line a query (the
/// query, the term and the label it was typed from, then its hits' terms, best first).
fn hits_out(json_out: &str) -> String {
    format!(
        "{}-hits.tsv",
        json_out.strip_suffix(".json").unwrap_or(json_out)
    )
}

fn rdf_type(rete: &Rete) -> Option<rete_core::Id> {
    rete.id_of(TermRef::NamedNode(NamedNodeRef::new_unchecked(
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
    )))
    .unwrap()
}

/// Requests and bytes over HTTP in one long-lived reader: opening, the first search, then every
/// later keystroke of the query set.
fn remote(url: &str, queries: &[String]) -> serde_json::Value {
    let src = rete_http::CountedReader::open(url).unwrap();
    let rete = Rete::open(src.reader()).unwrap();
    // The app opens a remote file's index with the file (its small sections in the batch of the
    // map's first reads): the open counts it, the first search starts after it.
    let s = Searcher::open(&rete).unwrap();
    let opened = src.stats();
    let cancel = AtomicBool::new(false);
    let mut prev = src.stats();
    let mut per: Vec<(u64, u64)> = Vec::new();
    let mut over = Vec::new();
    let mut first = (0, 0);
    for (i, q) in queries.iter().enumerate() {
        s.search(&Query::new(q.as_str()), &cancel).unwrap();
        let now = src.stats();
        let d = (now.requests - prev.requests, now.bytes - prev.bytes);
        if i == 0 {
            first = (now.requests - opened.requests, now.bytes - opened.bytes);
        } else {
            per.push(d);
            if d.0 > 2 || d.1 > 64 << 10 {
                over.push(serde_json::json!({"query": q, "requests": d.0, "bytes": d.1}));
            }
        }
        prev = now;
    }
    let mut req: Vec<u64> = per.iter().map(|p| p.0).collect();
    let mut bytes: Vec<u64> = per.iter().map(|p| p.1).collect();
    req.sort_unstable();
    bytes.sort_unstable();
    let pct = |v: &[u64], p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    serde_json::json!({
        "open_requests": opened.requests,
        "open_bytes": opened.bytes,
        "first_search_requests": first.0,
        "first_search_bytes": first.1,
        "keystrokes": per.len(),
        "keystroke_requests_p50": pct(&req, 0.5),
        "keystroke_requests_p99": pct(&req, 0.99),
        "keystroke_requests_max": pct(&req, 1.0),
        "keystroke_bytes_p50": pct(&bytes, 0.5),
        "keystroke_bytes_p99": pct(&bytes, 0.99),
        "keystroke_bytes_max": pct(&bytes, 1.0),
        "keystrokes_over_2_requests": per.iter().filter(|p| p.0 > 2).count(),
        "keystrokes_over_64_kib": per.iter().filter(|p| p.1 > 64 << 10).count(),
        "keystrokes_over": over,
        "total_requests": prev.requests,
        "total_bytes": prev.bytes,
    })
}
