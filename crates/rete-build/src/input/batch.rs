//! Parsed quads in transit: the batches of encoded quads the parsing threads hand to the
//! interning thread, and the renaming of blank nodes that makes their labels depend only on the
//! input and the order of first appearance.

use crate::BuildError;
use oxrdf::{BlankNodeRef, GraphNameRef, QuadRef, TermRef};
use rete_core::term;
use rustc_hash::FxHashMap;

/// Bytes of encoded terms after which a batch is handed to the interner.
const BATCH_BYTES: usize = 1 << 18;

/// Parsed quads with their terms encoded ([`term::encode_into`]), in input order; blank nodes
/// keep the parser's labels until [`Renamer::feed`]. Parsing threads hand these to the thread
/// that interns.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Batch {
    terms: Vec<u8>,
    /// End of each term in `terms`, four per quad: subject, predicate, object, graph (empty for
    /// the default graph).
    ends: Vec<usize>,
}

impl Batch {
    fn push_term(&mut self, t: TermRef<'_>) -> Result<(), BuildError> {
        let start = self.terms.len();
        term::encode_into(t, &mut self.terms).map_err(|e| BuildError::Invalid(e.to_string()))?;
        // Refused here, as it is parsed, rather than when the dictionary is written.
        if self.terms.len() - start > rete_core::format::MAX_TERM_LEN {
            let message = rete_core::dict::term_too_long(&self.terms[start..]);
            self.terms.truncate(start);
            return Err(BuildError::Invalid(message));
        }
        self.ends.push(self.terms.len());
        Ok(())
    }

    /// Appends a quad; on error the batch is left as it was.
    pub(crate) fn push(&mut self, q: QuadRef<'_>) -> Result<(), BuildError> {
        let (bytes, ends) = (self.terms.len(), self.ends.len());
        let r = self
            .push_term(q.subject.into())
            .and_then(|()| self.push_term(q.predicate.into()))
            .and_then(|()| self.push_term(q.object))
            .and_then(|()| match q.graph_name {
                GraphNameRef::DefaultGraph => {
                    self.ends.push(self.terms.len());
                    Ok(())
                }
                GraphNameRef::NamedNode(n) => self.push_term(n.into()),
                GraphNameRef::BlankNode(b) => self.push_term(b.into()),
            });
        if r.is_err() {
            self.terms.truncate(bytes);
            self.ends.truncate(ends);
        }
        r
    }

    /// Quads in the batch.
    pub(crate) fn len(&self) -> usize {
        self.ends.len() / 4
    }

    pub(super) fn is_full(&self) -> bool {
        self.terms.len() >= BATCH_BYTES
    }

    /// The encoded terms of quad `i` (the graph empty for the default graph).
    fn quad(&self, i: usize) -> [&[u8]; 4] {
        let term = |k: usize| {
            let start = if k == 0 { 0 } else { self.ends[k - 1] };
            &self.terms[start..self.ends[k]]
        };
        [
            term(4 * i),
            term(4 * i + 1),
            term(4 * i + 2),
            term(4 * i + 3),
        ]
    }

    /// Calls `sink` on each quad, blank nodes as they are (materialized quads).
    pub(crate) fn feed_raw(&self, sink: &mut QuadSink<'_>) -> Result<(), BuildError> {
        (0..self.len()).try_for_each(|i| sink(self.quad(i)))
    }
}

/// Receives each quad's encoded subject, predicate, object and graph (empty for the default
/// graph), in input order.
pub(crate) type QuadSink<'a> = dyn FnMut([&[u8]; 4]) -> Result<(), BuildError> + 'a;

/// Gives blank nodes labels that depend only on the input number and the order of first
/// appearance, so builds are reproducible (parsers mint random labels for `[]`) and blank nodes
/// of different inputs never merge. Runs on the interning thread, in input order, so the labels
/// do not depend on how parsing was split over threads.
pub(super) struct Renamer {
    input: usize,
    /// First byte of an encoded blank node.
    tag: u8,
    /// Encoded parser label → encoded new label.
    map: FxHashMap<Vec<u8>, Vec<u8>>,
}

impl Renamer {
    pub(super) fn new(input: usize) -> Result<Self, BuildError> {
        let tag = term::encode(BlankNodeRef::new_unchecked("b").into())
            .map_err(|e| BuildError::Invalid(e.to_string()))?
            .first()
            .copied()
            .ok_or_else(|| BuildError::Invalid("internal: empty blank node encoding".into()))?;
        Ok(Self {
            input,
            tag,
            map: FxHashMap::default(),
        })
    }

    fn rename<'a>(&mut self, t: &'a [u8], buf: &'a mut Vec<u8>) -> &'a [u8] {
        if t.first() != Some(&self.tag) {
            return t;
        }
        buf.clear();
        match self.map.get(t) {
            Some(v) => buf.extend_from_slice(v),
            None => {
                let mut v = vec![self.tag];
                v.extend_from_slice(format!("b{}x{}", self.input, self.map.len()).as_bytes());
                buf.extend_from_slice(&v);
                self.map.insert(t.to_vec(), v);
            }
        }
        buf
    }

    /// Calls `sink` on each quad of `batch`, blank nodes renamed (subject, object, graph: the
    /// order a quad's terms appear in).
    pub(super) fn feed(
        &mut self,
        batch: &Batch,
        sink: &mut QuadSink<'_>,
    ) -> Result<(), BuildError> {
        let (mut sb, mut ob, mut gb) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..batch.len() {
            let [s, p, o, g] = batch.quad(i);
            let s = self.rename(s, &mut sb);
            let o = self.rename(o, &mut ob);
            let g = self.rename(g, &mut gb);
            sink([s, p, o, g])?;
        }
        Ok(())
    }
}
