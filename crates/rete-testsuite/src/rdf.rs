//! The RDF 1.1 syntax suites (N-Triples, N-Quads, Turtle, TriG, RDF/XML) run through the
//! builder: positive tests must build and export back to the input's quads (and, for
//! evaluation tests, to the expected N-Triples/N-Quads), negative tests must fail and leave no
//! output file.

use crate::compare::isomorphic_datasets;
use crate::manifest::Test;
use crate::{export, read_rdf, Outcome, TestError};
use oxrdf::GraphName;
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::Rete;
use std::path::Path;

/// The public base the suites' expected results assume (`mf:assumedTestBase`), per folder.
fn public_base(t: &Test) -> Option<String> {
    let dir = t.manifest.parent()?.file_name()?.to_str()?.to_owned();
    Some(format!("https://w3c.github.io/rdf-tests/rdf/rdf11/{dir}/"))
}

fn syntax_of(kind: &str) -> Option<Syntax> {
    Some(if kind.starts_with("TestNTriples") {
        Syntax::NTriples
    } else if kind.starts_with("TestNQuads") {
        Syntax::NQuads
    } else if kind.starts_with("TestTurtle") {
        Syntax::Turtle
    } else if kind.starts_with("TestTrig") {
        Syntax::TriG
    } else if kind.starts_with("TestXML") {
        Syntax::RdfXml
    } else {
        return None;
    })
}

/// Runs one RDF syntax test.
pub fn run(t: &Test, tmp: &Path) -> Outcome {
    match run_inner(t, tmp) {
        Ok(o) => o,
        Err(e) => Outcome::Fail(e.to_string()),
    }
}

fn run_inner(t: &Test, tmp: &Path) -> Result<Outcome, TestError> {
    let Some(syntax) = syntax_of(&t.kind) else {
        return Ok(Outcome::Skip(format!(
            "test type {} is not a syntax test",
            t.kind
        )));
    };
    let action = t
        .action
        .as_ref()
        .ok_or_else(|| TestError::Manifest(format!("{}: no action", t.id)))?;
    // The path below the manifest's folder (RDF/XML tests live in subfolders).
    let rel = t
        .manifest
        .parent()
        .and_then(|dir| action.strip_prefix(dir).ok())
        .map(|r| r.display().to_string())
        .unwrap_or_default();
    let base = format!("{}{rel}", public_base(t).unwrap_or_default());
    let negative = t.kind.contains("Negative");
    let out = tmp.join("out.rete");
    let opts = BuildOptions {
        inputs: vec![Input {
            syntax: Some(syntax),
            ..Input::path(action)
        }],
        base_iri: Some(base.clone()),
        zstd_level: 1,
        ..BuildOptions::default()
    };
    let built = rete_build::build(&opts, &out);
    if negative {
        return Ok(match built {
            Ok(_) => Outcome::Fail("an invalid document was accepted".into()),
            Err(_) if out.exists() => Outcome::Fail("failed but left an output file".into()),
            Err(_) => Outcome::Pass,
        });
    }
    if let Err(e) = built {
        return Ok(Outcome::Fail(format!("a valid document was rejected: {e}")));
    }
    let rete = Rete::open_path(&out).map_err(|e| TestError::Failed(format!("open: {e}")))?;
    let got = export(&rete)?;
    let input = read_rdf(action, &base, &GraphName::DefaultGraph)?;
    if let Some(fail) = differs("the input", "input", &input, &got) {
        return Ok(fail);
    }
    if let Some(result) = &t.result {
        let expected = read_rdf(result, &base, &GraphName::DefaultGraph)?;
        if let Some(fail) = differs("the expected result", "expected", &expected, &got) {
            return Ok(fail);
        }
    }
    Ok(Outcome::Pass)
}

/// A failure listing both datasets when the exported `got` is not isomorphic to `want` (`what`
/// in the message, `name` as the label of its listing).
fn differs(what: &str, name: &str, want: &[oxrdf::Quad], got: &[oxrdf::Quad]) -> Option<Outcome> {
    (!isomorphic_datasets(want, got)).then(|| {
        Outcome::Fail(format!(
            "export differs from {what}\n{name}:\n{}exported:\n{}",
            crate::nquads(want),
            crate::nquads(got)
        ))
    })
}
