//! Bytes, requests and time of each coherence tier on the synthetic medical graph.
//!
//! `cargo run --release -p rete-coherence --example coherence_bench [--] [N …] [--show]
//! [--sample PATH] [--taxonomy K]`: for each instance count N (default 1000 10000 100000)
//! generates the graph, builds it with the schema block, and runs each tier on a cold view of the
//! file image through a counting reader. `--show` prints the Tier-2 report of the first size;
//! `--sample PATH` writes the Turtle source of the first size to PATH; `--taxonomy K` adds K
//! generated disease classes to the T-Box.

use anyhow::{bail, Context};
use rete_build::{build, BuildOptions, Input, Syntax};
use rete_coherence::{check, Tier};
use rete_core::human::bytes as human_bytes;
use rete_core::{MemReader, Rete};
use rete_datagen::medical::{planted, write_turtle, MedicalParams};
use rete_schema::{kind, Schema, SchemaExtension};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

fn ms(t: f64) -> String {
    if t < 1000.0 {
        format!("{t:.2} ms")
    } else {
        format!("{:.2} s", t / 1000.0)
    }
}

fn main() -> anyhow::Result<()> {
    let mut sizes = Vec::new();
    let mut show = false;
    let mut sample = None;
    let mut taxonomy = 0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--show" => show = true,
            "--sample" => sample = Some(args.next().context("--sample needs a path")?),
            "--taxonomy" => {
                taxonomy = args.next().context("--taxonomy needs a count")?.parse()?;
            }
            n => sizes.push(
                n.replace('_', "")
                    .parse::<u64>()
                    .context("instance count")?,
            ),
        }
    }
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000, 100_000];
    }
    let dir = tempfile::tempdir()?;
    println!("| instances | classes | triples | file | schema block (class section) | build (schema) | Tier 0 (schema block) | Tier 1 (selective) | Tier 2 (full) | findings 0/1/2 |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (i, &n) in sizes.iter().enumerate() {
        let params = MedicalParams {
            instances: n,
            taxonomy,
            ..MedicalParams::default()
        };
        let mut ttl = Vec::new();
        let triples = write_turtle(&params, &mut ttl)?;
        if i == 0 {
            if let Some(path) = &sample {
                std::fs::write(path, &ttl).with_context(|| path.clone())?;
            }
        }
        let out = dir.path().join(format!("medical-{n}.rete"));
        let t = Instant::now();
        let report = build(
            &BuildOptions {
                inputs: vec![Input::bytes("medical.ttl", ttl, Syntax::Turtle)],
                extensions: vec![Arc::new(SchemaExtension)],
                ..BuildOptions::default()
            },
            &out,
        )?;
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        let schema_ms = report
            .phases
            .iter()
            .find(|p| p.0 == "schema")
            .map_or(0.0, |p| p.1);
        let bytes = std::fs::read(&out)?;
        let file_len = bytes.len() as u64;
        let rete = Rete::open(Arc::new(MemReader::new(bytes, out.display().to_string())))?;
        let section = |k: u16| rete.section(k, 0).map_or(0, |e| e.len);
        let block = section(kind::CLASSES) + section(kind::PROPERTIES) + section(kind::STATISTICS);
        let classes = Schema::open(&rete)?.map_or(0, |s| s.classes.len());
        let cancel = AtomicBool::new(false);
        let mut cells = Vec::new();
        let mut counts = Vec::new();
        for tier in [Tier::Schema, Tier::Selective, Tier::Full] {
            // Each run opens its own cold view; the median of five runs is reported.
            let mut runs = Vec::new();
            for _ in 0..5 {
                runs.push(check(&rete, tier, &cancel)?);
            }
            runs.sort_by(|a, b| a.elapsed_ms.total_cmp(&b.elapsed_ms));
            let r = &runs[2];
            cells.push(format!(
                "{} · {} req · {}",
                human_bytes(r.bytes_read),
                r.requests,
                ms(r.elapsed_ms)
            ));
            counts.push(r.findings.len().to_string());
            if tier == Tier::Full {
                // Exactly the planted defects: the unsatisfiable class and the clashes.
                if r.findings.len() != planted(&params).len() + 1 {
                    bail!("unexpected findings:\n{r}");
                }
                for p in planted(&params) {
                    let found = r.findings.iter().any(|f| {
                        f.kind == p.kind
                            && p.entities
                                .iter()
                                .all(|e| f.entities.contains(&format!("<{e}>")))
                    });
                    if !found {
                        bail!("planted {} {:?} not found", p.kind, p.entities);
                    }
                }
                if show && i == 0 {
                    println!("{r}");
                }
            }
        }
        println!(
            "| {n} | {classes} | {triples} | {} | {} ({}) | {} ({}) | {} | {} | {} | {} |",
            human_bytes(file_len),
            human_bytes(block),
            human_bytes(section(kind::CLASSES)),
            ms(build_ms),
            ms(schema_ms),
            cells[0],
            cells[1],
            cells[2],
            counts.join("/")
        );
    }
    Ok(())
}
