//! `rete-bsbm`: the BSBM Explore use case over the SPARQL protocol, against one or more
//! endpoints serving the same `rete generate bsbm` data. First a correctness gate (every
//! endpoint's answers to the same drawn queries compared with the first one's; a mismatch
//! stops the run with a diff), then for each client count and each endpoint in turn: warm-up
//! mixes, then timed mixes. Reports query mixes per hour (QMpH) and each query's mean time.

mod answer;

use answer::Answer;
use anyhow::{bail, Context, Result};
use clap::{Parser, ValueEnum};
use rete_datagen::bsbm::{draw, BsbmParams, Form, Model, MIX, MIX_WITH_Q6, TEMPLATES};
use rete_datagen::Rng;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "BSBM Explore over HTTP (SPARQL protocol), with a correctness gate")]
struct Args {
    /// Endpoints as NAME=URL (the first is the reference of the gate)
    #[arg(long = "endpoint", required = true, value_parser = parse_endpoint)]
    endpoints: Vec<(String, String)>,
    /// Products of the served data (`rete generate bsbm --products`)
    #[arg(long)]
    products: u64,
    /// Seed of the served data (`rete generate bsbm --seed`)
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seed of the query parameters
    #[arg(long, default_value_t = 808_080)]
    param_seed: u64,
    /// Mixes whose answers are compared before timing
    #[arg(long, default_value_t = 4)]
    gate_mixes: u64,
    /// Warm-up mixes per endpoint and client count (other parameters than the timed ones)
    #[arg(long, default_value_t = 20)]
    warmup: u64,
    /// Timed mixes per endpoint and client count
    #[arg(long, default_value_t = 100)]
    mixes: u64,
    /// The timed query mix: the BSBM tools' (no Q6, Q5 twice) or the earlier one with Q6 (the
    /// gate always runs the one with Q6, so every template is compared)
    #[arg(long, value_enum, default_value_t = Mix::Tools)]
    mix: Mix,
    /// Client counts (threads), comma-separated
    #[arg(long, value_delimiter = ',', default_value = "1,16")]
    clients: Vec<usize>,
    /// Skip the gate (never for published figures)
    #[arg(long)]
    no_gate: bool,
    /// Write the results as JSON here
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Mix {
    /// `queries/explore/querymix.txt` of the BSBM tools: Q6 left out, Q5 twice
    Tools,
    /// Q6 (a regex over every product label) in place of the second Q5
    WithQ6,
}

impl Mix {
    fn queries(self) -> &'static [u8; 25] {
        match self {
            Mix::Tools => &MIX,
            Mix::WithQ6 => &MIX_WITH_Q6,
        }
    }
}

fn parse_endpoint(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(n, u)| (n.to_owned(), u.to_owned()))
        .ok_or_else(|| format!("expected NAME=URL, got {s:?}"))
}

/// A SPARQL protocol client: POST `application/sparql-query`.
struct Client {
    agent: ureq::Agent,
}

impl Client {
    fn new() -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(300)))
            .max_idle_connections_per_host(64)
            .build();
        Self {
            agent: config.into(),
        }
    }

    /// The answer body of `query` from `url`; a status other than 200 is an error.
    fn ask(&self, url: &str, form: Form, query: &str) -> Result<Vec<u8>> {
        let accept = match form {
            Form::Select => "application/sparql-results+json",
            Form::Describe | Form::Construct => "text/turtle",
        };
        let mut resp = self
            .agent
            .post(url)
            .header("Content-Type", "application/sparql-query")
            .header("Accept", accept)
            .send(query)
            .with_context(|| format!("POST {url}"))?;
        let status = resp.status();
        let body = resp
            .body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_vec()
            .with_context(|| format!("the answer of {url}"))?;
        if status != 200 {
            bail!(
                "{url} answered {status}: {}\nquery:\n{query}",
                String::from_utf8_lossy(&body)
            );
        }
        Ok(body)
    }
}

/// The queries of mix `i` of a series (`series` keeps warm-up, gate and timed draws apart).
fn mix_queries(m: &Model, mix: Mix, param_seed: u64, series: u64, i: u64) -> Vec<(u8, String)> {
    let mut rng = Rng::new(
        param_seed ^ series.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i.wrapping_mul(0xff51_afd7),
    );
    mix.queries()
        .iter()
        .map(|&q| (q, draw(m, q, &mut rng)))
        .collect()
}

const GATE: u64 = 1;
const WARMUP: u64 = 2;
const TIMED: u64 = 3;

#[derive(Serialize, Default, Clone)]
struct QueryStats {
    query: String,
    name: String,
    count: u64,
    mean_ms: f64,
    min_ms: f64,
    max_ms: f64,
}

#[derive(Serialize)]
struct Run {
    endpoint: String,
    clients: usize,
    mixes: u64,
    wall_s: f64,
    qmph: f64,
    queries: Vec<QueryStats>,
}

#[derive(Serialize)]
struct GateReport {
    mixes: u64,
    queries: u64,
    /// Per template: instances compared and how many of them had a non-empty answer.
    per_query: Vec<(String, u64, u64)>,
}

#[derive(Serialize)]
struct Report {
    schema: &'static str,
    products: u64,
    seed: u64,
    param_seed: u64,
    warmup_mixes: u64,
    /// The timed mix and its template order.
    mix: Mix,
    mix_order: &'static [u8; 25],
    gate: Option<GateReport>,
    runs: Vec<Run>,
}

