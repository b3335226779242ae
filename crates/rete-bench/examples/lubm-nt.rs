//! Writes LUBM(N) (`rete_datagen::lubm`) and its ontology as N-Triples to standard output, for
//! the scale benchmark (`scripts/bench-scale.sh lubm:N`), which has no `rete generate lubm`.
//!
//! usage: cargo run --release -p rete-bench --example lubm-nt -- UNIVERSITIES > lubm.nt

use std::io::{BufWriter, Write};

fn main() -> anyhow::Result<()> {
    let universities: u32 = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => anyhow::bail!("usage: lubm-nt UNIVERSITIES"),
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    rete_datagen::lubm::write_ontology(&mut out)?;
    rete_datagen::lubm::write_ntriples(
        &rete_datagen::lubm::LubmParams {
            universities,
            seed: 0,
        },
        &mut out,
    )?;
    out.flush()?;
    Ok(())
}
