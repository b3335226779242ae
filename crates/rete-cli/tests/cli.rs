//! The `rete` binary end to end: real files, real processes, exit codes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{ok, rete};
use std::path::Path;
use std::process::{Command, Output};

fn social(dir: &Path) -> (String, String) {
    let nt = dir.join("s.nt").display().to_string();
    let out = dir.join("s.rete").display().to_string();
    ok(&["generate", "social", "--people", "300", "-o", &nt]);
    ok(&["build", "-q", &nt, "-o", &out]);
    (nt, out)
}

#[test]
fn build_info_query_export_verify() {
    let dir = tempfile::tempdir().unwrap();
    let (nt, file) = social(dir.path());
    let lines = std::fs::read_to_string(&nt).unwrap().lines().count();

    let info: serde_json::Value = serde_json::from_str(&ok(&["info", "--json", &file])).unwrap();
    assert_eq!(info["quads"].as_u64().unwrap() as usize, lines);
    assert_eq!(
        info["card"]["classes"][0]["term"],
        "<http://xmlns.com/foaf/0.1/Person>"
    );
    assert!(ok(&["info", &file]).contains("foaf/0.1/knows"));

    let knows = "<http://xmlns.com/foaf/0.1/knows>";
    let count: usize = ok(&["query", &file, "-p", knows, "--count"])
        .trim()
        .parse()
        .unwrap();
    let expected = std::fs::read_to_string(&nt)
        .unwrap()
        .lines()
        .filter(|l| l.contains("/knows>"))
        .count();
    assert_eq!(count, expected);
    let listed = ok(&["query", &file, "-p", knows]);
    assert_eq!(listed.lines().count(), expected);
    assert_eq!(
        ok(&["query", &file, "-p", knows, "--limit", "7"])
            .lines()
            .count(),
        7
    );
    let who = ok(&[
        "query",
        &file,
        "-s",
        "http://example.org/social/person/5",
        "-p",
        "a",
    ]);
    assert_eq!(who.trim(), "<http://example.org/social/person/5> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .");
    assert_eq!(
        ok(&["query", &file, "-o", "<http://nowhere>", "--count"]).trim(),
        "0"
    );

    let mut exported: Vec<String> = ok(&["export", &file, "--format", "nt"])
        .lines()
        .map(str::to_owned)
        .collect();
    let mut input: Vec<String> = std::fs::read_to_string(&nt)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    exported.sort();
    input.sort();
    assert_eq!(exported, input);
    assert!(ok(&["verify", &file]).starts_with("ok:"));

    // Turtle export re-builds to the same content.
    let ttl = dir.path().join("re.ttl").display().to_string();
    ok(&["export", &file, "--format", "ttl", "-o", &ttl]);
    let again = dir.path().join("re.rete").display().to_string();
    ok(&["build", "-q", &ttl, "-o", &again]);
    let h1: serde_json::Value = serde_json::from_str(&ok(&["info", "--json", &file])).unwrap();
    let h2: serde_json::Value = serde_json::from_str(&ok(&["info", "--json", &again])).unwrap();
    assert_eq!(h1["card"]["content_hash"], h2["card"]["content_hash"]);
}

/// `rete build ARGS - -o OUT` with `text` on standard input.
fn build_stdin(args: &[&str], out: &Path, text: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rete"))
        .arg("build")
        .args(args)
        .args(["--format", "nt", "-", "-o", out.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), text).unwrap();
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

#[test]
fn stdin_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("in.rete");
    let text = b"<http://a> <http://b> <http://c> .\n";
    assert!(build_stdin(&["-q"], &out, text).status.success());
    assert_eq!(ok(&["query", out.to_str().unwrap(), "--count"]).trim(), "1");
    // Materializing reads its input twice, from a copy of standard input in the build's
    // temporary folder: the card and the messages still call it `-`.
    assert!(build_stdin(&["-q", "--materialize"], &out, text)
        .status
        .success());
    let info: serde_json::Value =
        serde_json::from_str(&ok(&["info", "--json", out.to_str().unwrap()])).unwrap();
    let card = info["card"].to_string();
    assert!(!card.contains(".rete-build-"), "{card}");
    let bad = build_stdin(&["-q", "--materialize"], &out, b"<http://a> <http://b> .\n");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(err.contains("error: -:1:"), "{err}");
    assert!(!err.contains(".rete-build-"), "{err}");
}

