//! Rows of term ids, streams of rows and their merge, the active graph, and the bytes an
//! operator holds: the vocabulary every operator and the per-query context share, in a leaf of
//! its own.

use crate::dataset::Memory;
use crate::SparqlError;
use std::sync::Arc;

/// A term id: `0` is "unbound", `1..=terms` are dictionary ids, larger ids are query-local terms
/// (computed by expressions or written in the query but absent from the file). A term gets a
/// local id only when the dictionary does not hold it, so id equality is term equality.
pub type Id = u64;

/// "No value" in a row slot.
pub const UNBOUND: Id = 0;

/// A solution: one id per variable slot (inline up to 8 slots: rows are copied per match,
/// an allocation each would cost more than the copy).
pub type Row = smallvec::SmallVec<[Id; 8]>;

/// A stream of rows.
pub type Rows = Box<dyn Iterator<Item = Result<Row, SparqlError>>>;

/// Merges `b` into `a` if compatible.
pub fn merge(a: &Row, b: &Row) -> Option<Row> {
    let mut out = a.clone();
    for (x, &y) in out.iter_mut().zip(b) {
        if y != UNBOUND {
            if *x == UNBOUND {
                *x = y;
            } else if *x != y {
                return None;
            }
        }
    }
    Some(out)
}

/// The graph a pattern is matched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Active {
    /// The default graph.
    Default,
    /// A named graph.
    Named(Id),
    /// The union default graph: the merge of every graph (see `crate::union`).
    Union,
}

/// Bytes a row of `width` slots takes.
pub fn row_bytes(width: usize) -> usize {
    width * size_of::<Id>() + size_of::<Row>()
}

/// Bytes an operator holds, counted against the query's memory limit and given back on drop.
#[derive(Debug)]
pub struct Held {
    memory: Arc<Memory>,
    bytes: usize,
    what: &'static str,
}

impl Held {
    /// A counter of the bytes one operator holds of `memory` (`what`: the operator's data,
    /// named in the error past the limit).
    pub fn new(memory: Arc<Memory>, what: &'static str) -> Self {
        Self {
            memory,
            bytes: 0,
            what,
        }
    }

    /// Counts `bytes` more (fails past the limit with [`SparqlError::TooLarge`]).
    #[inline]
    pub fn grow(&mut self, bytes: usize) -> Result<(), SparqlError> {
        self.memory.charge(bytes, self.what)?;
        self.bytes += bytes;
        Ok(())
    }

    /// Gives `bytes` back.
    pub fn shrink(&mut self, bytes: usize) {
        let b = bytes.min(self.bytes);
        self.memory.release(b);
        self.bytes -= b;
    }

    /// The bytes stay counted until the query ends (results kept for the whole query).
    pub fn keep(mut self) {
        self.bytes = 0;
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.memory.release(self.bytes);
    }
}
