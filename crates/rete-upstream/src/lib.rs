#![doc = include_str!("../README.md")]
//!
//! Layout (from upstream `docs/SPEC.md`, checked against files written by `rete-graph` 0.3.6):
//!
//! - 1024-byte header: magic `RETE`, format byte, flags, header length, content hash, quad and
//!   term counts, codec bytes (42: dictionary, 43: blocks; 0 none, 1 zstd), section count (44),
//!   permutation mask (50; 0 = all six), then 24-byte directory entries `(kind u16, flags u16,
//!   reserved u32, offset u64, length u64)`. Kinds: 2 dictionary, 3 index, 5 named graphs.
//! - Dictionary container: `varint n`, then `n` × (`varint len`, section). Sections: shared
//!   (subject and object), subjects-only, objects-only, predicates. A section is `varint
//!   header_len`, header (`varint count`, `varint restart_interval`, `varint restarts`, one
//!   `varint` body offset per restart), `varint chunks`, per chunk (`varint Δfirst_run`, `varint
//!   first_term_len` + bytes, `varint clen`), then the compressed chunks, whose concatenation is
//!   the front-coded body: per term `varint shared_prefix`, `varint suffix_len`, suffix.
//!   Terms are N-Triples surfaces (`<iri>`, `_:b`, `"lit"@en`, `"1"^^<dt>`).
//! - Ids: subjects `1..=S` shared then subjects-only; objects `1..=S` shared then objects-only;
//!   predicates their own `1..`.
//! - Index container: `varint n`, then `n` × (`varint len`, permutation section); the first is
//!   SPO. A section is `varint tiles`, per tile (`varint Δmin_a`, `varint span`, `varint clen`),
//!   the compressed tiles, then an optional synopsis trailer. A tile is a zone map (7 varints)
//!   then `varint groups_a`, per a (`varint Δa`, `varint groups_b`, per b (`varint Δb`, `varint
//!   n_c`, `n_c` × `varint Δc`)).
//! - Named graphs: `varint graphs`, per graph (`varint len` + graph term, `varint len` + index
//!   container). The main index holds the default graph only.
//! - The file ends with the 4 bytes `RETE`.
//!
//! Format `0x06` is not read: upstream specified it only as a staged paired-index container
//! (its `docs/SPEC.md` §6.3, on its unreleased `feat/rust-optimization` branch, 2026-08) that no
//! released builder writes, and whose framing differed between that text and the staged code.
//! docs/format.md records what was searched.

#[cfg(feature = "oracle")]
pub mod oracle;

use oxrdf::{GraphName, NamedNode, NamedOrBlankNode, Quad, Term};
use rete_core::format::{prealloc, varint};
use rete_core::front_coding::Expander;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

/// Format bytes this crate recognises as upstream rete. `0x06` is recognised so that a file of it
/// is never mistaken for RDF or for this project's format, and is refused with its own message
/// ([`Error::Unsupported`]): upstream defined it only as a staged, unreleased layout.
pub const KNOWN_VERSIONS: [u8; 2] = [0x05, 0x06];
/// Format bytes this crate reads.
pub const SUPPORTED_VERSIONS: [u8; 1] = [0x05];

const HEADER_LEN: usize = 1024;
const MAGIC: &[u8; 4] = b"RETE";
/// A decompressed chunk or tile larger than this is treated as damage (upstream writes ~64 KiB).
const MAX_DECOMPRESSED: u64 = 16 << 20;
/// A dictionary section's chunks may decompress to this many bytes in all...
const BODY_FLOOR: u64 = 16 << 20;
/// ...or to this many per stored byte of the section, if more: what is decoded stays in
/// proportion to the file.
const BODY_PER_BYTE: u64 = 64;

/// What is wrong with an upstream file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not an upstream rete file.
    #[error("not an upstream rete file (no RETE magic)")]
    NotUpstream,
    /// A format byte this crate does not read; the message says what the user can do instead.
    #[error("{}", unsupported_message(*.0))]
    Unsupported(u8),
    /// The file ends early.
    #[error("truncated upstream rete file: {0}")]
    Truncated(String),
    /// A structure is inconsistent.
    #[error("damaged upstream rete file: {0}")]
    Damaged(String),
}

