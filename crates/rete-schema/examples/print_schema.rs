//! Prints the schema of an RDF file or a `.rete` file:
//! `cargo run -p rete-schema --example print_schema FILE [--json]`. RDF inputs (anything not
//! ending in `.rete`) are first built with the schema block into a temporary directory.

use rete_build::{build, BuildOptions, Input};
use rete_schema::{kind, Schema, SchemaExtension};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: print_schema FILE [--json]")?;
    let json = args.next().as_deref() == Some("--json");
    let dir = tempfile::tempdir()?;
    let file = if path.ends_with(".rete") {
        path.clone().into()
    } else {
        let out = dir.path().join("schema.rete");
        let opts = BuildOptions {
            inputs: vec![Input::path(&path)],
            extensions: vec![Arc::new(SchemaExtension)],
            ..BuildOptions::default()
        };
        build(&opts, &out)?;
        out
    };
    let rete = rete_core::Rete::open_path(&file)?;
    for k in [kind::CLASSES, kind::PROPERTIES, kind::STATISTICS] {
        if let Some(e) = rete.section(k, 0) {
            eprintln!("section {k}: {} bytes at {}", e.len, e.offset);
        }
    }
    match Schema::open(&rete)? {
        None => println!("{path}: no schema block"),
        Some(s) if json => println!("{}", serde_json::to_string_pretty(&s)?),
        Some(s) => print!("{s}"),
    }
    Ok(())
}
