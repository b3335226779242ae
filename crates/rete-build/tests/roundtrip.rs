//! Random datasets → build → the file holds exactly the input, and every pattern shape returns
//! what a naive scan returns.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use common::*;
use oxrdf::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use proptest::prelude::*;
use rete_build::BuildOptions;
use rete_core::format::kind;
use rete_core::{GraphMatch, IdQuad, Pattern, Perm, Rete};
use std::collections::BTreeSet;

fn iri() -> impl Strategy<Value = NamedNode> {
    prop_oneof![
        (0u32..30).prop_map(|i| NamedNode::new_unchecked(format!("http://ex.org/n{i}"))),
        (0u32..5).prop_map(|i| NamedNode::new_unchecked(format!("http://ex.org/ünï/{i}#frag"))),
        (0u32..5).prop_map(|i| NamedNode::new_unchecked(format!("urn:x:{:03}", i))),
    ]
}

fn bnode() -> impl Strategy<Value = BlankNode> {
    (0u32..8).prop_map(|i| BlankNode::new_unchecked(format!("x{i}")))
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        "[a-z0-9 é\"\\\\\n\t😀]{0,8}".prop_map(Literal::new_simple_literal),
        (
            "[a-z]{0,5}",
            prop_oneof![Just("en"), Just("fr-be"), Just("de")]
        )
            .prop_map(|(v, l)| Literal::new_language_tagged_literal_unchecked(v, l)),
        (-50i64..50).prop_map(Literal::from),
        (0u32..4, "[0-9]{1,3}").prop_map(|(d, v)| Literal::new_typed_literal(
            v,
            NamedNode::new_unchecked(format!("http://ex.org/dt{d}"))
        )),
    ]
}

fn quad() -> impl Strategy<Value = Quad> {
    let subject = prop_oneof![3 => iri().prop_map(NamedOrBlankNode::from), 1 => bnode().prop_map(NamedOrBlankNode::from)];
    let object = prop_oneof![2 => iri().prop_map(Term::from), 1 => bnode().prop_map(Term::from), 2 => literal().prop_map(Term::from)];
    let graph = prop_oneof![4 => Just(GraphName::DefaultGraph), 1 => iri().prop_map(GraphName::from), 1 => bnode().prop_map(GraphName::from)];
    (
        subject,
        (0u32..6).prop_map(|i| NamedNode::new_unchecked(format!("http://ex.org/p{i}"))),
        object,
        graph,
    )
        .prop_map(|(s, p, o, g)| Quad::new(s, p, o, g))
}

