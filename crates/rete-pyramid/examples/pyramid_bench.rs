//! Benchmark: builds a dataset with and without the pyramid and reports times, levels and
//! section sizes.
//!
//! ```text
//! cargo run --release -p rete-pyramid --example pyramid_bench -- data.nt [out-dir]
//! ```
//!
//! `PYRAMID_ZSTD=level` sets the zstd level of the stand-alone pyramid run.

use rete_build::{build, BuildOptions, Input};
use rete_core::Rete;
use rete_pyramid::{build_sections, Pyramid, PyramidExtension, PyramidOptions};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let input = PathBuf::from(args.next().ok_or("usage: pyramid_bench INPUT [OUT_DIR]")?);
    let out_dir = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let base_opts = BuildOptions {
        inputs: vec![Input::path(&input)],
        ..BuildOptions::default()
    };
    let plain = out_dir.join("bench-no-pyramid.rete");
    let t = Instant::now();
    let r0 = build(&base_opts, &plain)?;
    let t_plain = t.elapsed().as_secs_f64();
    let with = out_dir.join("bench-pyramid.rete");
    let opts = BuildOptions {
        extensions: vec![Arc::new(PyramidExtension::default())],
        ..base_opts.clone()
    };
    let t = Instant::now();
    let r1 = build(&opts, &with)?;
    let t_with = t.elapsed().as_secs_f64();
    println!("input: {} ({} quads)", input.display(), r0.quads);
    println!(
        "build --no-pyramid: {t_plain:.2} s, {} bytes",
        r0.file_bytes
    );
    println!(
        "build with pyramid: {t_with:.2} s, {} bytes (+{:.1} %)",
        r1.file_bytes,
        (r1.file_bytes as f64 / r0.file_bytes as f64 - 1.0) * 100.0
    );
    for (phase, ms) in &r1.phases {
        println!("  phase {phase}: {ms:.0} ms");
    }
    // The pyramid alone, on the plain file, with its own phase breakdown.
    let base = Rete::open_path(&plain)?;
    let mut popts = PyramidOptions::default();
    if let Ok(level) = std::env::var("PYRAMID_ZSTD") {
        popts.zstd_level = level.parse()?;
    }
    let t = Instant::now();
    let (_, stats) = build_sections(&base, &popts)?;
    println!(
        "pyramid alone: {:.2} s; {} entities, {} edges, {} triples",
        t.elapsed().as_secs_f64(),
        stats.entities,
        stats.edges,
        stats.triples
    );
    for (phase, ms) in &stats.phases {
        println!("  {phase}: {ms:.0} ms");
    }
    for l in &stats.levels {
        println!(
            "  level {}: {} communities, {} super-edges, modularity {:.4}, resolution {}, {}",
            l.level, l.communities, l.super_edges, l.modularity, l.resolution, l.method
        );
    }
    for s in &stats.sections {
        println!(
            "  section {} ({}): {} bytes stored, {} raw",
            s.kind, s.name, s.stored, s.raw
        );
    }
    // Reader costs.
    let rete = Rete::open_path(&with)?;
    let t = Instant::now();
    let p = Pyramid::open(&rete)?.ok_or("no pyramid")?;
    let top = p.level(p.levels() - 1)?;
    println!(
        "open + top level: {:.2} ms ({} communities)",
        t.elapsed().as_secs_f64() * 1e3,
        top.communities.len()
    );
    let t = Instant::now();
    let l0 = p.level(0)?;
    println!(
        "level 0: {:.1} ms ({} communities, {} edges)",
        t.elapsed().as_secs_f64() * 1e3,
        l0.communities.len(),
        l0.edges.len()
    );
    if p.levels() > 1 {
        let t = Instant::now();
        let ch = p.children(p.levels() - 1, 0)?;
        println!(
            "children of top community 0: {:.2} ms ({} communities)",
            t.elapsed().as_secs_f64() * 1e3,
            ch.communities.len()
        );
    }
    let t = Instant::now();
    let m = p.members(0)?;
    println!(
        "members of community 0: {:.2} ms ({} members)",
        t.elapsed().as_secs_f64() * 1e3,
        m.len()
    );
    if let Some(first) = m.first() {
        let t = Instant::now();
        let path = p.community_path(first.id)?;
        println!(
            "community path of {}: {:?} in {:.2} ms",
            first.term,
            path,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}
