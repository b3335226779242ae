//! The SPARQL 1.1 Query suites: evaluation, syntax and result-format tests.

use crate::compare::{compare_answers, Answer, Table};
use crate::manifest::Test;
use crate::{Outcome, TestError};
use oxrdf::{GraphName, NamedNode, Variable};
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::Rete;
use rete_sparql::{QueryOptions, QueryResults, ResultFormat, SparqlError};
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};
use spargebra::algebra::{GraphPattern, OrderExpression};
use spargebra::Query;
use std::path::{Path, PathBuf};

/// Where the W3C publishes the SPARQL 1.1 test files; queries and data are parsed with their
/// public IRI as base, as the expected results assume.
pub const PUBLIC_BASE: &str = "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/";

/// Runs SPARQL tests against files under `root` (the `sparql/sparql11` folder).
#[derive(Debug)]
pub struct SparqlSuite {
    root: PathBuf,
    /// Evaluation tests that ran on the native evaluator.
    pub native: std::cell::Cell<usize>,
    /// Evaluation tests that ran on the generic evaluator, with the reason.
    pub generic: std::cell::RefCell<Vec<(String, String)>>,
}

impl SparqlSuite {
    /// A runner for the suite in `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            native: std::cell::Cell::new(0),
            generic: std::cell::RefCell::default(),
        }
    }

    /// The public IRI of a local test file.
    pub fn public_iri(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) => format!("{PUBLIC_BASE}{}", rel.display()),
            Err(_) => crate::manifest::path_to_iri(path),
        }
    }

    /// The local file of a public test IRI.
    pub fn local_path(&self, iri: &str) -> Option<PathBuf> {
        iri.strip_prefix(PUBLIC_BASE)
            .map(|rel| self.root.join(rel))
            .or_else(|| crate::manifest::iri_to_path(iri))
    }

    /// Runs one test.
    pub fn run(&self, t: &Test, tmp: &Path) -> Outcome {
        let r = match t.kind.as_str() {
            "QueryEvaluationTest" => self.evaluation(t, tmp, None),
            "CSVResultFormatTest" => self.evaluation(t, tmp, Some(ResultFormat::Csv)),
            "PositiveSyntaxTest11" | "PositiveSyntaxTest" => self.syntax(t, true),
            "NegativeSyntaxTest11" | "NegativeSyntaxTest" => self.syntax(t, false),
            other => return Outcome::Skip(format!("test type {other} is not a query test")),
        };
        match r {
            Ok(()) => Outcome::Pass,
            Err(e) => Outcome::Fail(e.to_string()),
        }
    }

    fn syntax(&self, t: &Test, positive: bool) -> Result<(), TestError> {
        let path = t
            .action
            .as_ref()
            .or(t.query.as_ref())
            .ok_or_else(|| TestError::Manifest(format!("{}: no query file", t.id)))?;
        let text = read_text(path)?;
        match (
            rete_sparql::parse(&text, Some(&self.public_iri(path))),
            positive,
        ) {
            (Ok(_), true) | (Err(_), false) => Ok(()),
            (Err(e), true) => Err(TestError::Failed(format!("rejected a valid query: {e}"))),
            (Ok(_), false) => Err(TestError::Failed("accepted an invalid query".into())),
        }
    }

    fn evaluation(
        &self,
        t: &Test,
        tmp: &Path,
        text_format: Option<ResultFormat>,
    ) -> Result<(), TestError> {
        let qpath = t
            .query
            .as_ref()
            .ok_or_else(|| TestError::Manifest(format!("{}: no qt:query", t.id)))?;
        let base = self.public_iri(qpath);
        let text = read_text(qpath)?;
        let q = rete_sparql::parse(&text, Some(&base))
            .map_err(|e| TestError::Failed(format!("parse: {e}")))?;
        let mut files: Vec<(PathBuf, GraphName)> = t
            .data
            .iter()
            .map(|p| (p.clone(), GraphName::DefaultGraph))
            .collect();
        for p in &t.graph_data {
            files.push((
                p.clone(),
                NamedNode::new_unchecked(self.public_iri(p)).into(),
            ));
        }
        // FROM / FROM NAMED: load the named files into graphs named by their IRIs.
        if let Some(ds) = query_dataset(&q) {
            for g in ds.default.iter().chain(ds.named.iter().flatten()) {
                let Some(p) = self.local_path(g.as_str()) else {
                    continue;
                };
                if !files
                    .iter()
                    .any(|(f, n)| f == &p && n == &GraphName::from(g.clone()))
                {
                    files.push((p, g.clone().into()));
                }
            }
        }
        let rete = self.build(&files, tmp)?;
        match rete_sparql::evaluator_for(&rete, &q) {
            Ok(rete_sparql::Evaluator::Native) => self.native.set(self.native.get() + 1),
            Ok(rete_sparql::Evaluator::Generic(why)) => {
                self.generic.borrow_mut().push((t.id.clone(), why));
            }
            Err(e) => return Err(TestError::Failed(format!("planning: {e}"))),
        }
        let results = rete_sparql::evaluate(&rete, &q, &QueryOptions::default())
            .map_err(|e| TestError::Failed(format!("evaluation: {e}")))?;
        let rpath = t
            .result
            .as_ref()
            .ok_or_else(|| TestError::Manifest(format!("{}: no mf:result", t.id)))?;
        if let Some(fmt) = text_format {
            let mut out = Vec::new();
            rete_sparql::write_results(results, fmt, &mut out)
                .map_err(|e| TestError::Failed(format!("writing: {e}")))?;
            let expected = read_text(rpath)?;
            let got = String::from_utf8_lossy(&out).into_owned();
            return if same_csv(&expected, &got) {
                Ok(())
            } else {
                Err(TestError::Failed(format!(
                    "output differs\nexpected:\n{expected}\ngot:\n{got}"
                )))
            };
        }
        let actual = collect(results).map_err(|e| TestError::Failed(format!("evaluation: {e}")))?;
        let expected = self.expected(rpath)?;
        compare_answers(&expected, &actual, &order_variables(&q)).map_err(TestError::Failed)?;
        // Result-format tests also check our own writer round-trips the answer.
        if let (Some(ext), Answer::Table(_) | Answer::Boolean(_)) =
            (rpath.extension().and_then(|e| e.to_str()), &actual)
        {
            if let Some((fmt, pfmt)) = match ext {
                "srj" => Some((ResultFormat::Json, QueryResultsFormat::Json)),
                "tsv" => Some((ResultFormat::Tsv, QueryResultsFormat::Tsv)),
                _ => None,
            } {
                let results = rete_sparql::evaluate(&rete, &q, &QueryOptions::default())
                    .map_err(|e| TestError::Failed(format!("evaluation: {e}")))?;
                let mut out = Vec::new();
                rete_sparql::write_results(results, fmt, &mut out)
                    .map_err(|e| TestError::Failed(format!("writing: {e}")))?;
                let back = parse_results(&out, pfmt)?;
                compare_answers(&expected, &back, &[])
                    .map_err(|e| TestError::Failed(format!("{fmt:?} round trip: {e}")))?;
            }
        }
        Ok(())
    }

    fn build(&self, files: &[(PathBuf, GraphName)], tmp: &Path) -> Result<Rete, TestError> {
        let mut inputs = Vec::new();
        for (path, graph) in files {
            let base = self.public_iri(path);
            let quads = crate::read_rdf(path, &base, graph)?;
            inputs.push(Input::bytes(
                path.display().to_string(),
                crate::nquads(&quads).into_bytes(),
                Syntax::NQuads,
            ));
        }
        if inputs.is_empty() {
            inputs.push(Input::bytes("empty", Vec::new(), Syntax::NQuads));
        }
        let out = tmp.join("data.rete");
        let opts = BuildOptions {
            inputs,
            zstd_level: 1,
            ..BuildOptions::default()
        };
        rete_build::build(&opts, &out).map_err(|e| TestError::Failed(format!("build: {e}")))?;
        Rete::open_path(&out).map_err(|e| TestError::Failed(format!("open: {e}")))
    }

    fn expected(&self, path: &Path) -> Result<Answer, TestError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let fmt = match ext {
            "srx" => QueryResultsFormat::Xml,
            "srj" => QueryResultsFormat::Json,
            "tsv" => QueryResultsFormat::Tsv,
            "csv" => QueryResultsFormat::Csv,
            _ => {
                let quads =
                    crate::read_rdf(path, &self.public_iri(path), &GraphName::DefaultGraph)?;
                return Ok(crate::rdf_result_set(&quads).unwrap_or_else(|| {
                    Answer::Graph(quads.into_iter().map(Into::into).collect())
                }));
            }
        };
        let bytes = std::fs::read(path).map_err(|e| TestError::io(path, e))?;
        parse_results(&bytes, fmt)
    }
}

