//! Upstream's own builder as a test oracle (feature `oracle`): PyPI `rete-graph` 0.3.6 run
//! through `python3`, so tests can compare with the files upstream really writes.

use std::io::{Error, Write};
use std::process::{Command, Stdio};

const INSTALL: &str = "the upstream oracle needs Python 3 with rete-graph 0.3.6: \
    `pip install rete-graph==0.3.6` (scripts/setup.sh does)";

/// Builds `text` (N-Triples with `format` `nt`, N-Quads with `nq`) into an upstream `.rete`
/// (format `0x05`) with `rete_graph.build`. An error says how to install the oracle.
pub fn upstream_build(text: &[u8], format: &str) -> std::io::Result<Vec<u8>> {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import sys, rete_graph as r; \
             sys.stdout.buffer.write(r.build(sys.stdin.read(), sys.argv[1]))",
            format,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::other(format!("python3: {e}; {INSTALL}")))?;
    child
        .stdin
        .take()
        .ok_or_else(|| Error::other("python3 took no input"))?
        .write_all(text)?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        return Err(Error::other(format!(
            "upstream build failed: {}; {INSTALL}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    if !out.stdout.starts_with(b"RETE\x05") {
        return Err(Error::other(format!(
            "rete_graph.build did not write format 0x05 (rete-graph 0.3.6 does); {INSTALL}"
        )));
    }
    Ok(out.stdout)
}
