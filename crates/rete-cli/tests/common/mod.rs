//! Test support shared by the CLI's test files.

#![allow(dead_code, reason = "each test file uses some of these")]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `rete` binary with `args`.
pub fn rete(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rete"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs the `rete` binary with `args`, which must succeed; returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let o = rete(args);
    assert!(
        o.status.success(),
        "rete {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Serves `dir` over HTTP with range support on 127.0.0.1 (`rete_http::serve_dir`); returns
/// the base URL, without a trailing slash.
pub fn serve_dir(dir: PathBuf) -> String {
    rete_http::serve_dir::serve_dir(dir).unwrap()
}