/// Why a format byte is not read, and what to do instead (see docs/format.md, "Upstream rete
/// files", for what was searched).
fn unsupported_message(version: u8) -> String {
    match version {
        0x06 => "upstream rete format 0x06 cannot be read: it is upstream's staged \
                 paired-index generation, which no released upstream rete writes (rete-graph \
                 0.3.0 to 0.3.6 write 0x05) and whose layout upstream had not finalised. \
                 Convert the file to N-Quads with the upstream `rete export` that wrote it and \
                 build that, or rebuild it from its RDF source (with `rete build`, or with \
                 rete-graph 0.3.6 or another 0.3.x, whose 0x05 files are read)"
            .to_owned(),
        0x01..=0x04 => format!(
            "upstream rete format {version:#04x} is an experimental pre-0.3 generation that \
             upstream itself no longer reads (this reader reads 0x05); rebuild the file from \
             its RDF source, with `rete build` or rete-graph 0.3.x"
        ),
        _ => format!(
            "upstream rete format {version:#04x} is not supported (this reader reads 0x05); \
             convert the file to N-Quads with the upstream `rete export` that wrote it, or \
             rebuild it from its RDF source"
        ),
    }
}

fn damaged(what: impl Into<String>) -> Error {
    Error::Damaged(what.into())
}

/// Forward reader over a byte slice with checked varints.
struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Cursor<'a> {
    fn new(b: &'a [u8], what: &'static str) -> Self {
        Self { b, pos: 0, what }
    }
    fn varint(&mut self) -> Result<u64, Error> {
        let at = self.pos;
        varint::read(self.b, &mut self.pos).ok_or_else(|| {
            damaged(format!(
                "{}: varint at {at} past the end or too long",
                self.what
            ))
        })
    }
    fn len(&mut self) -> Result<usize, Error> {
        let v = self.varint()?;
        usize::try_from(v).map_err(|_| damaged(format!("{}: length {v}", self.what)))
    }
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| {
                damaged(format!(
                    "{}: {n} bytes at {} past the end ({})",
                    self.what,
                    self.pos,
                    self.b.len()
                ))
            })?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn prefixed(&mut self) -> Result<&'a [u8], Error> {
        let n = self.len()?;
        self.bytes(n)
    }
    fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }
}

/// Counts guarded against absurd values before allocating.
fn bounded(n: u64, max: usize, what: &str) -> Result<usize, Error> {
    usize::try_from(n)
        .ok()
        .filter(|&n| n <= max)
        .ok_or_else(|| damaged(format!("{what}: count {n} exceeds what the file can hold")))
}

fn decompress(codec: u8, bytes: &[u8], what: &str) -> Result<Vec<u8>, Error> {
    match codec {
        0 => Ok(bytes.to_vec()),
        1 => {
            let mut out = Vec::new();
            zstd::stream::read::Decoder::new(bytes)
                .and_then(|d| d.take(MAX_DECOMPRESSED + 1).read_to_end(&mut out))
                .map_err(|e| damaged(format!("{what}: zstd: {e}")))?;
            if out.len() as u64 > MAX_DECOMPRESSED {
                return Err(damaged(format!(
                    "{what}: a chunk decompresses beyond {MAX_DECOMPRESSED} bytes"
                )));
            }
            Ok(out)
        }
        c => Err(damaged(format!("{what}: unknown codec {c}"))),
    }
}

/// The header fields a full read needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Format byte.
    pub version: u8,
    /// Flag bits (1: named graphs, 2: tile synopses, 4: quoted triples).
    pub flags: u8,
    /// Quads in the file (default graph and named graphs).
    pub quads: u64,
    /// Terms in the dictionary.
    pub terms: u64,
    dict_codec: u8,
    block_codec: u8,
    perms: usize,
    dictionary: (usize, usize),
    index: (usize, usize),
    named_graphs: Option<(usize, usize)>,
}

/// An upstream rete file held in memory.
#[derive(Debug)]
pub struct UpstreamFile {
    bytes: Vec<u8>,
    header: Header,
}

impl UpstreamFile {
    /// Reads and checks the header of the file at `path`.
    pub fn open_path(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        Self::from_bytes(bytes)
    }

