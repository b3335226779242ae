//! SPARQL over an open document: running a query into a result kept in memory (pages go to the
//! UI on demand), drawing graph results, exporting them, the vocabulary for autocompletion, and
//! the read cost of a query before it runs.

use super::{AppError, AppResult, Doc};
use crate::key::NodeKey;
use crate::model::{
    CostEstimate, MapEdge, MapNode, MapView, NodeKind, QueryExample, QueryKind, SparqlContext,
    TermKind, TermView, ViewKind, Vocab,
};
use oxrdf::{Term, Triple, Variable};
use rete_sparql::{QueryOptions, QueryResults, ResultFormat, SparqlError};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rows kept from one query; beyond, the result is cut and says so.
pub const MAX_ROWS: usize = 1_000_000;
/// Bytes of terms kept from one query; beyond, the result is cut and says so.
pub const MAX_RESULT_BYTES: usize = 512 << 20;
/// Time a query may run when the pane sets no limit of its own.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Bytes a query may hold while it runs (rows, sort keys, groups).
pub const QUERY_MEMORY: usize = 2 << 30;
/// Triples of a CONSTRUCT/DESCRIBE result drawn as a graph.
pub const GRAPH_TRIPLES: usize = 2000;
/// Nodes of a graph result whose label literals are looked up (one read each at most).
const GRAPH_LABELS: usize = 600;

/// The answer to one query, kept whole so the UI can page through it and export it.
#[derive(Debug)]
pub struct QueryRun {
    /// What it answers with.
    pub kind: QueryKind,
    /// Column names (`subject`, `predicate`, `object` for graphs).
    pub columns: Vec<String>,
    /// Rows; `None` is an unbound cell.
    pub rows: Vec<Vec<Option<Term>>>,
    /// ASK answer.
    pub boolean: Option<bool>,
    /// Whether rows beyond [`MAX_ROWS`] were dropped.
    pub truncated: bool,
    /// Bytes of its rows, as counted against [`MAX_RESULT_BYTES`].
    pub bytes: usize,
    /// Wall time of evaluation and collection.
    pub elapsed_ms: f64,
    /// Why the answer is empty when the default graph is to blame (the file's data is in named
    /// graphs), in the app's words.
    pub hint: Option<String>,
}

impl Doc {
    /// The endpoints `sparql` calls with `SERVICE` (none when it does not parse: running it
    /// then reports the syntax error).
    pub fn query_services(&self, sparql: &str) -> Vec<String> {
        rete_sparql::parse_with_prefixes(sparql, None, &self.query_prefixes)
            .map(|q| rete_sparql::services(&q))
            .unwrap_or_default()
    }

    /// Runs `sparql`; past `timeout` (`None`: no limit) it fails with
    /// [`SparqlError::Timeout`], and past [`QUERY_MEMORY`] with [`SparqlError::TooLarge`].
    /// `SERVICE` calls go to the hosts `service` allows (`None`: refused).
    pub fn run_query_within(
        &self,
        sparql: &str,
        cancel: Arc<AtomicBool>,
        timeout: Option<Duration>,
        all_graphs: bool,
        service: Option<rete_sparql::ServiceOptions>,
    ) -> Result<QueryRun, SparqlError> {
        let start = Instant::now();
        let opts = QueryOptions {
            cancel: Some(cancel),
            deadline: timeout.map(|t| start + t),
            memory_limit: Some(QUERY_MEMORY),
            union_default_graph: all_graphs,
            service,
            ..QueryOptions::default()
        };
        // Kept rows are bounded in bytes as well as in count.
        let mut kept = RowBytes::new(MAX_RESULT_BYTES);
        let mut full = |row: &[Option<Term>]| !kept.admit(row_bytes(row));
        let query = rete_sparql::parse_with_prefixes(sparql, None, &self.query_prefixes)?;
        let results = rete_sparql::evaluate(&self.rete, &query, &opts)?;
        let mut run = QueryRun {
            kind: QueryKind::Select,
            columns: Vec::new(),
            rows: Vec::new(),
            boolean: None,
            truncated: false,
            bytes: 0,
            elapsed_ms: 0.0,
            hint: None,
        };
        match results {
            QueryResults::Boolean(b) => {
                run.kind = QueryKind::Ask;
                run.boolean = Some(b);
            }
            QueryResults::Solutions(solutions) => {
                let vars: Vec<Variable> = solutions.variables().to_vec();
                run.columns = vars.iter().map(|v| v.as_str().to_owned()).collect();
                for s in solutions {
                    let s = s?;
                    let row: Vec<Option<Term>> = vars.iter().map(|v| s.get(v).cloned()).collect();
                    if run.rows.len() == MAX_ROWS || full(&row) {
                        run.truncated = true;
                        break;
                    }
                    run.rows.push(row);
                }
            }
            QueryResults::Graph(triples) => {
                run.kind = QueryKind::Graph;
                run.columns = ["subject", "predicate", "object"]
                    .map(String::from)
                    .to_vec();
                for t in triples {
                    let t = t?;
                    let row = vec![
                        Some(t.subject.into()),
                        Some(t.predicate.into()),
                        Some(t.object),
                    ];
                    if run.rows.len() == MAX_ROWS || full(&row) {
                        run.truncated = true;
                        break;
                    }
                    run.rows.push(row);
                }
            }
        }
        run.bytes = kept.bytes;
        run.elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
        if run.rows.is_empty() && run.boolean != Some(true) {
            run.hint =
                rete_sparql::empty_answer_hint(&self.rete, &query, &opts)?.map(|h| hint_text(&h));
        }
        Ok(run)
    }

