//! Writing results: the W3C formats through sparesults, graphs through oxttl, and a plain-text
//! table for terminals.

use crate::{QueryResults, SparqlError};
use oxrdf::{Term, Triple, Variable};
use sparesults::{QueryResultsFormat, QueryResultsSerializer};
use std::io::Write;

/// An output format for [`write_results`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultFormat {
    /// SPARQL 1.1 Query Results JSON.
    Json,
    /// SPARQL Query Results XML.
    Xml,
    /// SPARQL 1.1 Query Results CSV.
    Csv,
    /// SPARQL 1.1 Query Results TSV.
    Tsv,
    /// An aligned plain-text table (graphs are written as N-Triples).
    Table,
    /// N-Triples (graph results only).
    NTriples,
    /// Turtle (graph results only).
    Turtle,
}

impl ResultFormat {
    /// Every format, for help texts.
    pub const NAMES: &'static [&'static str] =
        &["json", "xml", "csv", "tsv", "table", "ntriples", "turtle"];

    /// Parses a `--format` value (`json`, `xml`, `csv`, `tsv`, `table`, `nt`/`ntriples`,
    /// `ttl`/`turtle`; media types work too).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "json" | "srj" | "application/sparql-results+json" => Self::Json,
            "xml" | "srx" | "application/sparql-results+xml" => Self::Xml,
            "csv" | "text/csv" => Self::Csv,
            "tsv" | "text/tab-separated-values" => Self::Tsv,
            "table" | "text" | "txt" | "text/plain" => Self::Table,
            "nt" | "ntriples" | "n-triples" | "application/n-triples" => Self::NTriples,
            "ttl" | "turtle" | "text/turtle" => Self::Turtle,
            _ => return None,
        })
    }

    /// The media type of output in this format.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Json => "application/sparql-results+json",
            Self::Xml => "application/sparql-results+xml",
            Self::Csv => "text/csv",
            Self::Tsv => "text/tab-separated-values",
            Self::Table => "text/plain",
            Self::NTriples => "application/n-triples",
            Self::Turtle => "text/turtle",
        }
    }

    fn sparesults(self) -> Option<QueryResultsFormat> {
        Some(match self {
            Self::Json => QueryResultsFormat::Json,
            Self::Xml => QueryResultsFormat::Xml,
            Self::Csv => QueryResultsFormat::Csv,
            Self::Tsv => QueryResultsFormat::Tsv,
            _ => return None,
        })
    }
}

/// Writes `results` to `out` in `format`. Solutions and booleans go to json/xml/csv/tsv/table;
/// graphs to ntriples/turtle (or table, which writes N-Triples). Rows stream: memory does not
/// grow with the result, except that the table measures its columns on the first rows.
pub fn write_results(
    results: QueryResults,
    format: ResultFormat,
    mut out: impl Write,
) -> Result<(), SparqlError> {
    match results {
        QueryResults::Boolean(b) => write_boolean(b, format, &mut out)?,
        QueryResults::Solutions(solutions) => {
            let vars = solutions.variables().to_vec();
            write_solutions(&vars, solutions, |s| s.values(), format, &mut out)?;
        }
        QueryResults::Graph(triples) => write_triples(triples, format, &mut out)?,
    }
    out.flush()?;
    Ok(())
}

/// Writes an `ASK` answer (json, xml, csv, tsv or table).
pub fn write_boolean(
    b: bool,
    format: ResultFormat,
    mut out: impl Write,
) -> Result<(), SparqlError> {
    match (format, format.sparesults()) {
        (_, Some(f)) => {
            QueryResultsSerializer::from_format(f).serialize_boolean_to_writer(&mut out, b)?;
        }
        (ResultFormat::Table, _) => writeln!(out, "{b}")?,
        _ => {
            return Err(SparqlError::Format(format!(
                "an ASK result cannot be written as {format:?}; use json, xml, csv, tsv or table"
            )))
        }
    }
    Ok(())
}

