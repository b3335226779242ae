#![doc = include_str!("../README.md")]

mod queries;
mod report;
mod union;

use anyhow::{bail, Context, Result};
use clap::Parser;
use oxigraph::io::RdfFormat;
use oxigraph::sparql::{QueryResults as OxResults, SparqlEvaluator};
use oxigraph::store::Store;
use queries::{BenchQuery, Gate};
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::Rete;
use rete_testsuite::compare::{compare_answers, Answer, Table};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// SPARQL benchmark: rete against Oxigraph (in memory), same data, same process.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// People in the social graph.
    #[arg(long, default_value_t = 20_000)]
    people: u64,
    /// Universities of the LUBM dataset (0 to skip LUBM).
    #[arg(long, default_value_t = 1)]
    lubm: u32,
    /// Timed warm runs per query and engine (alternating between the engines).
    #[arg(long, default_value_t = 11)]
    runs: usize,
    /// Only queries whose label contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Write the JSON envelope here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Regenerate the SPARQL section of this Markdown file from the run.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Render the Markdown section from an existing JSON envelope instead of running.
    #[arg(long)]
    render: Option<PathBuf>,
    /// Run only rete on the filtered queries this many times, untimed (for profilers).
    #[arg(long)]
    profile: Option<usize>,
    /// Instead of rete against Oxigraph: the social shapes over the union default graph of a
    /// named-graph copy against the same queries on the default-graph copy (`--json`,
    /// `--markdown` as for the main run; its own section).
    #[arg(long)]
    union: bool,
}

/// Timing statistics in milliseconds.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Stats {
    /// Median (wall clock).
    pub median_ms: f64,
    /// Standard deviation (wall clock).
    pub sd_ms: f64,
    /// Median of the thread's CPU time: what the query cost, without the time the thread
    /// waited for a core (others' builds share the machine).
    #[serde(default)]
    pub cpu_median_ms: Option<f64>,
}

/// CPU time of the calling thread, in milliseconds.
fn thread_cpu_ms() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        0.0
    } else if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

fn stats(mut v: Vec<f64>) -> Stats {
    v.sort_by(f64::total_cmp);
    let median = if v.is_empty() {
        0.0
    } else if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    };
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len().max(1) as f64;
    Stats {
        median_ms: median,
        sd_ms: var.sqrt(),
        cpu_median_ms: None,
    }
}

/// One query's outcome.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct QueryRun {
    /// Which query set.
    pub set: String,
    /// Label.
    pub name: String,
    /// SPARQL text.
    pub sparql: String,
    /// Result rows (triples for graphs, 1 for ASK).
    pub rows: u64,
    /// `multiset` or `count`.
    pub gate: String,
    /// Whether the gate passed (no timing is taken otherwise).
    pub identical: bool,
    /// Gate failure message.
    pub mismatch: Option<String>,
    /// rete timing.
    pub rete: Option<Stats>,
    /// Oxigraph timing.
    pub oxigraph: Option<Stats>,
    /// Oxigraph median / rete median (> 1: rete is faster).
    pub speedup: Option<f64>,
    /// The same from the medians of thread CPU time.
    #[serde(default)]
    pub speedup_cpu: Option<f64>,
    /// `native`, or `generic: reason` (which rete evaluator ran the query).
    #[serde(default)]
    pub evaluator: String,
    /// Whether rete answers it from the permutation directory's block counts (COUNT of one
    /// pattern): a different algorithm, left out of the "without index counts" mean.
    #[serde(default)]
    pub index_count: bool,
}

/// A dataset's load figures.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct DatasetInfo {
    /// Name.
    pub name: String,
    /// Quads in both engines.
    pub quads: u64,
    /// Of which inferred by materialization.
    pub inferred: u64,
    /// `.rete` size.
    pub file_bytes: u64,
    /// rete build time (not part of query timing).
    pub build_ms: f64,
    /// `Rete::open` time.
    pub rete_open_ms: f64,
    /// Oxigraph load time.
    pub oxigraph_load_ms: f64,
}

