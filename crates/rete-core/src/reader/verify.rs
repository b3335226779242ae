//! Whole-file verification ([`Rete::verify`]): checksums, decodability, ordering, id ranges and
//! the agreement of the six permutations. Reads the whole file, unlike every other path.

use super::Rete;
use crate::error::{Error, Result};
use crate::format::{kind, section_name};
use crate::paged::{DictPages, Expect, PermPages};
use crate::{term, Perm};
use xxhash_rust::xxh3::xxh3_64;

impl Rete {
    /// Checks every section and block: checksums, decodability, ordering, id ranges, and that all
    /// six permutations hold the same quads. Reads the whole file.
    pub fn verify(&self) -> Result<VerifyReport> {
        let name = &self.inner.name;
        let mut report = VerifyReport::default();
        for e in &self.inner.sections {
            let stored = self.read_bytes(e.offset, self.usize_len(e)?)?;
            self.decode_section(e, &stored)?;
            report.sections += 1;
            report.bytes += e.len;
        }
        self.card()?;
        let idx = self.indexes()?;
        // The directories whole; page tables, where present, must describe the same entries.
        let dict = self.decode_dict(
            idx,
            &self.read_bytes(idx.dict_index.offset, self.usize_len(&idx.dict_index)?)?,
        )?;
        if let Some(table) = self.section_payload(kind::DICT_PAGES, 0)? {
            let pages = DictPages::decode(
                &table,
                Expect {
                    dir_len: idx.dict_index.len,
                    blocks_len: idx.dict_blocks.len,
                    items: self.inner.header.terms,
                },
                name,
            )?;
            let read = self.dir_reader(idx.dict_index);
            if pages.len() != dict.blocks.len() {
                return Err(Error::corrupt(
                    name,
                    "dictionary index pages",
                    "block count differs from the directory",
                ));
            }
            for (b, m) in dict.blocks.iter().enumerate() {
                if pages.block(b, &read, name)? != *m {
                    return Err(Error::corrupt(
                        name,
                        "dictionary index pages",
                        format!("block {b} differs from the directory"),
                    ));
                }
            }
        }
        let mut prev: Option<Vec<u8>> = None;
        for b in 0..dict.blocks.len() {
            let block = self.dict_block(b)?;
            for i in 0..block.len() {
                let t = block.get(i).unwrap_or_default();
                term::decode(t).map_err(|err| {
                    Error::corrupt(
                        name,
                        "dictionary blocks",
                        format!("term {}: {err}", dict.blocks[b].first_id + i as u64),
                    )
                })?;
                if let Some(p) = &prev {
                    if term::compare(p, t) != std::cmp::Ordering::Less {
                        return Err(Error::corrupt(
                            name,
                            "dictionary blocks",
                            format!(
                                "terms out of order at id {}",
                                dict.blocks[b].first_id + i as u64
                            ),
                        ));
                    }
                }
                prev = Some(t.to_vec());
            }
            report.blocks += 1;
        }
        let terms = self.inner.header.terms;
        let mut fingerprints = Vec::with_capacity(6);
        for p in Perm::ALL {
            let (index, sec, _) = &idx.perms[p as usize];
            let pi = self.decode_perm(
                index,
                sec,
                &self.read_bytes(index.offset, self.usize_len(index)?)?,
            )?;
            if let Some(table) = self.section_payload(kind::PERM_PAGES, p as u16)? {
                let what = section_name(kind::PERM_PAGES, p as u16);
                let pages = PermPages::decode(
                    &table,
                    Expect {
                        dir_len: index.len,
                        blocks_len: sec.len,
                        items: self.inner.header.quads,
                    },
                    &index.name(),
                    name,
                )?;
                let read = self.dir_reader(*index);
                if pages.len() != pi.blocks.len() {
                    return Err(Error::corrupt(
                        name,
                        &what,
                        "block count differs from the directory",
                    ));
                }
                for (b, m) in pi.blocks.iter().enumerate() {
                    if pages.block(b, &read, name)? != *m {
                        return Err(Error::corrupt(
                            name,
                            &what,
                            format!("block {b} differs from the directory"),
                        ));
                    }
                }
            }
            let mut fp = (0u64, 0u64);
            for b in 0..pi.blocks.len() {
                let block = self.perm_block(p, b, pi.blocks.len(), self.inner.opts.readahead)?;
                if let (Some(last), Some(next)) = (block.last(), pi.blocks.get(b + 1)) {
                    if *last >= next.first {
                        return Err(Error::corrupt(
                            name,
                            sec.name(),
                            format!("block {b} overlaps the next one"),
                        ));
                    }
                }
                for k in block.iter() {
                    if k[..3].iter().any(|&v| v == 0 || v > terms) || k[3] > terms {
                        return Err(Error::corrupt(
                            name,
                            sec.name(),
                            format!("id out of range in block {b}"),
                        ));
                    }
                    let q = p.from_key(k);
                    let h = xxh3_64(&q.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
                    fp.0 = fp.0.wrapping_add(h);
                    fp.1 ^= h.rotate_left(17);
                }
                report.blocks += 1;
            }
            fingerprints.push(fp);
        }
        if fingerprints.windows(2).any(|w| w[0] != w[1]) {
            return Err(Error::corrupt(
                name,
                "permutations",
                "the six permutations do not hold the same quads",
            ));
        }
        report.quads = self.inner.header.quads;
        report.terms = terms;
        Ok(report)
    }
}

/// What [`Rete::verify`] checked.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerifyReport {
    /// Sections whose checksum was verified.
    pub sections: u64,
    /// Blocks decoded and checked.
    pub blocks: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Quads checked.
    pub quads: u64,
    /// Terms checked.
    pub terms: u64,
}
