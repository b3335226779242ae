//! Each entity's term (N-Triples) and label, written once to a temporary file in node order and
//! read back by node: the member blocks need every one of them, the labeller a few. Holding them
//! in memory took about 80 bytes an entity (1 GB at 100 M triples); here memory is 4 bytes an
//! entity for the offsets plus one bit for "has a human label", and the text stays on disk (in
//! the page cache while it fits).

use crate::graph::EntityGraph;
use crate::human_label::{is_human, one_line};
use crate::PyramidError;
use oxrdf::Term;
use rete_core::format::varint;
use rete_core::Rete;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Nodes per offset base: a node's record starts at `base[node >> SHIFT] + low[node]`.
const SHIFT: u32 = 12;

/// The terms and labels of the entity graph's nodes, on disk.
#[derive(Debug)]
pub(crate) struct NameStore {
    file: File,
    /// Offset of the first record of every chunk of `1 << SHIFT` nodes, plus the file's end.
    base: Vec<u64>,
    /// Offset of each node's record from its chunk's base.
    low: Vec<u32>,
    /// Bit per node: its label is a human one ([`crate::human_label::is_human`]).
    human: Vec<u64>,
}

/// One node's record: the term, and the label when the node has one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Name {
    pub(crate) term: String,
    pub(crate) label: Option<String>,
}

impl NameStore {
    /// Decodes every node's term and chosen label (a typed literal, a number, a boolean, a date,
    /// is not a name) in node order, which is id order, and writes them to a temporary file in
    /// `dir` (the system's temporary directory when `None`).
    pub(crate) fn write(
        base: &Rete,
        eg: &EntityGraph,
        dir: Option<&Path>,
    ) -> Result<Self, PyramidError> {
        let io = |e: std::io::Error| PyramidError::Io(format!("temporary names file: {e}"));
        let file = match dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }
        .map_err(io)?;
        let n = eg.node_count();
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let mut bases = Vec::with_capacity((n >> SHIFT) + 2);
        let mut low = Vec::with_capacity(n);
        let mut human = vec![0u64; n.div_ceil(64)];
        let mut at = 0u64;
        let mut chosen = eg.labels.iter().peekable();
        let mut rec: Vec<u8> = Vec::new();
        for (node, &id) in eg.ids.iter().enumerate() {
            if node & ((1 << SHIFT) - 1) == 0 {
                bases.push(at);
            }
            let chunk_base = bases[node >> SHIFT];
            low.push(u32::try_from(at - chunk_base).map_err(|_| {
                PyramidError::TooLarge(format!(
                    "terms and labels of {} entities above 4 GiB",
                    1u64 << SHIFT
                ))
            })?);
            let term = base.term(id)?.to_string();
            let mut label = None;
            if let Some(&(_, lit)) = chosen.next_if(|l| l.0 as usize == node) {
                if let Term::Literal(l) = base.term(u64::from(lit))? {
                    let dt = l.datatype().as_str();
                    if l.language().is_some() || dt == "http://www.w3.org/2001/XMLSchema#string" {
                        label = Some(one_line(l.value()));
                    }
                }
            }
            rec.clear();
            varint::put(&mut rec, term.len() as u64);
            rec.extend_from_slice(term.as_bytes());
            if let Some(l) = &label {
                rec.push(1);
                rec.extend_from_slice(l.as_bytes());
                if is_human(l) {
                    human[node / 64] |= 1 << (node % 64);
                }
            } else {
                rec.push(0);
            }
            out.write_all(&rec).map_err(io)?;
            at += rec.len() as u64;
        }
        bases.push(at);
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        Ok(Self {
            file,
            base: bases,
            low,
            human,
        })
    }

    fn start(&self, node: usize) -> u64 {
        self.base[node >> SHIFT] + u64::from(self.low[node])
    }

    /// Node `node`'s term and label.
    pub(crate) fn get(&self, node: usize) -> Result<Name, PyramidError> {
        if node >= self.low.len() {
            return Err(PyramidError::internal("name of a node out of range"));
        }
        let start = self.start(node);
        let end = if node + 1 < self.low.len() {
            self.start(node + 1)
        } else {
            self.base[self.base.len() - 1]
        };
        let mut buf = vec![0u8; (end - start) as usize];
        read_at(&self.file, &mut buf, start)
            .map_err(|e| PyramidError::Io(format!("temporary names file: {e}")))?;
        let bad = || PyramidError::internal("temporary names file: bad record");
        let mut c = varint::Cursor::new(&buf);
        let len = c.get().ok_or_else(bad)?;
        let used = buf.len() - c.remaining();
        let term_end = used + usize::try_from(len).map_err(|_| bad())?;
        let term = buf.get(used..term_end).ok_or_else(bad)?;
        let term = String::from_utf8(term.to_vec()).map_err(|_| bad())?;
        let label = match buf.get(term_end) {
            Some(1) => Some(String::from_utf8(buf[term_end + 1..].to_vec()).map_err(|_| bad())?),
            Some(0) => None,
            _ => return Err(bad()),
        };
        Ok(Name { term, label })
    }

    /// Node `node`'s term in N-Triples.
    pub(crate) fn term(&self, node: usize) -> Result<String, PyramidError> {
        Ok(self.get(node)?.term)
    }

    /// Whether node `node` has a human label (no read).
    pub(crate) fn is_human(&self, node: usize) -> bool {
        self.human
            .get(node / 64)
            .is_some_and(|w| w & (1 << (node % 64)) != 0)
    }

    /// Node `node`'s label when it is a human one.
    pub(crate) fn human(&self, node: usize) -> Result<Option<String>, PyramidError> {
        if !self.is_human(node) {
            return Ok(None);
        }
        Ok(self.get(node)?.label)
    }
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, at)
}

#[cfg(windows)]
fn read_at(f: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        let n = std::os::windows::fs::FileExt::seek_read(f, buf, at)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        at += n as u64;
    }
    Ok(())
}
