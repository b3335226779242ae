//! `rete verify`: every checksum, block and permutation.

use anyhow::Result;
use rete_core::Rete;

pub fn run(rete: &Rete) -> Result<()> {
    let r = rete.verify()?;
    println!(
        "ok: {} sections, {} blocks, {} quads, {} terms, {} bytes checked",
        r.sections, r.blocks, r.quads, r.terms, r.bytes
    );
    Ok(())
}
