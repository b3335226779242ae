//! `rete export`: the whole dataset as RDF.

use crate::args::{ExportArgs, ExportFormat};
use crate::terms;
use anyhow::{bail, Context, Result};
use rete_core::Rete;
use std::io::{BufWriter, Write};

pub fn run(rete: &Rete, a: &ExportArgs) -> Result<()> {
    let card = rete.card()?;
    if matches!(a.format, ExportFormat::Nt | ExportFormat::Ttl) && !card.graphs.is_empty() {
        bail!("{} has {} named graphs, which N-Triples and Turtle cannot hold: use --format nq or trig", a.file, card.graphs.len());
    }
    let sink: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let out = BufWriter::with_capacity(1 << 20, sink);
    terms::export(
        rete,
        out,
        matches!(a.format, ExportFormat::Ttl | ExportFormat::Trig),
        &card.prefixes,
    )?;
    Ok(())
}
