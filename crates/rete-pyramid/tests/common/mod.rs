//! Building test files through the real builder.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
#![allow(dead_code)]

use rete_build::{build, BuildOptions, Input};
use rete_core::Rete;
use rete_datagen::social::{write_ntriples, SocialParams};
use rete_pyramid::{Pyramid, PyramidExtension, PyramidOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tempfile::TempDir;

/// Writes the social graph with `people` people as N-Triples into `dir`.
pub fn social_nt(dir: &Path, people: u64) -> PathBuf {
    let nt = dir.join(format!("social-{people}.nt"));
    let mut f = std::fs::File::create(&nt).unwrap();
    let params = SocialParams {
        people,
        ..SocialParams::default()
    };
    write_ntriples(&params, &mut f).unwrap();
    nt
}

/// Writes LUBM with `universities` universities and its ontology as N-Triples into `dir`.
pub fn lubm_nt(dir: &Path, universities: u32) -> PathBuf {
    use rete_datagen::lubm;
    let nt = dir.join(format!("lubm-{universities}.nt"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&nt).unwrap());
    lubm::write_ontology(&mut f).unwrap();
    let params = lubm::LubmParams {
        universities,
        ..lubm::LubmParams::default()
    };
    lubm::write_ntriples(&params, &mut f).unwrap();
    std::io::Write::flush(&mut f).unwrap();
    nt
}

/// Writes [`rete_datagen::cliques`] (`groups` groups of `cliques` 4-cliques) as N-Triples into
/// `dir`: Louvain's first pass finds the cliques, its second the groups, a jump like LUBM's.
pub fn groups_of_cliques_nt(dir: &Path, groups: u32, cliques: u32) -> PathBuf {
    let nt = dir.join(format!("groups-{groups}x{cliques}.nt"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&nt).unwrap());
    rete_datagen::cliques::write_ntriples(groups, cliques, &mut f).unwrap();
    std::io::Write::flush(&mut f).unwrap();
    nt
}

/// Builds `input` into `out`, with a pyramid if `options` is given.
pub fn build_file(input: &Path, out: &Path, options: Option<PyramidOptions>) -> Rete {
    let opts = BuildOptions {
        inputs: vec![Input::path(input)],
        extensions: match options {
            Some(options) => vec![Arc::new(PyramidExtension { options })],
            None => Vec::new(),
        },
        ..BuildOptions::default()
    };
    build(&opts, out).unwrap();
    Rete::open_path(out).unwrap()
}

/// The pyramid of a generated social graph of `people` (`social_nt`), built into a new
/// temporary folder, which is returned with it (the files live there).
pub fn social_pyramid(people: u64, options: PyramidOptions) -> (TempDir, Rete, Pyramid) {
    let dir = tempfile::tempdir().unwrap();
    let (rete, p) = pyramid_of(
        &social_nt(dir.path(), people),
        &dir.path().join("s.rete"),
        options,
    );
    (dir, rete, p)
}

/// Builds `input` with a pyramid and opens it.
pub fn pyramid_of(input: &Path, out: &Path, options: PyramidOptions) -> (Rete, Pyramid) {
    let rete = build_file(input, out, Some(options));
    let p = Pyramid::open(&rete).unwrap().expect("pyramid present");
    (rete, p)
}
