//! Input files: syntax detection, decompression, streaming parsing into quads, and syntax errors
//! that name the file, line and column.

use crate::BuildError;
use oxrdf::{BlankNodeRef, GraphNameRef, QuadRef, TermRef};
use rete_core::term;
use rustc_hash::FxHashMap;
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
        // The compressed bytes consumed, for the decompression bound.
        let stored = Arc::new(AtomicU64::new(0));
        let counted = Box::new(Counted {
            inner: raw,
            read: stored.clone(),
        });
        let bounded = |inner: Box<dyn Read + Send>| Bounded {
            inner,
            stored,
            decoded: 0,
            floor: DECOMPRESSED_FLOOR,
        };
        Ok(match compression {
            Compression::None => Box::new(BufReader::with_capacity(1 << 16, counted)),
            Compression::Gzip => Box::new(BufReader::with_capacity(
                1 << 16,
                bounded(Box::new(flate2::read::MultiGzDecoder::new(counted))),
            )),
            Compression::Zstd => Box::new(BufReader::with_capacity(
                1 << 16,
                bounded(Box::new(
                    zstd::stream::read::Decoder::new(counted).map_err(|e| BuildError::Io {
                        path: self.name(),
                        source: e,
                    })?,
                )),
            )),
        })
    }
}

/// Decompressed bytes an input may produce in all, at least...
pub const DECOMPRESSED_FLOOR: u64 = 1 << 30;
/// ...or this many per compressed byte read, if more (gzip cannot pass ~1032:1; real RDF
/// compresses 5–50:1).
pub const MAX_DECOMPRESSION_RATIO: u64 = 2000;

/// Fails once the decompressed stream outgrows what its compressed bytes can justify: a small
/// `.zst` must not fill the disk through the build's spill files.
struct Bounded {
    inner: Box<dyn Read + Send>,
    stored: Arc<AtomicU64>,
    decoded: u64,
    /// [`DECOMPRESSED_FLOOR`] (smaller in tests).
    floor: u64,
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.decoded += n as u64;
        let stored = self.stored.load(Ordering::Relaxed);
        let limit = self
            .floor
            .max(stored.saturating_mul(MAX_DECOMPRESSION_RATIO));
        if self.decoded > limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "decompresses to more than {limit} bytes from {stored} (over \
                     {MAX_DECOMPRESSION_RATIO}:1 past the first {} bytes)",
                    self.floor
                ),
            ));
        }
        Ok(n)
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

    fn is_full(&self) -> bool {
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
struct Renamer {
    input: usize,
    /// First byte of an encoded blank node.
    tag: u8,
    /// Encoded parser label → encoded new label.
    map: FxHashMap<Vec<u8>, Vec<u8>>,
}

impl Renamer {
    fn new(input: usize) -> Result<Self, BuildError> {
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
    fn feed(&mut self, batch: &Batch, sink: &mut QuadSink<'_>) -> Result<(), BuildError> {
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

/// How an input is parsed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ParseOptions<'a> {
    /// Base IRI of relative IRIs.
    pub(crate) base_iri: Option<&'a str>,
    /// Threads to use: 1 parses on the calling thread; more parse on other threads while the
    /// calling thread interns (N-Triples and N-Quads split into line-aligned chunks over
    /// `threads` parsers, the other syntaxes on one).
    pub(crate) threads: usize,
    /// Bytes of a chunk of N-Triples or N-Quads.
    pub(crate) chunk_bytes: usize,
}

/// Converts a Turtle-family error, lines counted from `lines` before the parsed text.
pub(crate) fn ttl_error(name: &str, e: oxttl::TurtleParseError, lines: u64) -> BuildError {
    match e {
        oxttl::TurtleParseError::Io(io) => BuildError::Io {
            path: name.to_owned(),
            source: io,
        },
        oxttl::TurtleParseError::Syntax(s) => {
            let loc = s.location();
            BuildError::Syntax {
                input: name.to_owned(),
                line: loc.start.line + lines + 1,
                column: loc.start.column + 1,
                message: s.message().to_owned(),
            }
        }
    }
}

/// Parses input number `index`, handing each quad to `sink` in input order (on the calling
/// thread, whatever `opts.threads`).
pub(crate) fn parse(
    input: &Input,
    index: usize,
    opts: ParseOptions<'_>,
    read: Option<Arc<AtomicU64>>,
    sink: &mut QuadSink<'_>,
) -> Result<ParseSummary, BuildError> {
    let (syntax, _) = input.resolve()?;
    let name = input.name();
    let mut ren = Renamer::new(index)?;
    let mut statements = 0u64;
    let mut consume = |b: Batch| -> Result<(), BuildError> {
        statements += b.len() as u64;
        ren.feed(&b, sink)
    };
    let prefixes = if syntax == Syntax::UpstreamRete {
        parse_upstream(input, &name, read, &mut consume).map_err(|e| naming(&name, e))?;
        Vec::new()
    } else {
        let reader = input.open_counted(read)?;
        let parsed = if opts.threads < 2 {
            produce(input, syntax, &name, opts.base_iri, reader, &mut consume)
        } else if matches!(syntax, Syntax::NTriples | Syntax::NQuads) {
            crate::lines::parse(
                syntax == Syntax::NQuads,
                &name,
                reader,
                opts.threads,
                opts.chunk_bytes,
                &mut consume,
            )
            .map(|_| Vec::new())
        } else {
            pipeline(input, syntax, &name, opts.base_iri, reader, &mut consume)
        };
        parsed.map_err(|e| naming(&name, e))?
    };
    Ok(ParseSummary {
        statements,
        prefixes,
    })
}

/// `e` naming the input `name` if it does not already (a term over the length limit is found
/// where the input's name is not known).
fn naming(name: &str, e: BuildError) -> BuildError {
    match e {
        BuildError::Invalid(m) if !m.starts_with(name) => {
            BuildError::Invalid(format!("{name}: {m}"))
        }
        e => e,
    }
}

/// Parses on another thread while the calling thread consumes the batches (bounded channel:
/// a few batches in flight).
fn pipeline(
    input: &Input,
    syntax: Syntax,
    name: &str,
    base_iri: Option<&str>,
    reader: Box<dyn BufRead + Send>,
    consume: &mut dyn FnMut(Batch) -> Result<(), BuildError>,
) -> Result<Vec<(String, String)>, BuildError> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
        let producer = s.spawn(move || {
            produce(input, syntax, name, base_iri, reader, &mut |b| {
                // The consumer stopped (error or cancel): its error is the one reported.
                tx.send(b).map_err(|_| BuildError::Cancelled)
            })
        });
        let mut consumed = Ok(());
        for b in rx.iter() {
            if let Err(e) = consume(b) {
                consumed = Err(e);
                break;
            }
        }
        drop(rx);
        let produced = producer
            .join()
            .map_err(|_| BuildError::Invalid(format!("{name}: the parser thread panicked")));
        consumed?;
        produced?
    })
}

