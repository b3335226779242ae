//! One module per command; each has a `run` taking its parsed arguments.

pub mod build;
pub mod coherence;
pub mod cost;
pub mod export;
pub mod generate;
pub mod index;
pub mod info;
pub mod path;
pub mod prefixes;
pub mod query;
pub mod reach;
pub mod schema;
pub mod search;
pub mod serve;
pub mod shacl;
pub mod sparql;
pub mod summary;
pub mod verify;

use anyhow::Result;
use std::io::{BufWriter, Write};

/// Prints a report as pretty JSON or as its human-readable rendering.
pub fn print_report<T: serde::Serialize + std::fmt::Display>(report: &T, json: bool) -> Result<()> {
    print_json_or(report, json, |out| Ok(write!(out, "{report}")?))
}

/// Prints `report` as pretty JSON, or its text form written by `text`, to standard output.
pub fn print_json_or<T: serde::Serialize>(
    report: &T,
    json: bool,
    text: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if json {
        serde_json::to_writer_pretty(&mut out, report)?;
        writeln!(out)?;
    } else {
        text(&mut out)?;
    }
    Ok(out.flush()?)
}

/// Prints a JSON value pretty, or the text form.
pub fn print_json_or_text(
    json: Option<serde_json::Value>,
    text: &dyn std::fmt::Display,
) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match json {
        Some(v) => {
            serde_json::to_writer_pretty(&mut out, &v)?;
            writeln!(out)?;
        }
        None => write!(out, "{text}")?,
    }
    Ok(out.flush()?)
}
