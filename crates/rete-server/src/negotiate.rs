//! Content negotiation: the `Accept` header (with q-values and wildcards) against the formats
//! that can hold the answer, in the server's order of preference.

use crate::ServeError;
use oxrdfio::{JsonLdProfileSet, RdfFormat};
use rete_sparql::ResultFormat;

/// What kind of answer is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `SELECT` solutions.
    Solutions,
    /// An `ASK` answer.
    Boolean,
    /// `CONSTRUCT` / `DESCRIBE` triples, a graph of the Graph Store, the service description.
    Graph,
    /// The whole dataset, named graphs included.
    Dataset,
}

/// A chosen output format and the media type it is sent with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Output {
    Results(ResultFormat),
    Rdf(RdfFormat),
}

const JSON_LD: RdfFormat = RdfFormat::JsonLd {
    profile: JsonLdProfileSet::empty(),
};

/// The media type a format is sent with (one for each, whatever media type was accepted).
fn content_type(o: Output) -> &'static str {
    match o {
        Output::Results(ResultFormat::Json) => "application/sparql-results+json",
        Output::Results(ResultFormat::Xml) => "application/sparql-results+xml",
        Output::Results(ResultFormat::Csv) => "text/csv; charset=utf-8",
        Output::Results(ResultFormat::Tsv) => "text/tab-separated-values; charset=utf-8",
        Output::Results(ResultFormat::Table) => "text/plain; charset=utf-8",
        Output::Results(ResultFormat::Turtle) | Output::Rdf(RdfFormat::Turtle) => {
            "text/turtle; charset=utf-8"
        }
        Output::Results(ResultFormat::NTriples) | Output::Rdf(RdfFormat::NTriples) => {
            "application/n-triples"
        }
        Output::Rdf(f) => f.media_type(),
    }
}

/// (media type accepted, format). The first one of a kind is its default.
const RESULTS: &[(&str, Output)] = &[
    (
        "application/sparql-results+json",
        Output::Results(ResultFormat::Json),
    ),
    (
        "application/sparql-results+xml",
        Output::Results(ResultFormat::Xml),
    ),
    ("text/csv", Output::Results(ResultFormat::Csv)),
    (
        "text/tab-separated-values",
        Output::Results(ResultFormat::Tsv),
    ),
    ("application/json", Output::Results(ResultFormat::Json)),
    ("application/xml", Output::Results(ResultFormat::Xml)),
    ("text/xml", Output::Results(ResultFormat::Xml)),
];

const GRAPH: &[(&str, Output)] = &[
    ("text/turtle", Output::Rdf(RdfFormat::Turtle)),
    ("application/n-triples", Output::Rdf(RdfFormat::NTriples)),
    ("application/rdf+xml", Output::Rdf(RdfFormat::RdfXml)),
    ("application/ld+json", Output::Rdf(JSON_LD)),
    ("application/n-quads", Output::Rdf(RdfFormat::NQuads)),
    ("application/trig", Output::Rdf(RdfFormat::TriG)),
    // Turtle is valid N3; N-Triples was long served as text/plain.
    ("text/n3", Output::Rdf(RdfFormat::Turtle)),
    ("text/plain", Output::Rdf(RdfFormat::NTriples)),
    ("application/json", Output::Rdf(JSON_LD)),
    ("application/xml", Output::Rdf(RdfFormat::RdfXml)),
];

const DATASET: &[(&str, Output)] = &[
    ("application/trig", Output::Rdf(RdfFormat::TriG)),
    ("application/n-quads", Output::Rdf(RdfFormat::NQuads)),
    ("application/ld+json", Output::Rdf(JSON_LD)),
    ("application/json", Output::Rdf(JSON_LD)),
];

fn offers(kind: Kind) -> &'static [(&'static str, Output)] {
    match kind {
        Kind::Solutions | Kind::Boolean => RESULTS,
        Kind::Graph => GRAPH,
        Kind::Dataset => DATASET,
    }
}

