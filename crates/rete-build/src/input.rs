//! Input files: syntax detection, decompression, streaming parsing into quads, and syntax errors
//! that name the file, line and column.

use crate::BuildError;
use oxrdf::{BlankNode, GraphName, NamedOrBlankNode, Quad, Term, Triple};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// An RDF syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// N-Triples.
    NTriples,
    /// N-Quads.
    NQuads,
    /// Turtle.
    Turtle,
    /// TriG.
    TriG,
    /// RDF/XML.
    RdfXml,
    /// JSON-LD 1.1 (remote contexts are not fetched).
    JsonLd,
    /// A `.rete` file written by upstream rete (format 0x05/0x06), read with `rete-upstream`.
    UpstreamRete,
}

impl Syntax {
    /// Parses a `--format` value or a file extension.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "nt" | "ntriples" | "n-triples" => Self::NTriples,
            "nq" | "nquads" | "n-quads" => Self::NQuads,
            "ttl" | "turtle" => Self::Turtle,
            "trig" => Self::TriG,
            "rdf" | "xml" | "owl" | "rdfxml" | "rdf/xml" => Self::RdfXml,
            "jsonld" | "json-ld" | "json" => Self::JsonLd,
            "upstream" | "upstream-rete" => Self::UpstreamRete,
            _ => return None,
        })
    }

    /// Name used in cards and messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::NTriples => "N-Triples",
            Self::NQuads => "N-Quads",
            Self::Turtle => "Turtle",
            Self::TriG => "TriG",
            Self::RdfXml => "RDF/XML",
            Self::JsonLd => "JSON-LD",
            Self::UpstreamRete => "upstream rete",
        }
    }
}

/// Compression of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// zstd (`.zst`).
    Zstd,
}

/// Where an input comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A file on disk.
    Path(PathBuf),
    /// Standard input.
    Stdin,
    /// Bytes in memory (tests, the app).
    Bytes {
        /// Name used in messages.
        name: String,
        /// The content.
        data: Arc<[u8]>,
    },
}

/// One input of a build.
#[derive(Debug, Clone)]
pub struct Input {
    /// The data.
    pub source: Source,
    /// Its syntax; `None` to detect it from the file name.
    pub syntax: Option<Syntax>,
    /// Its compression; `None` to detect it from the file name.
    pub compression: Option<Compression>,
}

impl Input {
    /// A file, syntax and compression from its name.
    pub fn path(path: impl Into<PathBuf>) -> Self {
        Self {
            source: Source::Path(path.into()),
            syntax: None,
            compression: None,
        }
    }

    /// In-memory data of a given syntax.
    pub fn bytes(name: impl Into<String>, data: impl Into<Arc<[u8]>>, syntax: Syntax) -> Self {
        Self {
            source: Source::Bytes {
                name: name.into(),
                data: data.into(),
            },
            syntax: Some(syntax),
            compression: Some(Compression::None),
        }
    }

    /// Name for messages and the card.
    pub fn name(&self) -> String {
        match &self.source {
            Source::Path(p) => p.display().to_string(),
            Source::Stdin => "-".into(),
            Source::Bytes { name, .. } => name.clone(),
        }
    }

    /// Syntax and compression, explicit or from the file name.
    pub fn resolve(&self) -> Result<(Syntax, Compression), BuildError> {
        let name = self.name();
        let lower = name.to_ascii_lowercase();
        let (stem, detected) = if let Some(s) = lower.strip_suffix(".gz") {
            (s.to_owned(), Compression::Gzip)
        } else if let Some(s) = lower.strip_suffix(".zst") {
            (s.to_owned(), Compression::Zstd)
        } else {
            (lower.clone(), Compression::None)
        };
        let compression = self.compression.unwrap_or(detected);
        let syntax = match self.syntax {
            Some(s) => s,
            None => {
                let ext = Path::new(&stem).extension().and_then(|e| e.to_str());
                // No extension, or `.rete` (ours or upstream's): look inside. Another unknown
                // extension stays an error (a `.txt` is more likely a mistake than RDF).
                let sniff = ext.is_none_or(|e| e == "rete");
                match (ext.and_then(Syntax::from_name), &self.source) {
                    (Some(s), _) => s,
                    (None, Source::Path(p)) if sniff => match crate::detect::detect(p) {
                        Ok(crate::detect::Detected::Rdf { syntax, .. }) => syntax,
                        Ok(crate::detect::Detected::UpstreamRete { .. }) => Syntax::UpstreamRete,
                        Ok(crate::detect::Detected::Rete) => {
                            return Err(BuildError::Invalid(format!(
                                "{name}: already a .rete file of this format (open it directly)"
                            )))
                        }
                        // An upstream format byte that is not read: say so, not "unknown syntax".
                        Err(e @ crate::detect::DetectError::UpstreamVersion { .. }) => {
                            return Err(BuildError::Invalid(e.to_string()))
                        }
                        Err(_) => return Err(BuildError::UnknownFormat { input: name }),
                    },
                    (None, _) => return Err(BuildError::UnknownFormat { input: name }),
                }
            }
        };
        let compression = if syntax == Syntax::UpstreamRete {
            Compression::None
        } else {
            compression
        };
        Ok((syntax, compression))
    }

