//! Adding the search index to a file built without one (`rete build --no-search`, older and
//! upstream files) or replacing an older index, without building the file again: every other
//! section is copied as stored, the index is built from the file's data as `rete build` would.

use crate::build::build_sections_with;
use crate::codec::kind;
use crate::{BuildStats, SearchError, SearchOptions, FLAG_SEARCH};
use rete_build::{NoProgress, Progress};
use rete_core::format::kind as core_kind;
use rete_core::writer::{write_file, FileSpec, SectionSpec};
use rete_core::Rete;
use std::path::Path;

/// Writes to `out` the file at `src` with a search index built with `opts` (replacing any index
/// it has). `out` is written beside its place and renamed onto it: a failure leaves it as it was.
/// `out` must not be `src`, whose sections are copied while `out` is written.
pub fn add_index(src: &Path, out: &Path, opts: &SearchOptions) -> Result<BuildStats, SearchError> {
    add_index_with(src, out, opts, &NoProgress)
}

/// [`add_index`] reporting the index build's phases (see [`crate::build_sections_with`]), then
/// `write` (the copy of the file with its new index), to `progress`; when `progress.cancelled()`
/// turns true it stops with [`SearchError::Cancelled`] before writing anything to `out`.
pub fn add_index_with(
    src: &Path,
    out: &Path,
    opts: &SearchOptions,
    progress: &dyn Progress,
) -> Result<BuildStats, SearchError> {
    if std::fs::canonicalize(src).ok() == std::fs::canonicalize(out).ok() && out.exists() {
        return Err(SearchError::Options(format!(
            "{}: the output must be another file than the input",
            out.display()
        )));
    }
    let rete = Rete::open_path(src)?;
    let (index, stats) = build_sections_with(&rete, opts, progress)?;
    progress.start("write", None);
    if progress.cancelled() {
        return Err(SearchError::Cancelled);
    }
    // The layout of a build: the index after the small sections, before the dictionary and
    // permutation blocks, so that it stays near the head a remote reader fetches first.
    let big = |k: u16| k == core_kind::DICT_BLOCKS || k == core_kind::PERM_BLOCKS;
    let mut sections: Vec<SectionSpec> = Vec::with_capacity(rete.sections().len() + index.len());
    let mut index = Some(index);
    for e in rete.sections() {
        if (kind::META..=kind::DOC_DIR).contains(&e.kind) {
            continue;
        }
        if big(e.kind) {
            if let Some(ix) = index.take() {
                sections.extend(ix);
            }
        }
        sections.push(SectionSpec::copy_of(src, e));
    }
    sections.extend(index.into_iter().flatten());
    let h = rete.header();
    write_file(
        out,
        &FileSpec {
            flags: h.flags | FLAG_SEARCH,
            quads: h.quads,
            terms: h.terms,
            sections,
        },
    )?;
    progress.finish();
    Ok(stats)
}