fn id_quads(rete: &Rete) -> Vec<IdQuad> {
    rete.quads(&Pattern::default())
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn build_then_export_is_identity(quads in prop::collection::vec(quad(), 1..120), block in 16usize..64) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rete");
        let opts = BuildOptions { perm_block_quads: block, dict_block_bytes: 300, zstd_level: 1, ..BuildOptions::default() };
        build_nquads(&to_nquads(&quads), &out, opts);
        let rete = Rete::open_path(&out).unwrap();
        let expected = rename_like_builder(&quads);
        prop_assert_eq!(all_quads(&rete), expected.clone());
        prop_assert_eq!(rete.quad_count(), expected.len() as u64);
        rete.verify().unwrap();
    }

    #[test]
    fn every_pattern_matches_naive_scan(quads in prop::collection::vec(quad(), 1..150), picks in prop::collection::vec((0usize..1000, 0u8..16, 0u8..4), 30)) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.rete");
        let opts = BuildOptions { perm_block_quads: 16, dict_block_bytes: 200, zstd_level: 1, ..BuildOptions::default() };
        build_nquads(&to_nquads(&quads), &out, opts);
        let rete = Rete::open_path(&out).unwrap();
        let all = id_quads(&rete);
        for (pick, mask, gmode) in picks {
            let q = all[pick % all.len()];
            // A bound position takes the value of an existing quad, or (mask bit 3) a term id that
            // does not occur in that position.
            let alt = (pick as u64 % rete.term_count()) + 1;
            let pos = |i: usize| if mask & (1 << i) != 0 { Some(if mask & 8 != 0 && i == 2 { alt } else { q[i] }) } else { None };
            let g = match gmode { 0 => GraphMatch::Any, 1 => GraphMatch::Default, 2 => GraphMatch::Named(q[3]), _ => GraphMatch::AnyNamed };
            let pattern = Pattern { s: pos(0), p: pos(1), o: pos(2), g };
            let naive: BTreeSet<IdQuad> = all.iter().copied().filter(|x| {
                pattern.s.is_none_or(|v| v == x[0]) && pattern.p.is_none_or(|v| v == x[1]) && pattern.o.is_none_or(|v| v == x[2]) && g.matches(x[3])
            }).collect();
            let got: Vec<IdQuad> = rete.quads(&pattern).unwrap().map(Result::unwrap).collect();
            prop_assert_eq!(got.len(), naive.len(), "duplicates or misses for {:?}", pattern);
            prop_assert_eq!(got.iter().copied().collect::<BTreeSet<_>>(), naive.clone());
            prop_assert_eq!(rete.count(&pattern).unwrap(), naive.len() as u64);
            for perm in Perm::ALL {
                let keys: Vec<IdQuad> = rete.scan(perm, &pattern).unwrap().map(|q| perm.to_key(&q.unwrap())).collect();
                prop_assert!(keys.windows(2).all(|w| w[0] < w[1]), "{:?} not sorted", perm);
                prop_assert_eq!(keys.len(), naive.len());
            }
        }
        for t in 1..=rete.term_count() {
            let term = rete.term(t).unwrap();
            prop_assert_eq!(rete.id_of(term.as_ref()).unwrap(), Some(t));
        }
    }
}

#[test]
fn unknown_terms_are_absent() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rete");
    build_nquads(
        b"<http://a> <http://p> \"x\" .\n",
        &out,
        BuildOptions::default(),
    );
    let rete = Rete::open_path(&out).unwrap();
    assert_eq!(
        rete.id_of(NamedNode::new_unchecked("http://zzz").as_ref().into())
            .unwrap(),
        None
    );
    assert_eq!(
        rete.id_of(NamedNode::new_unchecked("http://").as_ref().into())
            .unwrap(),
        None
    );
    assert_eq!(
        rete.id_of(Literal::new_simple_literal("x").as_ref().into())
            .unwrap(),
        Some(3)
    );
    assert!(rete.term(0).is_err());
    assert!(rete.term(4).is_err());
}

#[test]
fn card_counts_social_graph() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.rete");
    let nt = social_nt(500);
    let opts = BuildOptions {
        inputs: vec![rete_build::Input::bytes(
            "s.nt",
            nt.clone(),
            rete_build::Syntax::NTriples,
        )],
        ..BuildOptions::default()
    };
    let report = rete_build::build(&opts, &out).unwrap();
    let rete = Rete::open_path(&out).unwrap();
    let card = rete.card().unwrap();
    let lines = nt.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count() as u64;
    assert_eq!(card.quads, lines);
    assert_eq!(report.quads, lines);
    assert_eq!(card.distinct_subjects, 500);
    assert_eq!(card.classes[0].term, "<http://xmlns.com/foaf/0.1/Person>");
    assert_eq!(card.classes[0].count, 500);
    assert_eq!(card.predicates.len(), 4);
    assert_eq!(card.predicates.iter().map(|p| p.count).sum::<u64>(), lines);
    assert_eq!(card.build.inputs[0].statements, lines);
}

/// One short quad: every page table holds one page whose numbers all fit a byte, the smallest
/// entry a table can have (main once rejected it as an "implausible page count").
#[test]
fn a_one_quad_file_opens_with_any_settings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rete");
    for opts in [
        BuildOptions::default(),
        BuildOptions {
            perm_block_quads: 16,
            dict_block_bytes: 300,
            zstd_level: 1,
            ..BuildOptions::default()
        },
    ] {
        build_nquads(b"<urn:x:1> <urn:x:2> \"a\" .\n", &out, opts);
        let rete = Rete::open_path(&out).unwrap();
        assert_eq!(rete.quad_count(), 1);
        assert_eq!(id_quads(&rete).len(), 1);
        rete.verify().unwrap();
    }
}

