//! Set-up shared by the integration tests.

use rete_core::Rete;

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
