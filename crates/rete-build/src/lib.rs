#![doc = include_str!("../README.md")]

mod depth;
mod detect;
mod entities;
mod error;
mod extdict;
mod files;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod input;
mod lenient;
mod lines;
pub mod lru;
mod options;
mod parts;
mod permutations;
pub use depth::MAX_JSON_DEPTH;
pub use entities::{ENTITY_EXPANSION_FLOOR, MAX_ENTITY_LEN};
mod rss;
mod sort;
mod spill;
mod syntax;
mod termsort;

pub use detect::{detect, DetectError, Detected};
pub use error::BuildError;
pub use files::{default_cache_dir, dir_inputs, readable_path};
pub use input::{Input, ParseSummary, Source};
pub use options::{BuildOptions, BuildReport, NoProgress, Progress};
pub use syntax::{Compression, Syntax};

use options::check_cancel;
use parts::{build_parts, BuildInfoExtra, Parts};
use rete_core::format::{kind, FLAG_MATERIALIZED};
use rete_core::writer::{write_file, FileSpec, SectionSpec};
use rete_core::Rete;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

// The extension points live on the writer side of rete-core, so the crates implementing them
// need not depend on this one; re-exported so callers keep compiling.
pub use rete_core::extension::{BoxError, Extension, ExtensionOutput, Inference};

/// Builds `out` from `opts.inputs`. Writes a temp file next to `out` and renames it at the end,
/// so an error leaves any existing `out` untouched.
pub fn build(opts: &BuildOptions, out: &Path) -> Result<BuildReport, BuildError> {
    if opts.inputs.is_empty() {
        return Err(BuildError::Invalid("no input given".into()));
    }
    let tmp_parent = match &opts.temp_dir {
        Some(d) => d.clone(),
        None => match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    let tmp = tempfile::Builder::new()
        .prefix(".rete-build-")
        .tempdir_in(&tmp_parent)
        .map_err(|e| BuildError::Io {
            path: tmp_parent.display().to_string(),
            source: e,
        })?;
    build_in(opts, out, &tmp).map_err(|e| naming_output(e, tmp.path(), out))
}

/// An error about a file of the build's temporary folder (removed by then) names the output it
/// was for, then that file: I/O errors, the format layer's errors (a part read back), and the
/// message of an extension's error (whose type this crate does not know: the output's name put
/// before it, the error kept as the source).
fn naming_output(e: BuildError, tmp: &Path, out: &Path) -> BuildError {
    let tmp_text = tmp.display().to_string();
    let rename = |path: String| {
        if Path::new(&path).starts_with(tmp) {
            format!("{} (the build's temporary file {path})", out.display())
        } else {
            path
        }
    };
    match e {
        BuildError::Io { path, source } => BuildError::Io {
            path: rename(path),
            source,
        },
        BuildError::Format(mut f) => {
            use rete_core::Error as E;
            match &mut f {
                E::Io { path, .. }
                | E::Range(rete_core::RangeError {
                    source_name: path, ..
                }) => {
                    *path = rename(std::mem::take(path));
                }
                E::NotRete { file, .. }
                | E::UnsupportedVersion { file, .. }
                | E::Corrupt { file, .. } => {
                    *file = rename(std::mem::take(file));
                }
                _ => {}
            }
            BuildError::Format(f)
        }
        BuildError::Extension { name, source } if source.to_string().contains(&tmp_text) => {
            let message = format!("{}: {source}", out.display());
            BuildError::Extension {
                name,
                source: Box::new(Renamed { message, source }),
            }
        }
        e => e,
    }
}

/// An extension's error about a temporary file, its message led by the output's name.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct Renamed {
    message: String,
    #[source]
    source: BoxError,
}

