//! A hub-and-spoke vocabulary: properties `ex:p0000`… (object and datatype properties by turns)
//! whose domain is `ex:Hub` or, one in five, `ex:Other` (`ex:` being
//! `http://example.org/star#`). No modularity optimisation splits it: a small graph for testing
//! what a community detector and a map do with one group of thousands of members.

use std::io::Write;

/// The namespace of the vocabulary's terms.
pub const EX: &str = "http://example.org/star#";

/// Writes `properties` properties as N-Triples, each its type and its domain, then, `labelled`,
/// an English label "property N". The classes `ex:Hub` and `ex:Other` are the caller's to
/// declare.
pub fn write_properties(
    properties: u32,
    labelled: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    const TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
    const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
    const OWL: &str = "http://www.w3.org/2002/07/owl#";
    for i in 0..properties {
        let kind = if i % 2 == 0 {
            "ObjectProperty"
        } else {
            "DatatypeProperty"
        };
        let hub = if i % 5 == 0 { "Other" } else { "Hub" };
        writeln!(out, "<{EX}p{i:04}> {TYPE} <{OWL}{kind}> .")?;
        writeln!(out, "<{EX}p{i:04}> <{RDFS}domain> <{EX}{hub}> .")?;
        if labelled {
            writeln!(out, "<{EX}p{i:04}> <{RDFS}label> \"property {i}\"@en .")?;
        }
    }
    Ok(())
}
