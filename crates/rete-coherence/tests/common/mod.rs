#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
// Shared helpers of the integration tests.
#![allow(dead_code)]

use rete_build::{build, BuildOptions, Extension, Input, Syntax};
use rete_coherence::{check, Finding, Report, Tier};
use rete_core::Rete;
use rete_datagen::medical::{write_turtle, MedicalParams};
use rete_schema::SchemaExtension;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub fn build_bytes(dir: &Path, name: &str, data: Vec<u8>, syntax: Syntax, schema: bool) -> PathBuf {
    let out = dir.join(name);
    let ext: Vec<Arc<dyn Extension>> = if schema {
        vec![Arc::new(SchemaExtension)]
    } else {
        Vec::new()
    };
    build(
        &BuildOptions {
            inputs: vec![Input::bytes(name, data, syntax)],
            extensions: ext,
            ..BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    out
}

pub const PREFIXES: &str = "@prefix : <http://ex.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
";

/// Builds Turtle (with the common prefixes) with a schema block and runs `tier`.
pub fn run_ttl(ttl: &str, tier: Tier) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let path = build_bytes(
        dir.path(),
        "t.ttl",
        format!("{PREFIXES}{ttl}").into_bytes(),
        Syntax::Turtle,
        true,
    );
    let rete = Rete::open_path(path).unwrap();
    check(&rete, tier, &AtomicBool::new(false)).unwrap()
}

pub fn medical(dir: &Path, params: &MedicalParams, schema: bool) -> PathBuf {
    let mut ttl = Vec::new();
    write_turtle(params, &mut ttl).unwrap();
    build_bytes(dir, "medical.ttl", ttl, Syntax::Turtle, schema)
}

pub fn kinds(r: &Report) -> Vec<&str> {
    r.findings.iter().map(|f| f.kind.as_str()).collect()
}

pub fn texts(f: &Finding) -> Vec<&str> {
    f.explanation.iter().map(|s| s.text.as_str()).collect()
}
