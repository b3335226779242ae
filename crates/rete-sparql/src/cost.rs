//! What a query will fetch before it runs: for remote files the app shows this first.
//!
//! Every triple pattern is costed as the index range of its constants alone
//! ([`Rete::pattern_cost`]: the exact block bytes and requests of that range, given what the
//! reader has cached), inside the graph its `GRAPH` clause names. Joins only ever read sub-ranges
//! of those ranges, so the sum is an upper bound on the permutation blocks the query reads.
//! Complex property paths and `DESCRIBE` are bounded by whole predicate ranges (`partial`).
//! Resolving result ids to text reads dictionary blocks besides; their total size bounds that.

use crate::walk::try_for_each_child;
use crate::SparqlError;
use oxrdf::{NamedNode, Term};
use rete_core::format::kind;
use rete_core::{GraphMatch, Id, Pattern, Rete};
use serde::Serialize;
use spargebra::algebra::{Expression, GraphPattern, PropertyPathExpression};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;
use std::collections::{HashMap, HashSet};

/// The cost of one pattern of the query.
#[derive(Debug, Clone, Serialize)]
pub struct PatternCost {
    /// The pattern, constants in N-Triples syntax and `?` for anything else.
    pub pattern: String,
    /// Bytes of permutation blocks (and of the block directories, for the first pattern read
    /// from a freshly opened file).
    pub bytes: u64,
    /// Read requests.
    pub requests: u64,
    /// Permutation blocks.
    pub blocks: u64,
    /// `true` when a constant is not in the file: the pattern matches nothing and reads nothing.
    pub absent: bool,
    /// `true` when an identical pattern was counted already.
    pub repeated: bool,
}

/// What running a query will fetch at most.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CostEstimate {
    /// An upper bound on the bytes of permutation blocks read.
    pub bytes: u64,
    /// An upper bound on the read requests for them.
    pub requests: u64,
    /// Permutation blocks.
    pub blocks: u64,
    /// Upper bound on the dictionary bytes read to turn result ids into terms.
    pub dictionary_bytes: u64,
    /// Part of the query (complex property paths, `DESCRIBE`) was bounded coarsely.
    pub partial: bool,
    /// The query is one triple pattern, whose block cost is then exact.
    pub exact: bool,
    /// Per pattern, in query order.
    pub patterns: Vec<PatternCost>,
}

/// Estimates what `sparql` will fetch from `rete` with the default options (strict SPARQL: the
/// default graph is the file's default graph). Looking up the query's constants in the
/// dictionary reads the few blocks that hold them; those reads happen here, not in the estimate.
pub fn estimate_cost(
    rete: &Rete,
    sparql: &str,
    base_iri: Option<&str>,
) -> Result<CostEstimate, SparqlError> {
    estimate_query_cost(rete, &crate::parse(sparql, base_iri)?)
}

/// [`estimate_cost`] of an already parsed query.
pub fn estimate_query_cost(rete: &Rete, q: &Query) -> Result<CostEstimate, SparqlError> {
    estimate_query_cost_with(rete, q, &crate::QueryOptions::default())
}

/// [`estimate_cost`] of a query run with `opts` (its base IRI and
/// [`union_default_graph`](crate::QueryOptions::union_default_graph)).
pub fn estimate_cost_with(
    rete: &Rete,
    sparql: &str,
    opts: &crate::QueryOptions,
) -> Result<CostEstimate, SparqlError> {
    estimate_query_cost_with(rete, &crate::parse(sparql, opts.base_iri.as_deref())?, opts)
}

