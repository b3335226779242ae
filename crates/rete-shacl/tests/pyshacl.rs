//! pySHACL as a second oracle: on randomly generated data with faults, validated against
//! `tests/data/oracle-shapes.ttl` (every target kind, Core component and path kind), our results
//! must equal pySHACL's as a set of (focus node, path, value, severity, source shape, source
//! constraint component); blank nodes compare as "some blank node". A set, not a multiset:
//! pySHACL repeats a result of a shape that is also reached through `sh:node` from other focus
//! nodes (identical results, distinct result nodes).
//!
//! Needs Python 3 with `pyshacl` (`pip install pyshacl`); the test fails, not skips, without it.
//! `PYTHON` selects the interpreter (default `python3`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use oxrdf::Term;
use rete_datagen::Rng;
use rete_shacl::{parse_graph, validate, RdfFormat, Shapes, ValidateOptions};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

const EX: &str = "http://example.org/";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
const TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";

fn t(nt: &mut String, s: String, p: &str, o: String) {
    let _ = writeln!(nt, "{s} <{EX}{p}> {o} .");
}

/// People, employees, organisations, documents and a robot, each fact sometimes broken.
fn generate(seed: u64) -> String {
    let mut r = Rng::new(seed);
    let mut nt = String::new();
    let ex = |l: String| format!("<{EX}{l}>");
    let int = |n: i64| format!("\"{n}\"^^<{XSD}integer>");
    let (np, no, nd) = (30 + r.index(20), 4 + r.index(3), 6 + r.index(6));
    let _ = writeln!(
        nt,
        "<{EX}Employee> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{EX}Person> ."
    );
    for i in 0..no {
        let o = ex(format!("o{i}"));
        let _ = writeln!(nt, "{o} {TYPE} <{EX}Organisation> .");
        if r.chance(0.85) {
            t(&mut nt, o.clone(), "name", format!("\"Org {i}\""));
        }
        let c = ["\"FR\"", "\"DE\"", "\"US\"", "\"UK\""][r.index(4)];
        t(&mut nt, o.clone(), "country", c.into());
        // One level of parents: a cycle would make the recursive sh:node an error here, and
        // pySHACL cuts recursion by shape depth, not by node.
        if i > 0 && r.chance(0.40) {
            t(&mut nt, o.clone(), "parent", ex("o0".into()));
        }
        if r.chance(0.20) {
            t(
                &mut nt,
                o.clone(),
                "founded",
                int(1900 + r.index(100) as i64),
            );
        }
        if r.chance(0.50) {
            t(
                &mut nt,
                o.clone(),
                "label",
                format!("\"Org {i}\"@{}", ["en", "fr", "de"][r.index(3)]),
            );
        }
    }
    for i in 0..np {
        let p = ex(format!("p{i}"));
        let class = if r.chance(0.30) { "Employee" } else { "Person" };
        let _ = writeln!(nt, "{p} {TYPE} <{EX}{class}> .");
        for _ in 0..r.index(4) {
            let name = [
                "\"Al\"",
                "\"B\"",
                "\"Carol\"",
                "\"Dominique-Anne\"",
                "\"Eve\"@en",
                "\"Fa\"",
            ][r.index(6)];
            t(&mut nt, p.clone(), "name", name.into());
        }
        if r.chance(0.90) {
            let age = match r.index(10) {
                0 => "\"old\"".to_owned(),
                1 => int(-3),
                2 => int(150),
                3 => format!("\"4.5\"^^<{XSD}decimal>"),
                _ => int(r.index(100) as i64),
            };
            t(&mut nt, p.clone(), "age", age);
        }
        if r.chance(0.30) {
            t(&mut nt, p.clone(), "maxAge", int(r.index(120) as i64));
        }
        for _ in 0..r.index(4) {
            let target = if r.chance(0.90) {
                ex(format!("p{}", r.index(np)))
            } else if r.chance(0.50) {
                ex("robot".into())
            } else {
                ex(format!("o{}", r.index(no)))
            };
            t(&mut nt, p.clone(), "knows", target);
        }
        if r.chance(0.50) {
            let mail = [
                "\"a.b@example.org\"",
                "\"X@EXAMPLE.COM\"",
                "\"bad@example.net\"",
                "\"no-at\"",
            ][r.index(4)];
            t(&mut nt, p.clone(), "email", mail.into());
        }
        if r.chance(0.30) {
            for _ in 0..1 + r.index(2) {
                t(
                    &mut nt,
                    p.clone(),
                    "label",
                    format!("\"P{i}\"@{}", ["en", "fr", "de", "en-GB"][r.index(4)]),
                );
            }
        }
        if class == "Employee" {
            if r.chance(0.85) {
                let w = if r.chance(0.90) {
                    ex(format!("o{}", r.index(no)))
                } else {
                    ex(format!("p{}", r.index(np)))
                };
                t(&mut nt, p.clone(), "worksFor", w);
            }
            if r.chance(0.60) {
                let (a, b) = (r.index(28) + 1, r.index(28) + 1);
                t(
                    &mut nt,
                    p.clone(),
                    "start",
                    format!("\"2020-01-{a:02}\"^^<{XSD}date>"),
                );
                t(
                    &mut nt,
                    p.clone(),
                    "end",
                    format!("\"2020-01-{b:02}\"^^<{XSD}date>"),
                );
            }
            if r.chance(0.60) {
                let s = [
                    int(50000),
                    int(0),
                    int(900000),
                    format!("\"3.5e4\"^^<{XSD}double>"),
                ][r.index(4)]
                .clone();
                t(&mut nt, p.clone(), "salary", s);
            }
        }
    }
    let _ = writeln!(nt, "<{EX}robot> {TYPE} <{EX}Robot> .");
    for i in 0..nd {
        let d = ex(format!("d{i}"));
        let _ = writeln!(nt, "{d} {TYPE} <{EX}Document> .");
        for _ in 0..r.index(3) {
            t(
                &mut nt,
                d.clone(),
                "author",
                ex(format!("p{}", r.index(np))),
            );
        }
        if r.chance(0.40) {
            t(
                &mut nt,
                d.clone(),
                "editor",
                ex(format!("p{}", r.index(np))),
            );
        }
        if r.chance(0.30) {
            t(
                &mut nt,
                d.clone(),
                "anonymous",
                format!("\"{}\"^^<{XSD}boolean>", r.chance(0.50)),
            );
        }
        if r.chance(0.60) {
            t(
                &mut nt,
                d.clone(),
                "status",
                ["\"published\"", "\"draft\""][r.index(2)].into(),
            );
        }
        if r.chance(0.50) {
            t(&mut nt, d.clone(), "title", format!("\"Doc {i}\""));
        }
        if r.chance(0.50) {
            t(
                &mut nt,
                d.clone(),
                "name",
                format!("\"Doc {}\"", if r.chance(0.70) { i } else { i + 1 }),
            );
        }
    }
    nt
}

