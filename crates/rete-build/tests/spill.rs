//! A tiny memory budget spills every phase of the base build (dictionary runs, quad chunks,
//! permutation runs) and still gives the very same file as the default budget.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use rete_build::{build, BuildOptions, BuildReport, Input, Syntax};
use rete_core::{Pattern, Rete};
use std::fmt::Write;
use std::path::Path;

/// Subjects of the generated data; five quads each.
const ITEMS: u64 = 80_000;

/// 400,000 quads with many distinct terms (IRIs, language-tagged and typed literals, blank
/// nodes) and many repeated across chunks (classes, predicates, graphs, link targets, notes),
/// some in named graphs: two term chunks at 32 MB, more at 8 MB.
fn nquads() -> Vec<u8> {
    let mut s = String::new();
    for i in 0..ITEMS {
        let item = format!("<http://example.org/item/{i}>");
        let graph = match i % 4 {
            0 => String::new(),
            g => format!(" <http://example.org/graph/{g}>"),
        };
        writeln!(
            s,
            "{item} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Class{}>{graph} .",
            i % 50
        )
        .unwrap();
        writeln!(
            s,
            "{item} <http://example.org/label> \"Item number {i}\"@en ."
        )
        .unwrap();
        writeln!(
            s,
            "{item} <http://example.org/value> \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer>{graph} .",
            i * 7
        )
        .unwrap();
        writeln!(
            s,
            "{item} <http://example.org/link> <http://example.org/item/{}> .",
            (i * 31 + 7) % ITEMS
        )
        .unwrap();
        writeln!(
            s,
            "_:b{i} <http://example.org/note> \"note {}\" .",
            i % 1000
        )
        .unwrap();
    }
    s.into_bytes()
}

fn build_with(nt: &[u8], dir: &Path, budget: usize) -> (Vec<u8>, BuildReport) {
    let tmp = dir.join(format!("tmp-{budget}"));
    std::fs::create_dir(&tmp).unwrap();
    let out = dir.join(format!("out-{budget}.rete"));
    let opts = BuildOptions {
        inputs: vec![Input::bytes("data.nq", nt.to_vec(), Syntax::NQuads)],
        memory_budget: budget,
        temp_dir: Some(tmp.clone()),
        zstd_level: 1,
        ..BuildOptions::default()
    };
    let report = build(&opts, &out).unwrap();
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "temp files left: {left:?}");
    (std::fs::read(&out).unwrap(), report)
}

fn spilled(report: &BuildReport, phase: &str) -> u64 {
    report
        .spill_bytes
        .iter()
        .find(|(p, _)| p == phase)
        .unwrap_or_else(|| panic!("no spill entry for {phase}: {:?}", report.spill_bytes))
        .1
}

/// Every phase spilled; with `merged`, some permutation took several runs (merged when
/// written).
fn assert_spilled_everywhere(r: &BuildReport, budget: usize, merged: bool) {
    let what = format!("{budget} bytes: {r:?}");
    assert!(r.dictionary_runs > 1, "dictionary runs, {what}");
    // Each term chunk's quads end with a part of their own; parts also spill within a chunk.
    assert!(r.quad_runs >= r.dictionary_runs, "{what}");
    // Past the budget no permutation stays in memory: at least one run each.
    assert!(r.permutation_runs >= 6, "permutation runs, {what}");
    if merged {
        assert!(r.permutation_runs > 6, "several runs to merge, {what}");
    }
    for phase in ["parse", "dictionary", "sort"] {
        assert!(spilled(r, phase) > 0, "{phase} wrote no spill, {what}");
    }
    // The permutations phase reads the sort runs; it writes only the output.
    assert_eq!(spilled(r, "permutations"), 0, "{what}");
    assert!(r.peak_spill_bytes > 0, "{what}");
    assert!(
        r.peak_spill_bytes <= r.spill_bytes.iter().map(|s| s.1).sum::<u64>(),
        "{what}"
    );
    assert_eq!(
        r.spilled_runs,
        r.dictionary_runs + r.quad_runs + r.permutation_runs,
        "{what}"
    );
}

#[test]
fn tiny_budgets_spill_every_phase_and_give_the_same_file() {
    let nq = nquads();
    let dir = tempfile::tempdir().unwrap();
    let (reference, r) = build_with(&nq, dir.path(), BuildOptions::default().memory_budget);
    assert_eq!(r.quads, 5 * ITEMS);
    // The card's named counts come from terms read back from the dictionary.
    let rete = Rete::open_path(dir.path().join(format!("out-{}.rete", 2usize << 30))).unwrap();
    // Its 8 MB of terms share a trained zstd dictionary: the same bytes whatever spilled.
    assert!(rete
        .section(rete_core::format::kind::DICT_ZSTD, 0)
        .is_some());
    let card = rete.card().unwrap();
    assert_eq!(card.graphs.len(), 3);
    assert_eq!(card.classes.len(), 50);
    assert_eq!(card.predicates.len(), 5);
    assert_eq!(card.classes[0].term, "<http://example.org/Class0>");
    assert_eq!(card.classes[0].count, ITEMS / 50);
    assert_eq!(
        rete.count(&Pattern::default()).unwrap(),
        5 * ITEMS,
        "every quad is there"
    );
    assert_eq!(r.spilled_runs, 0, "{r:?}");
    assert_eq!(r.peak_spill_bytes, 0, "{r:?}");
    assert!(r.spill_bytes.iter().all(|s| s.1 == 0), "{r:?}");
    // The six permutations' packed keys (8 bytes each, 19.2 MB here) stay in memory when they
    // fit half the budget, and so do the terms when they fit their share: at 44 MiB only the
    // quads spill (in parts, while parsing). At 32 MiB the terms spill too, and the six
    // permutations no longer fit together but one does: they are sorted and written one at a
    // time, and none spills. At 6 and 2 MiB every phase spills, and a permutation takes several
    // runs (the runs share half the budget between the permutations sorted side by side).
    let (file, report) = build_with(&nq, dir.path(), 44 << 20);
    assert_eq!(report.dictionary_runs, 0, "{report:?}");
    assert!(report.quad_runs >= 1, "{report:?}");
    assert!(spilled(&report, "parse") > 0, "{report:?}");
    assert_eq!(report.permutation_runs, 0, "{report:?}");
    assert!(!report.permutations_one_at_a_time, "{report:?}");
    assert!(
        file == reference,
        "the 44 MiB build differs from the default one"
    );
    let (file, report) = build_with(&nq, dir.path(), 32 << 20);
    assert!(report.dictionary_runs > 1, "{report:?}");
    assert!(report.permutations_one_at_a_time, "{report:?}");
    assert_eq!(report.permutation_runs, 0, "{report:?}");
    assert_eq!(spilled(&report, "sort"), 0, "{report:?}");
    assert!(
        file == reference,
        "the 32 MiB build (one permutation at a time) differs from the default one"
    );
    for budget in [6 << 20, 2 << 20] {
        let (file, report) = build_with(&nq, dir.path(), budget);
        assert_spilled_everywhere(&report, budget, true);
        assert!(!report.permutations_one_at_a_time, "{report:?}");
        assert_eq!(report.quads, r.quads);
        assert_eq!(report.terms, r.terms);
        assert!(
            file == reference,
            "the {budget}-byte build differs from the default one"
        );
    }
}
