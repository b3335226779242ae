//! Path benchmark (issue 49): `rete path`'s library on generated social and LUBM data, 100 random
//! pairs, first path and k = 5, side by side with networkx's bidirectional shortest path on the
//! same graph in memory and with Oxigraph answering SPARQL property-path ASK per length — the
//! three on the same entity-to-entity links (literals and schema links left out), with a
//! correctness gate: the first path's length equals networkx's. Writes JSON; docs/BENCHMARK.md
//! has the table. Run with `cargo run --release -p rete-bench --bin rete-path-bench -- --json …`.

use anyhow::{bail, Context, Result};
use clap::Parser;
use oxigraph::io::RdfFormat;
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::{CountingReader, FileReader, Pattern, Rete, TermKind};
use rete_path::{find_paths, PathOptions, Stop};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
struct Args {
    /// People in the social graph (0 to skip).
    #[arg(long, default_value_t = 125_000)]
    people: u64,
    /// LUBM universities (0 to skip).
    #[arg(long, default_value_t = 5)]
    lubm: u32,
    /// Random pairs per dataset.
    #[arg(long, default_value_t = 100)]
    pairs: usize,
    /// Seconds Oxigraph may spend per dataset; the pairs it did not reach are reported.
    #[arg(long, default_value_t = 300)]
    oxigraph_budget: u64,
    /// Write the JSON here.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

#[derive(Debug, Serialize)]
struct Percentiles {
    p50: f64,
    p95: f64,
    max: f64,
}

fn percentiles(mut v: Vec<f64>) -> Percentiles {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    Percentiles {
        p50: at(0.5),
        p95: at(0.95),
        max: at(1.0),
    }
}

#[derive(Debug, Serialize)]
struct DatasetResult {
    dataset: String,
    triples: u64,
    file_bytes: u64,
    build_s: f64,
    pairs: usize,
    connected_within_6: usize,
    /// rete-path, k = 1, warm (second run of each pair on an open file).
    rete_first_ms: Percentiles,
    /// rete-path, k = 5, warm.
    rete_k5_ms: Percentiles,
    /// p50 of the k = 5 time over the k = 1 time, pair by pair.
    k5_over_first_p50: f64,
    /// Bytes and reads of one cold k = 1 search per pair (a fresh open, nothing cached): what a
    /// remote copy fetches, in range requests before coalescing by the HTTP reader.
    cold_bytes: Percentiles,
    cold_reads_p50: f64,
    networkx_version: String,
    networkx_load_s: f64,
    networkx_ms: Percentiles,
    oxigraph_load_s: f64,
    /// ASK per length 1, 2, … until true or 6, per pair.
    oxigraph_ms: Option<Percentiles>,
    oxigraph_pairs_done: usize,
    lengths_equal_networkx: bool,
    lengths_equal_oxigraph: bool,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn run_dataset(name: &str, nt: Vec<u8>, dir: &Path, args: &Args) -> Result<DatasetResult> {
    eprintln!("{name}: building");
    let file = dir.join(format!("{name}.rete"));
    let t = Instant::now();
    rete_build::build(
        &BuildOptions {
            inputs: vec![Input::bytes(name, nt, Syntax::NTriples)],
            ..Default::default()
        },
        &file,
    )?;
    let build_s = t.elapsed().as_secs_f64();
    let rete = Rete::open_path(&file)?;
    let first_literal = rete.first_of_kind(TermKind::SimpleLiteral)?;
    // The graph the three engines share: entity-to-entity links without schema predicates.
    let mut allowed_pred = std::collections::HashMap::new();
    let edges_file = dir.join(format!("{name}.edges"));
    let links_file = dir.join(format!("{name}.links.nt"));
    let mut edges = std::io::BufWriter::new(std::fs::File::create(&edges_file)?);
    let mut links = std::io::BufWriter::new(std::fs::File::create(&links_file)?);
    let mut subjects = Vec::new();
    for q in rete.quads(&Pattern::default())? {
        let [s, p, o, _] = q?;
        if subjects.last() != Some(&s) {
            subjects.push(s);
        }
        if o >= first_literal || s == o {
            continue;
        }
        let ok = match allowed_pred.get(&p) {
            Some(&ok) => ok,
            None => {
                let t = rete.term(p)?;
                let ok = !rete_path::is_schema_predicate(t.to_string().trim_matches(['<', '>']));
                allowed_pred.insert(p, ok);
                ok
            }
        };
        if ok {
            writeln!(edges, "{s}\t{o}")?;
            writeln!(
                links,
                "{} {} {} .",
                rete.term(s)?,
                rete.term(p)?,
                rete.term(o)?
            )?;
        }
    }
    drop((edges, links));
    let mut rng = rete_datagen::Rng::new(49);
    let mut pairs = Vec::new();
    while pairs.len() < args.pairs {
        let a = subjects[rng.below(subjects.len() as u64) as usize];
        let b = subjects[rng.below(subjects.len() as u64) as usize];
        if a != b && a < first_literal && b < first_literal {
            pairs.push((a, b));
        }
    }
    let pairs_file = dir.join(format!("{name}.pairs"));
    let mut f = std::fs::File::create(&pairs_file)?;
    for (a, b) in &pairs {
        writeln!(f, "{a}\t{b}")?;
    }
    drop(f);

    eprintln!("{name}: rete-path");
    let terms: Vec<_> = pairs
        .iter()
        .map(|&(a, b)| Ok((rete.term(a)?, rete.term(b)?)))
        .collect::<Result<_>>()?;
    let k1 = PathOptions {
        k: 1,
        ..Default::default()
    };
    let k5 = PathOptions::default();
    let (mut first, mut five, mut ratio, mut lengths) = (vec![], vec![], vec![], vec![]);
    let (mut cold_bytes, mut cold_reads) = (vec![], vec![]);
    for (a, b) in &terms {
        let counted = Arc::new(CountingReader::new(FileReader::open(&file)?));
        let cold = Rete::open(counted.clone())?;
        find_paths(&cold, a.as_ref(), b.as_ref(), &k1)?;
        let s = counted.stats();
        cold_bytes.push(s.bytes as f64);
        cold_reads.push(s.requests as f64);
        // Warm: the second run of the pair on the long-lived reader.
        find_paths(&rete, a.as_ref(), b.as_ref(), &k1)?;
        let t = Instant::now();
        let r = find_paths(&rete, a.as_ref(), b.as_ref(), &k1)?;
        let t1 = ms(t.elapsed());
        find_paths(&rete, a.as_ref(), b.as_ref(), &k5)?;
        let t = Instant::now();
        let r5 = find_paths(&rete, a.as_ref(), b.as_ref(), &k5)?;
        let t5 = ms(t.elapsed());
        if r5.paths.first().map(|p| p.hops) != r.paths.first().map(|p| p.hops) {
            bail!("{a} to {b}: k = 5 starts with a different length than k = 1");
        }
        if !matches!(r.stop, Stop::Found | Stop::Exhausted | Stop::HopLimit) {
            bail!("{a} to {b}: stopped by {:?}", r.stop);
        }
        first.push(t1);
        five.push(t5);
        ratio.push(t5 / t1.max(1e-6));
        lengths.push(r.paths.first().map(|p| p.hops as u64));
    }

    eprintln!("{name}: networkx");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/networkx_paths.py");
    let out = Command::new(&python)
        .args([script, edges_file.to_str().context("path")?])
        .arg(&pairs_file)
        .arg("6")
        .output()?;
    if !out.status.success() {
        bail!("networkx: {}", String::from_utf8_lossy(&out.stderr));
    }
    let nx: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let nx_pairs = nx["pairs"].as_array().context("networkx pairs")?;
    let nx_lengths: Vec<Option<u64>> = nx_pairs.iter().map(|p| p["length"].as_u64()).collect();
    let nx_ms: Vec<f64> = nx_pairs.iter().filter_map(|p| p["ms"].as_f64()).collect();

    eprintln!("{name}: oxigraph");
    let store = Store::new()?;
    let t = Instant::now();
    store.load_from_reader(RdfFormat::NTriples, std::fs::File::open(&links_file)?)?;
    let oxigraph_load_s = t.elapsed().as_secs_f64();
    let step = "(!<urn:rete:none>|^!<urn:rete:none>)";
    let budget = Instant::now() + Duration::from_secs(args.oxigraph_budget);
    let (mut ox_ms, mut ox_lengths) = (vec![], vec![]);
    for (a, b) in &terms {
        if Instant::now() >= budget {
            break;
        }
        let t = Instant::now();
        let mut found = None;
        for len in 1..=6u64 {
            let path = vec![step; len as usize].join("/");
            let q = format!("ASK {{ {a} {path} {b} }}");
            let yes = match SparqlEvaluator::new()
                .parse_query(&q)?
                .on_store(&store)
                .execute()?
            {
                QueryResults::Boolean(b) => b,
                _ => bail!("ASK gave no boolean"),
            };
            if yes {
                found = Some(len);
                break;
            }
            if Instant::now() >= budget {
                break;
            }
        }
        ox_ms.push(ms(t.elapsed()));
        ox_lengths.push(found);
    }
    let done = ox_lengths.len();
    // An unfinished pair (budget hit mid-way) is not compared.
    let ox_equal = ox_lengths
        .iter()
        .zip(&lengths)
        .take(done.saturating_sub(1))
        .all(|(o, r)| o == r);
    Ok(DatasetResult {
        dataset: name.into(),
        triples: rete.quad_count(),
        file_bytes: std::fs::metadata(&file)?.len(),
        build_s,
        pairs: pairs.len(),
        connected_within_6: lengths.iter().filter(|l| l.is_some()).count(),
        rete_first_ms: percentiles(first),
        rete_k5_ms: percentiles(five),
        k5_over_first_p50: percentiles(ratio).p50,
        cold_bytes: percentiles(cold_bytes),
        cold_reads_p50: percentiles(cold_reads).p50,
        networkx_version: nx["networkx_version"].as_str().unwrap_or("?").into(),
        networkx_load_s: nx["load_ms"].as_f64().unwrap_or(f64::NAN) / 1e3,
        networkx_ms: percentiles(nx_ms),
        oxigraph_load_s,
        oxigraph_ms: (!ox_ms.is_empty()).then(|| percentiles(ox_ms)),
        oxigraph_pairs_done: done,
        lengths_equal_networkx: lengths == nx_lengths,
        lengths_equal_oxigraph: ox_equal,
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let dir = tempfile::tempdir()?;
    let mut results = Vec::new();
    if args.people > 0 {
        let mut nt = Vec::new();
        let p = rete_datagen::social::SocialParams {
            people: args.people,
            ..Default::default()
        };
        rete_datagen::social::write_ntriples(&p, &mut nt)?;
        results.push(run_dataset("social", nt, dir.path(), &args)?);
    }
    if args.lubm > 0 {
        let mut nt = Vec::new();
        let p = rete_datagen::lubm::LubmParams {
            universities: args.lubm,
            ..Default::default()
        };
        rete_datagen::lubm::write_ntriples(&p, &mut nt)?;
        results.push(run_dataset(
            &format!("lubm-{}", args.lubm),
            nt,
            dir.path(),
            &args,
        )?);
    }
    let gate = results.iter().all(|r| r.lengths_equal_networkx);
    let envelope = serde_json::json!({
        "benchmark": "rete-path-bench",
        "method": "per dataset: 100 random pairs of subjects; rete-path k=1 and k=5 warm (second run, \
                   one open reader), cold bytes/reads from a fresh open; networkx \
                   bidirectional_shortest_path in memory (median of 3); Oxigraph in memory, \
                   SPARQL ASK with a property path of length 1..6 until true; all on the \
                   entity-to-entity links without schema predicates",
        "machine_cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "datasets": results,
        "lengths_equal_networkx": gate,
    });
    let text = serde_json::to_string_pretty(&envelope)?;
    match &args.json {
        Some(p) => std::fs::write(p, text + "\n")?,
        None => println!("{text}"),
    }
    if !gate {
        bail!("rete-path's lengths differ from networkx's (see the JSON)");
    }
    Ok(())
}
