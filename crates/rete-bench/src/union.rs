//! `--union`: the social operator shapes over the union default graph of a copy of the data
//! spread over named graphs, against the same queries on the copy with everything in the
//! default graph (issue 54: the union within 10 %).

use crate::queries;
use crate::{check_gate, geomean_of, size, social_nt, time_if_agreed, Args, RunInfo, Stats};
use anyhow::{bail, Result};
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::Rete;
use rete_testsuite::compare::Answer;
use serde::Serialize;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::Path;

/// Named graphs of the copy.
const GRAPHS: u64 = 8;

/// One query's outcome.
#[derive(Debug, Serialize)]
struct UnionRun {
    name: String,
    sparql: String,
    rows: u64,
    /// Identical answers on both copies (no timing otherwise).
    identical: bool,
    mismatch: Option<String>,
    /// Strict default graph on the default-graph copy.
    default_graph: Option<Stats>,
    /// Union default graph on the named-graph copy.
    union: Option<Stats>,
    /// union median / default-graph median (< 1.1: within the 10 % goal).
    ratio: Option<f64>,
    ratio_cpu: Option<f64>,
    /// Answered from index block counts on the default-graph copy.
    index_count: bool,
}

#[derive(Debug, Serialize)]
struct UnionEnvelope {
    schema: String,
    #[serde(flatten)]
    run: RunInfo,
    runs: usize,
    people: u64,
    quads: u64,
    named_graphs: u64,
    queries: Vec<UnionRun>,
    geomean_ratio: f64,
    geomean_ratio_cpu: f64,
    geomean_ratio_without_index_counts: f64,
}

fn build(dir: &Path, name: &str, data: Vec<u8>, syntax: Syntax) -> Result<Rete> {
    let out = dir.join(format!("{name}.rete"));
    rete_build::build(
        &BuildOptions {
            inputs: vec![Input::bytes(format!("{name}.nq"), data, syntax)],
            ..BuildOptions::default()
        },
        &out,
    )?;
    let r = Rete::open_path(&out)?;
    r.count(&rete_core::Pattern::default())?;
    Ok(r)
}

/// The N-Triples `nt` as N-Quads, each subject's triples in one of [`GRAPHS`] named graphs (as
/// a dump with one graph per source would have them).
fn spread(nt: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(nt.len() + nt.len() / 2);
    for line in nt.split(|&b| b == b'\n') {
        let Some(end) = line.iter().rposition(|&b| b == b'.') else {
            continue;
        };
        let subject = line.split(|&b| b == b' ').next().unwrap_or_default();
        let mut h = std::hash::DefaultHasher::new();
        subject.hash(&mut h);
        out.extend_from_slice(&line[..end]);
        out.extend_from_slice(
            format!("<http://example.org/graph/{}> .\n", h.finish() % GRAPHS).as_bytes(),
        );
    }
    out
}

fn answer(rete: &Rete, q: &str, union: bool) -> Result<Answer> {
    let opts = rete_sparql::QueryOptions {
        union_default_graph: union,
        ..rete_sparql::QueryOptions::default()
    };
    Ok(rete_testsuite::sparql::collect(rete_sparql::query(
        rete, q, &opts,
    )?)?)
}