    /// A cell as the table shows it: short label, N-Triples, and the term's id in the file (0
    /// for literals and for terms the file does not have) so IRIs open their details.
    pub fn cell(&self, t: &Term) -> AppResult<TermView> {
        let (kind, label) = match t {
            Term::NamedNode(n) => (TermKind::Iri, self.short_iri(n.as_str())),
            Term::BlankNode(b) => (TermKind::Bnode, format!("_:{}", b.as_str())),
            Term::Literal(l) => (TermKind::Literal, l.value().to_owned()),
            #[allow(unreachable_patterns)]
            other => (TermKind::Literal, other.to_string()),
        };
        let id = if kind == TermKind::Literal {
            0
        } else {
            self.rete.id_of(t.as_ref())?.unwrap_or(0)
        };
        Ok(TermView {
            id,
            nt: t.to_string(),
            label,
            kind,
        })
    }

    /// Rows `offset..offset + limit` of a result.
    pub fn rows_page(
        &self,
        run: &QueryRun,
        offset: usize,
        limit: usize,
    ) -> AppResult<Vec<Vec<Option<TermView>>>> {
        let end = offset.saturating_add(limit).min(run.rows.len());
        let start = offset.min(end);
        run.rows[start..end]
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| c.as_ref().map(|t| self.cell(t)).transpose())
                    .collect()
            })
            .collect()
    }

    /// A graph result as map nodes and edges (the first [`GRAPH_TRIPLES`] triples; literal
    /// objects are left out of the drawing). Positions are left to the UI.
    pub fn graph_view(&self, run: &QueryRun) -> AppResult<MapView> {
        let mut keys: HashMap<Term, String> = HashMap::new();
        let mut nodes = Vec::new();
        let mut edges: HashMap<(String, String), (u64, String)> = HashMap::new();
        let mut truncated = run.truncated;
        let mut node_of = |t: &Term, nodes: &mut Vec<MapNode>| -> AppResult<String> {
            if let Some(k) = keys.get(t) {
                return Ok(k.clone());
            }
            let mut cell = self.cell(t)?;
            if cell.id > 0 && nodes.len() < GRAPH_LABELS {
                cell.label = self.label_of(cell.id, t)?;
            }
            // Terms of the file keep their map key so a click shows their details.
            let key = if cell.id > 0 {
                NodeKey::Entity(cell.id)
            } else {
                NodeKey::ResultTerm(keys.len())
            }
            .to_string();
            let class = if cell.id > 0 {
                self.class_nt(self.main_class(cell.id)?)?
            } else {
                None
            };
            nodes.push(MapNode {
                key: key.clone(),
                kind: NodeKind::Entity,
                label: cell.label,
                size: 1,
                class,
                x: None,
                y: None,
                r: None,
                expandable: false,
                level: None,
                id: cell.id,
                classes: Vec::new(),
            });
            keys.insert(t.clone(), key.clone());
            Ok(key)
        };
        for (i, row) in run.rows.iter().enumerate() {
            if i == GRAPH_TRIPLES {
                truncated = true;
                break;
            }
            let [Some(s), Some(p), Some(o)] = &row[..] else {
                continue;
            };
            if matches!(o, Term::Literal(_)) {
                node_of(s, &mut nodes)?;
                continue;
            }
            let a = node_of(s, &mut nodes)?;
            let b = node_of(o, &mut nodes)?;
            let label = match p {
                Term::NamedNode(n) => self.short_iri(n.as_str()),
                other => other.to_string(),
            };
            let e = edges.entry((a, b)).or_insert((0, label));
            e.0 += 1;
        }
        let mut edges: Vec<MapEdge> = edges
            .into_iter()
            .map(|((source, target), (weight, label))| MapEdge {
                source,
                target,
                weight,
                label,
            })
            .collect();
        edges.sort_by(|a, b| (&a.source, &a.target).cmp(&(&b.source, &b.target)));
        Ok(MapView {
            kind: ViewKind::QueryGraph,
            nodes,
            edges,
            note: String::new(),
            truncated,
        })
    }

    /// Prefixes, classes and predicates for the editor, and example queries built from the card.
    pub fn sparql_context(&self) -> AppResult<SparqlContext> {
        let card = self.rete.card()?;
        let mut prefixes: Vec<(String, String)> = self.prefixes.pairs();
        // The well-known prefixes queries may use, unless the file names their namespace itself.
        for (p, ns) in rete_core::vocab::WELL_KNOWN {
            if !prefixes.iter().any(|(q, n)| q == p || n == ns) {
                prefixes.push((p.to_owned(), ns.to_owned()));
            }
        }
        prefixes.sort();
        let iri_of = |nt: &str| {
            nt.strip_prefix('<')
                .and_then(|s| s.strip_suffix('>'))
                .map(str::to_owned)
        };
        let (classes, predicates) = match &self.schema {
            Some(s) => {
                // The schema's own labels, else short names.
                let vocab = |iri: &String, label: &Option<String>, count: u64| Vocab {
                    label: label.clone().unwrap_or_else(|| self.short_iri(iri)),
                    iri: iri.clone(),
                    count,
                };
                (
                    s.classes
                        .iter()
                        .map(|c| vocab(&c.iri, &c.label, c.total_instances))
                        .collect(),
                    s.properties
                        .iter()
                        .map(|p| vocab(&p.iri, &p.label, p.triples))
                        .collect(),
                )
            }
            None => {
                // The card's named counts with an IRI, short names as labels.
                let vocab = |list: &[rete_core::card::NamedCount]| -> Vec<Vocab> {
                    list.iter()
                        .filter_map(|c| {
                            Some(Vocab {
                                iri: iri_of(&c.term)?,
                                label: self.short_nt(&c.term),
                                count: c.count,
                            })
                        })
                        .collect()
                };
                (vocab(&card.classes), vocab(&card.predicates))
            }
        };
        let examples = self.examples(&prefixes)?;
        Ok(SparqlContext {
            prefixes,
            classes,
            predicates,
            examples,
        })
    }

    /// Example queries over the most used class and predicates of the card.
    fn examples(&self, prefixes: &[(String, String)]) -> AppResult<Vec<QueryExample>> {
        let card = self.rete.card()?;
        let name = |iri: &str| -> String {
            for (p, ns) in prefixes {
                if let Some(local) = iri.strip_prefix(ns.as_str()) {
                    if !local.is_empty()
                        && local
                            .chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                    {
                        return format!("{p}:{local}");
                    }
                }
            }
            format!("<{iri}>")
        };
        let iri = |nt: &str| nt.trim_start_matches('<').trim_end_matches('>').to_owned();
        let mut out = vec![
            QueryExample {
                title: "Classes by instances".into(),
                query: "SELECT ?class (COUNT(?s) AS ?instances)\nWHERE { ?s a ?class }\nGROUP BY ?class\nORDER BY DESC(?instances)".into(),
            },
            QueryExample {
                title: "Predicates by use".into(),
                query: "SELECT ?p (COUNT(*) AS ?triples)\nWHERE { ?s ?p ?o }\nGROUP BY ?p\nORDER BY DESC(?triples)".into(),
            },
        ];
        let label = self
            .label_preds
            .first()
            .map(|p| self.rete.term(*p))
            .transpose()?
            .and_then(|t| match t {
                Term::NamedNode(n) => Some(n.into_string()),
                _ => None,
            });
        if let Some(c) = card.classes.first() {
            let c = name(&iri(&c.term));
            let q = match &label {
                Some(l) => format!(
                    "SELECT ?s ?label\nWHERE {{\n  ?s a {c} .\n  OPTIONAL {{ ?s {} ?label }}\n}}\nLIMIT 1000",
                    name(l)
                ),
                None => format!("SELECT ?s\nWHERE {{ ?s a {c} }}\nLIMIT 1000"),
            };
            out.push(QueryExample {
                title: format!("Instances of {c}"),
                query: q,
            });
        }
        // The most used class → predicate → class relation of the schema, else the top class's
        // links to other resources.
        let relation = self.schema.as_ref().and_then(|s| {
            let r = s.relations.iter().max_by_key(|r| r.count)?;
            let d = s.classes.get(r.domain as usize)?;
            let g = s.classes.get(r.range as usize)?;
            Some((name(&d.iri), name(&r.predicate), name(&g.iri)))
        });
        if let Some((d, p, r)) = relation {
            out.push(QueryExample {
                title: format!("{d} {p} {r} (graph)"),
                query: format!(
                    "CONSTRUCT {{ ?a {p} ?b }}\nWHERE {{\n  ?a a {d} ; {p} ?b .\n  ?b a {r} .\n}}\nLIMIT 300"
                ),
            });
        } else if let Some(c) = card.classes.first() {
            let c = name(&iri(&c.term));
            out.push(QueryExample {
                title: format!("Links of {c} (graph)"),
                query: format!(
                    "CONSTRUCT {{ ?a ?p ?b }}\nWHERE {{\n  ?a a {c} ; ?p ?b .\n  FILTER(isIRI(?b) && ?p != rdf:type)\n}}\nLIMIT 300"
                ),
            });
        }
        out.push(QueryExample {
            title: "All triples".into(),
            query: "SELECT ?s ?p ?o\nWHERE { ?s ?p ?o }".into(),
        });
        Ok(out)
    }

    /// Upper bound of what running `sparql` will fetch ([`rete_sparql::estimate_cost`]).
    pub fn query_cost(&self, sparql: &str, all_graphs: bool) -> Result<CostEstimate, SparqlError> {
        let query = rete_sparql::parse_with_prefixes(sparql, None, &self.query_prefixes)?;
        let opts = QueryOptions {
            union_default_graph: all_graphs,
            ..QueryOptions::default()
        };
        let est = rete_sparql::estimate_query_cost_with(&self.rete, &query, &opts)?;
        Ok(CostEstimate {
            bytes: est.bytes,
            requests: est.requests,
            blocks: est.blocks,
            patterns: est.patterns.len(),
            absent: est.patterns.iter().filter(|p| p.absent).count(),
            partial: est.partial,
            error: None,
        })
    }
}

