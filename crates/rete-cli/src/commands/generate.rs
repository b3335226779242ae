//! `rete generate`: synthetic datasets.

use crate::args::{Dataset, GenerateArgs};
use anyhow::{Context, Result};
use std::io::{BufWriter, Write};

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
            let sink: Box<dyn Write> = match &output {
                Some(p) => Box::new(
                    std::fs::File::create(p)
                        .with_context(|| format!("cannot create {}", p.display()))?,
                ),
                None => Box::new(std::io::stdout().lock()),
            };
            let mut out = BufWriter::with_capacity(1 << 20, sink);
            rete_datagen::social::write_ntriples(&params, &mut out)?;
            out.flush()?;
        }
    }
    Ok(())
}
