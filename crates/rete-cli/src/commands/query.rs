//! `rete query`: one quad pattern, its matches or their number.

use crate::args::QueryArgs;
use crate::terms;
use anyhow::{Context, Result};
use rete_core::{GraphMatch, Pattern, Rete};
use std::io::{BufWriter, Write};

/// The pattern of `query`/`cost` options; `None` if a bound term is not in the file (matches
/// nothing).
pub fn pattern(rete: &Rete, a: &QueryArgs) -> Result<Option<Pattern>> {
    let resolver = terms::Resolver::new(rete);
    let mut missing = false;
    let mut id = |s: &Option<String>, what: &str| -> Result<Option<u64>> {
        match s {
            None => Ok(None),
            Some(s) => match resolver
                .id(s)
                .with_context(|| format!("invalid {what} {s:?}"))?
            {
                Some(id) => Ok(Some(id)),
                None => {
                    missing = true;
                    Ok(Some(0))
                }
            },
        }
    };
    let s = id(&a.subject, "subject")?;
    let p = id(&a.predicate, "predicate")?;
    let o = id(&a.object, "object")?;
    let g = match a.graph.as_deref() {
        None => GraphMatch::Any,
        Some("default") => GraphMatch::Default,
        Some(g) => match id(&Some(g.to_owned()), "graph")? {
            Some(0) | None => GraphMatch::Named(0),
            Some(id) => GraphMatch::Named(id),
        },
    };
    // A term absent from the dictionary matches nothing.
    Ok((!missing).then_some(Pattern { s, p, o, g }))
}

pub fn run(rete: &Rete, a: &QueryArgs) -> Result<()> {
    let pattern = pattern(rete, a)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let Some(pattern) = pattern else {
        if a.count {
            writeln!(out, "0")?;
        }
        return Ok(());
    };
    if a.count {
        let n = rete.count(&pattern)?;
        writeln!(out, "{}", a.limit.map_or(n, |l| n.min(l)))?;
        return Ok(());
    }
    let mut cache = terms::TermCache::new(rete);
    for q in rete
        .quads(&pattern)?
        .take(a.limit.map_or(usize::MAX, |l| l as usize))
    {
        cache.write_quad(&mut out, &q?)?;
    }
    out.flush()?;
    Ok(())
}
