//! `rete shacl`: validate against SHACL shapes; the exit code says whether the data conforms.

use crate::args::{ShaclArgs, ShaclFormat};
use anyhow::{Context, Result};
use rete_core::Rete;
use rete_shacl::{Shapes, Summary, ValidateOptions};
use std::io::Write;

/// Reads the shapes graph from a file, a URL, or the dataset.
fn shapes_graph(rete: &Rete, shapes: Option<&str>) -> Result<oxrdf::Graph> {
    let Some(s) = shapes else {
        return Ok(rete_shacl::dataset_graph(rete)?);
    };
    if !rete_http::is_url(s) {
        return Ok(rete_shacl::read_graph(std::path::Path::new(s))?);
    }
    let format = rete_shacl::format_of(s).with_context(|| {
        format!("{s}: unknown RDF syntax (name ending .ttl, .nt, .rdf, .jsonld, …)")
    })?;
    let reader = crate::open_url(s)?.reader();
    let len = usize::try_from(reader.len())?;
    let bytes = reader.read_at(0, len)?;
    Ok(rete_shacl::parse_graph(&bytes[..], format, s)?)
}

/// Validates and prints; `Ok(true)` when the data conforms.
pub fn run(rete: &Rete, a: &ShaclArgs) -> Result<bool> {
    let graph = shapes_graph(rete, a.shapes.as_deref())?;
    let shapes = Shapes::from_graph(&graph)?;
    if shapes.is_empty() {
        anyhow::bail!(
            "no shapes found in {}",
            a.shapes.as_deref().unwrap_or("the dataset (give --shapes)")
        );
    }
    let report = rete_shacl::validate(rete, &shapes, &ValidateOptions::default())?;
    let rules = shapes.rules_not_run();
    if rules > 0 {
        // On stderr: stdout is the report, in the format asked for.
        eprintln!(
            "note: the shapes hold {} SHACL-AF rule{} (sh:rule), which infer triples and were not run: the data was validated as given",
            rules,
            if rules == 1 { "" } else { "s" }
        );
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        ShaclFormat::Text => write!(out, "{}", Summary::of(&report))?,
        ShaclFormat::Json => {
            // The summary and, for scripts, the rules said on stderr.
            let mut json = serde_json::to_value(Summary::of(&report))?;
            if let Some(o) = json.as_object_mut() {
                o.insert("rules_not_run".into(), rules.into());
            }
            serde_json::to_writer_pretty(&mut out, &json)?;
            writeln!(out)?;
        }
        ShaclFormat::Ttl => {
            report.write_turtle(&mut out)?;
        }
        ShaclFormat::Jsonld => {
            report.write_jsonld(&mut out)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(report.conforms)
}
