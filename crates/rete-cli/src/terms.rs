//! Term syntax on the command line and term output.

use anyhow::{anyhow, Result};
use oxrdf::{NamedNode, Quad, Term};
use rete_core::vocab::Prefixes;
use rete_core::{Id, IdQuad, Rete};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::str::FromStr;

/// Turns command-line terms into ids: N-Triples syntax, bare IRIs, or prefixed names with the
/// prefixes in effect for the file ([`rete_schema::prefixes_in_effect`], read on first use).
pub struct Resolver<'a> {
    rete: &'a Rete,
    prefixes: OnceCell<Prefixes>,
}

impl<'a> Resolver<'a> {
    pub fn new(rete: &'a Rete) -> Self {
        Self {
            rete,
            prefixes: OnceCell::new(),
        }
    }

    fn prefixes(&self) -> Result<&Prefixes> {
        if let Some(p) = self.prefixes.get() {
            return Ok(p);
        }
        let p = rete_schema::prefixes_in_effect(self.rete)?;
        Ok(self.prefixes.get_or_init(|| p))
    }

    pub fn parse(&self, s: &str) -> Result<Term> {
        let s = s.trim();
        if s.starts_with('<') || s.starts_with('"') || s.starts_with("_:") {
            return Term::from_str(s).map_err(|e| anyhow!("{e}"));
        }
        if let Some((p, local)) = s.split_once(':') {
            // `http://…` is an IRI whatever the prefixes (and needs no schema read).
            if local.starts_with("//") {
                return Ok(NamedNode::new(s)?.into());
            }
            if let Some(ns) = self.prefixes()?.get(p) {
                return Ok(NamedNode::new(format!("{ns}{local}"))?.into());
            }
            if p == "a" || p.contains('.') || p == "urn" || p == "mailto" {
                return Ok(NamedNode::new(s)?.into());
            }
            return Err(anyhow!(
                "unknown prefix \"{p}:\" — write the IRI in full (<…>) or use one of the prefixes `rete prefixes {}` lists",
                self.rete.name()
            ));
        }
        if s == "a" {
            return Ok(oxrdf::vocab::rdf::TYPE.into_owned().into());
        }
        Err(anyhow!(
            "expected <iri>, prefix:name, \"literal\" or _:label"
        ))
    }

    /// A term in N-Triples syntax, an IRI shortened to `prefix:local` when a prefix covers it.
    pub fn show(&self, nt: &str) -> String {
        let short = nt
            .strip_prefix('<')
            .and_then(|s| s.strip_suffix('>'))
            .and_then(|iri| {
                let (p, local) = self.prefixes().ok()?.compact(iri)?;
                Some(format!("{p}:{local}"))
            });
        short.unwrap_or_else(|| nt.to_owned())
    }

    pub fn id(&self, s: &str) -> Result<Option<Id>> {
        let t = self.parse(s)?;
        Ok(self.rete.id_of(t.as_ref())?)
    }
}

/// Resolves ids to terms with a small memo (subjects and predicates repeat a lot).
pub struct TermCache<'a> {
    rete: &'a Rete,
    memo: HashMap<Id, Term>,
}

impl<'a> TermCache<'a> {
    pub fn new(rete: &'a Rete) -> Self {
        Self {
            rete,
            memo: HashMap::new(),
        }
    }

    pub fn term(&mut self, id: Id) -> Result<Term> {
        if let Some(t) = self.memo.get(&id) {
            return Ok(t.clone());
        }
        let t = self.rete.term(id)?;
        if self.memo.len() > 100_000 {
            self.memo.clear();
        }
        self.memo.insert(id, t.clone());
        Ok(t)
    }

    pub fn quad(&mut self, q: &IdQuad) -> Result<Quad> {
        let rete = self.rete;
        rete.decode_quad_with(q, |id| self.term(id))
    }

    pub fn write_quad(&mut self, out: &mut impl Write, q: &IdQuad) -> Result<()> {
        let quad = self.quad(q)?;
        writeln!(out, "{quad} .")?;
        Ok(())
    }
}

/// Writes the whole dataset, graph by graph, as N-Quads (or TriG with the file's prefixes).
pub fn export(
    rete: &Rete,
    out: impl Write,
    pretty: bool,
    prefixes: &BTreeMap<String, String>,
) -> Result<()> {
    let mut cache = TermCache::new(rete);
    if pretty {
        let mut ser = oxttl::TriGSerializer::new();
        for (p, ns) in prefixes {
            ser = ser.with_prefix(p, ns)?;
        }
        let mut w = ser.for_writer(out);
        for q in rete.quads(&rete_core::Pattern::default())? {
            w.serialize_quad(&cache.quad(&q?)?)?;
        }
        w.finish()?.flush()?;
    } else {
        let mut w = oxttl::NQuadsSerializer::new().for_writer(out);
        for q in rete.quads(&rete_core::Pattern::default())? {
            w.serialize_quad(&cache.quad(&q?)?)?;
        }
        w.finish().flush()?;
    }
    Ok(())
}
