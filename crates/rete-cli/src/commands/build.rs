//! `rete build`: RDF in, one `.rete` file out.

use crate::args::BuildArgs;
use crate::progress;
use anyhow::{bail, Result};
use rete_build::{BuildOptions, Input};
use std::sync::Arc;

pub fn run(a: BuildArgs) -> Result<()> {
    let mut inputs = Vec::new();
    for p in &a.inputs {
        if p.is_dir() {
            inputs.extend(rete_build::dir_inputs(p)?);
            continue;
        }
        let source = if p.as_os_str() == "-" {
            rete_build::Source::Stdin
        } else {
            rete_build::Source::Path(p.clone())
        };
        inputs.push(Input {
            source,
            syntax: a.format,
            compression: None,
        });
    }
    if inputs
        .iter()
        .any(|i| matches!(i.source, rete_build::Source::Stdin))
        && a.format.is_none()
    {
        bail!("reading standard input needs --format (nt, nq, ttl, trig, rdf or jsonld)");
    }
    // Ctrl-C / SIGTERM cancel the build, which then removes its temporary files.
    let listening = crate::interrupt::listen()?;
    let cancel = listening.flag();
    let progress: Arc<dyn rete_build::Progress> = if a.quiet {
        Arc::new(progress::Quiet(cancel))
    } else {
        Arc::new(progress::Bars::new(cancel))
    };
    let mut extensions: Vec<Arc<dyn rete_build::Extension>> = Vec::new();
    if !a.no_schema {
        extensions.push(Arc::new(rete_schema::SchemaExtension));
    }
    if !a.no_pyramid {
        // The pyramid holds its graph within the same budget as the base phases.
        extensions.push(Arc::new(rete_pyramid::PyramidExtension {
            options: rete_pyramid::PyramidOptions {
                memory_budget: a.memory_budget as u64,
                zstd_level: a.zstd_level,
                member_rounds: if a.no_member_layout {
                    0
                } else {
                    rete_pyramid::MEMBER_LAYOUT_ROUNDS
                },
                // Its temporary files (names, spilled links) go where the build's spills go.
                temp_dir: a.temp_dir.clone().or_else(|| {
                    a.output
                        .parent()
                        .filter(|p| !p.as_os_str().is_empty())
                        .map(std::path::Path::to_path_buf)
                }),
                ..rete_pyramid::PyramidOptions::default()
            },
        }));
    }
    if !a.no_search {
        let mut options = rete_search::SearchOptions {
            memory_budget: a.memory_budget as u64,
            zstd_level: a.zstd_level,
            ..rete_search::SearchOptions::default()
        };
        if let Some(p) = &a.label_predicates {
            options.label_predicates = p
                .iter()
                .map(|s| label_predicate(s))
                .collect::<Result<_>>()?;
        }
        extensions.push(Arc::new(rete_search::SearchExtension { options }));
    }
    let mut recorded = std::collections::BTreeMap::new();
    recorded.insert("search".to_owned(), serde_json::Value::Bool(!a.no_search));
    recorded.insert("pyramid".to_owned(), serde_json::Value::Bool(!a.no_pyramid));
    recorded.insert("schema".to_owned(), serde_json::Value::Bool(!a.no_schema));
    let materializer = match &a.materialize {
        Some(sets) => {
            let names: Vec<&str> = sets
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect();
            recorded.insert(
                "materialize".to_owned(),
                serde_json::Value::String(names.join(",")),
            );
            Some(Arc::new(rete_reason::Materializer::new(
                rete_reason::MaterializeOptions::with_rule_sets(&names)?,
            )))
        }
        None => None,
    };
    let opts = BuildOptions {
        inputs,
        extensions,
        recorded_options: recorded,
        inference: materializer
            .clone()
            .map(|m| m as Arc<dyn rete_build::Inference>),
        base_iri: a.base.clone(),
        memory_budget: a.memory_budget,
        temp_dir: a.temp_dir.clone(),
        zstd_level: a.zstd_level,
        perm_block_quads: a.block_quads,
        progress,
        ..BuildOptions::default()
    };
    let report = match rete_build::build(&opts, &a.output) {
        Err(rete_build::BuildError::Cancelled) => {
            eprintln!("rete build: cancelled; nothing written, temporary files removed");
            std::process::exit(130);
        }
        r => r?,
    };
    if let (false, Some(m)) = (a.quiet, materializer.as_ref().and_then(|m| m.last_report())) {
        let rules: Vec<String> = m
            .rules
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    serde_json::to_value(r.rule)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    r.quads
                )
            })
            .collect();
        eprintln!(
            "materialized {} new quads ({})",
            m.inferred,
            rules.join(", ")
        );
    }
    if !a.quiet {
        eprintln!(
            "wrote {}: {} quads, {} terms, {} bytes{}",
            a.output.display(),
            report.quads,
            report.terms,
            report.file_bytes,
            if report.spilled_runs > 0 {
                format!(" ({} spill runs)", report.spilled_runs)
            } else {
                String::new()
            }
        );
    }
    if a.report {
        print_report(&report);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

/// A label predicate of `--label-predicates`: `<iri>`, an IRI, or a well-known prefixed name
/// (`skos:prefLabel`; the file's own prefixes are not known before it is built).
pub(crate) fn label_predicate(s: &str) -> Result<String> {
    let s = s.trim().trim_start_matches('<').trim_end_matches('>');
    if let Some((p, local)) = s.split_once(':') {
        if !local.starts_with("//") {
            if let Some(ns) = rete_core::vocab::well_known(p) {
                return Ok(format!("{ns}{local}"));
            }
        }
    }
    oxrdf::NamedNode::new(s)
        .map(oxrdf::NamedNode::into_string)
        .map_err(|e| anyhow::anyhow!("--label-predicates: {s:?} is not an IRI ({e})"))
}

/// The per-phase table of `--report`, on stderr like the progress.
fn print_report(report: &rete_build::BuildReport) {
    eprintln!(
        "{:<28} {:>10} {:>14} {:>14}",
        "phase", "ms", "spilled bytes", "peak RSS MiB"
    );
    for (phase, ms) in &report.phases {
        let spilled = report
            .spill_bytes
            .iter()
            .find(|(p, _)| p == phase)
            .map_or_else(|| "-".to_owned(), |(_, b)| b.to_string());
        let peak = report
            .peak_rss
            .iter()
            .find(|(p, _)| p == phase)
            .map_or_else(|| "-".to_owned(), |(_, b)| (b >> 20).to_string());
        eprintln!("{phase:<28} {ms:>10.0} {spilled:>14} {peak:>14}");
        // An extension's own steps, indented under it.
        let prefix = format!("{phase}/");
        for (step, ms) in &report.steps {
            if let Some(step) = step.strip_prefix(&prefix) {
                eprintln!("  {step:<26} {ms:>10.0}");
            }
        }
    }
    eprintln!(
        "peak spill on disk {} bytes; runs: {} dictionary, {} quad chunks, {} permutation{}",
        report.peak_spill_bytes,
        report.dictionary_runs,
        report.quad_runs,
        report.permutation_runs,
        if report.permutations_one_at_a_time {
            "; permutations sorted and written one at a time"
        } else {
            ""
        }
    );
}
