//! Assembling a `.rete` file from sections: placeholder header, payloads streamed with their
//! checksums, then header and directory written in place; all into a temp file that is renamed
//! over the destination only when complete, so a failed build never leaves a partial file.

use crate::error::{Error, Result};
use crate::format::{
    Codec, Header, SectionEntry, ENTRY_LEN, HEADER_LEN, VERSION_MAJOR, VERSION_MINOR,
};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// Where a section's stored bytes come from.
#[derive(Debug)]
pub enum Payload {
    /// Bytes in memory.
    Bytes(Vec<u8>),
    /// A whole file (e.g. blocks spilled by a writer).
    File(PathBuf),
    /// A byte range of an existing file (e.g. a section of a provisional `.rete`).
    Copy {
        /// File to copy from.
        path: PathBuf,
        /// Offset of the range.
        offset: u64,
        /// Length of the range.
        len: u64,
    },
}

/// One section to write.
#[derive(Debug)]
pub struct SectionSpec {
    /// Kind (see [`crate::format::kind`]).
    pub kind: u16,
    /// Index among sections of its kind.
    pub index: u16,
    /// Codec of the stored bytes.
    pub codec: Codec,
    /// Decoded length (equals the stored length unless `codec` is zstd).
    pub raw_len: u64,
    /// The stored bytes.
    pub payload: Payload,
}

impl SectionSpec {
    /// A section stored as is.
    pub fn raw(kind: u16, index: u16, bytes: Vec<u8>) -> Self {
        Self {
            kind,
            index,
            codec: Codec::Raw,
            raw_len: bytes.len() as u64,
            payload: Payload::Bytes(bytes),
        }
    }

    /// A section compressed as one zstd frame.
    pub fn zstd(kind: u16, index: u16, bytes: &[u8], level: i32) -> Result<Self> {
        let stored =
            crate::format::zstd_compress(bytes, level).map_err(|e| Error::io("zstd", e))?;
        Ok(Self {
            kind,
            index,
            codec: Codec::Zstd,
            raw_len: bytes.len() as u64,
            payload: Payload::Bytes(stored),
        })
    }

    /// A directory stored in pages (zstd frames back to back, see [`crate::paged`]); its page
    /// table is a section of its own.
    pub fn paged(kind: u16, index: u16, dir: crate::paged::PagedDir) -> Self {
        Self {
            kind,
            index,
            codec: Codec::Zstd,
            raw_len: dir.raw_len,
            payload: Payload::Bytes(dir.stored),
        }
    }

    /// A section of independently compressed blocks (already compressed, as
    /// [`crate::block`]'s writers give them) held in memory.
    pub fn blocks(kind: u16, index: u16, bytes: Vec<u8>) -> Self {
        Self {
            kind,
            index,
            codec: Codec::Blocks,
            raw_len: bytes.len() as u64,
            payload: Payload::Bytes(bytes),
        }
    }

    /// A section of independently compressed blocks held in a file.
    pub fn blocks_file(kind: u16, index: u16, path: PathBuf, len: u64) -> Self {
        Self {
            kind,
            index,
            codec: Codec::Blocks,
            raw_len: len,
            payload: Payload::File(path),
        }
    }

    /// A copy of `entry` as stored in the `.rete` at `path`.
    pub fn copy_of(path: &Path, entry: &SectionEntry) -> Self {
        Self {
            kind: entry.kind,
            index: entry.index,
            codec: entry.codec,
            raw_len: entry.raw_len,
            payload: Payload::Copy {
                path: path.to_path_buf(),
                offset: entry.offset,
                len: entry.len,
            },
        }
    }
}

/// Everything that goes into a file, sections in file order.
#[derive(Debug)]
pub struct FileSpec {
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Distinct quads.
    pub quads: u64,
    /// Dictionary terms.
    pub terms: u64,
    /// Sections, in the order they are laid out.
    pub sections: Vec<SectionSpec>,
}

/// A file written beside its destination and renamed onto it only by [`AtomicFile::commit`]:
/// a failure (full disk, cancel, crash) leaves the destination as it was and no partial file
/// (the temp file is removed when dropped).
#[derive(Debug)]
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    out: PathBuf,
}

