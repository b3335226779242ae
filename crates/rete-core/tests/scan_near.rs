//! Reading ranges from the block the last scan ended in ([`Rete::scan_keys_near`]) gives the
//! keys a fresh scan gives, whatever the order of the ranges: ranges inside a block, on its
//! edges, across blocks, empty, before the first key and after the last. The leading runs alone
//! ([`Rete::scan_lead_runs`]) count the keys a scan gives.

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

/// Subjects with 1 to 9 links out and in, in blocks of 16 quads: most ranges lie inside a
/// block, many touch or cross an edge.
fn built(dir: &std::path::Path) -> std::path::PathBuf {
    let mut nt = String::new();
    for s in 0..300u32 {
        for k in 0..=(s * 7 % 9) {
            let o = (s * 31 + k * 17) % 300;
            writeln!(nt, "<http://e/{s}> <http://p/{}> <http://e/{o}> .", k % 3).unwrap();
        }
    }
    let file = dir.join("near.rete");
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
    file
}

#[test]
fn near_scans_equal_fresh_scans() {
    let dir = tempfile::tempdir().unwrap();
    let rete = Rete::open_path(built(dir.path())).unwrap();
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

#[test]
fn lead_runs_count_the_keys_of_each_term() {
    let dir = tempfile::tempdir().unwrap();
    let file = built(dir.path());
    // Blocks read one at a time, and in batches.
    for readahead in [1, 1 << 20] {
        let rete = Rete::open_with(
            std::sync::Arc::new(rete_core::FileReader::open(&file).unwrap()),
            rete_core::ReteOptions {
                readahead,
                ..rete_core::ReteOptions::default()
            },
        )
        .unwrap();
        for perm in Perm::ALL {
            let all = keys(&rete, perm, &Pattern::default(), None);
            let want: Vec<(u64, u64)> = all
                .chunk_by(|a, b| a[0] == b[0])
                .map(|r| (r[0][0], r.len() as u64))
                .collect();
            let mut got: Vec<(u64, u64)> = Vec::new();
            let mut blocks = 0;
            rete.scan_lead_runs(perm, |runs| {
                blocks += 1;
                for (id, n) in runs {
                    match got.last_mut() {
                        Some(last) if last.0 == id => last.1 += n,
                        _ => got.push((id, n)),
                    }
                }
                Ok::<bool, rete_core::Error>(true)
            })
            .unwrap();
            assert_eq!(got, want, "{perm:?}");
            assert!(blocks > 10, "{perm:?}: {blocks} blocks");
            // Told to stop, it stops.
            let mut calls = 0;
            rete.scan_lead_runs(perm, |_| {
                calls += 1;
                Ok::<bool, rete_core::Error>(calls < 3)
            })
            .unwrap();
            assert_eq!(calls, 3);
        }
    }
}
