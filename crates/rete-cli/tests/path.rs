//! `rete path`: the same answers from a local file and over HTTP ranges (a real server on
//! 127.0.0.1), text and JSON, and clear errors for bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{ok, rete, serve_dir};

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn person(i: u32) -> String {
    format!("<http://example.org/social/person/{i}>")
}

#[test]
fn remote_paths_equal_local_paths() {
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("s.nt");
    let file = dir.path().join("s.rete");
    let (nt_s, file_s) = (nt.to_str().unwrap(), file.to_str().unwrap());
    ok(&["generate", "social", "--people", "600", "-o", nt_s]);
    ok(&["build", "-q", nt_s, "-o", file_s]);
    let url = format!("{}/s.rete", serve_dir(dir.path().to_path_buf()));
    let pairs = [(1, 7), (3, 450), (12, 599), (200, 201)];
    let mut paths = 0;
    for (a, b) in pairs {
        let (a, b) = (person(a), person(b));
        for extra in [
            &[][..],
            &["-k", "2", "--via", "foaf:knows", "--max-degree", "40"][..],
        ] {
            let args = |f: &str| {
                let mut v = vec!["path", f, a.as_str(), b.as_str()];
                v.extend_from_slice(extra);
                v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()
            };
            let local_args = args(file_s);
            let remote_args = args(&url);
            let local = ok(&strs(&local_args));
            assert_eq!(local, ok(&strs(&remote_args)), "{local_args:?}");
            assert!(local.contains(&format!("between {a} and {b}")), "{local}");
            paths += local.matches("\npath ").count() + usize::from(local.starts_with("path "));
            let json = |v: &[String]| {
                let mut v = strs(v);
                v.push("--json");
                let mut j: serde_json::Value = serde_json::from_str(&ok(&v)).unwrap();
                // Timings differ; the paths, the stop and the work must not.
                j["stats"]["millis"] = serde_json::Value::Null;
                j
            };
            assert_eq!(json(&local_args), json(&remote_args), "{local_args:?}");
        }
    }
    assert!(paths >= 8, "the pairs found only {paths} paths");
    // Remote reads are lazy: a path search reads a small part of the file.
    let o = rete(&["path", &url, &person(1), &person(7), "--stats"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("requests from http://127.0.0.1"),
        "{stderr}"
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let medical = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/medical-1k.rete");
    let cases: [(&[&str], &str); 7] = [
        (
            &[":patient92", ":nobody"],
            "<http://example.org/medical#nobody> is not in the file",
        ),
        (&[":patient92", ":patient92"], "both ends are"),
        (
            &[":patient92", ":patient3", "-k", "0"],
            "k = 0 is out of range",
        ),
        (
            &[":patient92", ":patient3", "-k", "5000000"],
            "ask for 1 to 1000 paths",
        ),
        (
            &[":patient92", ":patient3", "--max-hops", "40"],
            "max hops = 40 is out of range",
        ),
        (&[":patient92", "\"x\""], "is a literal"),
        (
            &[":patient92", ":patient3", "--via", ":nope"],
            "(in via) is not in the file",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["path", medical];
        all.extend_from_slice(args);
        let o = rete(&all);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // An expired deadline is an answer, not an error.
    let out = ok(&[
        "path",
        medical,
        ":patient92",
        ":patient334",
        "--timeout",
        "0",
    ]);
    assert!(out.contains("stopped at the deadline"), "{out}");
}
