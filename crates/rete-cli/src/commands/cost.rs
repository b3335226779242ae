//! `rete cost`: what a pattern or a query will fetch.

use crate::args::CostArgs;
use anyhow::{bail, Result};
use rete_core::Rete;

pub fn run(rete: &Rete, a: &CostArgs) -> Result<()> {
    if let Some(q) = &a.sparql {
        let prefixes = rete_schema::prefixes_in_effect(rete)?;
        let query = rete_sparql::parse_with_prefixes(q, None, &prefixes)?;
        let opts = rete_sparql::QueryOptions {
            union_default_graph: a.union_default_graph,
            ..Default::default()
        };
        let estimate = rete_sparql::estimate_query_cost_with(rete, &query, &opts)?;
        println!("{}", serde_json::to_string_pretty(&estimate)?);
        return Ok(());
    }
    if a.union_default_graph {
        bail!("--union-default-graph goes with --sparql (a pattern reads the graph -g names, or every graph)");
    }
    let (bytes, requests, blocks) = match super::query::pattern(rete, &a.pattern)? {
        Some(p) => {
            let c = rete.pattern_cost(&p)?;
            (c.bytes, c.requests, c.blocks)
        }
        None => (0, 0, 0),
    };
    println!(
        "{{\"bytes\": {bytes}, \"requests\": {requests}, \"blocks\": {blocks}, \"exact\": true}}"
    );
    Ok(())
}
