//! Path benchmark (issue 49): `rete path`'s library on generated social and LUBM data (and on
//! an existing file, such as the 100 M-triple social file), 100 random pairs, first path and
//! k = 5 warm, the bytes and reads of a cold search, and the requests, bytes and time of the same
//! searches on a remote copy served over HTTP ranges by scripts/range-server.py on 127.0.0.1.
//! On the generated data, side by side with networkx's bidirectional shortest path on the same
//! graph in memory and with Oxigraph answering SPARQL property-path ASK per length — the three
//! on the same entity-to-entity links (literals and schema links left out), with a correctness
//! gate: the first path's length equals networkx's. Writes JSON; docs/BENCHMARK.md has the
//! table. Run with `cargo run --release -p rete-bench --bin rete-path-bench -- --json …`.

use anyhow::{bail, Context, Result};
use clap::Parser;
use oxigraph::io::RdfFormat;
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use oxrdf::Term;
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::{CountingReader, FileReader, Id, Pattern, Perm, Rete, TermKind};
use rete_http::HttpReader;
use rete_path::{find_paths, PathOptions, PathReport, Stop};
use serde::Serialize;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Timed warm runs per pair and `k`, after a first run: the median is reported.
const WARM_RUNS: usize = 5;

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
    json: Option<PathBuf>,
    /// Also an existing `.rete` file (read only): rete-path alone, warm, cold and remote —
    /// networkx and Oxigraph are left out (at 100 M triples they cannot hold it in memory).
    #[arg(long)]
    file: Option<PathBuf>,
    /// Skip the measurements over HTTP.
    #[arg(long)]
    no_remote: bool,
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
    /// Seconds to build the file (none for an existing file).
    build_s: Option<f64>,
    pairs: usize,
    connected_within_6: usize,
    /// Pairs a limit (memory, deadline) stopped before an answer.
    stopped_by_limit: usize,
    /// rete-path, k = 1, warm (median of 5 runs of each pair on an open file, after a first).
    rete_first_ms: Percentiles,
    /// rete-path, k = 5, warm.
    rete_k5_ms: Percentiles,
    /// p50 of the k = 5 time over the k = 1 time, pair by pair.
    k5_over_first_p50: f64,
    /// The same searches with their answers' terms written out (`PathReport::decode`, what
    /// `rete path` prints; the app shows ids through its own term views): k = 1, k = 5 and
    /// the p50 of their ratio pair by pair.
    rete_first_text_ms: Percentiles,
    rete_k5_text_ms: Percentiles,
    k5_over_first_text_p50: f64,
    /// The same over the pairs connected within 6 hops.
    k5_over_first_connected_p50: Option<f64>,
    /// Shortest-path searches of the k = 5 runs (1: all five from the first search).
    k5_searches: Percentiles,
    /// Pairs whose five paths all came from the first search (five or more of the shortest
    /// length), and the p50 of k = 5 over k = 1 for them and for the others (detours needed).
    k5_one_search_pairs: usize,
    k5_over_first_one_search_p50: Option<f64>,
    k5_over_first_detours_p50: Option<f64>,
    /// Entities read per search, k = 1 and k = 5.
    first_expanded: Percentiles,
    k5_expanded: Percentiles,
    /// Bytes and reads of one cold k = 1 search per pair (a fresh open, nothing cached), local.
    cold_bytes: Percentiles,
    cold_reads_p50: f64,
    /// The same searches on a copy served over HTTP on 127.0.0.1.
    remote: Option<RemoteResult>,
    /// networkx and Oxigraph: on the generated data only.
    references: Option<References>,
}

#[derive(Debug, Serialize)]
struct References {
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

/// Per pair, a fresh open of the URL (one request) and one search: what the server sent (its
/// log: requests and body bytes, the open's request included) and the wall time.
#[derive(Debug, Serialize)]
struct RemoteSearch {
    requests: Percentiles,
    bytes: Percentiles,
    /// The search alone.
    search_ms: Percentiles,
    /// Open and search.
    total_ms: Percentiles,
}

#[derive(Debug, Serialize)]
struct RemoteResult {
    server: &'static str,
    first: RemoteSearch,
    k5: RemoteSearch,
    /// Whether every remote answer equals the local one (same paths, same stop).
    same_as_local: bool,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// scripts/range-server.py on 127.0.0.1 serving one folder, killed when dropped.
struct Server {
    child: Child,
    log: PathBuf,
    port: u16,
}

impl Server {
    fn start(dir: &Path, log: PathBuf) -> Result<Self> {
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/range-server.py");
        std::fs::write(&log, "")?;
        let mut child = Command::new(python)
            .arg(script)
            .arg(dir)
            .arg(&log)
            .arg("0")
            .stdout(Stdio::piped())
            .spawn()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().context("server stdout")?).read_line(&mut line)?;
        let port = line
            .trim()
            .parse()
            .context("range-server.py gave no port")?;
        Ok(Self { child, log, port })
    }

    fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.port)
    }

    /// Requests and body bytes since the last call.
    fn take(&self) -> Result<(u64, u64)> {
        let text = std::fs::read_to_string(&self.log)?;
        std::fs::write(&self.log, "")?;
        let mut bytes = 0;
        let mut requests = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line)?;
            requests += 1;
            bytes += v["bytes"].as_u64().unwrap_or(0);
        }
        Ok((requests, bytes))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same pair searches over HTTP: each on a fresh open, nothing cached.
fn remote(
    server: &Server,
    name: &str,
    terms: &[(Term, Term)],
    local: &[(PathReport, PathReport)],
) -> Result<RemoteResult> {
    let url = server.url(name);
    let mut same = true;
    let mut runs = Vec::new();
    for (i, opts) in [
        PathOptions {
            k: 1,
            ..Default::default()
        },
        PathOptions::default(),
    ]
    .iter()
    .enumerate()
    {
        let (mut requests, mut bytes, mut search, mut total) = (vec![], vec![], vec![], vec![]);
        for ((a, b), here) in terms.iter().zip(local) {
            server.take()?;
            let t = Instant::now();
            let rete = Rete::open(Arc::new(HttpReader::open(&url)?))?;
            let s = Instant::now();
            let r = find_paths(&rete, a.as_ref(), b.as_ref(), opts)?;
            // As `rete path` does: the answer's terms written out (one more batch).
            r.decode(&rete)?;
            search.push(ms(s.elapsed()));
            total.push(ms(t.elapsed()));
            let (n, b) = server.take()?;
            requests.push(n as f64);
            bytes.push(b as f64);
            let here = if i == 0 { &here.0 } else { &here.1 };
            same &= r.paths == here.paths && r.stop == here.stop;
        }
        runs.push(RemoteSearch {
            requests: percentiles(requests),
            bytes: percentiles(bytes),
            search_ms: percentiles(search),
            total_ms: percentiles(total),
        });
    }
    let k5 = runs.pop().context("k = 5 run")?;
    let first = runs.pop().context("k = 1 run")?;
    Ok(RemoteResult {
        server: "scripts/range-server.py (Python http.server, HTTP/1.1 keep-alive) on 127.0.0.1",
        first,
        k5,
        same_as_local: same,
    })
}

/// A generated dataset built into `dir`, with networkx and Oxigraph next to rete-path.
fn run_generated(name: &str, nt: Vec<u8>, dir: &Path, args: &Args) -> Result<DatasetResult> {
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
    let (mut result, terms, lengths) = run_rete(name, &file, &rete, &pairs, args)?;
    result.build_s = Some(build_s);

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
    result.references = Some(References {
        networkx_version: nx["networkx_version"].as_str().unwrap_or("?").into(),
        networkx_load_s: nx["load_ms"].as_f64().unwrap_or(f64::NAN) / 1e3,
        networkx_ms: percentiles(nx_ms),
        oxigraph_load_s,
        oxigraph_ms: (!ox_ms.is_empty()).then(|| percentiles(ox_ms)),
        oxigraph_pairs_done: done,
        lengths_equal_networkx: lengths == nx_lengths,
        lengths_equal_oxigraph: ox_equal,
    });
    Ok(result)
}

