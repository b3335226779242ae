//! LEB128 variable-length integers, the one encoding of counts, ids and gaps in every section:
//! `put`, `read` and `Cursor` (zigzag for signed values), the u128 form of the build's sort runs
//! and the `Read` form of streams (the pyramid's spill, the upstream cursor).

/// Appends `v` to `out`.
pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads one varint at `*pos` of `buf` and moves `*pos` past it; `None` when `buf` ends
/// inside it or it overflows a `u64`.
#[inline]
pub fn read(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    let mut shift = 0;
    loop {
        let b = *buf.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Reads one varint from `r`: its value and length in bytes. An error of kind
/// `UnexpectedEof` when `r` ends inside it, `InvalidData` when it overflows a `u64`.
pub fn read_io(r: &mut impl std::io::BufRead) -> std::io::Result<(u64, usize)> {
    use std::io::{Error, ErrorKind};
    let mut v: u64 = 0;
    for i in 0..10 {
        let Some(&b) = r.fill_buf()?.first() else {
            return Err(Error::from(ErrorKind::UnexpectedEof));
        };
        r.consume(1);
        if i == 9 && b > 1 {
            break;
        }
        v |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Ok((v, i + 1));
        }
    }
    Err(Error::new(
        ErrorKind::InvalidData,
        "varint overflows 64 bits",
    ))
}

/// Bytes of the longest varint of a `u128`.
pub const MAX_LEN_U128: usize = 19;

/// Writes `v` at the start of `out`; returns its length. A fixed buffer, not a vector: the
/// build's sort runs write every key through it.
#[inline]
pub fn put_u128(out: &mut [u8; MAX_LEN_U128], mut v: u128) -> usize {
    let mut i = 0;
    while v >= 0x80 {
        out[i] = (v as u8) | 0x80;
        v >>= 7;
        i += 1;
    }
    out[i] = v as u8;
    i + 1
}

/// Reads a varint written by [`put_u128`] at the start of `buf`: its value and length;
/// `None` when `buf` ends inside it or it is longer than any `u128`'s.
#[inline]
pub fn get_u128(buf: &[u8]) -> Option<(u128, usize)> {
    let mut v = 0u128;
    for (i, &b) in buf.iter().take(MAX_LEN_U128).enumerate() {
        v |= u128::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Zigzag-encodes a signed delta.
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A bounds-checked cursor over a byte slice.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }
    /// Reads one varint; `None` on truncation or overflow.
    #[inline]
    pub fn get(&mut self) -> Option<u64> {
        read(self.buf, &mut self.pos)
    }
    /// Reads `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    /// Reads a little-endian u32.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }
    /// `true` when all bytes were consumed.
    pub fn is_at_end(&self) -> bool {
        self.pos == self.buf.len()
    }
    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
}
