//! Inputs from folders, and upstream rete files converted on open for the read commands.

use crate::detect::{detect, Detected};
use crate::{build, BuildError, BuildOptions, Input};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |e| BuildError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

/// Every RDF file under `dir` (recursively, hidden entries skipped, in name order) as an input
/// with the syntax and compression its content shows (see [`detect`]); upstream rete files
/// included. Files that are neither (a README, our own `.rete` files) are left out. An empty
/// result is an error: a build of nothing is almost certainly a wrong folder.
pub fn dir_inputs(dir: &Path) -> Result<Vec<Input>, BuildError> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    let inputs: Vec<Input> = files
        .into_iter()
        .filter_map(|p| match detect(&p) {
            Ok(Detected::Rdf {
                syntax,
                compression,
            }) => Some(Input {
                source: crate::Source::Path(p),
                syntax: Some(syntax),
                compression: Some(compression),
            }),
            Ok(Detected::UpstreamRete { .. }) => Some(Input {
                source: crate::Source::Path(p),
                syntax: Some(crate::Syntax::UpstreamRete),
                compression: Some(crate::Compression::None),
            }),
            Ok(Detected::Rete) | Err(_) => None,
        })
        .collect();
    if inputs.is_empty() {
        return Err(BuildError::Invalid(format!(
            "{}: no RDF file in this folder (Turtle, N-Triples, N-Quads, TriG, RDF/XML, JSON-LD or upstream .rete)",
            dir.display()
        )));
    }
    Ok(inputs)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), BuildError> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type().map_err(io(&path))?;
        if kind.is_dir() {
            collect(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// The file a reader should open for `path`: `path` itself, or — for an upstream rete file — a
/// `.rete` of this format built from it with `template`'s options (extensions, levels,
/// progress and its cancel) into `cache_dir`, named after the source's path, size and
/// modification time, so an unchanged source is converted once and a changed one again. The
/// folder is kept within `limit` bytes, least recently used conversions removed first
/// ([`crate::lru`]); a conversion that fails or is cancelled leaves nothing in it.
pub fn readable_path(
    path: &Path,
    template: &BuildOptions,
    cache_dir: &Path,
    limit: u64,
) -> Result<PathBuf, BuildError> {
    match detect(path) {
        Ok(Detected::UpstreamRete { .. }) => {}
        // An upstream format byte that is not read: its own message, not the reader's.
        Err(e @ crate::detect::DetectError::UpstreamVersion { .. }) => {
            return Err(BuildError::Invalid(e.to_string()))
        }
        _ => return Ok(path.to_path_buf()),
    }
    let meta = std::fs::metadata(path).map_err(io(path))?;
    let mut h = Xxh3::new();
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    h.update(canonical.to_string_lossy().as_bytes());
    h.update(&meta.len().to_le_bytes());
    if let Ok(t) = meta.modified() {
        if let Ok(d) = t.duration_since(std::time::UNIX_EPOCH) {
            h.update(&d.as_nanos().to_le_bytes());
        }
    }
    let out = cache_dir.join(format!("{:016x}.rete", h.digest()));
    if out.is_file() {
        crate::lru::touch(&out);
        return Ok(out);
    }
    std::fs::create_dir_all(cache_dir).map_err(io(cache_dir))?;
    let opts = BuildOptions {
        inputs: vec![Input {
            source: crate::Source::Path(path.to_path_buf()),
            syntax: Some(crate::Syntax::UpstreamRete),
            compression: Some(crate::Compression::None),
        }],
        ..template.clone()
    };
    build(&opts, &out)?;
    crate::lru::evict(cache_dir, limit, &out);
    Ok(out)
}

/// Where converted upstream files are kept: `$XDG_CACHE_HOME/rete/upstream`, else
/// `~/.cache/rete/upstream`, else the system temp folder.
pub fn default_cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("rete").join("upstream")
}
