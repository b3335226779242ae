//! Damaged pyramid sections must surface as typed errors, never as panics or wrong answers.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{build_file, social_nt};
use rete_core::writer::{write_file, FileSpec, SectionSpec};
use rete_core::{MemReader, Rete};
use rete_pyramid::{kind, Pyramid, PyramidError, PyramidOptions};
use std::sync::Arc;

/// Reads everything the pyramid offers; returns the first error.
fn read_all(rete: &Rete) -> Result<(), PyramidError> {
    let p = Pyramid::open(rete)?.ok_or_else(|| PyramidError::NotFound("no pyramid".into()))?;
    for l in 0..p.levels() {
        let level = p.level(l)?;
        for c in &level.communities {
            if l > 0 {
                p.children(l, c.id)?;
            } else {
                p.members(c.id)?;
            }
        }
    }
    for id in 1..=rete.term_count() {
        p.community_path(id)?;
    }
    Ok(())
}

fn is_corruption(e: &PyramidError) -> bool {
    matches!(e, PyramidError::Format(rete_core::Error::Corrupt { .. }))
}

fn options() -> PyramidOptions {
    PyramidOptions {
        max_top: 2,
        branching: 2,
        ..PyramidOptions::default()
    }
}

#[test]
fn flipped_bytes_in_every_pyramid_section_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 1000);
    let path = dir.path().join("s.rete");
    let rete = build_file(&nt, &path, Some(options()));
    read_all(&rete).unwrap();
    assert!(Pyramid::open(&rete).unwrap().unwrap().levels() >= 3);
    let bytes = std::fs::read(&path).unwrap();
    for k in [
        kind::TOP,
        kind::DIRECTORY,
        kind::LEVELS,
        kind::MEMBERS,
        kind::MEMBERSHIP,
    ] {
        let e = *rete.section(k, 0).expect("section present");
        assert!(e.len > 0, "section {k} is empty");
        for frac in [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 99] {
            let at = (e.offset + e.len * frac / 100).min(e.offset + e.len - 1) as usize;
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x5a;
            let r = Rete::open(Arc::new(MemReader::new(damaged, "damaged.rete"))).unwrap();
            match read_all(&r) {
                Ok(()) => panic!("byte {at} of section {k} flipped, nothing noticed"),
                Err(err) => assert!(is_corruption(&err), "section {k}: {err}"),
            }
        }
    }
}

/// Rewrites the file keeping only the sections `keep` accepts (same flags).
fn without(path: &std::path::Path, out: &std::path::Path, keep: impl Fn(u16) -> bool) -> Rete {
    let rete = Rete::open_path(path).unwrap();
    let sections: Vec<SectionSpec> = rete
        .sections()
        .iter()
        .filter(|e| keep(e.kind))
        .map(|e| SectionSpec::copy_of(path, e))
        .collect();
    write_file(
        out,
        &FileSpec {
            flags: rete.header().flags,
            quads: rete.header().quads,
            terms: rete.header().terms,
            sections,
        },
    )
    .unwrap();
    Rete::open_path(out).unwrap()
}

#[test]
fn missing_sections_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 600);
    let path = dir.path().join("s.rete");
    build_file(&nt, &path, Some(options()));
    // The header announces a pyramid whose top section is gone.
    let r = without(&path, &dir.path().join("a.rete"), |k| k != kind::TOP);
    assert!(matches!(
        Pyramid::open(&r),
        Err(PyramidError::Format(rete_core::Error::Corrupt { .. }))
    ));
    for missing in [
        kind::DIRECTORY,
        kind::LEVELS,
        kind::MEMBERS,
        kind::MEMBERSHIP,
    ] {
        let r = without(&path, &dir.path().join(format!("m{missing}.rete")), |k| {
            k != missing
        });
        let err = read_all(&r).expect_err("missing section noticed");
        assert!(is_corruption(&err), "{err}");
    }
}
