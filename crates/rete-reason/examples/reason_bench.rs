//! Numbers for docs/reasoning.md.
//!
//! ```text
//! cargo run --release -p rete-reason --example reason_bench -- reach [PEOPLE] [SEEDS] [RUNS]
//! cargo run --release -p rete-reason --example reason_bench -- materialize [UNIVERSITIES]
//! ```
//!
//! `reach` generates the social graph (`rete generate social --people PEOPLE`, default 200000),
//! builds it, and times `foaf:knows+` from SEEDS (300) evenly spaced people, serial then
//! parallel, RUNS (5) times each (median reported). `materialize` generates LUBM(UNIVERSITIES)
//! with its ontology and times the OWL-RL subset and RDFS alone.

use oxrdf::{NamedNode, Term};
use rete_build::{build, BuildOptions, Input};
use rete_core::Rete;
use rete_reason::{materialize, reach, MaterializeOptions, ReachOptions};
use std::error::Error;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn build_file(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<u64>,
) -> Result<Rete, Box<dyn Error>> {
    let nt = dir.join(format!("{name}.nt"));
    let mut w = BufWriter::new(File::create(&nt)?);
    let n = write(&mut w)?;
    w.flush()?;
    drop(w);
    let out = dir.join(format!("{name}.rete"));
    let t = Instant::now();
    let opts = BuildOptions {
        inputs: vec![Input::path(&nt)],
        zstd_level: 3,
        ..BuildOptions::default()
    };
    let r = build(&opts, &out)?;
    eprintln!(
        "{name}: {n} triples written, {} quads / {} terms built in {:.0} ms",
        r.quads,
        r.terms,
        t.elapsed().as_secs_f64() * 1e3
    );
    Ok(Rete::open_path(&out)?)
}

/// CPU time of this process (user + system) in ms, from /proc (10 ms ticks); 0 elsewhere.
fn cpu_ms() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesized command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() * 10.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench_reach() -> Result<(), Box<dyn Error>> {
    let (people, seeds_n, runs) = (arg(2, 200_000), arg(3, 300), arg(4, 5).max(1));
    let dir = tempfile::tempdir()?;
    let params = rete_datagen::social::SocialParams {
        people,
        ..Default::default()
    };
    let rete = build_file(dir.path(), "social", |w| {
        rete_datagen::social::write_ntriples(&params, w)
    })?;
    let t = Instant::now();
    let m = materialize(&rete, &MaterializeOptions::owl_rl())?;
    println!(
        "materialize (owl-rl subset): {} inferred, {} quads loaded, {:.1} ms",
        m.report.inferred,
        m.report.loaded_quads,
        t.elapsed().as_secs_f64() * 1e3
    );
    let knows = NamedNode::new("http://xmlns.com/foaf/0.1/knows")?;
    let step = (people / seeds_n).max(1);
    let seeds: Vec<Term> = (0..seeds_n)
        .map(|i| {
            NamedNode::new_unchecked(format!("{}person/{}", rete_datagen::social::NS, i * step))
                .into()
        })
        .collect();
    let threads = rayon::current_num_threads();
    for share_components in [false, true] {
        println!(
            "{}",
            if share_components {
                "one search per strongly connected component (default):"
            } else {
                "one breadth-first search per seed:"
            }
        );
        let mut results = Vec::new();
        for parallel in [false, true] {
            let opts = ReachOptions {
                parallel,
                share_components,
                ..ReachOptions::default()
            };
            let (mut load, mut search, mut total, mut searches) = (Vec::new(), Vec::new(), 0, 0);
            let cpu0 = cpu_ms();
            for _ in 0..runs {
                rete.clear_cache();
                let r = reach(&rete, knows.as_ref(), &seeds, &opts)?;
                load.push(r.load_ms);
                search.push(r.reach_ms);
                total = r.total;
                searches = r.searches;
                if !parallel && !share_components && load.len() == 1 {
                    eprintln!("adjacency: {} nodes, {} edges", r.nodes, r.edges);
                }
            }
            let cpu = (cpu_ms() - cpu0) / runs as f64;
            let (l, s) = (median(load), median(search));
            println!(
                "  {:<8} ({} thread{}): load {l:.1} ms, {} seeds ({searches} searches) reach {total} nodes in {s:.1} ms (cpu {cpu:.0} ms/run incl. load)",
                if parallel { "parallel" } else { "serial" },
                if parallel { threads } else { 1 },
                if parallel && threads != 1 { "s" } else { "" },
                seeds.len(),
            );
            results.push((s, total));
        }
        assert_eq!(results[0].1, results[1].1, "serial and parallel disagree");
        println!("  speedup {:.2}x", results[0].0 / results[1].0);
    }
    if let Some(m) = peak_rss_mib() {
        println!("peak RSS {m:.0} MiB");
    }
    Ok(())
}

fn bench_materialize() -> Result<(), Box<dyn Error>> {
    let universities = arg(2, 1) as u32;
    let dir = tempfile::tempdir()?;
    let params = rete_datagen::lubm::LubmParams {
        universities,
        ..Default::default()
    };
    let rete =
        build_file(dir.path(), "lubm", |w| {
            Ok(rete_datagen::lubm::write_ontology(w)?
                + rete_datagen::lubm::write_ntriples(&params, w)?)
        })?;
    for (name, opts) in [
        ("owl-rl subset", MaterializeOptions::owl_rl()),
        ("rdfs", MaterializeOptions::rdfs()),
    ] {
        rete.clear_cache();
        let t = Instant::now();
        let m = materialize(&rete, &opts)?;
        println!(
            "LUBM({universities}) {name}: {} quads in, {} inferred in {:.0} ms ({} loaded, {} rounds, {} passes)",
            rete.quad_count(),
            m.report.inferred,
            t.elapsed().as_secs_f64() * 1e3,
            m.report.loaded_quads,
            m.report.rounds,
            m.report.passes
        );
        println!(
            "  phases: load {:.0} ms, rules {:.0} ms, output {:.0} ms",
            m.report.load_ms, m.report.rules_ms, m.report.output_ms
        );
        for r in &m.report.rules {
            println!(
                "  {:<22} {:>9}  ({})",
                format!("{:?}", r.rule),
                r.quads,
                r.spec
            );
        }
    }
    if let Some(m) = peak_rss_mib() {
        println!("peak RSS {m:.0} MiB");
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    match std::env::args().nth(1).as_deref() {
        Some("reach") | None => bench_reach(),
        Some("materialize") => bench_materialize(),
        Some(other) => Err(format!("unknown benchmark {other:?}: reach | materialize").into()),
    }
}
