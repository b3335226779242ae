//! Where the blocks are and fetching them: the block directory (loaded at the first request below
//! the top), section lengths, and one range read per request through the LRU block cache.

use super::*;

/// How blocks are read: the span's first offset in the section when one span covers them all
/// (`None`: one range each), and the file ranges (offset, length).
pub(super) type ReadPlan = (Option<u64>, Vec<(u64, usize)>);

impl Pyramid {
    /// The block directory, read once.
    pub(super) fn dir(&self) -> Result<&Dir, PyramidError> {
        if let Some(d) = self.inner.dir.get() {
            return Ok(d);
        }
        let _guard = self
            .inner
            .dir_lock
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(d) = self.inner.dir.get() {
            return Ok(d);
        }
        let d = self.load_dir()?;
        let _ = self.inner.dir.set(d);
        self.inner
            .dir
            .get()
            .ok_or_else(|| PyramidError::internal("directory unavailable"))
    }

    pub(super) fn section_len(&self, k: u16) -> Result<u64, PyramidError> {
        self.inner.rete.section(k, 0).map(|e| e.len).ok_or_else(|| {
            PyramidError::corrupt(
                self.name(),
                crate::builder::section_label(k),
                "section is missing",
            )
        })
    }

    pub(super) fn load_dir(&self) -> Result<Dir, PyramidError> {
        let name = self.name();
        let (bytes, mut charge) = self
            .inner
            .rete
            .kept_section(kind::DIRECTORY, 0)?
            .ok_or_else(|| {
                PyramidError::corrupt(name, "pyramid directory", "section is missing")
            })?;
        // Each entry takes at least 12 bytes: charged for the most the payload can hold, before
        // any is made.
        let entries = bytes.len() / 12;
        charge.grow("pyramid directory", items_bytes::<(u64, BlockRef)>(entries))?;
        let dir = self.parse_dir(&bytes)?;
        self.inner
            .kept
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(charge);
        Ok(dir)
    }

    pub(super) fn parse_dir(&self, bytes: &[u8]) -> Result<Dir, PyramidError> {
        let name = self.name();
        let (levels_len, members_len, membership_len) = (
            self.section_len(kind::LEVELS)?,
            self.section_len(kind::MEMBERS)?,
            self.section_len(kind::MEMBERSHIP)?,
        );
        let mut r = SectionReader::new(bytes, name, "pyramid directory");
        if r.bytes(4)? != DIR_MAGIC || r.u8()? != DIR_VERSION {
            return Err(r.err("bad magic or version"));
        }
        let nl = r.varint()?;
        if nl != self.top() as u64 {
            return Err(r.err(format!(
                "{nl} level directories for {} levels",
                self.levels()
            )));
        }
        let mut levels = Vec::with_capacity(self.top());
        for l in 0..self.top() {
            let nb = r.count(12)?;
            let mut blocks: Vec<(u32, BlockRef)> = Vec::with_capacity(prealloc(nb));
            for _ in 0..nb {
                let p = r.below(self.count(l + 1), "first parent")? as u32;
                if blocks.last().is_some_and(|b| b.0 >= p) || (blocks.is_empty() && p != 0) {
                    return Err(r.err("level blocks out of order"));
                }
                blocks.push((p, BlockRef::read(&mut r, levels_len)?));
            }
            let cross = BlockRef::read(&mut r, levels_len)?;
            levels.push((blocks, cross));
        }
        let nb = r.count(12)?;
        let mut members: Vec<(u32, BlockRef)> = Vec::with_capacity(prealloc(nb));
        for _ in 0..nb {
            let c = r.below(self.count(0).max(1), "first community")? as u32;
            if members.last().is_some_and(|b| b.0 >= c) || (members.is_empty() && c != 0) {
                return Err(r.err("member blocks out of order"));
            }
            members.push((c, BlockRef::read(&mut r, members_len)?));
        }
        let nb = r.count(12)?;
        let mut membership: Vec<(u64, BlockRef)> = Vec::with_capacity(prealloc(nb));
        for _ in 0..nb {
            let e = r.varint()?;
            if membership.last().is_some_and(|b| b.0 >= e) {
                return Err(r.err("membership blocks out of order"));
            }
            membership.push((e, BlockRef::read(&mut r, membership_len)?));
        }
        r.expect_end()?;
        Ok(Dir {
            levels,
            members,
            membership,
        })
    }