type Key = [String; 6];

fn norm(t: &str) -> String {
    if t.starts_with("_:") {
        "_".into()
    } else {
        t.to_owned()
    }
}

fn ours(nt: &str, shapes: &Shapes, dir: &std::path::Path) -> BTreeMap<Key, i32> {
    let path = dir.join("data.rete");
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "data.nt",
                nt.as_bytes().to_vec(),
                rete_build::Syntax::NTriples,
            )],
            zstd_level: 1,
            ..rete_build::BuildOptions::default()
        },
        &path,
    )
    .unwrap();
    let rete = rete_core::Rete::open_path(&path).unwrap();
    let report = validate(&rete, shapes, &ValidateOptions::default()).unwrap();
    let mut out = BTreeMap::new();
    for r in report.results {
        let path = match &r.path {
            None => "-".to_owned(),
            Some(p) => p.as_predicate().map_or("_".into(), ToString::to_string),
        };
        let key = [
            norm(&r.focus.to_string()),
            path,
            r.value
                .as_ref()
                .map_or("-".into(), |v: &Term| norm(&v.to_string())),
            r.severity.to_string(),
            norm(&r.source_shape.to_string()),
            r.component.to_string(),
        ];
        out.insert(key, 1);
    }
    out
}

const SCRIPT: &str = r#"
import sys, json
from rdflib import Graph, URIRef, BNode, Literal
from rdflib.namespace import SH, RDF, XSD
from pyshacl import validate
data = Graph().parse(sys.argv[1], format="nt")
shapes = Graph().parse(sys.argv[2], format="turtle")
conforms, report, _ = validate(data, shacl_graph=shapes, inference="none", advanced=True, allow_warnings=False)
def n(t):
    if t is None: return "-"
    if isinstance(t, BNode): return "_"
    if isinstance(t, Literal):
        v = str(t).replace("\\", "\\\\").replace('"', '\\"')
        if t.language: return '"%s"@%s' % (v, t.language)
        if t.datatype is None or t.datatype == XSD.string: return '"%s"' % v
        return '"%s"^^<%s>' % (v, t.datatype)
    return "<%s>" % t