/// Runs the comparison; writes the JSON (and the Markdown section) where `args` says.
pub fn run(args: &Args) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let nt = social_nt(args.people)?;
    let named = build(dir.path(), "named", spread(&nt), Syntax::NQuads)?;
    let default = build(dir.path(), "default", nt, Syntax::NTriples)?;
    if named.quad_count() != default.quad_count() {
        bail!("the copies differ in size");
    }
    let mut out = Vec::new();
    for bq in queries::social() {
        if args
            .filter
            .as_ref()
            .is_some_and(|f| !bq.name.contains(f.as_str()))
        {
            continue;
        }
        eprint!("union / {} … ", bq.name);
        let expected = answer(&default, &bq.sparql, false)?;
        let got = answer(&named, &bq.sparql, true)?;
        let gate = check_gate(&bq, &expected, &got, "expected");
        let mut run = UnionRun {
            name: bq.name.into(),
            sparql: bq.sparql.clone(),
            rows: size(&expected),
            identical: gate.is_ok(),
            mismatch: gate.err().map(|m| m.chars().take(600).collect()),
            default_graph: None,
            union: None,
            ratio: None,
            ratio_cpu: None,
            index_count: bq.index_count,
        };
        (run.default_graph, run.union, run.ratio, run.ratio_cpu) = time_if_agreed(
            run.mismatch.as_deref(),
            args.runs,
            ("default graph", &mut || {
                Ok(size(&answer(&default, &bq.sparql, false)?))
            }),
            ("union", &mut || {
                Ok(size(&answer(&named, &bq.sparql, true)?))
            }),
        )?;
        out.push(run);
    }
    let env = UnionEnvelope {
        schema: "rete-bench/union/v1".into(),
        run: RunInfo::now(),
        runs: args.runs,
        people: args.people,
        quads: default.quad_count(),
        named_graphs: GRAPHS,
        geomean_ratio: geomean_of(out.iter().filter_map(|r| r.ratio)),
        geomean_ratio_cpu: geomean_of(out.iter().filter_map(|r| r.ratio_cpu)),
        geomean_ratio_without_index_counts: geomean_of(
            out.iter()
                .filter(|r| !r.index_count)
                .filter_map(|r| r.ratio),
        ),
        queries: out,
    };
    eprintln!(
        "geomean union / default graph: {:.3} (CPU time {:.3}; without index counts {:.3})",
        env.geomean_ratio, env.geomean_ratio_cpu, env.geomean_ratio_without_index_counts
    );
    let mismatches = env.queries.iter().filter(|q| !q.identical).count();
    match &args.json {
        Some(json) => {
            std::fs::write(json, serde_json::to_vec_pretty(&env)?)?;
            if let Some(md) = &args.markdown {
                crate::report::update_section(
                    md,
                    "<!-- union:start -->",
                    "<!-- union:end -->",
                    &render(&env, json),
                )?;
            }
        }
        None => println!("{}", serde_json::to_string_pretty(&env)?),
    }
    if mismatches > 0 {
        bail!("{mismatches} queries answered differently over the union");
    }
    Ok(())
}

fn render(env: &UnionEnvelope, json: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<!-- union:start -->");
    let _ = writeln!(
        s,
        "Generated from `{}` (schema `{}`) by `cargo run --release -p rete-bench -- --union --json {} --markdown docs/BENCHMARK.md`. The social data ({} people, {} quads) built twice: every triple in the default graph, and every subject's triples in one of {} named graphs (nothing in the default graph). Each of the social operator shapes runs with strict semantics on the first copy and with `union_default_graph` on the second; the answers must be identical before anything is timed. Median ± sd of {} warm runs after one untimed run, the two copies' runs alternating; {} logical CPUs, {} build. Ratio = union median / default-graph median (< 1.10: within the 10 % goal).\n",
        json.display(),
        env.schema,
        json.display(),
        env.people,
        env.quads,
        env.named_graphs,
        env.runs,
        env.run.cpus,
        env.run.profile
    );
    let _ = writeln!(
        s,
        "| Query | default graph | union of {} graphs | ratio | ratio (CPU time) | rows |",
        env.named_graphs
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
    let ms = |x: &Option<Stats>| match x {
        Some(s) => format!("{:.3} ±{:.3} ms", s.median_ms, s.sd_ms),
        None => "—".into(),
    };
    for r in &env.queries {
        let ratio = |x: Option<f64>| x.map_or("—".into(), |v| format!("{v:.2}"));
        let _ = writeln!(
            s,
            "| {}{} | {} | {} | {} | {} | {} |",
            r.name,
            if r.index_count { " †" } else { "" },
            ms(&r.default_graph),
            ms(&r.union),
            ratio(r.ratio),
            ratio(r.ratio_cpu),
            r.rows
        );
    }
    let _ = writeln!(
        s,
        "\nGeometric mean of the ratios: **{:.3}** (CPU time {:.3}); without the † queries {:.3}. † answered from the permutation directory's block counts on the default-graph copy (see above).",
        env.geomean_ratio, env.geomean_ratio_cpu, env.geomean_ratio_without_index_counts
    );
    let _ = writeln!(s, "<!-- union:end -->");
    s
}
