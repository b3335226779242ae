//! `rete search`: find terms by label ([`rete_search::Searcher`]).

use crate::args::SearchArgs;
use anyhow::{anyhow, bail, Context, Result};
use rete_core::Rete;
use rete_search::{Answer, Query, Searcher, Within};
use std::io::{BufWriter, Write};

pub fn run(rete: &Rete, a: &SearchArgs) -> Result<()> {
    let resolver = crate::terms::Resolver::new(rete);
    let class = match &a.class {
        None => None,
        Some(c) => match resolver
            .parse(c)
            .with_context(|| format!("invalid class {c:?}"))?
        {
            oxrdf::Term::NamedNode(n) => Some(n.into_string()),
            _ => bail!("--class takes an IRI (<iri> or prefix:name), not {c}"),
        },
    };
    let within = match &a.within {
        None => None,
        Some(w) => {
            let (l, c) = w
                .split_once(':')
                .and_then(|(l, c)| Some((l.trim().parse().ok()?, c.trim().parse().ok()?)))
                .ok_or_else(|| anyhow!("--within takes LEVEL:ID (two numbers), not {w:?}"))?;
            Some(Within {
                level: l,
                community: c,
            })
        }
    };
    let query = Query {
        text: a.text.clone(),
        kind: a
            .kind
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e: String| anyhow!(e))?,
        class,
        languages: a.lang.clone().unwrap_or_else(|| {
            // As `--help` says: the locale's languages, then English.
            let mut langs = rete_pyramid::lang::env_languages();
            if !langs.iter().any(|l| rete_pyramid::lang::matches("en", l)) {
                langs.push("en".to_owned());
            }
            langs
        }),
        limit: a.limit,
        within,
        label_predicate: None,
    };
    let searcher = Searcher::open(rete)?;
    // Ctrl-C stops a label scan (files without an index) with a message instead of a kill.
    let listening = crate::interrupt::listen()?;
    if a.spread {
        let spread = searcher.spread(&query, &listening.flag())?;
        drop(listening);
        return write_spread(&spread, a);
    }
    let answer = searcher.search(&query, &listening.flag())?;
    drop(listening);
    if !answer.indexed {
        eprintln!(
            "note: {} has no search index: its labels were scanned (`rete index FILE -o OUT` adds one)",
            rete.name()
        );
    } else if searcher
        .index()
        .is_some_and(rete_search::Index::is_outdated)
    {
        eprintln!(
            "note: {}'s search index has an older, slower layout (`rete index FILE -o OUT` writes the current one)",
            rete.name()
        );
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if a.json {
        serde_json::to_writer_pretty(&mut out, &answer)?;
        writeln!(out)?;
    } else {
        write_text(&mut out, rete, &answer)?;
    }
    out.flush()?;
    Ok(())
}

/// One line a hit: rank, term, label, class and pyramid path, tab-separated; a note on stderr
/// when the labels were scanned.
fn write_text(out: &mut impl Write, rete: &Rete, answer: &Answer) -> Result<()> {
    let prefixes = rete_schema::prefixes_in_effect(rete)?;
    let short = |nt: &str| -> String {
        nt.strip_prefix('<')
            .and_then(|s| s.strip_suffix('>'))
            .and_then(|iri| prefixes.compact(iri))
            .map_or_else(|| nt.to_owned(), |(p, l)| format!("{p}:{l}"))
    };
    writeln!(out, "rank\tterm\tlabel\tclass\tpath")?;
    for h in &answer.hits {
        let label = match &h.lang {
            Some(l) => format!("{:?}@{l}", h.label),
            None => format!("{:?}", h.label),
        };
        let class = h.class.as_deref().map_or_else(|| "-".to_owned(), short);
        // Coarsest level first, as one descends the map.
        let path = h.path.as_ref().map_or_else(
            || "-".to_owned(),
            |p| {
                p.iter()
                    .rev()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("/")
            },
        );
        writeln!(
            out,
            "{}\t{}\t{label}\t{class}\t{path}",
            h.rank,
            short(&h.term)
        )?;
    }
    Ok(())
}

/// Where the matches are, per level, top first: JSON, or a count line and a row a community.
fn write_spread(spread: &rete_search::Spread, a: &SearchArgs) -> Result<()> {
    let levels: Vec<serde_json::Value> = spread
        .levels
        .iter()
        .enumerate()
        .rev()
        .map(|(level, held)| {
            let mut held = held.clone();
            held.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
            let communities: Vec<serde_json::Value> = held
                .iter()
                .take(a.limit)
                .map(|&(id, n)| serde_json::json!({ "community": id, "matches": n }))
                .collect();
            serde_json::json!({ "level": level, "communities": held.len(), "top": communities })
        })
        .collect();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if a.json {
        let doc = serde_json::json!({
            "entities": spread.entities,
            "placed": spread.placed.len(),
            "schema_terms": spread.schema_terms,
            "complete": spread.complete,
            "levels": levels,
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        let at_least = if spread.complete { "" } else { "at least " };
        writeln!(
            out,
            "# {at_least}{} entities match ({} in the pyramid), {} classes or predicates",
            spread.entities,
            spread.placed.len(),
            spread.schema_terms
        )?;
        writeln!(out, "level\tcommunity\tmatches")?;
        for l in &levels {
            for c in l["top"].as_array().into_iter().flatten() {
                writeln!(out, "{}\t{}\t{}", l["level"], c["community"], c["matches"])?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
