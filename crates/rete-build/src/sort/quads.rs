//! Parsed quads on their way to the sort: the in-memory tail and spilled parts ([`ProvQuads`]),
//! the spill files' record format, and the writer of final-id quads packed as SPO keys
//! ([`PackedWriter`]). Separate from the sort itself, which only reads these files back.

use super::{Packing, PermPacking};
use crate::spill::{self, Spill};
use crate::BuildError;
use rete_core::Perm;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const PROV_LEN: usize = 16;

/// Quads: spilled parts on disk plus the in-memory tail.
#[derive(Debug, Default)]
pub struct ProvQuads {
    pub(crate) mem: Vec<[u32; 4]>,
    pub(crate) spills: Vec<PathBuf>,
    /// While their ids are chunk-local: where each dictionary chunk's parts end in `spills`.
    pub(crate) chunk_ends: Vec<usize>,
    pub(crate) total: u64,
    /// With final ids: how the parts are packed (see [`PackedWriter`]) and the keys will be.
    pub(crate) packing: Option<Packing>,
}

pub(crate) fn io_err(path: &Path, e: std::io::Error) -> BuildError {
    BuildError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

impl ProvQuads {
    /// No quads yet, to be written with final ids packed as `packing` says.
    pub(crate) fn packed(packing: Option<Packing>) -> Self {
        Self {
            packing,
            ..Self::default()
        }
    }

    pub(crate) fn push(&mut self, q: [u32; 4]) {
        self.mem.push(q);
        self.total += 1;
    }

    /// Writes the in-memory quads to a new spill file (a part) in `dir`, an empty one too.
    pub(crate) fn spill(
        &mut self,
        dir: &Path,
        name: &str,
        spill: &Spill,
    ) -> Result<(), BuildError> {
        let path = dir.join(format!("{name}-{}.bin", self.spills.len()));
        write_quads(&path, &self.mem, spill)?;
        self.spills.push(path);
        self.mem = Vec::new();
        Ok(())
    }

    /// Ends the current dictionary chunk's parts (after the last one was spilled).
    pub(crate) fn end_chunk(&mut self) {
        self.chunk_ends.push(self.spills.len());
    }

    /// Removes the spill files.
    pub(crate) fn remove(self, spill: &Spill) {
        for p in &self.spills {
            spill::remove(p, spill);
        }
    }

    /// Calls `f` on every quad: spilled ones first, then the in-memory ones.
    #[cfg(test)]
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        for path in &self.spills {
            self.read_part(path, &mut f)?;
        }
        for q in &self.mem {
            f(*q)?;
        }
        Ok(())
    }

    /// Bytes of a quad in a spilled part.
    pub(super) fn record_len(&self) -> usize {
        self.packing
            .as_ref()
            .map_or(PROV_LEN, |p| p.of_perm(Perm::Spo).key_bytes())
    }

    /// Calls `f` on the key in `p`'s packing of every quad of one of the spilled parts: packed
    /// parts are repacked (fields moved, no lookup), others packed.
    pub(super) fn part_keys(
        &self,
        path: &Path,
        p: PermPacking<'_>,
        mut f: impl FnMut(u128) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        let Some(packing) = &self.packing else {
            return read_quads(path, |q| f(p.pack(q)));
        };
        let spo = packing.of_perm(Perm::Spo);
        if spo.fits64() {
            read_records::<8>(path, |rec| {
                f(p.repack(spo, u128::from(u64::from_le_bytes(*rec))))
            })
        } else {
            read_records::<16>(path, |rec| f(p.repack(spo, u128::from_le_bytes(*rec))))
        }
    }

    /// Calls `f` on every quad of one of the spilled parts.
    #[cfg(test)]
    pub(crate) fn read_part(
        &self,
        path: &Path,
        mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        match &self.packing {
            None => read_quads(path, f),
            Some(packing) => {
                let spo = packing.of_perm(Perm::Spo);
                self.part_keys(path, spo, |v| f(spo.unpack(v)))
            }
        }
    }
}

/// Writes quads of `u32` ids to a spill file.
pub(crate) fn write_quads(
    path: &Path,
    quads: &[[u32; 4]],
    spill: &Spill,
) -> Result<(), BuildError> {
    let mut w = QuadWriter::create(path)?;
    for q in quads {
        w.push(*q)?;
    }
    w.finish(spill)?;
    Ok(())
}

/// Streams quads of `u32` ids into a spill file.
pub(crate) struct QuadWriter<'a> {
    pub(super) w: BufWriter<File>,
    pub(super) path: &'a Path,
    pub(super) n: u64,
}

