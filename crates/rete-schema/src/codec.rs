//! Byte encoding of the three schema sections. Every section starts with a version byte; numbers
//! are LEB128 varints; strings of one table are sorted and front-coded, so the zstd frame around
//! the section sees long runs of shared namespaces collapse to a few bytes each.

use crate::SchemaError;
use rete_core::format::varint;

/// Version byte written first in every schema section.
pub(crate) const VERSION: u8 = 1;

#[derive(Debug, Default)]
pub(crate) struct Enc {
    pub(crate) buf: Vec<u8>,
}

impl Enc {
    pub(crate) fn new() -> Self {
        let mut e = Self::default();
        e.buf.push(VERSION);
        e
    }

    pub(crate) fn u(&mut self, v: u64) {
        varint::put(&mut self.buf, v);
    }

    pub(crate) fn idx(&mut self, v: u32) {
        self.u(u64::from(v));
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.u(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Strings in the given order, each as (bytes shared with the previous, suffix). (Storing
    /// the columns apart compressed worse on class names.)
    pub(crate) fn front_coded<S: AsRef<str>>(&mut self, strings: &[S]) {
        self.u(strings.len() as u64);
        let mut prev: &[u8] = &[];
        for s in strings {
            let b = s.as_ref().as_bytes();
            let mut shared = prev.iter().zip(b).take_while(|(x, y)| x == y).count();
            // Never split a UTF-8 sequence, so that every suffix is itself valid UTF-8.
            while shared > 0 && shared < b.len() && (b[shared] & 0xc0) == 0x80 {
                shared -= 1;
            }
            self.u(shared as u64);
            self.u((b.len() - shared) as u64);
            self.buf.extend_from_slice(&b[shared..]);
            prev = b;
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

#[derive(Debug)]
pub(crate) struct Dec<'a> {
    c: varint::Cursor<'a>,
    file: &'a str,
    section: &'static str,
}

impl<'a> Dec<'a> {
    pub(crate) fn new(
        buf: &'a [u8],
        file: &'a str,
        section: &'static str,
    ) -> Result<Self, SchemaError> {
        let mut d = Self {
            c: varint::Cursor::new(buf),
            file,
            section,
        };
        let v =
            d.c.bytes(1)
                .ok_or_else(|| d.err("empty section"))?
                .first()
                .copied()
                .unwrap_or(0);
        if v != VERSION {
            return Err(d.err(&format!(
                "schema section version {v} is not supported (this reader reads {VERSION})"
            )));
        }
        Ok(d)
    }

    pub(crate) fn err(&self, message: &str) -> SchemaError {
        SchemaError::Corrupt {
            file: self.file.to_owned(),
            section: self.section.to_owned(),
            message: message.to_owned(),
        }
    }

    pub(crate) fn u(&mut self) -> Result<u64, SchemaError> {
        self.c.get().ok_or_else(|| self.err("truncated"))
    }

    /// A count of items that each take at least one byte, so a corrupt count cannot make us
    /// allocate more than the section holds.
    pub(crate) fn count(&mut self) -> Result<usize, SchemaError> {
        let n = self.u()?;
        if n > self.c.remaining() as u64 {
            return Err(self.err("implausible item count"));
        }
        Ok(n as usize)
    }

    /// An index that must be `< bound`.
    pub(crate) fn idx(&mut self, bound: usize) -> Result<u32, SchemaError> {
        let v = self.u()?;
        if v >= bound as u64 {
            return Err(self.err(&format!("index {v} out of range (< {bound})")));
        }
        Ok(v as u32)
    }

    pub(crate) fn str(&mut self) -> Result<String, SchemaError> {
        let n = self.count()?;
        let b = self.c.bytes(n).ok_or_else(|| self.err("truncated"))?;
        String::from_utf8(b.to_vec()).map_err(|_| self.err("string is not UTF-8"))
    }

    pub(crate) fn front_coded(&mut self) -> Result<Vec<String>, SchemaError> {
        let n = self.count()?;
        let mut out: Vec<String> = Vec::with_capacity(n);
        for _ in 0..n {
            let shared = self.u()?;
            let len = self.count()?;
            let prev = out.last().map(String::as_bytes).unwrap_or_default();
            if shared > prev.len() as u64 {
                return Err(self.err("front-coding prefix longer than the previous string"));
            }
            let mut b = prev[..shared as usize].to_vec();
            b.extend_from_slice(self.c.bytes(len).ok_or_else(|| self.err("truncated"))?);
            out.push(String::from_utf8(b).map_err(|_| self.err("string is not UTF-8"))?);
        }
        Ok(out)
    }

    pub(crate) fn list(&mut self, bound: usize) -> Result<Vec<u32>, SchemaError> {
        let n = self.count()?;
        let mut out = Vec::with_capacity(n);
        let mut prev = 0u64;
        for i in 0..n {
            let gap = self.u()?;
            if i > 0 && gap == 0 {
                return Err(self.err("list is not strictly increasing"));
            }
            prev = prev
                .checked_add(gap)
                .filter(|&v| v < bound as u64)
                .ok_or_else(|| self.err("list index out of range"))?;
            out.push(prev as u32);
        }
        Ok(out)
    }

    pub(crate) fn pairs(&mut self, bound: usize) -> Result<Vec<(u32, u32)>, SchemaError> {
        let n = self.count()?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push((self.idx(bound)?, self.idx(bound)?));
        }
        Ok(out)
    }

    pub(crate) fn byte(&mut self) -> Result<u8, SchemaError> {
        self.c
            .bytes(1)
            .and_then(|b| b.first().copied())
            .ok_or_else(|| self.err("truncated"))
    }

    pub(crate) fn finish(&self) -> Result<(), SchemaError> {
        if self.c.is_at_end() {
            Ok(())
        } else {
            Err(self.err("trailing bytes"))
        }
    }
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
        let mut d = Dec::new(&e.buf, "f", "s").unwrap();
        assert_eq!(
            d.front_coded().unwrap(),
            ["http://a/x", "http://a/xy", "http://b/é", "http://b/éa"]
        );
        assert_eq!(d.list(6).unwrap(), [1, 3, 5]);
        assert_eq!(d.pairs(3).unwrap(), [(1, 2)]);
        assert_eq!(d.str().unwrap(), "label");
        d.finish().unwrap();
        let mut d = Dec::new(&e.buf, "f", "s").unwrap();
        d.front_coded().unwrap();
        assert!(d.list(5).is_err());
        assert!(Dec::new(&[9], "f", "s").is_err());
        let mut d = Dec::new(&[VERSION, 0xff, 0xff, 0x7f], "f", "s").unwrap();
        assert!(d.count().is_err());
    }
}