#[test]
fn exit_codes_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    // Usage error: 2.
    assert_eq!(rete(&["build"]).status.code(), Some(2));
    assert_eq!(rete(&["frobnicate"]).status.code(), Some(2));
    // Syntax error: 1, file:line:column, no output.
    let bad = dir.path().join("bad.nt");
    std::fs::write(
        &bad,
        "<http://a> <http://b> <http://c> .\n<http://a> <http://b> .\n",
    )
    .unwrap();
    let out = dir.path().join("bad.rete");
    let o = rete(&[
        "build",
        "-q",
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{}:2:", bad.display())), "{err}");
    assert!(!out.exists());
    // Not a .rete file: 1 with a clear message.
    let o = rete(&["info", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a .rete file"));
    // Missing file.
    let o = rete(&["verify", dir.path().join("nope.rete").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope.rete"));
    // A missing input names it, its cause said once.
    let missing = dir.path().join("missing.nt");
    let o = rete(&[
        "build",
        "-q",
        missing.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim(),
        format!(
            "error: {}: No such file or directory (os error 2)",
            missing.display()
        )
    );
    // Unknown prefix.
    let (_, file) = social(dir.path());
    let o = rete(&["query", &file, "-p", "zz:knows"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown prefix"));
}

#[test]
fn sparql_formats_errors_and_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path());
    let q = "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://xmlns.com/foaf/0.1/knows> ?o }";
    let knows: u64 = ok(&[
        "query",
        &file,
        "-p",
        "<http://xmlns.com/foaf/0.1/knows>",
        "--count",
    ])
    .trim()
    .parse()
    .unwrap();
    let csv = ok(&["sparql", &file, q, "--format", "csv"]);
    assert_eq!(csv.replace('\r', ""), format!("n\n{knows}\n"));
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["sparql", &file, q, "--format", "json"])).unwrap();
    assert_eq!(
        json["results"]["bindings"][0]["n"]["value"],
        knows.to_string()
    );
    assert_eq!(
        ok(&[
            "sparql",
            &file,
            "ASK { ?s a <http://xmlns.com/foaf/0.1/Person> }",
            "--format",
            "tsv"
        ])
        .trim(),
        "true"
    );
    let rq = dir.path().join("q.rq");
    std::fs::write(&rq, q).unwrap();
    assert_eq!(
        ok(&[
            "sparql",
            &file,
            "-f",
            rq.to_str().unwrap(),
            "--format",
            "csv"
        ]),
        csv
    );
    // Syntax error: line and column, exit 1.
    let o = rete(&["sparql", &file, "SELECT * WHERE {\n  ?s ?p }"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("2:"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A query that cannot finish in time stops with a clear error.
    let slow = "SELECT * WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f }";
    let o = rete(&["sparql", &file, slow, "--timeout", "0.2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .to_lowercase()
            .contains("time"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn summary_and_no_pyramid() {
    let dir = tempfile::tempdir().unwrap();
    let (nt, file) = social(dir.path());
    let v: serde_json::Value = serde_json::from_str(&ok(&["summary", &file, "--json"])).unwrap();
    assert_eq!(v["entities"], 300);
    let top = &v["level"]["communities"];
    let sizes: u64 = top
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["size"].as_u64().unwrap())
        .sum();
    assert_eq!(
        sizes, 300,
        "every entity is in exactly one top-level community"
    );
    let first = top[0]["id"].as_u64().unwrap().to_string();
    let level = v["level"]["level"].as_u64().unwrap();
    let inside: serde_json::Value = if level == 0 {
        serde_json::from_str(&ok(&[
            "summary",
            &file,
            "--level",
            "0",
            "--community",
            &first,
            "--json",
        ]))
        .unwrap()
    } else {
        serde_json::from_str(&ok(&[
            "summary",
            &file,
            "--level",
            &level.to_string(),
            "--community",
            &first,
            "--json",
        ]))
        .unwrap()
    };
    assert!(
        inside.as_array().is_some_and(|m| !m.is_empty())
            || inside["level"]["communities"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
    );
    let plain = dir.path().join("np.rete").display().to_string();
    ok(&["build", "-q", "--no-pyramid", &nt, "-o", &plain]);
    let o = rete(&["summary", &plain]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no community pyramid"));
    assert!(std::fs::metadata(&plain).unwrap().len() < std::fs::metadata(&file).unwrap().len());
}

/// The multilingual labels of the community label tests built into `dir`; the file's path.
fn multilingual(dir: &Path) -> String {
    let ttl = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../rete-pyramid/tests/data/multilingual.ttl"
    );
    let file = dir.join("ml.rete").display().to_string();
    ok(&["build", "-q", ttl, "-o", &file]);
    file
}

/// `rete ARGS` with the locale environment cleared, then `env` set; its standard output.
fn in_locale(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rete"));
    cmd.args(args);
    for k in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] {
        cmd.env_remove(k);
    }
    cmd.envs(env.iter().copied());
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// `rete summary` prints community labels in the languages of `--lang`, else of the locale
/// environment, then English, then any.
#[test]
fn summary_labels_in_the_users_language() {
    let dir = tempfile::tempdir().unwrap();
    let file = multilingual(dir.path());
    let summary = |args: &[&str], env: &[(&str, &str)]| {
        in_locale(
            &[&["summary", &file, "--level", "0"][..], args].concat(),
            env,
        )
    };
    let fr = summary(&["--lang", "fr"], &[]);
    assert!(
        fr.contains("Allemagne") && fr.contains("Rhin") && fr.contains("Personne · 5"),
        "{fr}"
    );
    let de = summary(&["--lang", "de-CH,fr"], &[("LANG", "fr_FR.UTF-8")]);
    assert!(
        de.contains("Deutschland") && de.contains("Rhein"),
        "--lang wins: {de}"
    );
    let env = summary(&[], &[("LANG", "fr_FR.UTF-8")]);
    assert!(env.contains("Allemagne"), "LANG: {env}");
    let env = summary(&[], &[("LANG", "C.UTF-8"), ("LANGUAGE", "ja")]);
    assert!(
        env.contains("Germany") && env.contains("Rhein"),
        "C locale: {env}"
    );
    let env = summary(&[], &[("LANG", "de_DE.UTF-8"), ("LANGUAGE", "ja:fr")]);
    assert!(
        env.contains("ドイツ") && env.contains("Rhin"),
        "LANGUAGE list: {env}"
    );
    let none = summary(&[], &[]);
    assert!(
        none.contains("Germany") && none.contains("person · 5"),
        "{none}"
    );
}

#[test]
fn materialize_and_reach() {
    let dir = tempfile::tempdir().unwrap();
    let ttl = dir.path().join("o.ttl");
    std::fs::write(&ttl, "@prefix : <http://ex.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n:Student rdfs:subClassOf :Person .\n:Person rdfs:subClassOf :Agent .\n:advisor rdfs:domain :Student .\n:ancestor a owl:TransitiveProperty .\n:alice :advisor :bob .\n:a :ancestor :b . :b :ancestor :c . :c :ancestor :d .\n").unwrap();
    let plain = dir.path().join("p.rete").display().to_string();
    let mat = dir.path().join("m.rete").display().to_string();
    let rdfs = dir.path().join("r.rete").display().to_string();
    let build = |flags: &[&str], out: &str| {
        let mut args = vec!["build", "-q"];
        args.extend_from_slice(flags);
        args.extend([ttl.to_str().unwrap(), "-o", out]);
        ok(&args);
    };
    let count = |file: &str, s: &str, p: &str| {
        ok(&["query", file, "-s", s, "-p", p, "--count"])
            .trim()
            .to_string()
    };
    build(&[], &plain);
    build(&["--materialize"], &mat);
    assert_eq!(count(&plain, ":alice", "a"), "0");
    assert_eq!(count(&mat, ":alice", "a"), "3");
    assert_eq!(count(&mat, ":a", ":ancestor"), "3");
    let info: serde_json::Value = serde_json::from_str(&ok(&["info", "--json", &mat])).unwrap();
    assert_eq!(info["card"]["build"]["materialized"], true);
    assert!(info["card"]["build"]["inferred_quads"].as_u64().unwrap() >= 6);
    // RDFS only: no transitive closure.
    build(&["--materialize=rdfs"], &rdfs);
    assert_eq!(count(&rdfs, ":a", ":ancestor"), "1");
    // Reach on the plain file equals the closure, serial and parallel.
    let reach = |from: &[&str], flag: Option<&str>| {
        let mut args = vec!["reach", &plain, "-p", ":ancestor", "--from"];
        args.extend_from_slice(from);
        args.extend(flag);
        ok(&args)
    };
    let serial = reach(&[":a", ":c", ":zzz"], None);
    assert_eq!(
        serial,
        "<http://ex.org/a>\t3\n<http://ex.org/c>\t1\n<http://ex.org/zzz>\t0\n"
    );
    assert_eq!(reach(&[":a", ":c", ":zzz"], Some("--parallel")), serial);
    assert_eq!(reach(&[":d"], Some("--backward")), "<http://ex.org/d>\t3\n");
    let bad = rete(&[
        "build",
        "-q",
        "--materialize=nonsense",
        ttl.to_str().unwrap(),
        "-o",
        &rdfs,
    ]);
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn schema_and_coherence_on_the_medical_sample() {
    let dir = tempfile::tempdir().unwrap();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/medical-1k.ttl");
    let file = dir.path().join("m.rete").display().to_string();
    ok(&["build", "-q", src, "-o", &file]);
    let schema: serde_json::Value =
        serde_json::from_str(&ok(&["schema", &file, "--json"])).unwrap();
    let classes = schema["classes"].as_array().unwrap();
    assert!(classes
        .iter()
        .any(|c| c["iri"].as_str().unwrap().ends_with("Relapsed>")
            || c["iri"].as_str().unwrap().ends_with("Relapsed")));
    let t0: serde_json::Value =
        serde_json::from_str(&ok(&["coherence", &file, "--tier", "0", "--json"])).unwrap();
    assert_eq!(t0["findings"].as_array().unwrap().len(), 1);
    let t2: serde_json::Value = serde_json::from_str(&ok(&["coherence", &file, "--json"])).unwrap();
    let kinds: std::collections::BTreeSet<&str> = t2["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    for k in [
        "unsatisfiable-class",
        "disjoint-class-clash",
        "unsatisfiable-member",
        "same-different-clash",
        "functional-violation",
    ] {
        assert!(kinds.contains(k), "missing {k}: {kinds:?}");
    }
    assert!(t2["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| !f["explanation"].as_array().unwrap().is_empty()));
    assert!(ok(&["coherence", &file]).contains(":Healthy owl:disjointWith :Sick"));
    let plain = dir.path().join("n.rete").display().to_string();
    ok(&["build", "-q", "--no-schema", src, "-o", &plain]);
    let o = rete(&["schema", &plain]);
    assert_eq!(o.status.code(), Some(1));
    // Coherence still works without the block (the schema is read from the axiom triples).
    let t0: serde_json::Value =
        serde_json::from_str(&ok(&["coherence", &plain, "--tier", "0", "--json"])).unwrap();
    assert_eq!(t0["findings"].as_array().unwrap().len(), 1);
}

#[test]
fn cost_of_patterns_and_queries() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path());
    let knows = "<http://xmlns.com/foaf/0.1/knows>";
    let pattern: serde_json::Value =
        serde_json::from_str(&ok(&["cost", &file, "-p", knows])).unwrap();
    assert_eq!(pattern["exact"], true);
    let one: serde_json::Value = serde_json::from_str(&ok(&[
        "cost",
        &file,
        "--sparql",
        &format!("SELECT * WHERE {{ ?s {knows} ?o }}"),
    ]))
    .unwrap();
    assert_eq!(one["exact"], true);
    assert_eq!(one["bytes"], pattern["bytes"]);
    let two: serde_json::Value = serde_json::from_str(&ok(&[
        "cost",
        &file,
        "--sparql",
        &format!("SELECT * WHERE {{ ?s {knows} ?o . ?o {knows}+ ?x }}"),
    ]))
    .unwrap();
    assert_eq!(two["exact"], false);
    assert_eq!(two["patterns"].as_array().unwrap().len(), 2);
    assert!(two["bytes"].as_u64().unwrap() >= pattern["bytes"].as_u64().unwrap());
    let none: serde_json::Value = serde_json::from_str(&ok(&[
        "cost",
        &file,
        "--sparql",
        "SELECT * WHERE { ?s <http://nowhere/p> ?o }",
    ]))
    .unwrap();
    assert_eq!(none["bytes"], 0);
}

#[test]
fn union_default_graph_and_the_hint_after_an_empty_answer() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing in the default graph; `ex:a a rdf:Property` stated in both graphs.
    let nq = dir.path().join("g.nq");
    std::fs::write(
        &nq,
        "<http://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> <http://example.org/g1> .\n\
         <http://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> <http://example.org/g2> .\n\
         <http://example.org/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Property> <http://example.org/g2> .\n",
    )
    .unwrap();
    let file = dir.path().join("g.rete").display().to_string();
    ok(&["build", "-q", &nq.display().to_string(), "-o", &file]);
    let q = "SELECT ?s WHERE { ?s a rdf:Property } ORDER BY ?s";

    let strict = rete(&["sparql", &file, q, "--format", "csv"]);
    assert!(strict.status.success());
    assert_eq!(String::from_utf8(strict.stdout).unwrap(), "s\r\n");
    assert_eq!(
        String::from_utf8(strict.stderr).unwrap(),
        "note: the default graph is empty; this file's data is in 2 named graphs — use --union-default-graph, or GRAPH ?g { … }\n"
    );

    let union = rete(&[
        "sparql",
        &file,
        q,
        "--format",
        "csv",
        "--union-default-graph",
    ]);
    assert!(union.status.success());
    assert_eq!(
        String::from_utf8(union.stdout).unwrap(),
        "s\r\nhttp://example.org/a\r\nhttp://example.org/b\r\n"
    );
    assert_eq!(String::from_utf8(union.stderr).unwrap(), "");
    // ASK false gets the hint too; a GRAPH query that finds nothing does not.
    let ask = rete(&["sparql", &file, "ASK { ?s a rdfs:Class }"]);
    assert!(String::from_utf8(ask.stderr)
        .unwrap()
        .starts_with("note: the default graph is empty"));
    let graph = rete(&[
        "sparql",
        &file,
        "SELECT * WHERE { GRAPH ?g { ?s a rdfs:Class } }",
    ]);
    assert_eq!(String::from_utf8(graph.stderr).unwrap(), "");

    // The cost follows the flag: the default graph's pattern reads nothing, the union's does.
    let cost = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["cost", &file, "--sparql", q];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(&args)).unwrap()
    };
    assert_eq!(cost(&[])["patterns"][0]["blocks"], 0);
    assert_eq!(cost(&["--union-default-graph"])["patterns"][0]["blocks"], 1);
    assert!(
        !rete(&["cost", &file, "-p", "rdf:type", "--union-default-graph"])
            .status
            .success()
    );

    // With data in the default graph, the pattern that only named graphs match is named.
    std::fs::write(
        &nq,
        format!(
            "{}<http://example.org/c> <http://example.org/p> \"x\" .\n",
            std::fs::read_to_string(&nq).unwrap()
        ),
    )
    .unwrap();
    ok(&["build", "-q", &nq.display().to_string(), "-o", &file]);
    let mixed = rete(&["sparql", &file, q]);
    assert_eq!(
        String::from_utf8(mixed.stderr).unwrap(),
        "note: no triple of the default graph matches { ?s rdf:type rdf:Property }, triples of named graphs do; this file's data is in 2 named graphs — use --union-default-graph, or GRAPH ?g { … }\n"
    );
}

#[test]
fn prefixes_come_from_the_file_then_the_well_known_and_an_explicit_prefix_wins() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path());
    let knows = ok(&["query", &file, "-p", "foaf:knows", "--count"]);
    let full = ok(&[
        "query",
        &file,
        "-p",
        "<http://xmlns.com/foaf/0.1/knows>",
        "--count",
    ]);
    assert_eq!(knows, full);
    let q = "SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }";
    let n = ok(&["sparql", &file, q, "--format", "csv"]);
    assert_eq!(n.lines().nth(1).unwrap(), knows.trim());
    // The query's own PREFIX wins over the well-known one.
    let q = "PREFIX foaf: <http://elsewhere.example/> SELECT (COUNT(*) AS ?n) WHERE { ?s foaf:knows ?o }";
    let n = ok(&["sparql", &file, q, "--format", "csv"]);
    assert_eq!(n.lines().nth(1).unwrap(), "0");
    let cost = ok(&[
        "cost",
        &file,
        "--sparql",
        "SELECT * WHERE { ?s foaf:knows ?o }",
    ]);
    assert!(cost.contains("\"patterns\""), "{cost}");

    let listed: serde_json::Value =
        serde_json::from_str(&ok(&["prefixes", &file, "--json"])).unwrap();
    let foaf = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["prefix"] == "foaf")
        .unwrap();
    assert_eq!(foaf["namespace"], "http://xmlns.com/foaf/0.1/");
    assert_eq!(foaf["origin"], "well-known");

    // A medical file declares its own prefixes; they come first and are marked as the file's.
    let medical = root_sample("medical-1k.rete");
    let text = ok(&["prefixes", &medical]);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .starts_with("PREFIX : <http://example.org/medical#>"),
        "{text}"
    );
    assert!(
        text.contains("# file") && text.contains("# well-known"),
        "{text}"
    );
    let o = rete(&["query", &file, "-p", "nope:knows"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown prefix \"nope:\""), "{err}");
}

#[test]
fn sparql_syntax_errors_read_like_sentences() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path());
    let o = rete(&["sparql", &file, "SELECT * WHERE { ?s ex:p ?o }"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim(),
        "error: syntax error at 1:21: unknown prefix \"ex:\" — declare it with PREFIX ex: <namespace IRI>"
    );
    let o = rete(&["sparql", &file, "SELECT * WHERE {\n  ?s ?p ?o"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("group opened at 1:16"), "{err}");
    assert!(!err.contains("['"), "no character classes: {err}");
}

fn root_sample(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
        .display()
        .to_string()
}

/// The first element of each `[name, value]` pair of a report list.
fn pair_names(list: &serde_json::Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_str().unwrap())
        .collect()
}

#[test]
fn build_report_and_json_show_phases_and_spills() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("s.nt").display().to_string();
    let out = dir.path().join("s.rete").display().to_string();
    // 158,000 quads: one permutation's keys (8 bytes each) outgrow 1M's sort share, so every
    // permutation spills runs, several each.
    ok(&["generate", "social", "--people", "20000", "-o", &nt]);
    let args = [
        "build",
        "-q",
        "--report",
        "--json",
        "--memory-budget",
        "1M",
        &nt,
        "-o",
        &out,
    ];
    let o = rete(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(report["dictionary_runs"].as_u64().unwrap() > 1, "{report}");
    assert!(report["permutation_runs"].as_u64().unwrap() > 6, "{report}");
    assert_eq!(report["permutations_one_at_a_time"], false, "{report}");
    assert!(report["peak_spill_bytes"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(
        pair_names(&report["spill_bytes"]),
        ["parse", "dictionary", "sort", "permutations"]
    );
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(stderr.contains("spilled bytes"), "{stderr}");
    assert!(stderr.contains("peak spill on disk"), "{stderr}");
    for phase in [
        "parse",
        "dictionary",
        "sort",
        "permutations",
        "pyramid",
        "write",
    ] {
        assert!(
            stderr.lines().any(|l| l.starts_with(phase)),
            "{phase} missing: {stderr}"
        );
    }
    assert!(stderr.contains("peak RSS MiB"), "{stderr}");
    // The peak resident memory of every phase, the extensions' included (sampled on Linux).
    let peaks: Vec<(&str, u64)> = report["peak_rss"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap(), p[1].as_u64().unwrap()))
        .collect();
    let names: Vec<&str> = peaks.iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        [
            "parse",
            "dictionary",
            "sort",
            "permutations",
            "schema",
            "pyramid",
            "search",
            "write"
        ],
        "{report}"
    );
    if cfg!(target_os = "linux") {
        assert!(peaks.iter().all(|p| p.1 > 0), "{report}");
    }
    // The pyramid's own steps, in the JSON and indented under its row.
    let steps = pair_names(&report["steps"]);
    for step in ["pyramid/entity graph", "pyramid/louvain", "pyramid/encode"] {
        assert!(steps.contains(&step), "{step} missing: {report}");
    }
    assert!(
        stderr.lines().any(|l| l.starts_with("  louvain ")),
        "{stderr}"
    );
    // Materialization builds twice; both passes spill under the tiny budget and the file is
    // the one the default budget gives.
    let small = dir.path().join("m-small.rete").display().to_string();
    let large = dir.path().join("m-large.rete").display().to_string();
    let args = [
        "build",
        "-q",
        "--json",
        "--no-pyramid",
        "--materialize",
        "--memory-budget",
        "1M",
        &nt,
        "-o",
        &small,
    ];
    let report: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
    let spilled: Vec<&str> = report["spill_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p[1].as_u64().unwrap() > 0)
        .map(|p| p[0].as_str().unwrap())
        .collect();
    assert!(spilled.contains(&"dictionary"), "{report}");
    assert!(spilled.contains(&"dictionary (materialized)"), "{report}");
    ok(&[
        "build",
        "-q",
        "--no-pyramid",
        "--materialize",
        &nt,
        "-o",
        &large,
    ]);
    assert!(
        std::fs::read(&small).unwrap() == std::fs::read(&large).unwrap(),
        "materialized builds differ between budgets"
    );
}

/// `rete search` shows each term's label in the languages of `--lang`, else of the locale, then
/// English; a term's labels in other languages are not ranked by the order the build met them.
#[test]
fn search_labels_in_the_users_language() {
    let dir = tempfile::tempdir().unwrap();
    let file = multilingual(dir.path());
    let label = |q: &str, args: &[&str], env: &[(&str, &str)]| {
        let search = [&["search", &file, q, "--json", "--limit", "1"][..], args].concat();
        let v: serde_json::Value = serde_json::from_str(&in_locale(&search, env)).unwrap();
        let hit = &v["hits"][0];
        format!(
            "{}@{}",
            hit["label"].as_str().unwrap(),
            hit["lang"].as_str().unwrap()
        )
    };
    // "person"@en, "Person"@de and "Personne"@fr all start with "pers".
    assert_eq!(label("pers", &[], &[("LANG", "C.UTF-8")]), "person@en");
    assert_eq!(label("pers", &[], &[]), "person@en");
    assert_eq!(
        label("pers", &[], &[("LANG", "fr_FR.UTF-8")]),
        "Personne@fr"
    );
    assert_eq!(
        label("pers", &["--lang", "de"], &[("LANG", "fr_FR.UTF-8")]),
        "Person@de"
    );
    // A whole-label match ranks above a prefix match, whatever the language.
    assert_eq!(
        label("person", &[], &[("LANG", "fr_FR.UTF-8")]),
        "person@en"
    );
}

#[test]
fn search_with_and_without_index_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let (nt, file) = social(dir.path());
    let plain = dir.path().join("plain.rete").display().to_string();
    ok(&["build", "-q", "--no-search", &nt, "-o", &plain]);
    let json = |args: &[&str]| -> serde_json::Value { serde_json::from_str(&ok(args)).unwrap() };
    // The same hits from the index and from the label scan (ties aside: compare the top labels).
    let a = json(&["search", &file, "ada", "--json", "--limit", "3"]);
    let b = json(&["search", &plain, "ada", "--json", "--limit", "3"]);
    assert_eq!(a["indexed"], true);
    assert_eq!(b["indexed"], false);
    let labels = |v: &serde_json::Value| -> Vec<String> {
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["label"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!labels(&a).is_empty());
    assert!(labels(&a).iter().all(|l| l.starts_with("Ada ")), "{a}");
    assert!(labels(&b).iter().all(|l| l.starts_with("Ada ")), "{b}");
    let o = rete(&["search", &plain, "ada"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no search index"));
    let v1 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../rete-search/tests/data/v1-layout.rete"
    );
    let o = rete(&["search", v1, "einstein"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("has an older, slower layout"));
    // Layout 3 answers as fast as today's: no note.
    let v3 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../rete-search/tests/data/v3-layout.rete"
    );
    assert!(!String::from_utf8_lossy(&rete(&["search", v3, "einstein"]).stderr).contains("note"));
    assert!(!String::from_utf8_lossy(&rete(&["search", &file, "ada"]).stderr).contains("note"));
    // Text: header, then rank, term, label, class, pyramid path.
    let text = ok(&["search", &file, "ada", "--limit", "1"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "rank\tterm\tlabel\tclass\tpath");
    let cols: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!(cols[0], "1");
    assert!(cols[2].starts_with("\"Ada "), "{text}");
    assert_eq!(cols[3], "foaf:Person");
    assert_ne!(cols[4], "-", "{text}");
    // Where all the matches are: the top level's communities hold every placed match; a file
    // without an index says it needs one.
    let all = json(&[
        "search", &file, "ada", "--spread", "--limit", "1000", "--json",
    ]);
    let top = &all["levels"][0];
    let sum: u64 = top["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["matches"].as_u64().unwrap())
        .sum();
    assert_eq!(Some(sum), all["placed"].as_u64(), "{all}");
    assert!(
        sum >= labels(&a).len() as u64 && all["complete"] == true,
        "{all}"
    );
    let text = ok(&["search", &file, "ada", "--spread", "--limit", "2"]);
    assert!(
        text.starts_with("# ") && text.contains("level\tcommunity\tmatches"),
        "{text}"
    );
    let o = rete(&["search", &plain, "ada", "--spread"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no search index"));
    // Filters.
    let c = json(&["search", &file, "person", "--kind", "class", "--json"]);
    assert_eq!(c["hits"][0]["term"], "<http://xmlns.com/foaf/0.1/Person>");
    let c = json(&["search", &file, "ada", "--class", "foaf:Person", "--json"]);
    assert_eq!(
        c["hits"].as_array().unwrap().len(),
        labels(&json(&["search", &file, "ada", "--json"])).len()
    );
    // Bad input: empty answers, or a clear error with status 1.
    for q in ["", "!!!", "\u{7}\u{1b}"] {
        assert_eq!(
            json(&["search", &file, q, "--json"])["hits"],
            serde_json::json!([])
        );
    }
    let long = "ada ".repeat(2500);
    json(&["search", &file, &long, "--json"]);
    let o = rete(&["search", &file, "ada", "--class", "foaf:Nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unknown class http://xmlns.com/foaf/0.1/Nope")
    );
    let o = rete(&["search", &file, "ada", "--within", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("LEVEL:ID"));
    assert_eq!(
        rete(&["search", &file, "ada", "--kind", "thing"])
            .status
            .code(),
        Some(2)
    );
    // Within a community: every hit's path passes through it.
    let top = &a["hits"][0]["path"];
    let level = top.as_array().unwrap().len() - 1;
    let community = top[level].as_u64().unwrap();
    let w = json(&[
        "search",
        &file,
        "a",
        "--within",
        &format!("{level}:{community}"),
        "--json",
        "--limit",
        "50",
    ]);
    assert!(!w["hits"].as_array().unwrap().is_empty());
    for h in w["hits"].as_array().unwrap() {
        assert_eq!(h["path"][level].as_u64(), Some(community), "{h}");
    }
}

/// `export -o` writes beside the destination and renames when complete: an export that fails
/// half-way (a dictionary block damaged near the end) leaves the old file as it was and no
/// temporary file; a sparql run without `--timeout` has a deadline, `--timeout 0` none.
#[test]
fn export_is_atomic_and_sparql_has_a_default_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = social(dir.path());
    let out = dir.path().join("out.nt");
    std::fs::write(&out, "previous content\n").unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let opened = rete_core::Rete::open_path(Path::new(&file)).unwrap();
    let dict = *opened
        .section(rete_core::format::kind::DICT_BLOCKS, 0)
        .unwrap();
    bytes[(dict.offset + dict.len - 3) as usize] ^= 0xff;
    let damaged = dir.path().join("damaged.rete");
    std::fs::write(&damaged, &bytes).unwrap();
    let o = rete(&[
        "export",
        damaged.to_str().unwrap(),
        "--format",
        "nt",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("checksum mismatch"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous content\n");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with(".rete-export-")),
        "{names:?}"
    );
    ok(&[
        "export",
        &file,
        "--format",
        "nt",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(std::fs::read_to_string(&out).unwrap().lines().count() > 100);
    // Deadlines: the default and none both answer a small query; nonsense is refused.
    let q = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }";
    ok(&["sparql", &file, q]);
    ok(&["sparql", &file, q, "--timeout", "0"]);
    let o = rete(&["sparql", &file, q, "--timeout=-1"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 for no deadline"));
}

/// Runs `rete args` with its file size limited to `blocks` (RLIMIT_FSIZE, the shell's unit)
/// and SIGXFSZ ignored: every write past the limit fails (EFBIG), as on a full disk.
fn rete_limited(blocks: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {blocks} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_rete"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn writes_failing_at_any_point_leave_the_old_file_or_the_whole_new_one() {
    // Fault injection for writers: `rete build` (spill files, temporary file, rename) and
    // `rete export -o` under a file-size limit cut at points across their output. Each ends in
    // success with the same bytes as without the limit, or in an error with the destination as
    // it was and no temporary file left.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = root_sample("medical-1k.ttl");
    let want_rete = d.join("want.rete");
    ok(&["build", "-q", &src, "-o", want_rete.to_str().unwrap()]);
    let want_nt = d.join("want.nt");
    let file = want_rete.to_str().unwrap();
    ok(&[
        "export",
        file,
        "--format",
        "nt",
        "-o",
        want_nt.to_str().unwrap(),
    ]);
    let cases: [(&str, Vec<&str>, &Path); 2] = [
        ("out.rete", vec!["build", "-q", &src, "-o"], &want_rete),
        (
            "out.nt",
            vec!["export", file, "--format", "nt", "-o"],
            &want_nt,
        ),
    ];
    for (name, args, want) in cases {
        let want = std::fs::read(want).unwrap();
        let out = d.join(name);
        let (mut failed, mut passed) = (0, 0);
        // From nothing to past the whole output, in 512-byte blocks.
        let whole = want.len() as u64 / 512 + 2;
        for blocks in [
            0,
            1,
            whole / 8,
            whole / 3,
            whole / 2,
            whole - 3,
            whole * 2 + 8,
        ] {
            std::fs::write(&out, "previous content\n").unwrap();
            let mut a = args.clone();
            a.push(out.to_str().unwrap());
            let o = rete_limited(blocks, &a);
            let err = String::from_utf8_lossy(&o.stderr);
            if o.status.success() {
                passed += 1;
                assert_eq!(std::fs::read(&out).unwrap(), want, "{name} at {blocks}");
            } else {
                failed += 1;
                assert_eq!(o.status.code(), Some(1), "{name} at {blocks}: {err}");
                // Named by the destination, not only by a temporary file gone by now.
                assert!(
                    err.contains(&format!("error: {}", out.display()))
                        || err.contains(&format!("cannot write {}", out.display())),
                    "{name} at {blocks}: {err}"
                );
                if name == "out.nt" {
                    assert!(
                        err.contains(&format!("cannot write {}", out.display())),
                        "{name} at {blocks}: {err}"
                    );
                }
                assert_eq!(
                    std::fs::read_to_string(&out).unwrap(),
                    "previous content\n",
                    "{name} at {blocks}"
                );
            }
            let left: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with('.'))
                .collect();
            assert!(left.is_empty(), "{name} at {blocks}: {left:?}");
        }
        assert!(
            failed >= 3 && passed >= 1,
            "{name}: {failed} failed, {passed} passed"
        );
    }
}

#[test]
fn index_adds_the_search_index_a_file_was_built_without() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_owned();
    let src = root_sample("medical-1k.ttl");
    let (bare, indexed, built) = (path("bare.rete"), path("indexed.rete"), path("built.rete"));
    ok(&["build", "-q", "--no-search", &src, "-o", &bare]);
    ok(&["build", "-q", &src, "-o", &built]);
    let scanned = rete(&["search", &bare, "diabetes"]);
    assert!(String::from_utf8_lossy(&scanned.stderr).contains("rete index FILE -o OUT"));
    // A budget of its own (the labels fit): the index is the one a build gives.
    let added = rete(&["index", &bare, "-o", &indexed, "--memory-budget", "64M"]);
    assert!(added.status.success());
    assert!(String::from_utf8_lossy(&added.stderr).contains("labels indexed"));
    // The same answers as a file built with the index, and no note about scanning.
    for text in ["diabetes", "pat", "doctor 1"] {
        let got = rete(&["search", &indexed, text, "--json"]);
        assert!(
            got.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(
            got.stdout,
            rete(&["search", &built, text, "--json"]).stdout,
            "{text}"
        );
    }
    // Writing over the input, or from a URL, is refused, and the input stays as it was.
    let before = std::fs::read(&bare).unwrap();
    let over = rete(&["index", &bare, "-o", &bare]);
    assert_eq!(over.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&over.stderr).contains("another file than the input"));
    let url = rete(&["index", "http://127.0.0.1:9/x.rete", "-o", &indexed]);
    assert_eq!(url.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&url.stderr).contains("download it first"));
    assert_eq!(std::fs::read(&bare).unwrap(), before);
}

/// Shapes with SHACL-AF rules (Brick's): validated as given, the rules counted on stderr and in
/// the JSON summary; a SPARQL target's focus nodes validated.
#[test]
fn shacl_says_the_rules_it_did_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.ttl");
    std::fs::write(
        &data,
        "@prefix ex: <http://example.org/> .\nex:a ex:knows ex:b .\nex:b ex:name \"B\" .\n",
    )
    .unwrap();
    let shapes = dir.path().join("s.ttl");
    std::fs::write(
        &shapes,
        r#"@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
ex:Named a sh:NodeShape ;
  sh:target [ a sh:SPARQLTarget ; sh:select "SELECT ?this WHERE { ?this <http://example.org/knows> ?x }" ] ;
  sh:property [ sh:path ex:name ; sh:minCount 1 ] ;
  sh:rule [ a sh:TripleRule ; sh:subject sh:this ; sh:predicate ex:seen ; sh:object ex:yes ] .
"#,
    )
    .unwrap();
    let file = dir.path().join("d.rete");
    ok(&[
        "build",
        "-q",
        data.to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let o = rete(&[
        "shacl",
        file.to_str().unwrap(),
        "--shapes",
        shapes.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "ex:a has no name");
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["results"], 1);
    assert_eq!(
        json["groups"][0]["focus_nodes"][0],
        "<http://example.org/a>"
    );
    assert_eq!(json["rules_not_run"], 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("1 SHACL-AF rule (sh:rule)") && err.contains("not run"),
        "{err}"
    );
}
