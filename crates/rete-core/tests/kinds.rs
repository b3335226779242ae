//! Where each kind of term begins in the dictionary ([`Rete::first_of_kind`], found from the
//! directory and one block) agrees with the kinds of the terms read one by one: kinds present
//! and absent, an empty literal (whose encoding is its tag alone), a dictionary of many blocks.

#![allow(clippy::unwrap_used, reason = "test code")]

use rete_core::{Rete, TermKind};
use std::fmt::Write;

const KINDS: [TermKind; 5] = [
    TermKind::Iri,
    TermKind::BlankNode,
    TermKind::SimpleLiteral,
    TermKind::LangLiteral,
    TermKind::TypedLiteral,
];

fn build(nt: String, block_bytes: usize) -> (tempfile::TempDir, Rete) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.rete");
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "k.nt",
                nt.into_bytes(),
                rete_build::Syntax::NTriples,
            )],
            dict_block_bytes: block_bytes,
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    let rete = Rete::open_path(&out).unwrap();
    (dir, rete)
}

/// The first id of each kind by reading every term's tag.
fn by_scan(rete: &Rete, kind: TermKind) -> u64 {
    (1..=rete.term_count())
        .find(|&id| TermKind::of_encoded(&rete.term_bytes(id).unwrap()).unwrap() >= kind)
        .unwrap_or(rete.term_count() + 1)
}

#[test]
fn first_of_kind_agrees_with_the_terms() {
    let mut every = String::new();
    for i in 0..2000 {
        writeln!(
            every,
            "<http://ex.org/s{i}> <http://ex.org/p> \"v{i}\"@en .\n_:b{i} <http://ex.org/q> \"{i}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n<http://ex.org/s{i}> <http://ex.org/r> \"plain {i}\" ."
        )
        .unwrap();
    }
    every.push_str("<http://ex.org/s0> <http://ex.org/r> \"\" .\n");
    let only_iris = "<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n".to_string();
    let no_blank_or_simple =
        "<http://ex.org/a> <http://ex.org/p> \"x\"@en .\n<http://ex.org/a> <http://ex.org/q> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n".to_string();
    for (nt, blocks) in [
        (every.clone(), 256),
        (every, 64 << 10),
        (only_iris, 4096),
        (no_blank_or_simple, 4096),
    ] {
        let (_dir, rete) = build(nt, blocks);
        for kind in KINDS {
            assert_eq!(
                rete.first_of_kind(kind).unwrap(),
                by_scan(&rete, kind),
                "{kind:?}, {} terms, blocks of {blocks} bytes",
                rete.term_count()
            );
        }
    }
}
