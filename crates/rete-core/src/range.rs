//! Random-access byte sources. Everything the reader does goes through [`RangeReader`], so a
//! `.rete` is read the same way from memory, a local file, or (in `rete-http`) a web server.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Error of a [`RangeReader`]: where it happened and why.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}: {message}")]
pub struct RangeError {
    /// The file path or URL the read was against.
    pub source_name: String,
    /// What went wrong.
    pub message: String,
    /// The underlying I/O error, if any.
    #[source]
    pub io: Option<std::io::Error>,
}

impl RangeError {
    /// A new error for `source_name`.
    pub fn new(source_name: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            source_name: source_name.into(),
            message: message.into(),
            io: None,
        }
    }
}

/// A source of bytes that can be read at any offset. Implementations must be thread-safe:
/// concurrent queries share one reader.
pub trait RangeReader: Send + Sync + std::fmt::Debug {
    /// Total length in bytes.
    fn len(&self) -> u64;
    /// `true` if the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reads exactly `len` bytes at `offset`. Reading past the end is an error, never a short read.
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError>;
    /// Reads several ranges. Remote readers override this to coalesce neighbouring ranges into
    /// fewer requests; the default reads them one by one.
    fn read_many(&self, ranges: &[(u64, usize)]) -> Result<Vec<Vec<u8>>, RangeError> {
        ranges.iter().map(|&(o, l)| self.read_at(o, l)).collect()
    }
    /// A name for messages: a path or URL.
    fn name(&self) -> &str;
    /// `true` if every read costs a round trip (HTTP): the reader then fetches block
    /// directories page by page instead of whole.
    fn is_remote(&self) -> bool {
        false
    }
}

fn check_bounds(name: &str, total: u64, offset: u64, len: usize) -> Result<(), RangeError> {
    match offset.checked_add(len as u64) {
        Some(end) if end <= total => Ok(()),
        _ => Err(RangeError::new(
            name,
            format!("read of {len} bytes at offset {offset} is past the end ({total} bytes): the file is truncated"),
        )),
    }
}

/// An in-memory byte source.
#[derive(Debug, Clone)]
pub struct MemReader {
    data: Arc<[u8]>,
    name: String,
}

impl MemReader {
    /// Wraps `data`; `name` is used in messages.
    pub fn new(data: impl Into<Arc<[u8]>>, name: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            name: name.into(),
        }
    }
}

impl RangeReader for MemReader {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        check_bounds(&self.name, self.len(), offset, len)?;
        let start = offset as usize;
        Ok(self.data[start..start + len].to_vec())
    }
    fn name(&self) -> &str {
        &self.name
    }
}

/// A local file read with positional reads (no shared cursor, so no locking between threads).
#[derive(Debug)]
pub struct FileReader {
    file: File,
    len: u64,
    path: PathBuf,
    name: String,
}

impl FileReader {
    /// Opens `path` for reading.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, RangeError> {
        let path = path.as_ref().to_path_buf();
        let name = path.display().to_string();
        let file = File::open(&path).map_err(|e| RangeError {
            source_name: name.clone(),
            message: format!("cannot open: {e}"),
            io: Some(e),
        })?;
        let len = file
            .metadata()
            .map_err(|e| RangeError {
                source_name: name.clone(),
                message: format!("cannot stat: {e}"),
                io: Some(e),
            })?
            .len();
        Ok(Self {
            file,
            len,
            path,
            name,
        })
    }

    /// The path this reader was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl RangeReader for FileReader {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        check_bounds(&self.name, self.len, offset, len)?;
        let mut buf = vec![0; len];
        read_exact_at(&self.file, &mut buf, offset).map_err(|e| RangeError {
            source_name: self.name.clone(),
            message: format!("read of {len} bytes at offset {offset} failed: {e}"),
            io: Some(e),
        })?;
        Ok(buf)
    }
    fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Read statistics: how many requests and bytes went through a [`CountingReader`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ReadStats {
    /// Number of `read_at` calls that reached the inner reader (a `read_many` counts each range).
    pub requests: u64,
    /// Bytes returned by the inner reader.
    pub bytes: u64,
}

/// Wraps a reader and counts what passes through it; used by benchmarks, budgets and `--stats`.
#[derive(Debug)]
pub struct CountingReader<R> {
    inner: R,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl<R: RangeReader> CountingReader<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }
    /// The counts so far.
    pub fn stats(&self) -> ReadStats {
        ReadStats {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
    /// Resets the counts to zero.
    pub fn reset(&self) {
        self.requests.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
    }
    /// The wrapped reader.
    pub fn inner(&self) -> &R {
        &self.inner
    }
}

impl<R: RangeReader> RangeReader for CountingReader<R> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        let out = self.inner.read_at(offset, len)?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(out.len() as u64, Ordering::Relaxed);
        Ok(out)
    }
    // Passed on whole: a remote reader batches the ranges.
    fn read_many(&self, ranges: &[(u64, usize)]) -> Result<Vec<Vec<u8>>, RangeError> {
        let out = self.inner.read_many(ranges)?;
        self.requests.fetch_add(out.len() as u64, Ordering::Relaxed);
        self.bytes
            .fetch_add(out.iter().map(|b| b.len() as u64).sum(), Ordering::Relaxed);
        Ok(out)
    }
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn is_remote(&self) -> bool {
        self.inner.is_remote()
    }
}

impl<T: RangeReader + ?Sized> RangeReader for Arc<T> {
    fn len(&self) -> u64 {
        (**self).len()
    }
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, RangeError> {
        (**self).read_at(offset, len)
    }
    fn read_many(&self, ranges: &[(u64, usize)]) -> Result<Vec<Vec<u8>>, RangeError> {
        (**self).read_many(ranges)
    }
    fn name(&self) -> &str {
        (**self).name()
    }
    fn is_remote(&self) -> bool {
        (**self).is_remote()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_reader_bounds() {
        let r = MemReader::new(vec![1u8, 2, 3, 4], "mem");
        assert_eq!(r.read_at(1, 2).unwrap(), vec![2, 3]);
        assert!(r.read_at(3, 2).is_err());
        assert!(r.read_at(u64::MAX, 2).is_err());
    }

    #[test]
    fn file_reader_positional() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, b"hello world").unwrap();
        let r = FileReader::open(f.path()).unwrap();
        assert_eq!(r.len(), 11);
        assert_eq!(r.read_at(6, 5).unwrap(), b"world");
        assert!(r.read_at(7, 5).is_err());
        let c = CountingReader::new(r);
        c.read_at(0, 5).unwrap();
        assert_eq!(
            c.stats(),
            ReadStats {
                requests: 1,
                bytes: 5
            }
        );
    }
}
