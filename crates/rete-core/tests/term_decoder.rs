//! The per-query term decoder gives what the reader gives, for every id of a file whose
//! dictionary spans many blocks (so blocks are evicted from its table and read again).

#![allow(clippy::unwrap_used, reason = "test code")]

use rete_core::{Rete, TermDecoder};
use std::fmt::Write;

#[test]
fn decodes_every_term_like_the_reader() {
    let mut nt = String::new();
    for i in 0..3000 {
        writeln!(
            nt,
            "<http://ex.org/s{i}> <http://ex.org/p{}> \"v{i}\"@en-US .\n<http://ex.org/s{i}> <http://ex.org/q> \"{i}.50\"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n_:b{i} <http://ex.org/r> \"plain {i}\" .",
            i % 7
        )
        .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.rete");
    rete_build::build(
        &rete_build::BuildOptions {
            inputs: vec![rete_build::Input::bytes(
                "t.nt",
                nt.into_bytes(),
                rete_build::Syntax::NTriples,
            )],
            dict_block_bytes: 512,
            ..rete_build::BuildOptions::default()
        },
        &out,
    )
    .unwrap();
    let rete = Rete::open_path(&out).unwrap();
    let n = rete.term_count();
    assert!(n > 9000);
    let mut d = TermDecoder::new(rete.clone());
    // Forwards, then jumping around (ids far apart share table slots).
    let ids = (1..=n)
        .chain((1..=n).rev().step_by(37))
        .chain((1..=n).step_by(101));
    for id in ids {
        assert_eq!(d.term(id).unwrap(), rete.term(id).unwrap(), "id {id}");
        assert_eq!(
            d.with_bytes(id, <[u8]>::to_vec).unwrap(),
            rete.term_bytes(id).unwrap()
        );
    }
    assert!(d.term(0).is_err());
    assert!(d.term(n + 1).is_err());
}
