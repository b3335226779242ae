//! `rete index`: a search index added to a file built without one ([`rete_search::add_index`]).

use crate::args::IndexArgs;
use anyhow::{bail, Result};

pub fn run(a: &IndexArgs) -> Result<()> {
    if rete_http::is_url(&a.file) {
        bail!(
            "{}: rete index writes a new file from a local one; download it first",
            a.file
        );
    }
    let mut options = rete_search::SearchOptions {
        memory_budget: a.memory_budget as u64,
        ..rete_search::SearchOptions::default()
    };
    if let Some(p) = &a.label_predicates {
        options.label_predicates = p
            .iter()
            .map(|s| super::build::label_predicate(s))
            .collect::<Result<_>>()?;
    }
    let stats = rete_search::add_index(std::path::Path::new(&a.file), &a.output, &options)?;
    eprintln!(
        "{}: {} labels indexed, {} distinct words",
        a.output.display(),
        stats.documents,
        stats.tokens
    );
    Ok(())
}
