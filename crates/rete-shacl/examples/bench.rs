//! The SHACL benchmark (not a test): social and LUBM data generated at a given size, built into
//! `.rete` files, validated by rete-shacl in a child process (its time and peak RSS) and by
//! pySHACL on the same N-Triples and shapes (`bench/*.ttl`), with a time limit; writes JSON.
//!
//! `cargo run --release -p rete-shacl --example bench -- --people 127000 --universities 8
//! --dir /tmp/shacl-bench --json docs/benchmark-shacl.json [--pyshacl-timeout 1200]
//! [--sets social,lubm] [--reuse] [--no-pyshacl]`
//!
//! `--scale NAME=FILE.rete,…` adds rows for existing larger files of the social data (validated
//! with the social shapes, no pySHACL); `--http URL --http-shapes FILE` adds a row for a file
//! served over HTTP ranges (`scripts/range-server.py`): requests and bytes read vs its size.
//!
//! `--reuse` validates the `.rete` files already in `--dir`; `--no-pyshacl` keeps the pySHACL
//! figures already recorded in the `--json` file for the same set and size (pySHACL takes about
//! 15 minutes per 1 M-triple set) and only measures rete.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benchmark driver")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .map(|i| args[i + 1].clone())
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// CPU time of this process (user + system), in ms, from `/proc/self/stat` (clock ticks of
/// 10 ms): on a shared machine it says what wall-clock time cannot.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at state, field 3.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) * 10.0
}

/// Child mode: validate (a path, or a URL read lazily over HTTP ranges) and print `ms results
/// rss_kib shapes cpu_ms requests bytes file_bytes`.
fn validate_child(rete: &str, shapes: &str) {
    let t = Instant::now();
    let graph = rete_shacl::read_graph(Path::new(shapes)).unwrap();
    let shapes = rete_shacl::Shapes::from_graph(&graph).unwrap();
    let http = rete
        .starts_with("http://")
        .then(|| std::sync::Arc::new(rete_http::HttpReader::open(rete).unwrap()));
    let r = match &http {
        Some(h) => rete_core::Rete::open(h.clone()).unwrap(),
        None => rete_core::Rete::open_path(rete).unwrap(),
    };
    let report =
        rete_shacl::validate(&r, &shapes, &rete_shacl::ValidateOptions::default()).unwrap();
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let (requests, bytes) = http
        .as_ref()
        .map_or((0, 0), |h| (h.stats().requests, h.stats().bytes));
    println!(
        "{ms} {} {} {} {} {requests} {bytes} {}",
        report.results.len(),
        peak_rss_kib(),
        shapes.len(),
        cpu_ms(),
        http.as_ref().map_or_else(
            || std::fs::metadata(rete).map_or(0, |m| m.len()),
            |h| rete_core::RangeReader::len(&**h)
        )
    );
}

