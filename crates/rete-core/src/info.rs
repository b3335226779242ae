//! What `rete info` shows of a file: header, sections and card, as text
//! ([`std::fmt::Display`]) or JSON.

use crate::{Card, NamedCount, Result, Rete};
use std::fmt;

/// Entries of each top list (classes, predicates, graphs) in the text form.
const TOP: usize = 15;

/// A file's header, sections and card, named as the user named the file.
#[derive(Debug, Clone, Copy)]
pub struct FileInfo<'a> {
    /// The path or URL as given.
    pub file: &'a str,
    /// The open file.
    pub rete: &'a Rete,
    /// Its card.
    pub card: &'a Card,
}

impl Rete {
    /// The summary `rete info` prints, naming the file `file`.
    pub fn info<'a>(&'a self, file: &'a str) -> Result<FileInfo<'a>> {
        Ok(FileInfo {
            file,
            rete: self,
            card: self.card()?,
        })
    }
}

impl FileInfo<'_> {
    /// Everything as one JSON object (the card whole).
    pub fn to_json(&self) -> serde_json::Value {
        let h = self.rete.header();
        let sections: Vec<_> = self
            .rete
            .sections()
            .iter()
            .map(|e| serde_json::json!({"kind": e.kind, "index": e.index, "name": e.name(), "codec": format!("{:?}", e.codec), "offset": e.offset, "bytes": e.len, "raw_bytes": e.raw_len}))
            .collect();
        serde_json::json!({
            "file": self.file,
            "bytes": self.rete.reader().len(),
            "version": format!("{}.{}", h.major, h.minor),
            "flags": h.flags,
            "quads": h.quads,
            "terms": h.terms,
            "sections": sections,
            "card": self.card,
        })
    }
}

impl fmt::Display for FileInfo<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (h, card) = (self.rete.header(), self.card);
        writeln!(
            out,
            "file      {} ({} bytes)",
            self.file,
            self.rete.reader().len()
        )?;
        writeln!(out, "format    .rete {}.{}", h.major, h.minor)?;
        writeln!(
            out,
            "quads     {} ({} in the default graph, {} named graphs)",
            card.quads,
            card.default_graph_quads,
            card.graphs.len()
        )?;
        writeln!(out, "terms     {}", card.terms)?;
        writeln!(
            out,
            "distinct  {} subjects, {} predicates, {} objects",
            card.distinct_subjects, card.distinct_predicates, card.distinct_objects
        )?;
        writeln!(out, "content   {}", card.content_hash)?;
        if card.build.materialized {
            writeln!(
                out,
                "inferred  {} quads (RDFS/OWL-RL materialization)",
                card.build.inferred_quads
            )?;
        }
        writeln!(out, "\nsections")?;
        for e in self.rete.sections() {
            writeln!(out, "  {:<28} {:>12} bytes  {:?}", e.name(), e.len, e.codec)?;
        }
        top(out, "classes (instances)", &card.classes)?;
        top(out, "predicates (triples)", &card.predicates)?;
        top(out, "named graphs (quads)", &card.graphs)
    }
}

fn top(out: &mut fmt::Formatter<'_>, title: &str, v: &[NamedCount]) -> fmt::Result {
    if v.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n{title}")?;
    for c in v.iter().take(TOP) {
        writeln!(out, "  {:>10}  {}", c.count, c.term)?;
    }
    if v.len() > TOP {
        writeln!(out, "  … {} more", v.len() - TOP)?;
    }
    Ok(())
}
