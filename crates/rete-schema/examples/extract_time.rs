//! Measures schema extraction alone on a built file: time and peak memory (`VmHWM`).
//!
//! ```text
//! cargo run --release -p rete-schema --example extract_time -- data.rete
//! ```

use rete_schema::{extract, ExtractOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: extract_time FILE.rete")?;
    let rete = rete_core::Rete::open_path(&path)?;
    let t = std::time::Instant::now();
    let schema = extract(&rete, &ExtractOptions::default())?;
    let peak = std::fs::read_to_string("/proc/self/status")?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_owned()))
        .unwrap_or_default();
    println!(
        "schema: {:.2} s, peak {peak}, {} classes, {} relations, {} typed instances",
        t.elapsed().as_secs_f64(),
        schema.classes.len(),
        schema.relations.len(),
        schema.typed_instances
    );
    Ok(())
}
