//! Measures the pyramid extension alone on a built file: time and peak memory (`VmHWM`).
//!
//! ```text
//! rete build data.nt -o base.rete --no-pyramid --no-schema
//! /usr/bin/time -v cargo run --release -p rete-pyramid --example pyramid_rss -- base.rete [BUDGET]
//! ```
//!
//! `BUDGET` is `PyramidOptions::memory_budget` in bytes (default: the default, 2 GiB);
//! `PYRAMID_CACHE=bytes` sets the reader's block cache, `PYRAMID_ZSTD=level` the zstd level.

use rete_core::Rete;
use rete_pyramid::{build_sections, PyramidOptions};

fn peak_kib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_owned())
        })
        .unwrap_or_default()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: pyramid_rss FILE [BUDGET_BYTES]")?;
    let mut opts = PyramidOptions::default();
    if let Some(b) = args.next() {
        opts.memory_budget = b.parse()?;
    }
    if let Ok(level) = std::env::var("PYRAMID_ZSTD") {
        opts.zstd_level = level.parse()?;
    }
    // PYRAMID_CACHE=bytes: the reader's block cache (default: rete-core's, 256 MiB).
    let rete = match std::env::var("PYRAMID_CACHE") {
        Ok(c) => Rete::open_with(
            std::sync::Arc::new(rete_core::FileReader::open(&path)?),
            rete_core::ReteOptions {
                cache_bytes: c.parse()?,
                ..rete_core::ReteOptions::default()
            },
        )?,
        Err(_) => Rete::open_path(&path)?,
    };
    println!("open: peak {}", peak_kib());
    let t = std::time::Instant::now();
    let (_, stats) = build_sections(&rete, &opts)?;
    println!(
        "pyramid: {:.1} s, peak {}, {} entities, {} edges, {} triples, {} levels, streamed sweeps {}, graph {} MB",
        t.elapsed().as_secs_f64(),
        peak_kib(),
        stats.entities,
        stats.edges,
        stats.triples,
        stats.levels.len(),
        stats.streamed_sweeps,
        stats.graph_bytes >> 20
    );
    for l in &stats.levels {
        println!(
            "  level {}: {} communities, {} super-edges, modularity {:.6} ({})",
            l.level, l.communities, l.super_edges, l.modularity, l.method
        );
    }
    for ((phase, ms), (_, peak)) in stats.phases.iter().zip(&stats.peak_rss) {
        println!("  {phase}: {ms:.0} ms, peak so far {} MB", peak >> 20);
    }
    for sec in &stats.sections {
        println!(
            "  section {} ({}): {} bytes stored",
            sec.kind, sec.name, sec.stored
        );
    }
    Ok(())
}
