//! Upstream rete files (format 0x05) for the read commands: converted once into this format,
//! with the pyramid and schema sections, into a cache (`$XDG_CACHE_HOME/rete/upstream`), then
//! read like any `.rete`. See docs/format.md.

use anyhow::Result;
use std::path::PathBuf;
use std::sync::Arc;

/// The path to open for `file`: itself, or its converted copy when it is an upstream file.
pub fn readable(file: &str) -> Result<PathBuf> {
    let template = rete_build::BuildOptions {
        extensions: vec![
            Arc::new(rete_schema::SchemaExtension),
            Arc::new(rete_pyramid::PyramidExtension::default()),
        ],
        ..rete_build::BuildOptions::default()
    };
    Ok(rete_build::readable_path(
        file.as_ref(),
        &template,
        &rete_build::default_cache_dir(),
    )?)
}