/// When and where a benchmark ran: a part of each committed envelope.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct RunInfo {
    /// Unix time of the run.
    pub unix_time: u64,
    /// Logical CPUs of the machine.
    pub cpus: usize,
    /// Build profile of the benchmark binary.
    pub profile: String,
}

impl RunInfo {
    /// This run, now.
    pub fn now() -> Self {
        Self {
            unix_time: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .into(),
        }
    }
}

/// The committed JSON envelope.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Envelope {
    /// Schema id of this file.
    pub schema: String,
    /// When and where it ran.
    #[serde(flatten)]
    pub run: RunInfo,
    /// Timed runs per query and engine.
    pub runs: usize,
    /// Oxigraph version.
    pub oxigraph: String,
    /// Datasets.
    pub datasets: Vec<DatasetInfo>,
    /// Queries.
    pub queries: Vec<QueryRun>,
    /// Geometric mean of the speedups per set and overall.
    pub geomean: Vec<(String, f64)>,
    /// Hand-written reading of the results, kept across re-runs (edit the JSON to change it).
    #[serde(default)]
    pub notes: Vec<String>,
}

fn oxigraph_answer(store: &Store, q: &str) -> Result<Answer> {
    Ok(
        match SparqlEvaluator::new()
            .parse_query(q)?
            .on_store(store)
            .execute()?
        {
            OxResults::Boolean(b) => Answer::Boolean(b),
            OxResults::Solutions(s) => {
                Answer::Table(Table::from_solutions(s.variables().to_vec(), s)?)
            }
            OxResults::Graph(g) => Answer::Graph(g.collect::<Result<Vec<_>, _>>()?),
        },
    )
}

fn rete_answer(rete: &Rete, q: &str) -> Result<Answer> {
    let r = rete_sparql::query(rete, q, &rete_sparql::QueryOptions::default())?;
    Ok(rete_testsuite::sparql::collect(r)?)
}

fn size(a: &Answer) -> u64 {
    match a {
        Answer::Table(t) => t.rows.len() as u64,
        Answer::Boolean(_) => 1,
        Answer::Graph(g) => g.len() as u64,
    }
}

/// Times `a` and `b` (one untimed warm-up each, then `runs` timed runs of each, alternating:
/// on a shared machine both engines then see the same background load).
fn time_pair(
    runs: usize,
    mut a: impl FnMut() -> Result<u64>,
    mut b: impl FnMut() -> Result<u64>,
) -> Result<(Stats, Stats)> {
    a()?;
    b()?;
    let (mut va, mut vb) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    let (mut ca, mut cb) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let (t, c) = (Instant::now(), thread_cpu_ms());
        std::hint::black_box(a()?);
        ca.push(thread_cpu_ms() - c);
        va.push(t.elapsed().as_secs_f64() * 1e3);
        let (t, c) = (Instant::now(), thread_cpu_ms());
        std::hint::black_box(b()?);
        cb.push(thread_cpu_ms() - c);
        vb.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (mut sa, mut sb) = (stats(va), stats(vb));
    sa.cpu_median_ms = Some(median(ca));
    sb.cpu_median_ms = Some(median(cb));
    Ok((sa, sb))
}

/// How many times longer `slow` took than `fast`, on wall clock and on CPU time (medians);
/// logged with both times.
fn ratios(fast: (&str, &Stats), slow: (&str, &Stats)) -> (Option<f64>, Option<f64>) {
    let wall = slow.1.median_ms / fast.1.median_ms.max(1e-6);
    let cpu = match (slow.1.cpu_median_ms, fast.1.cpu_median_ms) {
        (Some(s), Some(f)) => Some(s / f.max(1e-6)),
        _ => None,
    };
    eprintln!(
        "{} {:.3} ms, {} {:.3} ms, {wall:.2}x",
        fast.0, fast.1.median_ms, slow.0, slow.1.median_ms
    );
    (Some(wall), cpu)
}