fn parse_results(bytes: &[u8], fmt: QueryResultsFormat) -> Result<Answer, TestError> {
    let bad = |e: &dyn std::fmt::Display| TestError::Manifest(format!("results: {e}"));
    match QueryResultsParser::from_format(fmt)
        .for_slice(bytes)
        .map_err(|e| bad(&e))?
    {
        SliceQueryResultsParserOutput::Boolean(b) => Ok(Answer::Boolean(b)),
        SliceQueryResultsParserOutput::Solutions(s) => {
            let variables = s.variables().to_vec();
            let mut rows = Vec::new();
            for sol in s {
                let sol = sol.map_err(|e| bad(&e))?;
                rows.push(
                    variables
                        .iter()
                        .map(|v| sol.get(v).cloned())
                        .collect::<Vec<_>>(),
                );
            }
            Ok(Answer::Table(Table { variables, rows }))
        }
    }
}

/// Drains results into a comparable answer.
pub fn collect(results: QueryResults) -> Result<Answer, SparqlError> {
    Ok(match results {
        QueryResults::Boolean(b) => Answer::Boolean(b),
        QueryResults::Solutions(s) => {
            Answer::Table(Table::from_solutions(s.variables().to_vec(), s)?)
        }
        QueryResults::Graph(g) => Answer::Graph(g.collect::<Result<Vec<_>, _>>()?),
    })
}

