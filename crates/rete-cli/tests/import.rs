//! `rete build` from folders, JSON-LD and upstream rete files; upstream files read by the read
//! commands; Ctrl-C/SIGTERM leave nothing behind. Real files, real processes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Waits until `ready()` holds, polling; a guard against a hang (60 s), not a timing assertion.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let t = Instant::now();
    while !ready() {
        assert!(t.elapsed() < Duration::from_secs(60), "{what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sends `signal` (`-TERM`, `-INT`) to `child`, which must be delivered.
fn send(child: &std::process::Child, signal: &str) {
    let sent = Command::new("kill")
        .arg(signal)
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Runs `rete` with a private cache folder (upstream conversions land there).
fn rete(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap()
}

fn ok(cache: &Path, args: &[&str]) -> String {
    let o = rete(cache, args);
    assert!(
        o.status.success(),
        "rete {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// `rete generate social --people <people> -o out`, which must succeed; returns `out`.
fn generate_social(cache: &Path, people: &str, out: PathBuf) -> PathBuf {
    ok(
        cache,
        &[
            "generate",
            "social",
            "--people",
            people,
            "-o",
            out.to_str().unwrap(),
        ],
    );
    out
}

/// `rete build -q input -o out`, which must succeed.
fn build(cache: &Path, input: &Path, out: &Path) {
    ok(
        cache,
        &[
            "build",
            "-q",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
}

fn lines(s: &str) -> BTreeSet<String> {
    s.lines().map(str::to_owned).collect()
}

#[test]
fn build_takes_a_folder_of_mixed_syntaxes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("data");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(
        d.join("a.ttl"),
        "@prefix ex: <http://e.org/> .\nex:a ex:p ex:b .\n",
    )
    .unwrap();
    let gz = flate2_like_gzip(b"<http://e.org/c> <http://e.org/p> \"c\" .\n");
    std::fs::write(d.join("b.nt.gz"), gz).unwrap();
    std::fs::write(
        d.join("c.jsonld"),
        r#"{"@id": "http://e.org/d", "http://e.org/p": {"@id": "http://e.org/e"}}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("sub/d.rdf"),
        r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://e.org/">
  <rdf:Description rdf:about="http://e.org/f"><ex:p rdf:resource="http://e.org/g"/></rdf:Description>
</rdf:RDF>"#,
    )
    .unwrap();
    std::fs::write(d.join("README.md"), "# not RDF\n").unwrap();
    std::fs::write(d.join(".hidden.nt"), "not even parsed").unwrap();
    let out = dir.path().join("all.rete");
    let cache = dir.path().join("cache");
    build(&cache, &d, &out);
    let nq = ok(&cache, &["export", out.to_str().unwrap()]);
    assert_eq!(nq.lines().count(), 4, "{nq}");
    let info: serde_json::Value =
        serde_json::from_str(&ok(&cache, &["info", "--json", out.to_str().unwrap()])).unwrap();
    let formats: Vec<&str> = info["card"]["build"]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["Turtle", "N-Triples", "JSON-LD", "RDF/XML"]);
    // A folder without RDF is an error, not an empty file.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = rete(
        &cache,
        &["build", "-q", empty.to_str().unwrap(), "-o", "x.rete"],
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no RDF file"));
}

/// gzip through the system tool, so the test needs no compression crate.
fn flate2_like_gzip(data: &[u8]) -> Vec<u8> {
    let mut child = Command::new("gzip")
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(data).unwrap();
    child.wait_with_output().unwrap().stdout
}

/// Builds N-Triples with the real upstream builder (PyPI rete-graph 0.3.6, from scripts/setup.sh).
fn upstream_build(nt: &[u8]) -> Vec<u8> {
    rete_upstream::oracle::upstream_build(nt, "nt").unwrap()
}

const QUERIES: &[&str] = &[
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c ORDER BY ?c",
    "SELECT ?s ?name WHERE { ?s <http://xmlns.com/foaf/0.1/name> ?name } ORDER BY ?s LIMIT 20",
    "SELECT ?a ?b WHERE { ?a <http://xmlns.com/foaf/0.1/knows> ?b . ?b <http://xmlns.com/foaf/0.1/knows> ?a } ORDER BY ?a ?b LIMIT 50",
    "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY ?p",
    "ASK { ?s ?p \"no such literal\" }",
];

#[test]
fn upstream_files_build_and_read_like_their_source() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let nt = generate_social(&cache, "300", dir.path().join("social.nt"));
    let up = dir.path().join("social-upstream.rete");
    std::fs::write(&up, upstream_build(&std::fs::read(&nt).unwrap())).unwrap();
    let ours = dir.path().join("ours.rete");
    let conv = dir.path().join("converted.rete");
    build(&cache, &nt, &ours);
    build(&cache, &up, &conv);
    let (ours, conv, up) = (
        ours.to_str().unwrap(),
        conv.to_str().unwrap(),
        up.to_str().unwrap(),
    );
    // Identical quads: built from the upstream file, and read straight from it.
    let want = lines(&ok(&cache, &["export", ours]));
    assert!(want.len() > 1000);
    assert_eq!(lines(&ok(&cache, &["export", conv])), want);
    assert_eq!(lines(&ok(&cache, &["export", up])), want);
    // Identical answers.
    for q in QUERIES {
        let a = ok(&cache, &["sparql", ours, q, "--format", "csv"]);
        assert_eq!(ok(&cache, &["sparql", up, q, "--format", "csv"]), a, "{q}");
        assert_eq!(
            ok(&cache, &["sparql", conv, q, "--format", "csv"]),
            a,
            "{q}"
        );
    }
    let info: serde_json::Value =
        serde_json::from_str(&ok(&cache, &["info", "--json", up])).unwrap();
    assert_eq!(info["quads"].as_u64().unwrap() as usize, want.len());
    // Converted once: the cache holds one file, reused by the next command.
    let cached: Vec<_> = std::fs::read_dir(cache.join("rete/upstream"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    // Damaged and truncated upstream files: a clear error, never a panic.
    let bytes = std::fs::read(up).unwrap();
    for (name, data) in [
        ("cut.rete", bytes[..bytes.len() * 2 / 3].to_vec()),
        ("header-only.rete", bytes[..1024].to_vec()),
        ("flipped.rete", {
            let mut b = bytes.clone();
            // Inside the dictionary, which every read decodes.
            for x in &mut b[1024 + 16..1024 + 80] {
                *x ^= 0x5a;
            }
            b
        }),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, data).unwrap();
        for cmd in [
            vec!["info", p.to_str().unwrap()],
            vec!["build", "-q", p.to_str().unwrap(), "-o", "never.rete"],
        ] {
            let o = rete(&cache, &cmd);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{cmd:?} accepted {name}");
            assert!(!err.contains("panicked"), "{cmd:?}: {err}");
            assert!(
                err.contains(name) && err.contains("upstream"),
                "{cmd:?}: {err}"
            );
        }
    }
}

/// Upstream format 0x06 (a staged layout no released upstream writes, see docs/format.md) and the
/// experimental bytes before 0x05: every read command, `build` of the file and of a folder holding
/// it refuse it by name, say what to do, and leave nothing in the cache or at the output.
#[test]
fn upstream_formats_not_read_are_refused_saying_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut bytes = upstream_build(b"<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n");
    bytes[4] = 0x06;
    let six = dir.path().join("six.rete");
    std::fs::write(&six, &bytes).unwrap();
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("a.nt"),
        "<http://e.org/a> <http://e.org/p> \"x\" .\n",
    )
    .unwrap();
    std::fs::write(folder.join("six.rete"), &bytes).unwrap();
    bytes[4] = 0x03;
    let three = dir.path().join("three.rete");
    std::fs::write(&three, &bytes).unwrap();
    let out = dir.path().join("out.rete");
    let (six, three, folder, o) = (
        six.to_str().unwrap(),
        three.to_str().unwrap(),
        folder.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["info", six],
            &["six.rete", "format 0x06", "N-Quads", "rete-graph 0.3.6"],
        ),
        (&["sparql", six, "ASK {}"], &["six.rete", "format 0x06"]),
        (
            &["build", "-q", six, "-o", o],
            &["six.rete", "format 0x06", "rete export"],
        ),
        (
            &["build", "-q", folder, "-o", o],
            &["six.rete", "format 0x06"],
        ),
        (
            &["info", three],
            &["three.rete", "format 0x03", "RDF source"],
        ),
        (
            &["build", "-q", three, "-o", o],
            &["three.rete", "format 0x03", "RDF source"],
        ),
    ];
    for (args, wants) in cases {
        let r = rete(&cache, args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for want in wants {
            assert!(err.contains(want), "{args:?}: {want:?} missing from {err}");
        }
    }
    assert!(!out.exists());
    let cached = std::fs::read_dir(cache.join("rete/upstream"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(cached, 0, "nothing converted, nothing cached");
}

#[test]
fn sigterm_and_ctrl_c_stop_a_build_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let nt = generate_social(&cache, "60000", dir.path().join("big.nt"));
    for signal in ["-TERM", "-INT"] {
        let tmp = dir.path().join(format!("tmp{signal}"));
        std::fs::create_dir(&tmp).unwrap();
        let out = dir.path().join("out.rete");
        let child = Command::new(env!("CARGO_BIN_EXE_rete"))
            .args([
                "build",
                "-q",
                nt.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .arg("--temp-dir")
            .arg(&tmp)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the build has made its temp folder, then signal it.
        wait_for("no temp folder", || {
            std::fs::read_dir(&tmp).unwrap().next().is_some()
        });
        send(&child, signal);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{signal}: {err}");
        assert!(err.contains("cancelled"), "{err}");
        assert!(!out.exists(), "{signal}: output written");
        let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
        assert!(left.is_empty(), "{signal}: temp files left: {left:?}");
        let beside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".rete-build"))
            .collect();
        assert!(beside.is_empty(), "{beside:?}");
    }
}

/// Names in the upstream cache folder.
fn upstream_cache(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache.join("rete/upstream"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn the_upstream_cache_evicts_least_recently_used_and_a_killed_conversion_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let nt = generate_social(&cache, "200", dir.path().join("s.nt"));
    let bytes = upstream_build(&std::fs::read(&nt).unwrap());
    // Three upstream files (the same graph under three names: three conversions).
    let ups: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let p = dir.path().join(format!("{n}.rete"));
            std::fs::write(&p, &bytes).unwrap();
            p
        })
        .collect();
    let up = |i: usize| ups[i].to_str().unwrap();
    ok(&cache, &["info", up(0)]);
    let one = upstream_cache(&cache);
    assert_eq!(one.len(), 1, "{one:?}");
    let size = std::fs::metadata(cache.join("rete/upstream").join(&one[0]))
        .unwrap()
        .len();
    // Room for two conversions: the third pushes out the least recently used, which is `b`
    // once `a` is used again.
    let limit = (2 * size + size / 2).to_string();
    let with_limit = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_rete"))
            .args(args)
            .env("XDG_CACHE_HOME", &cache)
            .env("RETE_CACHE_LIMIT", &limit)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    with_limit(&["info", up(1)]);
    let two = upstream_cache(&cache);
    assert_eq!(two.len(), 2);
    let b = two.iter().find(|n| **n != one[0]).unwrap().clone();
    // Modification times are the LRU stamps: make the order plain, then use `a` again.
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    for n in &two {
        std::fs::File::options()
            .write(true)
            .open(cache.join("rete/upstream").join(n))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    with_limit(&["info", up(0)]);
    with_limit(&["info", up(2)]);
    let three = upstream_cache(&cache);
    assert_eq!(three.len(), 2, "{three:?}");
    assert!(three.contains(&one[0]) && !three.contains(&b), "{three:?}");

    // A conversion killed half-way (SIGTERM) leaves no temporary folder and no file.
    let big = generate_social(&cache, "60000", dir.path().join("big.nt"));
    let big_up = dir.path().join("big.rete");
    std::fs::write(&big_up, upstream_build(&std::fs::read(&big).unwrap())).unwrap();
    let before = upstream_cache(&cache);
    let child = Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(["info", big_up.to_str().unwrap()])
        .env("XDG_CACHE_HOME", &cache)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("no temp folder", || {
        upstream_cache(&cache)
            .iter()
            .any(|n| n.starts_with(".rete-build-"))
    });
    send(&child, "-TERM");
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("cancelled while converting"), "{err}");
    assert_eq!(upstream_cache(&cache), before);
}

#[test]
fn sigterm_stops_a_build_inside_one_endless_statement() {
    // A statement that never ends (a comment on stdin without a line end): no quad comes out of
    // the parser to poll the cancel at, so the read itself must stop.
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = dir.path().join("out.rete");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(["build", "-q", "-", "--format", "nt", "-o"])
        .arg(&out)
        .arg("--temp-dir")
        .arg(&tmp)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Writes until the build is gone (broken pipe).
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'y'; 1 << 16];
        if stdin.write_all(b"# ").is_ok() {
            while stdin.write_all(&chunk).is_ok() {}
        }
    });
    wait_for("no temp folder", || {
        std::fs::read_dir(&tmp).unwrap().next().is_some()
    });
    send(&child, "-TERM");
    // A guard against a hang (the failure this test exists for), not a timing assertion.
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the build ignored SIGTERM inside one statement");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("cancelled"), "{err}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "temp files left: {left:?}");
}
