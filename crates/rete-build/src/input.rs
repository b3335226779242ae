//! Input files: syntax detection, decompression, streaming parsing into quads, and syntax errors
//! that name the file, line and column.

mod batch;
mod parse;

pub(crate) use batch::{Batch, QuadSink};
#[cfg(feature = "fuzzing")]
pub(crate) use parse::statements;
pub use parse::ParseSummary;
pub(crate) use parse::{parse, ttl_error, ParseOptions};

use crate::syntax::{Compression, Syntax};
use crate::BuildError;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where an input comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A file on disk.
    Path(PathBuf),
    /// Standard input.
    Stdin,
    /// Standard input copied to this file by the build, so that it can be read twice (named
    /// `-` in messages and the card, as standard input).
    StdinCopy(PathBuf),
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
            Source::Stdin | Source::StdinCopy(_) => "-".into(),
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
                    (None, Source::Path(p) | Source::StdinCopy(p)) if sniff => {
                        match crate::detect::detect(p) {
                            Ok(crate::detect::Detected::Rdf { syntax, .. }) => syntax,
                            Ok(crate::detect::Detected::UpstreamRete { .. }) => {
                                Syntax::UpstreamRete
                            }
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
                        }
                    }
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
            Source::Path(p) | Source::StdinCopy(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Source::Stdin => None,
            Source::Bytes { data, .. } => Some(data.len() as u64),
        }
    }

    fn open_raw(&self) -> Result<Box<dyn Read + Send>, BuildError> {
        Ok(match &self.source {
            Source::Path(p) | Source::StdinCopy(p) => {
                Box::new(File::open(p).map_err(|e| BuildError::Io {
                    path: p.display().to_string(),
                    source: e,
                })?)
            }
            Source::Stdin => Box::new(std::io::stdin()),
            Source::Bytes { data, .. } => Box::new(std::io::Cursor::new(data.clone())),
        })
    }

    /// Opens the decompressed byte stream.
    pub fn open(&self) -> Result<Box<dyn BufRead + Send>, BuildError> {
        self.open_counted(None, None)
    }

    /// Opens the decompressed byte stream; `read` counts the stored bytes consumed; a read
    /// after `cancel` says stop fails ([`CancelledRead`]), so a parser inside one huge statement
    /// (a literal of a gigabyte it must read whole) stops too.
    pub(crate) fn open_counted(
        &self,
        read: Option<Arc<AtomicU64>>,
        cancel: Option<Arc<dyn crate::Progress>>,
    ) -> Result<Box<dyn BufRead + Send>, BuildError> {
        let (_, compression) = self.resolve()?;
        let mut raw = self.open_raw()?;
        if let Some(read) = read {
            raw = Box::new(Counted {
                inner: raw,
                read,
                cancel,
            });
        }
        // The compressed bytes consumed, for the decompression bound.
        let stored = Arc::new(AtomicU64::new(0));
        let counted = Box::new(Counted {
            inner: raw,
            read: stored.clone(),
            cancel: None,
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

/// Counts the bytes read through it, for progress; fails once `cancel` says stop.
struct Counted {
    inner: Box<dyn Read + Send>,
    read: Arc<AtomicU64>,
    cancel: Option<Arc<dyn crate::Progress>>,
}

/// The error a read of a cancelled build fails with (inside an `io::Error`; the build reports
/// [`BuildError::Cancelled`]).
#[derive(Debug)]
pub(crate) struct CancelledRead;

impl std::fmt::Display for CancelledRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("build cancelled")
    }
}

impl std::error::Error for CancelledRead {}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.as_ref().is_some_and(|c| c.cancelled()) {
            // Not `Interrupted`: readers retry that one.
            return Err(std::io::Error::other(CancelledRead));
        }
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
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
            cancel: None,
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
                    cancel: None,
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
