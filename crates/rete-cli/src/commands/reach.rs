//! `rete reach`: batch transitive reachability.

use crate::args::ReachArgs;
use crate::terms;
use anyhow::{bail, Result};
use rete_core::Rete;

pub fn run(rete: &Rete, a: &ReachArgs) -> Result<()> {
    let resolver = terms::Resolver::new(rete);
    let predicate = match resolver.parse(&a.predicate)? {
        oxrdf::Term::NamedNode(n) => n,
        other => bail!("the predicate must be an IRI, not {other}"),
    };
    let seeds = a
        .from
        .iter()
        .map(|s| resolver.parse(s))
        .collect::<Result<Vec<_>>>()?;
    let opts = rete_reason::ReachOptions {
        direction: if a.backward {
            rete_reason::Direction::Backward
        } else {
            rete_reason::Direction::Forward
        },
        max_depth: a.max_depth,
        include_seeds: a.include_seeds,
        parallel: a.parallel,
        collect: if a.terms {
            rete_reason::Collect::Terms
        } else {
            rete_reason::Collect::Count
        },
        ..Default::default()
    };
    let report = rete_reason::reach(rete, predicate.as_ref(), &seeds, &opts)?;
    super::print_json_or(&report, a.json, |out| {
        for s in &report.seeds {
            writeln!(out, "{}\t{}", s.seed, s.count)?;
            for t in s.terms.iter().flatten() {
                writeln!(out, "  {t}")?;
            }
        }
        Ok(())
    })
}