/// [`build`] with its temporary folder made.
fn build_in(
    opts: &BuildOptions,
    out: &Path,
    tmp: &tempfile::TempDir,
) -> Result<BuildReport, BuildError> {
    let mut report = BuildReport::default();
    let rss = rss::RssSampler::start();
    let mut inputs = opts.inputs.clone();
    // stdin can be read once only; materialization parses inputs twice.
    if opts.inference.is_some() {
        for (i, input) in inputs.iter_mut().enumerate() {
            if matches!(input.source, Source::Stdin) {
                let path = tmp.path().join(format!("stdin-{i}"));
                let mut f = File::create(&path).map_err(|e| BuildError::Io {
                    path: path.display().to_string(),
                    source: e,
                })?;
                std::io::copy(&mut std::io::stdin(), &mut f).map_err(|e| BuildError::Io {
                    path: "-".into(),
                    source: e,
                })?;
                let syntax = Some(input.resolve()?.0);
                *input = Input {
                    source: Source::StdinCopy(path),
                    syntax,
                    compression: input.compression,
                };
            }
        }
    }
    let work = tmp.path().join("base");
    std::fs::create_dir(&work).map_err(|e| BuildError::Io {
        path: work.display().to_string(),
        source: e,
    })?;
    let mut parts = build_parts(
        opts,
        &inputs,
        &[],
        &work,
        &mut report,
        &rss,
        BuildInfoExtra::default(),
    )?;
    if let Some(inf) = &opts.inference {
        let t = Instant::now();
        let base_path = tmp.path().join("base.rete");
        write_parts(&base_path, &parts, Vec::new(), 0)?;
        let base = Rete::open_path(&base_path)?;
        check_cancel(opts.progress.as_ref())?;
        opts.progress
            .start(&format!("inference ({})", inf.name()), None);
        let inferred = inf.infer(&base).map_err(|e| BuildError::Extension {
            name: inf.name().to_owned(),
            source: e,
        })?;
        opts.progress.finish();
        check_cancel(opts.progress.as_ref())?;
        let before = parts.quads;
        drop(base);
        report
            .phases
            .push(("inference".into(), t.elapsed().as_secs_f64() * 1e3));
        report.peak_rss.push(("inference".into(), rss.take()));
        let work2 = tmp.path().join("materialized");
        std::fs::create_dir(&work2).map_err(|e| BuildError::Io {
            path: work2.display().to_string(),
            source: e,
        })?;
        let mut r2 = BuildReport::default();
        let extra = BuildInfoExtra {
            materialized: true,
            base_quads: Some(before),
        };
        parts = build_parts(opts, &inputs, &inferred, &work2, &mut r2, &rss, extra)?;
        parts.flags |= FLAG_MATERIALIZED;
        report.inferred_quads = parts.quads - before;
        report.spilled_runs += r2.spilled_runs;
        report.dictionary_runs += r2.dictionary_runs;
        report.quad_runs += r2.quad_runs;
        report.permutation_runs += r2.permutation_runs;
        report.peak_spill_bytes = report.peak_spill_bytes.max(r2.peak_spill_bytes);
        report.spill_bytes.extend(
            r2.spill_bytes
                .into_iter()
                .map(|(n, b)| (format!("{n} (materialized)"), b)),
        );
        report.phases.extend(
            r2.phases
                .into_iter()
                .map(|(n, t)| (format!("{n} (materialized)"), t)),
        );
        report.peak_rss.extend(
            r2.peak_rss
                .into_iter()
                .map(|(n, b)| (format!("{n} (materialized)"), b)),
        );
    }
    let mut extra_sections = Vec::new();
    let mut flags = 0;
    if !opts.extensions.is_empty() {
        let prov = tmp.path().join("provisional.rete");
        write_parts(&prov, &parts, Vec::new(), 0)?;
        // Extensions scan whole permutations, which a cache does not speed up: keep the
        // reader's block cache a small share of the memory budget (it counts in their peak);
        // below 64 MiB the read-ahead of the scans running side by side thrashes it.
        let base = Rete::open_with(
            Arc::new(rete_core::FileReader::open(&prov).map_err(rete_core::Error::from)?),
            rete_core::ReteOptions {
                cache_bytes: (opts.memory_budget / 16).clamp(64 << 20, 128 << 20),
                ..rete_core::ReteOptions::default()
            },
        )?;
        // The provisional file's writing is no extension's: each extension's peak starts here.
        rss.take();
        for ext in &opts.extensions {
            let t = Instant::now();
            check_cancel(opts.progress.as_ref())?;
            opts.progress.start(ext.name(), None);
            let out = ext
                .sections_with_steps(&base)
                .map_err(|e| BuildError::Extension {
                    name: ext.name().to_owned(),
                    source: e,
                })?;
            let secs = out.sections;
            report.steps.extend(
                out.steps
                    .into_iter()
                    .map(|(step, ms)| (format!("{}/{step}", ext.name()), ms)),
            );
            opts.progress.finish();
            check_cancel(opts.progress.as_ref())?;
            for s in &secs {
                if s.kind <= kind::CARD {
                    return Err(BuildError::Invalid(format!(
                        "extension {} returned reserved section kind {}",
                        ext.name(),
                        s.kind
                    )));
                }
            }
            extra_sections.extend(secs);
            flags |= ext.flags();
            report
                .phases
                .push((ext.name().to_owned(), t.elapsed().as_secs_f64() * 1e3));
            report.peak_rss.push((ext.name().to_owned(), rss.take()));
        }
    }
    let t = Instant::now();
    check_cancel(opts.progress.as_ref())?;
    opts.progress.start("write", None);
    write_parts(out, &parts, extra_sections, flags)?;
    opts.progress.finish();
    report
        .phases
        .push(("write".into(), t.elapsed().as_secs_f64() * 1e3));
    report.peak_rss.push(("write".into(), rss.take()));
    report.quads = parts.quads;
    report.terms = parts.terms;
    report.file_bytes = std::fs::metadata(out)
        .map_err(|e| BuildError::Io {
            path: out.display().to_string(),
            source: e,
        })?
        .len();
    Ok(report)
}

