//! Entry points for the fuzz targets (feature `fuzzing`): the parsers a build runs, without the
//! build around them, and the lenient N-Triples parse checked against the strict one.

use crate::input::{statements, Batch};
use crate::{BuildError, Input};
use oxrdf::QuadRef;

/// Parses `input` as a build does on one thread (JSON-LD's depth limit, RDF/XML's entity
/// limit, syntax errors with line and column), handing each quad to `sink`; returns the
/// prefixes declared.
pub fn parse(
    input: &Input,
    base_iri: Option<&str>,
    sink: &mut dyn FnMut(QuadRef<'_>),
) -> Result<Vec<(String, String)>, BuildError> {
    let (syntax, _) = input.resolve()?;
    let name = input.name();
    statements(input, syntax, &name, base_iri, input.open()?, &mut |q| {
        sink(q);
        Ok(())
    })
}

/// Parses a chunk of N-Triples (or N-Quads) both ways; panics when the fast lenient parse
/// accepts it and gives anything but the strict parse's quads.
pub fn lenient_agrees(nquads: bool, bytes: &[u8]) {
    let lenient = crate::lenient::parse(nquads, bytes, &mut crate::lenient::Known::default());
    if lenient.is_some() {
        let strict: Option<Batch> = crate::lines::parse_chunk(nquads, bytes);
        assert!(
            lenient == strict,
            "the lenient parse differs from the strict parse on {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}
