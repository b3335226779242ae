//! Community and super-edge records as stored (class and predicate names as table indices), with
//! their encoding and their conversion to the public types.

use crate::{Community, PyramidError, SuperEdge};
use rete_core::block::Buf;
use rete_core::format::prealloc;
use rete_core::section::SectionReader;

/// A count, then that many (index `< bound` named `what`, count `<= most`) pairs; `too_many`
/// says what is wrong with a count above `most`.
fn counts(
    r: &mut SectionReader<'_>,
    bound: usize,
    what: &str,
    most: u64,
    too_many: impl Fn(u64) -> String,
) -> Result<Vec<(u32, u64)>, PyramidError> {
    let n = r.count(2)?;
    let mut out = Vec::with_capacity(prealloc(n));
    for _ in 0..n {
        let i = r.below(bound as u64, what)? as u32;
        let count = r.varint()?;
        if count > most {
            return Err(r.err(too_many(count)));
        }
        out.push((i, count));
    }
    Ok(out)
}

/// A community as stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CommRec {
    pub size: u64,
    pub label: String,
    /// The label in other languages: `(lowercase BCP 47 tag, label)`, sorted by tag (encoding
    /// version 2; empty when read from version 1).
    pub alt: Vec<(String, String)>,
    /// `(class index, members)`, most members first.
    pub classes: Vec<(u32, u64)>,
    pub x: f32,
    pub y: f32,
    pub r: f32,
}

impl CommRec {
    pub fn write(&self, b: &mut Buf) {
        b.varint(self.size);
        b.str(&self.label);
        b.varint(self.alt.len() as u64);
        for (tag, label) in &self.alt {
            b.str(tag);
            b.str(label);
        }
        b.varint(self.classes.len() as u64);
        for &(c, n) in &self.classes {
            b.varint(u64::from(c));
            b.varint(n);
        }
        b.f32(self.x);
        b.f32(self.y);
        b.f32(self.r);
    }

    /// Reads a record; `alt`: whether it carries label alternatives (encoding version 2).
    pub fn read(
        r: &mut SectionReader<'_>,
        classes: usize,
        alt: bool,
    ) -> Result<Self, PyramidError> {
        let size = r.varint()?;
        let label = r.str()?.to_owned();
        let alt = if alt {
            let n = r.count(2)?;
            let mut v: Vec<(String, String)> = Vec::with_capacity(prealloc(n));
            for _ in 0..n {
                let tag = r.str()?.to_owned();
                let label = r.str()?.to_owned();
                if tag.is_empty() || v.last().is_some_and(|(t, _)| *t >= tag) {
                    return Err(r.err("label languages out of order"));
                }
                v.push((tag, label));
            }
            v
        } else {
            Vec::new()
        };
        let cls = counts(r, classes, "class index", size, |count| {
            format!("class count {count} exceeds community size {size}")
        })?;
        let (x, y, rad) = (r.f32()?, r.f32()?, r.f32()?);
        if rad < 0.0 {
            return Err(r.err("negative radius"));
        }
        Ok(Self {
            size,
            label,
            alt,
            classes: cls,
            x,
            y,
            r: rad,
        })
    }

    pub fn public(
        &self,
        id: u32,
        level: u32,
        parent: Option<u32>,
        class_names: &[String],
        languages: &[&str],
    ) -> Community {
        let classes: Vec<(String, u64)> = self
            .classes
            .iter()
            .map(|&(c, n)| (class_names[c as usize].clone(), n))
            .collect();
        Community {
            id,
            level,
            parent,
            size: self.size,
            label: crate::holds::localise(
                crate::lang::pick(&self.label, &self.alt, languages),
                languages,
            ),
            default_label: self.label.clone(),
            labels_by_language: self.alt.clone(),
            dominant_class: classes.first().map(|c| c.0.clone()),
            classes,
            x: self.x,
            y: self.y,
            r: self.r,
        }
    }
}

/// A level's super-edges as the builder holds them: the records [`EdgeRec::read`] reads,
/// concatenated, sorted by endpoints. An `EdgeRec` each (with its own vector of predicates)
/// took ~120 bytes an edge; at 100 M triples a level 0 of ~60,000 communities has 6 M
/// super-edges and level 1 5 M, ~1.2 GB that way and ~0.15 GB this way.
#[derive(Debug, Default)]
pub(crate) struct EdgeList {
    pub bytes: Vec<u8>,
    len: usize,
}

/// One edge of an [`EdgeList`]: its endpoints, weight and stored record.
pub(crate) struct EdgeItem<'a> {
    pub a: u32,
    pub b: u32,
    pub weight: u64,
    pub raw: &'a [u8],
}

impl EdgeList {
    pub fn push(&mut self, a: u32, b: u32, weight: u64, preds: &[(u32, u64)]) {
        use rete_core::format::varint::put;
        put(&mut self.bytes, u64::from(a));
        put(&mut self.bytes, u64::from(b));
        put(&mut self.bytes, weight);
        put(&mut self.bytes, preds.len() as u64);
        for &(p, n) in preds {
            put(&mut self.bytes, u64::from(p));
            put(&mut self.bytes, n);
        }
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn iter(&self) -> impl Iterator<Item = EdgeItem<'_>> + '_ {
        let mut cur = rete_core::format::varint::Cursor::new(&self.bytes);
        let total = self.bytes.len();
        std::iter::from_fn(move || {
            let start = total - cur.remaining();
            // Written by `push` above, so it decodes; an end of data ends the list.
            let a = cur.get()? as u32;
            let b = cur.get()? as u32;
            let weight = cur.get()?;
            for _ in 0..cur.get()? * 2 {
                cur.get()?;
            }
            let end = total - cur.remaining();
            Some(EdgeItem {
                a,
                b,
                weight,
                raw: &self.bytes[start..end],
            })
        })
    }
}

/// A super-edge as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EdgeRec {
    pub a: u32,
    pub b: u32,
    pub weight: u64,
    /// `(predicate index, triples)`, most triples first.
    pub preds: Vec<(u32, u64)>,
}

impl EdgeRec {
    /// Reads an edge whose endpoints must lie in `lo..hi`.
    pub fn read(
        r: &mut SectionReader<'_>,
        lo: u64,
        hi: u64,
        preds: usize,
    ) -> Result<Self, PyramidError> {
        let a = r.varint()?;
        let b = r.varint()?;
        if a < lo || b < lo || a >= hi || b >= hi || a >= b {
            return Err(r.err(format!("super-edge {a}–{b} outside communities {lo}..{hi}")));
        }
        let weight = r.varint()?;
        let ps = counts(r, preds, "predicate index", weight, |_| {
            "predicate count exceeds edge weight".to_owned()
        })?;
        Ok(Self {
            a: a as u32,
            b: b as u32,
            weight,
            preds: ps,
        })
    }

    pub fn public(&self, pred_names: &[String]) -> SuperEdge {
        SuperEdge {
            source: self.a,
            target: self.b,
            weight: self.weight,
            top_predicates: self
                .preds
                .iter()
                .map(|&(p, n)| (pred_names[p as usize].clone(), n))
                .collect(),
        }
    }
}