/// Runs `gate_mixes` mixes on every endpoint and compares each answer with the first
/// endpoint's.
fn gate(args: &Args, m: &Model, client: &Client) -> Result<GateReport> {
    let mut per_query = [(0u64, 0u64); 12];
    let mut queries = 0;
    for i in 0..args.gate_mixes {
        for (q, text) in mix_queries(m, Mix::WithQ6, args.param_seed, GATE, i) {
            let t = &TEMPLATES[usize::from(q) - 1];
            let mut first: Option<(String, Answer)> = None;
            for (name, url) in &args.endpoints {
                let body = client.ask(url, t.form, &text)?;
                let a = Answer::parse(t.form, &body).with_context(|| format!("{name}, Q{q}"))?;
                match &first {
                    None => {
                        per_query[usize::from(q) - 1].0 += 1;
                        per_query[usize::from(q) - 1].1 += u64::from(a.len() > 0);
                        first = Some((name.clone(), a));
                    }
                    Some((f, fa)) => {
                        if let Err(d) = answer::compare(t, fa, &a) {
                            bail!(
                                "the gate failed: Q{q} ({}) answered differently by {f} and {name}:\n{d}\nquery:\n{text}",
                                t.name
                            );
                        }
                    }
                }
            }
            queries += 1;
        }
    }
    Ok(GateReport {
        mixes: args.gate_mixes,
        queries,
        per_query: per_query
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| *n > 0)
            .map(|(i, &(n, e))| (format!("Q{}", i + 1), n, e))
            .collect(),
    })
}

/// Per-template totals: (count, total ms, min ms, max ms).
type Totals = Vec<(u64, f64, f64, f64)>;

/// Runs `mixes` mixes of `series` on `url` with `clients` threads; the wall time and totals.
fn run_mixes(
    m: &Model,
    args: &Args,
    client: &Client,
    url: &str,
    clients: usize,
    series: u64,
    mixes: u64,
) -> Result<(f64, Totals)> {
    let next = AtomicU64::new(0);
    let totals = Mutex::new(vec![(0u64, 0f64, f64::MAX, 0f64); 12]);
    let start = Instant::now();
    std::thread::scope(|s| -> Result<()> {
        let workers: Vec<_> = (0..clients)
            .map(|_| {
                s.spawn(|| -> Result<()> {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= mixes {
                            return Ok(());
                        }
                        for (q, text) in mix_queries(m, args.mix, args.param_seed, series, i) {
                            let t = &TEMPLATES[usize::from(q) - 1];
                            let t0 = Instant::now();
                            let body = client.ask(url, t.form, &text)?;
                            let ms = t0.elapsed().as_secs_f64() * 1e3;
                            std::hint::black_box(body);
                            let mut tot = totals.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                            let e = &mut tot[usize::from(q) - 1];
                            e.0 += 1;
                            e.1 += ms;
                            e.2 = e.2.min(ms);
                            e.3 = e.3.max(ms);
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join()
                .map_err(|_| anyhow::anyhow!("a client panicked"))??;
        }
        Ok(())
    })?;
    let wall = start.elapsed().as_secs_f64();
    let totals = totals
        .into_inner()
        .map_err(|_| anyhow::anyhow!("poisoned"))?;
    Ok((wall, totals))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let m = Model::new(&BsbmParams {
        products: args.products,
        seed: args.seed,
    });
    let client = Client::new();
    let gate_report = if args.no_gate {
        None
    } else {
        let g = gate(&args, &m, &client)?;
        eprintln!(
            "gate: {} queries of {} mixes answered alike by {} endpoints; non-empty per query: {}",
            g.queries,
            g.mixes,
            args.endpoints.len(),
            g.per_query
                .iter()
                .map(|(q, n, e)| format!("{q} {e}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Some(g)
    };
    let mut runs = Vec::new();
    for &clients in &args.clients {
        // Endpoints take turns at each client count: both see the same background load.
        for (name, url) in &args.endpoints {
            run_mixes(&m, &args, &client, url, clients, WARMUP, args.warmup)?;
            let (wall, totals) = run_mixes(&m, &args, &client, url, clients, TIMED, args.mixes)?;
            let qmph = args.mixes as f64 * 3600.0 / wall;
            eprintln!(
                "{name}, {clients} client(s): {qmph:.0} QMpH ({} mixes in {wall:.1} s)",
                args.mixes
            );
            let queries = totals
                .iter()
                .enumerate()
                .filter(|(_, t)| t.0 > 0)
                .map(|(i, t)| QueryStats {
                    query: format!("Q{}", i + 1),
                    name: TEMPLATES[i].name.into(),
                    count: t.0,
                    mean_ms: t.1 / t.0 as f64,
                    min_ms: t.2,
                    max_ms: t.3,
                })
                .collect::<Vec<_>>();
            for q in &queries {
                eprintln!(
                    "  {:>3} {:>6} × {:>9.2} ms mean",
                    q.query, q.count, q.mean_ms
                );
            }
            runs.push(Run {
                endpoint: name.clone(),
                clients,
                mixes: args.mixes,
                wall_s: wall,
                qmph,
                queries,
            });
        }
    }
    let report = Report {
        schema: "rete-bench/bsbm-run/v1",
        products: m.products(),
        seed: args.seed,
        param_seed: args.param_seed,
        warmup_mixes: args.warmup,
        mix: args.mix,
        mix_order: args.mix.queries(),
        gate: gate_report,
        runs,
    };
    let json = serde_json::to_string_pretty(&report)?;
    match &args.json {
        Some(p) => std::fs::write(p, json + "\n").with_context(|| format!("{}", p.display()))?,
        None => println!("{json}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
