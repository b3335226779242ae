//! Helpers shared by the integration tests.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
#![allow(dead_code)]

use oxrdf::{BlankNode, GraphName, NamedOrBlankNode, Quad, Term};
use rete_build::{build, BuildOptions, Input, Syntax};
use rete_core::{Pattern, Rete};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// Serializes quads as N-Quads.
pub fn to_nquads(quads: &[Quad]) -> Vec<u8> {
    let mut w = oxttl::NQuadsSerializer::new().for_writer(Vec::new());
    for q in quads {
        w.serialize_quad(q).unwrap();
    }
    w.finish()
}

/// Builds `nq` (N-Quads text) into `out` with `opts`.
pub fn build_nquads(nq: &[u8], out: &Path, opts: BuildOptions) -> rete_build::BuildReport {
    let opts = BuildOptions {
        inputs: vec![Input::bytes("test.nq", nq.to_vec(), Syntax::NQuads)],
        ..opts
    };
    build(&opts, out).unwrap()
}

/// Builds `inputs` into `out` with the default options.
pub fn build_inputs(
    inputs: Vec<Input>,
    out: &Path,
) -> Result<rete_build::BuildReport, rete_build::BuildError> {
    let opts = BuildOptions {
        inputs,
        ..BuildOptions::default()
    };
    build(&opts, out)
}

/// Renames blank nodes the way the builder does for input 0: by order of first appearance,
/// visiting subject, object, graph.
pub fn rename_like_builder(quads: &[Quad]) -> BTreeSet<String> {
    let mut map: HashMap<String, BlankNode> = HashMap::new();
    let mut ren = |b: &BlankNode| {
        let n = map.len();
        map.entry(b.as_str().to_owned())
            .or_insert_with(|| BlankNode::new_unchecked(format!("b0x{n}")))
            .clone()
    };
    quads
        .iter()
        .map(|q| {
            let s: NamedOrBlankNode = match &q.subject {
                NamedOrBlankNode::BlankNode(b) => ren(b).into(),
                other => other.clone(),
            };
            let o: Term = match &q.object {
                Term::BlankNode(b) => ren(b).into(),
                other => other.clone(),
            };
            let g: GraphName = match &q.graph_name {
                GraphName::BlankNode(b) => ren(b).into(),
                other => other.clone(),
            };
            Quad::new(s, q.predicate.clone(), o, g).to_string()
        })
        .collect()
}

/// Every quad of a file, as N-Quads strings.
pub fn all_quads(rete: &Rete) -> BTreeSet<String> {
    rete.quads(&Pattern::default())
        .unwrap()
        .map(|q| {
            let q = q.unwrap();
            let s = match rete.term(q[0]).unwrap() {
                Term::NamedNode(n) => NamedOrBlankNode::from(n),
                Term::BlankNode(b) => b.into(),
                t => panic!("literal subject {t}"),
            };
            let p = match rete.term(q[1]).unwrap() {
                Term::NamedNode(n) => n,
                t => panic!("bad predicate {t}"),
            };
            Quad::new(
                s,
                p,
                rete.term(q[2]).unwrap(),
                rete.graph_name(q[3]).unwrap(),
            )
            .to_string()
        })
        .collect()
}

/// A small social graph as N-Triples.
pub fn social_nt(people: u64) -> Vec<u8> {
    let mut nt = Vec::new();
    rete_datagen::social::write_ntriples(
        &rete_datagen::social::SocialParams {
            people,
            ..Default::default()
        },
        &mut nt,
    )
    .unwrap();
    nt
}