impl<'a> QuadWriter<'a> {
    pub(crate) fn create(path: &'a Path) -> Result<Self, BuildError> {
        Ok(Self {
            w: BufWriter::with_capacity(1 << 20, File::create(path).map_err(|e| io_err(path, e))?),
            path,
            n: 0,
        })
    }

    pub(crate) fn push(&mut self, q: [u32; 4]) -> Result<(), BuildError> {
        let mut rec = [0u8; PROV_LEN];
        for (i, v) in q.iter().enumerate() {
            rec[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.n += 1;
        self.w.write_all(&rec).map_err(|e| io_err(self.path, e))
    }

    /// Flushes; returns the number of quads written.
    pub(crate) fn finish(mut self, spill: &Spill) -> Result<u64, BuildError> {
        self.w.flush().map_err(|e| io_err(self.path, e))?;
        spill.wrote(self.n * PROV_LEN as u64);
        Ok(self.n)
    }
}

/// Calls `f` on every quad of a spill file written by a [`QuadWriter`].
pub(crate) fn read_quads(
    path: &Path,
    mut f: impl FnMut([u32; 4]) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    read_records::<PROV_LEN>(path, |rec| {
        let mut q = [0u32; 4];
        for (v, b) in q.iter_mut().zip(rec.chunks_exact(4)) {
            *v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        f(q)
    })
}

/// Calls `f` on every record of `N` bytes of a spill file. The file is read a block at a time:
/// each permutation reads every quad, six times over at 100 M triples.
fn read_records<const N: usize>(
    path: &Path,
    mut f: impl FnMut(&[u8; N]) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    let mut file = File::open(path).map_err(|e| io_err(path, e))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut held = 0;
    loop {
        let n = match file.read(&mut buf[held..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(path, e)),
        };
        held += n;
        let whole = held - held % N;
        for rec in buf[..whole].chunks_exact(N) {
            // Always N bytes (chunks_exact): the conversion compiles away.
            let rec: &[u8; N] = rec
                .try_into()
                .map_err(|_| BuildError::Invalid("internal: spill record size".into()))?;
            f(rec)?;
        }
        buf.copy_within(whole..held, 0);
        held -= whole;
        if n == 0 {
            break;
        }
    }
    if held != 0 {
        return Err(BuildError::Invalid(format!(
            "{}: quad spill file cut short",
            path.display()
        )));
    }
    Ok(())
}

/// Streams quads with final ids into a spill file as keys packed in SPO order (8 bytes a quad
/// when they fit a `u64`, else 16): half the bytes written by the dictionary phase and read by
/// each of the six permutations at 100 M triples.
pub(crate) struct PackedWriter<'a> {
    pub(super) w: BufWriter<File>,
    pub(super) path: &'a Path,
    pub(super) packing: PermPacking<'a>,
    pub(super) n: u64,
}

impl<'a> PackedWriter<'a> {
    pub(crate) fn create(path: &'a Path, packing: &'a Packing) -> Result<Self, BuildError> {
        Ok(Self {
            w: BufWriter::with_capacity(1 << 20, File::create(path).map_err(|e| io_err(path, e))?),
            path,
            packing: packing.of_perm(Perm::Spo),
            n: 0,
        })
    }

    pub(crate) fn push(&mut self, q: [u32; 4]) -> Result<(), BuildError> {
        let v = self.packing.pack_checked(q)?;
        self.n += 1;
        let written = if self.packing.fits64() {
            // At most 64 bits: the cast keeps it whole.
            self.w.write_all(&(v as u64).to_le_bytes())
        } else {
            self.w.write_all(&v.to_le_bytes())
        };
        written.map_err(|e| io_err(self.path, e))
    }

    /// Flushes; returns the number of quads written.
    pub(crate) fn finish(mut self, spill: &Spill) -> Result<u64, BuildError> {
        self.w.flush().map_err(|e| io_err(self.path, e))?;
        spill.wrote(self.n * self.packing.key_bytes() as u64);
        Ok(self.n)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// Quads spilled in parts read back whole, across read blocks; a part cut short is an
    /// error.
    #[test]
    fn quad_parts_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::default();
        let path = dir.path().join("part.bin");
        // More than one 1 MiB read block.
        let quads: Vec<[u32; 4]> = (0..70_001u32)
            .map(|i| [i, u32::MAX - i, i / 3, i % 2])
            .collect();
        write_quads(&path, &quads, &spill).unwrap();
        let mut got = Vec::new();
        read_quads(&path, |q| {
            got.push(q);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, quads);
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(16 * 70_000 + 5).unwrap();
        let err = read_quads(&path, |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("cut short"), "{err}");
    }
}