    /// Size in bytes as stored (compressed size for `.gz`/`.zst`), if known.
    pub fn stored_len(&self) -> Option<u64> {
        match &self.source {
            Source::Path(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Source::Stdin => None,
            Source::Bytes { data, .. } => Some(data.len() as u64),
        }
    }

    fn open_raw(&self) -> Result<Box<dyn Read + Send>, BuildError> {
        Ok(match &self.source {
            Source::Path(p) => Box::new(File::open(p).map_err(|e| BuildError::Io {
                path: p.display().to_string(),
                source: e,
            })?),
            Source::Stdin => Box::new(std::io::stdin()),
            Source::Bytes { data, .. } => Box::new(std::io::Cursor::new(data.clone())),
        })
    }

    /// Opens the decompressed byte stream.
    pub fn open(&self) -> Result<Box<dyn BufRead + Send>, BuildError> {
        self.open_counted(None)
    }

    /// Opens the decompressed byte stream; `read` counts the stored bytes consumed.
    pub(crate) fn open_counted(
        &self,
        read: Option<Arc<AtomicU64>>,
    ) -> Result<Box<dyn BufRead + Send>, BuildError> {
        let (_, compression) = self.resolve()?;
        let mut raw = self.open_raw()?;
        if let Some(read) = read {
            raw = Box::new(Counted { inner: raw, read });
        }
        Ok(match compression {
            Compression::None => Box::new(BufReader::with_capacity(1 << 16, raw)),
            Compression::Gzip => Box::new(BufReader::with_capacity(
                1 << 16,
                flate2::read::MultiGzDecoder::new(raw),
            )),
            Compression::Zstd => Box::new(BufReader::with_capacity(
                1 << 16,
                zstd::stream::read::Decoder::new(raw).map_err(|e| BuildError::Io {
                    path: self.name(),
                    source: e,
                })?,
            )),
        })
    }
}

/// Counts the bytes read through it, for progress.
struct Counted {
    inner: Box<dyn Read + Send>,
    read: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What parsing one input produced besides its quads.
#[derive(Debug, Default)]
pub struct ParseSummary {
    /// Statements read.
    pub statements: u64,
    /// Prefixes declared (Turtle, TriG, RDF/XML).
    pub prefixes: Vec<(String, String)>,
}

/// Gives blank nodes labels that depend only on the input number and the order of first
/// appearance, so builds are reproducible (parsers mint random labels for `[]`) and blank nodes
/// of different inputs never merge.
struct BnodeRenamer {
    input: usize,
    map: HashMap<String, BlankNode>,
}

impl BnodeRenamer {
    fn rename(&mut self, b: &BlankNode) -> BlankNode {
        let n = self.map.len();
        let input = self.input;
        self.map
            .entry(b.as_str().to_owned())
            .or_insert_with(|| BlankNode::new_unchecked(format!("b{input}x{n}")))
            .clone()
    }
    fn subject(&mut self, s: NamedOrBlankNode) -> NamedOrBlankNode {
        match s {
            NamedOrBlankNode::BlankNode(b) => self.rename(&b).into(),
            other => other,
        }
    }
    fn term(&mut self, t: Term) -> Term {
        match t {
            Term::BlankNode(b) => self.rename(&b).into(),
            other => other,
        }
    }
    fn graph(&mut self, g: GraphName) -> GraphName {
        match g {
            GraphName::BlankNode(b) => self.rename(&b).into(),
            other => other,
        }
    }
    fn quad(&mut self, q: Quad) -> Quad {
        Quad::new(
            self.subject(q.subject),
            q.predicate,
            self.term(q.object),
            self.graph(q.graph_name),
        )
    }
    fn triple(&mut self, t: Triple) -> Quad {
        Quad::new(
            self.subject(t.subject),
            t.predicate,
            self.term(t.object),
            GraphName::DefaultGraph,
        )
    }
}

/// Parses input number `index`, handing each quad to `sink`.
pub fn parse(
    input: &Input,
    index: usize,
    base_iri: Option<&str>,
    read: Option<Arc<AtomicU64>>,
    sink: &mut dyn FnMut(Quad) -> Result<(), BuildError>,
) -> Result<ParseSummary, BuildError> {
    let (syntax, _) = input.resolve()?;
    let name = input.name();
    let mut ren = BnodeRenamer {
        input: index,
        map: HashMap::new(),
    };
    if syntax == Syntax::UpstreamRete {
        return parse_upstream(input, &name, &mut ren, read, sink);
    }
    let reader = input.open_counted(read)?;
    let mut summary = ParseSummary::default();
    let bad_base =
        |e: oxrdf::IriParseError| BuildError::Invalid(format!("invalid --base IRI: {e}"));
    let ttl_err = |e: oxttl::TurtleParseError| match e {
        oxttl::TurtleParseError::Io(io) => BuildError::Io {
            path: name.clone(),
            source: io,
        },
        oxttl::TurtleParseError::Syntax(s) => {
            let loc = s.location();
            BuildError::Syntax {
                input: name.clone(),
                line: loc.start.line + 1,
                column: loc.start.column + 1,
                message: s.message().to_owned(),
            }
        }
    };
    match syntax {
        Syntax::UpstreamRete => unreachable_upstream()?,
        Syntax::JsonLd => {
            let mut p = oxjsonld::JsonLdParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(reader);
            for q in it.by_ref() {
                let q = q.map_err(|e| match e {
                    oxjsonld::JsonLdParseError::Io(io) => BuildError::Io {
                        path: name.clone(),
                        source: io,
                    },
                    oxjsonld::JsonLdParseError::Syntax(s) => {
                        let (line, column) = s
                            .location()
                            .map_or((0, 0), |l| (l.start.line + 1, l.start.column + 1));
                        BuildError::Syntax {
                            input: name.clone(),
                            line,
                            column,
                            message: s.to_string(),
                        }
                    }
                })?;
                sink(ren.quad(q))?;
                summary.statements += 1;
            }
            summary.prefixes = it
                .prefixes()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        }
        Syntax::NTriples => {
            for t in oxttl::NTriplesParser::new().for_reader(reader) {
                sink(ren.triple(t.map_err(ttl_err)?))?;
                summary.statements += 1;
            }
        }
        Syntax::NQuads => {
            for q in oxttl::NQuadsParser::new().for_reader(reader) {
                sink(ren.quad(q.map_err(ttl_err)?))?;
                summary.statements += 1;
            }
        }
        Syntax::Turtle => {
            let mut p = oxttl::TurtleParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(reader);
            for t in it.by_ref() {
                sink(ren.triple(t.map_err(ttl_err)?))?;
                summary.statements += 1;
            }
            summary.prefixes = it
                .prefixes()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        }
        Syntax::TriG => {
            let mut p = oxttl::TriGParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(reader);
            for q in it.by_ref() {
                sink(ren.quad(q.map_err(ttl_err)?))?;
                summary.statements += 1;
            }
            summary.prefixes = it
                .prefixes()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        }
        Syntax::RdfXml => {
            let mut p = oxrdfxml::RdfXmlParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(reader);
            while let Some(t) = it.next() {
                match t {
                    Ok(t) => {
                        sink(ren.triple(t))?;
                        summary.statements += 1;
                    }
                    Err(oxrdfxml::RdfXmlParseError::Io(io)) => {
                        return Err(BuildError::Io {
                            path: name,
                            source: io,
                        })
                    }
                    Err(oxrdfxml::RdfXmlParseError::Syntax(s)) => {
                        // RDF/XML errors carry a byte offset only: turn it into line:column by
                        // re-reading the input up to that offset.
                        let (line, column) =
                            line_column(input, it.buffer_position()).unwrap_or((0, 0));
                        return Err(BuildError::Syntax {
                            input: name,
                            line,
                            column,
                            message: s.to_string(),
                        });
                    }
                }
            }
            summary.prefixes = it
                .prefixes()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        }
    }
    Ok(summary)
}

/// Upstream files are read by random access, not as a stream: handled before the stream opens.
fn unreachable_upstream() -> Result<(), BuildError> {
    Err(BuildError::Invalid(
        "upstream rete input read as a stream".into(),
    ))
}

/// Reads every quad of an upstream rete file (format 0x05/0x06).
fn parse_upstream(
    input: &Input,
    name: &str,
    ren: &mut BnodeRenamer,
    read: Option<Arc<AtomicU64>>,
    sink: &mut dyn FnMut(Quad) -> Result<(), BuildError>,
) -> Result<ParseSummary, BuildError> {
    let io = |e: std::io::Error| BuildError::Io {
        path: name.to_owned(),
        source: e,
    };
    let bytes = match &input.source {
        Source::Path(p) => std::fs::read(p).map_err(io)?,
        Source::Bytes { data, .. } => data.to_vec(),
        Source::Stdin => {
            let mut v = Vec::new();
            std::io::stdin().read_to_end(&mut v).map_err(io)?;
            v
        }
    };
    if let Some(r) = read {
        r.fetch_add(bytes.len() as u64, Ordering::Relaxed);
    }
    let bad = |e: rete_upstream::Error| BuildError::Invalid(format!("{name}: {e}"));
    let file = rete_upstream::UpstreamFile::from_bytes(bytes).map_err(bad)?;
    let mut summary = ParseSummary::default();
    let mut failed = None;
    file.for_each_quad(&mut |q| {
        if failed.is_some() {
            return false;
        }
        match sink(ren.quad(q)) {
            Ok(()) => {
                summary.statements += 1;
                true
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })
    .map_err(bad)?;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(summary)
}

/// 1-based line and column (in characters) of byte `offset` of the decompressed input.
fn line_column(input: &Input, offset: u64) -> Option<(u64, u64)> {
    if matches!(input.source, Source::Stdin) {
        return None;
    }
    let mut r = input.open().ok()?;
    let mut buf = vec![0u8; usize::try_from(offset).ok()?];
    let n = read_up_to(&mut r, &mut buf);
    let before = &buf[..n];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() as u64 + 1;
    Some((line, column))
}

fn read_up_to(r: &mut dyn Read, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}
