//! Front coding: each string of a sorted run is stored as the number of bytes it shares with the
//! previous string plus its own suffix. Used by the dictionary blocks, the schema sections and the
//! pyramid's member terms.
//!
//! Decoding is where a hostile file bites: a chain of strings each sharing all of the previous
//! one and adding one byte expands quadratically in its encoded length. [`Expander`] bounds the
//! bytes it copies out of previous strings, so a decoder's output stays linear in its input.

use crate::format::varint;

/// Bytes of shared prefixes an [`Expander`] may copy beyond [`SHARED_PER_BYTE`] per input byte.
pub const SHARED_FLOOR: u64 = 16 << 20;
/// Shared-prefix bytes allowed per encoded byte on top of [`SHARED_FLOOR`].
pub const SHARED_PER_BYTE: u64 = 8;

/// Bytes `next` shares with `prev`.
pub fn shared_prefix(prev: &[u8], next: &[u8]) -> usize {
    prev.iter().zip(next).take_while(|(a, b)| a == b).count()
}

/// Bytes `next` shares with `prev`, never splitting a UTF-8 sequence of `next`, so that every
/// suffix is itself valid UTF-8.
pub fn shared_prefix_str(prev: &str, next: &str) -> usize {
    let mut n = shared_prefix(prev.as_bytes(), next.as_bytes());
    while !next.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Appends one entry as `shared`, suffix length, suffix bytes (varints), the layout of the
/// dictionary blocks and the schema sections.
pub fn put(out: &mut Vec<u8>, shared: usize, suffix: &[u8]) {
    varint::put(out, shared as u64);
    varint::put(out, suffix.len() as u64);
    out.extend_from_slice(suffix);
}

/// Why a front-coded entry cannot be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrontCodingError {
    /// The input ends inside an entry.
    #[error("truncated")]
    Truncated,
    /// An entry claims more shared bytes than the previous string has.
    #[error("front-coding prefix longer than the previous string")]
    PrefixTooLong,
    /// The strings expand beyond what their encoded length can justify.
    #[error("front-coded strings expand beyond {0} shared bytes")]
    Expansion(u64),
}

/// Rebuilds front-coded strings one after the other, keeping only the previous one.
#[derive(Debug)]
pub struct Expander {
    prev: Vec<u8>,
    budget: u64,
    shared_left: u64,
}

impl Expander {
    /// A decoder for entries read from `encoded_len` input bytes.
    pub fn new(encoded_len: usize) -> Self {
        let budget =
            SHARED_FLOOR.saturating_add((encoded_len as u64).saturating_mul(SHARED_PER_BYTE));
        Self {
            prev: Vec::new(),
            budget,
            shared_left: budget,
        }
    }

    /// The string decoded last (empty before the first).
    pub fn prev(&self) -> &[u8] {
        &self.prev
    }

    /// The next string: `shared` bytes of the previous one, then `suffix`.
    pub fn next(&mut self, shared: u64, suffix: &[u8]) -> Result<&[u8], FrontCodingError> {
        if shared > self.prev.len() as u64 {
            return Err(FrontCodingError::PrefixTooLong);
        }
        self.shared_left = self
            .shared_left
            .checked_sub(shared)
            .ok_or(FrontCodingError::Expansion(self.budget))?;
        self.prev.truncate(shared as usize);
        self.prev.extend_from_slice(suffix);
        Ok(&self.prev)
    }

    /// Reads one entry laid out as by [`put`] from `c`.
    pub fn read(&mut self, c: &mut varint::Cursor<'_>) -> Result<&[u8], FrontCodingError> {
        let shared = c.get().ok_or(FrontCodingError::Truncated)?;
        let len = c.get().ok_or(FrontCodingError::Truncated)?;
        let suffix = usize::try_from(len)
            .ok()
            .and_then(|n| c.bytes(n))
            .ok_or(FrontCodingError::Truncated)?;
        self.next(shared, suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_limits() {
        let words: [&str; 4] = ["http://a/x", "http://a/xy", "http://b/é", "http://b/éa"];
        let mut out = Vec::new();
        let mut prev = "";
        for w in words {
            let s = shared_prefix_str(prev, w);
            put(&mut out, s, &w.as_bytes()[s..]);
            prev = w;
        }
        let mut c = varint::Cursor::new(&out);
        let mut e = Expander::new(out.len());
        for w in words {
            assert_eq!(e.read(&mut c).unwrap(), w.as_bytes());
        }
        assert!(c.is_at_end());
        assert_eq!(shared_prefix_str("é", "è"), 0);
        assert_eq!(shared_prefix(b"abc", b"abd"), 2);
        let mut e = Expander::new(0);
        assert_eq!(e.next(1, b"x"), Err(FrontCodingError::PrefixTooLong));
        assert_eq!(
            Expander::new(0).read(&mut varint::Cursor::new(&[0, 5, b'a'])),
            Err(FrontCodingError::Truncated)
        );
    }

    #[test]
    fn quadratic_chain_is_refused() {
        // Each string repeats all of the previous one and adds a byte.
        let mut e = Expander::new(3 * 20_000);
        let mut failed = false;
        for i in 0..20_000u64 {
            if e.next(i, b"x").is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed);
    }
}