/// [`estimate_cost_with`] of an already parsed query. A pattern over the union default graph
/// reads the same permutation range as over the default graph (the graph is the last key);
/// over the default graph of a file whose default graph is empty it reads nothing.
pub fn estimate_query_cost_with(
    rete: &Rete,
    q: &Query,
    opts: &crate::QueryOptions,
) -> Result<CostEstimate, SparqlError> {
    let mut walk = Walk {
        rete,
        est: CostEstimate::default(),
        seen: HashSet::new(),
        ids: HashMap::new(),
    };
    // With its own dataset (FROM) a query reads named graphs' ranges: bounded by any graph.
    let default = if opts.union_default_graph || crate::has_dataset(q) {
        GraphMatch::Any
    } else {
        GraphMatch::Default
    };
    walk.pattern(crate::walk::query_pattern(q), default)?;
    if let Query::Describe { .. } = &q {
        // DESCRIBE reads the described resources' triples: at most every SPO block.
        walk.add("? ? ?".into(), Some(Pattern::default()))?;
        walk.est.partial = true;
    }
    let mut est = walk.est;
    est.exact = est.patterns.len() == 1 && !est.partial;
    est.dictionary_bytes = rete.section(kind::DICT_BLOCKS, 0).map_or(0, |e| e.len);
    Ok(est)
}

/// A pattern position: `Ok(None)` is a variable, `Ok(Some(id))` a constant of the file, `Err(())`
/// a constant the file does not have (the pattern matches nothing).
type Slot = Result<Option<Id>, ()>;

struct Walk<'a> {
    rete: &'a Rete,
    est: CostEstimate,
    seen: HashSet<Pattern>,
    ids: HashMap<Term, Option<Id>>,
}

impl Walk<'_> {
    fn id(&mut self, t: Term) -> Result<Slot, SparqlError> {
        if let Some(id) = self.ids.get(&t) {
            return Ok(id.ok_or(()).map(Some));
        }
        let id = self.rete.id_of(t.as_ref())?;
        self.ids.insert(t, id);
        Ok(id.ok_or(()).map(Some))
    }

    fn term(&mut self, t: &TermPattern) -> Result<Slot, SparqlError> {
        match t {
            TermPattern::NamedNode(n) => self.id(n.clone().into()),
            TermPattern::Literal(l) => self.id(l.clone().into()),
            _ => Ok(Ok(None)),
        }
    }

    fn named(&mut self, p: &NamedNodePattern) -> Result<Slot, SparqlError> {
        match p {
            NamedNodePattern::NamedNode(n) => self.id(n.clone().into()),
            NamedNodePattern::Variable(_) => Ok(Ok(None)),
        }
    }

    /// Counts `pattern` once; `None` is a pattern that cannot match.
    fn add(&mut self, text: String, pattern: Option<Pattern>) -> Result<(), SparqlError> {
        let mut pc = PatternCost {
            pattern: text,
            bytes: 0,
            requests: 0,
            blocks: 0,
            absent: pattern.is_none(),
            repeated: false,
        };
        if let Some(p) = pattern {
            if p.g == GraphMatch::Default && crate::union::default_graph_is_empty(self.rete) {
                // The evaluators read nothing for it (see `crate::union::scan`).
            } else if self.seen.insert(p) {
                let c = self.rete.pattern_cost(&p)?;
                (pc.bytes, pc.requests, pc.blocks) = (c.bytes, c.requests, c.blocks);
                self.est.bytes += c.bytes;
                self.est.requests += c.requests;
                self.est.blocks += c.blocks;
            } else {
                pc.repeated = true;
            }
        }
        self.est.patterns.push(pc);
        Ok(())
    }

    fn triple(&mut self, t: &TriplePattern, g: GraphMatch) -> Result<(), SparqlError> {
        let text = format!(
            "{} {} {}",
            show_term(&t.subject),
            show_named(&t.predicate),
            show_term(&t.object)
        );
        let (s, p, o) = (
            self.term(&t.subject)?,
            self.named(&t.predicate)?,
            self.term(&t.object)?,
        );
        self.add(text, build(s, p, o, g))
    }

    fn path(
        &mut self,
        s: &TermPattern,
        path: &PropertyPathExpression,
        o: &TermPattern,
        g: GraphMatch,
    ) -> Result<(), SparqlError> {
        if let PropertyPathExpression::NamedNode(p) = path {
            let text = format!("{} {p} {}", show_term(s), show_term(o));
            let (s, p, o) = (self.term(s)?, self.id(p.clone().into())?, self.term(o)?);
            return self.add(text, build(s, p, o, g));
        }
        // A complex path may walk any link of its predicates: bound it by their whole ranges.
        self.est.partial = true;
        let mut preds = Vec::new();
        collect_predicates(path, &mut preds);
        if preds.iter().any(Option::is_none) {
            return self.add("? ? ?".into(), build(Ok(None), Ok(None), Ok(None), g));
        }
        for p in preds.into_iter().flatten() {
            let text = format!("? {p} ?");
            let id = self.id(p.into())?;
            self.add(text, build(Ok(None), id, Ok(None), g))?;
        }
        Ok(())
    }

    fn pattern(&mut self, p: &GraphPattern, g: GraphMatch) -> Result<(), SparqlError> {
        match p {
            GraphPattern::Bgp { patterns } => {
                for t in patterns {
                    self.triple(t, g)?;
                }
            }
            GraphPattern::Path {
                subject,
                path,
                object,
            } => self.path(subject, path, object, g)?,
            GraphPattern::Join { left, right }
            | GraphPattern::Union { left, right }
            | GraphPattern::Minus { left, right }
            | GraphPattern::Lateral { left, right } => {
                self.pattern(left, g)?;
                self.pattern(right, g)?;
            }
            GraphPattern::LeftJoin {
                left,
                right,
                expression,
            } => {
                self.pattern(left, g)?;
                self.pattern(right, g)?;
                if let Some(e) = expression {
                    self.expression(e, g)?;
                }
            }
            GraphPattern::Filter { expr, inner } => {
                self.pattern(inner, g)?;
                self.expression(expr, g)?;
            }
            GraphPattern::Graph { name, inner } => {
                let g = match self.named(name)? {
                    Ok(Some(id)) => GraphMatch::Named(id),
                    Ok(None) => GraphMatch::AnyNamed,
                    // No such graph: nothing inside can match.
                    Err(()) => return Ok(()),
                };
                self.pattern(inner, g)?;
            }
            GraphPattern::Extend {
                inner, expression, ..
            } => {
                self.pattern(inner, g)?;
                self.expression(expression, g)?;
            }
            GraphPattern::OrderBy { inner, .. }
            | GraphPattern::Project { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Slice { inner, .. }
            | GraphPattern::Group { inner, .. }
            | GraphPattern::Service { inner, .. } => self.pattern(inner, g)?,
            GraphPattern::Values { .. } => {}
        }
        Ok(())
    }

    fn expression(&mut self, e: &Expression, g: GraphMatch) -> Result<(), SparqlError> {
        match e {
            Expression::Exists(p) => self.pattern(p, g),
            _ => try_for_each_child(e, |c| self.expression(c, g)),
        }
    }
}