/// The social graph of `people` people ([`rete_datagen::social`]) as N-Triples.
fn social_nt(people: u64) -> Result<Vec<u8>> {
    let params = rete_datagen::social::SocialParams {
        people,
        ..Default::default()
    };
    let mut nt = Vec::new();
    rete_datagen::social::write_ntriples(&params, &mut nt)?;
    Ok(nt)
}

/// Whether `got` passes `bq`'s gate against `expected`, the answer of `reference` (named in
/// the message): the same row count, or the same multiset of rows (in order under ORDER BY).
fn check_gate(
    bq: &BenchQuery,
    expected: &Answer,
    got: &Answer,
    reference: &str,
) -> Result<(), String> {
    match bq.gate {
        Gate::Count if size(got) == size(expected) => Ok(()),
        Gate::Count => Err(format!(
            "{} rows, {reference} {}",
            size(got),
            size(expected)
        )),
        Gate::Multiset => {
            let ordered = match (expected, bq.ordered) {
                (Answer::Table(t), true) => t.variables.clone(),
                _ => Vec::new(),
            };
            compare_answers(expected, got, &ordered)
        }
    }
}

/// A timed answer: its name and a run giving its size.
type Timed<'a> = (&'a str, &'a mut dyn FnMut() -> Result<u64>);

/// What [`time_if_agreed`] measured: both timings, the wall-clock and the CPU-time ratio.
type Agreed = (Option<Stats>, Option<Stats>, Option<f64>, Option<f64>);

/// Times `fast` against `slow` ([`time_pair`]) when the answers agreed (`mismatch` is `None`):
/// both timings and `slow`'s time over `fast`'s ([`ratios`]); else prints the mismatch and
/// gives nothing.
fn time_if_agreed(mismatch: Option<&str>, runs: usize, fast: Timed, slow: Timed) -> Result<Agreed> {
    if let Some(m) = mismatch {
        eprintln!("MISMATCH {m}");
        return Ok((None, None, None, None));
    }
    let (f, s) = time_pair(runs, fast.1, slow.1)?;
    let (wall, cpu) = ratios((fast.0, &f), (slow.0, &s));
    Ok((Some(f), Some(s), wall, cpu))
}

fn run_set(
    set: &str,
    queries: &[BenchQuery],
    rete: &Rete,
    store: &Store,
    args: &Args,
) -> Result<Vec<QueryRun>> {
    let mut out = Vec::new();
    for bq in queries {
        if let Some(f) = &args.filter {
            if !bq.name.contains(f.as_str()) && !set.contains(f.as_str()) {
                continue;
            }
        }
        if let Some(n) = args.profile {
            for _ in 0..n {
                rete_answer(rete, &bq.sparql)?;
            }
            continue;
        }
        eprint!("{set} / {} … ", bq.name);
        let expected = oxigraph_answer(store, &bq.sparql)
            .with_context(|| format!("oxigraph on {}", bq.name))?;
        let got = rete_answer(rete, &bq.sparql);
        let gate = match &got {
            Err(e) => Err(format!("rete failed: {e}")),
            Ok(a) => check_gate(bq, &expected, a, "Oxigraph"),
        };
        let mut run = QueryRun {
            set: set.into(),
            name: bq.name.into(),
            sparql: bq.sparql.clone(),
            rows: size(&expected),
            gate: match bq.gate {
                Gate::Multiset => "multiset".into(),
                Gate::Count => "count".into(),
            },
            identical: gate.is_ok(),
            mismatch: gate.err().map(|m| m.chars().take(600).collect()),
            rete: None,
            oxigraph: None,
            speedup: None,
            speedup_cpu: None,
            index_count: bq.index_count,
            evaluator: match rete_sparql::parse(&bq.sparql, None)
                .and_then(|q| rete_sparql::evaluator_for(rete, &q))
            {
                Ok(rete_sparql::Evaluator::Native) => "native".into(),
                Ok(rete_sparql::Evaluator::Generic(why)) => format!("generic: {why}"),
                Err(e) => format!("error: {e}"),
            },
        };
        (run.rete, run.oxigraph, run.speedup, run.speedup_cpu) = time_if_agreed(
            run.mismatch.as_deref(),
            args.runs,
            ("rete", &mut || Ok(size(&rete_answer(rete, &bq.sparql)?))),
            ("oxigraph", &mut || {
                Ok(size(&oxigraph_answer(store, &bq.sparql)?))
            }),
        )?;
        out.push(run);
    }
    Ok(out)
}