const PYSHACL: &str = r#"
import sys, time
from rdflib import Graph
from pyshacl import validate
from rdflib.namespace import SH, RDF
t0 = time.time()
data = Graph().parse(sys.argv[1], format="nt")
shapes = Graph().parse(sys.argv[2], format="turtle")
t1 = time.time()
conforms, report, _ = validate(data, shacl_graph=shapes, inference="none")
t2 = time.time()
print((t1 - t0) * 1000, (t2 - t1) * 1000, len(list(report.subjects(RDF.type, SH.ValidationResult))))
"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("validate") {
        return validate_child(&args[2], &args[3]);
    }
    let people: u64 = arg("--people").map_or(127_000, |v| v.parse().unwrap());
    let universities: u32 = arg("--universities").map_or(8, |v| v.parse().unwrap());
    let dir = PathBuf::from(arg("--dir").unwrap_or_else(|| "/tmp/shacl-bench".into()));
    let timeout: u64 = arg("--pyshacl-timeout").map_or(1200, |v| v.parse().unwrap());
    let reuse = args.iter().any(|a| a == "--reuse");
    let no_pyshacl = args.iter().any(|a| a == "--no-pyshacl");
    let sets = arg("--sets").unwrap_or_else(|| "social,lubm".into());
    // The figures recorded before, to keep pySHACL's when it is not run again.
    let recorded: serde_json::Value = arg("--json")
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    std::fs::create_dir_all(&dir).unwrap();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
    let mut rows = Vec::new();
    for set in sets.split(',') {
        let nt = dir.join(format!("{set}.nt"));
        let rete = dir.join(format!("{set}.rete"));
        let quads = if reuse && rete.exists() {
            rete_core::Rete::open_path(&rete).unwrap().quad_count()
        } else {
            let mut bytes = Vec::new();
            if set == "social" {
                let p = rete_datagen::social::SocialParams {
                    people,
                    ..Default::default()
                };
                rete_datagen::social::write_ntriples(&p, &mut bytes).unwrap();
            } else {
                let p = rete_datagen::lubm::LubmParams {
                    universities,
                    seed: 0,
                };
                rete_datagen::lubm::write_ntriples(&p, &mut bytes).unwrap();
            }
            std::fs::write(&nt, &bytes).unwrap();
            drop(bytes);
            rete_build::build(
                &rete_build::BuildOptions {
                    inputs: vec![rete_build::Input::path(&nt)],
                    ..rete_build::BuildOptions::default()
                },
                &rete,
            )
            .unwrap()
            .quads
        };
        let shapes = bench.join(format!("{set}-shapes.ttl"));
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["validate", rete.to_str().unwrap(), shapes.to_str().unwrap()])
            .output()
            .unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        let v: Vec<f64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        eprintln!(
            "{set}: {quads} triples, rete {:.0} ms ({:.0} ms CPU), {} results, {} KiB, {} shapes",
            v[0], v[4], v[1], v[2], v[3]
        );
        let kept = recorded["runs"].as_array().and_then(|runs| {
            runs.iter()
                .find(|r| r["set"] == set && r["triples"] == quads)
                .map(|r| r["pyshacl"].clone())
        });
        if no_pyshacl {
            rows.push(serde_json::json!({
                "set": set,
                "triples": quads,
                "shapes": v[3],
                "rete": {"validate_ms": v[0], "cpu_ms": v[4], "results": v[1], "peak_rss_kib": v[2]},
                "pyshacl": kept.unwrap_or(serde_json::Value::Null),
            }));
            continue;
        }
        let py = Command::new("timeout")
            .arg(timeout.to_string())
            .args(["python3", "-c", PYSHACL])
            .arg(&nt)
            .arg(&shapes)
            .output()
            .unwrap();
        let py_line = String::from_utf8(py.stdout).unwrap();
        let p: Vec<f64> = py_line
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let pyshacl = if p.len() == 3 {
            eprintln!(
                "{set}: pySHACL parse {:.0} ms, validate {:.0} ms, {} results",
                p[0], p[1], p[2]
            );
            serde_json::json!({"parse_ms": p[0], "validate_ms": p[1], "results": p[2]})
        } else {
            eprintln!("{set}: pySHACL did not finish in {timeout} s");
            serde_json::json!({"timeout_s": timeout})
        };
        rows.push(serde_json::json!({
            "set": set,
            "triples": quads,
            "shapes": v[3],
            "rete": {"validate_ms": v[0], "cpu_ms": v[4], "results": v[1], "peak_rss_kib": v[2]},
            "pyshacl": pyshacl,
        }));
    }
    let validate = |target: &str, shapes: &Path| -> Vec<f64> {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["validate", target, shapes.to_str().unwrap()])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let mut scale = Vec::new();
    for item in arg("--scale").iter().flat_map(|s| s.split(',')) {
        let (name, file) = item.split_once('=').unwrap();
        let quads = rete_core::Rete::open_path(file).unwrap().quad_count();
        let v = validate(file, &bench.join("social-shapes.ttl"));
        eprintln!(
            "{name}: {quads} triples, rete {:.0} ms ({:.0} ms CPU), {} results, {} KiB",
            v[0], v[4], v[1], v[2]
        );
        scale.push(serde_json::json!({
            "set": name, "triples": quads, "shapes": v[3],
            "rete": {"validate_ms": v[0], "cpu_ms": v[4], "results": v[1], "peak_rss_kib": v[2]},
        }));
    }
    let mut http = Vec::new();
    if let Some(url) = arg("--http") {
        let shapes = PathBuf::from(arg("--http-shapes").unwrap());
        let v = validate(&url, &shapes);
        eprintln!(
            "{url}: {:.0} ms, {} results, {} requests, {} of {} bytes",
            v[0], v[1], v[5], v[6], v[7]
        );
        http.push(serde_json::json!({
            "url": url, "shapes": shapes.file_name().unwrap().to_str(), "shape_count": v[3],
            "validate_ms": v[0], "results": v[1], "requests": v[5], "bytes": v[6], "file_bytes": v[7],
        }));
    }
    let json = serde_json::json!({
        "method": "rete: a child process opens the .rete, reads the shapes and validates: wall clock, CPU time (user + system, /proc/self/stat) and peak RSS (VmHWM); scale rows: existing files of the social data with the social shapes; http rows: the file served by scripts/range-server.py on 127.0.0.1, requests and body bytes read by the client. pySHACL 0.40.1 (rdflib 7.6): parse of the same N-Triples and shapes, then validate(inference='none') timed separately; with --no-pyshacl its figures are kept from the earlier recorded run of the same set and size. One run each on the 2-core machine; the load during a recorded run is stated in docs/BENCHMARK.md",
        "runs": rows,
        "scale": scale,
        "http": http,
    });
    let text = serde_json::to_string_pretty(&json).unwrap();
    println!("{text}");
    if let Some(p) = arg("--json") {
        std::fs::write(p, text + "\n").unwrap();
    }
}
