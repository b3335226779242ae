//! Telling a file's kind by its content where its name is ambiguous: our `.rete`, an upstream
//! rete file (same extension), or an RDF syntax, looking through gzip and zstd.

use crate::syntax::{Compression, Syntax};
use std::io::Read;
use std::path::Path;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// A `.rete` file of this project's format: open it directly.
    Rete,
    /// A `.rete` written by upstream rete (`RETE` + format byte): build it into ours.
    UpstreamRete {
        /// Its format byte (0x05 or 0x06).
        version: u8,
    },
    /// RDF text to build.
    Rdf {
        /// Its syntax.
        syntax: Syntax,
        /// Its compression.
        compression: Compression,
    },
}

/// Why a file's kind could not be told.
#[derive(Debug, thiserror::Error)]
pub enum DetectError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Upstream rete with a format this reader does not know.
    #[error("{path}: {}", rete_upstream::Error::Unsupported(*version))]
    UpstreamVersion {
        /// The file.
        path: String,
        /// Its format byte.
        version: u8,
    },
    /// Neither a `.rete` nor a recognised RDF syntax.
    #[error("{path}: not a .rete file and not RDF in a known syntax (Turtle, N-Triples, N-Quads, TriG, RDF/XML, JSON-LD)")]
    Unknown {
        /// The file.
        path: String,
    },
}

/// Bytes looked at (decompressed).
const SNIFF: usize = 8192;

/// Tells what `path` holds. The name decides between RDF syntaxes when its extension names one
/// (`.ttl .nt .nq .trig .rdf .owl .xml .jsonld .json`, optionally `.gz`/`.zst`) and the content
/// agrees (an `.xml`/`.json` that is not RDF/XML or JSON-LD is [`DetectError::Unknown`]); the
/// content decides otherwise, `.rete` included. Compression is told by magic bytes.
pub fn detect(path: &Path) -> Result<Detected, DetectError> {
    let name = path.display().to_string();
    let io = |e| DetectError::Io {
        path: name.clone(),
        source: e,
    };
    let mut head = Vec::with_capacity(SNIFF);
    std::fs::File::open(path)
        .map_err(io)?
        .take(SNIFF as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    if head.starts_with(&rete_core::format::MAGIC) {
        return Ok(Detected::Rete);
    }
    if head.starts_with(b"RETE") && head.len() > 4 {
        let version = head[4];
        return if rete_upstream::KNOWN_VERSIONS.contains(&version) {
            Ok(Detected::UpstreamRete { version })
        } else {
            Err(DetectError::UpstreamVersion {
                path: name,
                version,
            })
        };
    }
    let compression = if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else {
        Compression::None
    };
    let text = match compression {
        Compression::None => head,
        Compression::Gzip => decompressed(flate2::read::MultiGzDecoder::new(
            std::fs::File::open(path).map_err(io)?,
        )),
        Compression::Zstd => {
            match zstd::stream::read::Decoder::new(std::fs::File::open(path).map_err(io)?) {
                Ok(d) => decompressed(d),
                Err(_) => Vec::new(),
            }
        }
    };
    let lower = name.to_ascii_lowercase();
    let stem = lower
        .strip_suffix(".gz")
        .or_else(|| lower.strip_suffix(".zst"))
        .unwrap_or(&lower);
    let by_name = Path::new(stem)
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| *e != "upstream" && *e != "upstream-rete")
        .and_then(Syntax::from_name);
    let by_content = sniff(&text);
    let syntax = match (by_name, by_content) {
        // Generic names: only the content says whether it is RDF at all.
        (Some(Syntax::RdfXml), c) if stem.ends_with(".xml") => {
            c.filter(|s| *s == Syntax::RdfXml && looks_like_rdf_xml(&text))
        }
        (Some(Syntax::JsonLd), c) if stem.ends_with(".json") => c.filter(|s| *s == Syntax::JsonLd),
        (Some(s), _) => Some(s),
        (None, c) => c,
    };
    match syntax {
        Some(syntax) => Ok(Detected::Rdf {
            syntax,
            compression,
        }),
        None => Err(DetectError::Unknown { path: name }),
    }
}