/// An empty answer's hint in the app's words (its switch "all graphs" is the way out).
fn hint_text(h: &rete_sparql::EmptyAnswerHint) -> String {
    use rete_sparql::EmptyAnswerHint as H;
    let graphs = |n: u64| {
        rete_core::human::plural(
            usize::try_from(n).unwrap_or(usize::MAX),
            "named graph",
            "named graphs",
        )
    };
    match h {
        H::EmptyDefaultGraph { named_graphs, .. } => format!(
            "The default graph is empty; this file's data is in {} — switch to all graphs, or use GRAPH ?g {{ … }}.",
            graphs(*named_graphs)
        ),
        H::OnlyInNamedGraphs {
            pattern,
            named_graphs,
        } => format!(
            "{pattern} matches nothing in the default graph but does in this file's {} — switch to all graphs, or use GRAPH ?g {{ … }}.",
            graphs(*named_graphs)
        ),
    }
}

/// The bytes of the rows a result keeps, up to a bound.
struct RowBytes {
    bytes: usize,
    max: usize,
}

impl RowBytes {
    fn new(max: usize) -> Self {
        Self { bytes: 0, max }
    }

    /// Counts a row of `b` bytes if it fits; `false` (nothing counted) when it does not.
    fn admit(&mut self, b: usize) -> bool {
        if self.bytes + b > self.max {
            return false;
        }
        self.bytes += b;
        true
    }
}