fn read_text(path: &Path) -> Result<String, TestError> {
    let bytes = std::fs::read(path).map_err(|e| TestError::io(path, e))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn query_dataset(q: &Query) -> Option<&spargebra::algebra::QueryDataset> {
    match q {
        Query::Select { dataset, .. }
        | Query::Construct { dataset, .. }
        | Query::Describe { dataset, .. }
        | Query::Ask { dataset, .. } => dataset.as_ref(),
    }
}

/// Variables whose values must come in order: those of a top-level `ORDER BY` that sort by a
/// plain variable.
fn order_variables(q: &Query) -> Vec<Variable> {
    let Query::Select { pattern, .. } = q else {
        return Vec::new();
    };
    let mut p = pattern;
    loop {
        match p {
            GraphPattern::Project { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Slice { inner, .. } => p = inner,
            GraphPattern::OrderBy { expression, .. } => {
                let mut out = Vec::new();
                for o in expression {
                    let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = o;
                    match e {
                        spargebra::algebra::Expression::Variable(v) => out.push(v.clone()),
                        // Order of later keys is only meaningful within ties of this one.
                        _ => break,
                    }
                }
                return out;
            }
            _ => return Vec::new(),
        }
    }
}

/// CSV/TSV text equality up to row order and blank-node labels (the header must match exactly).
fn same_csv(a: &str, b: &str) -> bool {
    let lines = |s: &str| -> (String, Vec<String>) {
        let mut it = s.lines().map(|l| {
            // Blank-node labels are arbitrary: erase them.
            let mut out = String::new();
            let mut rest = l;
            while let Some(i) = rest.find("_:") {
                out.push_str(&rest[..i + 2]);
                rest = &rest[i + 2..];
                let end = rest.find([',', '\t', '"']).unwrap_or(rest.len());
                rest = &rest[end..];
            }
            out.push_str(rest);
            out
        });
        let head = it.next().unwrap_or_default();
        let mut body: Vec<String> = it.filter(|l| !l.is_empty()).collect();
        body.sort();
        (head, body)
    };
    lines(a) == lines(b)
}
