//! `rete cost`: what a pattern or a query will fetch.

use crate::args::CostArgs;
use anyhow::Result;
use rete_core::Rete;

pub fn run(rete: &Rete, a: &CostArgs) -> Result<()> {
    if let Some(q) = &a.sparql {
        let prefixes = rete_schema::prefixes_in_effect(rete)?;
        let query = rete_sparql::parse_with_prefixes(q, None, &prefixes)?;
        let estimate = rete_sparql::estimate_query_cost(rete, &query)?;
        println!("{}", serde_json::to_string_pretty(&estimate)?);
        return Ok(());
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
