//! A counted byte source that is either a local file or a URL: what the CLI's `--stats`, the
//! app's read counters and a coherence check in place measure.

use crate::HttpReader;
use rete_core::{CountingReader, FileReader, RangeError, RangeReader, ReadStats};
use std::path::Path;
use std::sync::Arc;

/// A `.rete` byte source with read counters: a local file through a [`CountingReader`], or a URL
/// through an [`HttpReader`] (which counts its own requests, cache hits excluded). Cheap to
/// clone; clones share the counters.
#[derive(Debug, Clone)]
pub enum CountedReader {
    /// A local file, counted.
    Local(Arc<CountingReader<FileReader>>),
    /// An HTTP(S) URL read with range requests.
    Remote(Arc<HttpReader>),
}

impl CountedReader {
    /// Opens `source`: a URL (see [`crate::is_url`]) with default HTTP options, else a local path.
    pub fn open(source: &str) -> Result<Self, RangeError> {
        if crate::is_url(source) {
            Ok(Self::remote(HttpReader::open(source)?))
        } else {
            Self::local(source)
        }
    }

    /// Opens a local file.
    pub fn local(path: impl AsRef<Path>) -> Result<Self, RangeError> {
        Ok(Self::Local(Arc::new(CountingReader::new(
            FileReader::open(path)?,
        ))))
    }

    /// Wraps an open HTTP reader.
    pub fn remote(reader: HttpReader) -> Self {
        Self::Remote(Arc::new(reader))
    }

    /// Bytes and requests that reached the file or the server so far.
    pub fn stats(&self) -> ReadStats {
        match self {
            Self::Local(r) => r.stats(),
            Self::Remote(r) => r.stats(),
        }
    }

    /// The byte budget of a remote file and the bytes counted against it so far (`(None, 0)`
    /// for a local file, which has no budget).
    pub fn budget(&self) -> (Option<u64>, u64) {
        match self {
            Self::Local(_) => (None, 0),
            Self::Remote(r) => (r.budget(), r.fetched()),
        }
    }

    /// A remote file's range cache: bytes held and its bound (`(0, 0)` for a local file, which
    /// keeps none: the OS caches its pages).
    pub fn cache_use(&self) -> (usize, usize) {
        match self {
            Self::Local(_) => (0, 0),
            Self::Remote(r) => r.cache_use(),
        }
    }

    /// Whether the bytes come over HTTP.
    pub fn is_remote(&self) -> bool {
        matches!(self, Self::Remote(_))
    }

    /// The same source as a shared [`RangeReader`], to open a `Rete` on.
    pub fn reader(&self) -> Arc<dyn RangeReader> {
        match self {
            Self::Local(r) => r.clone(),
            Self::Remote(r) => r.clone(),
        }
    }
}

impl RangeReader for CountedReader {
    fn len(&self) -> u64 {
        match self {
            Self::Local(r) => r.len(),
            Self::Remote(r) => r.len(),
        }
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        match self {
            Self::Local(r) => r.read_at(offset, len),
            Self::Remote(r) => r.read_at(offset, len),
        }
    }

    fn read_many(&self, ranges: &[(u64, usize)]) -> Result<Vec<Vec<u8>>, RangeError> {
        match self {
            Self::Local(r) => r.read_many(ranges),
            Self::Remote(r) => r.read_many(ranges),
        }
    }

    fn name(&self) -> &str {
        match self {
            Self::Local(r) => r.name(),
            Self::Remote(r) => r.name(),
        }
    }

    fn is_remote(&self) -> bool {
        matches!(self, Self::Remote(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_reads_are_counted_through_clones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bytes");
        std::fs::write(&path, b"0123456789").unwrap();
        let src = CountedReader::open(path.to_str().unwrap()).unwrap();
        assert!(!src.is_remote());
        let view = src.reader();
        assert_eq!(view.read_at(2, 3).unwrap(), b"234");
        assert_eq!(src.read_at(0, 1).unwrap(), b"0");
        assert_eq!(src.len(), 10);
        assert_eq!(
            src.stats(),
            ReadStats {
                requests: 2,
                bytes: 4
            }
        );
        assert!(CountedReader::open(dir.path().join("missing").to_str().unwrap()).is_err());
    }
}