/// A dictionary large enough shares a zstd dictionary trained on its blocks (format 1.2): the
/// file holds the same terms and quads as one without, one too small is written as without, and
/// a damaged zstd dictionary is a clear error. (That its bytes do not depend on the memory
/// budget: `spill.rs` and the CLI's materialized builds.)
#[test]
fn a_trained_zstd_dictionary_keeps_every_term() {
    let dir = tempfile::tempdir().unwrap();
    let nt = social_nt(3000);
    let built = |name: &str, train_above: u64| {
        let out = dir.path().join(name);
        let opts = BuildOptions {
            train_dict_above: train_above,
            trained_dict_block_bytes: 1024,
            ..BuildOptions::default()
        };
        build_nquads(&nt, &out, opts);
        out
    };
    let (plain, trained) = (built("plain.rete", u64::MAX), built("trained.rete", 0));
    // Held for training but below its threshold: the dictionary of a build that never trains
    // (the card records the option: only the dictionary's sections compare).
    let below = built("below.rete", u64::MAX - 1);
    let dictionary = |path: &std::path::Path| {
        let (r, file) = (Rete::open_path(path).unwrap(), std::fs::read(path).unwrap());
        [kind::DICT_INDEX, kind::DICT_BLOCKS].map(|k| {
            let e = *r.section(k, 0).unwrap();
            file[e.offset as usize..(e.offset + e.len) as usize].to_vec()
        })
    };
    assert!(dictionary(&plain) == dictionary(&below));
    let (a, b) = (
        Rete::open_path(&plain).unwrap(),
        Rete::open_path(&trained).unwrap(),
    );
    let zd = kind::DICT_ZSTD;
    assert!(a.section(zd, 0).is_none());
    assert!(b.section(zd, 0).is_some());
    assert_eq!((a.header().minor, b.header().minor), (1, 2));
    // Smaller blocks: more of them.
    let blocks = |r: &Rete| {
        let sec = *r.section(kind::DICT_BLOCKS, 0).unwrap();
        let idx = r.section_payload(kind::DICT_INDEX, 0).unwrap().unwrap();
        rete_core::dict::DictIndex::decode(&idx, r.header().terms, sec.len, "t")
            .unwrap()
            .blocks
            .len()
    };
    assert!(blocks(&b) > 2 * blocks(&a), "{} {}", blocks(&a), blocks(&b));
    b.verify().unwrap();
    assert_eq!(all_quads(&a), all_quads(&b));
    assert_eq!(a.term_count(), b.term_count());
    for t in 1..=b.term_count() {
        let term = b.term(t).unwrap();
        assert_eq!(a.term(t).unwrap(), term);
        assert_eq!(b.id_of(term.as_ref()).unwrap(), Some(t));
    }
    // Damaged zstd dictionary bytes: a clear error naming the file, never wrong terms.
    let mut bytes = std::fs::read(&trained).unwrap();
    let e = *b.section(zd, 0).unwrap();
    for i in 0..64 {
        bytes[(e.offset + e.len / 2) as usize + i] ^= 0x5a;
    }
    let damaged = dir.path().join("damaged.rete");
    std::fs::write(&damaged, &bytes).unwrap();
    match Rete::open_path(&damaged).and_then(|r| {
        (1..=r.term_count())
            .map(|t| r.term(t).map(|_| ()))
            .collect::<Result<Vec<()>, _>>()
            .and_then(|_| r.verify().map(|_| ()))
    }) {
        Err(e) => assert!(e.to_string().contains("damaged.rete"), "{e}"),
        Ok(()) => panic!("a damaged zstd dictionary went unnoticed"),
    }
}