/// One media range of an `Accept` header.
struct Range<'a> {
    kind: &'a str,
    sub: &'a str,
    q: f32,
}

impl Range<'_> {
    /// How specifically this range names `media` (`None`: it does not match).
    fn matches(&self, media: &str) -> Option<u8> {
        let (k, s) = media.split_once('/')?;
        match (self.kind, self.sub) {
            ("*", "*") => Some(0),
            (kind, "*") if kind.eq_ignore_ascii_case(k) => Some(1),
            (kind, sub) if kind.eq_ignore_ascii_case(k) && sub.eq_ignore_ascii_case(s) => Some(2),
            _ => None,
        }
    }
}

fn parse_accept(accept: &str) -> Vec<Range<'_>> {
    accept
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let (kind, sub) = parts.next()?.trim().split_once('/')?;
            let mut q = 1.0;
            for p in parts {
                if let Some((k, v)) = p.split_once('=') {
                    if k.trim().eq_ignore_ascii_case("q") {
                        q = v.trim().parse().unwrap_or(0.0);
                    }
                }
            }
            Some(Range {
                kind: kind.trim(),
                sub: sub.trim(),
                q,
            })
        })
        .collect()
}

/// The format for an answer of `kind` given the request's `Accept` header (none: the default),
/// with the `Content-Type` to send.
pub(crate) fn choose(
    accept: Option<&str>,
    kind: Kind,
) -> Result<(Output, &'static str), ServeError> {
    let offers = offers(kind);
    let accept = accept.map(str::trim).filter(|a| !a.is_empty());
    let Some(accept) = accept else {
        return Ok((offers[0].1, content_type(offers[0].1)));
    };
    let ranges = parse_accept(accept);
    let mut best: Option<(f32, usize)> = None;
    for (i, (media, _)) in offers.iter().enumerate() {
        // The most specific range that matches decides the quality of this offer.
        let q = ranges
            .iter()
            .filter_map(|r| r.matches(media).map(|spec| (spec, r.q)))
            .max_by_key(|(spec, _)| *spec)
            .map_or(0.0, |(_, q)| q);
        if q > 0.0 && best.is_none_or(|(bq, _)| q > bq) {
            best = Some((q, i));
        }
    }
    match best {
        Some((_, i)) => Ok((offers[i].1, content_type(offers[i].1))),
        None => {
            let what = match kind {
                Kind::Solutions => "SELECT results",
                Kind::Boolean => "an ASK result",
                Kind::Graph => "a graph",
                Kind::Dataset => "a dataset",
            };
            let mut names: Vec<&str> = offers.iter().map(|o| o.0).collect();
            names.dedup();
            Err(ServeError::NotAcceptable(format!(
                "none of the accepted types ({accept}) can hold {what}: ask for one of {}",
                names.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q_values_wildcards_and_defaults() {
        let pick = |a: Option<&str>, k| choose(a, k).map(|(_, m)| m);
        assert_eq!(
            pick(None, Kind::Solutions).unwrap(),
            "application/sparql-results+json"
        );
        assert_eq!(
            pick(
                Some("text/csv;q=0.5, application/sparql-results+xml"),
                Kind::Solutions
            )
            .unwrap(),
            "application/sparql-results+xml"
        );
        assert_eq!(
            pick(Some("text/*"), Kind::Solutions).unwrap(),
            "text/csv; charset=utf-8"
        );
        assert_eq!(
            pick(Some("text/html, */*;q=0.8"), Kind::Graph).unwrap(),
            "text/turtle; charset=utf-8"
        );
        assert_eq!(
            pick(Some("*/*;q=0.1, text/turtle;q=0"), Kind::Graph).unwrap(),
            "application/n-triples"
        );
        assert_eq!(
            pick(Some("application/json"), Kind::Graph).unwrap(),
            "application/ld+json"
        );
        assert!(matches!(
            choose(Some("text/turtle"), Kind::Solutions),
            Err(ServeError::NotAcceptable(_))
        ));
    }
}
