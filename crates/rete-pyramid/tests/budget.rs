//! Under a tiny memory budget the pyramid reads its entities' terms and labels back from a
//! temporary file and replays Louvain's streamed links from another: the member blocks and the
//! community labels are the ones the in-memory path gives, and every member's term, label and
//! class are the dictionary's.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::{build_file, groups_of_cliques_nt, pyramid_of, social_nt};
use rete_core::writer::Payload;
use rete_core::Rete;
use rete_pyramid::{Member, Pyramid, PyramidOptions};
use std::collections::BTreeMap;
use std::path::Path;

fn tiny() -> PyramidOptions {
    PyramidOptions {
        memory_budget: 1 << 10,
        ..PyramidOptions::default()
    }
}

/// Members on the sunflower: what a streamed build gives (positions by links need the entity
/// graph held, docs/semantic-zoom.md), so the held build to compare it with.
fn sunflower(options: &PyramidOptions) -> PyramidOptions {
    PyramidOptions {
        member_rounds: 0,
        ..options.clone()
    }
}

/// Every level's communities (labels in every language, sizes, classes, circles) and the members
/// of every level-0 community.
fn everything(p: &Pyramid) -> (Vec<rete_pyramid::Level>, Vec<Vec<Member>>) {
    let levels: Vec<_> = (0..p.levels()).map(|l| p.level(l).unwrap()).collect();
    let members = levels[0]
        .communities
        .iter()
        .map(|c| p.members(c.id).unwrap())
        .collect();
    (levels, members)
}

/// Each member by id: its term, label and class, checked against the dictionary.
fn members_by_id(rete: &Rete, members: &[Vec<Member>]) -> BTreeMap<u64, (String, Option<String>)> {
    let mut out = BTreeMap::new();
    for m in members.iter().flatten() {
        assert_eq!(
            m.term,
            rete.term(m.id).unwrap().to_string(),
            "term of {}",
            m.id
        );
        assert!(out
            .insert(m.id, (m.term.clone(), m.label.clone()))
            .is_none());
    }
    out
}

/// `same_partition`: the streamed first pass runs the in-memory local moving (same order, pruning
/// and stopping rule), so every block must be the same.
fn same_as_in_memory(input: &Path, dir: &Path, same_partition: bool) {
    let (held_rete, held) = pyramid_of(
        input,
        &dir.join("held.rete"),
        sunflower(&PyramidOptions::default()),
    );
    let (tiny_rete, streamed) = pyramid_of(input, &dir.join("tiny.rete"), tiny());
    let (held_levels, held_members) = everything(&held);
    let (tiny_levels, tiny_members) = everything(&streamed);
    // Same entities with the same terms and labels, whatever the grouping.
    let a = members_by_id(&held_rete, &held_members);
    let b = members_by_id(&tiny_rete, &tiny_members);
    assert_eq!(a.len() as u64, held.entity_count());
    assert_eq!(a, b);
    assert!(a.values().any(|(_, label)| label.is_some()));
    assert!(streamed.entity_count() == held.entity_count());
    // The tiny budget did stream the first pass.
    let (_, stats) = rete_pyramid::build_sections(&held_rete, &tiny()).unwrap();
    assert!(stats.streamed_sweeps >= 1, "{stats:?}");
    if same_partition {
        assert!(tiny_levels == held_levels, "levels differ");
        assert!(tiny_members == held_members, "member blocks differ");
    }
}

#[test]
fn tiny_budget_gives_the_in_memory_members_and_labels_multilingual() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/multilingual.ttl"
    ));
    same_as_in_memory(fixture, dir.path(), true);
}

#[test]
fn tiny_budget_gives_the_in_memory_members_and_labels_social() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 2000);
    same_as_in_memory(&nt, dir.path(), true);
}

/// The pyramid's sections as stored, built on `threads` rayon threads.
fn section_bytes(base: &Rete, opts: &PyramidOptions, threads: usize) -> Vec<(u16, Vec<u8>)> {
    section_bytes_held(base, opts, threads).0
}

/// [`section_bytes`], and whether the graph was held (not streamed).
fn section_bytes_held(
    base: &Rete,
    opts: &PyramidOptions,
    threads: usize,
) -> (Vec<(u16, Vec<u8>)>, bool) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let (sections, stats) = pool.install(|| rete_pyramid::build_sections(base, opts).unwrap());
    let sections = sections
        .into_iter()
        .map(|s| match s.payload {
            Payload::Bytes(b) => (s.kind, b),
            _ => panic!("section {} not in memory", s.kind),
        })
        .collect();
    (sections, stats.streamed_sweeps == 0)
}

/// The graph held in memory (one entry per triple) and the streamed first pass give the same
/// bytes (members on the sunflower: a streamed build places none by links), and so do one and two
/// threads on either path, with positions by links when held.
fn same_bytes(base: &Rete) {
    same_bytes_with(base, &PyramidOptions::default());
}