    /// Checks the header of `bytes`.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, Error> {
        let header = parse_header(&bytes)?;
        Ok(Self { bytes, header })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every quad, in SPO order per graph (default graph first).
    pub fn quads(&self) -> Result<Vec<Quad>, Error> {
        let mut v = Vec::new();
        self.for_each_quad(&mut |q| {
            v.push(q);
            true
        })?;
        Ok(v)
    }

    /// Hands every quad to `f` (default graph first, then each named graph in SPO order);
    /// stops early when `f` returns `false`. Checks that the count matches the header.
    pub fn for_each_quad(&self, f: &mut dyn FnMut(Quad) -> bool) -> Result<(), Error> {
        let h = &self.header;
        let slice = |(o, l): (usize, usize)| &self.bytes[o..o + l];
        let dict = Dictionary::decode(slice(h.dictionary), h.dict_codec, h.terms)?;
        let count = std::cell::Cell::new(0u64);
        let stopped = std::cell::Cell::new(false);
        let mut emit = |q: Quad| {
            count.set(count.get() + 1);
            if !f(q) {
                stopped.set(true);
            }
            !stopped.get()
        };
        let default = GraphName::DefaultGraph;
        visit_index(slice(h.index), h, &dict, &default, &mut emit)?;
        if stopped.get() {
            return Ok(());
        }
        if let Some(ng) = h.named_graphs {
            let mut c = Cursor::new(slice(ng), "named graphs");
            let n = c.varint()?;
            for _ in 0..n {
                let name = std::str::from_utf8(c.prefixed()?)
                    .map_err(|_| damaged("named graphs: graph name is not UTF-8"))?;
                let graph = match parse_term(name)? {
                    Term::NamedNode(n) => GraphName::NamedNode(n),
                    Term::BlankNode(b) => GraphName::BlankNode(b),
                    other => return Err(damaged(format!("graph name {other} is a literal"))),
                };
                let container = c.prefixed()?;
                visit_index(container, h, &dict, &graph, &mut emit)?;
                if stopped.get() {
                    return Ok(());
                }
            }
        }
        if count.get() != h.quads {
            return Err(damaged(format!(
                "{} quads decoded, the header says {}",
                count.get(),
                h.quads
            )));
        }
        Ok(())
    }
}

fn parse_header(b: &[u8]) -> Result<Header, Error> {
    if !b.starts_with(MAGIC) {
        return Err(Error::NotUpstream);
    }
    // The format byte first: for a format that is not read, what to do matters more than
    // whether the rest of the file is whole.
    if let Some(&version) = b.get(4) {
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(Error::Unsupported(version));
        }
    }
    if b.len() < HEADER_LEN {
        return Err(Error::Truncated(format!(
            "{} bytes, the header alone is {HEADER_LEN}",
            b.len()
        )));
    }
    let version = b[4];
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u64_at = |o: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[o..o + 8]);
        u64::from_le_bytes(a)
    };
    if usize::from(u16_at(6)) != HEADER_LEN {
        return Err(damaged(format!(
            "header length {} (expected 1024)",
            u16_at(6)
        )));
    }
    let sections = usize::from(u16_at(44));
    if 64 + sections * 24 > HEADER_LEN {
        return Err(damaged(format!("{sections} sections overrun the header")));
    }
    if !b.ends_with(MAGIC) {
        return Err(Error::Truncated(
            "the trailing RETE footer is missing".into(),
        ));
    }
    let body_end = b.len() - MAGIC.len();
    let mask = b[50];
    let perms = if mask == 0 {
        6
    } else if mask & 0b111 == 0b111 && mask < 64 {
        mask.count_ones() as usize
    } else {
        return Err(damaged(format!("permutation mask {mask:#04x}")));
    };
    let mut h = Header {
        version,
        flags: b[5],
        quads: u64_at(24),
        terms: u64_at(32),
        dict_codec: b[42],
        block_codec: b[43],
        perms,
        dictionary: (0, 0),
        index: (0, 0),
        named_graphs: None,
    };
    let (mut dict, mut index) = (None, None);
    for i in 0..sections {
        let p = 64 + i * 24;
        let kind = u16_at(p);
        let (off, len) = (u64_at(p + 8), u64_at(p + 16));
        let range = usize::try_from(off)
            .ok()
            .zip(usize::try_from(len).ok())
            .filter(|&(o, l)| o.checked_add(l).is_some_and(|e| e <= body_end));
        let Some(range) = range else {
            return Err(Error::Truncated(format!(
                "section kind {kind} at {off}+{len} ends past the file's {body_end} bytes"
            )));
        };
        match kind {
            2 => dict = Some(range),
            3 => index = Some(range),
            5 if len > 0 => h.named_graphs = Some(range),
            _ => {}
        }
    }
    h.dictionary = dict.ok_or_else(|| damaged("no dictionary section"))?;
    h.index = index.ok_or_else(|| damaged("no index section"))?;
    Ok(h)
}

