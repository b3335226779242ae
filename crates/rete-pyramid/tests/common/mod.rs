//! Building test files through the real builder.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
#![allow(dead_code)]

use rete_build::{build, BuildOptions, Input};
use rete_core::Rete;
use rete_datagen::social::{write_ntriples, SocialParams};
use rete_pyramid::{Pyramid, PyramidExtension, PyramidOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

/// Builds `input` with a pyramid and opens it.
pub fn pyramid_of(input: &Path, out: &Path, options: PyramidOptions) -> (Rete, Pyramid) {
    let rete = build_file(input, out, Some(options));
    let p = Pyramid::open(&rete).unwrap().expect("pyramid present");
    (rete, p)
}
