//! Byte encoding of the three schema sections. Every section starts with a version byte; numbers
//! are LEB128 varints; strings of one table are sorted and front-coded, so the zstd frame around
//! the section sees long runs of shared namespaces collapse to a few bytes each.

use crate::SchemaError;
use rete_core::block::Buf;
use rete_core::format::prealloc;
use rete_core::front_coding::{self, shared_prefix_str};
use rete_core::section::SectionReader;

/// Version byte written first in every schema section.
pub(crate) const VERSION: u8 = 1;

#[derive(Debug, Default)]
pub(crate) struct Enc {
    pub(crate) buf: Buf,
}

impl Enc {
    pub(crate) fn new() -> Self {
        let mut e = Self::default();
        e.buf.u8(VERSION);
        e
    }

    pub(crate) fn u(&mut self, v: u64) {
        self.buf.varint(v);
    }

    pub(crate) fn idx(&mut self, v: u32) {
        self.u(u64::from(v));
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.buf.str(s);
    }

    /// Strings in the given order, each as (bytes shared with the previous, suffix). (Storing
    /// the columns apart compressed worse on class names.)
    pub(crate) fn front_coded<S: AsRef<str>>(&mut self, strings: &[S]) {
        self.u(strings.len() as u64);
        let mut prev = "";
        for s in strings {
            let s = s.as_ref();
            let shared = shared_prefix_str(prev, s);
            front_coding::put(&mut self.buf.0, shared, &s.as_bytes()[shared..]);
            prev = s;
        }
    }

    /// A sorted list of indexes as first value then gaps.
    pub(crate) fn list(&mut self, v: &[u32]) {
        let mut s = v.to_vec();
        s.sort_unstable();
        s.dedup();
        self.u(s.len() as u64);
        let mut prev = 0u32;
        for x in s {
            self.idx(x - prev);
            prev = x;
        }
    }

    pub(crate) fn pairs(&mut self, v: &[(u32, u32)]) {
        self.u(v.len() as u64);
        for &(a, b) in v {
            self.idx(a);
            self.idx(b);
        }
    }
}

/// Opens a schema section: rete-core's bounds-checked reader after the version byte.
pub(crate) fn open<'a>(
    buf: &'a [u8],
    file: &'a str,
    section: &'a str,
) -> Result<SectionReader<'a>, SchemaError> {
    let mut d = SectionReader::new(buf, file, section);
    let v = d.u8().map_err(|_| d.err::<SchemaError>("empty section"))?;
    if v != VERSION {
        return Err(d.err(format!(
            "schema section version {v} is not supported (this reader reads {VERSION})"
        )));
    }
    Ok(d)
}

/// Bytes a decoder may copy out of the strings it already decoded (a datatype or a property IRI
/// per reference): a reference takes one byte, so without a bound a few bytes per copy of a long
/// string would expand without limit. The bound is the front coding's for the section.
pub(crate) struct CopyBudget {
    left: u64,
    limit: u64,
}

impl CopyBudget {
    pub(crate) fn new(section_len: usize) -> Self {
        let limit = front_coding::SHARED_FLOOR
            .saturating_add((section_len as u64).saturating_mul(front_coding::SHARED_PER_BYTE));
        Self { left: limit, limit }
    }

    /// `s` cloned, if the budget allows it.
    pub(crate) fn copy(&mut self, d: &SectionReader<'_>, s: &str) -> Result<String, SchemaError> {
        self.left = self.left.checked_sub(s.len() as u64).ok_or_else(|| {
            d.err::<SchemaError>(format!(
                "references copy more than {} bytes of strings",
                self.limit
            ))
        })?;
        Ok(s.to_owned())
    }
}

/// A sorted list of indexes `< bound`, as written by [`Enc::list`].
pub(crate) fn list(d: &mut SectionReader<'_>, bound: usize) -> Result<Vec<u32>, SchemaError> {
    gap_coded(
        d,
        bound,
        ["list is not strictly increasing", "list index out of range"],
        |_, i| Ok(i as u32),
    )
}

/// A count, then that many strictly increasing indexes `< bound` (each as its gap to the one
/// before), each followed by what `item` reads; `errors` name an index out of order and one out
/// of range.
pub(crate) fn gap_coded<'a, T>(
    d: &mut SectionReader<'a>,
    bound: usize,
    errors: [&str; 2],
    mut item: impl FnMut(&mut SectionReader<'a>, u64) -> Result<T, SchemaError>,
) -> Result<Vec<T>, SchemaError> {
    let [disorder, outside] = errors;
    let n = d.count(1)?;
    let mut out = Vec::with_capacity(prealloc(n));
    let mut prev = 0u64;
    for i in 0..n {
        let gap = d.varint()?;
        if i > 0 && gap == 0 {
            return Err(d.err(disorder));
        }
        prev = prev
            .checked_add(gap)
            .filter(|&v| v < bound as u64)
            .ok_or_else(|| d.err::<SchemaError>(outside))?;
        out.push(item(d, prev)?);
    }
    Ok(out)
}

/// Index pairs `< bound`, as written by [`Enc::pairs`].
pub(crate) fn pairs(
    d: &mut SectionReader<'_>,
    bound: usize,
) -> Result<Vec<(u32, u32)>, SchemaError> {
    let n = d.count(1)?;
    let mut out = Vec::with_capacity(prealloc(n));
    for _ in 0..n {
        out.push((d.index(bound)?, d.index(bound)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut e = Enc::new();
        e.front_coded(&["http://a/x", "http://a/xy", "http://b/é", "http://b/éa"]);
        e.list(&[5, 1, 3, 3]);
        e.pairs(&[(1, 2)]);
        e.str("label");
        let mut d = open(&e.buf.0, "f", "s").unwrap();
        assert_eq!(
            d.front_coded().unwrap(),
            ["http://a/x", "http://a/xy", "http://b/é", "http://b/éa"]
        );
        assert_eq!(list(&mut d, 6).unwrap(), [1, 3, 5]);
        assert_eq!(pairs(&mut d, 3).unwrap(), [(1, 2)]);
        assert_eq!(d.str().unwrap(), "label");
        d.expect_end().unwrap();
        let mut d = open(&e.buf.0, "f", "s").unwrap();
        d.front_coded().unwrap();
        assert!(list(&mut d, 5).is_err());
        assert!(open(&[9], "f", "s").is_err());
        let mut d = open(&[VERSION, 0xff, 0xff, 0x7f], "f", "s").unwrap();
        assert!(d.count(1).is_err());
    }
}
