//! A faster parse of an N-Triples or N-Quads chunk: oxttl's lenient mode, then the checks it
//! skipped, each IRI checked once per chunk instead of at every occurrence.
//!
//! Checking IRIs was half of a parsing thread's time (an IRI repeats as the subject of its
//! lines, predicates and classes on every line). A chunk is taken from the lenient parse only
//! if it gives what a strict parse gives; otherwise the caller parses it strictly, so the quads
//! and errors are a strict parse's. For oxttl 0.2.5 (`lenient` in `lexer.rs`, `line_formats.rs`;
//! the N-Triples lexer has no base IRI and the `rdf-12` feature is off), lenient mode differs
//! from strict mode only in these places, each covered:
//!
//! - an IRI is not parsed with `oxiri::Iri::parse`: every IRI of the output (subject,
//!   predicate, object, graph, datatype) goes through that same function here
//!   ([`NamedNodeRef::new`]), on the same string;
//! - a language tag is not parsed with `oxilangtag::LanguageTag::parse`: it is parsed here, in
//!   the lower case the parser stores (the lexer admits only ASCII letters, digits and `-`, and
//!   oxilangtag's grammar ignores ASCII case, as oxrdf's checked constructor relies on);
//! - a string may hold a raw line jump: the chunk is refused when a literal holds `\n` or
//!   `\r` (raw or escaped: the output cannot tell them apart);
//! - `\uXXXX` may start a UTF-16 surrogate pair: the chunk is refused when it holds `\u`
//!   followed by `d` or `D` (every surrogate escape starts so);
//! - a datatype may be `rdf:langString` (or `rdf:dirLangString`): such a chunk is refused.
//!
//! Lenient mode also accepts some invalid prefixed names, which N-Triples rejects in both modes.
//! Token boundaries are the same in both modes when none of the above applies, so the lexers
//! emit the same tokens and the parsers the same quads.

use crate::input::Batch;
use oxrdf::vocab::rdf;
use oxrdf::{GraphNameRef, LiteralRef, NamedNodeRef, NamedOrBlankNodeRef, QuadRef, TermRef};
use rustc_hash::FxHashSet;

/// `rdf:dirLangString`, refused as a datatype by strict parsers built with RDF 1.2.
const DIR_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString";

/// IRIs a thread found valid, kept across its chunks up to this many.
const MAX_KNOWN: usize = 1 << 16;

/// Valid IRIs seen by one parsing thread.
#[derive(Debug, Default)]
pub(crate) struct Known(FxHashSet<Box<str>>);

impl Known {
    /// Whether `iri` is valid, parsing it only when it was not seen valid before.
    fn iri(&mut self, iri: &str) -> bool {
        if self.0.contains(iri) {
            return true;
        }
        if NamedNodeRef::new(iri).is_err() {
            return false;
        }
        if self.0.len() >= MAX_KNOWN {
            self.0.clear();
        }
        self.0.insert(iri.into());
        true
    }

    fn subject(&mut self, s: NamedOrBlankNodeRef<'_>) -> bool {
        match s {
            NamedOrBlankNodeRef::NamedNode(n) => self.iri(n.as_str()),
            NamedOrBlankNodeRef::BlankNode(_) => true,
        }
    }

    fn literal(&mut self, l: LiteralRef<'_>) -> bool {
        if l.value().contains(['\n', '\r']) {
            return false;
        }
        match l.language() {
            Some(lang) => oxilangtag::LanguageTag::parse(lang).is_ok(),
            None => {
                let d = l.datatype().as_str();
                d != rdf::LANG_STRING.as_str() && d != DIR_LANG_STRING && self.iri(d)
            }
        }
    }

    /// Whether a strict parse would give `q` as it is.
    fn quad(&mut self, q: QuadRef<'_>) -> bool {
        self.subject(q.subject)
            && self.iri(q.predicate.as_str())
            && match q.object {
                TermRef::NamedNode(n) => self.iri(n.as_str()),
                TermRef::BlankNode(_) => true,
                TermRef::Literal(l) => self.literal(l),
            }
            && match q.graph_name {
                GraphNameRef::NamedNode(n) => self.iri(n.as_str()),
                GraphNameRef::BlankNode(_) | GraphNameRef::DefaultGraph => true,
            }
    }
}

/// Whether `bytes` holds `\u` followed by `d` or `D`, as every UTF-16 surrogate escape does.
fn maybe_surrogate(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', bytes)
        .any(|i| bytes.get(i + 1) == Some(&b'u') && matches!(bytes.get(i + 2), Some(b'd' | b'D')))
}

