//! `rete sparql`: a SPARQL 1.1 query, with the file's and the well-known prefixes in effect.

use crate::args::SparqlArgs;
use anyhow::{bail, Context, Result};
use rete_core::Rete;
use std::io::{BufWriter, Write};

pub fn run(rete: &Rete, a: &SparqlArgs) -> Result<()> {
    let text = match (&a.query, &a.query_file) {
        (Some(q), _) => q.clone(),
        (None, Some(p)) if p.as_os_str() == "-" => std::io::read_to_string(std::io::stdin())?,
        (None, Some(p)) => {
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?
        }
        (None, None) => bail!("give a query or -f FILE"),
    };
    let opts = rete_sparql::QueryOptions {
        deadline: (a.timeout > 0.0).then(|| {
            std::time::Instant::now() + std::time::Duration::from_secs_f64(a.timeout.min(1e9))
        }),
        base_iri: a.base.clone(),
        ..Default::default()
    };
    let prefixes = rete_schema::prefixes_in_effect(rete)?;
    let query = rete_sparql::parse_with_prefixes(&text, opts.base_iri.as_deref(), &prefixes)?;
    let results = rete_sparql::evaluate(rete, &query, &opts)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    rete_sparql::write_results(results, a.format, &mut out)?;
    out.flush()?;
    Ok(())
}