/// The four dictionary sections, decoded.
struct Dictionary {
    shared: Vec<String>,
    subjects: Vec<String>,
    objects: Vec<String>,
    predicates: Vec<String>,
}

impl Dictionary {
    fn decode(bytes: &[u8], codec: u8, terms: u64) -> Result<Self, Error> {
        let mut c = Cursor::new(bytes, "dictionary");
        let n = c.varint()?;
        if n < 4 {
            return Err(damaged(format!("dictionary has {n} sections, expected 4")));
        }
        let mut secs = Vec::with_capacity(4);
        for name in ["shared", "subjects", "objects", "predicates"] {
            secs.push(decode_section(c.prefixed()?, codec, name)?);
        }
        let total: usize = secs.iter().map(Vec::len).sum();
        if total as u64 != terms {
            return Err(damaged(format!(
                "dictionary holds {total} terms, the header says {terms}"
            )));
        }
        let mut it = secs.into_iter();
        let mut next = || it.next().unwrap_or_default();
        Ok(Self {
            shared: next(),
            subjects: next(),
            objects: next(),
            predicates: next(),
        })
    }

    fn role<'a>(&'a self, id: u64, own: &'a [String], what: &str) -> Result<&'a str, Error> {
        let s = self.shared.len() as u64;
        let t = if id == 0 {
            None
        } else if id <= s {
            self.shared.get((id - 1) as usize)
        } else {
            own.get((id - s - 1) as usize)
        };
        t.map(String::as_str)
            .ok_or_else(|| damaged(format!("{what} id {id} is not in the dictionary")))
    }
    fn subject(&self, id: u64) -> Result<&str, Error> {
        self.role(id, &self.subjects, "subject")
    }
    fn object(&self, id: u64) -> Result<&str, Error> {
        self.role(id, &self.objects, "object")
    }
    fn predicate(&self, id: u64) -> Result<&str, Error> {
        usize::try_from(id)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.predicates.get(i))
            .map(String::as_str)
            .ok_or_else(|| damaged(format!("predicate id {id} is not in the dictionary")))
    }
}

