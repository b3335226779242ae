//! An input's syntax and compression, as `--format` and file names give them and cards name
//! them: read by syntax detection and by the parsers, apart from both.

/// An RDF syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// N-Triples.
    NTriples,
    /// N-Quads.
    NQuads,
    /// Turtle.
    Turtle,
    /// TriG.
    TriG,
    /// RDF/XML.
    RdfXml,
    /// JSON-LD 1.1 (remote contexts are not fetched).
    JsonLd,
    /// A `.rete` file written by upstream rete (format 0x05/0x06), read with `rete-upstream`.
    UpstreamRete,
}

impl Syntax {
    /// Parses a `--format` value or a file extension.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "nt" | "ntriples" | "n-triples" => Self::NTriples,
            "nq" | "nquads" | "n-quads" => Self::NQuads,
            "ttl" | "turtle" => Self::Turtle,
            "trig" => Self::TriG,
            "rdf" | "xml" | "owl" | "rdfxml" | "rdf/xml" => Self::RdfXml,
            "jsonld" | "json-ld" | "json" => Self::JsonLd,
            "upstream" | "upstream-rete" => Self::UpstreamRete,
            _ => return None,
        })
    }

    /// Name used in cards and messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::NTriples => "N-Triples",
            Self::NQuads => "N-Quads",
            Self::Turtle => "Turtle",
            Self::TriG => "TriG",
            Self::RdfXml => "RDF/XML",
            Self::JsonLd => "JSON-LD",
            Self::UpstreamRete => "upstream rete",
        }
    }
}

/// Compression of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// zstd (`.zst`).
    Zstd,
}
