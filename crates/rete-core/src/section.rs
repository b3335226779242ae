//! A bounds-checked reader over a decoded section or block payload, shared by the extension
//! sections (pyramid, schema): every read past the end, every count the remaining bytes cannot
//! hold and every out-of-range index becomes a [`Corrupt`] error naming the file and section, so
//! nothing is allocated from an untrusted number.

use crate::format::varint;
use crate::front_coding::Expander;

/// A damaged section payload: the same message shape as [`crate::Error::Corrupt`], into which it
/// converts (into [`crate::Error::Corrupt`], which the extension crates' errors wrap).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: corrupt {section}: {message}")]
pub struct Corrupt {
    /// File path or URL.
    pub file: String,
    /// The section concerned.
    pub section: String,
    /// What is wrong.
    pub message: String,
}

impl From<Corrupt> for crate::Error {
    fn from(c: Corrupt) -> Self {
        crate::Error::Corrupt {
            file: c.file,
            section: c.section,
            message: c.message,
        }
    }
}

/// For an extension crate's error type whose `Format` variant wraps [`crate::Error`]: implements
/// `From<Corrupt>` (so `?` takes a [`SectionReader`]'s errors) and the crate's
/// `corrupt(file, section, message)`, a [`crate::Error::corrupt`] in that type. One home for what
/// every section-owning crate needs of its error type.
#[macro_export]
macro_rules! section_errors {
    ($error:ty) => {
        impl From<$crate::section::Corrupt> for $error {
            fn from(c: $crate::section::Corrupt) -> Self {
                Self::Format(c.into())
            }
        }

        impl $error {
            /// A damaged `section` of `file`: [`rete_core::Error::Corrupt`] in this crate's error.
            #[allow(
                dead_code,
                reason = "a crate that only reads through SectionReader needs no other"
            )]
            pub(crate) fn corrupt(
                file: &str,
                section: impl Into<String>,
                message: impl Into<String>,
            ) -> Self {
                Self::Format($crate::Error::corrupt(file, section, message))
            }
        }
    };
}

/// Result of a [`SectionReader`] read.
pub type ReadResult<T> = Result<T, Corrupt>;

/// A bounds-checked cursor over one payload.
#[derive(Debug)]
pub struct SectionReader<'a> {
    cur: varint::Cursor<'a>,
    file: &'a str,
    section: &'a str,
}

impl<'a> SectionReader<'a> {
    /// A reader at the start of `buf`, a payload of `section` in `file`.
    pub fn new(buf: &'a [u8], file: &'a str, section: &'a str) -> Self {
        Self {
            cur: varint::Cursor::new(buf),
            file,
            section,
        }
    }

    /// An error about this payload, as any error type a [`Corrupt`] converts into.
    pub fn err<E: From<Corrupt>>(&self, message: impl Into<String>) -> E {
        E::from(self.corrupt(message))
    }

    fn corrupt(&self, message: impl Into<String>) -> Corrupt {
        Corrupt {
            file: self.file.to_owned(),
            section: self.section.to_owned(),
            message: message.into(),
        }
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.cur.remaining()
    }

    /// One LEB128 varint.
    pub fn varint(&mut self) -> ReadResult<u64> {
        self.cur
            .get()
            .ok_or_else(|| self.corrupt("truncated or overlong integer"))
    }

    /// A varint that must be below `bound`.
    pub fn below(&mut self, bound: u64, what: &str) -> ReadResult<u64> {
        let v = self.varint()?;
        if v >= bound {
            return Err(self.corrupt(format!("{what} {v} out of range (< {bound})")));
        }
        Ok(v)
    }

    /// An index that must be below `bound`.
    pub fn index(&mut self, bound: usize) -> ReadResult<u32> {
        let v = self.below(bound as u64, "index")?;
        u32::try_from(v).map_err(|_| self.corrupt(format!("index {v} does not fit 32 bits")))
    }

    /// The count [`SectionReader::count`] would read next, capped as it caps it (0 if the
    /// payload ends), without reading it: what a decoder charges to the document's decode
    /// budget ([`crate::Charge::grow`]) before it makes the items.
    pub fn next_count(&self, min_bytes: usize) -> u64 {
        let mut c = self.cur.clone();
        c.get()
            .unwrap_or(0)
            .min((c.remaining() / min_bytes.max(1)) as u64)
    }