/// The quads of a chunk by the lenient parse, `None` when it has an error or any quad might
/// differ from a strict parse's (the caller then parses it strictly).
pub(crate) fn parse(nquads: bool, bytes: &[u8], known: &mut Known) -> Option<Batch> {
    if maybe_surrogate(bytes) {
        return None;
    }
    let mut batch = Batch::default();
    let mut push = |q: QuadRef<'_>| -> Option<()> {
        if !known.quad(q) {
            return None;
        }
        batch.push(q).ok()
    };
    if nquads {
        for q in oxttl::NQuadsParser::new().lenient().for_slice(bytes) {
            push(q.ok()?.as_ref())?;
        }
    } else {
        for t in oxttl::NTriplesParser::new().lenient().for_slice(bytes) {
            push(t.ok()?.as_ref().in_graph(GraphNameRef::DefaultGraph))?;
        }
    }
    Some(batch)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use crate::lines::parse_chunk;
    use proptest::prelude::*;

    /// The lenient parse, if it gives quads, gives a strict parse's.
    fn agrees(nquads: bool, text: &str) -> Option<Batch> {
        let lenient = parse(nquads, text.as_bytes(), &mut Known::default());
        if lenient.is_some() {
            assert_eq!(lenient, parse_chunk(nquads, text.as_bytes()), "{text:?}");
        }
        lenient
    }

    #[test]
    fn valid_lines_take_the_fast_path() {
        let text = "<http://e/s> <http://e/p> <http://e/o> .\n\
                    <http://e/s> <http://e/p> \"x\"@en-GB .\n\
                    _:b <http://e/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n\
                    <http://e/s> <http://e/p> \"\\u00e9\\U0001F600 \\\"q\\\"\" .\n\
                    <http://e/s\\u00e9> <http://e/p> \"x\"^^<http://www.w3.org/2001/XMLSchema#string> .\n";
        assert!(agrees(false, text).is_some());
        let nq =
            "<http://e/s> <http://e/p> <http://e/o> <http://e/g> .\n_:s <http://e/p> _:o _:g .\n";
        assert!(agrees(true, nq).is_some());
    }

    #[test]
    fn what_lenient_mode_skips_is_refused() {
        let refused = [
            "<http://e/s> <http://e/p> <http://e/a b> .\n",
            "<http://e/s> <http://e/p> <rel> .\n",
            "<http://e/s> <http://e/p{}> <http://e/o> .\n",
            "<http://e/%zz> <http://e/p> <http://e/o> .\n",
            "<http://e/s> <http://e/p> \"1\"^^<bad iri> .\n",
            "<http://e/s> <http://e/p> \"x\"@abcdefghi .\n",
            "<http://e/s> <http://e/p> \"x\"@en-a .\n",
            "<http://e/s> <http://e/p> \"x\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .\n",
            "<http://e/s> <http://e/p> \"\\uD83D\\uDE00\" .\n",
            "<http://e/s> <http://e/p> \"a\nb\" .\n",
            "<http://e/s> <http://e/p> \"a\rb\" .\n",
            "<http://e/s> <http://e/p> <http://e/o\n> .\n",
            // Valid, but the output cannot tell an escaped line end from a raw one.
            "<http://e/s> <http://e/p> \"a\\nb\" .\n",
        ];
        for text in refused {
            assert!(agrees(false, text).is_none(), "{text:?}");
        }
        assert!(agrees(true, "<http://e/s> <http://e/p> <http://e/o> <a b> .\n").is_none());
    }

    #[test]
    fn known_iris_stay_bounded() {
        let mut k = Known::default();
        for i in 0..MAX_KNOWN + 10 {
            assert!(k.iri(&format!("http://e/{i}")));
        }
        assert!(k.0.len() <= MAX_KNOWN);
        assert!(!k.iri("http://e/a b"));
    }

    fn pick(v: Vec<&'static str>) -> impl Strategy<Value = &'static str> {
        prop::sample::select(v)
    }

    /// IRIs, valid and not.
    const IRIS: [&str; 13] = [
        "<http://e/s>",
        "<http://e/p>",
        "<http://e/o\\u00e9>",
        "<http://e/a b>",
        "<rel>",
        "<http://e/{x}>",
        "<http://e/%41>",
        "<http://e/%zz>",
        "<http://e/\\u0020>",
        "<http://[::1]/x>",
        "<http://[::1/x>",
        "<urn:x>",
        "<http://e/o",
    ];

    /// A subject, predicate, object or graph, mostly of its kind, sometimes not.
    fn term(pos: usize) -> impl Strategy<Value = &'static str> {
        let mut v: Vec<&'static str> = IRIS.to_vec();
        v.extend(["_:b1", "_:b.", "ex:x", "a", "\n", "#c\n"]);
        if pos == 2 {
            v.extend([
                "\"x\"",
                "\"x\"@en",
                "\"x\"@EN-gb",
                "\"x\"@en-GB-oed",
                "\"x\"@i-klingon",
                "\"x\"@x-private",
                "\"x\"@abcdefghi",
                "\"x\"@en--ltr",
                "\"x\"@1a",
                "\"x\"@en-",
                "\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>",
                "\"1\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>",
                "\"1\"^^<bad iri>",
                "\"1\"^^<http://www.w3.org/2001/XMLSchema#string>",
                "\"a\\nb\"",
                "\"a\nb\"",
                "\"a\rb\"",
                "\"\\uD83D\\uDE00\"",
                "\"\\ud800\"",
                "\"\\U0001F600\"",
                "\"\\uZZZZ\"",
                "\"\\\"\"",
                "\"x",
            ]);
        }
        if pos == 3 {
            v.push("");
        }
        // Mostly valid terms, so that whole chunks parse.
        let valid = match pos {
            2 => vec!["<http://e/o>", "_:b2", "\"x\"@EN-gb", "\"\\U0001F600\""],
            3 => vec!["", "", "<http://e/g>", "_:g"],
            1 => vec!["<http://e/p>"],
            _ => vec!["<http://e/s>", "_:b1"],
        };
        prop_oneof![4 => pick(valid), 1 => pick(v)]
    }

    fn line() -> impl Strategy<Value = String> {
        (
            term(0),
            term(1),
            term(2),
            term(3),
            prop::bool::weighted(0.95),
        )
            .prop_map(|(s, p, o, g, dot)| {
                format!("{s} {p} {o} {g}{}\n", if dot { " ." } else { "" })
            })
    }

    proptest! {
        // About a quarter of the cases take the fast path; removing any check above fails.
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn lenient_quads_are_strict_quads(
            lines in prop::collection::vec(line(), 1..4),
            nquads in any::<bool>(),
        ) {
            agrees(nquads, &lines.concat());
        }
    }
}
