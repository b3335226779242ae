//! `rete path`: the k shortest paths between two entities ([`rete_path::find_paths`]).

use crate::args::PathArgs;
use crate::terms::Resolver;
use anyhow::{bail, Result};
use oxrdf::{NamedNode, Term};
use rete_core::Rete;
use rete_path::{find_paths, DecodedReport, PathOptions};
use std::io::Write;
use std::time::{Duration, Instant};

fn iris(resolver: &Resolver<'_>, terms: &[String], what: &str) -> Result<Vec<NamedNode>> {
    terms
        .iter()
        .filter(|t| !t.trim().is_empty())
        .map(|t| match resolver.parse(t)? {
            Term::NamedNode(n) => Ok(n),
            other => bail!("{what} must be IRIs, not {other}"),
        })
        .collect()
}

pub fn run(rete: &Rete, a: &PathArgs) -> Result<()> {
    let resolver = Resolver::new(rete);
    let from = resolver.parse(&a.from)?;
    let to = resolver.parse(&a.to)?;
    let deadline = match a.timeout {
        Some(s) if !(s.is_finite() && s >= 0.0) => {
            bail!("--timeout takes a number of seconds, not {s}")
        }
        Some(s) => Some(Instant::now() + Duration::from_secs_f64(s.min(1e9))),
        None => None,
    };
    let opts = PathOptions {
        k: a.k,
        max_hops: a.max_hops,
        via: iris(&resolver, &a.via, "--via predicates")?,
        without: iris(&resolver, &a.without, "--without predicates")?,
        without_classes: iris(&resolver, &a.without_class, "--without-class classes")?,
        include_schema: a.schema,
        max_degree: a.max_degree,
        deadline,
        ..Default::default()
    };
    let report = find_paths(rete, from.as_ref(), to.as_ref(), &opts)?.decode(rete)?;
    super::print_json_or(&report, a.json, |mut out| {
        write_text(&mut out, &resolver, &report)
    })
}

/// Each path as its steps in path order: `from —predicate→ to` for a link along the path,
/// `from ←predicate— to` for one against it (`to` is then its subject).
fn write_text(out: &mut impl Write, r: &Resolver<'_>, report: &DecodedReport) -> Result<()> {
    for (i, path) in report.paths.iter().enumerate() {
        let hops = if path.hops == 1 { "hop" } else { "hops" };
        writeln!(out, "path {} · {} {hops}", i + 1, path.hops)?;
        for step in &path.steps {
            for (j, l) in step.links.iter().enumerate() {
                let lead = if j == 0 { "  " } else { "    also " };
                let (from, to) = if l.forward {
                    (&l.subject, &l.object)
                } else {
                    (&l.object, &l.subject)
                };
                let p = r.show(&l.predicate);
                let arrow = if l.forward {
                    format!("—{p}→")
                } else {
                    format!("←{p}—")
                };
                writeln!(out, "{lead}{} {arrow} {}", r.show(from), r.show(to))?;
            }
            if step.more_links > 0 {
                writeln!(out, "    and {} more links", step.more_links)?;
            }
        }
    }
    let n = report.paths.len();
    writeln!(
        out,
        "{n} path{} between {} and {}: {}",
        if n == 1 { "" } else { "s" },
        r.show(&report.from),
        r.show(&report.to),
        report.reason
    )?;
    Ok(())
}
