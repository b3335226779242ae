//! A nesting-depth limit for JSON, checked on the byte stream before the JSON-LD parser sees it:
//! the parser recurses once per level, and a document nested a thousand levels deep (7 KB)
//! overflowed its stack. Strings (and escapes in them) are skipped, so brackets inside values do
//! not count.

use std::io::{self, Read};

/// Deepest nesting of JSON arrays and objects an input may have.
pub const MAX_JSON_DEPTH: usize = 128;

/// A reader that fails with [`io::ErrorKind::InvalidData`] once the JSON it passes on nests
/// deeper than [`MAX_JSON_DEPTH`].
pub(crate) struct JsonDepth<R> {
    inner: R,
    depth: usize,
    in_string: bool,
    escaped: bool,
    line: u64,
}

impl<R: Read> JsonDepth<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            depth: 0,
            in_string: false,
            escaped: false,
            line: 1,
        }
    }
}

impl<R: Read> Read for JsonDepth<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            if b == b'\n' {
                self.line += 1;
            }
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => {
                    self.depth += 1;
                    if self.depth > MAX_JSON_DEPTH {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "line {}: JSON nested deeper than {MAX_JSON_DEPTH} levels \
                                 (refused before parsing)",
                                self.line
                            ),
                        ));
                    }
                }
                b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn read_all(s: &str) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        JsonDepth::new(s.as_bytes()).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn counts_brackets_outside_strings_only() {
        let ok = format!(
            "{}\"[[[{{\\\"\"{}",
            "[".repeat(MAX_JSON_DEPTH),
            "]".repeat(MAX_JSON_DEPTH)
        );
        assert_eq!(read_all(&ok).unwrap(), ok.as_bytes());
        let deep = format!("{{\"a\":\n{}", "[".repeat(MAX_JSON_DEPTH));
        let e = read_all(&deep).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string()
                .starts_with("line 2: JSON nested deeper than 128"),
            "{e}"
        );
    }
}
