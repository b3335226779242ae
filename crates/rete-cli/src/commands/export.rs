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
    let pretty = matches!(a.format, ExportFormat::Ttl | ExportFormat::Trig);
    match &a.output {
        // Written beside the destination and renamed onto it when complete: a full disk or an
        // error leaves no half-written file.
        Some(p) => {
            let file = rete_core::writer::AtomicFile::new(p, ".rete-export-")
                .with_context(|| format!("cannot create {}", p.display()))?;
            let mut out = BufWriter::with_capacity(1 << 20, file.file());
            // A failed write (full disk) names the file; a failed read keeps its own message.
            terms::export(rete, &mut out, pretty, &card.prefixes).map_err(|e| {
                if e.is::<std::io::Error>() {
                    e.context(format!("cannot write {}", p.display()))
                } else {
                    e
                }
            })?;
            out.flush()
                .with_context(|| format!("cannot write {}", p.display()))?;
            drop(out);
            file.commit()?;
        }
        None => {
            let out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
            terms::export(rete, out, pretty, &card.prefixes)?;
        }
    }
    Ok(())
}