    /// Decoded blocks of section `k`, from the cache or with one range read covering the
    /// missing ones. The blocks decoded are charged to the document's decode budget while this
    /// call decodes them: a level of many blocks cannot decode more than the budget at once,
    /// whatever the cache drops meanwhile.
    pub(super) fn fetch(
        &self,
        k: u16,
        refs: &[BlockRef],
    ) -> Result<Vec<Arc<Vec<u8>>>, PyramidError> {
        let mut out: Vec<Option<Arc<Vec<u8>>>> = {
            let mut cache = self.inner.cache.lock().unwrap_or_else(|p| p.into_inner());
            refs.iter()
                .map(|b| cache.get(&(k, b.offset)).cloned())
                .collect()
        };
        let missing: Vec<usize> = (0..refs.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let section = crate::builder::section_label(k);
            let (span, ranges) = self.read_plan(k, refs, &missing)?;
            let got = self
                .inner
                .rete
                .reader()
                .read_many(&ranges)
                .map_err(rete_core::Error::from)?;
            let stored: Vec<Vec<u8>> = match span {
                Some(start) => {
                    let whole = got.into_iter().next().unwrap_or_default();
                    missing
                        .iter()
                        .map(|&i| {
                            let from = (refs[i].offset - start) as usize;
                            whole
                                .get(from..from + refs[i].len as usize)
                                .map(<[u8]>::to_vec)
                                .ok_or_else(|| {
                                    PyramidError::corrupt(self.name(), section, "short read")
                                })
                        })
                        .collect::<Result<_, _>>()?
                }
                None => got,
            };
            let mut charges = Vec::with_capacity(missing.len());
            for &i in &missing {
                charges.push(
                    self.inner
                        .rete
                        .decode_budget()
                        .charge(section, refs[i].raw_len)?,
                );
            }
            // Many blocks (the paths of thousands of entities) decode on every core.
            let decoded: Vec<Vec<u8>> = missing
                .par_iter()
                .zip(stored.par_iter())
                .map(|(&i, stored)| refs[i].decode(stored, self.name(), section))
                .collect::<Result<_, _>>()?;
            for (&i, decoded) in missing.iter().zip(decoded) {
                let b = refs[i];
                let decoded = Arc::new(decoded);
                let mut cache = self.inner.cache.lock().unwrap_or_else(|p| p.into_inner());
                cache.put((k, b.offset), decoded.clone());
                let mut bytes: usize = cache.iter().map(|(_, b)| b.len()).sum();
                while bytes > CACHE_BYTES && cache.len() > 1 {
                    match cache.pop_lru() {
                        Some((_, old)) => bytes -= old.len(),
                        None => break,
                    }
                }
                out[i] = Some(decoded);
            }
        }
        out.into_iter()
            .map(|b| b.ok_or_else(|| PyramidError::internal("block not loaded")))
            .collect()
    }

    /// The places in `refs` of the blocks of section `k` not in the cache.
    pub(super) fn uncached(&self, k: u16, refs: &[BlockRef]) -> Vec<usize> {
        let cache = self.inner.cache.lock().unwrap_or_else(|p| p.into_inner());
        (0..refs.len())
            .filter(|&i| !cache.contains(&(k, refs[i].offset)))
            .collect()
    }

    /// The file ranges that reading blocks `missing` (places in `refs`) of section `k` takes:
    /// one span of the section when they are (nearly) contiguous, which is how they are written
    /// (with its first offset in the section); else one range each, one batch that a remote
    /// reader fetches together.
    pub(super) fn read_plan(
        &self,
        k: u16,
        refs: &[BlockRef],
        missing: &[usize],
    ) -> Result<ReadPlan, PyramidError> {
        let section = crate::builder::section_label(k);
        let e = self
            .inner
            .rete
            .section(k, 0)
            .copied()
            .ok_or_else(|| PyramidError::corrupt(self.name(), section, "section is missing"))?;
        let start = missing.iter().map(|&i| refs[i].offset).min().unwrap_or(0);
        let end = missing
            .iter()
            .map(|&i| refs[i].offset.saturating_add(refs[i].len))
            .max()
            .unwrap_or(0);
        if end > e.len {
            return Err(PyramidError::corrupt(
                self.name(),
                section,
                format!("a block ends at {end}, past the section's {} bytes", e.len),
            ));
        }
        let total: u64 = missing.iter().map(|&i| refs[i].len).sum();
        let size = |n: u64| {
            usize::try_from(n)
                .map_err(|_| PyramidError::corrupt(self.name(), section, "range too large"))
        };
        if end - start <= total.saturating_mul(2) + (64 << 10) {
            return Ok((Some(start), vec![(e.offset + start, size(end - start)?)]));
        }
        let ranges = missing
            .iter()
            .map(|&i| Ok((e.offset + refs[i].offset, size(refs[i].len)?)))
            .collect::<Result<Vec<_>, PyramidError>>()?;
        Ok((None, ranges))
    }
}
