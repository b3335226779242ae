//! A bound on DTD entity expansion for RDF/XML, checked on the byte stream before the parser:
//! entities defined through other entities ("billion laughs") made a 1 KB document expand to
//! tens of gigabytes inside the parser. The internal DTD subset is read first and each entity's
//! expanded length computed; then every reference in the document adds its entity's length to
//! a total. Common RDF/XML (`<!ENTITY owl "http://www.w3.org/2002/07/owl#">`, `&owl;Class`)
//! stays far below both limits.

use std::collections::HashMap;
use std::io::{self, Read};

/// Longest expansion of one entity.
pub const MAX_ENTITY_LEN: u64 = 1 << 20;
/// Expanded bytes all references of a document may add, at least...
pub const ENTITY_EXPANSION_FLOOR: u64 = 64 << 20;
/// ...or this many per byte of the document read so far.
pub const ENTITY_EXPANSION_PER_BYTE: u64 = 64;
/// Longest prolog (XML declaration, comments, DOCTYPE with its internal subset) read ahead.
const MAX_PROLOG: usize = 16 << 20;
/// Longest entity name looked up in a reference.
const MAX_NAME: usize = 256;

/// A reader that passes an XML document on unchanged and fails with
/// [`io::ErrorKind::InvalidData`] when its entities expand beyond the limits.
pub(crate) struct XmlEntities<R> {
    inner: R,
    /// Prolog bytes read ahead, not yet passed on.
    ahead: Vec<u8>,
    prolog_done: bool,
    entities: HashMap<Vec<u8>, u64>,
    /// The name of a reference being read (after `&`).
    name: Option<Vec<u8>>,
    expanded: u64,
    read: u64,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl<R: Read> XmlEntities<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            ahead: Vec::new(),
            prolog_done: false,
            entities: HashMap::new(),
            name: None,
            expanded: 0,
            read: 0,
        }
    }

    /// Reads until the root element starts (or the input ends), then measures the entities the
    /// DTD declares.
    fn read_prolog(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 8192];
        while prolog_end(&self.ahead).is_none() {
            let n = self.inner.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            self.ahead.extend_from_slice(&chunk[..n]);
            if self.ahead.len() > MAX_PROLOG {
                return Err(invalid(format!(
                    "the XML prolog (DOCTYPE) is longer than {MAX_PROLOG} bytes"
                )));
            }
        }
        let end = prolog_end(&self.ahead).unwrap_or(self.ahead.len());
        self.entities = declared_entities(&self.ahead[..end])?;
        self.prolog_done = true;
        // The prolog's own references (in entity values) are measured already; the scan of
        // references starts after it.
        let body = self.ahead.split_off(end);
        let prolog = std::mem::replace(&mut self.ahead, body);
        self.read = prolog.len() as u64;
        let rest = std::mem::take(&mut self.ahead);
        self.scan(&rest)?;
        self.ahead = prolog;
        self.ahead.extend_from_slice(&rest);
        Ok(())
    }

    fn scan(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.read += bytes.len() as u64;
        if self.entities.is_empty() {
            return Ok(());
        }
        for &b in bytes {
            match (&mut self.name, b) {
                (Some(name), b';') => {
                    if let Some(len) = self.entities.get(name.as_slice()) {
                        self.expanded += len;
                        let limit = ENTITY_EXPANSION_FLOOR
                            .max(self.read.saturating_mul(ENTITY_EXPANSION_PER_BYTE));
                        if self.expanded > limit {
                            return Err(invalid(format!(
                                "XML entity references expand to more than {limit} bytes \
                                 (refused before parsing)"
                            )));
                        }
                    }
                    self.name = None;
                }
                (Some(name), b) if is_name_byte(b) && name.len() < MAX_NAME => name.push(b),
                (_, b'&') => self.name = Some(Vec::new()),
                (Some(_), _) => self.name = None,
                (None, _) => {}
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for XmlEntities<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.prolog_done {
            self.read_prolog()?;
        }
        if !self.ahead.is_empty() {
            let n = buf.len().min(self.ahead.len());
            buf[..n].copy_from_slice(&self.ahead[..n]);
            self.ahead.drain(..n);
            return Ok(n);
        }
        let n = self.inner.read(buf)?;
        self.scan(&buf[..n])?;
        Ok(n)
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':') || b >= 0x80
}

/// Where the prolog ends: at the first `<` that opens an element (not `<?`, `<!`), skipping the
/// DOCTYPE's internal subset. `None` if more input is needed.
fn prolog_end(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut in_subset = false;
    while i < b.len() {
        if b[i..].starts_with(b"<!--") {
            i += find(&b[i..], b"-->")? + 3;
        } else if b[i..].starts_with(b"<?") {
            i += find(&b[i..], b"?>")? + 2;
        } else if in_subset {
            match b[i] {
                b'"' | b'\'' => i += 1 + b[i + 1..].iter().position(|&c| c == b[i])? + 1,
                b']' => {
                    in_subset = false;
                    i += 1;
                }
                _ => i += 1,
            }
        } else if b[i..].starts_with(b"<!") {
            // DOCTYPE: its internal subset, if any, ends at `]`, the declaration at `>`.
            let mut j = i + 2;
            loop {
                match *b.get(j)? {
                    b'[' => {
                        in_subset = true;
                        i = j + 1;
                        break;
                    }
                    b'>' => {
                        i = j + 1;
                        break;
                    }
                    b'"' | b'\'' => j += 1 + b[j + 1..].iter().position(|&c| c == b[j])? + 1,
                    _ => j += 1,
                }
            }
        } else if b[i] == b'<' {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The general entities `<!ENTITY name "value">` of a prolog, each with its expanded length
/// (references to entities declared before it count as their own expansion).
fn declared_entities(prolog: &[u8]) -> io::Result<HashMap<Vec<u8>, u64>> {
    let mut out: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut rest = prolog;
    while let Some(at) = find(rest, b"<!ENTITY") {
        rest = &rest[at + 8..];
        let trimmed = rest.trim_ascii_start();
        if trimmed.starts_with(b"%") {
            return Err(invalid(
                "XML parameter entities (<!ENTITY % ...>) are not read".into(),
            ));
        }
        let name_len = trimmed.iter().take_while(|&&b| is_name_byte(b)).count();
        let name = trimmed[..name_len].to_vec();
        let after = trimmed[name_len..].trim_ascii_start();
        let Some(&quote) = after.first().filter(|q| matches!(q, b'"' | b'\'')) else {
            continue; // an external entity (SYSTEM / PUBLIC): not expanded by the parser
        };
        let Some(close) = after[1..].iter().position(|&c| c == quote) else {
            break;
        };
        let value = &after[1..1 + close];
        let mut len = 0u64;
        let mut i = 0;
        while i < value.len() {
            if value[i] == b'&' {
                if let Some(semi) = value[i..].iter().position(|&c| c == b';') {
                    if let Some(l) = out.get(&value[i + 1..i + semi]) {
                        len = len.saturating_add(*l);
                        i += semi + 1;
                        continue;
                    }
                }
            }
            len += 1;
            i += 1;
        }
        if len > MAX_ENTITY_LEN {
            return Err(invalid(format!(
                "XML entity {:?} expands to {len} bytes, over the {MAX_ENTITY_LEN}-byte limit \
                 (refused before parsing)",
                String::from_utf8_lossy(&name)
            )));
        }
        out.insert(name, len);
        rest = &after[1 + close..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn pass(doc: &[u8], chunk: usize) -> io::Result<Vec<u8>> {
        // A reader handing out `chunk` bytes at a time, to cross every boundary.
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        XmlEntities::new(Chunks(doc, chunk)).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn ordinary_entities_pass_unchanged() {
        let doc = b"<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n<!ENTITY owl \"http://www.w3.org/2002/07/owl#\">\n<!ENTITY x '&owl;x'>]>\n<rdf:RDF><owl:Class rdf:about=\"&owl;Thing\"/>&x;</rdf:RDF>";
        for chunk in [1, 7, 4096] {
            assert_eq!(pass(doc, chunk).unwrap(), doc);
        }
        assert_eq!(declared_entities(doc).unwrap()[&b"x"[..]], 31);
    }

    #[test]
    fn billion_laughs_is_refused() {
        let (mut doc, last) = rete_datagen::hostile::laughs_doctype("lolz");
        doc.push_str(&format!("]>\n<lolz>&{last};</lolz>"));
        assert!(doc.len() < 1024);
        let e = pass(doc.as_bytes(), 4096).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("over the 1048576-byte limit"), "{e}");
        // Under the per-entity limit, but referenced over and over.
        let many = format!(
            "<!DOCTYPE r [<!ENTITY a \"{}\">]><r>{}</r>",
            "a".repeat(1 << 20),
            "&a;".repeat(100)
        );
        let e = pass(many.as_bytes(), 4096).unwrap_err();
        assert!(e.to_string().contains("expand to more than"), "{e}");
    }
}