/// Bytes a kept row takes (its terms' strings and the cells).
fn row_bytes(row: &[Option<Term>]) -> usize {
    row.iter()
        .map(|c| {
            size_of::<Option<Term>>()
                + match c {
                    Some(Term::NamedNode(n)) => n.as_str().len(),
                    Some(Term::BlankNode(b)) => b.as_str().len(),
                    Some(Term::Literal(l)) => {
                        l.value().len()
                            + l.language().map_or(0, str::len)
                            + l.datatype().as_str().len()
                    }
                    _ => 0,
                }
        })
        .sum::<usize>()
        + size_of::<Vec<Option<Term>>>()
}

/// An export format of a kept result: one of rete-sparql's result formats (`csv`, `tsv`,
/// `json`, `xml`; graph results also `ntriples` / `turtle`), written by rete-sparql's writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportFormat(pub ResultFormat);

impl ExportFormat {
    /// Parses a format name (`csv`, `tsv`, `json`, `xml`, `ntriples`, `turtle`, …).
    pub fn from_name(name: &str) -> AppResult<Self> {
        match ResultFormat::from_name(name) {
            Some(ResultFormat::Table) | None => Err(AppError::Invalid(format!(
                "cannot export results as {name}"
            ))),
            Some(f) => Ok(Self(f)),
        }
    }
}

