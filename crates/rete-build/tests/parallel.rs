//! Parsing on several threads gives the very file a one-thread build gives (blank nodes scoped
//! per input, named graphs, literals, several inputs, compressed ones, spilling budgets), and
//! the same syntax errors at the same line and column.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use rete_build::{build, BuildError, BuildOptions, BuildReport, Input, Syntax};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A budget whose N-Triples chunks are the smallest (16 KiB) and whose interner spills often.
const TINY: usize = 4 << 20;

/// `n` subjects, five quads each: blank nodes (labels repeated in every input, so scoping
/// shows), named graphs (IRIs and a blank node), language-tagged, typed and escaped literals.
fn nquads(n: u64, tag: &str, graphs: bool) -> String {
    let mut s = String::new();
    for i in 0..n {
        let item = format!("<http://example.org/{tag}/{i}>");
        let g = |k: u64| match (graphs, k % 4) {
            (false, _) | (_, 0) => String::new(),
            (_, 1) => " _:g".to_owned(),
            (_, g) => format!(" <http://example.org/graph/{g}>"),
        };
        writeln!(
            s,
            "{item} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/C{}>{} .",
            i % 40,
            g(i)
        )
        .unwrap();
        // An escaped line end in a few labels only: chunks holding one are parsed strictly,
        // the others leniently (see src/lenient.rs), and both must give the same file.
        let nl = if i % 500 == 0 { "\\n" } else { "" };
        writeln!(
            s,
            "{item} <http://example.org/label> \"Näme {i}{nl}\\\"q\\\"\"@en-GB ."
        )
        .unwrap();
        writeln!(
            s,
            "{item} <http://example.org/value> \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer>{} .",
            i * 7,
            g(i + 1)
        )
        .unwrap();
        writeln!(
            s,
            "{item} <http://example.org/knows> _:b{} .",
            (i * 31 + 7) % n
        )
        .unwrap();
        writeln!(
            s,
            "_:b{i} <http://example.org/note> \"note {}\" .",
            i % 1000
        )
        .unwrap();
    }
    s
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
}

/// Several inputs of every streamed kind: N-Quads, N-Triples plain, gzip and zstd (with CRLF
/// line ends), Turtle with anonymous blank nodes, TriG.
fn inputs(dir: &Path) -> Vec<Input> {
    let nq = dir.join("a.nq");
    write(&nq, nquads(16_000, "a", true).as_bytes());
    let nt = dir.join("b.nt");
    write(&nt, nquads(8_000, "b", false).as_bytes());
    let gz = dir.join("c.nt.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(nquads(8_000, "c", false).replace('\n', "\r\n").as_bytes())
        .unwrap();
    write(&gz, &enc.finish().unwrap());
    let zst = dir.join("d.nq.zst");
    write(
        &zst,
        &zstd::encode_all(nquads(8_000, "d", true).as_bytes(), 1).unwrap(),
    );
    let mut ttl = String::from("@prefix ex: <http://example.org/> .\n");
    for i in 0..5_000 {
        writeln!(
            ttl,
            "ex:t{i} ex:p [ ex:q \"{i}\"@fr ], _:b{i} ; ex:r ex:t{} .",
            i / 2
        )
        .unwrap();
    }
    let ttl_path = dir.join("e.ttl");
    write(&ttl_path, ttl.as_bytes());
    let trig = "@prefix ex: <http://example.org/> .\nex:g { ex:s ex:p [ ex:q 1 ] . }\n_:h { _:b0 ex:p \"x\" . }\n";
    let trig_path = dir.join("f.trig");
    write(&trig_path, trig.as_bytes());
    [nq, nt, gz, zst, ttl_path, trig_path]
        .into_iter()
        .map(Input::path)
        .collect()
}

/// Builds on a rayon pool of `threads` threads (one: parsing on the build's own thread).
fn build_on(
    threads: usize,
    inputs: Vec<Input>,
    budget: usize,
    out: &Path,
) -> Result<BuildReport, BuildError> {
    let opts = BuildOptions {
        inputs,
        memory_budget: budget,
        zstd_level: 1,
        ..BuildOptions::default()
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| build(&opts, out))
}

#[test]
fn parallel_parse_gives_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    let file = |threads: usize, budget: usize| -> (Vec<u8>, BuildReport) {
        let out = dir.path().join(format!("out-{threads}-{budget}.rete"));
        let report = build_on(threads, inputs.clone(), budget, &out).unwrap();
        (std::fs::read(&out).unwrap(), report)
    };
    let (seq, r) = file(1, 2 << 30);
    assert_eq!(r.quad_runs, 0, "{r:?}");
    assert!(r.quads > 200_000, "{r:?}");
    for (threads, budget) in [(2, 2 << 30), (4, 2 << 30), (1, TINY), (2, TINY), (3, TINY)] {
        let (bytes, r) = file(threads, budget);
        if budget == TINY {
            assert!(r.quad_runs > 1, "{threads} threads, {r:?}");
        }
        assert!(
            bytes == seq,
            "{threads} threads, budget {budget}: file differs from the one-thread build"
        );
    }
}

