//! Answers of two endpoints in one comparable form, and their comparison.
//!
//! Solutions are compared as multisets of rows (terms in N-Triples syntax). Where a template's
//! `ORDER BY` fixes the order, the sequence of sort keys must be equal too; rows whose key ties
//! with the first or the last row of a `LIMIT`ed answer are left out of the multiset, since
//! either engine may keep any of the tied rows. Graphs (DESCRIBE, CONSTRUCT; blank-node free
//! here) are compared as sorted N-Triples lines.

use anyhow::{bail, Context, Result};
use rete_datagen::bsbm::{Form, Template};
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};
use std::collections::BTreeMap;

/// One answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Solutions: the variables and each row's terms (`""` for unbound).
    Table(Vec<String>, Vec<Vec<String>>),
    /// Triples as sorted N-Triples lines.
    Graph(Vec<String>),
}

impl Answer {
    /// Rows or triples.
    pub fn len(&self) -> usize {
        match self {
            Answer::Table(_, rows) => rows.len(),
            Answer::Graph(g) => g.len(),
        }
    }

    /// A SPARQL JSON results document (SELECT) or a Turtle graph (DESCRIBE, CONSTRUCT).
    pub fn parse(form: Form, body: &[u8]) -> Result<Self> {
        if form != Form::Select {
            let mut lines = Vec::new();
            for t in oxttl::TurtleParser::new().for_slice(body) {
                lines.push(format!("{} .", t.context("the Turtle answer")?));
            }
            lines.sort();
            return Ok(Answer::Graph(lines));
        }
        match QueryResultsParser::from_format(QueryResultsFormat::Json)
            .for_slice(body)
            .context("the JSON results")?
        {
            SliceQueryResultsParserOutput::Boolean(_) => bail!("a boolean answer to a SELECT"),
            SliceQueryResultsParserOutput::Solutions(s) => {
                let vars: Vec<_> = s.variables().to_vec();
                let mut rows = Vec::new();
                for sol in s {
                    let sol = sol.context("the JSON results")?;
                    rows.push(
                        vars.iter()
                            .map(|v| sol.get(v).map(|t| t.to_string()).unwrap_or_default())
                            .collect(),
                    );
                }
                Ok(Answer::Table(
                    vars.iter().map(|v| v.as_str().to_owned()).collect(),
                    rows,
                ))
            }
        }
    }
}

/// Compares the answers of two engines to an instance of `t`; `Err` holds a readable diff.
pub fn compare(t: &Template, a: &Answer, b: &Answer) -> Result<(), String> {
    match (a, b) {
        (Answer::Graph(x), Answer::Graph(y)) => diff(x, y),
        (Answer::Table(va, ra), Answer::Table(vb, rb)) => {
            if va != vb {
                return Err(format!("variables differ: {va:?} / {vb:?}"));
            }
            let Some(key) = t.order_key else {
                return diff(&sorted(ra), &sorted(rb));
            };
            let k = va
                .iter()
                .position(|v| v == key)
                .ok_or_else(|| format!("no ?{key} among {va:?}"))?;
            let (ka, kb): (Vec<_>, Vec<_>) = (
                ra.iter().map(|r| r[k].clone()).collect(),
                rb.iter().map(|r| r[k].clone()).collect(),
            );
            if ka != kb {
                return Err(format!("the ?{key} order differs:\n  {ka:?}\n  {kb:?}"));
            }
            // A LIMIT may cut through rows tied on the key: those may differ.
            let cut = t.limit.is_some_and(|l| ra.len() >= l) || t.text.contains("OFFSET");
            let edge: Vec<&String> = if cut {
                ka.first().into_iter().chain(ka.last()).collect()
            } else {
                Vec::new()
            };
            let keep = |rows: &[Vec<String>]| {
                sorted(
                    &rows
                        .iter()
                        .filter(|r| !edge.contains(&&r[k]))
                        .cloned()
                        .collect::<Vec<_>>(),
                )
            };
            diff(&keep(ra), &keep(rb))
        }
        _ => Err("one answered a graph, the other solutions".into()),
    }
}

fn sorted(rows: &[Vec<String>]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|r| r.join("\t")).collect();
    v.sort();
    v
}

/// `Ok` when the two sorted lists are equal, else the lines only in one of them.
fn diff(a: &[String], b: &[String]) -> Result<(), String> {
    if a == b {
        return Ok(());
    }
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for x in a {
        *count.entry(x).or_default() += 1;
    }
    for x in b {
        *count.entry(x).or_default() -= 1;
    }
    let mut out = format!("{} rows / {} rows\n", a.len(), b.len());
    for (line, n) in count.iter().filter(|(_, n)| **n != 0).take(20) {
        let side = if *n > 0 { "only first " } else { "only second" };
        out.push_str(&format!("  {side} ×{}: {line}\n", n.abs()));
    }
    Err(out)
}
