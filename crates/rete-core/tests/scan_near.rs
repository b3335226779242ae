//! Reading ranges from the block the last scan ended in ([`Rete::scan_keys_near`]) gives the
//! keys a fresh scan gives, whatever the order of the ranges: ranges inside a block, on its
//! edges, across blocks, empty, before the first key and after the last.

#![allow(clippy::unwrap_used, reason = "test code")]

use rete_core::{IdQuad, NearBlocks, Pattern, Perm, Rete};
use std::fmt::Write;

fn keys(rete: &Rete, perm: Perm, pattern: &Pattern, near: Option<&mut NearBlocks>) -> Vec<IdQuad> {
    let mut out = Vec::new();
    let mut take = |keys: &[IdQuad]| {
        out.extend_from_slice(keys);
        Ok::<bool, rete_core::Error>(true)
    };
    match near {
        Some(near) => rete.scan_keys_near(perm, pattern, near, &mut take),
        None => rete.scan_keys(perm, pattern, &mut take),
    }
    .unwrap();
    out
}

#[test]
fn near_scans_equal_fresh_scans() {
    // Subjects with 1 to 9 links out and in, in blocks of 16 quads: most ranges lie inside a
    // block, many touch or cross an edge.
    let mut nt = String::new();
    for s in 0..300u32 {
        for k in 0..=(s * 7 % 9) {
            let o = (s * 31 + k * 17) % 300;
            writeln!(nt, "<http://e/{s}> <http://p/{}> <http://e/{o}> .", k % 3).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("near.rete");
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "near.nt",
                nt.into_bytes(),
                rete_build::Syntax::NTriples,
            )],
            perm_block_quads: 16,
            ..Default::default()
        },
        &file,
    )
    .unwrap();
    let rete = Rete::open_path(&file).unwrap();
    let last = rete.term_count() + 2;
    // Ids in order, backwards, and jumping about; the id past the last term and 0 included.
    let mut ids: Vec<u64> = (0..last).collect();
    ids.extend((0..last).rev());
    ids.extend((0..last).map(|i| i * 7919 % last));
    let mut near = NearBlocks::default();
    let mut inside = 0;
    for &id in &ids {
        for (perm, pattern) in [
            (Perm::Spo, Pattern::new(Some(id), None, None)),
            (Perm::Osp, Pattern::new(None, None, Some(id))),
            (Perm::Sop, Pattern::new(Some(id), None, Some(id % 5 + 1))),
        ] {
            let fresh = keys(&rete, perm, &pattern, None);
            assert_eq!(
                keys(&rete, perm, &pattern, Some(&mut near)),
                fresh,
                "{perm:?} {id}"
            );
            inside += usize::from(!fresh.is_empty());
        }
    }
    assert!(inside > ids.len(), "too few ranges with keys: {inside}");
}