/// Lays out the file: header and directory, schema sections (read together with the header),
/// card, block directories (read together at first use), other extension sections, then blocks.
fn write_parts(
    out: &Path,
    parts: &Parts,
    extra: Vec<SectionSpec>,
    flags: u32,
) -> Result<(), BuildError> {
    let copy = |s: &SectionSpec| SectionSpec {
        kind: s.kind,
        index: s.index,
        codec: s.codec,
        raw_len: s.raw_len,
        payload: match &s.payload {
            rete_core::writer::Payload::Bytes(b) => rete_core::writer::Payload::Bytes(b.clone()),
            rete_core::writer::Payload::File(p) => rete_core::writer::Payload::File(p.clone()),
            rete_core::writer::Payload::Copy { path, offset, len } => {
                rete_core::writer::Payload::Copy {
                    path: path.clone(),
                    offset: *offset,
                    len: *len,
                }
            }
        },
    };
    let (schema, other): (Vec<_>, Vec<_>) = extra
        .into_iter()
        .partition(|s| (kind::SCHEMA_FIRST..=kind::SCHEMA_LAST).contains(&s.kind));
    let mut sections: Vec<SectionSpec> = schema;
    sections.extend(parts.sections.iter().map(copy));
    sections.extend(other);
    sections.extend(parts.blocks.iter().map(copy));
    write_file(
        out,
        &FileSpec {
            flags: parts.flags | flags,
            quads: parts.quads,
            terms: parts.terms,
            sections,
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    /// Every error that names a file of the temporary folder names the output first.
    #[test]
    fn errors_about_temporary_files_name_the_output() {
        let tmp = Path::new("/data/.rete-build-abc");
        let out = Path::new("/data/out.rete");
        let part = "/data/.rete-build-abc/parts.rete";
        let named = |e: BuildError| naming_output(e, tmp, out).to_string();
        let want = "/data/out.rete (the build's temporary file /data/.rete-build-abc/parts.rete)";
        let corrupt = rete_core::Error::Corrupt {
            file: part.into(),
            section: "dictionary".into(),
            message: "bad block".into(),
        };
        assert!(named(BuildError::Format(corrupt)).starts_with(want));
        let range = rete_core::RangeError::new(part, "short read");
        assert!(named(BuildError::Format(rete_core::Error::Range(range))).starts_with(want));
        let io = BuildError::Io {
            path: part.into(),
            source: std::io::Error::other("disk full"),
        };
        assert!(named(io).starts_with(want));
        let ext = BuildError::Extension {
            name: "pyramid".into(),
            source: format!("{part}: corrupt members").into(),
        };
        let e = naming_output(ext, tmp, out);
        assert_eq!(
            e.to_string(),
            "pyramid: /data/out.rete: /data/.rete-build-abc/parts.rete: corrupt members"
        );
        let source = std::error::Error::source(&e).unwrap();
        assert!(
            std::error::Error::source(source).is_some(),
            "the original error is kept"
        );
        // Errors about other files are left as they are.
        let other = BuildError::Format(rete_core::Error::Corrupt {
            file: "/x.rete".into(),
            section: "header".into(),
            message: "bad".into(),
        });
        assert_eq!(named(other), "/x.rete: corrupt header: bad");
    }
}