/// Writes a kept result with rete-sparql's writer: graph results as triples in a graph format,
/// or as `subject`/`predicate`/`object` solutions in a result format.
pub fn write_run(run: &QueryRun, format: ExportFormat, out: impl Write) -> AppResult<()> {
    let err = |e: SparqlError| AppError::Invalid(format!("cannot write results: {e}"));
    if let Some(b) = run.boolean {
        return rete_sparql::write_boolean(b, format.0, out).map_err(err);
    }
    if run.kind == QueryKind::Graph
        && matches!(format.0, ResultFormat::NTriples | ResultFormat::Turtle)
    {
        let triples = run.rows.iter().filter_map(|r| match &r[..] {
            [Some(Term::NamedNode(s)), Some(Term::NamedNode(p)), Some(o)] => {
                Some(Ok(Triple::new(s.clone(), p.clone(), o.clone())))
            }
            [Some(Term::BlankNode(s)), Some(Term::NamedNode(p)), Some(o)] => {
                Some(Ok(Triple::new(s.clone(), p.clone(), o.clone())))
            }
            _ => None,
        });
        return rete_sparql::write_triples(triples, format.0, out).map_err(err);
    }
    let vars = run
        .columns
        .iter()
        .map(|c| Variable::new(c.as_str()).map_err(|e| AppError::Invalid(e.to_string())))
        .collect::<AppResult<Vec<_>>>()?;
    rete_sparql::write_solutions(
        &vars,
        run.rows.iter().map(Ok),
        |r| r.as_slice(),
        format.0,
        out,
    )
    .map_err(err)
}

#[cfg(test)]
mod tests {
    use super::RowBytes;

    #[test]
    fn kept_rows_stop_at_the_byte_bound_and_count_only_what_is_kept() {
        let mut k = RowBytes::new(100);
        assert!(k.admit(60));
        assert!(k.admit(40));
        // The row that would go past the bound is refused and not counted.
        assert!(!k.admit(1));
        assert_eq!(k.bytes, 100);
        let mut k = RowBytes::new(100);
        assert!(k.admit(30));
        assert!(!k.admit(80));
        assert_eq!(k.bytes, 30);
    }
}
