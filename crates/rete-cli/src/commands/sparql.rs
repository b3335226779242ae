//! `rete sparql`: a SPARQL 1.1 query, with the file's and the well-known prefixes in effect.

use crate::args::SparqlArgs;
use anyhow::{bail, Context, Result};
use rete_core::vocab::Prefixes;
use rete_core::Rete;
use rete_sparql::{EmptyAnswerHint, QueryResults};
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
        union_default_graph: a.union_default_graph,
        service: crate::service_options(&a.allow_service),
        ..Default::default()
    };
    let prefixes = rete_schema::prefixes_in_effect(rete)?;
    let query = rete_sparql::parse_with_prefixes(&text, opts.base_iri.as_deref(), &prefixes)?;
    let results = rete_sparql::evaluate(rete, &query, &opts)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    // Counted as they stream, to explain an empty answer afterwards.
    let mut answered = 0u64;
    match results {
        QueryResults::Boolean(b) => {
            answered = u64::from(b);
            rete_sparql::write_boolean(b, a.format, &mut out)?;
        }
        QueryResults::Solutions(s) => {
            let vars = s.variables().to_vec();
            let rows = s.inspect(|_| answered += 1);
            rete_sparql::write_solutions(&vars, rows, |s| s.values(), a.format, &mut out)?;
        }
        QueryResults::Graph(t) => {
            rete_sparql::write_triples(t.inspect(|_| answered += 1), a.format, &mut out)?;
        }
    }
    out.flush()?;
    drop(out);
    if answered == 0 {
        if let Some(hint) = rete_sparql::empty_answer_hint(rete, &query, &opts)? {
            eprintln!("{}", hint_text(&hint, &prefixes));
        }
    }
    Ok(())
}

/// The hint after an empty answer, in the words of the command line.
fn hint_text(hint: &EmptyAnswerHint, prefixes: &Prefixes) -> String {
    let (why, graphs) = match hint {
        EmptyAnswerHint::EmptyDefaultGraph { named_graphs, .. } => {
            ("the default graph is empty".to_owned(), *named_graphs)
        }
        EmptyAnswerHint::OnlyInNamedGraphs {
            pattern,
            named_graphs,
        } => (
            format!(
                "no triple of the default graph matches {{ {} }}, triples of named graphs do",
                compact(pattern, prefixes)
            ),
            *named_graphs,
        ),
    };
    let s = if graphs == 1 { "" } else { "s" };
    format!(
        "note: {why}; this file's data is in {graphs} named graph{s} — use --union-default-graph, or GRAPH ?g {{ … }}"
    )
}

/// `pattern` with its `<IRI>`s written as prefixed names where a prefix in effect fits.
fn compact(pattern: &str, prefixes: &Prefixes) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(start) = rest.find('<') {
        let Some(len) = rest[start..].find('>') else {
            break;
        };
        out.push_str(&rest[..start]);
        let iri = &rest[start + 1..start + len];
        match prefixes.compact(iri) {
            Some((p, local)) => {
                out.push_str(p);
                out.push(':');
                out.push_str(local);
            }
            None => out.push_str(&rest[start..=start + len]),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}
