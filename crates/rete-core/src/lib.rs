#![doc = include_str!("../README.md")]

pub mod block;
pub mod budget;
pub mod card;
pub mod craft;
mod decode;
pub mod dict;
pub mod error;
pub mod extension;
pub mod format;
pub mod front_coding;
pub mod human;
mod info;
pub mod paged;
pub mod perm;
pub mod range;
mod reader;
pub mod section;
mod seek;
pub mod term;
mod terms;
pub mod vocab;
pub mod writer;

pub use budget::{Charge, DecodeBudget};
pub use card::{BuildInfo, Card, InputInfo, NamedCount};
pub use decode::quad_of_terms;
pub use error::{Error, Result};
pub use format::{Codec, Header, SectionEntry};
pub use info::FileInfo;
pub use range::{CountingReader, FileReader, MemReader, RangeError, RangeReader, ReadStats};
pub use reader::{Cost, MemoryUse, NearBlocks, QuadIter, Rete, ReteOptions, VerifyReport};
pub use term::TermKind;
pub use terms::TermDecoder;

/// A dictionary id. Terms have ids `1..=terms`; `0` is never a term and stands for the default
/// graph in the graph position.
pub type Id = u64;

/// The graph id of the default graph.
pub const DEFAULT_GRAPH: Id = 0;

/// A quad of ids. In API results always `[subject, predicate, object, graph]`.
pub type IdQuad = [Id; 4];

/// The six key orders. The graph is always the last key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Perm {
    /// subject, predicate, object
    Spo = 0,
    /// subject, object, predicate
    Sop = 1,
    /// predicate, subject, object
    Pso = 2,
    /// predicate, object, subject
    Pos = 3,
    /// object, subject, predicate
    Osp = 4,
    /// object, predicate, subject
    Ops = 5,
}

impl Perm {
    /// All permutations, in section-index order.
    pub const ALL: [Perm; 6] = [
        Perm::Spo,
        Perm::Sop,
        Perm::Pso,
        Perm::Pos,
        Perm::Osp,
        Perm::Ops,
    ];

    /// Positions (0 = s, 1 = p, 2 = o) in key order.
    pub const fn order(self) -> [usize; 3] {
        match self {
            Perm::Spo => [0, 1, 2],
            Perm::Sop => [0, 2, 1],
            Perm::Pso => [1, 0, 2],
            Perm::Pos => [1, 2, 0],
            Perm::Osp => [2, 0, 1],
            Perm::Ops => [2, 1, 0],
        }
    }

    /// `SPO`, `POS`…
    pub const fn label(self) -> &'static str {
        match self {
            Perm::Spo => "SPO",
            Perm::Sop => "SOP",
            Perm::Pso => "PSO",
            Perm::Pos => "POS",
            Perm::Osp => "OSP",
            Perm::Ops => "OPS",
        }
    }

    /// Reorders an `[s, p, o, g]` quad into this permutation's key.
    pub fn to_key(self, q: &IdQuad) -> IdQuad {
        let o = self.order();
        [q[o[0]], q[o[1]], q[o[2]], q[3]]
    }

    /// Inverse of [`Perm::to_key`].
    pub fn from_key(self, k: &IdQuad) -> IdQuad {
        let o = self.order();
        let mut q = [0; 4];
        q[o[0]] = k[0];
        q[o[1]] = k[1];
        q[o[2]] = k[2];
        q[3] = k[3];
        q
    }

    /// The permutation whose key starts with exactly the bound positions of `s`, `p`, `o`, so the
    /// pattern is one contiguous range.
    pub fn for_bound(s: bool, p: bool, o: bool) -> Perm {
        match (s, p, o) {
            (true, true, _) | (false, false, false) => Perm::Spo,
            (true, false, true) => Perm::Sop,
            (true, false, false) => Perm::Spo,
            (false, true, true) => Perm::Pos,
            (false, true, false) => Perm::Pso,
            (false, false, true) => Perm::Osp,
        }
    }
}

/// Which graphs a pattern matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GraphMatch {
    /// Any graph, default or named.
    #[default]
    Any,
    /// The default graph only.
    Default,
    /// One named graph.
    Named(Id),
    /// Any named graph, not the default one.
    AnyNamed,
}

impl GraphMatch {
    /// Whether graph id `g` matches.
    pub fn matches(self, g: Id) -> bool {
        match self {
            GraphMatch::Any => true,
            GraphMatch::Default => g == DEFAULT_GRAPH,
            GraphMatch::Named(n) => g == n,
            GraphMatch::AnyNamed => g != DEFAULT_GRAPH,
        }
    }
}

/// A quad pattern over ids: `None` is a wildcard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pattern {
    /// Subject.
    pub s: Option<Id>,
    /// Predicate.
    pub p: Option<Id>,
    /// Object.
    pub o: Option<Id>,
    /// Graph.
    pub g: GraphMatch,
}

impl Pattern {
    /// A pattern over any graph.
    pub fn new(s: Option<Id>, p: Option<Id>, o: Option<Id>) -> Self {
        Self {
            s,
            p,
            o,
            g: GraphMatch::Any,
        }
    }

    /// The same pattern restricted to `g`.
    pub fn in_graph(mut self, g: GraphMatch) -> Self {
        self.g = g;
        self
    }
}
