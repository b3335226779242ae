//! The union default graph: the RDF merge of every graph of the file, default and named, so a
//! triple stated in several graphs is one triple of it.
//!
//! The graph is the last key of every permutation, so the copies of a triple in several graphs
//! are adjacent in any scan of a pattern: the scan itself drops a quad whose subject, predicate
//! and object equal those of the quad before it ([`Rete::triples`]), which merges the graphs in
//! the same single pass — no scan per graph and no set of seen triples.

use rete_core::{GraphMatch, Id, IdQuad, Pattern, QuadIter, Rete};

/// The graph a pattern is matched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum InGraph {
    /// Quads of the file in these graphs, as stored.
    Quads(GraphMatch),
    /// The union default graph: each triple once, whatever graphs state it.
    Union,
}

/// The quads of one pattern: as stored, or over the union each triple once with the default
/// graph as its graph; `None` when nothing can match (without reading anything).
#[derive(Debug)]
pub(crate) struct Scan(Option<QuadIter>);

/// Opens the scan of `s p o` in `graph`. A pattern over the default graph of a file whose card
/// says the default graph is empty reads nothing.
pub(crate) fn scan(
    rete: &Rete,
    s: Option<Id>,
    p: Option<Id>,
    o: Option<Id>,
    graph: InGraph,
) -> rete_core::Result<Scan> {
    let pattern = Pattern::new(s, p, o);
    Ok(match graph {
        InGraph::Quads(GraphMatch::Default) if default_graph_is_empty(rete) => Scan(None),
        InGraph::Quads(g) => Scan(Some(rete.quads(&pattern.in_graph(g))?)),
        InGraph::Union => Scan(Some(rete.triples(s, p, o)?)),
    })
}

/// Whether the card says the default graph holds no quad (a file without a readable card is
/// scanned as usual).
pub(crate) fn default_graph_is_empty(rete: &Rete) -> bool {
    rete.card()
        .is_ok_and(|c| c.default_graph_quads == 0 && c.quads > 0)
}

/// Whether the union holds each quad of the file as a distinct triple, so that counts over
/// every graph are counts of the union: the card says no triple is in two graphs, or at most
/// one graph has quads.
pub(crate) fn union_is_plain(rete: &Rete) -> rete_core::Result<bool> {
    let card = rete.card()?;
    if card.distinct_triples == Some(card.quads) {
        return Ok(true);
    }
    let filled = usize::from(card.default_graph_quads > 0)
        + card.graphs.iter().filter(|g| g.count > 0).count();
    Ok(filled <= 1)
}

impl Iterator for Scan {
    type Item = rete_core::Result<IdQuad>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.as_mut()?.next()
    }
}