/// The error of a build of `text` as N-Triples (file `name` in `dir`) on `threads` threads.
fn error_of(dir: &Path, name: &str, text: &[u8], threads: usize) -> String {
    let path: PathBuf = dir.join(name);
    write(&path, text);
    let out = dir.join(format!("{name}-{threads}.rete"));
    let err = build_on(threads, vec![Input::path(&path)], TINY, &out).unwrap_err();
    assert!(!out.exists());
    err.to_string()
}

#[test]
fn syntax_errors_are_those_of_a_sequential_parse() {
    let dir = tempfile::tempdir().unwrap();
    let good = nquads(30_000, "x", false);
    let lines = good.lines().count();
    assert_eq!(lines, 150_000);
    let with = |at: usize, bad: &str| -> String {
        let mut v: Vec<&str> = good.lines().collect();
        v.insert(at, bad);
        v.join("\n") + "\n"
    };
    let cases = [
        // Deep in a later chunk: line 120,001, the `.` missing before the next statement.
        (
            "late.nt",
            with(
                120_000,
                "<http://e/s> <http://e/p> <http://e/o> <http://e/x> .",
            ),
        ),
        // A statement cut at a line end, so the next line holds its end.
        ("cut.nt", with(100_000, "<http://e/s> <http://e/p>")),
        (
            "literal.nt",
            with(90_000, "<http://e/s> <http://e/p> \"open ."),
        ),
        (
            "iri.nt",
            with(149_999, "<http://e/s> <http://e/p> <not an iri> ."),
        ),
        // The last line, with no line end.
        ("last.nt", good.clone() + "<http://e/s> <http://e/p> ."),
        // What oxttl's lenient mode does not check, each as the only error of its input.
        (
            "datatype.nt",
            with(70_000, "<http://e/s> <http://e/p> \"1\"^^<http://e/a b> ."),
        ),
        (
            "relative.nt",
            with(70_001, "<http://e/s> <rel> <http://e/o> ."),
        ),
        (
            "graph.nq",
            with(70_002, "<http://e/s> <http://e/p> <http://e/o> <http://e/{g}> ."),
        ),
        (
            "langtag.nt",
            with(70_003, "<http://e/s> <http://e/p> \"x\"@abcdefghi ."),
        ),
        (
            "langstring.nt",
            with(
                70_004,
                "<http://e/s> <http://e/p> \"x\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .",
            ),
        ),
        (
            "surrogate.nt",
            with(70_005, "<http://e/s> <http://e/p> \"\\uD83D\\uDE00\" ."),
        ),
        (
            "newline.nt",
            with(70_006, "<http://e/s> <http://e/p> \"a\rb\" ."),
        ),
        // CRLF line ends: lines counted the same way.
        (
            "crlf.nt",
            with(110_000, "<http://e/s> <http://e/p> \"x\"@ .").replace('\n', "\r\n"),
        ),
    ];
    for (name, text) in &cases {
        let seq = error_of(dir.path(), name, text.as_bytes(), 1);
        let par = error_of(dir.path(), name, text.as_bytes(), 3);
        assert_eq!(par, seq, "{name}");
    }
    let late = error_of(dir.path(), "late.nt", cases[0].1.as_bytes(), 2);
    let path = dir.path().join("late.nt");
    assert!(
        late.starts_with(&format!("{}:120001:", path.display())),
        "{late}"
    );
}

#[test]
fn a_statement_over_two_lines_parses_as_in_one_stream() {
    // If oxttl accepts a line end inside a statement, the chunk it ends does not parse on its
    // own; the rest of the input is then parsed as one stream, quads included.
    let dir = tempfile::tempdir().unwrap();
    let mut text = nquads(10_000, "y", false);
    for i in 0..2_000 {
        writeln!(text, "<http://e/s{i}> <http://e/p>\n  <http://e/o{i}> .").unwrap();
    }
    text.push_str(&nquads(10_000, "z", false));
    let path = dir.path().join("wrapped.nt");
    write(&path, text.as_bytes());
    let run = |threads: usize| {
        let out = dir.path().join(format!("wrapped-{threads}.rete"));
        match build_on(threads, vec![Input::path(&path)], TINY, &out) {
            Ok(r) => Ok((std::fs::read(&out).unwrap(), r.quads)),
            Err(e) => Err(e.to_string()),
        }
    };
    assert_eq!(run(3), run(1));
}

#[test]
fn in_memory_inputs_twice() {
    // In-memory bytes take the same path as a file; the same bytes twice are two inputs, their
    // blank nodes apart.
    let dir = tempfile::tempdir().unwrap();
    let nq = nquads(20_000, "m", true);
    let run = |threads: usize| {
        let out = dir.path().join(format!("mem-{threads}.rete"));
        let input = Input::bytes("m.nq", nq.clone().into_bytes(), Syntax::NQuads);
        build_on(threads, vec![input.clone(), input], TINY, &out).unwrap();
        std::fs::read(&out).unwrap()
    };
    assert!(run(2) == run(1));
}
