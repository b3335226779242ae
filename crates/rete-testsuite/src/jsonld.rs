//! The W3C JSON-LD 1.1 toRdf suite (`w3c/jsonld-tests`) run through the builder: positive tests
//! must build and export to the expected N-Quads (up to blank node labels), negative tests must
//! fail and leave no output file, syntax tests must build.

use crate::compare::isomorphic_datasets;
use crate::{export, read_rdf, Outcome, TestError};
use oxrdf::GraphName;
use rete_build::{BuildOptions, Input, Syntax};
use rete_core::Rete;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One toRdf test of the manifest.
#[derive(Debug, Clone)]
pub struct JsonLdTest {
    /// `#t0001` style id.
    pub id: String,
    /// `PositiveEvaluationTest`, `NegativeEvaluationTest` or `PositiveSyntaxTest`.
    pub kind: String,
    /// Its name.
    pub name: String,
    /// The input document.
    pub input: PathBuf,
    /// The base IRI the expected output assumes.
    pub base: String,
    /// Expected N-Quads (positive evaluation tests).
    pub expect: Option<PathBuf>,
    /// Expected error code (negative tests).
    pub error: Option<String>,
    /// The `option` object.
    pub options: serde_json::Map<String, Value>,
}

/// Reads `tests/toRdf-manifest.jsonld` under `root`.
pub fn load(root: &Path) -> Result<Vec<JsonLdTest>, TestError> {
    let dir = root.join("tests");
    let path = dir.join("toRdf-manifest.jsonld");
    let text = std::fs::read_to_string(&path).map_err(|e| TestError::io(&path, e))?;
    let m: Value = serde_json::from_str(&text)
        .map_err(|e| TestError::Manifest(format!("{}: {e}", path.display())))?;
    let base_iri = m["baseIri"].as_str().unwrap_or_default().to_owned();
    let seq = m["sequence"]
        .as_array()
        .ok_or_else(|| TestError::Manifest("toRdf manifest: no sequence".into()))?;
    let mut out = Vec::with_capacity(seq.len());
    for t in seq {
        let s = |k: &str| t[k].as_str().map(str::to_owned);
        let kind = t["@type"]
            .as_array()
            .and_then(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .find(|k| !k.ends_with("ToRDFTest"))
            })
            .unwrap_or_default()
            .trim_start_matches("jld:")
            .to_owned();
        let input = s("input").ok_or_else(|| TestError::Manifest(format!("{t}: no input")))?;
        let options = t["option"].as_object().cloned().unwrap_or_default();
        let base = options
            .get("base")
            .and_then(Value::as_str)
            .map_or_else(|| format!("{base_iri}{input}"), str::to_owned);
        out.push(JsonLdTest {
            id: s("@id").unwrap_or_default(),
            kind,
            name: s("name").unwrap_or_default(),
            input: dir.join(&input),
            base,
            expect: s("expect").map(|e| dir.join(e)),
            error: s("expectErrorCode"),
            options,
        });
    }
    Ok(out)
}

/// Runs one toRdf test.
pub fn run(t: &JsonLdTest, tmp: &Path) -> Outcome {
    match run_inner(t, tmp) {
        Ok(o) => o,
        Err(e) => Outcome::Fail(e.to_string()),
    }
}

fn run_inner(t: &JsonLdTest, tmp: &Path) -> Result<Outcome, TestError> {
    let out = tmp.join("out.rete");
    let opts = BuildOptions {
        inputs: vec![Input {
            syntax: Some(Syntax::JsonLd),
            ..Input::path(&t.input)
        }],
        base_iri: Some(t.base.clone()),
        zstd_level: 1,
        ..BuildOptions::default()
    };
    let built = rete_build::build(&opts, &out);
    match t.kind.as_str() {
        "NegativeEvaluationTest" => Ok(match built {
            Ok(_) => Outcome::Fail(format!(
                "accepted a document that must fail with {}",
                t.error.as_deref().unwrap_or("an error")
            )),
            Err(_) if out.exists() => Outcome::Fail("failed but left an output file".into()),
            Err(_) => Outcome::Pass,
        }),
        "PositiveSyntaxTest" => Ok(match built {
            Ok(_) => Outcome::Pass,
            Err(e) => Outcome::Fail(format!("a valid document was rejected: {e}")),
        }),
        "PositiveEvaluationTest" => {
            if let Err(e) = built {
                return Ok(Outcome::Fail(format!("a valid document was rejected: {e}")));
            }
            let rete =
                Rete::open_path(&out).map_err(|e| TestError::Failed(format!("open: {e}")))?;
            let got = export(&rete)?;
            let expect = t
                .expect
                .as_ref()
                .ok_or_else(|| TestError::Manifest(format!("{}: no expected result", t.id)))?;
            let expected = read_rdf(expect, &t.base, &GraphName::DefaultGraph)?;
            Ok(if isomorphic_datasets(&expected, &got) {
                Outcome::Pass
            } else {
                Outcome::Fail(format!(
                    "export differs from the expected result\nexpected:\n{}exported:\n{}",
                    crate::nquads(&expected),
                    crate::nquads(&got)
                ))
            })
        }
        other => Ok(Outcome::Skip(format!(
            "test type {other} is not a toRdf test"
        ))),
    }
}
