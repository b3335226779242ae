//! `rete prefixes`: the prefixes in effect for a file, as `PREFIX` lines ready to paste.

use crate::args::InfoArgs;
use anyhow::Result;
use rete_core::Rete;
use std::io::{BufWriter, Write};

pub fn run(rete: &Rete, a: &InfoArgs) -> Result<()> {
    let prefixes = rete_schema::prefixes_in_effect(rete)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if a.json {
        let all: Vec<_> = prefixes.iter().collect();
        serde_json::to_writer_pretty(&mut out, &all)?;
        writeln!(out)?;
        return Ok(out.flush()?);
    }
    let width = prefixes
        .iter()
        .map(|p| p.prefix.len() + p.namespace.len())
        .max()
        .unwrap_or(0);
    for p in &prefixes {
        let decl = format!("PREFIX {}: <{}>", p.prefix, p.namespace);
        writeln!(out, "{decl:<w$}  # {}", p.origin, w = width + 11)?;
    }
    Ok(out.flush()?)
}