for r in report.subjects(RDF.type, SH.ValidationResult):
    o = lambda p: report.value(r, p)
    print(json.dumps([n(o(SH.focusNode)), n(o(SH.resultPath)), n(o(SH.value)), n(o(SH.resultSeverity)), n(o(SH.sourceShape)), n(o(SH.sourceConstraintComponent))]))
"#;

fn pyshacl(nt: &str, shapes_file: &std::path::Path, dir: &std::path::Path) -> BTreeMap<Key, i32> {
    let data = dir.join("data.nt");
    std::fs::write(&data, nt).unwrap();
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(&data)
        .arg(shapes_file)
        .output()
        .expect("python3 with pyshacl (pip install pyshacl)");
    assert!(
        out.status.success(),
        "pyshacl failed (pip install pyshacl): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut map = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Vec<String> = serde_json::from_str(line).unwrap();
        map.insert(<Key>::try_from(v).unwrap(), 1);
    }
    map
}

#[test]
fn pyshacl_agrees_on_generated_data() {
    let shapes_file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle-shapes.ttl");
    let shapes_bytes = std::fs::read(&shapes_file).unwrap();
    let graph = parse_graph(&shapes_bytes[..], RdfFormat::Turtle, "oracle-shapes.ttl").unwrap();
    let shapes = Shapes::from_graph(&graph).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    let mut by_shape: BTreeMap<&str, usize> = BTreeMap::new();
    for seed in 1..=4 {
        let nt = generate(seed);
        let ours = ours(&nt, &shapes, dir.path());
        let theirs = pyshacl(&nt, &shapes_file, dir.path());
        let mut diff = Vec::new();
        for (k, n) in &ours {
            if theirs.get(k) != Some(n) {
                diff.push(format!("ours {n}x {}", k.join(" ")));
            }
        }
        for (k, n) in &theirs {
            if ours.get(k) != Some(n) {
                diff.push(format!("pyshacl {n}x {}", k.join(" ")));
            }
        }
        assert!(diff.is_empty(), "seed {seed}:\n{}", diff.join("\n"));
        total += ours.values().sum::<i32>();
        for shape in [
            "<http://example.org/shapes/FrenchEmail>",
            "<http://example.org/shapes/EmployeeAge>",
        ] {
            *by_shape.entry(shape).or_default() += ours.keys().filter(|k| k[4] == shape).count();
        }
    }
    // The SPARQL target and the owl:Class shape found something to compare.
    assert!(by_shape.values().all(|&n| n > 0), "{by_shape:?}");
    println!("pySHACL agrees on {total} results over 4 generated data sets");
    assert!(total > 50, "the generated faults should give results");
}