    /// An item count; each item takes at least `min_bytes`, so a count the remaining bytes cannot
    /// hold is rejected before anything is allocated for it.
    pub fn count(&mut self, min_bytes: usize) -> ReadResult<usize> {
        let v = self.varint()?;
        let max = self.cur.remaining() / min_bytes.max(1);
        if v > max as u64 {
            return Err(self.corrupt(format!(
                "count {v} exceeds what the remaining {} bytes can hold",
                self.cur.remaining()
            )));
        }
        Ok(v as usize)
    }

    /// Checks that `n` items of at least one byte each fit in what is left.
    pub fn count_items(&self, n: u64) -> ReadResult<usize> {
        if n > self.cur.remaining() as u64 {
            return Err(self.corrupt(format!(
                "{n} items cannot fit in {} bytes",
                self.cur.remaining()
            )));
        }
        Ok(n as usize)
    }

    /// `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> ReadResult<&'a [u8]> {
        self.cur.bytes(n).ok_or_else(|| self.corrupt("truncated"))
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self) -> ReadResult<&'a str> {
        let n = self.varint()?;
        let n = usize::try_from(n).map_err(|_| self.corrupt("string too long"))?;
        let b = self.bytes(n)?;
        std::str::from_utf8(b).map_err(|_| self.corrupt("string is not UTF-8"))
    }

    /// One byte.
    pub fn u8(&mut self) -> ReadResult<u8> {
        Ok(self.bytes(1)?[0])
    }

    /// `N` raw bytes as an array.
    fn array<const N: usize>(&mut self) -> ReadResult<[u8; N]> {
        let b = self.bytes(N)?;
        b.try_into().map_err(|_| self.corrupt("truncated"))
    }

    /// `v` if it is `finite`, else the error `message`.
    fn finite<T>(&self, v: T, finite: bool, message: &str) -> ReadResult<T> {
        if finite {
            Ok(v)
        } else {
            Err(self.corrupt(message))
        }
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self) -> ReadResult<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A finite little-endian `f32`.
    pub fn f32(&mut self) -> ReadResult<f32> {
        let v = f32::from_le_bytes(self.array()?);
        self.finite(v, v.is_finite(), "non-finite coordinate")
    }

    /// A finite little-endian `f64`.
    pub fn f64(&mut self) -> ReadResult<f64> {
        let v = f64::from_le_bytes(self.array()?);
        self.finite(v, v.is_finite(), "non-finite number")
    }

    /// A count then that many front-coded UTF-8 strings (see [`crate::front_coding`]).
    pub fn front_coded(&mut self) -> ReadResult<Vec<String>> {
        let n = self.count(1)?;
        let mut out: Vec<String> = Vec::with_capacity(crate::format::prealloc(n));
        let mut e = Expander::new(self.cur.remaining());
        for _ in 0..n {
            let term = e
                .read(&mut self.cur)
                .map_err(|x| self.corrupt(x.to_string()))?;
            let s = std::str::from_utf8(term).map_err(|_| self.corrupt("string is not UTF-8"))?;
            out.push(s.to_owned());
        }
        Ok(out)
    }

    /// Fails unless every byte was read.
    pub fn expect_end(&self) -> ReadResult<()> {
        if self.cur.is_at_end() {
            Ok(())
        } else {
            Err(self.corrupt(format!("{} trailing bytes", self.cur.remaining())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        let mut r = SectionReader::new(&[0xff, 0xff, 0x7f, 1, 2], "f", "s");
        assert!(r.count(1).is_err());
        let mut r = SectionReader::new(&[3, 9], "f", "s");
        assert_eq!(r.below(4, "x").unwrap(), 3);
        assert!(r.index(9).is_err());
        assert!(r.u8().is_err());
        let e = SectionReader::new(&[], "f", "s").varint().unwrap_err();
        assert_eq!(e.to_string(), "f: corrupt s: truncated or overlong integer");
        let mut r = SectionReader::new(&[1, 1, 1, b'a', 0], "f", "s");
        assert!(r.front_coded().is_err());
    }
}