/// An existing file, rete-path alone, twice: pairs of random subjects (by rejection over the
/// entity ids, so the file is never scanned whole), and pairs joined by a random walk of 6 links
/// from a random subject (connected within 6 hops by construction: on a large graph of
/// communities random subjects rarely are).
fn run_file(file: &Path, args: &Args) -> Result<Vec<DatasetResult>> {
    let name = file
        .file_stem()
        .and_then(|s| s.to_str())
        .context("file name")?
        .to_string();
    let rete = Rete::open_path(file)?;
    let first_literal = rete.first_of_kind(TermKind::SimpleLiteral)?;
    let mut rng = rete_datagen::Rng::new(49);
    let subject = |rng: &mut rete_datagen::Rng| -> Result<Id> {
        loop {
            let id = rng.below(first_literal);
            if rete.count(&Pattern::new(Some(id), None, None))? > 0 {
                return Ok(id);
            }
        }
    };
    let mut pairs = Vec::new();
    while pairs.len() < args.pairs {
        let (a, b) = (subject(&mut rng)?, subject(&mut rng)?);
        if a != b {
            pairs.push((a, b));
        }
    }
    let random = run_rete(&name, file, &rete, &pairs, args)?.0;
    let mut allowed = std::collections::HashMap::new();
    let mut walks = Vec::new();
    while walks.len() < args.pairs {
        let a = subject(&mut rng)?;
        let mut at = a;
        for _ in 0..6 {
            let mut next = Vec::new();
            for (perm, pattern, other) in [
                (Perm::Spo, Pattern::new(Some(at), None, None), 2),
                (Perm::Osp, Pattern::new(None, None, Some(at)), 0),
            ] {
                for q in rete.scan(perm, &pattern)? {
                    let q = q?;
                    let ok = match allowed.get(&q[1]) {
                        Some(&ok) => ok,
                        None => {
                            let p = rete.term(q[1])?.to_string();
                            let ok = !rete_path::is_schema_predicate(p.trim_matches(['<', '>']));
                            allowed.insert(q[1], ok);
                            ok
                        }
                    };
                    if ok && q[other] < first_literal && q[other] != at {
                        next.push(q[other]);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            at = next[rng.below(next.len() as u64) as usize];
        }
        if at != a {
            walks.push((a, at));
        }
    }
    let mut walked = run_rete(&format!("{name}, walk pairs"), file, &rete, &walks, args)?.0;
    walked.dataset = format!("{name} (pairs joined by a 6-link random walk)");
    Ok(vec![random, walked])
}

/// rete-path on `pairs`: warm, cold and (unless `--no-remote`) over HTTP. Also gives the pairs'
/// terms and the first path's length per pair.
#[allow(clippy::type_complexity, reason = "one private call site")]
fn run_rete(
    name: &str,
    file: &Path,
    rete: &Rete,
    pairs: &[(Id, Id)],
    args: &Args,
) -> Result<(DatasetResult, Vec<(Term, Term)>, Vec<Option<u64>>)> {
    eprintln!("{name}: rete-path");
    let terms: Vec<(Term, Term)> = pairs
        .iter()
        .map(|&(a, b)| Ok((rete.term(a)?, rete.term(b)?)))
        .collect::<Result<_>>()?;
    let k1 = PathOptions {
        k: 1,
        ..Default::default()
    };
    let k5 = PathOptions::default();
    let (mut first, mut five, mut ratio, mut ratio_connected) = (vec![], vec![], vec![], vec![]);
    let (mut lengths, mut searches, mut local) = (vec![], vec![], vec![]);
    let (mut one_search, mut detours, mut exp1, mut exp5) = (vec![], vec![], vec![], vec![]);
    let (mut cold_bytes, mut cold_reads) = (vec![], vec![]);
    let (mut first_text, mut five_text, mut ratio_text) = (vec![], vec![], vec![]);
    let mut stopped = 0;
    for (a, b) in &terms {
        let counted = Arc::new(CountingReader::new(FileReader::open(file)?));
        let cold = Rete::open(counted.clone())?;
        find_paths(&cold, a.as_ref(), b.as_ref(), &k1)?;
        let s = counted.stats();
        cold_bytes.push(s.bytes as f64);
        cold_reads.push(s.requests as f64);
        // Warm, on the long-lived reader: a first run, then the median of WARM_RUNS (one run of
        // a few microseconds is at the mercy of the other work on the machine).
        let warm = |opts: &PathOptions, text: bool| -> Result<(PathReport, f64)> {
            find_paths(rete, a.as_ref(), b.as_ref(), opts)?.decode(rete)?;
            let mut times = Vec::with_capacity(WARM_RUNS);
            let mut report = None;
            for _ in 0..WARM_RUNS {
                let t = Instant::now();
                let r = find_paths(rete, a.as_ref(), b.as_ref(), opts)?;
                if text {
                    r.decode(rete)?;
                }
                times.push(ms(t.elapsed()));
                report = Some(r);
            }
            times.sort_by(f64::total_cmp);
            Ok((report.context("warm runs")?, times[WARM_RUNS / 2]))
        };
        let (r, t1) = warm(&k1, false)?;
        let (r5, t5) = warm(&k5, false)?;
        let (_, t1_text) = warm(&k1, true)?;
        let (_, t5_text) = warm(&k5, true)?;
        first_text.push(t1_text);
        five_text.push(t5_text);
        ratio_text.push(t5_text / t1_text.max(1e-6));
        if r5.paths.first().map(|p| p.hops) != r.paths.first().map(|p| p.hops) {
            bail!("{a} to {b}: k = 5 starts with a different length than k = 1");
        }
        if !matches!(r5.stop, Stop::Found | Stop::Exhausted | Stop::HopLimit) {
            stopped += 1;
        }
        first.push(t1);
        five.push(t5);
        ratio.push(t5 / t1.max(1e-6));
        if !r.paths.is_empty() {
            ratio_connected.push(t5 / t1.max(1e-6));
        }
        searches.push(r5.stats.searches as f64);
        if !r.paths.is_empty() {
            match r5.stats.searches {
                1 => one_search.push(t5 / t1.max(1e-6)),
                _ => detours.push(t5 / t1.max(1e-6)),
            }
        }
        exp1.push(r.stats.expanded as f64);
        exp5.push(r5.stats.expanded as f64);
        lengths.push(r.paths.first().map(|p| p.hops as u64));
        local.push((r, r5));
    }
    let remote = if args.no_remote {
        None
    } else {
        eprintln!("{name}: remote");
        let dir = file.parent().context("file folder")?;
        let log = tempfile::NamedTempFile::new()?;
        let server = Server::start(dir, log.path().to_path_buf())?;
        let base = file.file_name().and_then(|n| n.to_str()).context("name")?;
        Some(remote(&server, base, &terms, &local)?)
    };
    let result = DatasetResult {
        dataset: name.into(),
        triples: rete.quad_count(),
        file_bytes: std::fs::metadata(file)?.len(),
        build_s: None,
        pairs: pairs.len(),
        connected_within_6: lengths.iter().filter(|l| l.is_some()).count(),
        stopped_by_limit: stopped,
        rete_first_ms: percentiles(first),
        rete_k5_ms: percentiles(five),
        k5_over_first_p50: percentiles(ratio).p50,
        rete_first_text_ms: percentiles(first_text),
        rete_k5_text_ms: percentiles(five_text),
        k5_over_first_text_p50: percentiles(ratio_text).p50,
        k5_over_first_connected_p50: (!ratio_connected.is_empty())
            .then(|| percentiles(ratio_connected).p50),
        k5_searches: percentiles(searches),
        k5_one_search_pairs: one_search.len(),
        k5_over_first_one_search_p50: (!one_search.is_empty()).then(|| percentiles(one_search).p50),
        k5_over_first_detours_p50: (!detours.is_empty()).then(|| percentiles(detours).p50),
        first_expanded: percentiles(exp1),
        k5_expanded: percentiles(exp5),
        cold_bytes: percentiles(cold_bytes),
        cold_reads_p50: percentiles(cold_reads).p50,
        remote,
        references: None,
    };
    Ok((result, terms, lengths))
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
        results.push(run_generated("social", nt, dir.path(), &args)?);
    }
    if args.lubm > 0 {
        let mut nt = Vec::new();
        let p = rete_datagen::lubm::LubmParams {
            universities: args.lubm,
            ..Default::default()
        };
        rete_datagen::lubm::write_ntriples(&p, &mut nt)?;
        results.push(run_generated(
            &format!("lubm-{}", args.lubm),
            nt,
            dir.path(),
            &args,
        )?);
    }
    if let Some(file) = &args.file {
        results.extend(run_file(file, &args)?);
    }
    let nx_gate = results.iter().all(|r| {
        r.references
            .as_ref()
            .is_none_or(|x| x.lengths_equal_networkx)
    });
    let remote_gate = results
        .iter()
        .all(|r| r.remote.as_ref().is_none_or(|x| x.same_as_local));
    let envelope = serde_json::json!({
        "benchmark": "rete-path-bench",
        "method": "per dataset: 100 random pairs of subjects; rete-path k=1 and k=5 warm (median \
                   of 5 runs after a first, one open reader) of find_paths (answer in ids) and, apart, \
                   of find_paths then decode (terms written out, *_text_*), cold bytes/reads \
                   from a fresh open of the local file; remote: a fresh open over HTTP per \
                   pair and search (k=1, then k=5), search and decode, requests \
                   and bytes from the server's log; networkx bidirectional_shortest_path in \
                   memory (median of 3); Oxigraph in memory, SPARQL ASK with a property path of \
                   length 1..6 until true; all on the entity-to-entity links without schema \
                   predicates; networkx and Oxigraph on the generated datasets only",
        "machine_cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "datasets": results,
        "lengths_equal_networkx": nx_gate,
        "remote_same_as_local": remote_gate,
    });
    let text = serde_json::to_string_pretty(&envelope)?;
    match &args.json {
        Some(p) => std::fs::write(p, text + "\n")?,
        None => println!("{text}"),
    }
    if !(nx_gate && remote_gate) {
        bail!(
            "rete-path's answers differ from networkx's or between local and remote (see the JSON)"
        );
    }
    Ok(())
}