fn build(s: Slot, p: Slot, o: Slot, g: GraphMatch) -> Option<Pattern> {
    let (Ok(s), Ok(p), Ok(o)) = (s, p, o) else {
        return None;
    };
    Some(Pattern::new(s, p, o).in_graph(g))
}

fn show_term(t: &TermPattern) -> String {
    match t {
        TermPattern::NamedNode(n) => n.to_string(),
        TermPattern::Literal(l) => l.to_string(),
        _ => "?".into(),
    }
}

fn show_named(p: &NamedNodePattern) -> String {
    match p {
        NamedNodePattern::NamedNode(n) => n.to_string(),
        NamedNodePattern::Variable(_) => "?".into(),
    }
}

/// The predicates a path can follow; `None` stands for "any predicate" (negated sets).
fn collect_predicates(path: &PropertyPathExpression, out: &mut Vec<Option<NamedNode>>) {
    match path {
        PropertyPathExpression::NamedNode(n) => out.push(Some(n.clone())),
        PropertyPathExpression::Reverse(p)
        | PropertyPathExpression::ZeroOrMore(p)
        | PropertyPathExpression::OneOrMore(p)
        | PropertyPathExpression::ZeroOrOne(p) => collect_predicates(p, out),
        PropertyPathExpression::Sequence(a, b) | PropertyPathExpression::Alternative(a, b) => {
            collect_predicates(a, out);
            collect_predicates(b, out);
        }
        PropertyPathExpression::NegatedPropertySet(_) => out.push(None),
    }
}
