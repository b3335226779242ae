//! Parsing one input into quads: the parser for each syntax (the upstream parsers, N-Triples
//! and N-Quads split into line-aligned chunks over several threads), the pipeline between the
//! parsing threads and the caller, and syntax errors that name the file, line and column.

use super::batch::Renamer;
use super::{Batch, Input, QuadSink, Source, Syntax};
use crate::BuildError;
use oxrdf::{GraphNameRef, QuadRef};
use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What parsing one input produced besides its quads.
#[derive(Debug, Default)]
pub struct ParseSummary {
    /// Statements read.
    pub statements: u64,
    /// Prefixes declared (Turtle, TriG, RDF/XML).
    pub prefixes: Vec<(String, String)>,
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
    cancel: Option<Arc<dyn crate::Progress>>,
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
        let reader = input.open_counted(read, cancel)?;
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
pub(crate) fn statements(
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
        Source::Path(p) | Source::StdinCopy(p) => std::fs::read(p).map_err(io)?,
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