/// Writes solutions (json, xml, csv, tsv or table): a stream of query results or rows kept in
/// memory. `cells` gives a row's values in the order of `variables` (`None`: unbound).
pub fn write_solutions<R, I>(
    variables: &[Variable],
    rows: I,
    cells: impl Fn(&R) -> &[Option<Term>],
    format: ResultFormat,
    mut out: impl Write,
) -> Result<(), SparqlError>
where
    I: IntoIterator<Item = Result<R, SparqlError>>,
{
    match (format, format.sparesults()) {
        (_, Some(f)) => {
            let mut w = QueryResultsSerializer::from_format(f)
                .serialize_solutions_to_writer(&mut out, variables.to_vec())?;
            for row in rows {
                let row = row?;
                w.serialize(
                    variables
                        .iter()
                        .zip(cells(&row))
                        .filter_map(|(v, t)| t.as_ref().map(|t| (v.as_ref(), t.as_ref()))),
                )?;
            }
            w.finish()?;
        }
        (ResultFormat::Table, _) => write_table(variables, rows, cells, &mut out)?,
        _ => {
            return Err(SparqlError::Format(format!(
                "SELECT results cannot be written as {format:?}; use json, xml, csv, tsv or table"
            )))
        }
    }
    Ok(())
}

/// Writes triples (ntriples, turtle, or table which writes N-Triples).
pub fn write_triples<I>(
    triples: I,
    format: ResultFormat,
    mut out: impl Write,
) -> Result<(), SparqlError>
where
    I: IntoIterator<Item = Result<Triple, SparqlError>>,
{
    match format {
        ResultFormat::NTriples | ResultFormat::Table => {
            let mut w = oxttl::NTriplesSerializer::new().for_writer(&mut out);
            for t in triples {
                w.serialize_triple(&t?)?;
            }
            w.finish();
        }
        ResultFormat::Turtle => {
            let mut w = oxttl::TurtleSerializer::new().for_writer(&mut out);
            for t in triples {
                w.serialize_triple(&t?)?;
            }
            w.finish()?;
        }
        _ => {
            return Err(SparqlError::Format(format!(
                "CONSTRUCT/DESCRIBE results cannot be written as {format:?}; use ntriples, turtle or table"
            )))
        }
    }
    Ok(())
}

/// Rows used to measure column widths; later rows reuse those widths (wider cells just overflow)
/// so the table streams.
const TABLE_MEASURE_ROWS: usize = 1000;

fn cell(t: Option<&Term>) -> String {
    t.map(ToString::to_string).unwrap_or_default()
}

fn write_table<R, I>(
    variables: &[Variable],
    rows: I,
    cells: impl Fn(&R) -> &[Option<Term>],
    out: &mut impl Write,
) -> Result<(), SparqlError>
where
    I: IntoIterator<Item = Result<R, SparqlError>>,
{
    let vars: Vec<String> = variables.iter().map(|v| v.to_string()).collect();
    let mut widths: Vec<usize> = vars.iter().map(|v| v.chars().count()).collect();
    let mut head: Vec<Vec<String>> = Vec::new();
    let mut rows = rows.into_iter();
    let mut count = 0u64;
    let row_cells = |s: &R| -> Vec<String> {
        let c = cells(s);
        (0..vars.len())
            .map(|i| cell(c.get(i).and_then(Option::as_ref)))
            .collect()
    };
    for s in rows.by_ref() {
        let r = row_cells(&s?);
        for (w, c) in widths.iter_mut().zip(&r) {
            *w = (*w).max(c.chars().count());
        }
        head.push(r);
        if head.len() >= TABLE_MEASURE_ROWS {
            break;
        }
    }
    let line = |out: &mut dyn Write, cells: &[String]| -> std::io::Result<()> {
        let mut s = String::from("|");
        for (c, w) in cells.iter().zip(&widths) {
            s.push(' ');
            s.push_str(c);
            for _ in c.chars().count()..*w {
                s.push(' ');
            }
            s.push_str(" |");
        }
        writeln!(out, "{s}")
    };
    let rule: String = {
        let mut s = String::from("+");
        for w in &widths {
            s.push_str(&"-".repeat(w + 2));
            s.push('+');
        }
        s
    };
    writeln!(out, "{rule}")?;
    line(out, &vars)?;
    writeln!(out, "{rule}")?;
    for r in &head {
        line(out, r)?;
        count += 1;
    }
    drop(head);
    for s in rows {
        let r = row_cells(&s?);
        line(out, &r)?;
        count += 1;
    }
    writeln!(out, "{rule}")?;
    writeln!(out, "{count} row{}", if count == 1 { "" } else { "s" })?;
    Ok(())
}