fn decompressed(r: impl Read) -> Vec<u8> {
    let mut v = Vec::with_capacity(SNIFF);
    // A damaged stream sniffs as what it decoded so far.
    let _ = r.take(SNIFF as u64).read_to_end(&mut v);
    v
}

fn looks_like_rdf_xml(text: &[u8]) -> bool {
    let s = String::from_utf8_lossy(text);
    s.contains("http://www.w3.org/1999/02/22-rdf-syntax-ns#")
}

/// The syntax the first bytes look like, if any.
pub(crate) fn sniff(text: &[u8]) -> Option<Syntax> {
    let s = String::from_utf8_lossy(text);
    let s = s.trim_start_matches('\u{feff}');
    // Skip blank lines and comments (# for the Turtle family).
    let body: Vec<&str> = s
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let first = body.first()?;
    if first.starts_with('{') || first.starts_with('[') {
        return Some(Syntax::JsonLd);
    }
    if first.starts_with("<?xml") || first.starts_with("<!") || first.starts_with("<rdf:") {
        return looks_like_rdf_xml(text).then_some(Syntax::RdfXml);
    }
    let lower = first.to_ascii_lowercase();
    let directive = lower.starts_with("@prefix")
        || lower.starts_with("@base")
        || lower.starts_with("prefix ")
        || lower.starts_with("base ");
    // Lines of N-Triples/N-Quads: terms then " ." at the end; four terms make a quad.
    let full_lines = if text.len() >= SNIFF {
        &body[..body.len().saturating_sub(1)]
    } else {
        &body[..]
    };
    let statement_lines = full_lines
        .iter()
        .all(|l| (l.starts_with('<') || l.starts_with("_:")) && l.ends_with('.'));
    if !directive && !full_lines.is_empty() && statement_lines {
        let quads = full_lines.iter().any(|l| terms_in_line(l) == 4);
        return Some(if quads {
            Syntax::NQuads
        } else {
            Syntax::NTriples
        });
    }
    // Turtle or TriG: TriG has a graph block `<g> {` or `GRAPH`.
    let trig = body.iter().any(|l| {
        let t = l.trim_end();
        (t.ends_with('{') && !t.starts_with('@') && !t.contains('"'))
            || t.to_ascii_uppercase().starts_with("GRAPH ")
    });
    if directive || first.starts_with('<') || first.starts_with("_:") || first.starts_with('[') {
        return Some(if trig { Syntax::TriG } else { Syntax::Turtle });
    }
    None
}

/// Terms of an N-Triples/N-Quads line (IRIs, blank nodes, literals), not counting the final dot.
fn terms_in_line(l: &str) -> usize {
    let b = l.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'<' => {
                while i < b.len() && b[i] != b'>' {
                    i += 1;
                }
                n += 1;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                // Datatype or language tag follow without a space.
                while i + 1 < b.len() && b[i + 1] != b' ' && b[i + 1] != b'\t' {
                    i += 1;
                }
                n += 1;
            }
            b'_' => {
                while i < b.len() && b[i] != b' ' && b[i] != b'\t' {
                    i += 1;
                }
                n += 1;
            }
            _ => {}
        }
        i += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_each_syntax() {
        let nt = b"<http://a> <http://p> \"x\"@en .\n<http://a> <http://p> _:b .\n";
        assert_eq!(sniff(nt), Some(Syntax::NTriples));
        let nq = b"<http://a> <http://p> \"x\"^^<http://d> <http://g> .\n";
        assert_eq!(sniff(nq), Some(Syntax::NQuads));
        assert_eq!(
            sniff(b"# c\n@prefix ex: <http://e/> .\nex:a ex:p ex:b ."),
            Some(Syntax::Turtle)
        );
        assert_eq!(
            sniff(b"PREFIX ex: <http://e/>\nex:g {\n ex:a ex:p ex:b .\n}\n"),
            Some(Syntax::TriG)
        );
        assert_eq!(
            sniff(b"<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>"),
            Some(Syntax::RdfXml)
        );
        assert_eq!(sniff(b"<?xml version=\"1.0\"?>\n<html/>"), None);
        assert_eq!(sniff(b"  {\"@id\": \"http://a\"}"), Some(Syntax::JsonLd));
        assert_eq!(sniff(b"hello world"), None);
        assert_eq!(sniff(b""), None);
    }
}