impl AtomicFile {
    /// A temp file named `{prefix}XXXXXX.tmp` in the directory of `out`, readable by others (0644
    /// before the umask: a published file must be readable by a web server running as another
    /// user).
    pub fn new(out: &Path, prefix: &str) -> Result<Self> {
        let dir = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix).suffix(".tmp");
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        let tmp = builder
            .tempfile_in(&dir)
            .map_err(|e| Error::io(dir.display(), e))?;
        Ok(Self {
            tmp,
            out: out.to_path_buf(),
        })
    }

    /// The temp file, to write to.
    pub fn file(&self) -> &File {
        self.tmp.as_file()
    }

    /// Syncs the temp file and renames it onto the destination.
    pub fn commit(self) -> Result<()> {
        let name = self.out.display().to_string();
        self.tmp
            .as_file()
            .sync_all()
            .map_err(|e| Error::io(&name, e))?;
        self.tmp
            .persist(&self.out)
            .map_err(|e| Error::io(&name, e.error))?;
        Ok(())
    }
}

/// Writes `spec` to `out` atomically (temp file in the same directory, then rename).
pub fn write_file(out: &Path, spec: &FileSpec) -> Result<()> {
    let tmp = AtomicFile::new(out, ".rete-build-")?;
    let name = out.display().to_string();
    let dir_len = spec.sections.len() * ENTRY_LEN;
    let mut w = BufWriter::with_capacity(1 << 20, tmp.file());
    w.write_all(&vec![0u8; HEADER_LEN + dir_len])
        .map_err(|e| Error::io(&name, e))?;
    let mut offset = (HEADER_LEN + dir_len) as u64;
    let mut entries = Vec::with_capacity(spec.sections.len());
    for s in &spec.sections {
        let (len, checksum) = copy_payload(&s.payload, &mut w, &name)?;
        entries.push(SectionEntry {
            kind: s.kind,
            index: s.index,
            codec: s.codec,
            offset,
            len,
            raw_len: s.raw_len,
            checksum,
        });
        offset += len;
    }
    let mut dir_bytes = Vec::with_capacity(dir_len);
    for e in &entries {
        dir_bytes.extend_from_slice(&e.to_bytes());
    }
    // A file whose dictionary blocks need its zstd dictionary says so with format 1.2; the
    // others stay 1.1, what readers before it read.
    let minor = if entries
        .iter()
        .any(|e| e.kind == crate::format::kind::DICT_ZSTD)
    {
        crate::format::VERSION_MINOR_DICT_ZSTD
    } else {
        VERSION_MINOR
    };
    let header = Header {
        major: VERSION_MAJOR,
        minor,
        flags: spec.flags,
        quads: spec.quads,
        terms: spec.terms,
        sections: entries.len() as u32,
        file_len: offset,
        dir_checksum: xxh3_64(&dir_bytes),
    };
    w.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io(&name, e))?;
    w.write_all(&header.to_bytes())
        .map_err(|e| Error::io(&name, e))?;
    w.write_all(&dir_bytes).map_err(|e| Error::io(&name, e))?;
    w.flush().map_err(|e| Error::io(&name, e))?;
    drop(w);
    tmp.commit()
}

fn copy_payload(p: &Payload, w: &mut impl Write, name: &str) -> Result<(u64, u64)> {
    let mut h = Xxh3::new();
    let mut n = 0u64;
    let mut pump = |r: &mut dyn Read, path: &str| -> Result<()> {
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let k = r.read(&mut buf).map_err(|e| Error::io(path, e))?;
            if k == 0 {
                return Ok(());
            }
            h.update(&buf[..k]);
            w.write_all(&buf[..k]).map_err(|e| Error::io(name, e))?;
            n += k as u64;
        }
    };
    match p {
        Payload::Bytes(b) => pump(&mut &b[..], name)?,
        Payload::File(path) => {
            let mut f = File::open(path).map_err(|e| Error::io(path.display(), e))?;
            pump(&mut f, &path.display().to_string())?;
        }
        Payload::Copy { path, offset, len } => {
            let mut f = File::open(path).map_err(|e| Error::io(path.display(), e))?;
            f.seek(SeekFrom::Start(*offset))
                .map_err(|e| Error::io(path.display(), e))?;
            pump(&mut f.take(*len), &path.display().to_string())?;
            if n != *len {
                return Err(Error::io(
                    path.display(),
                    std::io::ErrorKind::UnexpectedEof.into(),
                ));
            }
        }
    }
    Ok((n, h.digest()))
}
