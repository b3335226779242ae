//! Set-up shared by the integration tests.

#![allow(dead_code, reason = "each test file uses some of these")]

use rete_core::Rete;
use rete_sparql::QueryResults;

/// An answer in a form to compare: rows as sorted ` | `-joined N-Triples cells (`""` for
/// unbound), triples sorted, or the boolean.
pub fn canon(r: QueryResults) -> Vec<String> {
    let mut out: Vec<String> = match r {
        QueryResults::Solutions(s) => {
            let n = s.variables().len();
            s.map(|row| {
                let row = row.unwrap();
                (0..n)
                    .map(|i| row.get(i).map(ToString::to_string).unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .collect()
        }
        QueryResults::Graph(g) => g.map(|t| t.unwrap().to_string()).collect(),
        QueryResults::Boolean(b) => vec![b.to_string()],
    };
    out.sort();
    out
}

/// Builds the Turtle `data` into `<stem>.rete` (input named `<stem>.ttl`) in a fresh temporary
/// directory and opens it; the directory lives as long as the returned guard.
pub fn turtle_rete(stem: &str, data: Vec<u8>) -> (tempfile::TempDir, Rete) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(format!("{stem}.rete"));
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                format!("{stem}.ttl"),
                data,
                rete_build::Syntax::Turtle,
            )],
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    let r = Rete::open_path(&out).unwrap();
    (dir, r)
}
