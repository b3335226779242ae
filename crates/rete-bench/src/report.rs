//! Rendering the JSON envelope into the SPARQL section of `docs/BENCHMARK.md`.

use crate::{Envelope, QueryRun, Stats};
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

const START: &str = "<!-- sparql:start -->";
const END: &str = "<!-- sparql:end -->";

fn ms(s: &Option<Stats>) -> String {
    match s {
        Some(s) => format!("{} ±{}", fmt(s.median_ms), fmt(s.sd_ms)),
        None => "—".into(),
    }
}

fn fmt(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn table(out: &mut String, runs: &[&QueryRun]) {
    let _ = writeln!(
        out,
        "| Query | rete | Oxigraph | speedup | speedup (CPU time) | rows | gate |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---|");
    for r in runs {
        let speed = r.speedup.map_or("—".into(), |s| format!("{s:.2}×"));
        let cpu = r.speedup_cpu.map_or("—".into(), |s| format!("{s:.2}×"));
        let gate = if r.identical {
            format!("{} ✓", r.gate)
        } else {
            format!("{} ✗", r.gate)
        };
        let _ = writeln!(
            out,
            "| {} | {} ms | {} ms | {} | {} | {} | {} |",
            r.name,
            ms(&r.rete),
            ms(&r.oxigraph),
            speed,
            cpu,
            r.rows,
            gate
        );
    }
}

/// The Markdown section (between the markers) for `env`.
pub fn render(env: &Envelope, json: &Path) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{START}");
    let _ = writeln!(out, "## SPARQL: rete vs Oxigraph\n");
    let _ = writeln!(
        out,
        "Generated from `{}` (schema `{}`) by `cargo run --release -p rete-bench -- --json {} --markdown docs/BENCHMARK.md`. \
         Same data in both engines, one process; Oxigraph {}; {} logical CPUs; {} build; \
         median ± sd of {} warm runs after one untimed run, rete and Oxigraph runs alternating \
         (so both see the same background load); each run parses the query and \
         drains every result (terms decoded). Speedup = Oxigraph median / rete median \
         (> 1: rete is faster). No query is timed unless its answer passed the correctness gate \
         (`multiset`: identical result multisets, blank nodes up to renaming, in order under \
         ORDER BY; `count`: identical row counts, used for LIMIT without ORDER BY where the rows \
         picked may legitimately differ).\n",
        json.display(),
        env.schema,
        json.display(),
        env.oxigraph,
        env.run.cpus,
        env.run.profile,
        env.runs
    );
    let _ = writeln!(
        out,
        "| Dataset | quads | inferred | .rete bytes | build | rete open | Oxigraph load |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for d in &env.datasets {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} ms | {} ms | {} ms |",
            d.name,
            d.quads,
            d.inferred,
            d.file_bytes,
            fmt(d.build_ms),
            fmt(d.rete_open_ms),
            fmt(d.oxigraph_load_ms)
        );
    }
    let _ = writeln!(out);
    for (set, title) in [
        ("social", "Operator shapes on the social graph"),
        ("lubm-shapes", "Operator shapes on LUBM"),
        ("lubm", "The 14 LUBM queries"),
    ] {
        let runs: Vec<&QueryRun> = env.queries.iter().filter(|r| r.set == set).collect();
        if runs.is_empty() {
            continue;
        }
        let g = env
            .geomean
            .iter()
            .find(|(s, _)| s == set)
            .map_or(0.0, |(_, g)| *g);
        let _ = writeln!(out, "### {title} (geometric mean {g:.2}×)\n");
        table(&mut out, &runs);
        let _ = writeln!(out);
    }
    let all = env
        .geomean
        .iter()
        .find(|(s, _)| s == "all")
        .map_or(0.0, |(_, g)| *g);
    let losses: Vec<&QueryRun> = env
        .queries
        .iter()
        .filter(|r| r.speedup.is_some_and(|s| s < 1.0))
        .collect();
    let mismatches = env.queries.iter().filter(|r| !r.identical).count();
    let native = env
        .queries
        .iter()
        .filter(|r| r.evaluator == "native")
        .count();
    let _ = writeln!(
        out,
        "{native} of {} queries ran on the native evaluator.\n",
        env.queries.len()
    );
    let _ = writeln!(
        out,
        "**Standing:** geometric mean {all:.2}× over {} timed queries; {} slower than Oxigraph; {} failed the correctness gate.\n",
        env.queries.iter().filter(|r| r.speedup.is_some()).count(),
        losses.len(),
        mismatches
    );
    let counts = env.queries.iter().filter(|r| r.index_count).count();
    if let Some((_, g)) = env
        .geomean
        .iter()
        .find(|(s, _)| s == crate::WITHOUT_INDEX_COUNTS)
    {
        let _ = writeln!(
            out,
            "**Without the index-count shortcuts** (the {counts} single-pattern COUNT queries, which rete answers from the permutation directory's block counts, a different algorithm): geometric mean {g:.2}× over {} queries.\n",
            env.queries
                .iter()
                .filter(|r| r.speedup.is_some() && !r.index_count)
                .count()
        );
    }
    if let Some((_, g)) = env
        .geomean
        .iter()
        .find(|(s, _)| s == crate::SHAPES_WITHOUT_INDEX_COUNTS)
    {
        let _ = writeln!(
            out,
            "**Operator shapes alone** (social and LUBM, without the index-count shortcuts and without the 14 LUBM queries): geometric mean {g:.2}× over {} queries.\n",
            env.queries
                .iter()
                .filter(|r| r.speedup.is_some() && !r.index_count && crate::is_shape(r))
                .count()
        );
    }
    let cpu = |key: &str| {
        env.geomean
            .iter()
            .find(|(s, _)| *s == format!("{key}{}", crate::CPU))
            .map(|(_, g)| *g)
    };
    if let (Some(a), Some(b)) = (
        cpu(crate::WITHOUT_INDEX_COUNTS),
        cpu(crate::SHAPES_WITHOUT_INDEX_COUNTS),
    ) {
        let _ = writeln!(
            out,
            "**From thread CPU time** (the same runs; the time each engine's thread actually ran, without the time it waited for a core): {a:.2}× without the index-count shortcuts, {b:.2}× over the operator shapes alone.\n"
        );
    }
    let mut speedups: Vec<f64> = env.queries.iter().filter_map(|r| r.speedup).collect();
    speedups.sort_by(f64::total_cmp);
    if !speedups.is_empty() {
        let _ = writeln!(
            out,
            "Median speedup {:.2}×; slowest relative result {:.2}×.\n",
            speedups[speedups.len() / 2],
            speedups[0]
        );
    }
    if !losses.is_empty() {
        let _ = writeln!(
            out,
            "Slower than Oxigraph in this run: {}.\n",
            losses
                .iter()
                .map(|r| format!(
                    "{} / {} ({:.2}×)",
                    r.set,
                    r.name,
                    r.speedup.unwrap_or_default()
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    if !env.notes.is_empty() {
        let _ = writeln!(out, "### Reading the numbers\n");
        for n in &env.notes {
            let _ = writeln!(out, "- {n}");
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "{END}");
    out
}

/// Replaces the section between the markers in `md` (appending it if absent).
pub fn update_markdown(md: &Path, section: &str) -> Result<()> {
    update_section(md, START, END, section)
}

/// Replaces the part of `md` from `start` to `end` (markers included) with `section`, or
/// appends `section` when the markers are absent.
pub fn update_section(md: &Path, start: &str, end: &str, section: &str) -> Result<()> {
    let old = std::fs::read_to_string(md).unwrap_or_else(|_| "# Benchmarks\n".into());
    let new = match (old.find(start), old.find(end)) {
        (Some(s), Some(e)) if e > s => {
            format!(
                "{}{}{}",
                &old[..s],
                section.trim_end(),
                &old[e + end.len()..]
            )
        }
        _ => format!("{}\n{}", old.trim_end(), section),
    };
    if let Some(dir) = md.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)?;
        }
    }
    std::fs::write(md, new)?;
    Ok(())
}