/// Builds `nt` (plus `extra` inputs) into a `.rete`, opens it, and loads the very same quads
/// (exported back from the file, so inferred ones included) into Oxigraph.
fn prepare(
    name: &str,
    inputs: Vec<Input>,
    inference: Option<Arc<dyn rete_build::Inference>>,
    dir: &Path,
) -> Result<(Rete, Store, DatasetInfo)> {
    let out = dir.join(format!("{name}.rete"));
    let t = Instant::now();
    let report = rete_build::build(
        &BuildOptions {
            inputs,
            inference,
            ..BuildOptions::default()
        },
        &out,
    )?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let rete = Rete::open_path(&out)?;
    // Opening is lazy: count the first pattern access as part of it.
    rete.count(&rete_core::Pattern::default())?;
    let rete_open_ms = t.elapsed().as_secs_f64() * 1e3;
    let quads = rete_testsuite::export(&rete)?;
    let nq = rete_testsuite::nquads(&quads);
    let store = Store::new()?;
    let t = Instant::now();
    store.load_from_reader(RdfFormat::NQuads, nq.as_bytes())?;
    let oxigraph_load_ms = t.elapsed().as_secs_f64() * 1e3;
    rete.clear_cache();
    Ok((
        rete,
        store,
        DatasetInfo {
            name: name.into(),
            quads: report.quads,
            inferred: report.inferred_quads,
            file_bytes: report.file_bytes,
            build_ms,
            rete_open_ms,
            oxigraph_load_ms,
        },
    ))
}

/// Key of the geometric mean over every query except those answered from index counts.
pub const WITHOUT_INDEX_COUNTS: &str = "all without index counts";

/// Key of the geometric mean over the operator shapes (social and LUBM, not the 14 LUBM
/// queries) except those answered from index counts.
pub const SHAPES_WITHOUT_INDEX_COUNTS: &str = "operator shapes without index counts";

/// Whether a query is one of the operator shapes (on either dataset).
pub fn is_shape(r: &QueryRun) -> bool {
    r.set == "social" || r.set == "lubm-shapes"
}

/// Suffix of the geometric means computed from CPU time.
pub const CPU: &str = " (CPU time)";

fn geomean(runs: &[&QueryRun]) -> f64 {
    geomean_of(runs.iter().filter_map(|r| r.speedup))
}

fn geomean_cpu(runs: &[&QueryRun]) -> f64 {
    geomean_of(runs.iter().filter_map(|r| r.speedup_cpu))
}

