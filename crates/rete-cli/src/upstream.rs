//! Upstream rete files (format 0x05) for the read commands: converted once into this format,
//! with the pyramid and schema sections, into a cache (`$XDG_CACHE_HOME/rete/upstream`, at most
//! `RETE_CACHE_LIMIT` bytes, 4 GiB by default, least recently used conversions removed first),
//! then read like any `.rete`. See docs/format.md.

use anyhow::Result;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The path to open for `file`: itself, or its converted copy when it is an upstream file.
/// Ctrl-C and SIGTERM during a conversion cancel it, which leaves nothing in the cache.
pub fn readable(file: &str) -> Result<PathBuf> {
    if !matches!(
        rete_build::detect(Path::new(file)),
        Ok(rete_build::Detected::UpstreamRete { .. })
    ) {
        // Not converted (or refused with its own message by `readable_path`).
        return convert(file, Arc::new(rete_build::NoProgress));
    }
    let listening = crate::interrupt::listen()?;
    let converted = convert(file, Arc::new(crate::progress::Quiet(listening.flag())));
    drop(listening);
    match converted {
        Err(e)
            if e.downcast_ref::<rete_build::BuildError>()
                .is_some_and(|b| matches!(b, rete_build::BuildError::Cancelled)) =>
        {
            eprintln!("rete: cancelled while converting {file}; nothing kept");
            std::process::exit(130)
        }
        r => r,
    }
}

fn convert(file: &str, progress: Arc<dyn rete_build::Progress>) -> Result<PathBuf> {
    let template = rete_build::BuildOptions {
        extensions: vec![
            Arc::new(rete_schema::SchemaExtension),
            Arc::new(rete_pyramid::PyramidExtension::default()),
        ],
        progress,
        ..rete_build::BuildOptions::default()
    };
    Ok(rete_build::readable_path(
        file.as_ref(),
        &template,
        &rete_build::default_cache_dir(),
        rete_build::lru::cache_limit_from_env(),
    )?)
}