/// Parses a stream into batches handed to `emit`; returns the prefixes declared.
fn produce(
    input: &Input,
    syntax: Syntax,
    name: &str,
    base_iri: Option<&str>,
    reader: Box<dyn BufRead + Send>,
    emit: &mut dyn FnMut(Batch) -> Result<(), BuildError>,
) -> Result<Vec<(String, String)>, BuildError> {
    let mut batch = Batch::default();
    let r = {
        let mut push = |q: QuadRef<'_>| -> Result<(), BuildError> {
            batch.push(q)?;
            if batch.is_full() {
                emit(std::mem::take(&mut batch))?;
            }
            Ok(())
        };
        statements(input, syntax, name, base_iri, reader, &mut push)
    };
    // The quads before an error are consumed first, as they were parsed before it.
    if batch.len() > 0 {
        emit(batch)?;
    }
    r
}

/// Parses a stream, handing each quad to `sink`; returns the prefixes declared.
fn statements(
    input: &Input,
    syntax: Syntax,
    name: &str,
    base_iri: Option<&str>,
    reader: Box<dyn BufRead + Send>,
    sink: &mut dyn FnMut(QuadRef<'_>) -> Result<(), BuildError>,
) -> Result<Vec<(String, String)>, BuildError> {
    let bad_base =
        |e: oxrdf::IriParseError| BuildError::Invalid(format!("invalid --base IRI: {e}"));
    let ttl_err = |e| ttl_error(name, e, 0);
    let collect = |p: &mut dyn Iterator<Item = (&str, &str)>| {
        p.map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
    };
    Ok(match syntax {
        Syntax::UpstreamRete => {
            return Err(BuildError::Invalid(
                "upstream rete input read as a stream".into(),
            ))
        }
        Syntax::JsonLd => {
            let mut p = oxjsonld::JsonLdParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(crate::depth::JsonDepth::new(reader));
            for q in it.by_ref() {
                let q = q.map_err(|e| match e {
                    oxjsonld::JsonLdParseError::Io(io) => BuildError::Io {
                        path: name.to_owned(),
                        source: io,
                    },
                    oxjsonld::JsonLdParseError::Syntax(s) => {
                        let (line, column) = s
                            .location()
                            .map_or((0, 0), |l| (l.start.line + 1, l.start.column + 1));
                        BuildError::Syntax {
                            input: name.to_owned(),
                            line,
                            column,
                            message: s.to_string(),
                        }
                    }
                })?;
                sink(q.as_ref())?;
            }
            collect(&mut it.prefixes())
        }
        Syntax::NTriples => {
            for t in oxttl::NTriplesParser::new().for_reader(reader) {
                sink(
                    t.map_err(ttl_err)?
                        .as_ref()
                        .in_graph(GraphNameRef::DefaultGraph),
                )?;
            }
            Vec::new()
        }
        Syntax::NQuads => {
            for q in oxttl::NQuadsParser::new().for_reader(reader) {
                sink(q.map_err(ttl_err)?.as_ref())?;
            }
            Vec::new()
        }
        Syntax::Turtle => {
            let mut p = oxttl::TurtleParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(reader);
            for t in it.by_ref() {
                sink(
                    t.map_err(ttl_err)?
                        .as_ref()
                        .in_graph(GraphNameRef::DefaultGraph),
                )?;
            }
            collect(&mut it.prefixes())
        }
        Syntax::TriG => {
            let mut p = oxttl::TriGParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(reader);
            for q in it.by_ref() {
                sink(q.map_err(ttl_err)?.as_ref())?;
            }
            collect(&mut it.prefixes())
        }
        Syntax::RdfXml => {
            let mut p = oxrdfxml::RdfXmlParser::new();
            if let Some(b) = base_iri {
                p = p.with_base_iri(b).map_err(bad_base)?;
            }
            let mut it = p.for_reader(crate::entities::XmlEntities::new(reader));
            while let Some(t) = it.next() {
                match t {
                    Ok(t) => sink(t.as_ref().in_graph(GraphNameRef::DefaultGraph))?,
                    Err(oxrdfxml::RdfXmlParseError::Io(io)) => {
                        return Err(BuildError::Io {
                            path: name.to_owned(),
                            source: io,
                        })
                    }
                    Err(oxrdfxml::RdfXmlParseError::Syntax(s)) => {
                        // RDF/XML errors carry a byte offset only: turn it into line:column by
                        // re-reading the input up to that offset.
                        let (line, column) =
                            line_column(input, it.buffer_position()).unwrap_or((0, 0));
                        return Err(BuildError::Syntax {
                            input: name.to_owned(),
                            line,
                            column,
                            message: s.to_string(),
                        });
                    }
                }
            }
            collect(&mut it.prefixes())
        }
    })
}

/// Reads every quad of an upstream rete file (format 0x05/0x06).
fn parse_upstream(
    input: &Input,
    name: &str,
    read: Option<Arc<AtomicU64>>,
    consume: &mut dyn FnMut(Batch) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
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
    let mut batch = Batch::default();
    let mut failed = None;
    file.for_each_quad(&mut |q| {
        let r = batch.push(q.as_ref()).and_then(|()| {
            if batch.is_full() {
                consume(std::mem::take(&mut batch))
            } else {
                Ok(())
            }
        });
        match r {
            Ok(()) => true,
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
    if batch.len() > 0 {
        consume(batch)?;
    }
    Ok(())
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

#[cfg(test)]
mod bounded_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// A zstd bomb: 64 MiB of zeros in a few KB, read through the bound with a 1 MiB floor.
    #[test]
    fn decompression_beyond_the_ratio_is_an_error() {
        let zeros = vec![0u8; 64 << 20];
        let frame = zstd::bulk::compress(&zeros, 3).unwrap();
        let stored = Arc::new(AtomicU64::new(0));
        let counted = Counted {
            inner: Box::new(std::io::Cursor::new(frame)),
            read: stored.clone(),
        };
        let mut b = Bounded {
            inner: Box::new(zstd::stream::read::Decoder::new(counted).unwrap()),
            stored,
            decoded: 0,
            floor: 1 << 20,
        };
        let e = std::io::copy(&mut b, &mut std::io::sink()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("2000:1"), "{e}");
        // Data within the ratio passes whole.
        let text: Vec<u8> = (0..50_000u64)
            .flat_map(|i| {
                format!(
                    "<http://e/s{}> <http://e/p> \"{}\" .\n",
                    i * 7919 % 10007,
                    i * i
                )
                .into_bytes()
            })
            .collect();
        let frame = zstd::bulk::compress(&text, 3).unwrap();
        let stored = Arc::new(AtomicU64::new(0));
        let mut b = Bounded {
            inner: Box::new(
                zstd::stream::read::Decoder::new(Counted {
                    inner: Box::new(std::io::Cursor::new(frame)),
                    read: stored.clone(),
                })
                .unwrap(),
            ),
            stored,
            decoded: 0,
            floor: 1 << 20,
        };
        assert_eq!(
            std::io::copy(&mut b, &mut std::io::sink()).unwrap(),
            text.len() as u64
        );
    }
}
