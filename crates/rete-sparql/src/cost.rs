//! What a query will fetch before it runs: for remote files the app shows this first.
//!
//! Every triple pattern and property-path step of the query is costed as the index range of its
//! constants alone ([`Rete::pattern_cost`]: exact block bytes and requests for that range, given
//! what the reader has cached). Joins only ever read sub-ranges of those ranges, so the sum is an
//! upper bound on the permutation blocks the query reads. Resolving result terms to text reads
//! dictionary blocks besides; their total size bounds that part.

use crate::{walk, SparqlError};
use oxrdf::{NamedNode, Term};
use rete_core::format::kind;
use rete_core::{Pattern, Rete};
use serde::Serialize;
use spargebra::algebra::{GraphPattern, PropertyPathExpression};
use spargebra::term::{NamedNodePattern, TermPattern};

/// The cost of one pattern of the query.
#[derive(Debug, Clone, Serialize)]
pub struct PatternCost {
    /// The pattern, constants in N-Triples syntax and `?` for anything else.
    pub pattern: String,
    /// Bytes of permutation blocks (and directories, for the first pattern of a fresh file).
    pub bytes: u64,
    /// Read requests.
    pub requests: u64,
    /// Permutation blocks.
    pub blocks: u64,
}

/// What running a query will fetch at most.
#[derive(Debug, Clone, Serialize)]
pub struct CostEstimate {
    /// Sum over the patterns: an upper bound on the bytes of permutation blocks read.
    pub bytes: u64,
    /// Sum over the patterns: an upper bound on the read requests for them.
    pub requests: u64,
    /// Permutation blocks.
    pub blocks: u64,
    /// Upper bound on the dictionary bytes read to turn result ids into terms.
    pub dictionary_bytes: u64,
    /// `true` when the query is a single pattern, whose block cost is then exact.
    pub exact: bool,
    /// Per pattern.
    pub patterns: Vec<PatternCost>,
}

/// Estimates what `sparql` will fetch from `rete`. Looking up the query's constants in the
/// dictionary reads the few blocks that hold them; those reads happen here, not in the estimate.
pub fn estimate_cost(
    rete: &Rete,
    sparql: &str,
    base_iri: Option<&str>,
) -> Result<CostEstimate, SparqlError> {
    let query = crate::parse(sparql, base_iri)?;
    let mut shapes: Vec<(Option<Term>, Option<NamedNode>, Option<Term>)> = Vec::new();
    walk::visit_patterns(walk::query_pattern(&query), &mut |p| match p {
        GraphPattern::Bgp { patterns } => {
            for t in patterns {
                let pred = match &t.predicate {
                    NamedNodePattern::NamedNode(n) => Some(n.clone()),
                    NamedNodePattern::Variable(_) => None,
                };
                shapes.push((constant(&t.subject), pred, constant(&t.object)));
            }
        }
        GraphPattern::Path {
            subject,
            path,
            object,
        } => path_shapes(path, constant(subject), constant(object), &mut shapes),
        _ => {}
    });
    let single = shapes.len() == 1;
    let mut out = CostEstimate {
        bytes: 0,
        requests: 0,
        blocks: 0,
        dictionary_bytes: 0,
        exact: single,
        patterns: Vec::new(),
    };
    for (s, p, o) in shapes {
        let text = format!(
            "{} {} {}",
            s.as_ref().map_or("?".into(), ToString::to_string),
            p.as_ref().map_or("?".into(), ToString::to_string),
            o.as_ref().map_or("?".into(), ToString::to_string)
        );
        let id = |t: Option<Term>| -> Result<Option<Option<u64>>, SparqlError> {
            match t {
                None => Ok(Some(None)),
                Some(t) => Ok(rete.id_of(t.as_ref()).map_err(SparqlError::from)?.map(Some)),
            }
        };
        // A constant the file lacks makes the pattern match nothing: no block is read.
        let (Some(si), Some(pi), Some(oi)) = (id(s)?, id(p.map(Term::from))?, id(o)?) else {
            out.patterns.push(PatternCost {
                pattern: text,
                bytes: 0,
                requests: 0,
                blocks: 0,
            });
            continue;
        };
        let c = rete
            .pattern_cost(&Pattern::new(si, pi, oi))
            .map_err(SparqlError::from)?;
        out.bytes += c.bytes;
        out.requests += c.requests;
        out.blocks += c.blocks;
        out.patterns.push(PatternCost {
            pattern: text,
            bytes: c.bytes,
            requests: c.requests,
            blocks: c.blocks,
        });
    }
    out.dictionary_bytes = rete.section(kind::DICT_BLOCKS, 0).map_or(0, |e| e.len);
    Ok(out)
}

fn constant(t: &TermPattern) -> Option<Term> {
    match t {
        TermPattern::NamedNode(n) => Some(n.clone().into()),
        TermPattern::Literal(l) => Some(l.clone().into()),
        _ => None,
    }
}

/// The index ranges a path may read: each predicate step with the path's ends bound only where
/// the step touches them directly.
fn path_shapes(
    path: &PropertyPathExpression,
    s: Option<Term>,
    o: Option<Term>,
    out: &mut Vec<(Option<Term>, Option<NamedNode>, Option<Term>)>,
) {
    match path {
        PropertyPathExpression::NamedNode(p) => out.push((s, Some(p.clone()), o)),
        PropertyPathExpression::Reverse(inner) => path_shapes(inner, o, s, out),
        PropertyPathExpression::Sequence(a, b) => {
            path_shapes(a, s, None, out);
            path_shapes(b, None, o, out);
        }
        PropertyPathExpression::Alternative(a, b) => {
            path_shapes(a, s.clone(), o.clone(), out);
            path_shapes(b, s, o, out);
        }
        // Repetition walks the predicate's whole range.
        PropertyPathExpression::ZeroOrMore(inner)
        | PropertyPathExpression::OneOrMore(inner)
        | PropertyPathExpression::ZeroOrOne(inner) => path_shapes(inner, None, None, out),
        PropertyPathExpression::NegatedPropertySet(_) => out.push((s, None, o)),
    }
}
