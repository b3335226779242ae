//! Shared test helpers: build a `.rete` from TriG text, parse expected quads.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
#![allow(dead_code)]

use oxttl::TriGParser;
use rete_build::{build, BuildOptions, Input, Syntax};
use rete_core::Rete;
use std::collections::BTreeSet;
use std::path::Path;

pub const PREFIXES: &str = "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix : <http://example.org/> .
";

/// Builds `dir/name.rete` from TriG (prefixes above are prepended) and opens it.
pub fn rete_from_trig(dir: &Path, name: &str, trig: &str) -> Rete {
    let data = format!("{PREFIXES}{trig}");
    let out = dir.join(format!("{name}.rete"));
    let opts = BuildOptions {
        inputs: vec![Input::bytes(
            format!("{name}.trig"),
            data.into_bytes(),
            Syntax::TriG,
        )],
        zstd_level: 1,
        ..BuildOptions::default()
    };
    build(&opts, &out).expect("build");
    Rete::open_path(&out).expect("open")
}

/// Builds a `.rete` from N-Triples text.
pub fn rete_from_nt(dir: &Path, name: &str, nt: &str) -> Rete {
    let out = dir.join(format!("{name}.rete"));
    let opts = BuildOptions {
        inputs: vec![Input::bytes(
            format!("{name}.nt"),
            nt.as_bytes().to_vec(),
            Syntax::NTriples,
        )],
        zstd_level: 1,
        ..BuildOptions::default()
    };
    build(&opts, &out).expect("build");
    Rete::open_path(&out).expect("open")
}

/// The quads of a TriG text (prefixes prepended) as N-Quads lines.
pub fn quads(trig: &str) -> BTreeSet<String> {
    let data = format!("{PREFIXES}{trig}");
    TriGParser::new()
        .for_slice(data.as_bytes())
        .map(|q| q.expect("valid TriG").to_string())
        .collect()
}

/// N-Quads lines of oxrdf quads.
pub fn lines(q: &[oxrdf::Quad]) -> BTreeSet<String> {
    q.iter().map(ToString::to_string).collect()
}