fn decode_section(bytes: &[u8], codec: u8, name: &'static str) -> Result<Vec<String>, Error> {
    let mut c = Cursor::new(bytes, name);
    let head = c.prefixed()?;
    let mut h = Cursor::new(head, name);
    let count = h.varint()?;
    let interval = h.varint()?;
    let restarts = h.varint()?;
    let count = bounded(count, bytes.len().saturating_mul(4096), name)?;
    let restarts = bounded(restarts, head.len(), name)?;
    let interval = usize::try_from(interval)
        .ok()
        .filter(|&i| i > 0)
        .ok_or_else(|| damaged(format!("{name}: restart interval {interval}")))?;
    if restarts != count.div_ceil(interval) {
        return Err(damaged(format!(
            "{name}: {restarts} restarts for {count} terms every {interval}"
        )));
    }
    let mut offsets = Vec::with_capacity(prealloc(restarts));
    for _ in 0..restarts {
        offsets.push(h.len()?);
    }
    let chunks = c.varint()?;
    let chunks = bounded(chunks, bytes.len(), name)?;
    let mut clens = Vec::with_capacity(prealloc(chunks));
    for _ in 0..chunks {
        c.varint()?; // Δ first run
        c.prefixed()?; // first term
        clens.push(c.len()?);
    }
    let max_body = BODY_FLOOR.max((bytes.len() as u64).saturating_mul(BODY_PER_BYTE));
    let mut body = Vec::new();
    for clen in clens {
        body.extend(decompress(codec, c.bytes(clen)?, name)?);
        if body.len() as u64 > max_body {
            return Err(damaged(format!(
                "{name}: decompresses to more than {max_body} bytes from {} stored",
                bytes.len()
            )));
        }
    }
    // Restart runs must not share bytes: each byte of the body is decoded once.
    if offsets.first().is_some_and(|&o| o != 0)
        || offsets.windows(2).any(|w| w[0] >= w[1])
        || offsets.last().is_some_and(|&o| o > body.len())
    {
        return Err(damaged(format!(
            "{name}: restart offsets are not strictly increasing inside the body"
        )));
    }
    // Every term takes at least two bytes of the body.
    if count > body.len() / 2 {
        return Err(damaged(format!(
            "{name}: {count} terms cannot fit in {} bytes",
            body.len()
        )));
    }
    let mut terms = Vec::with_capacity(prealloc(count));
    let mut expander = Expander::new(body.len());
    for (r, &off) in offsets.iter().enumerate() {
        let mut b = Cursor::new(&body, name);
        b.pos = off;
        let end = offsets.get(r + 1).copied().unwrap_or(body.len());
        let in_run = interval.min(count - r * interval);
        for i in 0..in_run {
            let shared = b.len()?;
            let suffix = b.prefixed()?;
            if b.pos > end || (i == 0 && shared != 0) {
                return Err(damaged(format!("{name}: bad front-coding prefix {shared}")));
            }
            let term = expander
                .next(shared as u64, suffix)
                .map_err(|e| damaged(format!("{name}: {e}")))?;
            terms.push(
                String::from_utf8(term.to_vec())
                    .map_err(|_| damaged(format!("{name}: term is not UTF-8")))?,
            );
        }
    }
    Ok(terms)
}

fn parse_term(s: &str) -> Result<Term, Error> {
    if s.starts_with("<<") {
        return Err(damaged(format!(
            "quoted triple {s} (RDF-star terms are not supported)"
        )));
    }
    Term::from_str(s).map_err(|e| damaged(format!("term {s}: {e}")))
}