/// The geometric mean of `v` (0 when empty).
fn geomean_of(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    if v.is_empty() {
        return 0.0;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

fn main() -> Result<()> {
    let args = Args::parse();
    if let Some(json) = &args.render {
        let env: Envelope = serde_json::from_slice(&std::fs::read(json)?)?;
        let md = args
            .markdown
            .clone()
            .unwrap_or_else(|| PathBuf::from("docs/BENCHMARK.md"));
        report::update_markdown(&md, &report::render(&env, json))?;
        return Ok(());
    }
    if args.union {
        return union::run(&args);
    }
    let dir = tempfile::tempdir()?;
    let mut datasets = Vec::new();
    let mut runs = Vec::new();
    if args.people > 0 {
        let nt = social_nt(args.people)?;
        let (rete, store, info) = prepare(
            "social",
            vec![Input::bytes("social.nt", nt, Syntax::NTriples)],
            None,
            dir.path(),
        )?;
        eprintln!("social: {} quads", info.quads);
        datasets.push(info);
        runs.extend(run_set("social", &queries::social(), &rete, &store, &args)?);
    }
    if args.lubm > 0 {
        let mut nt = Vec::new();
        rete_datagen::lubm::write_ntriples(
            &rete_datagen::lubm::LubmParams {
                universities: args.lubm,
                seed: 0,
            },
            &mut nt,
        )?;
        let mut onto = Vec::new();
        rete_datagen::lubm::write_ontology(&mut onto)?;
        let inference: Arc<dyn rete_build::Inference> = Arc::new(rete_reason::Materializer::new(
            rete_reason::MaterializeOptions::owl_rl(),
        ));
        let (rete, store, info) = prepare(
            &format!("lubm{}", args.lubm),
            vec![
                Input::bytes("lubm.nt", nt, Syntax::NTriples),
                Input::bytes("univ-bench.nt", onto, Syntax::NTriples),
            ],
            Some(inference),
            dir.path(),
        )?;
        eprintln!("lubm: {} quads ({} inferred)", info.quads, info.inferred);
        datasets.push(info);
        runs.extend(run_set(
            "lubm-shapes",
            &queries::lubm_shapes(),
            &rete,
            &store,
            &args,
        )?);
        runs.extend(run_set(
            "lubm",
            &queries::lubm_standard(),
            &rete,
            &store,
            &args,
        )?);
    }
    let mut geo = Vec::new();
    for set in ["social", "lubm-shapes", "lubm"] {
        let r: Vec<&QueryRun> = runs.iter().filter(|r| r.set == set).collect();
        if !r.is_empty() {
            geo.push((set.to_owned(), geomean(&r)));
        }
    }
    geo.push(("all".into(), geomean(&runs.iter().collect::<Vec<_>>())));
    geo.push((
        WITHOUT_INDEX_COUNTS.into(),
        geomean(&runs.iter().filter(|r| !r.index_count).collect::<Vec<_>>()),
    ));
    let shapes: Vec<&QueryRun> = runs
        .iter()
        .filter(|r| !r.index_count && is_shape(r))
        .collect();
    let no_counts: Vec<&QueryRun> = runs.iter().filter(|r| !r.index_count).collect();
    geo.push((SHAPES_WITHOUT_INDEX_COUNTS.into(), geomean(&shapes)));
    geo.push((
        format!("{WITHOUT_INDEX_COUNTS}{CPU}"),
        geomean_cpu(&no_counts),
    ));
    geo.push((
        format!("{SHAPES_WITHOUT_INDEX_COUNTS}{CPU}"),
        geomean_cpu(&shapes),
    ));
    let env = Envelope {
        schema: "rete-bench/sparql/v1".into(),
        run: RunInfo::now(),
        runs: args.runs,
        oxigraph: "0.5 (in-memory Store, default-features = false)".into(),
        datasets,
        queries: runs,
        geomean: geo,
        notes: args
            .json
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice::<Envelope>(&b).ok())
            .map(|e| e.notes)
            .unwrap_or_default(),
    };
    for (set, g) in &env.geomean {
        eprintln!("geomean {set}: {g:.2}x");
    }
    let mismatches = env.queries.iter().filter(|q| !q.identical).count();
    if let Some(json) = &args.json {
        std::fs::write(json, serde_json::to_vec_pretty(&env)?)?;
        if let Some(md) = &args.markdown {
            report::update_markdown(md, &report::render(&env, json))?;
        }
    } else {
        println!("{}", serde_json::to_string_pretty(&env)?);
    }
    if mismatches > 0 {
        bail!("{mismatches} queries failed the correctness gate");
    }
    Ok(())
}
