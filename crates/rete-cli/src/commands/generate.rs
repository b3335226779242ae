//! `rete generate`: synthetic datasets.

use crate::args::{Dataset, GenerateArgs};
use anyhow::{Context, Result};
use std::io::{BufWriter, Write};
use std::path::Path;

pub fn run(a: GenerateArgs) -> Result<()> {
    match a.dataset {
        Dataset::Social {
            people,
            seed,
            output,
        } => {
            let params = rete_datagen::social::SocialParams {
                people,
                seed,
                ..Default::default()
            };
            write(output.as_deref(), |out| {
                rete_datagen::social::write_ntriples(&params, out)
            })
        }
        Dataset::Bsbm {
            products,
            seed,
            output,
        } => {
            let params = rete_datagen::bsbm::BsbmParams { products, seed };
            write(output.as_deref(), |out| {
                rete_datagen::bsbm::write_ntriples(&params, out)
            })
        }
    }
}

/// Runs a generator into `output` (standard output when `None`), buffered.
fn write(
    output: Option<&Path>,
    generate: impl FnOnce(&mut BufWriter<Box<dyn Write>>) -> std::io::Result<u64>,
) -> Result<()> {
    let sink: Box<dyn Write> = match output {
        Some(p) => Box::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    generate(&mut out)?;
    out.flush()?;
    Ok(())
}