/// Decodes the SPO section of an index container and emits its triples in `graph`.
fn visit_index(
    container: &[u8],
    h: &Header,
    dict: &Dictionary,
    graph: &GraphName,
    emit: &mut dyn FnMut(Quad) -> bool,
) -> Result<(), Error> {
    let mut c = Cursor::new(container, "index");
    let n = c.varint()?;
    if n != h.perms as u64 {
        return Err(damaged(format!(
            "index has {n} permutations, expected {}",
            h.perms
        )));
    }
    let spo = c.prefixed()?;
    let mut s = Cursor::new(spo, "SPO permutation");
    let tiles = s.varint()?;
    let tiles = bounded(tiles, spo.len(), "SPO tiles")?;
    let mut clens = Vec::with_capacity(tiles);
    for _ in 0..tiles {
        s.varint()?;
        s.varint()?;
        clens.push(s.len()?);
    }
    // Terms are parsed once per id: graphs repeat subjects and predicates a lot.
    let mut subj_cache: Option<(u64, NamedOrBlankNode)> = None;
    let mut pred_cache: Option<(u64, NamedNode)> = None;
    for clen in clens {
        let tile = decompress(h.block_codec, s.bytes(clen)?, "SPO tile")?;
        let mut t = Cursor::new(&tile, "SPO tile");
        for _ in 0..7 {
            t.varint()?; // zone map
        }
        let groups_a = t.varint()?;
        let mut a = 0u64;
        for _ in 0..groups_a {
            a = a
                .checked_add(t.varint()?)
                .ok_or_else(|| damaged("subject id overflow"))?;
            let groups_b = t.varint()?;
            let mut b = 0u64;
            for _ in 0..groups_b {
                b = b
                    .checked_add(t.varint()?)
                    .ok_or_else(|| damaged("predicate id overflow"))?;
                let n_c = t.varint()?;
                let mut o = 0u64;
                for _ in 0..n_c {
                    o = o
                        .checked_add(t.varint()?)
                        .ok_or_else(|| damaged("object id overflow"))?;
                    let subject = match &subj_cache {
                        Some((id, v)) if *id == a => v.clone(),
                        _ => {
                            let v = match parse_term(dict.subject(a)?)? {
                                Term::NamedNode(n) => NamedOrBlankNode::NamedNode(n),
                                Term::BlankNode(b) => NamedOrBlankNode::BlankNode(b),
                                other => {
                                    return Err(damaged(format!("subject {other} is a literal")))
                                }
                            };
                            subj_cache = Some((a, v.clone()));
                            v
                        }
                    };
                    let predicate = match &pred_cache {
                        Some((id, v)) if *id == b => v.clone(),
                        _ => {
                            let v = match parse_term(dict.predicate(b)?)? {
                                Term::NamedNode(n) => n,
                                other => {
                                    return Err(damaged(format!("predicate {other} is not an IRI")))
                                }
                            };
                            pred_cache = Some((b, v.clone()));
                            v
                        }
                    };
                    let object = parse_term(dict.object(o)?)?;
                    if !emit(Quad::new(subject, predicate, object, graph.clone())) {
                        return Ok(());
                    }
                }
            }
        }
        if !t.at_end() {
            return Err(damaged("SPO tile has trailing bytes"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod budget_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn put(out: &mut Vec<u8>, v: u64) {
        varint::put(out, v);
    }

    /// A dictionary section: `count` terms restarting every `interval` at `offsets`, its body
    /// in `chunks` (stored with `codec`).
    fn section(count: u64, interval: u64, offsets: &[u64], chunks: &[Vec<u8>]) -> Vec<u8> {
        let mut head = Vec::new();
        for v in [count, interval, offsets.len() as u64] {
            put(&mut head, v);
        }
        for &o in offsets {
            put(&mut head, o);
        }
        let mut out = Vec::new();
        put(&mut out, head.len() as u64);
        out.extend(head);
        put(&mut out, chunks.len() as u64);
        for c in chunks {
            put(&mut out, 0);
            put(&mut out, 0);
            put(&mut out, c.len() as u64);
        }
        for c in chunks {
            out.extend_from_slice(c);
        }
        out
    }

    fn entry(body: &mut Vec<u8>, shared: u64, suffix: &[u8]) {
        put(body, shared);
        put(body, suffix.len() as u64);
        body.extend_from_slice(suffix);
    }

    #[test]
    fn restart_runs_cannot_share_bytes() {
        let mut body = Vec::new();
        entry(&mut body, 0, b"<http://e/a>");
        let ok = section(1, 1, &[0], std::slice::from_ref(&body));
        assert_eq!(decode_section(&ok, 0, "s").unwrap(), ["<http://e/a>"]);
        // Two restarts at the same offset: the one run would be decoded twice.
        entry(&mut body, 0, b"<http://e/b>");
        let twice = section(2, 1, &[0, 0], std::slice::from_ref(&body));
        let e = decode_section(&twice, 0, "s").unwrap_err().to_string();
        assert!(e.contains("not strictly increasing"), "{e}");
        // A run reading past the next restart.
        let past = section(4, 2, &[0, 2], std::slice::from_ref(&body));
        assert!(decode_section(&past, 0, "s").is_err());
    }

    #[test]
    fn front_coding_and_totals_are_bounded() {
        // Each term repeats the previous one and adds a byte: quadratic once expanded.
        let n = 100_000u64;
        let mut body = Vec::new();
        entry(&mut body, 0, b"a");
        for i in 1..n {
            entry(&mut body, i, b"a");
        }
        let chain = section(n, n, &[0], &[zstd::bulk::compress(&body, 3).unwrap()]);
        let e = decode_section(&chain, 1, "s").unwrap_err().to_string();
        assert!(e.contains("expand beyond"), "{e}");
        // Chunks of zeros that decompress past what the section's size allows.
        let zeros = zstd::bulk::compress(&vec![0u8; 9 << 20], 3).unwrap();
        let bomb = section(1, 1, &[0], &[zeros.clone(), zeros]);
        let e = decode_section(&bomb, 1, "s").unwrap_err().to_string();
        assert!(e.contains("decompresses to more than"), "{e}");
    }
}