/// [`same_bytes`] with other options than the budget (members placed by their links).
fn same_bytes_with(base: &Rete, options: &PyramidOptions) {
    let options = &PyramidOptions {
        member_rounds: rete_pyramid::MEMBER_LAYOUT_ROUNDS,
        ..options.clone()
    };
    let with_budget = |memory_budget| PyramidOptions {
        memory_budget,
        ..options.clone()
    };
    let linked = section_bytes(base, options, 1);
    assert_eq!(
        linked,
        section_bytes(base, options, 2),
        "1 and 2 threads differ"
    );
    let held = section_bytes(base, &sunflower(options), 1);
    assert_eq!(held.len(), 5);
    // Only the member blocks (and the directory, which gives their lengths) differ.
    assert!(linked[3] != held[3]);
    assert!(linked[0] == held[0] && linked[2] == held[2] && linked[4] == held[4]);
    for (opts, threads) in [
        (sunflower(options), 2),
        (with_budget(1 << 10), 1),
        (with_budget(1 << 10), 2),
        // Only the coarse graph's sums are bounded: more, shorter reads of the spill.
        (with_budget(64 << 10), 2),
    ] {
        let (other, was_held) = section_bytes_held(base, &opts, threads);
        // A budget that still holds the graph places members by links.
        let same = if was_held && opts.member_rounds > 0 {
            &linked
        } else {
            &held
        };
        for (a, b) in same.iter().zip(&other) {
            assert!(
                a == b,
                "section {} differs (budget {}, {threads} threads)",
                a.0,
                opts.memory_budget
            );
        }
        assert_eq!(held.len(), other.len());
    }
    let (_, stats) = rete_pyramid::build_sections(base, &with_budget(1 << 10)).unwrap();
    assert!(stats.streamed_sweeps >= 1, "{stats:?}");
}

#[test]
fn held_and_streamed_and_thread_counts_give_the_same_bytes_social() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 3000);
    let base = build_file(&nt, &dir.path().join("base.rete"), None);
    same_bytes(&base);
}

/// The bound on level 0's mean community size stops the streamed path's later passes where it
/// stops the held path's.
#[test]
fn held_and_streamed_give_the_same_bytes_with_a_bounded_level_0() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 3000);
    let base = build_file(&nt, &dir.path().join("base.rete"), None);
    let bounded = PyramidOptions {
        mean_members: 40,
        ..PyramidOptions::default()
    };
    let (_, free) = rete_pyramid::build_sections(&base, &PyramidOptions::default()).unwrap();
    let (_, stats) = rete_pyramid::build_sections(&base, &bounded).unwrap();
    // The bound applies here: level 0 is an earlier pass than the converged one.
    assert!(
        stats.levels[0].communities > free.levels[0].communities,
        "{stats:?}"
    );
    same_bytes_with(&base, &bounded);
}

/// Where level 0 takes a pass past the bound (as on LUBM, whose second pass jumps from ~5
/// entities a community to ~1,100), the streamed path takes it too.
#[test]
fn held_and_streamed_give_the_same_bytes_when_level_0_takes_a_pass_past_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let nt = groups_of_cliques_nt(dir.path(), 30, 10);
    let base = build_file(&nt, &dir.path().join("base.rete"), None);
    // 1,200 entities: a floor of 32 communities, between the cliques (300) and the groups (30),
    // nearer the groups.
    let bounded = PyramidOptions {
        mean_members: 38,
        ..PyramidOptions::default()
    };
    let (_, stats) = rete_pyramid::build_sections(&base, &bounded).unwrap();
    assert_eq!(stats.levels[0].communities, 30, "{stats:?}");
    same_bytes_with(&base, &bounded);
}

#[test]
fn held_and_streamed_and_thread_counts_give_the_same_bytes_multilingual() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/multilingual.ttl"
    ));
    let base = build_file(fixture, &dir.path().join("base.rete"), None);
    same_bytes(&base);
}

/// The temporary files go to `temp_dir` and are gone once the sections are built.
#[test]
fn temporary_files_stay_in_temp_dir_and_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(dir.path(), 1000);
    let base = build_file(&nt, &dir.path().join("base.rete"), None);
    let scratch = tempfile::tempdir().unwrap();
    let opts = PyramidOptions {
        temp_dir: Some(scratch.path().to_path_buf()),
        ..tiny()
    };
    let (sections, stats) = rete_pyramid::build_sections(&base, &opts).unwrap();
    assert!(stats.streamed_sweeps >= 1);
    assert!(!sections.is_empty());
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    // A temporary directory that does not exist is a clear error, not a panic.
    let bad = PyramidOptions {
        temp_dir: Some(dir.path().join("missing")),
        ..tiny()
    };
    let err = rete_pyramid::build_sections(&base, &bad).unwrap_err();
    assert!(err.to_string().contains("temporary"), "{err}");
}
