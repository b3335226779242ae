//! Apache Jena's text-search property function, `?s text:query …` with
//! `PREFIX text: <http://jena.apache.org/text#>`: before planning, each such triple pattern (and
//! the triples of its argument list) is answered by the label search of `rete-search` and
//! replaced by inline data joined first, so the hits drive the index probes of the rest of the
//! group (the planner puts inline data first) and come in rank order.
//!
//! Forms, as in Jena: `?s text:query 'text'`, `?s text:query ('text' limit)`,
//! `?s text:query (property 'text')`, `?s text:query (property 'text' limit)`. Without a limit,
//! at most `rete_search::MAX_LIMIT` hits.

use crate::error::SparqlError;
use crate::walk::for_each_child_pattern_mut;
use rete_core::Rete;
use rete_search::{Query as SearchQuery, Searcher, MAX_LIMIT};
use spargebra::algebra::GraphPattern;
use spargebra::term::{GroundTerm, NamedNode, NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;
use std::sync::atomic::AtomicBool;

/// The property function's IRI.
pub const TEXT_QUERY: &str = "http://jena.apache.org/text#query";
const RDF_FIRST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first";
const RDF_REST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest";
const RDF_NIL: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil";

/// Whether `q` uses `text:query` anywhere.
pub(crate) fn uses_text_query(q: &Query) -> bool {
    let mut found = false;
    crate::walk::visit_patterns(crate::walk::query_pattern(q), &mut |p| {
        if let GraphPattern::Bgp { patterns } = p {
            found |= patterns.iter().any(is_text_query);
        }
    });
    found
}

fn is_text_query(t: &TriplePattern) -> bool {
    matches!(&t.predicate, NamedNodePattern::NamedNode(n) if n.as_str() == TEXT_QUERY)
}

/// `patterns` without their `text:query` triples and those of the argument lists: what the group
/// matches against the data (the search answers the rest from its index, over every graph).
pub(crate) fn data_patterns(patterns: &[TriplePattern]) -> Vec<TriplePattern> {
    let mut rest = patterns.to_vec();
    while let Some(i) = rest.iter().position(is_text_query) {
        let t = rest.remove(i);
        if let TermPattern::BlankNode(_) = &t.object {
            // A malformed list fails the query itself; here what was taken stays taken.
            let _ = take_list(&mut rest, &t.object);
        }
    }
    rest
}

/// `q` with every `text:query` answered; `None` when it has none.
pub(crate) fn rewrite(
    rete: &Rete,
    q: &Query,
    cancel: &AtomicBool,
) -> Result<Option<Query>, SparqlError> {
    if !uses_text_query(q) {
        return Ok(None);
    }
    let searcher = Searcher::open(rete).map_err(search_error)?;
    let mut q = q.clone();
    let pattern = match &mut q {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    let mut err = None;
    rewrite_pattern(pattern, &searcher, cancel, &mut err);
    match err {
        Some(e) => Err(e),
        None => Ok(Some(q)),
    }
}

fn rewrite_pattern(
    p: &mut GraphPattern,
    s: &Searcher,
    cancel: &AtomicBool,
    err: &mut Option<SparqlError>,
) {
    if err.is_some() {
        return;
    }
    if let GraphPattern::Bgp { patterns } = p {
        if patterns.iter().any(is_text_query) {
            match rewrite_bgp(patterns, s, cancel) {
                Ok(new) => *p = new,
                Err(e) => *err = Some(e),
            }
        }
        return;
    }
    for_each_child_pattern_mut(p, |c| rewrite_pattern(c, s, cancel, err));
}

/// The list starting at `head` (its items), removing its triples from `patterns`.
fn take_list(
    patterns: &mut Vec<TriplePattern>,
    head: &TermPattern,
) -> Result<Vec<TermPattern>, SparqlError> {
    let mut items = Vec::new();
    let mut node = head.clone();
    loop {
        if matches!(&node, TermPattern::NamedNode(n) if n.as_str() == RDF_NIL) {
            return Ok(items);
        }
        let take = |patterns: &mut Vec<TriplePattern>, pred: &str| -> Option<TermPattern> {
            let i = patterns.iter().position(|t| {
                t.subject == node
                    && matches!(&t.predicate, NamedNodePattern::NamedNode(n) if n.as_str() == pred)
            })?;
            Some(patterns.remove(i).object)
        };
        let (Some(first), Some(rest)) = (take(patterns, RDF_FIRST), take(patterns, RDF_REST))
        else {
            return Err(bad("its argument list is not a list"));
        };
        items.push(first);
        if items.len() > 8 {
            return Err(bad("its argument list is too long"));
        }
        node = rest;
    }
}

fn bad(what: &str) -> SparqlError {
    SparqlError::Unsupported(format!(
        "text:query: {what} (expected ?s text:query 'text', ('text' limit), (property 'text') or (property 'text' limit))"
    ))
}

fn rewrite_bgp(
    patterns: &[TriplePattern],
    s: &Searcher,
    cancel: &AtomicBool,
) -> Result<GraphPattern, SparqlError> {
    let mut rest: Vec<TriplePattern> = patterns.to_vec();
    let mut values: Vec<GraphPattern> = Vec::new();
    while let Some(i) = rest.iter().position(is_text_query) {
        let t = rest.remove(i);
        let TermPattern::Variable(var) = &t.subject else {
            return Err(bad("its subject must be a variable"));
        };
        let args = match &t.object {
            TermPattern::Literal(_) => vec![t.object.clone()],
            TermPattern::BlankNode(_) => take_list(&mut rest, &t.object)?,
            _ => return Err(bad("its object must be a string or a list")),
        };
        let mut q = SearchQuery::new(String::new());
        q.limit = MAX_LIMIT;
        let mut it = args.into_iter().peekable();
        if let Some(TermPattern::NamedNode(p)) = it.peek() {
            q.label_predicate = Some(p.as_str().to_owned());
            it.next();
        }
        match it.next() {
            Some(TermPattern::Literal(l))
                if l.language().is_some() || l.datatype() == oxrdf::vocab::xsd::STRING =>
            {
                l.value().clone_into(&mut q.text)
            }
            _ => return Err(bad("the search text must be a string")),
        }
        if let Some(lim) = it.next() {
            let n = match &lim {
                TermPattern::Literal(l) => l.value().parse::<usize>().ok(),
                _ => None,
            };
            q.limit = n
                .ok_or_else(|| bad("the limit must be a number"))?
                .min(MAX_LIMIT);
        }
        if it.next().is_some() {
            return Err(bad("too many arguments"));
        }
        let answer = s.search(&q, cancel).map_err(search_error)?;
        let bindings = answer
            .hits
            .iter()
            .filter_map(|h| {
                // Inline data cannot hold blank nodes: such hits are left out.
                let iri = h.term.strip_prefix('<')?.strip_suffix('>')?;
                Some(vec![Some(GroundTerm::NamedNode(NamedNode::new_unchecked(
                    iri,
                )))])
            })
            .collect();
        values.push(GraphPattern::Values {
            variables: vec![var.clone()],
            bindings,
        });
    }
    let mut out = GraphPattern::Bgp { patterns: rest };
    // Inline data on the left: joined first.
    for v in values.into_iter().rev() {
        out = GraphPattern::Join {
            left: Box::new(v),
            right: Box::new(out),
        };
    }
    Ok(out)
}

fn search_error(e: rete_search::SearchError) -> SparqlError {
    match e {
        rete_search::SearchError::Cancelled => SparqlError::Cancelled,
        rete_search::SearchError::Format(e) => SparqlError::Store(e),
        e => SparqlError::Evaluation(format!("text:query: {e}")),
    }
}
